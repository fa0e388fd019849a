#!/usr/bin/env bash
# Roofline of one UGKS step on the GPU (issue 24): Nsight Compute counts DRAM bytes and FP64 operations
# of every launch of the step kernels over ONE time step of a benchmark case, and this prints them per
# phase-space point, with the fraction of the machine's bandwidth and FP64 rate they use at the measured
# kernel time.
#
# Usage: scripts/roofline_gpu.sh [--exe PATH] [--case NAME] [--bv B] [--set KEY=VALUE ...]
#   --exe   ugks_solver of a CUDA build (default build-cuda/ugks_solver)
#   --case  a file name of benchmarks/ without .yaml (default cavity3d_40)
#   --bv    parallel.block_size (default 64)
#   --set   extra solver overrides (e.g. numerics.storage=fp32)
# Environment: NCU (default ncu), BW_TBS (default 4.07: the H200's measured copy bandwidth, TB/s),
# FP64_TFLOPS (default 33.5: the H200's FP64 vector peak, TFLOP/s).
# Flops = dadd + dmul + 2 dfma (SASS thread instructions, predicated on). Kernel time from
# gpu__time_duration under ncu (clocks not locked: --clock-control none).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exe="$root/build-cuda/ugks_solver"
case=cavity3d_40
bv=64
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --exe) exe="$2"; shift ;;
    --case) case="$2"; shift ;;
    --bv) bv="$2"; shift ;;
    --set) extra+=(--set "$2"); shift ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
  shift
done
ncu="${NCU:-ncu}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
metrics+=,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum
metrics+=,sm__sass_thread_inst_executed_op_dfma_pred_on.sum
# time.steps 1: initialisation and one full step; only the step kernels are profiled, and the first
# matching launch (the initial moments, k_stage2 with dt < 0) is skipped
"$ncu" --clock-control none --csv --metrics "$metrics" --launch-skip 1 \
  --kernel-name 'regex:k_(flux|grad_block|stage1|stage2|grad_W|face_pre|macro|pack|unpack)' \
  "$exe" "$root/benchmarks/$case.yaml" --quiet --set time.steps=1 --set output.directory="$work/out" \
  --set parallel.block_size="$bv" "${extra[@]}" >"$work/ncu.csv" 2>"$work/ncu.err" || {
  tail -20 "$work/ncu.err" >&2
  exit 1
}
py=python3
command -v "$py" >/dev/null || py=/usr/bin/python3
"$py" - "$work/ncu.csv" "$work/out/summary.json" "${BW_TBS:-4.07}" "${FP64_TFLOPS:-33.5}" <<'PYEOF'
import csv, json, sys
path, summ, bw, fp = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
lines = [l for l in open(path) if l.startswith('"')]
rows = list(csv.DictReader(lines))
j = json.load(open(summ))
pts = j["mesh"]["cells"] * j["velocity"]["points"]
storage = j["build"].get("storage", "fp64")
agg = {}
for r in rows:
    name = r["Kernel Name"].split("<")[0].split("(")[0].strip()
    a = agg.setdefault(name, {"n": set(), "bytes": 0.0, "t": 0.0, "flop": 0.0})
    a["n"].add(r["ID"])
    v = float(r["Metric Value"].replace(",", ""))
    unit = r.get("Metric Unit", "")
    m = r["Metric Name"]
    if m.startswith("dram__bytes"):
        v *= {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1)
        a["bytes"] += v
    elif m == "gpu__time_duration.sum":
        v *= {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1}.get(unit, 1e-9)
        a["t"] += v
    elif "dfma" in m:
        a["flop"] += 2 * v
    else:
        a["flop"] += v
print(f"{j['case']} ({j['mesh']['cells']} cells x {j['velocity']['points']} velocities, "
      f"B_v {j['decomposition']['B_v']}, storage {storage}), one step:")
print()
print("| kernel | launches | device s | DRAM B/point | FP64 flop/point | TB/s | % of BW | TFLOP/s | % of FP64 |")
print("|---|---|---|---|---|---|---|---|---|")
tot = {"bytes": 0.0, "t": 0.0, "flop": 0.0}
for name, a in sorted(agg.items(), key=lambda kv: -kv[1]["t"]):
    for k in tot:
        tot[k] += a[k]
    tbs = a["bytes"] / a["t"] / 1e12 if a["t"] > 0 else 0
    tf = a["flop"] / a["t"] / 1e12 if a["t"] > 0 else 0
    print(f"| {name} | {len(a['n'])} | {a['t']:.4f} | {a['bytes'] / pts:.1f} | {a['flop'] / pts:.0f} | "
          f"{tbs:.2f} | {100 * tbs / bw:.0f} | {tf:.2f} | {100 * tf / fp:.0f} |")
tbs = tot["bytes"] / tot["t"] / 1e12
tf = tot["flop"] / tot["t"] / 1e12
print(f"| all | | {tot['t']:.4f} | {tot['bytes'] / pts:.1f} | {tot['flop'] / pts:.0f} | {tbs:.2f} | "
      f"{100 * tbs / bw:.0f} | {tf:.2f} | {100 * tf / fp:.0f} |")
print()
print(f"PUPS at these kernel times: {pts / tot['t']:.3e}")
PYEOF

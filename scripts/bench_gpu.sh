#!/usr/bin/env bash
# GPU benchmark (issue 4): phase-space point updates per second (PUPS, docs/architecture.md section 9) of the
# CUDA backend on one GPU: the 3D lid-driven cavity 80^3 cells x 21^3 Gauss-Hermite velocities (second
# order, h only), the smaller 40^3 x 21^3 one, the B_v sweep {32, 64, 128, 256} and the 2D cavity
# 45^2 x 28^2 (the CPU benchmark case). For each run: PUPS, persistent device bytes per phase-space point
# and the time split by category (summary.json wall_time_s: gpu:<kernel> device times from CUDA events,
# d2h/h2d, mpi_halo, mpi_reduction, device_wait). Prints markdown tables; with --record appends them to
# docs/performance.md.
#
# Usage: scripts/bench_gpu.sh [--record] [--exe PATH] [--out DIR] [--quick] [--np N --pv P]
#   --exe   ugks_solver of a CUDA build (default build-cuda/ugks_solver; nothing is built here)
#   --out   directory for bench_gpu.md and bench_gpu.json (default: a temporary directory)
#   --quick only the 80^3 case at B_v = 64, the 40^3 sweep and the 2D case
#   --np/--pv  run each case under mpirun -np N with parallel.velocity_ranks = P (default 1 rank)
# Environment: STEPS80, STEPS40, STEPS2D (steps per run: 5, 20, 400), SWEEP (block sizes), RUNS (replaces
# the list of runs: space-separated CASE|B_v|STEPS[|STORAGE], CASE a file name of benchmarks/ without .yaml,
# STORAGE numerics.storage fp64 (default) or fp32),
# HALO (parallel.halo: staged, cuda_aware, nccl or auto; default auto).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
record=0
exe="$root/build-cuda/ugks_solver"
out=""
quick=0
np=1
pv=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --record) record=1 ;;
    --exe) exe="$2"; shift ;;
    --out) out="$2"; shift ;;
    --quick) quick=1 ;;
    --np) np="$2"; shift ;;
    --pv) pv="$2"; shift ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
  shift
done
[[ -x "$exe" ]] || { echo "bench_gpu: $exe not found (build with -DUGKS_BACKEND=cuda)" >&2; exit 1; }
py=python3
command -v "$py" >/dev/null || py=/usr/bin/python3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[[ -n "$out" ]] || out="$work/out"
mkdir -p "$out"
steps80="${STEPS80:-5}"
steps40="${STEPS40:-20}"
steps2d="${STEPS2D:-400}"
sweep="${SWEEP:-32 64 128 256}"

runs=()  # "case|B_v|steps"
runs+=("cavity3d_80|64|$steps80")
for b in $sweep; do runs+=("cavity3d_40|$b|$steps40"); done
if [[ $quick -eq 0 ]]; then
  for b in $sweep; do
    [[ "$b" == 64 ]] || runs+=("cavity3d_80|$b|$(( (steps80 + 1) / 2 + 1 ))")
  done
fi
runs+=("cavity2d_45|64|$steps2d")
if [[ -n "${RUNS:-}" ]]; then read -r -a runs <<<"$RUNS"; fi

launcher=()
if [[ "$np" -gt 1 ]]; then
  launcher=(mpirun --oversubscribe -np "$np" -x LD_LIBRARY_PATH)
fi
summaries=()
for r in "${runs[@]}"; do
  IFS='|' read -r case bv steps storage <<<"$r"
  storage="${storage:-fp64}"
  dir="$work/$case-$bv-$storage"
  echo "bench_gpu: $case B_v=$bv steps=$steps storage=$storage np=$np P_v=$pv" >&2
  if ! "${launcher[@]}" "$exe" "$root/benchmarks/$case.yaml" --quiet \
      --set output.directory="$dir" --set parallel.block_size="$bv" --set time.steps="$steps" \
      --set parallel.velocity_ranks="$pv" --set parallel.halo="${HALO:-auto}" \
      --set numerics.storage="$storage" >"$dir.log" 2>&1; then
    echo "bench_gpu: $case B_v=$bv failed:" >&2
    tail -20 "$dir.log" >&2
    continue
  fi
  cp "$dir/summary.json" "$work/summary-$case-$bv-$storage.json"
  summaries+=("$work/summary-$case-$bv-$storage.json")
done

machine="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$py" - "$out" "$machine" "$cpu" "$commit" "${summaries[@]}" <<'PYEOF'
import datetime, json, sys
out, machine, cpu, commit = sys.argv[1:5]
rows = [json.load(open(p)) for p in sys.argv[5:]]
date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
b = rows[0]["build"] if rows else {}
lines = [f"### {date} commit {b.get('commit', commit)}, {b.get('build_type', '?')} build, "
         f"{b.get('backend', '?')} backend",
         f"Machine: {machine}; host CPU {cpu}. PUPS over the time loop; persistent bytes per "
         "phase-space point = device_persistent / (cells x velocities).", "",
         "| case | cells × velocities | ranks (P_x × P_v, halo) | B_v | storage | steps | s/step | PUPS | "
         "persistent B/point | peak device GB |",
         "|---|---|---|---|---|---|---|---|---|---|"]
split = []
for j in rows:
    cells, vel = j["mesh"]["cells"], j["velocity"]["points"]
    d = j["decomposition"]
    pups = j["phase_space_point_updates_per_s"]
    steps = j["steps"]
    sec = cells * vel * steps / pups if pups > 0 else 0.0
    mem = j["memory_per_rank_bytes"]
    pts = cells * vel / d["P_v"] / d["P_x"]
    per = mem.get("device_persistent", 0) / pts
    lines.append(f"| {j['case'].replace('bench_', '')} | {cells} × {vel} | {d['ranks']} "
                 f"({d['P_x']} × {d['P_v']}, {d.get('halo', '?')}) | {d['B_v']} | {j['build'].get('storage', 'fp64')} | {steps} | {sec / max(steps, 1):.4g} | "
                 f"{pups:.3e} | {per:.3f} | {mem.get('device_peak', 0) / 1e9:.2f} |")
    t = {k: v["max"] for k, v in j["wall_time_s"].items()}
    keys = sorted((k for k in t if k not in ("total", "setup")), key=lambda k: -t[k])
    split.append((j, sec, t, keys))
lines += ["", "Time split (max over ranks, seconds over the whole run; gpu:* = device time from CUDA "
          "events, the rest host wall time; % of the time-loop seconds):", ""]
for j, sec, t, keys in split:
    parts = ", ".join(f"{k} {t[k]:.3g} ({100 * t[k] / sec:.0f}%)" for k in keys if t[k] > 1e-3 * sec)
    lines.append(f"- {j['case'].replace('bench_', '')} B_v={j['decomposition']['B_v']} "
                 f"{j['build'].get('storage', 'fp64')}: loop "
                 f"{sec:.3g} s; {parts}")
text = "\n".join(lines) + "\n"
print(text)
open(f"{out}/bench_gpu.md", "w").write(text)
json.dump(rows, open(f"{out}/bench_gpu.json", "w"), indent=1)
PYEOF
if [[ $record -eq 1 ]]; then
  printf "\n" >> "$root/docs/performance.md"
  cat "$out/bench_gpu.md" >> "$root/docs/performance.md"
  echo "bench_gpu: appended to docs/performance.md"
fi

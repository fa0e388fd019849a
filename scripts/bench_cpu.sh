#!/usr/bin/env bash
# CPU benchmark: phase-space point updates per second (docs/architecture.md section 9) of the 2D and 3D benchmark
# cases on this machine's cores. Prints a table and, with --record, appends it to docs/performance.md.
# Usage: scripts/bench_cpu.sh [--record] [BUILD_DIR]
# Default: configures and builds build-bench/ (Release, -DUGKS_NATIVE=ON: -march=native, tests off).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
record=0
if [[ "${1:-}" == "--record" ]]; then record=1; shift; fi
build="${1:-}"
if [[ -z "$build" ]]; then
  build="$root/build-bench"
  "$root/scripts/build.sh" "$build" -DUGKS_NATIVE=ON -DUGKS_ENABLE_TESTS=OFF >/dev/null
fi
exe="$build/ugks_solver"
[[ -x "$exe" ]] || { echo "bench_cpu: $exe not built (run scripts/build.sh)" >&2; exit 1; }
py=/usr/bin/python3
command -v "$py" >/dev/null || py=python3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cores="$(nproc)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
flags="$(grep -m1 CMAKE_CXX_FLAGS:STRING "$build/CMakeCache.txt" | cut -d= -f2)"
if grep -q "UGKS_NATIVE:BOOL=ON" "$build/CMakeCache.txt"; then flags="$flags -march=native (UGKS_NATIVE)"; fi
btype="$(grep -m1 CMAKE_BUILD_TYPE:STRING "$build/CMakeCache.txt" | cut -d= -f2)"
table="| case | cells × velocities | threads | steps | PUPS |\n|---|---|---|---|---|\n"
for case in cavity2d_45 cavity3d_small; do
  for threads in 1 "$cores"; do
    out="$work/$case-$threads"
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=close "$exe" "$root/benchmarks/$case.yaml" --quiet \
      --set output.directory="$out" >/dev/null
    line="$("$py" - "$out/summary.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"{j['mesh']['cells']} × {j['velocity']['points']}|{j['steps']}|{j['phase_space_point_updates_per_s']:.3e}")
PYEOF
)"
    IFS='|' read -r size steps pups <<<"$line"
    table+="| $case | $size | $threads | $steps | $pups |\n"
  done
done
header="### $(date -u +%Y-%m-%d) commit $commit, $btype build (CXX flags '${flags}'), CPU backend\nMachine: $cpu, $cores cores.\n"
printf "%b\n%b" "$header" "$table"
if [[ $record -eq 1 ]]; then
  printf "\n%b\n%b" "$header" "$table" >> "$root/docs/performance.md"
  echo "bench_cpu: appended to docs/performance.md"
fi

#!/usr/bin/env bash
# Steady-state convergence versus Knudsen number (issue 8, docs/performance.md "Steady-state
# acceleration"): iterations and wall time to a fixed residual for the 2D lid-driven cavity of
# cases/cavity2d_kn0.075 (argon-like VHS gas, diffuse walls, lid 0.148322) at several Kn, with
# time.mode transient (global step), steady/local (local time steps) and steady/implicit.
#
#   scripts/steady_kn_sweep.sh SOLVER [OUTDIR]
#   environment: KNS ("0.001 0.01 0.075 1 10"), METHODS ("transient local implicit"),
#                CELLS (16), VEL (28), TOL (1e-6), MAXSTEPS (200000), WALL_LIMIT (seconds per run,
#                0 = none; a run past it is stopped with SIGTERM and reported as not converged),
#                JOBS (runs at once, default: number of cores), OMP_NUM_THREADS (1 per run)
# Every run writes OUTDIR/kn<Kn>_<method>/; the table (markdown) and the plot are written by
# scripts/steady_kn_report.py to OUTDIR/kn_sweep.md and OUTDIR/kn_sweep.png.
set -euo pipefail
solver="$(realpath "$1")"
out="${2:-steady_kn_sweep_out}"
here="$(cd "$(dirname "$0")/.." && pwd)"
case_file="$here/cases/cavity2d_kn0.075/cavity2d_kn0.075.yaml"
KNS="${KNS:-0.001 0.01 0.075 1 10}" METHODS="${METHODS:-transient local implicit}"
CELLS="${CELLS:-16}" VEL="${VEL:-28}" TOL="${TOL:-1e-6}" MAXSTEPS="${MAXSTEPS:-200000}"
WALL_LIMIT="${WALL_LIMIT:-0}" JOBS="${JOBS:-$(getconf _NPROCESSORS_ONLN)}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
mkdir -p "$out"
runs=()
for kn in $KNS; do
  for m in $METHODS; do runs+=("$kn $m"); done
done
run_one() {
  local kn="$1" m="$2" dir="$out/kn${1}_${2}" mode=steady method="$2"
  [[ "$m" == transient ]] && { mode=transient; method=local; }
  rm -rf "$dir"
  local limit=()
  [[ "$WALL_LIMIT" != 0 ]] && limit=(timeout -s TERM "$WALL_LIMIT")
  "${limit[@]}" "$solver" "$case_file" --quiet --set gas.Kn="$kn" \
    --set "mesh.box.cells=[$CELLS, $CELLS]" --set "velocity.counts=[$VEL, $VEL]" \
    --set time.mode=$mode $([[ $mode == steady ]] && echo --set time.steady_method=$method) \
    --set time.steady_tolerance="$TOL" --set time.steps="$MAXSTEPS" --set output.every=0 \
    --set output.directory="$dir" >"$dir.log" 2>&1 || true
  echo "done Kn $kn $m"
}
export -f run_one
export out solver case_file CELLS VEL TOL MAXSTEPS WALL_LIMIT
printf '%s\n' "${runs[@]}" | xargs -P "$JOBS" -L 1 bash -c 'run_one $0 $1'
py=python3
/usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null && py=/usr/bin/python3
"$py" "$here/scripts/steady_kn_report.py" "$out" --tol "$TOL" --cells "$CELLS" --vel "$VEL"

#!/usr/bin/env bash
# Steady-state acceleration measurement (issue 8, docs/performance.md "Steady-state acceleration"):
# steps and wall time to a residual of TOL for the 2D lid-driven cavity (Kn 0.075, the gas and walls
# of cases/cavity2d_kn0.075), time.mode transient vs steady, on a uniform and on a stretched mesh.
#
#   scripts/steady_speedup.sh SOLVER [OUTDIR]
#   environment: CELLS (24), VEL (16), STRETCH (1.15, symmetric towards all walls), TOL (1e-6),
#                CFL (0.5), MAXSTEPS (100000), NP (1: MPI ranks, mpirun when > 1), OMP_NUM_THREADS,
#                MESHES ("uniform stretched")
# Prints one line per run (mesh, mode, steps, wall seconds, seconds per step, final residuals) and the
# ratios; the runs' outputs stay in OUTDIR (default steady_speedup_out).
set -euo pipefail
solver="$1"
out="${2:-steady_speedup_out}"
here="$(cd "$(dirname "$0")/.." && pwd)"
case_file="$here/cases/cavity2d_kn0.075/cavity2d_kn0.075.yaml"
CELLS="${CELLS:-24}" VEL="${VEL:-16}" STRETCH="${STRETCH:-1.15}" TOL="${TOL:-1e-6}"
CFL="${CFL:-0.5}" MAXSTEPS="${MAXSTEPS:-100000}" NP="${NP:-1}" MESHES="${MESHES:-uniform stretched}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
launch=()
[[ "$NP" -gt 1 ]] && launch=(mpirun --allow-run-as-root --oversubscribe -np "$NP")
mkdir -p "$out"
declare -A steps wall
for mesh in $MESHES; do
  st=1.0; [[ "$mesh" == stretched ]] && st="$STRETCH"
  for mode in transient steady; do
    dir="$out/${mesh}_${mode}"
    rm -rf "$dir"
    "${launch[@]}" "$solver" "$case_file" --quiet \
      --set "mesh.box.cells=[$CELLS, $CELLS]" --set "mesh.box.stretch=[$st, $st]" \
      --set mesh.box.stretch_symmetric=true --set "velocity.counts=[$VEL, $VEL]" \
      --set time.mode=$mode --set time.steady_tolerance=$TOL --set time.steps=$MAXSTEPS \
      --set numerics.cfl=$CFL --set output.every=0 --set output.directory="$dir" ||
      [[ $? -eq 5 ]]  # exit 5: time.steps ended a steady run before TOL (summary.json says so)
    read -r n w r <<<"$(/usr/bin/python3 -c "
import json; j = json.load(open('$dir/summary.json')); r = j['final_residuals']
print(j['steps'], j['wall_time_total_s'], max(r['rho'], r['rhoU'], r['rhoE']))")"
    steps[$mesh.$mode]=$n; wall[$mesh.$mode]=$w
    printf '%-9s %-9s steps %7d  wall %8.2f s  %.3e s/step  max residual %.2e\n' \
      "$mesh" "$mode" "$n" "$w" "$(/usr/bin/python3 -c "print($w/$n)")" "$r"
  done
  /usr/bin/python3 -c "
print('%-9s transient/steady: steps %.2fx, wall time %.2fx' % ('$mesh', ${steps[$mesh.transient]}/${steps[$mesh.steady]}, ${wall[$mesh.transient]}/${wall[$mesh.steady]}))"
done

#!/usr/bin/env bash
# Quick start: install dependencies if missing, build the solver (CPU backend; only the ugks_solver target,
# not the test suites), run the default small case on 2 MPI ranks, compare it with the DSMC centre lines,
# and say how to look at the result.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/install-deps.sh
UGKS_BUILD_TARGETS=ugks_solver ./scripts/build.sh "$root/build"
case_file="cases/cavity2d_small/cavity2d_small.yaml"
out="$root/out/cavity2d_small"
mpi_flags=(--oversubscribe)
if [[ $(id -u) -eq 0 ]]; then mpi_flags+=(--allow-run-as-root); fi
new_run=()
# a second quickstart in the same folder starts a new run there (docs/usage.md "Checkpoints belong to their run")
if compgen -G "$out/checkpoint_*.h5" >/dev/null; then new_run=(--new-run); fi
OMP_NUM_THREADS=1 mpirun "${mpi_flags[@]}" -np 2 "$root/build/ugks_solver" "$case_file" \
  --set output.directory="$out" "${new_run[@]}"
echo
echo "quickstart: results of $case_file are in $out"
ls -1 "$out"
# The comparison scripts need numpy and h5py: Debian's /usr/bin/python3 has them (python3-numpy, python3-h5py).
py=python3
for p in /usr/bin/python3 python3; do
  if "$p" -c "import numpy, h5py" 2>/dev/null; then py="$p"; break; fi
done
echo
echo "quickstart: the centre-line velocities against DSMC (John, Gu & Emerson 2011):"
"$py" scripts/compare_cavity2d.py "$out/fields_final.h5" --lid-speed 0.15 || true
cat <<MSG

Next steps (README.md "Looking at results"):
  paraview $out/fields_final.xdmf        # fields: rho, U, T, p, q, stress, Mach, Kn_local per cell
                                         # ($out/fields.xdmf: all written steps, with output.every)
  $py scripts/compare_cavity2d.py $out/fields_final.h5 --lid-speed 0.15 --plot $out/cavity
  less $out/summary.json                 # run summary: steps, residuals, wall forces, timings
  ./scripts/build.sh build               # everything, including the test suites (./scripts/test.sh runs them)
MSG

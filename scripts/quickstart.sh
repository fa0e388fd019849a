#!/usr/bin/env bash
# Quick start: install dependencies if missing, build the CPU backend, run the default small case on 2 MPI ranks.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/install-deps.sh
./scripts/build.sh "$root/build"
case_file="cases/cavity2d_small/cavity2d_small.yaml"
out="$root/out/cavity2d_small"
mpi_flags=(--oversubscribe)
if [[ $(id -u) -eq 0 ]]; then mpi_flags+=(--allow-run-as-root); fi
OMP_NUM_THREADS=1 mpirun "${mpi_flags[@]}" -np 2 "$root/build/ugks_solver" "$case_file" \
  --set output.directory="$out"
echo
echo "quickstart: results of $case_file are in $out"
ls -1 "$out"

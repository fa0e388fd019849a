#!/usr/bin/env bash
# The outputs as a new user reads them (issue 21): the same run written in nondimensional and in SI units
# (output.units), then tests/cli/outputs_readable.py reads both with meshio, pandas and h5py and checks
# the SI numbers against the nondimensional ones and the reference state.
# Usage: outputs_readable.sh SOLVER MPIEXEC NPFLAG PYTHON CASE
set -uo pipefail
solver="$1"; mpiexec="$2"; npflag="$3"; python="$4"; case_file="$5"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=outputs_readable
rm -rf "$work"
for units in nondimensional si; do
  timeout 120 "$mpiexec" "$npflag" 2 "$solver" "$case_file" --quiet --set output.directory="$work/$units" \
    --set output.units="$units" || { echo "FAIL: the $units run exited $?"; exit 1; }
done
exec "$python" "$here/outputs_readable.py" "$work/nondimensional" "$work/si"

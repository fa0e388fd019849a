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
    --set output.units="$units" --set checkpoint.every=10 || { echo "FAIL: the $units run exited $?"; exit 1; }
done
# A restart continues the time series: fields.xdmf then lists steps 5, 10 (the first run's) and 15, 20.
cp -r "$work/si" "$work/restart"
timeout 120 "$mpiexec" "$npflag" 2 "$solver" "$case_file" --quiet --set output.directory="$work/restart" \
  --set output.units=si --set checkpoint.every=10 --set time.steps=20 --restart latest \
  || { echo "FAIL: the restart exited $?"; exit 1; }
exec "$python" "$here/outputs_readable.py" "$work/nondimensional" "$work/si" "$work/restart"

#!/usr/bin/env bash
# Patch patterns in `boundaries` (docs/usage.md "Patch patterns"). Usage: patch_patterns.sh SOLVER CASE.yaml
# The case's xmin and ymin entries replaced by one pattern entry "[xy]min" give the same fields, bit for
# bit, as the case that lists them, and the log says which patches the pattern took.
set -euo pipefail
solver="$1"; case_file="$2"
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
tool="$(cd "$(dirname "$0")" && pwd)/h5tool.py"
work=patch_patterns
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$solver" "$case_file" --set time.steps=5 --set output.directory=listed >listed.log 2>&1 ||
  { cat listed.log; echo "FAIL: the listed case failed"; exit 1; }
"$solver" "$case_file" --set time.steps=5 --set output.directory=pattern \
  --set boundaries.xmin=null --set boundaries.ymin=null \
  --set "boundaries.[xy]min={type: diffuse_wall, T: 1.0}" >pattern.log 2>&1 ||
  { cat pattern.log; echo "FAIL: the pattern case failed"; exit 1; }
grep -F "boundaries.[xy]min: takes patches 'xmin', 'ymin'" pattern.log ||
  { cat pattern.log; echo "FAIL: no log line naming the patches of the pattern"; exit 1; }
"$py" "$tool" same listed/fields_final.h5 pattern/fields_final.h5
echo "PASS"

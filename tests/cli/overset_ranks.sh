#!/usr/bin/env bash
# The overset output does not depend on the number of ranks (distributed assembly, docs/overset.md):
#   overset_ranks.sh NAME SOLVER MPIEXEC NUMPROC_FLAG CASE_FILE [--set KEY=VALUE ...]
# Runs the case on 1, 2 and 3 ranks and requires, against the single-rank run: the same output files;
# every dataset of every grid (node coordinates, wall distances, node and cell status, cells,
# receptors, donor grids and cells, weights) identical bit for bit (h5diff without tolerance); the
# XDMF files identical; summary.json with the same counts per step, per grid and orphans, "ranks"
# equal to the rank count and an "mpi" timing.
set -uo pipefail
name="$1"; solver="$2"; mpiexec="$3"; npflag="$4"; case_file="$5"; shift 5
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
work="$PWD/overset_ranks_$name"
rm -rf "$work"
mkdir -p "$work"
export OMP_NUM_THREADS=1
for np in 1 2 3; do
  if ! "$mpiexec" "$npflag" "$np" "$solver" "$case_file" --quiet "$@" --set output.directory="$work/np$np" \
       > "$work/np$np.log" 2>&1; then
    echo "FAIL: the run on $np ranks failed:"; tail -20 "$work/np$np.log"; exit 1
  fi
done
fail=0
grids=$("$py" -c 'import json,sys; print(" ".join(g["name"] for g in json.load(open(sys.argv[1]))["grids"]))' \
        "$work/np1/summary.json")
ref=$(cd "$work/np1" && ls overset_*.h5 overset_*.xdmf)
[[ -n "$ref" ]] || { echo "FAIL: no output files"; exit 1; }
for np in 2 3; do
  got=$(cd "$work/np$np" && ls overset_*.h5 overset_*.xdmf)
  [[ "$got" == "$ref" ]] || { echo "FAIL: np $np wrote other files: $got"; fail=1; continue; }
  for f in $ref; do
    if [[ "$f" == *.xdmf ]]; then
      cmp -s "$work/np1/$f" "$work/np$np/$f" || { echo "FAIL: np $np: $f differs"; fail=1; }
      continue
    fi
    for g in $grids; do
      if ! h5diff "$work/np1/$f" "$work/np$np/$f" "/$g" "/$g" > "$work/diff.txt" 2>&1; then
        echo "FAIL: np $np: $f /$g differs:"; head -20 "$work/diff.txt"; fail=1
      fi
    done
  done
  "$py" - "$work/np1/summary.json" "$work/np$np/summary.json" "$np" <<'PY' || fail=1
import json, sys
a, b, np_ = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
strip = lambda h: [{k: v for k, v in s.items() if k != "assembly_seconds"} for s in h]
bad = [k for k in ("counts", "grids", "orphans", "max_orphans_over_steps", "steps") if a[k] != b[k]]
if strip(a["history"]) != strip(b["history"]):
    bad.append("history")
if b["ranks"] != np_ or a["ranks"] != 1:
    bad.append("ranks")
if "mpi" not in b["timings_seconds"]:
    bad.append("timings_seconds.mpi")
if bad:
    print(f"FAIL: np {np_}: summary.json differs in {bad}")
    sys.exit(1)
print(f"np {np_}: summary.json counts identical ({len(a['history'])} steps, "
      f"{a['counts']['receptors']} receptors at the last)")
PY
done
[[ $fail == 0 ]] || exit 1
echo "overset output on 1, 2 and 3 ranks identical: $(echo $ref | wc -w) files"

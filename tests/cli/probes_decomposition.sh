#!/usr/bin/env bash
# Probe output is independent of the decomposition:
#   probes_decomposition.sh SOLVER MPIEXEC NUMPROC_FLAG CASE_FILE
# A 3D box of 6^3 cells whose centre lines pass exactly half-way between cell centres (every probe point
# is equidistant from four or eight cells). (Before ties were broken by global id, the 3-rank run picked
# other cells than the serial one on this box; a 2D 6 x 6 box happened to agree.) The probes must pick the same cells (lowest global id among the
# nearest) and write the same values on 1 and 3 ranks: the cell id column must be identical and the
# values equal to 1e-12 relative (the fields are decomposition-invariant to round-off).
set -uo pipefail
solver="$1"; mpiexec="$2"; npflag="$3"; case_file="$4"
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
work="$PWD/probes_decomposition"
rm -rf "$work"
mkdir -p "$work"
export OMP_NUM_THREADS=1
args=(--quiet --set mesh.box.dim=3 --set "mesh.box.cells=[6,6,6]" --set "mesh.box.lo=[0,0,0]"
      --set "mesh.box.hi=[1,1,1]" --set velocity.dim=3 --set "velocity.counts=[4,4,4]" --set time.steps=3
      --set "boundaries.zmin={type: diffuse_wall, T: 1.0}" --set "boundaries.zmax={type: diffuse_wall, T: 1.0}"
      --set "boundaries.ymax={type: diffuse_wall, T: 1.0, U: [0.2, 0, 0]}"
      --set "output.probes=[{name: vertical, from: [0.5, 0, 0.5], to: [0.5, 1, 0.5], points: 13},
                            {name: horizontal, from: [0, 0.5, 0.5], to: [1, 0.5, 0.5], points: 13}]")
for np in 1 3; do
  if ! "$mpiexec" "$npflag" "$np" "$solver" "$case_file" "${args[@]}" --set output.directory="$work/np$np" \
       > "$work/np$np.log" 2>&1; then
    echo "FAIL: the run on $np ranks failed:"; tail -20 "$work/np$np.log"; exit 1
  fi
done
"$py" - "$work" <<'PY'
import csv, sys
work = sys.argv[1]
bad = 0
for name in ("vertical", "horizontal"):
    rows = [list(csv.reader(open("%s/np%d/probes_%s.csv" % (work, n, name)))) for n in (1, 3)]
    if len(rows[0]) != len(rows[1]) or rows[0][0] != rows[1][0]:
        print("FAIL: %s: different shapes or headers" % name); bad += 1; continue
    cell = rows[0][0].index("cell")
    for a, b in zip(rows[0][1:], rows[1][1:]):
        if a[cell] != b[cell]:
            print("FAIL: %s: point %s sampled cell %s on 1 rank, %s on 3" % (name, a[:3], a[cell], b[cell])); bad += 1
        for x, y in zip(a, b):
            x, y = float(x), float(y)
            if abs(x - y) > 1e-12 * max(1.0, abs(x)):
                print("FAIL: %s: %g vs %g at %s" % (name, x, y, a[:3])); bad += 1; break
    print("%s: %d points, same cells and values on 1 and 3 ranks" % (name, len(rows[0]) - 1))
sys.exit(1 if bad else 0)
PY

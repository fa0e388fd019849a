#!/usr/bin/env bash
# summary.json `traffic` against the bytes the decomposition implies (docs/usage.md "Outputs"):
#   traffic.sh SOLVER MPIEXEC NUMPROC_FLAG CASE_FILE
# The base case on an 8 x 2 box, 8 x 8 Gauss-Hermite velocities (2D velocity space: h and b), blocks
# of 16 (4 blocks), 3 steps, on 2 ranks:
#   P_x = 2, order 1 and 2: the mesh is cut between x = 4 and 5 cells, so each rank has 2 ghost cells
#     and sends 2 rows. Per step and rank the halo moves 2 cells x 8 B x (W 5 + q 3 + h and b of every
#     velocity 2 x 64) words, and with order 2 also the limited gradient of W (15) and of h and b
#     (2 x 3 x 64): 2176 B and 8560 B sent and received. The residual norms (7 doubles over C_x)
#     are the only C_x reduction; the time step (1 double) and the failure flag (1 int) go over all ranks;
#     C_v has one rank: 0 B.
#   P_v = 2: no halo (0 B point to point); the velocity sums over C_v per step: the wall sums
#     (2 per wall face: 20 wall faces), the face accumulator (5 per face: 42 faces) and the raw moments
#     (17 per cell: 16 cells): 8 x (40 + 210 + 272) = 4176 B on each rank.
# Every counter must be the same on both ranks (min = max = rank 0), and total = steps x per step.
set -uo pipefail
solver="$1"; mpiexec="$2"; npflag="$3"; case_file="$4"
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
work="$PWD/traffic"
rm -rf "$work"
mkdir -p "$work"
export OMP_NUM_THREADS=1
common=(--set "mesh.box.cells=[8,2]" --set time.steps=3 --set parallel.halo=staged)
run() {  # run NAME ARGS...: 2 ranks, output in $work/NAME
  local name="$1"; shift
  if ! "$mpiexec" "$npflag" 2 "$solver" "$case_file" "${common[@]}" "$@" \
       --set output.directory="$work/$name" > "$work/$name.log" 2>&1; then
    echo "FAIL: the run $name failed:"; tail -20 "$work/$name.log"; exit 1
  fi
  cat "$work/$name.log"
}
run px2_order1 --set numerics.order=1
run px2_order2 --set numerics.order=2
run pv2 --set parallel.velocity_ranks=2
for name in px2_order1 px2_order2; do
  if ! grep -q "owned cells per rank 8\.\.8, ghosts up to 2;" "$work/$name.log"; then
    echo "FAIL: $name: the partition is not the two 4 x 2 halves this test assumes"; exit 1
  fi
done
grep -q "traffic per step (rank 0): .*MPI sent 2\.12 KiB / received 2\.12 KiB" "$work/px2_order1.log" ||
  { echo "FAIL: no or a wrong traffic line in the log of px2_order1"; exit 1; }
"$py" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
steps = 3
ghosts, words_v = 2, 2 * 64          # ghost (and sent) cells per rank; h and b of 64 velocities
order1 = ghosts * 8 * (5 + 3 + words_v)
order2 = order1 + ghosts * 8 * (15 + 3 * words_v)
velocity = 8 * (2 * 20 + 5 * 42 + 17 * 16)
expect = {
    "px2_order1": {"mpi_sent": order1, "mpi_recv": order1, "reduce_v": 0, "reduce_x": 56,
                   "reduce_world": 12, "nccl_sent": 0},
    "px2_order2": {"mpi_sent": order2, "mpi_recv": order2, "reduce_v": 0, "reduce_x": 56,
                   "reduce_world": 12, "nccl_sent": 0},
    "pv2": {"mpi_sent": 0, "mpi_recv": 0, "reduce_v": velocity, "reduce_x": 0, "reduce_world": 12,
            "nccl_sent": 0},
}
bad = 0
for name, want in expect.items():
    t = json.load(open("%s/%s/summary.json" % (work, name)))["traffic"]
    if t["steps"] != steps:
        print("FAIL: %s: traffic.steps %s, expected %d" % (name, t["steps"], steps)); bad += 1
    for counter, per_step in want.items():
        for key in ("min", "mean", "max", "rank0"):
            got_step = t["per_step"][counter][key]
            got_total = t["total"][counter][key]
            if got_step != per_step or got_total != steps * per_step:
                print("FAIL: %s: %s %s: per step %s (total %s), expected %d (total %d)"
                      % (name, counter, key, got_step, got_total, per_step, steps * per_step))
                bad += 1
    print("%s: %s" % (name, {c: t["per_step"][c]["rank0"] for c in want}))
sys.exit(1 if bad else 0)
PY

#!/usr/bin/env bash
# A stop signal during start-up (issue 23): signal_startup.sh SOLVER MPIEXEC NUMPROC_FLAG CASE.yaml
# A 2-rank run whose set-up takes seconds (a 640 000-cell mesh) gets SIGTERM on one rank while it
# builds the mesh. Before, the handler was installed only later and the process died with 143 and
# no message; now the handlers are installed before MPI_Init and the ranks agree at the end of the
# set-up stage: every rank exits 4 within the limit, with the message, and nothing is written
# (no step, no checkpoint, no history.csv).
set -uo pipefail
solver="$1"; mpiexec="$2"; npflag="$3"; case_file="$4"
work="sig_startup"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; cat "$work/log" 2>/dev/null; exit 1; }
"$mpiexec" "$npflag" 2 "$solver" "$case_file" --set output.directory="$work/out" \
    --set "mesh.box.cells=[800, 800]" --set "velocity.counts=[2, 2]" --set time.steps=1000 \
    > "$work/log" 2>&1 &
pid=$!
rank=""
for _ in $(seq 200); do
    rank=$(pgrep -P "$pid" | head -1)
    [[ -n "$rank" ]] && break
    sleep 0.05
done
[[ -n "$rank" ]] || { kill -KILL "$pid"; fail "no rank process under mpirun $pid"; }
sleep 1  # past the program's start (the handlers are in place before MPI_Init), into the set-up
grep -q "rank map" "$work/log" && { kill -KILL "$pid"; fail "the set-up was over before the signal"; }
kill -TERM "$rank"
for _ in $(seq 1200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fail "still running 60 s after the signal (hang)"; fi
wait "$pid"
rc=$?
[[ "$rc" == 4 ]] || fail "exit code $rc, expected 4"
grep -q "stopped by SIGTERM: SIGTERM received during start-up (after reading the case and the mesh), before the first step of this run; nothing was written" "$work/log" ||
    fail "no start-up stop message"
[[ ! -e "$work/out/history.csv" ]] || fail "history.csv was written"
compgen -G "$work/out/checkpoint_*" >/dev/null && fail "a checkpoint was written"
echo "OK: SIGTERM during start-up: exit 4, nothing written"

#!/usr/bin/env bash
# Stop by signal (issue 7): signal.sh MODE SOLVER MPIEXEC NUMPROC_FLAG CASE.yaml
#   usr1_np2   SIGUSR1 to mpirun (which forwards it to both ranks; Slurm's --signal warning)
#   term_np2   SIGTERM to one of the two ranks only (the ranks agree on the stop after the step)
#   int_np1    SIGINT to a solver started without mpirun
# A long run is started, signalled once it is stepping, and must exit 4 on every rank within the
# time limit, having written checkpoint_<step>.h5, fields_final.h5 of that step and summary.json;
# a restart with --restart latest then continues from that step to the end (exit 0).
set -uo pipefail
mode="$1"; solver="$2"; mpiexec="$3"; npflag="$4"; case_file="$5"
work="sig_${mode}"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; cat "$work/log" 2>/dev/null; exit 1; }
args=(--set output.directory="$work/out" --set time.steps=100000000)
case "$mode" in
usr1_np2 | term_np2) "$mpiexec" "$npflag" 2 "$solver" "$case_file" "${args[@]}" > "$work/log" 2>&1 & ;;
int_np1) "$solver" "$case_file" "${args[@]}" > "$work/log" 2>&1 & ;;
*) fail "unknown mode $mode" ;;
esac
pid=$!
# Wait until it is stepping (history.csv has a few rows).
for _ in $(seq 600); do
    [[ -f "$work/out/history.csv" && $(wc -l < "$work/out/history.csv") -gt 5 ]] && break
    sleep 0.05
done
[[ -f "$work/out/history.csv" ]] || { kill -KILL "$pid"; fail "the run did not start stepping"; }
case "$mode" in
usr1_np2) kill -USR1 "$pid"; sig=SIGUSR1 ;;
term_np2)
    rank=$(pgrep -P "$pid" | head -1)
    [[ -n "$rank" ]] || { kill -KILL "$pid"; fail "no rank process under mpirun $pid"; }
    kill -TERM "$rank"; sig=SIGTERM ;;
int_np1) kill -INT "$pid"; sig=SIGINT ;;
esac
# Every rank must leave within the limit.
for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fail "still running 30 s after the signal (hang)"; fi
wait "$pid"
rc=$?
[[ "$rc" == 4 ]] || fail "exit code $rc, expected 4"
grep -q "$sig received: stopped after step" "$work/log" || fail "no stop message"
grep -q "stopped by $sig after step" "$work/log" || fail "no exit message"
step=$(sed -n "s/.*$sig received: stopped after step \([0-9]*\),.*/\1/p" "$work/log" | head -1)
ck=$(printf "%s/out/checkpoint_%06d.h5" "$work" "$step")
[[ -f "$ck" ]] || fail "checkpoint $ck missing"
[[ -f "$work/out/fields_final.h5" && -f "$work/out/summary.json" ]] || fail "final outputs missing"
grep -q "\"stopped_by_signal\": \"$sig\"" "$work/out/summary.json" || fail "summary.json lacks stopped_by_signal"
grep -q "\"steps\": $step," "$work/out/summary.json" || fail "summary.json steps != $step"
# Continue to step + 3 from the latest checkpoint.
"$solver" "$case_file" --quiet --set output.directory="$work/out" --set time.steps=$((step + 3)) \
    --restart latest > "$work/log2" 2>&1 || fail "restart failed: $(cat "$work/log2")"
rows=$(($(wc -l < "$work/out/history.csv") - 1))
[[ "$rows" == $((step + 3)) ]] || fail "history.csv has $rows rows after the restart, expected $((step + 3))"
echo "OK: $sig stopped the run after step $step with exit 4; restarted to step $((step + 3))"

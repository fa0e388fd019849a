#!/usr/bin/env bash
# The logic of scripts/slurm/requeue_chain.sbatch without Slurm: slurm_chain.sh CHAIN SOLVER MPIEXEC
# NUMPROC_FLAG CASE.yaml. "srun" is a stub that runs mpirun and sends it SIGUSR1 (Slurm's warning
# before the time limit) after 100 steps, "scontrol requeue" a stub that records the request; the job is re-run while it
# asks to be requeued. The chain must finish (exit 0) after several interrupted runs with fields
# identical to an uninterrupted run of the same decomposition.
set -uo pipefail
chain="$1"; solver="$2"; mpiexec="$3"; npflag="$4"; case_file="$5"
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
work="$PWD/slurm_chain"
rm -rf "$work"
mkdir -p "$work/bin"
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/bin/scontrol" <<STUB
#!/usr/bin/env bash
[[ "\$1" == requeue ]] && touch "$work/requeued"
STUB
chmod +x "$work/bin/scontrol"
# "srun": mpirun, plus Slurm's time-limit warning once the job has done 100 more steps (counted in
# history.csv), so that every job but the last is interrupted whatever the machine's speed.
cat > "$work/bin/srun" <<STUB
#!/usr/bin/env bash
rows() { [[ -f "\$OUT/history.csv" ]] && wc -l < "\$OUT/history.csv" || echo 0; }
start=\$(rows)
"$mpiexec" "$npflag" 2 "\$@" &
pid=\$!
while kill -0 \$pid 2>/dev/null; do
    if [[ \$(rows) -gt \$((start + 100)) ]]; then kill -USR1 \$pid; break; fi
    sleep 0.02
done
wait \$pid
STUB
chmod +x "$work/bin/srun"
steps=300
# 24 x 16 cells (16 times the base case's): ~10 ms a step, so the stub's 20 ms polling signals the job
# near its 100th new step even on a fast -march=native build (with 6 x 4 cells 300 steps took 0.2 s and
# the signal could arrive after the run had ended: a flaky "no restart was exercised").
size=(--set "mesh.box.cells=[24, 16]")
"$mpiexec" "$npflag" 2 "$solver" "$case_file" --quiet --set output.directory="$work/straight" \
    --set time.steps=$steps "${size[@]}" || fail "uninterrupted run failed"
runs=0
while :; do
    rm -f "$work/requeued"
    PATH="$work/bin:$PATH" SLURM_JOB_ID=4242 SLURM_RESTART_COUNT=$runs CASE="$case_file" \
        OUT="$work/chain" SOLVER="$solver" \
        SRUN="$work/bin/srun" \
        bash "$chain" --quiet --set time.steps=$steps "${size[@]}"
    rc=$?
    runs=$((runs + 1))
    [[ "$rc" == 0 ]] || fail "chain job exited $rc"
    [[ -f "$work/requeued" ]] || break
    [[ $runs -lt 40 ]] || fail "no end after $runs runs"
done
[[ $runs -ge 2 ]] || fail "the case finished in the first job: no restart was exercised"
"$py" "$(dirname "$0")/h5tool.py" same "$work/straight/fields_final.h5" "$work/chain/fields_final.h5" ||
    fail "chain result differs from the uninterrupted run"
"$py" "$(dirname "$0")/h5tool.py" history "$work/straight/history.csv" "$work/chain/history.csv" ||
    fail "chain history differs"
echo "OK: the chain finished after $runs jobs with the uninterrupted run's fields"

#!/usr/bin/env bash
# scripts/slurm/requeue_chain.sbatch under a REAL single-node Slurm (ctest label slurm):
#   slurm_real.sh CHAIN SOLVER CASE.yaml [SCRIPT.sbatch ...]
# Starts munged, slurmctld and slurmd (Debian packages munge, slurm-wlm; scripts/install-deps.sh) on
# localhost with a private configuration, key, sockets, state, spool and logs in a temporary directory,
# and always stops them again (trap). TaskPlugin=task/affinity with TaskPluginParam=autobind=cores: every
# task of a step is bound to the cores Slurm counts for it, also where srun's auto binding finds no match
# (like a site whose default binding is cores; docs/decisions.md). Then:
#  0. CPU binding: CHAIN and every further SCRIPT (their CPU variants: --gpus-per-node lines dropped) run
#     as a job of one task with --cpus-per-task=2, SOLVER replaced by a stand-in that prints the task's
#     Cpus_allowed_list and OMP_NUM_THREADS through the script's own srun line; the task's CPU set must
#     hold 2 CPUs and OMP_NUM_THREADS be 2 (an srun that does not get the job's --cpus-per-task binds
#     the task to one CPU);
#  1. calibrates the number of steps so that the case takes about UGKS_SLURM_TARGET_S (70) seconds
#     on 2 ranks, and runs it uninterrupted with srun (P_x 1 x P_v 2);
#  2. submits the chain script (the documented CPU adaptation: the --gpus-per-node line dropped) with
#     --time=1 --signal=USR1@10: slurmctld sends SIGUSR1 20-50 s into every job (its time-limit
#     check runs every 30 s), the solver checkpoints and exits 4, the script requeues the job, and
#     the next run continues with --restart latest, until the case is finished;
#  3. checks that the job COMPLETED after at least one requeue (Restarts >= 1 in scontrol, a
#     "--restart latest" run in the job output) and that fields_final.h5 and history.csv equal the
#     uninterrupted run's byte for byte.
# Exit 77 (ctest SKIP_RETURN_CODE) when not root, when the packages are missing, on a machine with fewer
# than 2 CPUs, or when the daemons do not come up in this environment (the reason and the daemon log are
# printed).
# Test-only settings (docs/decisions.md): AuthInfo cred_expire=10 (a requeued job may start again after
# cred_expire seconds, 120 by default) and sched_interval=2 (the main scheduler would otherwise look at
# the requeued job only every 60 s).
set -uo pipefail
chain="$1"; solver="$2"; case_file="$3"
shift 3
bind_scripts=("$chain" "$@")
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
here="$(cd "$(dirname "$0")" && pwd)"
target_s="${UGKS_SLURM_TARGET_S:-70}"
chain_timeout_s="${UGKS_SLURM_CHAIN_TIMEOUT_S:-300}"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || skip "needs root (starts munged, slurmctld and slurmd as root)"
for b in munged slurmctld slurmd sbatch srun squeue scontrol scancel sinfo; do
    command -v "$b" >/dev/null ||
        skip "'$b' not found: install the Debian packages slurm-wlm and munge (scripts/install-deps.sh)"
done
solver="$(cd "$(dirname "$solver")" && pwd)/$(basename "$solver")"
case_file="$(cd "$(dirname "$case_file")" && pwd)/$(basename "$case_file")"

# Everything of this test below $tmp (short path: unix socket names are limited to 107 bytes). The
# job output and the daemon logs are copied to $PWD/slurm_real/ for inspection.
tmp="$(mktemp -d /tmp/ugks-slurm.XXXXXX)" || skip "cannot create a temporary directory"
keep="$PWD/slurm_real"
rm -rf "$keep"
mkdir -p "$keep"
export SLURM_CONF="$tmp/slurm.conf"
mkdir -p "$tmp"/{munge,state,spool,log,work}
chmod 700 "$tmp/munge"

pid_of() { [[ -s "$1" ]] && cat "$1"; }
stop_pid() {  # stop_pid PID: SIGTERM, up to 10 s, then SIGKILL
    local p="$1" i
    [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null || return 0
    kill "$p" 2>/dev/null
    for i in $(seq 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
    kill -9 "$p" 2>/dev/null
}
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    cd /
    if [[ -s "$tmp/slurmctld.pid" ]]; then
        timeout 10 scancel --quiet --user=root >/dev/null 2>&1
        sleep 1
    fi
    stop_pid "$(pid_of "$tmp/slurmd.pid")"
    stop_pid "$(pid_of "$tmp/slurmctld.pid")"
    # Left-over job processes (slurmstepd, the solver): those whose command line or working directory
    # lies in this test's private directory.
    [[ -n "${watchdog:-}" ]] && { kill "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null; }
    for p in $(ls /proc | grep -E '^[0-9]+$'); do
        [[ "$p" == "$$" ]] && continue
        if { tr '\0' ' ' < "/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$tmp" ||
            [[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" == "$tmp"* ]]; then
            kill -9 "$p" 2>/dev/null
        fi
    done
    stop_pid "$(pid_of "$tmp/munge/munged.pid")"
    cp -f "$tmp"/log/*.log "$tmp"/munge/munged.log "$tmp"/work/*.out "$keep/" 2>/dev/null
    rm -rf "$tmp"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# Watchdog for a hard kill of this script (e.g. a ctest timeout): once this shell is gone, stop the
# daemons and remove the directory.
setsid bash -c 'while kill -0 '"$$"' 2>/dev/null; do sleep 2; done
    for f in slurmd.pid slurmctld.pid munge/munged.pid; do
        [[ -s "$1/$f" ]] && kill -9 "$(cat "$1/$f")" 2>/dev/null
    done
    sleep 1; rm -rf "$1"' watchdog "$tmp" </dev/null >/dev/null 2>&1 &
watchdog=$!

# Free TCP ports for slurmctld and slurmd (nothing answering on 127.0.0.1).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ports=()
for try in $(seq 50); do
    p=$((20000 + (RANDOM % 20000)))
    port_free "$p" && port_free "$((p + 1))" && { ports=("$p" "$((p + 1))"); break; }
done
[[ ${#ports[@]} -eq 2 ]] || skip "no free TCP ports for slurmctld/slurmd"

# munge: own key, socket, pid, seed and log files.
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
sock="$tmp/munge/munge.socket"
timeout 20 munged --force --socket="$sock" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
    --seed-file="$tmp/munge/munged.seed" ||
    { cat "$tmp/munge/munged.log" 2>/dev/null; skip "munged does not start in this environment"; }

# nproc would honour OMP_NUM_THREADS (ctest sets 1). The 2 ranks and the binding check need 2 CPUs, and
# task/affinity binds tasks to CPUs that exist.
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc --all)
[[ "$cpus" -ge 2 ]] 2>/dev/null || skip "needs a machine with at least 2 CPUs (this one: ${cpus:-?})"
bind_cpus=2
mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
cat > "$SLURM_CONF" <<CONF
# ugks_solver test cluster (tests/cli/slurm_real.sh): one node, localhost, no systemd, no cgroups
# (task/affinity binds with sched_setaffinity).
ClusterName=ugkstest
SlurmctldHost=localhost
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock,cred_expire=10
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
TaskPluginParam=autobind=cores
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
ReturnToService=2
SlurmdParameters=config_overrides
JobRequeue=1
KillWait=15
MinJobAge=600
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$((mem_mb * 9 / 10)) State=UNKNOWN
PartitionName=ugks Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
timeout 30 slurmctld -f "$SLURM_CONF" ||
    { tail -20 "$tmp/log/slurmctld.log" 2>/dev/null; skip "slurmctld does not start in this environment"; }
timeout 30 slurmd -f "$SLURM_CONF" -N localhost ||
    { tail -20 "$tmp/log/slurmd.log" 2>/dev/null; skip "slurmd does not start in this environment"; }
up=0
for i in $(seq 60); do
    state="$(timeout 10 sinfo -h -n localhost -o %T 2>/dev/null)"
    [[ "$state" == idle ]] && { up=1; break; }
    sleep 0.5
done
if [[ $up -ne 1 ]]; then
    tail -20 "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log" 2>/dev/null
    skip "the Slurm node does not become idle in this environment (state '${state:-none}')"
fi
echo "slurm up: $(sinfo --version), ports ${ports[*]}, node localhost CPUs=$cpus"

work="$tmp/work"
cd "$work" || fail "cd $work"
export OMP_NUM_THREADS=1

# 0. CPU binding of each script's srun line.
cat > "$tmp/cpuset_probe" <<'PROBE'
#!/bin/bash
# stands in for ugks_solver: the CPU set and OpenMP thread count of this task
echo "cpuset: task ${SLURM_PROCID:-?} Cpus_allowed_list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status) OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
PROBE
chmod +x "$tmp/cpuset_probe"
cpu_count() {  # cpu_count LIST: the number of CPUs in a Cpus_allowed_list such as 0-3,8
    local n=0 r parts
    IFS=, read -ra parts <<< "$1"
    for r in "${parts[@]}"; do
        [[ "$r" =~ ^([0-9]+)-([0-9]+)$ ]] && { n=$((n + BASH_REMATCH[2] - BASH_REMATCH[1] + 1)); continue; }
        [[ "$r" =~ ^[0-9]+$ ]] && n=$((n + 1))
    done
    echo "$n"
}
wait_job() {  # wait_job JOB LIMIT_S: the job's state once it is no longer pending or running
    local job="$1" limit="$2" t0 st
    t0=$(date +%s)
    while [[ $(($(date +%s) - t0)) -le $limit ]]; do
        st="$(timeout 10 scontrol -o show job "$job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')"
        case "$st" in
            PENDING | RUNNING | CONFIGURING | COMPLETING | "") sleep 1 ;;
            *) echo "$st"; return 0 ;;
        esac
    done
    echo "${st:-unknown}"
}
for script in "${bind_scripts[@]}"; do
    name="$(basename "$script" .sbatch)"
    sed '/^#SBATCH --gpus-per-/d' "$script" > "$tmp/bind_$name.sbatch"
    out="$work/bind_$name.out"
    # --signal=USR1@10: the scripts' USR1@300 would be due at once under --time=1
    job=$(timeout 30 sbatch --parsable --chdir="$work" --output="$out" --job-name="bind-$name" \
              --nodes=1 --ntasks-per-node=1 --cpus-per-task=$bind_cpus --time=1 --signal=USR1@10 \
              --export=ALL,CASE="$case_file",OUT="$work/bind_$name",SOLVER="$tmp/cpuset_probe" \
              "$tmp/bind_$name.sbatch") || fail "sbatch $name failed"
    job="${job%%;*}"
    st="$(wait_job "$job" 60)"
    line="$(grep '^cpuset: ' "$out" 2>/dev/null)"
    echo "$name.sbatch, --cpus-per-task=$bind_cpus: ${line:-no output} (job $job $st)"
    [[ "$st" == COMPLETED ]] || { cat "$out" 2>/dev/null; fail "$name: the binding job ended $st"; }
    [[ $(grep -c '^cpuset: ' "$out") -eq 1 ]] || { cat "$out"; fail "$name: not one task line"; }
    set_list="$(sed -n 's/.*Cpus_allowed_list=\([^ ]*\).*/\1/p' <<< "$line")"
    n="$(cpu_count "$set_list")"
    [[ "$n" -eq $bind_cpus ]] ||
        fail "$name: the task may run on $n CPU(s) ($set_list), the job has --cpus-per-task=$bind_cpus (srun did not get it)"
    [[ "$line" == *" OMP_NUM_THREADS=$bind_cpus" ]] ||
        fail "$name: OMP_NUM_THREADS is not the job's --cpus-per-task=$bind_cpus"
done

# The case: the CLI base case enlarged so that a step takes some milliseconds.
args=(--quiet --set mesh.box.cells=[40,30] --set velocity.counts=[20,20] --set "output.probes=[]"
      --set parallel.velocity_ranks=2)
run_srun() {  # run_srun LIMIT_S OUT [solver args]: the case on 2 ranks under Slurm, no job time limit
    local limit="$1" out="$2"
    shift 2
    timeout "$limit" srun --ntasks=2 --cpus-per-task=1 --job-name=ugks-ref --quiet \
        "$solver" "$case_file" "${args[@]}" --set output.directory="$out" "$@"
}
run_srun 120 "$work/probe" --set time.steps=40 || fail "calibration run under srun failed"
# seconds per step from the time loop alone (summary.json: phase-space point updates per second)
read -r steps per_step < <("$py" - "$work/probe/summary.json" "$target_s" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["mesh"]["cells"] * j["velocity"]["points"] / j["phase_space_point_updates_per_s"]
print(max(300, min(20000, int(float(sys.argv[2]) / s))), f"{s:.4f}")
PY
)
[[ -n "${steps:-}" ]] || fail "calibration: no speed in $work/probe/summary.json"
echo "calibration: $per_step s/step -> time.steps = $steps (about ${target_s} s)"

t0=$(date +%s)
run_srun 300 "$work/straight" --set time.steps="$steps" || fail "uninterrupted run under srun failed"
echo "uninterrupted run: $(($(date +%s) - t0)) s"

# The chain: the CPU variant of requeue_chain.sbatch (as its header says: drop --gpus-per-node).
sed '/^#SBATCH --gpus-per-/d' "$chain" > "$tmp/requeue_chain.sbatch"
t0=$(date +%s)
job=$(timeout 30 sbatch --parsable --chdir="$work" --output="$work/chain.out" --open-mode=append \
          --ntasks-per-node=2 --cpus-per-task=1 --time=1 --signal=USR1@10 \
          --export=ALL,CASE="$case_file",OUT="$work/chain",SOLVER="$solver",PV=2 \
          "$tmp/requeue_chain.sbatch" "${args[@]}" --set time.steps="$steps") ||
    fail "sbatch failed"
job="${job%%;*}"
echo "submitted job $job"
final=""; seen=""; last=""
while :; do
    now=$(date +%s)
    [[ $((now - t0)) -le $chain_timeout_s ]] || {
        cat "$work/chain.out" 2>/dev/null
        fail "the chain did not end within ${chain_timeout_s} s (last state ${last:-?})"
    }
    info="$(timeout 10 scontrol -o show job "$job" 2>/dev/null)"
    st="$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<< "$info")"
    if [[ -n "$st" && "$st" != "$last" ]]; then
        echo "  $((now - t0)) s: job $job $st (restarts $(sed -n 's/.* Restarts=\([0-9]*\).*/\1/p' <<< "$info"))"
        last="$st"
    fi
    case "$st" in
        PENDING | RUNNING | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | CONFIGURING | COMPLETING | RESIZING | SUSPENDED | "")
            seen="" ;;
        *)  # a final state, twice in a row (not a moment between a requeue and the next start)
            [[ "$seen" == "$st" ]] && { final="$st"; break; }
            seen="$st" ;;
    esac
    sleep 2
done
restarts="$(sed -n 's/.* Restarts=\([0-9]*\).*/\1/p' <<< "$info")"
echo "chain: job $job $final after $(($(date +%s) - t0)) s, Restarts=$restarts"
echo "---- job output ----"
cat "$work/chain.out"
echo "--------------------"
[[ "$final" == COMPLETED ]] || fail "job $job ended in state $final"
[[ "${restarts:-0}" -ge 1 ]] || fail "the case finished in the first job: no requeue was exercised"
resumed=$(grep -c -- "run [0-9]*: --restart latest" "$work/chain.out")
requeued=$(grep -c "checkpointed (exit 4): requeueing" "$work/chain.out")
[[ $resumed -ge 1 && $resumed -eq $requeued ]] ||
    fail "job output: $requeued requeue requests, $resumed runs with --restart latest"
grep -q "finished" "$work/chain.out" || fail "the job output has no 'finished' line"
"$py" "$here/h5tool.py" same "$work/straight/fields_final.h5" "$work/chain/fields_final.h5" ||
    fail "chain result differs from the uninterrupted run"
"$py" "$here/h5tool.py" history "$work/straight/history.csv" "$work/chain/history.csv" ||
    fail "chain history differs from the uninterrupted run"
echo "OK: Slurm chain of $((requeued + 1)) runs (job $job, Restarts=$restarts, $steps steps) ended with the uninterrupted run's fields"

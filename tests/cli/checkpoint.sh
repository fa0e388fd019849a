#!/usr/bin/env bash
# Checkpoint/restart contract tests (issue 7). Usage:
#   checkpoint.sh SCENARIO SOLVER MPIEXEC NUMPROC_FLAG CASE.yaml
# Scenarios (each in its own folder ckpt_<scenario> of the working directory):
#   same       interrupted-then-restarted == uninterrupted, same decomposition (np 2, P_x = 2):
#              identical bytes of every field dataset and identical history rows
#   continue   a run that stops at step 10 and is continued with --restart latest in the same
#              folder equals the uninterrupted run (fields bytes, history.csv rows 1..20)
#   cross      checkpoint of np 1 (B_v 16) restarted with P_v = 2, P_x = 2 and B_v = 7, P_x = P_v = 2
#              and B_v = 5, and np 2 (P_v = 2, B_v = 7) restarted on np 1: <= 1e-11 relative
#   keep       checkpoint.keep = 2 leaves the two newest checkpoints; keep = 0 keeps all
#   latest     --restart latest skips a damaged newest checkpoint and a .tmp left by a killed writer
#              and restarts from the newest valid one (then equals the uninterrupted run)
#   killed     a run killed (SIGKILL, fault injection UGKS_TEST_KILL_CHECKPOINT) while its second
#              checkpoint is only a temporary file: the first checkpoint stays usable and
#              --restart latest from it equals the uninterrupted run
#   owner      checkpoints belong to their run (docs/decisions.md "Checkpoints belong to their run"):
#              a fresh run over an earlier run's checkpoints is refused (nothing in the folder
#              changes); with --new-run (another Kn) it runs and its pruning keeps the earlier
#              run's files; --restart latest continues the run that wrote last, names the other
#              run's files, and refuses when the case's settings differ from the checkpoint's
#   fixture    writes corrupt/*.h5 for the refusal tests of CMakeLists.txt
set -euo pipefail
scenario="$1"; solver="$2"; mpiexec="$3"; npflag="$4"; case_file="$5"
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
tool="$(dirname "$0")/h5tool.py"
work="ckpt_${scenario}"
rm -rf "$work"
mkdir -p "$work"

run() {  # run NP ARGS...
    local np="$1"; shift
    echo "+ np $np: $*"
    "$mpiexec" "$npflag" "$np" "$solver" "$case_file" --quiet "$@"
}
fail() { echo "FAIL: $*"; exit 1; }

case "$scenario" in
same)
    run 2 --set output.directory="$work/a" --set time.steps=20 --set checkpoint.every=10 \
        --set checkpoint.keep=0
    [[ -f "$work/a/checkpoint_000010.h5" && -f "$work/a/checkpoint_000020.h5" ]] || fail "checkpoints missing"
    run 2 --set output.directory="$work/b" --set time.steps=20 --restart "$work/a/checkpoint_000010.h5"
    "$py" "$tool" same "$work/a/fields_final.h5" "$work/b/fields_final.h5"
    "$py" "$tool" history "$work/a/history.csv" "$work/b/history.csv"
    ;;
continue)
    run 1 --set output.directory="$work/a" --set time.steps=20
    run 1 --set output.directory="$work/b" --set time.steps=10 --set checkpoint.every=10
    run 1 --set output.directory="$work/b" --set time.steps=20 --set checkpoint.every=10 --restart latest
    "$py" "$tool" same "$work/a/fields_final.h5" "$work/b/fields_final.h5"
    "$py" "$tool" history "$work/a/history.csv" "$work/b/history.csv"
    rows=$(($(wc -l < "$work/b/history.csv") - 1))
    [[ "$rows" == 20 ]] || fail "history.csv of the continued run has $rows rows, expected 20"
    ;;
cross)
    run 1 --set output.directory="$work/a" --set time.steps=20 --set checkpoint.every=10
    ck="$work/a/checkpoint_000010.h5"
    run 2 --set output.directory="$work/pv2" --set time.steps=20 --set parallel.velocity_ranks=2 --restart "$ck"
    "$py" "$tool" close "$work/a/fields_final.h5" "$work/pv2/fields_final.h5" 1e-11
    run 2 --set output.directory="$work/px2" --set time.steps=20 --set parallel.block_size=7 --restart "$ck"
    "$py" "$tool" close "$work/a/fields_final.h5" "$work/px2/fields_final.h5" 1e-11
    run 4 --set output.directory="$work/p22" --set time.steps=20 --set parallel.velocity_ranks=2 \
        --set parallel.block_size=5 --restart "$ck"
    "$py" "$tool" close "$work/a/fields_final.h5" "$work/p22/fields_final.h5" 1e-11
    # The other way: written by P_v = 2 with padded blocks, read by one rank.
    run 2 --set output.directory="$work/r" --set time.steps=20 --set checkpoint.every=10 \
        --set parallel.velocity_ranks=2 --set parallel.block_size=7
    run 1 --set output.directory="$work/r1" --set time.steps=20 --restart "$work/r/checkpoint_000010.h5"
    "$py" "$tool" close "$work/r/fields_final.h5" "$work/r1/fields_final.h5" 1e-11
    "$py" "$tool" close "$work/a/fields_final.h5" "$work/r1/fields_final.h5" 1e-11
    ;;
keep)
    run 1 --set output.directory="$work/k2" --set time.steps=10 --set checkpoint.every=2 --set checkpoint.keep=2
    got=$(cd "$work/k2" && ls checkpoint_* | tr '\n' ' ')
    [[ "$got" == "checkpoint_000008.h5 checkpoint_000010.h5 " ]] || fail "keep 2 left: $got"
    run 1 --set output.directory="$work/k0" --set time.steps=10 --set checkpoint.every=2 --set checkpoint.keep=0
    got=$(cd "$work/k0" && ls checkpoint_* | wc -l)
    [[ "$got" == 5 ]] || fail "keep 0 left $got checkpoints, expected 5"
    echo "OK: keep"
    ;;
latest)
    run 1 --set output.directory="$work/a" --set time.steps=12
    run 1 --set output.directory="$work/b" --set time.steps=10 --set checkpoint.every=2 --set checkpoint.keep=3
    # A damaged newest checkpoint and the temporary file of a writer killed mid-write.
    truncate -s $(($(stat -c %s "$work/b/checkpoint_000010.h5") / 2)) "$work/b/checkpoint_000010.h5"
    head -c 3000 "$work/b/checkpoint_000008.h5" > "$work/b/checkpoint_000012.h5.tmp"
    out=$("$mpiexec" "$npflag" 1 "$solver" "$case_file" --set output.directory="$work/b" \
          --set time.steps=12 --restart latest 2>&1) || fail "restart failed: $out"
    grep -q "skipping checkpoint '$work/b/checkpoint_000010.h5'" <<<"$out" || fail "no warning about the damaged file: $out"
    grep -q "restarted from $work/b/checkpoint_000008.h5 at step 8" <<<"$out" || fail "did not restart from step 8: $out"
    "$py" "$tool" same "$work/a/fields_final.h5" "$work/b/fields_final.h5"
    ;;
killed)
    run 1 --set output.directory="$work/a" --set time.steps=12
    # SIGKILL while the second checkpoint (step 8) exists only as its temporary file.
    rc=0
    UGKS_TEST_KILL_CHECKPOINT=2 "$mpiexec" "$npflag" 1 "$solver" "$case_file" --quiet \
        --set output.directory="$work/b" --set time.steps=12 --set checkpoint.every=4 \
        --set checkpoint.keep=0 >/dev/null 2>&1 || rc=$?
    [[ "$rc" != 0 ]] || fail "the run that was to be killed exited 0"
    [[ -f "$work/b/checkpoint_000004.h5" ]] || fail "checkpoint_000004.h5 missing"
    [[ -f "$work/b/checkpoint_000008.h5.tmp" && ! -e "$work/b/checkpoint_000008.h5" ]] ||
        fail "expected only the temporary file of the killed writer at step 8: $(ls "$work/b")"
    out=$("$mpiexec" "$npflag" 1 "$solver" "$case_file" --set output.directory="$work/b" \
          --set time.steps=12 --set checkpoint.every=4 --restart latest 2>&1) || fail "restart failed: $out"
    grep -q "restarted from $work/b/checkpoint_000004.h5 at step 4" <<<"$out" || fail "did not restart from step 4: $out"
    "$py" "$tool" same "$work/a/fields_final.h5" "$work/b/fields_final.h5"
    ;;
owner)
    d="$work/d"
    run 1 --set output.directory="$d" --set time.steps=8 --set checkpoint.every=4
    before=$(cd "$d" && sha256sum -- * | sort)
    rc=0
    out=$("$mpiexec" "$npflag" 2 "$solver" "$case_file" --set output.directory="$d" \
          --set time.steps=3 --set checkpoint.every=1 2>&1) || rc=$?
    [[ "$rc" == 2 ]] || fail "a fresh run over another run's checkpoints exited $rc, expected 2: $out"
    grep -q "output.directory '$d' holds checkpoints of an earlier run (checkpoint_000008.h5, checkpoint_000004.h5)" <<<"$out" ||
        fail "no message naming the earlier checkpoints: $out"
    [[ "$(cd "$d" && sha256sum -- * | sort)" == "$before" ]] || fail "the refused run changed $d"
    # a new run there (another Kn), pruning to 2: the earlier run's checkpoints stay
    run 2 --set output.directory="$d" --set time.steps=3 --set checkpoint.every=1 \
        --set checkpoint.keep=2 --set gas.Kn=0.5 --new-run
    got=$(cd "$d" && ls checkpoint_* | tr '\n' ' ')
    [[ "$got" == "checkpoint_000002.h5 checkpoint_000003.h5 checkpoint_000004.h5 checkpoint_000008.h5 " ]] ||
        fail "after the new run's pruning: $got"
    # latest: the new run's step 3 (written last), not the earlier run's step 8
    out=$("$mpiexec" "$npflag" 2 "$solver" "$case_file" --set output.directory="$d" \
          --set time.steps=5 --set gas.Kn=0.5 --restart latest 2>&1) || fail "restart latest failed: $out"
    grep -q "restarted from $d/checkpoint_000003.h5 at step 3" <<<"$out" || fail "did not continue the new run: $out"
    grep -q "other runs, not considered: $d/checkpoint_000008.h5" <<<"$out" || fail "the other run's files are not named: $out"
    # the earlier run's settings (Kn 0.1) against the new run's checkpoint: refused, naming the key
    rc=0
    out=$("$mpiexec" "$npflag" 1 "$solver" "$case_file" --set output.directory="$d" \
          --set time.steps=5 --restart latest 2>&1) || rc=$?
    [[ "$rc" == 2 ]] || fail "restart latest with other settings exited $rc, expected 2: $out"
    grep -q "was written with other settings of the case: gas.Kn: 0.5 -> 0.1" <<<"$out" || fail "no gas.Kn in: $out"
    # named explicitly, the same file is continued with a warning
    out=$("$mpiexec" "$npflag" 1 "$solver" "$case_file" --set output.directory="$work/e" \
          --set time.steps=5 --restart "$d/checkpoint_000003.h5" 2>&1) || fail "explicit restart failed: $out"
    grep -q "warning: checkpoint '$d/checkpoint_000003.h5' was written with other settings of the case: gas.Kn" <<<"$out" ||
        fail "no warning for the explicit restart: $out"
    echo "OK: owner"
    ;;
fixture)
    run 1 --set output.directory="$work/ref" --set time.steps=4 --set checkpoint.every=4
    c="$work/ref/checkpoint_000004.h5"
    mkdir -p "$work/corrupt"
    for k in h W; do cp "$c" "$work/corrupt/flip_$k.h5"; "$py" "$tool" flip "$work/corrupt/flip_$k.h5" /state/$k; done
    cp "$c" "$work/corrupt/truncated.h5"; truncate -s $(($(stat -c %s "$c") * 6 / 10)) "$work/corrupt/truncated.h5"
    cp "$c" "$work/corrupt/version.h5"; "$py" "$tool" setattr "$work/corrupt/version.h5" format_version 99
    cp "$c" "$work/corrupt/step_negative.h5"; "$py" "$tool" setattr "$work/corrupt/step_negative.h5" step -5
    cp "$c" "$work/corrupt/step_huge.h5"; "$py" "$tool" setattr "$work/corrupt/step_huge.h5" step 4611686018427387904
    cp "$c" "$work/corrupt/time_nan.h5"; "$py" "$tool" setfloat "$work/corrupt/time_nan.h5" time nan
    cp "$c" "$work/corrupt/time_negative.h5"; "$py" "$tool" setfloat "$work/corrupt/time_negative.h5" time -1e300
    cp "$c" "$work/corrupt/v1.h5"; "$py" "$tool" setattr "$work/corrupt/v1.h5" format_version 1
    cp "$c" "$work/corrupt/step_changed.h5"; "$py" "$tool" setattr "$work/corrupt/step_changed.h5" step 3
    cp "$c" "$work/corrupt/time_bitflip.h5"; "$py" "$tool" flipattr "$work/corrupt/time_bitflip.h5" time
    cp "$work/ref/fields_final.h5" "$work/corrupt/not_a_checkpoint.h5"
    cp "$c" "$work/corrupt/good.h5"
    ;;
*)
    fail "unknown scenario $scenario"
    ;;
esac

#!/usr/bin/env bash
# Output files that cannot be written, on 2 ranks (issue 23): io_fault.sh SCENARIO SOLVER MPIEXEC
# NUMPROC_FLAG CASE.yaml. Every rank must exit 2 with the message naming the file (each rank's exit
# code is recorded by a wrapper, since mpirun reports only one), within the time limit (no hang).
#   history_dir   output.directory/history.csv is a directory (opened by rank 0 at the start)
#   probes_dir    probes_centre.csv is a directory (written by rank 0 at the end, after collectives)
#   summary_dir   summary.json is a directory (written by rank 0 last)
#   history_full  history.csv is a link to /dev/full: every write fails with ENOSPC
#   history_fsz   rank 0 may write files of at most 16 KiB (ulimit -f 16, SIGXFSZ ignored): mesh.h5
#                 (12 KiB) fits, history.csv fills up after about 65 of 100 rows, mid-run, while rank 1
#                 steps on
set -uo pipefail
scenario="$1"; solver="$2"; mpiexec="$3"; npflag="$4"; case_file="$5"
work="io_${scenario}"
rm -rf "$work"
mkdir -p "$work/out"
fail() { echo "FAIL: $*"; exit 1; }
limit=""
steps=40
case "$scenario" in
history_dir) mkdir "$work/out/history.csv"; expect="output file '$work/out/history.csv': cannot open it for writing: Is a directory" ;;
probes_dir) mkdir "$work/out/probes_centre.csv"; expect="output file '$work/out/probes_centre.csv': cannot open it for writing: Is a directory" ;;
summary_dir) mkdir "$work/out/summary.json"; expect="output file '$work/out/summary.json': cannot rename .* Is a directory" ;;
history_full) ln -s /dev/full "$work/out/history.csv"; expect="output file '$work/out/history.csv': writing failed: No space left on device" ;;
history_fsz) limit=16; steps=100; expect="output file '$work/out/history.csv': writing failed: File too large" ;;
*) fail "unknown scenario $scenario" ;;
esac
# Each rank: the limit on rank 0 only, then the solver; its exit code into rc.<rank>.
wrapper='r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
if [[ -n "$LIMIT" && "$r" == 0 ]]; then ulimit -f "$LIMIT"; trap "" XFSZ; fi
"$@"; rc=$?; echo "$rc" > "$WORK/rc.$r"; exit "$rc"'
out=$(LIMIT="$limit" WORK="$work" timeout 120 "$mpiexec" "$npflag" 2 -x LIMIT -x WORK bash -c "$wrapper" wrapper \
      "$solver" "$case_file" --quiet --set output.directory="$work/out" --set time.steps="$steps" 2>&1)
rc=$?
echo "$out"
[[ "$rc" != 124 ]] || fail "hang: killed after 120 s"
for r in 0 1; do
    [[ -f "$work/rc.$r" ]] || fail "rank $r did not finish"
    [[ "$(cat "$work/rc.$r")" == 2 ]] || fail "rank $r exited $(cat "$work/rc.$r"), expected 2"
done
grep -Eq -- "$expect" <<<"$out" || fail "no message /$expect/"
echo "OK: $scenario: both ranks exit 2"

#!/usr/bin/env bash
# Checkpoint/restart across backends (issue 7; ctest label gpu):
#   cross_backend.sh SOLVER OTHER_SOLVER MPIEXEC NUMPROC_FLAG CASE.yaml
# SOLVER is this build's ugks_solver, OTHER_SOLVER the other backend's (CMake cache variable
# UGKS_OTHER_BACKEND_SOLVER). Each writes a checkpoint at step 10 that the other continues to step 20;
# both results must agree with SOLVER's uninterrupted run within 1e-10 (relative, per field component;
# the backends differ in reduction order only). Skipped (exit 77) when OTHER_SOLVER is not set, when
# both have the same backend, or when no NVIDIA GPU is visible.
set -uo pipefail
solver="$1"; other="$2"; mpiexec="$3"; npflag="$4"; case_file="$5"
py="${PYTHON:-/usr/bin/python3}"
[[ -x "$py" ]] || py=python3
here="$(cd "$(dirname "$0")" && pwd)"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[[ -n "$other" ]] || skip "UGKS_OTHER_BACKEND_SOLVER is not set (configure with -DUGKS_OTHER_BACKEND_SOLVER=path/to/the/other/backend/ugks_solver)"
[[ -x "$other" ]] || fail "UGKS_OTHER_BACKEND_SOLVER '$other' is not an executable"
backend() { "$1" --version | sed -n 's/.*backend \([^,]*\),.*/\1/p'; }
b1="$(backend "$solver")"; b2="$(backend "$other")"
[[ "$b1" != "$b2" ]] || skip "both solvers have backend '$b1'"
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU || skip "no NVIDIA GPU visible"
work="$PWD/cross_backend"
rm -rf "$work"
mkdir -p "$work"
args=(--quiet --set "output.probes=[]" --set mesh.box.cells=[24,16] --set velocity.counts=[12,12])
run() {  # run BINARY NAME [args]: 2 ranks, P_v = 2
    local bin="$1" name="$2"
    shift 2
    "$mpiexec" "$npflag" 2 "$bin" "$case_file" "${args[@]}" --set parallel.velocity_ranks=2 \
        --set output.directory="$work/$name" "$@" > "$work/$name.log" 2>&1 ||
        { cat "$work/$name.log"; fail "$name failed"; }
}
run "$solver" straight --set time.steps=20
for dir in forward backward; do
    if [[ $dir == forward ]]; then first="$solver"; second="$other"; else first="$other"; second="$solver"; fi
    run "$first" "${dir}_a" --set time.steps=10 --set checkpoint.every=10
    cp "$work/${dir}_a/checkpoint_000010.h5" "$work/${dir}.h5" || fail "$dir: no checkpoint at step 10"
    run "$second" "${dir}_b" --set time.steps=20 --restart "$work/${dir}.h5"
    grep -q '"restarted_from": *"[^"]' "$work/${dir}_b/summary.json" || fail "$dir: no restart recorded"
    echo "$dir ($(backend "$first") -> $(backend "$second")):"
    "$py" "$here/h5tool.py" close "$work/${dir}_b/fields_final.h5" "$work/straight/fields_final.h5" 1e-10 ||
        fail "$dir: restarted result differs from the uninterrupted run"
done
echo "OK: checkpoints move between the $b1 and $b2 backends"

#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run of the test suite (CPU backend).
# Configures a separate build (default build-asan/) with -fsanitize=address,undefined at -O1 -g1 (debug
# assertions on, portable code: UGKS_NATIVE=OFF), builds only the executables that the selected tests
# run and runs them:
#   1. ctest -L 'unit|regression' without the tests listed in `skip` below (leak checking off: it costs
#      seconds per process, and every test is a process that starts MPI);
#   2. a leak pass: a few suites in one process each, and an np 2 run with a checkpoint and a restart,
#      with LeakSanitizer on (leaks inside MPI, PMIx, hwloc, HDF5 and the OpenMPI plugins are
#      suppressed: scripts/sanitize.supp).
# Any report fails the job: ASan and UBSan stop the process at the first error (halt_on_error,
# -fno-sanitize-recover=undefined, exit code 86), ASan and LSan reports are also written under
# BUILD_DIR/sanitizer-logs/, which must stay empty, and the output of every test (ctest's
# Testing/Temporary/LastTest.log) and of the leak pass must hold no report -- so a report of a process
# whose exit code a test does not look at (a run expected to fail, a process stopped by a signal) fails
# the job too.
# Usage: scripts/sanitize.sh [BUILD_DIR] [ctest args...]      (docs/building.md, section Tests)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-asan}"
shift || true
mkdir -p "$build"
build="$(cd "$build" && pwd)"  # absolute: the tests and the leak pass run in other folders
jobs="$(nproc 2>/dev/null || echo 2)"
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
t0=$(date +%s)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" -DUGKS_NATIVE=OFF \
  >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  exit 1
}
t1=$(date +%s)

logs="$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
asan="halt_on_error=1:strict_init_order=1:exitcode=86:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
# fast_unwind_on_malloc=0: full allocation stacks. MPI and its plugins have no frame pointers (and the
# plugins are unloaded before the leak check), so with the fast unwinder the suppressions could not tell
# their leaks from the project's.
export LSAN_OPTIONS="suppressions=$root/scripts/sanitize.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The executables that the tests of labels unit and regression run, read from ctest: every GoogleTest
# suite that is not built yet (ctest lists it as <target>_NOT_BUILT; all of them carry one of the two
# labels) and every executable of this build named in the command of a test with one of the labels
# (built suites, ugks_solver of the command-line and script tests, the mpiexec suites). The mpi-only
# suites are not built.
mapfile -t targets < <(ASAN_OPTIONS="$asan:detect_leaks=0" ctest --test-dir "$build" --show-only=json-v1 |
  python3 -c '
import json, os, sys
build = sys.argv[1]
names = {"ugks_solver"}
for t in json.load(sys.stdin)["tests"]:
    if t["name"].endswith("_NOT_BUILT"):
        names.add(t["name"][: -len("_NOT_BUILT")])
        continue
    labels = set()
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            labels = set(p["value"])
    if labels & {"unit", "regression"}:
        for a in t.get("command", []):
            if a.startswith(build + "/") and os.path.basename(a).startswith("ugks_"):
                names.add(os.path.basename(a))
print("\n".join(sorted(names)))
' "$build")
if ((${#targets[@]} < 2)); then
  echo "sanitize: no test executables found (ctest --show-only=json-v1 in $build)" >&2
  exit 1
fi
echo "sanitize: building ${targets[*]}"
cmake --build "$build" -j"$jobs" --target "${targets[@]}"
t2=$(date +%s)
times >"$build/sanitize-times.txt"  # user and system time of the finished child processes
cpu_build="$(tail -1 "$build/sanitize-times.txt")"

# Left out (Release build -> this build, both measured on a loaded 2-core machine; the same solver paths
# run in the other regression tests):
#   validation_quick_*                               4-22 s each -> minutes each
#   Steady.LocalStepsReachTheTransientSteadyState    23 s -> over its 300 s timeout
#   Cavity2d.CentrelineVelocitiesMatchDsmc           16 s -> 250 s
#   regression_sphere_fm                             22 s -> 265 s
#   NormalShock.MachEightEndStatesAndMonotoneProfile 10 s -> 120 s
#   cli_slurm_chain_logic                            17 s -> over its 180 s timeout
#   ProductionCases.X38LikeCoarseConvergesToTheRecordedCoefficients  13 s -> 141 s (its code paths:
#                                  the unstructured velocity unit tests and UniformFlow run here)
#   Steady.ImplicitSphereFrozenLimiter               27 s -> over its 300 s timeout beside another
#                                  long test (2026-12-06; the frozen limiter's code runs here in
#                                  StepKernels.FrozenLimiterFactorsOnlyFall and SteadyMethod.*)
#   cli_memory_estimate_vs_peak    compares the memory estimate with the measured resident set, which
#                                  ASan's shadow memory and red zones inflate (fails by design)
skip='^(validation_quick_.*|Steady\.LocalStepsReachTheTransientSteadyState|Cavity2d\.CentrelineVelocitiesMatchDsmc|regression_sphere_fm|NormalShock\.MachEightEndStatesAndMonotoneProfile|cli_slurm_chain_logic|cli_memory_estimate_vs_peak|ProductionCases\.X38LikeCoarseConvergesToTheRecordedCoefficients|Steady\.ImplicitSphereFrozenLimiter)$'

status=0
ctestlog="$build/Testing/Temporary/LastTest.log"
rm -f "$ctestlog"
ASAN_OPTIONS="$asan:detect_leaks=0" ctest --test-dir "$build" --output-on-failure -j"$jobs" \
  -L 'unit|regression' -E "$skip" "$@" || status=1
t3=$(date +%s)

# Leak pass (one process per suite, so MPI start-up and the leak check are paid once each).
leakdir="$build/sanitize-leak-run"
rm -rf "$leakdir"
mkdir -p "$leakdir"
leak_run() {
  echo "sanitize: leak check: $*"
  if ! (cd "$leakdir" && ASAN_OPTIONS="$asan:detect_leaks=1" OMP_NUM_THREADS=1 "$@" >>"$leakdir/output.log" 2>&1)
  then
    echo "sanitize: FAILED: $* (output in $leakdir/output.log)"
    status=1
  fi
}
for t in core/ugks_test_config io/ugks_test_reports mesh/ugks_test_mesh mesh/ugks_test_mesh_readers \
    velocity/ugks_test_velocity physics/ugks_test_physics physics/ugks_test_gas_units \
    parallel/ugks_test_parallel solver/ugks_test_implicit_ops solver/ugks_test_macro_krylov; do
  leak_run "$build/tests/unit/$t"
done
leak_run "$build/tests/regression/ugks_test_regression" \
  --gtest_filter='UniformFlow.*:Conservation.*:Sod.*:FreeMolecular.*:Steady/SteadyMethod.*'
mpiexec="$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")"
solver_case="$root/tests/cli/cases/base.yaml"
leak_run "${mpiexec:-mpiexec}" -n 2 "$build/ugks_solver" "$solver_case" --quiet \
  --set output.directory=a --set time.steps=10 --set checkpoint.every=5
leak_run "${mpiexec:-mpiexec}" -n 2 "$build/ugks_solver" "$solver_case" --quiet \
  --set output.directory=b --set time.steps=10 --restart a/checkpoint_000005.h5
t4=$(date +%s)

if compgen -G "$logs/*" >/dev/null; then
  echo "sanitize: sanitizer reports (in $logs):"
  for f in "$logs"/*; do
    echo "==== $f"
    head -60 "$f"
  done
  status=1
fi
if grep -Eqs "runtime error:|ERROR: (Address|Leak)Sanitizer" "$ctestlog" "$leakdir/output.log"; then
  echo "sanitize: sanitizer reports in the tests' output ($ctestlog, $leakdir/output.log):"
  grep -E -A20 "runtime error:|ERROR: (Address|Leak)Sanitizer" "$ctestlog" "$leakdir/output.log" | head -80
  status=1
fi
times >"$build/sanitize-times.txt"
echo "sanitize: configure $((t1 - t0)) s, build $((t2 - t1)) s, ctest $((t3 - t2)) s, leak pass $((t4 - t3)) s" \
  "(CPU user/system: until the end of the build $cpu_build, in all $(tail -1 "$build/sanitize-times.txt"))"
exit $status

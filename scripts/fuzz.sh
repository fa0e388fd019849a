#!/usr/bin/env bash
# Fuzz the input readers with libFuzzer (issue 7): the case-file reader, the Gmsh reader and the
# velocity point-file reader. Builds build-fuzz/ with clang (-fsanitize=fuzzer,address,undefined) and
# runs each target on its seed corpus (tests/fuzz/corpus/<target>, plus the repository's own case
# files, meshes and velocity files) for SECONDS seconds (default 30). Crashes are written to
# build-fuzz/crashes/<target>/; each one found becomes a regression test (tests/fuzz/regressions).
# Usage: scripts/fuzz.sh [SECONDS]      (installs clang and libomp with apt when missing)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-30}"
"$root/scripts/install-deps.sh" --with-fuzz
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DUGKS_ENABLE_FUZZ=ON -DUGKS_ENABLE_TESTS=OFF -DUGKS_NATIVE=OFF \
  -DUGKS_ENABLE_CGNS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target ugks_fuzz_case_file ugks_fuzz_gmsh ugks_fuzz_velocity_file \
  >/dev/null
status=0
for target in case_file gmsh velocity_file; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus" "$build/crashes/$target"
  cp "$root"/tests/fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  case "$target" in
    case_file) cp "$root"/tests/cli/cases/*.yaml "$root"/cases/*/*.yaml "$corpus"/ 2>/dev/null || true ;;
    gmsh) cp "$root"/tests/data/mesh/*.msh "$corpus"/ 2>/dev/null || true ;;
  esac
  # Known crashes stay fixed: every file in tests/fuzz/regressions/<target> must run cleanly.
  if compgen -G "$root/tests/fuzz/regressions/$target/*" >/dev/null; then
    "$build/tests/fuzz/ugks_fuzz_$target" "$root"/tests/fuzz/regressions/"$target"/* || status=1
  fi
  echo "fuzz: $target for $seconds s"
  if ! ASAN_OPTIONS=detect_leaks=0 "$build/tests/fuzz/ugks_fuzz_$target" "$corpus" \
      -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
      -artifact_prefix="$build/crashes/$target/" -print_final_stats=1 2>"$build/fuzz_$target.log"; then
    echo "fuzz: $target FAILED (see $build/fuzz_$target.log and $build/crashes/$target/)"
    tail -40 "$build/fuzz_$target.log"
    status=1
  elif grep -q "runtime error:" "$build/fuzz_$target.log"; then
    echo "fuzz: $target: undefined behaviour reported (see $build/fuzz_$target.log)"
    grep -m5 "runtime error:" "$build/fuzz_$target.log"
    status=1
  else
    grep -E "stat::number_of_executed_units" "$build/fuzz_$target.log" | tail -1
  fi
done
exit $status

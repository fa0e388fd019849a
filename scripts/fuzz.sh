#!/usr/bin/env bash
# Fuzz the input readers with libFuzzer (issues 7 and 23). Builds build-fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) and runs each target for SECONDS seconds (default 30):
#   case_file      case-file text as it is: Config::from_string, every section parser, the
#                  unknown-key check (tests/fuzz/fuzz_case_file.cpp)
#   gmsh           the Gmsh 4.1 reader with face building and mesh validation
#   velocity_file  the velocity point-file reader in 1, 2 and 3 dimensions
#   yaml_alias     case files generated from the bytes, rich in YAML anchors, aliases, merge keys,
#                  self-references, alias chains ("billion laughs") and nested flow and block
#                  collections; an input starting with '#' is YAML text as it is
#   set_override   --set assignments (Config::apply_override) on a fixed valid case, split from the
#                  bytes at NULs, keys partly from the case's real key paths, values any bytes
# Every input must be accepted or rejected with an InputError (exit 2). Seeds: tests/fuzz/corpus/
# <target>/, plus the repository's case files (case_file; the alias cases for yaml_alias) and test
# meshes (gmsh); case_file, yaml_alias and set_override also use the YAML dictionary
# tests/fuzz/dict/yaml.dict. Known bad inputs, tests/fuzz/regressions/<target>/, are replayed first.
# Crashes, sanitizer reports, inputs over 2 GiB or 10 s go to build-fuzz/crashes/<target>/; each one
# found becomes a regression file. The last line gives runs, speed and the slowest input per target.
# Usage: scripts/fuzz.sh [SECONDS]      (installs clang and libomp with apt when missing)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-30}"
targets=(case_file gmsh velocity_file yaml_alias set_override)
"$root/scripts/install-deps.sh" --with-fuzz
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DUGKS_ENABLE_FUZZ=ON -DUGKS_ENABLE_TESTS=OFF -DUGKS_NATIVE=OFF \
  -DUGKS_ENABLE_CGNS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/ugks_fuzz_}" >/dev/null
# A number from libFuzzer's final statistics in $log ("?" when the run ended without them).
fuzz_stat() { grep -E "^stat::$1:" "$log" 2>/dev/null | tail -1 | awk '{print $2}' | grep . || echo "?"; }
status=0
summary=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus" "$build/crashes/$target"
  cp "$root"/tests/fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  dict=()
  case "$target" in
    case_file) cp "$root"/tests/cli/cases/*.yaml "$root"/cases/*/*.yaml "$corpus"/ 2>/dev/null || true ;;
    gmsh) cp "$root"/tests/data/mesh/*.msh "$corpus"/ 2>/dev/null || true ;;
    yaml_alias) cp "$root"/tests/cli/cases/alias_*.yaml "$corpus"/ 2>/dev/null || true ;;
  esac
  case "$target" in
    case_file | yaml_alias | set_override) dict=(-dict="$root/tests/fuzz/dict/yaml.dict") ;;
  esac
  fuzzer="$build/tests/fuzz/ugks_fuzz_$target"
  # Known bad inputs stay fixed: every file in tests/fuzz/regressions/<target> must run cleanly.
  if compgen -G "$root/tests/fuzz/regressions/$target/*" >/dev/null; then
    if ! ASAN_OPTIONS=detect_leaks=0 "$fuzzer" -rss_limit_mb=2048 -timeout=10 \
        "$root"/tests/fuzz/regressions/"$target"/* >"$build/fuzz_${target}_regressions.log" 2>&1; then
      echo "fuzz: $target: a regression input FAILED (see $build/fuzz_${target}_regressions.log)"
      tail -40 "$build/fuzz_${target}_regressions.log"
      status=1
    fi
  fi
  echo "fuzz: $target for $seconds s"
  log="$build/fuzz_$target.log"
  if ! ASAN_OPTIONS=detect_leaks=0 "$fuzzer" "$corpus" "${dict[@]}" \
      -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
      -artifact_prefix="$build/crashes/$target/" -print_final_stats=1 2>"$log"; then
    echo "fuzz: $target FAILED (see $log and $build/crashes/$target/)"
    tail -40 "$log"
    status=1
  elif grep -q "runtime error:" "$log"; then
    echo "fuzz: $target: undefined behaviour reported (see $log)"
    grep -m5 "runtime error:" "$log"
    status=1
  fi
  summary+=("$target $(fuzz_stat number_of_executed_units) runs ($(fuzz_stat average_exec_per_sec)/s, slowest $(fuzz_stat slowest_unit_time_sec) s)")
done
( IFS=';'; echo "fuzz: ${summary[*]}" | sed 's/;/; /g' )
exit $status

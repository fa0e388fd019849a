#!/usr/bin/env bash
# Configure and build ugks_solver. Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
# Defaults: build/ with the CPU (OpenMP) backend, Release, every target (the solver and the test suites);
# UGKS_BUILD_TARGETS="ugks_solver" builds only the listed targets.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true
jobs="$(nproc 2>/dev/null || echo 2)"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  exit 1
}
# UGKS_BUILD_TARGETS="ugks_solver ...": build only these targets (scripts/quickstart.sh builds the solver alone).
targets=()
for t in ${UGKS_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j"$jobs" "${targets[@]}"

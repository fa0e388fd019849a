#!/usr/bin/env bash
# Install dependencies if missing, build the CPU backend, run the whole test suite (everything but label gpu).
# Usage: scripts/test.sh [ctest args...]    e.g. scripts/test.sh -L unit
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/install-deps.sh
./scripts/build.sh "$root/build"
jobs="$(nproc 2>/dev/null || echo 2)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ctest --test-dir "$root/build" --output-on-failure -j"$jobs" -LE gpu "$@"

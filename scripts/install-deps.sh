#!/usr/bin/env bash
# Install everything ugks_solver needs to build and test, with apt (Debian 12 / Ubuntu 22.04+).
# Idempotent: packages already present are not reinstalled; apt-get update runs only when something is missing.
# Usage: scripts/install-deps.sh [--with-gmsh] [--with-fuzz] [--with-bench]   (gmsh: to regenerate meshes from
#        cases/**.geo; fuzz: clang and libomp for scripts/fuzz.sh; bench: libnanoflann-dev, the optional
#        nanoflann peer of ugks_bench_overset, scripts/bench_overset.sh)
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libyaml-cpp-dev libmetis-dev libcgns-dev
  libgtest-dev libgmock-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev libmuparser-dev
  python3 python3-numpy python3-h5py python3-matplotlib python3-pandas python3-meshio  # tests/cli/outputs_readable.py
  slurm-wlm munge  # ctest label slurm: a private single-node Slurm (tests/cli/slurm_real.sh)
)
for arg in "$@"; do
  case "$arg" in
    --with-gmsh) packages+=(gmsh) ;;
    --with-fuzz) packages+=(clang libomp-dev) ;;  # scripts/fuzz.sh: clang with libFuzzer, OpenMP for clang
    --with-bench) packages+=(libnanoflann-dev) ;;  # ugks_bench_overset's nanoflann rows (found by CMake when present)
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

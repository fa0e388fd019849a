#!/usr/bin/env bash
# Build a CUDA-aware Open MPI from Debian's source package (issue 20, docs/building.md "CUDA-aware MPI"):
# the Debian 12 openmpi 4.1.4 sources configured --with-cuda against the installed CUDA toolkit, ob1 PML
# with the shared-memory (vader, smcuda) and TCP BTLs (no UCX, no Fortran, no Java), installed under PREFIX
# and stripped. Its libmpi.so.40 is a drop-in for Debian's (same version and soname): ugks_solver built
# against Debian's Open MPI runs with this one when PREFIX/lib comes first on LD_LIBRARY_PATH and
# PREFIX/bin/mpirun starts it (OPAL_PREFIX=PREFIX when the tree is moved, e.g. into the device bundle).
#
# Usage: scripts/build_cuda_aware_mpi.sh [PREFIX]     (default: /opt/ompi-cuda; copy it into the device bundle)
# Environment: CUDA_HOME (default /usr/local/cuda), WORK (source/build directory, default /tmp/ompi-cuda-src),
# JOBS (default nproc). Needs root (apt-get for the source package and the build dependencies).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-/opt/ompi-cuda}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
work="${WORK:-/tmp/ompi-cuda-src}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
[[ -x "$cuda/bin/nvcc" ]] || { echo "build_cuda_aware_mpi: no CUDA toolkit at $cuda (set CUDA_HOME)" >&2; exit 1; }
# deb-src entries for the system's suites (Debian 12's deb822 sources), once
src_list=/etc/apt/sources.list.d/ugks-deb-src.sources
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src_list"
  apt-get update -qq
fi
mkdir -p "$work"
cd "$work"
if ! ls -d openmpi-*/ >/dev/null 2>&1; then
  # the upstream release tarball of Debian's source package, without Debian's patches: they touch
  # Makefile.am files, which would need the exact automake version to regenerate
  apt-get source -qq --download-only openmpi
  dpkg-source -x --skip-patches openmpi_*.dsc >/dev/null
fi
srcdir="$(ls -d openmpi-*/ | head -1)"
cd "$srcdir"
# the system's flex/perl/etc. are enough for a release tarball; no autogen
./configure --prefix="$prefix" --with-cuda="$cuda" --without-ucx --without-verbs --without-ofi \
  --without-psm2 --disable-mpi-fortran --disable-oshmem --disable-mpi-java --disable-mpi-cxx \
  --with-hwloc=internal --with-libevent=internal --with-pmix=internal \
  --disable-static --enable-shared >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
make -j"$jobs" >"$work/make.log" 2>&1 || { tail -40 "$work/make.log"; exit 1; }
rm -rf "$prefix"
make install >"$work/install.log" 2>&1
# what a run needs: the libraries, the MCA components, mpirun and its helpers, the help texts
rm -rf "$prefix/share/man" "$prefix/share/doc" "$prefix/include" "$prefix/lib/pkgconfig"
find "$prefix" -name '*.la' -delete
find "$prefix" -type f \( -name '*.so*' -o -perm -u+x \) -exec strip --strip-unneeded {} + 2>/dev/null || true
"$prefix/bin/ompi_info" --parsable --all 2>/dev/null | grep -m1 'mpi_built_with_cuda_support:value' || true
du -sh "$prefix"

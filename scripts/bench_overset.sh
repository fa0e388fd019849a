#!/usr/bin/env bash
# Overset k-d tree benchmark (issue 6, docs/performance.md "Overset assembly"): build ns/point and 1-NN
# query ns/query for 1e4..1e7 points, uniform and 100:1-stretched clouds, on the CPU (OpenMP build) and
# on the GPU (CUDA build), brute force on the small sizes, nanoflann (one thread, when the CPU build found
# libnanoflann-dev: scripts/install-deps.sh --with-bench); then CuPy's and SciPy's KD-trees on the very
# same point sets when they are importable (python3 -c 'import cupyx.scipy.spatial, scipy.spatial').
#
#   scripts/bench_overset.sh [CPU_BENCH] [GPU_BENCH] [-- extra ugks_bench_overset options]
#
# CPU_BENCH / GPU_BENCH default to build/ugks_bench_overset (CPU backend build) and
# build-cuda/ugks_bench_overset; a missing one is skipped. Environment: SIZES (1e4,1e5,1e6,1e7),
# SETS (uniform,stretched), BRUTE_MAX (1e5), CPU_BACKENDS (cpu,nanoflann), PEERS=0 to skip the Python
# peers, DUMP (folder for the point sets, /tmp/ugks_bench_overset). On a shared machine add
# `-- --clock cpu` (process CPU time for the host rows, with OMP_NUM_THREADS=1). The CUDA binary's own host rows
# (--backends cpu,gpu) are serial (no OpenMP in CUDA builds) and check the device distances bit for bit
# against the host tree (distances and nearest indices): GPU_BACKENDS=cpu,gpu runs them.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cpu=${1:-$here/build/ugks_bench_overset}
gpu=${2:-$here/build-cuda/ugks_bench_overset}
shift $(( $# >= 2 ? 2 : $# )) || true
[ "${1:-}" = "--" ] && shift
sizes=${SIZES:-1e4,1e5,1e6,1e7}
sets=${SETS:-uniform,stretched}
dump=${DUMP:-/tmp/ugks_bench_overset}
mkdir -p "$dump"
echo "# host: $(hostname)  cpus: $(nproc --all)  commit: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# gpu: /' || true
if [ -x "$cpu" ]; then
  echo "## CPU build: $cpu (OMP_NUM_THREADS=${OMP_NUM_THREADS:-all})"
  "$cpu" --sizes "$sizes" --sets "$sets" --backends "${CPU_BACKENDS:-cpu,nanoflann}" "$@"
fi
if [ -x "$gpu" ]; then
  echo "## CUDA build: $gpu (device rows; brute force, serial host, on the small sizes)"
  "$gpu" --sizes "$sizes" --sets "$sets" --backends "${GPU_BACKENDS:-gpu}" --brute-max "${BRUTE_MAX:-1e5}" \
    --dump "$dump" "$@"
fi
if [ "${PEERS:-1}" = 1 ] && ls "$dump"/p_*.bin >/dev/null 2>&1; then
  echo "## peers on the same point sets (best of 3; CuPy build includes its own sort)"
  python3 - "$dump" "$sizes" "$sets" <<'PY' || echo "peers: not run ($?)"
import sys, time, numpy as np
d, sizes, sets = sys.argv[1], sys.argv[2].split(','), sys.argv[3].split(',')
try:
    import cupy as cp, cupyx.scipy.spatial as cs
except Exception as e:
    cp = None; print("# cupy not importable:", e)
try:
    import scipy.spatial as ss
except Exception as e:
    ss = None; print("# scipy not importable:", e)
print(f"{'impl':<12} {'set':<10} {'points':>10} {'queries':>9} {'build_ns/pt':>14} {'query_ns/q':>14}")
for st in sets:
    for s in sizes:
        try:
            p = np.fromfile(f"{d}/p_{st}_{s}.bin").reshape(-1, 3); q = np.fromfile(f"{d}/q_{st}_{s}.bin").reshape(-1, 3)
        except FileNotFoundError:
            continue
        n, nq = len(p), len(q)
        if cp is not None:
            pg, qg = cp.asarray(p), cp.asarray(q); tb = tq = 1e300
            for _ in range(3):
                cp.cuda.Device().synchronize(); t0 = time.perf_counter(); t = cs.KDTree(pg); cp.cuda.Device().synchronize(); tb = min(tb, time.perf_counter() - t0)
                t0 = time.perf_counter(); t.query(qg, k=1); cp.cuda.Device().synchronize(); tq = min(tq, time.perf_counter() - t0)
            print(f"{'cupy':<12} {st:<10} {n:>10} {nq:>9} {tb/n*1e9:>14.2f} {tq/nq*1e9:>14.2f}", flush=True)
        if ss is not None:
            tb = tq = 1e300
            for _ in range(1 if n >= 1e6 else 3):
                t0 = time.perf_counter(); t = ss.cKDTree(p); tb = min(tb, time.perf_counter() - t0)
                t0 = time.perf_counter(); t.query(q, k=1, workers=-1); tq = min(tq, time.perf_counter() - t0)
            print(f"{'scipy-ckdt':<12} {st:<10} {n:>10} {nq:>9} {tb/n*1e9:>14.1f} {tq/nq*1e9:>14.1f}", flush=True)
PY
fi

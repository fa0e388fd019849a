#pragma once
// Small gather and fixed-order reduction kernels of the CUDA backend (each translation unit that
// launches them includes its own copy).
#include "device_ctx.hpp"

namespace ugks::cudastep {
namespace {

/// Face flux of listed faces (walls: F = Facc), 5 per face.
__global__ void k_gather_F(const double* Facc, const index_t* faces, index_t n, double* out) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= 5 * n) return;
    out[k] = Facc[5 * faces[k / 5] + k % 5];
}

/// out[k] = a[faces[k]] for the n listed faces.
__global__ void k_gather(const double* a, const index_t* faces, index_t n, double* out) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k < n) out[k] = a[faces[k]];
}

/// Fixed-order column reduction of in[n][k] with one thread group: op 0 sum, 1 min.
__global__ void k_reduce_cols(const double* in, index_t n, int k, int op, double* out) {
    __shared__ double sh[kThreads];
    const int t = threadIdx.x;
    for (int c = 0; c < k; ++c) {
        double a = op == 0 ? 0.0 : HUGE_VAL;
        for (index_t i = t; i < n; i += blockDim.x)
            a = op == 0 ? a + in[i * k + c] : fmin(a, in[i * k + c]);
        sh[t] = a;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (t < s) sh[t] = op == 0 ? sh[t] + sh[t + s] : fmin(sh[t], sh[t + s]);
            __syncthreads();
        }
        if (t == 0) out[c] = sh[0];
        __syncthreads();
    }
}

}  // namespace
}  // namespace ugks::cudastep

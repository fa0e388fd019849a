#pragma once
#include <cuda_runtime.h>

#include <limits>

#include "ugks/core/types.hpp"
#include "ugks/device/cuda_check.hpp"

namespace ugks {
namespace detail {
template <class F>
__global__ void forall_kernel(index_t n, F body) {
    for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<index_t>(blockDim.x) * gridDim.x)
        body(i);
}
template <class F>
__global__ void forall_2d_kernel(index_t n_cell, int n_vel, F body) {
    const index_t n = n_cell * n_vel;
    for (index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; k < n;
         k += static_cast<index_t>(blockDim.x) * gridDim.x)
        body(k / n_vel, static_cast<int>(k % n_vel));
}
template <class F>
__global__ void reduce_kernel(index_t n, F body, double* out, int op) {
    __shared__ double s[256];
    double acc = op == 0 ? 0.0 : -1.0 / 0.0;
    for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<index_t>(blockDim.x) * gridDim.x) {
        const double v = body(i);
        acc = op == 0 ? acc + v : fmax(acc, v);
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] = op == 0 ? s[threadIdx.x] + s[threadIdx.x + w]
                                                      : fmax(s[threadIdx.x], s[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
inline int grid_for(index_t n) {
    const index_t blocks = (n + 255) / 256;
    return static_cast<int>(blocks < 65535 * 16 ? (blocks > 0 ? blocks : 1) : 65535 * 16);
}
template <class F>
double reduce_impl(index_t n, F body, int op) {
    const int grid = grid_for(n) < 1024 ? grid_for(n) : 1024;
    double* d_out = nullptr;
    UGKS_CUDA_CHECK(cudaMalloc(&d_out, sizeof(double) * grid));
    reduce_kernel<<<grid, 256>>>(n, body, d_out, op);
    UGKS_CHECK_LAUNCH();
    double h_out[1024];
    UGKS_CUDA_CHECK(cudaMemcpy(h_out, d_out, sizeof(double) * grid, cudaMemcpyDeviceToHost));
    UGKS_CUDA_CHECK(cudaFree(d_out));
    double acc = op == 0 ? 0.0 : -std::numeric_limits<double>::infinity();
    for (int b = 0; b < grid; ++b) acc = op == 0 ? acc + h_out[b] : (h_out[b] > acc ? h_out[b] : acc);
    return acc;
}
}  // namespace detail

template <class F>
void forall(index_t n, F&& body) {
    if (n <= 0) return;
    detail::forall_kernel<<<detail::grid_for(n), 256>>>(n, body);
    UGKS_CHECK_LAUNCH();
}
template <class F>
void forall_2d(index_t n_cell, int n_vel, F&& body) {
    const index_t n = n_cell * n_vel;
    if (n <= 0) return;
    detail::forall_2d_kernel<<<detail::grid_for(n), 256>>>(n_cell, n_vel, body);
    UGKS_CHECK_LAUNCH();
}
template <class F>
double reduce_sum(index_t n, F&& body) {
    return detail::reduce_impl(n, body, 0);
}
template <class F>
double reduce_max(index_t n, F&& body) {
    return detail::reduce_impl(n, body, 1);
}

}  // namespace ugks

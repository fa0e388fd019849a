#pragma once
/// CUDA error checking (docs/style.md b3). Only included from CUDA translation units.
#include "ugks/core/error.hpp"

namespace ugks::device::detail {
[[noreturn]] void cuda_fail(int err, const char* expr, const char* file, int line);
}

#define UGKS_CUDA_CHECK(expr)                                                               \
    do {                                                                                    \
        auto ugks_err_ = (expr);                                                            \
        if (ugks_err_ != cudaSuccess)                                                       \
            ::ugks::device::detail::cuda_fail(static_cast<int>(ugks_err_), #expr, __FILE__, \
                                              __LINE__);                                    \
    } while (0)

#ifdef UGKS_SYNC_CHECK
#define UGKS_CHECK_LAUNCH()                       \
    do {                                          \
        UGKS_CUDA_CHECK(cudaGetLastError());      \
        UGKS_CUDA_CHECK(cudaDeviceSynchronize()); \
    } while (0)
#else
#define UGKS_CHECK_LAUNCH() UGKS_CUDA_CHECK(cudaGetLastError())
#endif

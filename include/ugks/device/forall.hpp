#pragma once
/// Kernel launch functions written once for both backends (docs/style.md b2). Include this header
/// only from kernel sources (*_kernels.cpp), which are compiled as CUDA in cuda builds.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"

#if defined(UGKS_USE_CUDA)
#if !defined(__CUDACC__)
#error "ugks/device/forall.hpp must be included from a *_kernels.cpp file (compiled as CUDA)"
#endif
#include "ugks/device/detail/forall_cuda.hpp"
#else
#include "ugks/device/detail/forall_host.hpp"
#endif

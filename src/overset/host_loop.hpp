#pragma once
// Host loop of the overset phases: the bodies are the per-point kernels that a device version
// launches with ugks::forall once the arrays live in DeviceArrays (docs/decisions.md, overset).
#include "ugks/core/types.hpp"

namespace ugks::overset::detail {

template <class F>
void host_for(index_t n, F&& body) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 256)
#endif
    for (index_t i = 0; i < n; ++i) body(i);
}

}  // namespace ugks::overset::detail

#pragma once
// Host loop of the overset phases: the bodies are the per-point kernels that a device version
// launches with ugks::forall once the arrays live in DeviceArrays (docs/decisions.md, overset).
#include <cstdint>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/overset/grid_view.hpp"

namespace ugks::overset::detail {

template <class F>
void host_for(index_t n, F&& body) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 256)
#endif
    for (index_t i = 0; i < n; ++i) body(i);
}

/// Island removal's flood fill (the serial and the distributed assembly): from the nodes of
/// `front` (already marked in `reached`), every node with a nonzero status reached through cells
/// of such nodes is marked; `front` is left empty.
inline void fill_reached(const NodeAdjacency& adj, const std::int8_t* status, char* reached,
                         std::vector<index_t>& front) {
    while (!front.empty()) {
        std::vector<index_t> next;
        for (const index_t i : front)
            for_each_neighbour(adj, i, [&](index_t v) {
                if (status[v] && !reached[v]) {
                    reached[v] = 1;
                    next.push_back(v);
                }
            });
        front.swap(next);
    }
}

}  // namespace ugks::overset::detail

#pragma once
#include <algorithm>
#include <limits>

#include "ugks/core/types.hpp"

namespace ugks {

/// body(i) for i in [0, n).
template <class F>
void forall(index_t n, F&& body) {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) body(i);
}

/// body(c, v) for c in [0, n_cell), v in [0, n_vel); v fastest.
template <class F>
void forall_2d(index_t n_cell, int n_vel, F&& body) {
#pragma omp parallel for schedule(static)
    for (index_t c = 0; c < n_cell; ++c)
        for (int v = 0; v < n_vel; ++v) body(c, v);
}

/// Sum of body(i) over [0, n).
template <class F>
double reduce_sum(index_t n, F&& body) {
    double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (index_t i = 0; i < n; ++i) s += body(i);
    return s;
}

/// Maximum of body(i) over [0, n) (-inf when n == 0).
template <class F>
double reduce_max(index_t n, F&& body) {
    double m = -std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static) reduction(max : m)
    for (index_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(body(i)));
    return m;
}

}  // namespace ugks

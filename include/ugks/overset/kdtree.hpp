#pragma once
/// Presorted k-d tree (seed 001, Brown 2015) over points in k <= 6 dimensions: 3-D points for wall
/// distance, 2k-D points (xmin.., xmax..) for cell bounding boxes in the donor search.
///
/// Everything is stored in flat arrays (no pointers between nodes), so a tree can be copied to the
/// device as it is; the queries are UGKS_HOST_DEVICE functions on a KdView of raw pointers.
#include <cstdint>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"

namespace ugks::overset {

constexpr int kKdMaxDim = 6;     ///< largest k (3-D cell boxes)
constexpr int kKdMaxDepth = 96;  ///< query stack size; median splits keep the depth ~log2(n)

/// A built tree. Node c covers the contiguous range [begin[c], end[c]) of the leaf order; its
/// children are child[2c], child[2c+1] (-1 for a leaf). Node 0 is the root.
struct KdTree {
    int k = 0;
    index_t n_points = 0;
    std::vector<double> coords;       ///< point coordinates in leaf order [n_points * k]
    std::vector<index_t> perm;        ///< leaf-order position -> caller's point index
    std::vector<double> box_lo;       ///< bounding box of each node [n_nodes * k]
    std::vector<double> box_hi;       ///< [n_nodes * k]
    std::vector<index_t> child;       ///< [n_nodes * 2], -1 for leaves
    std::vector<index_t> begin, end;  ///< leaf-order range of each node
    std::vector<int> split_dim;       ///< split dimension of each interior node (-1 for leaves)
    int depth = 0;                    ///< number of levels
    index_t n_nodes() const { return static_cast<index_t>(begin.size()); }
};

/// Build over `n` points of dimension `k` (point i at pts[i*k .. i*k+k-1]):
/// 1. presort: for every dimension d one index array sorted by the super-key (x_d, x_{d+1}, ...,
///    cyclic, then the index), so keys are unique even with duplicate coordinates;
/// 2. level by level, every node of the level takes the dimension of largest variance, splits at
///    the median position of that dimension's sorted array, and the other k-1 arrays are stably
///    partitioned (left/right flags, order kept: no re-sorting);
/// 3. leaves hold at most `leaf_size` points. n == 0 gives an empty tree (no nodes).
/// Splitting by position keeps both children non-empty for any data (also boxes with min == max).
KdTree build_kdtree(const double* pts, index_t n, int k, int leaf_size = 3);

/// Split-dimension variance in exact integer sums, identical on the CPU and the device whatever the
/// summation order (docs/decisions.md, "Overset mode on the CUDA backend"): every coordinate of a
/// node is quantized to 16 bits relative to the node's bounding box, q = floor((x - lo) * 65535 /
/// (hi - lo)) (0 for a flat dimension), and the node sums S1 = sum q, S2 = sum q^2 as unsigned
/// 64-bit integers (exact for n < 2^31 points); the variance is then evaluated from
/// (S1, S2, n, hi - lo) by the same few double operations on both backends.
constexpr double kKdQuantLevels = 65535.0;

UGKS_HOST_DEVICE inline double kd_quant_factor(double lo, double hi) {
    return hi > lo ? kKdQuantLevels / (hi - lo) : 0.0;
}
UGKS_HOST_DEVICE inline std::uint64_t kd_quantize(double x, double lo, double f) {
    const double v = (x - lo) * f;
    const std::uint64_t q = v > 0 ? static_cast<std::uint64_t>(v) : 0;
    return q > 65535u ? 65535u : q;
}
/// Variance (in the node's units^2) from the quantized sums.
UGKS_HOST_DEVICE inline double kd_quant_variance(std::uint64_t s1, std::uint64_t s2, index_t n,
                                                 double lo, double hi) {
    const double nn = static_cast<double>(n);
    const double m = static_cast<double>(s1) / nn;
    const double v = static_cast<double>(s2) / nn - m * m;
    const double h = (hi - lo) / kKdQuantLevels;
    return v * (h * h);
}

/// Raw-pointer view of a KdTree that kernels capture by value.
struct KdView {
    int k = 0;
    index_t n_nodes = 0;
    const double* coords = nullptr;
    const index_t* perm = nullptr;
    const double* lo = nullptr;
    const double* hi = nullptr;
    const index_t* child = nullptr;
    const index_t* begin = nullptr;
    const index_t* end = nullptr;
};
/// The view of a tree's flat arrays: a KdTree, or its copy in device memory (device_kernels.cpp),
/// whose arrays have the same names.
template <class Tree>
KdView kd_view(const Tree& t, index_t n_nodes) {
    KdView v;
    v.k = t.k;
    v.n_nodes = n_nodes;
    v.coords = t.coords.data();
    v.perm = t.perm.data();
    v.lo = t.box_lo.data();
    v.hi = t.box_hi.data();
    v.child = t.child.data();
    v.begin = t.begin.data();
    v.end = t.end.data();
    return v;
}
inline KdView view(const KdTree& t) { return kd_view(t, t.n_nodes()); }

/// Squared distance from q to node c's bounding box (0 inside).
UGKS_HOST_DEVICE inline double kd_box_dist2(const KdView& t, index_t c, const double* q) {
    double s = 0;
    for (int d = 0; d < t.k; ++d) {
        const double a = t.lo[c * t.k + d], b = t.hi[c * t.k + d];
        const double e = q[d] < a ? a - q[d] : (q[d] > b ? q[d] - b : 0.0);
        s += e * e;
    }
    return s;
}

/// Nearest neighbour of q: depth-first with a stack, nearer child first, a subtree pruned when the
/// distance to its bounding box is >= the best so far. `r2_init` (squared initial radius, +inf for
/// none) prunes from the start; the search gives -1 when no point lies within it (the caller then
/// repeats with +inf). Returns the caller's point index and sets *d2 to the squared distance.
UGKS_HOST_DEVICE inline index_t kd_nearest(const KdView& t, const double* q, double r2_init,
                                           double* d2) {
    double best = r2_init;
    index_t best_i = -1;
    if (t.n_nodes == 0) {
        *d2 = best;
        return -1;
    }
    index_t stack[kKdMaxDepth * 2];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const index_t c = stack[--top];
        const double bd = kd_box_dist2(t, c, q);
        if (bd > best || (bd == best && best_i >= 0)) continue;
        const index_t l = t.child[2 * c];
        if (l < 0) {
            for (index_t p = t.begin[c]; p < t.end[c]; ++p) {
                double s = 0;
                for (int d = 0; d < t.k; ++d) {
                    const double e = t.coords[p * t.k + d] - q[d];
                    s += e * e;
                }
                if (s < best || (s == best && best_i < 0) || (s == best && t.perm[p] < best_i)) {
                    best = s;
                    best_i = t.perm[p];
                }
            }
            continue;
        }
        const index_t r = t.child[2 * c + 1];
        const double dl = kd_box_dist2(t, l, q), dr = kd_box_dist2(t, r, q);
        // push the farther child first so that the nearer one is searched first
        if (dl <= dr) {
            stack[top++] = r;
            stack[top++] = l;
        } else {
            stack[top++] = l;
            stack[top++] = r;
        }
    }
    *d2 = best;
    return best_i;
}

/// Every point of a box tree (k = 2m: point = (min_0..min_{m-1}, max_0..max_{m-1})) whose box
/// contains x (m coordinates): f(caller's index) for each, in leaf order. A subtree is skipped when
/// the smallest min of some axis is above x or the largest max below it.
template <class F>
UGKS_HOST_DEVICE void kd_boxes_containing(const KdView& t, const double* x, F&& f) {
    if (t.n_nodes == 0) return;
    const int m = t.k / 2;
    index_t stack[kKdMaxDepth * 2];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const index_t c = stack[--top];
        bool may = true;
        for (int d = 0; d < m && may; ++d)
            may = t.lo[c * t.k + d] <= x[d] && t.hi[c * t.k + m + d] >= x[d];
        if (!may) continue;
        const index_t l = t.child[2 * c];
        if (l < 0) {
            for (index_t p = t.begin[c]; p < t.end[c]; ++p) {
                bool in = true;
                for (int d = 0; d < m && in; ++d)
                    in = t.coords[p * t.k + d] <= x[d] && t.coords[p * t.k + m + d] >= x[d];
                if (in) f(t.perm[p]);
            }
            continue;
        }
        stack[top++] = t.child[2 * c + 1];
        stack[top++] = l;
    }
}

}  // namespace ugks::overset

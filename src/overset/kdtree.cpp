#include "ugks/overset/kdtree.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "ugks/core/error.hpp"

namespace ugks::overset {

KdTree build_kdtree(const double* pts, index_t n, int k, int leaf_size) {
    UGKS_REQUIRE(k >= 1 && k <= kKdMaxDim, "k-d tree dimension " << k);
    UGKS_REQUIRE(leaf_size >= 1, "leaf size " << leaf_size);
    UGKS_REQUIRE(n < (index_t{1} << 31), "k-d tree over " << n << " points (at most 2^31 - 1)");
    KdTree t;
    t.k = k;
    t.n_points = n;
    if (n == 0) return t;

    // 1. Presort: one index array per dimension, sorted by the cyclic super-key (x_d, x_d+1, ...)
    //    and finally the index, so every key is unique. (GPU: one radix sort per dimension.)
    std::vector<std::vector<index_t>> sorted(k, std::vector<index_t>(n));
    for (int d = 0; d < k; ++d) {
        std::iota(sorted[d].begin(), sorted[d].end(), index_t{0});
        std::sort(sorted[d].begin(), sorted[d].end(), [&](index_t a, index_t b) {
            for (int j = 0; j < k; ++j) {
                const int e = (d + j) % k;
                const double xa = pts[a * k + e], xb = pts[b * k + e];
                if (xa != xb) return xa < xb;
            }
            return a < b;
        });
    }

    // 2. Level by level. Every node covers one contiguous range of all k arrays (same point set).
    std::vector<std::uint8_t> right(static_cast<std::size_t>(n), 0);
    std::vector<index_t> tmp(static_cast<std::size_t>(n));
    t.begin.push_back(0);
    t.end.push_back(n);
    std::vector<index_t> level{0};
    auto add_box = [&](index_t b, index_t e) {
        // Bounding box from the sorted arrays: the first/last entry of dimension d's array has the
        // smallest/largest x_d of the range.
        for (int d = 0; d < k; ++d) {
            t.box_lo.push_back(pts[sorted[d][b] * k + d]);
            t.box_hi.push_back(pts[sorted[d][e - 1] * k + d]);
        }
    };
    add_box(0, n);
    t.child.assign(2, -1);
    t.split_dim.assign(1, -1);
    while (!level.empty()) {
        ++t.depth;
        std::vector<index_t> next;
        for (const index_t c : level) {  // independent nodes: one thread block each on a GPU
            const index_t b = t.begin[c], e = t.end[c];
            if (e - b <= leaf_size) continue;
            // Maximum-variance split dimension (quantized exact sums: the device gives the same).
            int s = 0;
            double best_var = -1;
            for (int d = 0; d < k; ++d) {
                const double lo = t.box_lo[c * k + d], hi = t.box_hi[c * k + d];
                const double f = kd_quant_factor(lo, hi);
                std::uint64_t s1 = 0, s2 = 0;
                for (index_t i = b; i < e; ++i) {
                    const std::uint64_t q = kd_quantize(pts[sorted[0][i] * k + d], lo, f);
                    s1 += q;
                    s2 += q * q;
                }
                const double var = kd_quant_variance(s1, s2, e - b, lo, hi);
                if (var > best_var) {
                    best_var = var;
                    s = d;
                }
            }
            const index_t mid = b + (e - b) / 2;
            for (index_t i = b; i < mid; ++i) right[sorted[s][i]] = 0;
            for (index_t i = mid; i < e; ++i) right[sorted[s][i]] = 1;
            // Stable partition of the other arrays (GPU: flags + scan, warp-level compaction).
            for (int d = 0; d < k; ++d) {
                if (d == s) continue;
                index_t nl = b, nr = mid;
                for (index_t i = b; i < e; ++i) {
                    const index_t p = sorted[d][i];
                    if (right[p])
                        tmp[nr++] = p;
                    else
                        tmp[nl++] = p;
                }
                std::copy(tmp.begin() + b, tmp.begin() + e, sorted[d].begin() + b);
            }
            const index_t l = t.n_nodes(), r = l + 1;
            t.begin.push_back(b);
            t.end.push_back(mid);
            t.begin.push_back(mid);
            t.end.push_back(e);
            add_box(b, mid);
            add_box(mid, e);
            t.child.insert(t.child.end(), {-1, -1, -1, -1});
            t.split_dim.insert(t.split_dim.end(), {-1, -1});
            t.child[2 * c] = l;
            t.child[2 * c + 1] = r;
            t.split_dim[c] = s;
            next.push_back(l);
            next.push_back(r);
        }
        level.swap(next);
    }
    UGKS_REQUIRE(t.depth < kKdMaxDepth, "k-d tree depth " << t.depth);

    // 3. Leaf order = the final order of array 0 (every node's range holds exactly its points).
    t.perm = sorted[0];
    t.coords.resize(static_cast<std::size_t>(n) * k);
    for (index_t i = 0; i < n; ++i)
        for (int d = 0; d < k; ++d) t.coords[i * k + d] = pts[t.perm[i] * k + d];
    return t;
}

}  // namespace ugks::overset

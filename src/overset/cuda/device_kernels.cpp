// Overset assembly on the CUDA backend (docs/decisions.md, "Overset mode on the CUDA backend"): the
// presorted k-d tree build (CUB radix-sort presort, per-level integer variance sums, flag + scan
// stable partition), nearest-wall-distance queries with the advancing-front radius, donor trees and
// donor search, node/cell classification with island removal, receptors and donor stencils. Every
// per-point operation is the UGKS_HOST_DEVICE code the CPU loops use (kdtree.hpp, grid_view.hpp,
// cell_locate.hpp), and this file is compiled without FMA contraction (CMakeLists.txt), so wall
// distances, classification, donors and weights equal the CPU backend's bit for bit; the trees
// themselves are identical too (the split dimension comes from exact integer sums).
//
// Part of CUDA builds only; CPU builds compile src/overset/host/device_stubs.cpp instead.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cub/cub.cuh>
#include <limits>
#include <map>

#include "ugks/core/error.hpp"
#include "ugks/device/array.hpp"
#include "ugks/device/device.hpp"
#include "ugks/device/forall.hpp"
#include "ugks/overset/overset.hpp"

namespace ugks::overset {

namespace dev {

constexpr int kBlock = 256;

template <class T>
void ensure(DeviceArray<T>& a, index_t n, const char* label) {
    if (a.size() < n) a = DeviceArray<T>(label, n + n / 8 + 16);
}

void sync() { UGKS_CUDA_CHECK(cudaDeviceSynchronize()); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Scratch of the CUB calls.
struct CubTemp {
    DeviceArray<unsigned char> buf;
    void* get(std::size_t bytes) {
        ensure(buf, static_cast<index_t>(bytes) + 1, "overset.cub_temp");
        return buf.data();
    }
};

template <class T>
T download1(const T* d) {
    T h{};
    UGKS_CUDA_CHECK(cudaMemcpy(&h, d, sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/// A tree in device memory (same layout as KdTree).
struct DeviceTree {
    int k = 0;
    index_t n_points = 0, n_nodes = 0;
    int depth = 0;
    DeviceArray<double> coords, box_lo, box_hi;
    DeviceArray<index_t> perm, child, begin, end;
    DeviceArray<int> split;
};
KdView view(const DeviceTree& t) { return kd_view(t, t.n_nodes); }

// ---- k-d tree build ---------------------------------------------------------------------------

/// Per-level variance sums: S1, S2 of the quantized coordinates of array 0's positions, per node of
/// the level (sums[(c - first) * 2k + d], [.. + k + d]). Exact integer sums: a tile of one node is
/// reduced in the block, mixed tiles warp by warp, then atomics (order-independent).
__global__ void k_var_sums(index_t n, int k, index_t first, const int* __restrict__ node_of,
                           const int* __restrict__ S0, const double* __restrict__ pts,
                           const double* __restrict__ lo, const double* __restrict__ hi,
                           unsigned long long* sums) {
    constexpr int kItems = 8;
    using BR = cub::BlockReduce<unsigned long long, kBlock>;
    __shared__ typename BR::TempStorage tmp;
    const index_t tile0 = static_cast<index_t>(blockIdx.x) * kBlock * kItems;
    const index_t tile1 = tile0 + kBlock * kItems < n ? tile0 + kBlock * kItems : n;
    const int c_first = node_of[tile0], c_last = node_of[tile1 - 1];
    if (c_first >= 0 && c_first == c_last) {  // the whole tile is one node (ranges are contiguous)
        const int c = c_first;
        for (int d = 0; d < k; ++d) {
            const double l = lo[c * k + d], f = kd_quant_factor(l, hi[c * k + d]);
            unsigned long long s1 = 0, s2 = 0;
            for (int j = 0; j < kItems; ++j) {
                const index_t i = tile0 + j * kBlock + threadIdx.x;
                if (i < tile1) {
                    const unsigned long long q = kd_quantize(pts[S0[i] * k + d], l, f);
                    s1 += q;
                    s2 += q * q;
                }
            }
            const unsigned long long a = BR(tmp).Sum(s1);
            __syncthreads();
            const unsigned long long b = BR(tmp).Sum(s2);
            __syncthreads();
            if (threadIdx.x == 0) {
                atomicAdd(&sums[(c - first) * 2 * k + d], a);
                atomicAdd(&sums[(c - first) * 2 * k + k + d], b);
            }
        }
        return;
    }
    for (int j = 0; j < kItems; ++j) {
        const index_t i = tile0 + j * kBlock + threadIdx.x;
        const int c = i < tile1 ? node_of[i] : -1;
        const int c0 = __shfl_sync(0xffffffffu, c, 0);
        const bool uniform = __all_sync(0xffffffffu, c == c0) && c0 >= 0;
        for (int d = 0; d < k; ++d) {
            unsigned long long q = 0;
            if (c >= 0)
                q = kd_quantize(pts[S0[i] * k + d], lo[c * k + d],
                                kd_quant_factor(lo[c * k + d], hi[c * k + d]));
            unsigned long long q2 = q * q;
            if (uniform) {
                for (int o = 16; o > 0; o /= 2) {
                    q += __shfl_down_sync(0xffffffffu, q, o);
                    q2 += __shfl_down_sync(0xffffffffu, q2, o);
                }
                if ((threadIdx.x & 31) == 0) {
                    atomicAdd(&sums[(c0 - first) * 2 * k + d], q);
                    atomicAdd(&sums[(c0 - first) * 2 * k + k + d], q2);
                }
            } else if (c >= 0) {
                atomicAdd(&sums[(c - first) * 2 * k + d], q);
                atomicAdd(&sums[(c - first) * 2 * k + k + d], q2);
            }
        }
    }
}

__global__ void k_tie_check(index_t n, const double* keys, int* tie) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i + 1 < n && keys[i] == keys[i + 1]) *tie = 1;
}

/// Builds trees; keeps its scratch between builds (one per system).
struct TreeBuilder {
    DeviceArray<int> S, S2, F, R, node_of, idxA, idxB, rank, flag;
    DeviceArray<unsigned char> right;
    DeviceArray<double> keys, keys2;
    DeviceArray<unsigned long long> sums;
    CubTemp cub;

    void sort_pairs(const double* kin, double* kout, const int* vin, int* vout, index_t n) {
        std::size_t bytes = 0;
        UGKS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, vin, vout,
                                                        static_cast<int>(n)));
        void* t = cub.get(bytes);
        UGKS_CUDA_CHECK(
            cub::DeviceRadixSort::SortPairs(t, bytes, kin, kout, vin, vout, static_cast<int>(n)));
    }
    void exclusive_sum(const int* in, int* out, index_t n) {
        std::size_t bytes = 0;
        UGKS_CUDA_CHECK(
            cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, static_cast<int>(n)));
        void* t = cub.get(bytes);
        UGKS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(t, bytes, in, out, static_cast<int>(n)));
    }

    /// Presort of dimension d into out[0..n): by the super-key (x_d, x_d+1, ..., index). One radix
    /// sort by x_d (stable, from the identity); when two neighbours tie, the full key by LSD
    /// passes: stable sorts by x_{d+k-1}, ..., x_d from the identity.
    void presort(const double* pts, index_t n, int k, int d, int* out) {
        int* ia = idxA.data();
        int* ib = idxB.data();
        double* k1 = keys.data();
        double* k2 = keys2.data();
        // -0.0 -> +0.0: the radix sort orders them, the CPU comparator treats them as equal
        forall(n, [=] __device__(index_t i) {
            ia[i] = static_cast<int>(i);
            const double v = pts[i * k + d];
            k1[i] = v == 0.0 ? 0.0 : v;
        });
        sort_pairs(k1, k2, ia, out, n);
        int* tie = flag.data();
        UGKS_CUDA_CHECK(cudaMemset(tie, 0, sizeof(int)));
        if (n > 1) {
            k_tie_check<<<static_cast<int>((n + kBlock - 1) / kBlock), kBlock>>>(n, k2, tie);
            UGKS_CHECK_LAUNCH();
        }
        if (k == 1 || download1(tie) == 0) return;
        forall(n, [=] __device__(index_t i) { ia[i] = static_cast<int>(i); });
        for (int j = k - 1; j >= 0; --j) {
            const int e = (d + j) % k;
            forall(n, [=] __device__(index_t i) {
                const double v = pts[static_cast<index_t>(ia[i]) * k + e];
                k1[i] = v == 0.0 ? 0.0 : v;
            });
            sort_pairs(k1, k2, ia, j == 0 ? out : ib, n);
            if (j > 0) std::swap(ia, ib);
        }
    }

    /// The tree of n points of dimension k at device pointer pts; the same tree as build_kdtree.
    void build(const double* pts, index_t n, int k, int leaf, DeviceTree& t) {
        UGKS_REQUIRE(k >= 1 && k <= kKdMaxDim, "k-d tree dimension " << k);
        UGKS_REQUIRE(leaf >= 1, "leaf size " << leaf);
        UGKS_REQUIRE(n * k < (index_t{1} << 31), "device k-d tree over " << n << " points");
        t.k = k;
        t.n_points = n;
        t.n_nodes = 0;
        t.depth = 0;
        if (n == 0) return;
        // Level structure from the sizes alone (median-position splits): node count per level.
        std::vector<index_t> level_first, level_count;
        std::vector<bool> level_splits;
        {
            std::map<index_t, index_t> sizes{{n, 1}};
            index_t first = 0;
            while (!sizes.empty()) {
                index_t cnt = 0;
                bool any = false;
                std::map<index_t, index_t> next;
                for (const auto& [sz, c] : sizes) {
                    cnt += c;
                    if (sz > leaf) {
                        any = true;
                        next[sz / 2] += c;
                        next[sz - sz / 2] += c;
                    }
                }
                level_first.push_back(first);
                level_count.push_back(cnt);
                level_splits.push_back(any);
                first += cnt;
                sizes.swap(next);
            }
            t.n_nodes = first;
            t.depth = static_cast<int>(level_first.size());
        }
        UGKS_REQUIRE(t.depth < kKdMaxDepth, "k-d tree depth " << t.depth);
        const index_t nn = t.n_nodes;
        ensure(t.box_lo, nn * k, "overset.kd.lo");
        ensure(t.box_hi, nn * k, "overset.kd.hi");
        ensure(t.child, 2 * nn, "overset.kd.child");
        ensure(t.begin, nn, "overset.kd.begin");
        ensure(t.end, nn, "overset.kd.end");
        ensure(t.split, nn, "overset.kd.split");
        ensure(t.perm, n, "overset.kd.perm");
        ensure(t.coords, n * k, "overset.kd.coords");
        ensure(S, n * k, "overset.kd.sorted");
        ensure(S2, n * k, "overset.kd.sorted2");
        ensure(F, n * k, "overset.kd.flags");
        ensure(R, n * k, "overset.kd.scan");
        ensure(node_of, n, "overset.kd.node_of");
        ensure(idxA, n, "overset.kd.idx");
        ensure(idxB, n, "overset.kd.idx");
        ensure(keys, n, "overset.kd.keys");
        ensure(keys2, n, "overset.kd.keys");
        ensure(right, n, "overset.kd.right");
        ensure(flag, 1, "overset.kd.flag");
        index_t max_level = 1;
        for (const index_t c : level_count) max_level = std::max(max_level, c);
        ensure(rank, max_level, "overset.kd.rank");
        ensure(sums, max_level * 2 * k, "overset.kd.sums");

        // 1. presort, root
        for (int d = 0; d < k; ++d) presort(pts, n, k, d, S.data() + d * n);
        UGKS_CUDA_CHECK(cudaMemset(t.child.data(), 0xff, sizeof(index_t) * 2 * nn));
        UGKS_CUDA_CHECK(cudaMemset(t.split.data(), 0xff, sizeof(int) * nn));
        index_t* B = t.begin.data();
        index_t* E = t.end.data();
        index_t* CH = t.child.data();
        int* SP = t.split.data();
        double* LO = t.box_lo.data();
        double* HI = t.box_hi.data();
        int* Sd = S.data();
        {
            forall(1, [=] __device__(index_t) {
                B[0] = 0;
                E[0] = n;
                for (int d = 0; d < k; ++d) {
                    LO[d] = pts[static_cast<index_t>(Sd[d * n]) * k + d];
                    HI[d] = pts[static_cast<index_t>(Sd[d * n + n - 1]) * k + d];
                }
            });
            int* no = node_of.data();
            const int root = n > leaf ? 0 : -1;
            forall(n, [=] __device__(index_t i) { no[i] = root; });
        }

        // 2. level by level
        for (std::size_t L = 0; L < level_first.size(); ++L) {
            if (!level_splits[L]) break;
            const index_t f = level_first[L], cnt = level_count[L], f2 = f + cnt;
            int* Fl = F.data();
            int* rk = rank.data();
            forall(cnt, [=] __device__(index_t i) { Fl[i] = E[f + i] - B[f + i] > leaf ? 1 : 0; });
            exclusive_sum(Fl, rk, cnt);
            // variance sums and the split
            unsigned long long* sm = sums.data();
            UGKS_CUDA_CHECK(cudaMemset(sm, 0, sizeof(unsigned long long) * cnt * 2 * k));
            const int* no = node_of.data();
            const index_t tiles = (n + kBlock * 8 - 1) / (kBlock * 8);
            k_var_sums<<<static_cast<int>(tiles), kBlock>>>(n, k, f, no, Sd, pts, LO, HI, sm);
            UGKS_CHECK_LAUNCH();
            forall(cnt, [=] __device__(index_t i) {
                const index_t c = f + i, b = B[c], e = E[c];
                if (e - b <= leaf) return;
                int s = 0;
                double best = -1;
                for (int d = 0; d < k; ++d) {
                    const double v = kd_quant_variance(sm[i * 2 * k + d], sm[i * 2 * k + k + d],
                                                       e - b, LO[c * k + d], HI[c * k + d]);
                    if (v > best) {
                        best = v;
                        s = d;
                    }
                }
                const index_t mid = b + (e - b) / 2, l = f2 + 2 * static_cast<index_t>(rk[i]);
                SP[c] = s;
                CH[2 * c] = l;
                CH[2 * c + 1] = l + 1;
                B[l] = b;
                E[l] = mid;
                B[l + 1] = mid;
                E[l + 1] = e;
            });
            // right flags from the split dimension's array, then the stable partition of all k
            // arrays: destination = b + lefts before / mid + rights before (scan of the flags)
            unsigned char* rt = right.data();
            forall(n, [=] __device__(index_t i) {
                const int c = no[i];
                if (c < 0) return;
                const index_t mid = B[c] + (E[c] - B[c]) / 2;
                rt[Sd[SP[c] * n + i]] = i >= mid ? 1 : 0;
            });
            forall(n * k, [=] __device__(index_t j) {
                const index_t i = j % n;
                Fl[j] = no[i] >= 0 ? rt[Sd[j]] : 0;
            });
            int* Rs = R.data();
            exclusive_sum(Fl, Rs, n * k);
            int* S2d = S2.data();
            forall(n * k, [=] __device__(index_t j) {
                const index_t d = j / n, i = j - d * n;
                const int c = no[i];
                if (c < 0) {
                    S2d[j] = Sd[j];
                    return;
                }
                const index_t b = B[c], mid = b + (E[c] - b) / 2;
                const index_t rb = Rs[j] - Rs[d * n + b];
                const index_t dest = rt[Sd[j]] ? mid + rb : b + (i - b) - rb;
                S2d[d * n + dest] = Sd[j];
            });
            std::swap(S, S2);
            Sd = S.data();
            // children's boxes from the partitioned arrays; positions -> next level's nodes
            forall(cnt, [=] __device__(index_t i) {
                const index_t c = f + i;
                if (CH[2 * c] < 0) return;
                for (index_t ch = CH[2 * c]; ch <= CH[2 * c] + 1; ++ch)
                    for (int d = 0; d < k; ++d) {
                        LO[ch * k + d] = pts[static_cast<index_t>(Sd[d * n + B[ch]]) * k + d];
                        HI[ch * k + d] = pts[static_cast<index_t>(Sd[d * n + E[ch] - 1]) * k + d];
                    }
            });
            int* now = node_of.data();
            forall(n, [=] __device__(index_t i) {
                const int c = now[i];
                if (c < 0) return;
                const index_t mid = B[c] + (E[c] - B[c]) / 2;
                const index_t ch = i < mid ? CH[2 * c] : CH[2 * c] + 1;
                now[i] = E[ch] - B[ch] > leaf ? static_cast<int>(ch) : -1;
            });
        }
        // 3. leaf order = array 0
        index_t* P = t.perm.data();
        double* X = t.coords.data();
        forall(n, [=] __device__(index_t i) { P[i] = Sd[i]; });
        forall(n * k, [=] __device__(index_t j) {
            const index_t i = j / k;
            X[j] = pts[static_cast<index_t>(Sd[i]) * k + (j - i * k)];
        });
    }
};

KdTree download(const DeviceTree& d) {
    KdTree t;
    t.k = d.k;
    t.n_points = d.n_points;
    t.depth = d.depth;
    if (d.n_points == 0) return t;
    auto get = [](auto& host, const auto& dev, index_t n) {
        host.resize(static_cast<std::size_t>(n));
        UGKS_CUDA_CHECK(
            cudaMemcpy(host.data(), dev.data(), sizeof(host[0]) * n, cudaMemcpyDeviceToHost));
    };
    get(t.coords, d.coords, d.n_points * d.k);
    get(t.perm, d.perm, d.n_points);
    get(t.box_lo, d.box_lo, d.n_nodes * d.k);
    get(t.box_hi, d.box_hi, d.n_nodes * d.k);
    get(t.child, d.child, 2 * d.n_nodes);
    get(t.begin, d.begin, d.n_nodes);
    get(t.end, d.end, d.n_nodes);
    get(t.split_dim, d.split, d.n_nodes);
    return t;
}

template <class T>
void upload(DeviceArray<T>& a, const std::vector<T>& h, const char* label) {
    ensure(a, static_cast<index_t>(h.size()), label);
    if (!h.empty()) a.copy_from(h.data(), static_cast<index_t>(h.size()));
}
void upload_raw(DeviceArray<double>& a, const double* h, index_t n, const char* label) {
    ensure(a, n, label);
    if (n) a.copy_from(h, n);
}
template <class T>
void download_into(std::vector<T>& h, const DeviceArray<T>& a, index_t n) {
    h.resize(static_cast<std::size_t>(n));
    if (n) UGKS_CUDA_CHECK(cudaMemcpy(h.data(), a.data(), sizeof(T) * n, cudaMemcpyDeviceToHost));
}

// ---- spatial order of query points -------------------------------------------------------------

/// The 10 low bits of v spread to every third bit (bit b -> bit 3b).
__device__ inline unsigned morton_spread10(unsigned v) {
    v &= 0x3ffu;
    v = (v | v << 16) & 0x30000ffu;
    v = (v | v << 8) & 0x300f00fu;
    v = (v | v << 4) & 0x30c30c3u;
    v = (v | v << 2) & 0x9249249u;
    return v;
}

/// 30-bit Morton code of x quantized to 10 bits per axis in the box [lo, hi] (clamped: points
/// outside the box get the code of the nearest box point; a flat axis quantizes to 0). 1024 cells
/// per axis order 10^6-10^7 queries as well as finer codes; 32-bit keys halve the radix sort
/// (measured: docs/performance.md).
__device__ inline unsigned morton_code(const double* x, const double* lo, const double* hi) {
    unsigned c = 0;
    for (int a = 0; a < 3; ++a) {
        const double f = hi[a] > lo[a] ? 1023.0 / (hi[a] - lo[a]) : 0.0;
        const double u = (x[a] - lo[a]) * f;
        const unsigned q = u > 0 ? (u < 1023.0 ? static_cast<unsigned>(u) : 1023u) : 0u;
        c |= morton_spread10(q) << a;
    }
    return c;
}

/// Orders query points along a Morton curve so that neighbouring threads of a traversal kernel
/// walk neighbouring subtrees (docs/decisions.md, "query order"). Keeps its scratch between calls.
struct QuerySorter {
    DeviceArray<unsigned> code, code2;
    DeviceArray<int> idx, idx2;
    CubTemp cub;

    /// order[j] = the caller's index of the j-th of the n points q (3 per point, device) in Morton
    /// order within the box [lo, hi] (device pointers, 3 values each); valid until the next call.
    const int* sort(const double* q, index_t n, const double* lo, const double* hi) {
        UGKS_REQUIRE(n < (index_t{1} << 31), "query sort of " << n << " points");
        ensure(code, n, "overset.query_code");
        ensure(code2, n, "overset.query_code");
        ensure(idx, n, "overset.query_order");
        ensure(idx2, n, "overset.query_order");
        unsigned* c = code.data();
        int* ix = idx.data();
        forall(n, [=] __device__(index_t i) {
            c[i] = morton_code(q + 3 * i, lo, hi);
            ix[i] = static_cast<int>(i);
        });
        std::size_t bytes = 0;
        UGKS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, c, code2.data(), ix,
                                                        idx2.data(), static_cast<int>(n), 0, 30));
        void* t = cub.get(bytes);
        UGKS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(t, bytes, c, code2.data(), ix, idx2.data(),
                                                        static_cast<int>(n), 0, 30));
        return idx2.data();
    }
};

/// 1-NN distance of n query points (device) in tree v (k = 3); nearest index when nn is non-null.
/// With a sorter and at least sort_min queries, the queries run in Morton order within the tree's
/// root box (results scattered back to the caller's order); the results do not depend on the order.
void query_nearest(const KdView v, const double* q, index_t n, double* dist, index_t* nn,
                   QuerySorter* sorter = nullptr, index_t sort_min = kDeviceQuerySortMin) {
    if (sorter && n >= sort_min && n > 1 && v.n_nodes > 0) {
        const int* order = sorter->sort(q, n, v.lo, v.hi);  // node 0 = the root box
        forall(n, [=] __device__(index_t j) {
            const index_t i = order[j];
            double d2 = kInf;
            const index_t p = kd_nearest(v, q + 3 * i, kInf, &d2);
            dist[i] = sqrt(d2);
            if (nn) nn[i] = p;
        });
        return;
    }
    forall(n, [=] __device__(index_t i) {
        double d2 = kInf;
        const index_t j = kd_nearest(v, q + 3 * i, kInf, &d2);
        dist[i] = sqrt(d2);
        if (nn) nn[i] = j;
    });
}

// ---- assembly state ---------------------------------------------------------------------------

/// A wall surface in device memory: the arrays of WallSurface that the kernels read.
struct DevWall {
    DeviceArray<index_t> face, adj, node_face_offsets, node_faces;
    DeviceArray<double> box;
    DeviceTree tree;
};

struct DevGrid {
    index_t n_nodes = 0, n_cells = 0, n_wall = 0, n_bnd = 0;
    DeviceArray<double> ref, xyz, wd, box, hostd, r2, weights;
    DeviceArray<index_t> cno, cn, nco, nc, wall, bnd, nearest, fringe, donor_cell, iota;
    DeviceArray<std::int8_t> ctype, nstatus, cstatus, rec;
    DeviceArray<int> level, front, next, donor_grid;
    DeviceArray<int> order;  ///< nodes in Morton order of the reference coordinates
    DeviceTree tree;
    // explicit hole cut: the closed wall surface (n_wface = 0 when open or absent), its face
    // boxes and tree at the current pose, and the per-node inside flags
    index_t n_wface = 0;
    DevWall wsurf;
    DeviceArray<std::int8_t> inb, cut;
};

}  // namespace dev

namespace detail {
struct DeviceState {
    std::vector<dev::DevGrid> grids;
    dev::TreeBuilder builder;
    dev::DeviceTree wall_tree;
    DeviceArray<double> wall_pts;
    DeviceArray<GridView> views;
    DeviceArray<int> counter;
    DeviceArray<index_t> n_selected;
    dev::CubTemp cub;
    dev::QuerySorter sorter;
    DeviceArray<WallView> wall_views;
    DeviceArray<int> reach;         ///< [ng * ng]: grid g has nodes inside body b (this step)
    DeviceArray<index_t> wall_off;  ///< [ng + 1]: first index of each grid's wall nodes
};
}  // namespace detail

namespace dev {

using detail::DeviceState;

void upload_grid(DevGrid& d, const OversetGrid& g) {
    const Mesh& m = g.mesh;
    d.n_nodes = m.n_nodes();
    d.n_cells = m.n_cells();
    d.n_wall = static_cast<index_t>(g.wall_nodes.size());
    d.n_bnd = static_cast<index_t>(g.boundary_nodes.size());
    upload_raw(d.ref, m.nodes.empty() ? nullptr : m.nodes[0].data(), d.n_nodes * 3,
               "overset.ref_nodes");
    upload(d.cno, m.cell_node_offsets, "overset.cell_node_offsets");
    upload(d.cn, m.cell_nodes, "overset.cell_nodes");
    upload(d.nco, g.node_cell_offsets, "overset.node_cell_offsets");
    upload(d.nc, g.node_cells, "overset.node_cells");
    upload(d.wall, g.wall_nodes, "overset.wall_nodes");
    upload(d.bnd, g.boundary_nodes, "overset.boundary_nodes");
    std::vector<std::int8_t> ct(m.cell_type.size());
    for (std::size_t c = 0; c < ct.size(); ++c) ct[c] = static_cast<std::int8_t>(m.cell_type[c]);
    upload(d.ctype, ct, "overset.cell_type");
    d.n_wface = g.wall.closed ? g.wall.n_faces() : 0;
    if (d.n_wface > 0) {
        upload(d.wsurf.face, g.wall.face, "overset.wall_faces");
        upload(d.wsurf.adj, g.wall.adj, "overset.wall_face_adjacency");
        upload(d.wsurf.node_face_offsets, g.wall.node_face_offsets,
               "overset.wall_node_face_offsets");
        upload(d.wsurf.node_faces, g.wall.node_faces, "overset.wall_node_faces");
        ensure(d.wsurf.box, d.n_wface * 2 * 3, "overset.wall_face_box");
    }
    const index_t n = d.n_nodes, nc = d.n_cells;
    ensure(d.xyz, 3 * n, "overset.xyz");
    ensure(d.wd, n, "overset.wall_distance");
    ensure(d.hostd, n, "overset.host_distance");
    ensure(d.r2, n, "overset.r2");
    ensure(d.nearest, n, "overset.nearest");
    ensure(d.level, n, "overset.level");
    ensure(d.front, n, "overset.front");
    ensure(d.next, n, "overset.front");
    ensure(d.nstatus, n, "overset.node_status");
    ensure(d.rec, n, "overset.receptor_flag");
    ensure(d.inb, n, "overset.in_body");
    ensure(d.cut, n, "overset.cut_node");
    ensure(d.iota, n, "overset.iota");
    ensure(d.fringe, n, "overset.fringe_node");
    ensure(d.cstatus, nc, "overset.cell_status");
    ensure(d.box, nc * 2 * 3, "overset.cell_box");
    index_t* io = d.iota.data();
    forall(n, [=] __device__(index_t i) { io[i] = i; });
}

/// d.order: the grid's nodes in Morton order of their reference coordinates (in the reference
/// bounding box). A rigid motion keeps neighbours neighbours, so the order computed once serves
/// every step: the per-node kernels of the assembly (host search, hole cut) run in it.
void compute_node_order(DeviceState& st, DevGrid& d, const Mesh& m) {
    ensure(d.order, d.n_nodes, "overset.node_order");
    if (d.n_nodes == 0) return;
    double box[6] = {0, 0, 0, 0, 0, 0};
    for (index_t i = 0; i < d.n_nodes; ++i)
        for (int a = 0; a < 3; ++a) {
            const double x = m.nodes[i][a];
            if (i == 0 || x < box[a]) box[a] = x;
            if (i == 0 || x > box[3 + a]) box[3 + a] = x;
        }
    DeviceArray<double> b("overset.node_order_box", 6);
    b.copy_from(box, 6);
    const int* o = st.sorter.sort(d.ref.data(), d.n_nodes, b.data(), b.data() + 3);
    UGKS_CUDA_CHECK(
        cudaMemcpy(d.order.data(), o, sizeof(int) * d.n_nodes, cudaMemcpyDeviceToDevice));
}

/// The node -> cells -> nodes adjacency of grid d (device pointers).
NodeAdjacency adjacency(const DevGrid& d) {
    return {d.nco.data(), d.nc.data(), d.cno.data(), d.cn.data()};
}

GridView device_view(const DevGrid& d, int dim) {
    GridView v;
    v.dim = dim;
    v.n_nodes = d.n_nodes;
    v.n_cells = d.n_cells;
    v.xyz = d.xyz.data();
    v.cell_node_offsets = d.cno.data();
    v.cell_nodes = d.cn.data();
    v.cell_type = d.ctype.data();
    v.cell_status = d.cstatus.data();
    v.wall_distance = d.wd.data();
    v.tree = view(d.tree);
    return v;
}

/// Wall view of grid d (device pointers, its current xyz and wall tree).
WallView device_wall_view(const DevGrid& d, int dim) {
    return wall_view_of(d.wsurf, dim, d.n_wface, d.xyz.data());
}

/// Cell boxes and the donor tree of grid d at its current xyz.
void build_donor_tree(DeviceState& st, DevGrid& d, int dim, int leaf) {
    const index_t* off = d.cno.data();
    const index_t* cn = d.cn.data();
    const double* x = d.xyz.data();
    double* bx = d.box.data();
    forall(d.n_cells,
           [=] __device__(index_t c) { cell_box_of(dim, off, cn, x, c, bx + c * 2 * dim); });
    st.builder.build(bx, d.n_cells, 2 * dim, leaf, d.tree);
}

/// Level-synchronous advancing front from the wall nodes (docs/decisions.md): the CPU's radii.
void wall_distance_front(DeviceState& st, DevGrid& g, const KdView tv, const double* wp) {
    const index_t n = g.n_nodes;
    int* level = g.level.data();
    double* r2 = g.r2.data();
    double* wd = g.wd.data();
    index_t* nearest = g.nearest.data();
    const double* x = g.xyz.data();
    const NodeAdjacency adj = adjacency(g);
    const index_t* wall = g.wall.data();
    forall(n, [=] __device__(index_t i) {
        level[i] = -1;
        r2[i] = kInf;
    });
    int* front = g.front.data();
    int* next = g.next.data();
    forall(g.n_wall, [=] __device__(index_t j) {
        level[wall[j]] = 0;
        r2[wall[j]] = 0.0;
        front[j] = static_cast<int>(wall[j]);
    });
    int* counter = st.counter.data();
    index_t nf = g.n_wall;
    for (int L = 0; nf > 0; ++L) {
        forall(nf, [=] __device__(index_t j) {
            const index_t v = front[j];
            double d2 = kInf;
            index_t k = kd_nearest(tv, x + 3 * v, r2[v] * (1 + 1e-12) + 1e-300, &d2);
            if (k < 0) k = kd_nearest(tv, x + 3 * v, kInf, &d2);
            wd[v] = sqrt(d2);
            nearest[v] = k;
        });
        UGKS_CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
        forall(nf, [=] __device__(index_t j) {
            const index_t i = front[j];
            const double* p = wp + 3 * nearest[i];
            for_each_neighbour(adj, i, [&](index_t v) {
                const int lv = level[v];
                if (lv >= 0 && lv != L + 1) return;
                double s = 0;
                for (int e = 0; e < 3; ++e) {
                    const double y = x[v * 3 + e] - p[e];
                    s += y * y;
                }
                const int old = atomicCAS(&level[v], -1, L + 1);
                if (old == -1) next[atomicAdd(counter, 1)] = static_cast<int>(v);
                if (old == -1 || old == L + 1)
                    atomicMin(reinterpret_cast<unsigned long long*>(&r2[v]),
                              static_cast<unsigned long long>(__double_as_longlong(s)));
            });
        });
        nf = download1(counter);
        std::swap(front, next);
    }
    forall(n, [=] __device__(index_t i) {
        if (level[i] >= 0) return;
        double d2 = kInf;
        nearest[i] = kd_nearest(tv, x + 3 * i, kInf, &d2);
        wd[i] = sqrt(d2);
    });
}

/// Island removal: active nodes not reached through active nodes from the boundary -> inactive.
index_t remove_islands(DeviceState& st, DevGrid& g) {
    const index_t n = g.n_nodes;
    int* reached = g.level.data();  // the wall-distance levels' array, free after that phase
    forall(n, [=] __device__(index_t i) { reached[i] = 0; });
    int* counter = st.counter.data();
    UGKS_CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
    // the boundary nodes that are active start the front
    std::int8_t* ns = g.nstatus.data();
    const index_t* bnd = g.bnd.data();
    int* front = g.front.data();
    forall(g.n_bnd, [=] __device__(index_t j) {
        const index_t i = bnd[j];
        if (ns[i] && atomicCAS(&reached[i], 0, 1) == 0)
            front[atomicAdd(counter, 1)] = static_cast<int>(i);
    });
    index_t nf = download1(counter);
    const NodeAdjacency adj = adjacency(g);
    int* next = g.next.data();
    while (nf > 0) {
        UGKS_CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
        forall(nf, [=] __device__(index_t j) {
            for_each_neighbour(adj, front[j], [&](index_t v) {
                if (ns[v] && reached[v] == 0 && atomicCAS(&reached[v], 0, 1) == 0)
                    next[atomicAdd(counter, 1)] = static_cast<int>(v);
            });
        });
        nf = download1(counter);
        std::swap(front, next);
    }
    UGKS_CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
    forall(n, [=] __device__(index_t i) {
        if (ns[i] && !reached[i]) {
            ns[i] = 0;
            atomicAdd(counter, 1);
        }
    });
    return download1(counter);
}

void select_flagged(DeviceState& st, const index_t* in, const std::int8_t* flags, index_t* out,
                    index_t n, index_t* n_out) {
    ensure(st.n_selected, 1, "overset.n_selected");
    std::size_t bytes = 0;
    UGKS_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, st.n_selected.data(),
                                               static_cast<int>(n)));
    void* t = st.cub.get(bytes);
    UGKS_CUDA_CHECK(cub::DeviceSelect::Flagged(t, bytes, in, flags, out, st.n_selected.data(),
                                               static_cast<int>(n)));
    *n_out = download1(st.n_selected.data());
}

}  // namespace dev

// ---- public functions ---------------------------------------------------------------------------

bool device_available() { return device::device_count() > 0; }

AssemblyCounts assemble_device(OversetSystem& sys, double time, AssemblyTimes* times,
                               const Pose& common) {
    using namespace dev;
    UGKS_REQUIRE(device_available(), "overset device backend: no CUDA device visible");
    AssemblyTimes local;
    AssemblyTimes& tm = times ? *times : local;
    const int dim = sys.dim;
    const int ng = static_cast<int>(sys.grids.size());
    const int leaf = sys.leaf_size;

    auto t0 = std::chrono::steady_clock::now();
    if (!sys.device || static_cast<int>(sys.device->grids.size()) != ng) {
        sys.device = std::make_shared<DeviceState>();
        sys.device->grids.resize(static_cast<std::size_t>(ng));
        for (int gi = 0; gi < ng; ++gi) {
            upload_grid(sys.device->grids[gi], sys.grids[gi]);
            compute_node_order(*sys.device, sys.device->grids[gi], sys.grids[gi].mesh);
        }
        ensure(sys.device->counter, 1, "overset.counter");
        ensure(sys.device->views, ng, "overset.views");
        std::vector<index_t> woff(static_cast<std::size_t>(ng) + 1, 0);
        for (int gi = 0; gi < ng; ++gi)
            woff[gi + 1] = woff[gi] + static_cast<index_t>(sys.grids[gi].wall_nodes.size());
        upload(sys.device->wall_off, woff, "overset.wall_offsets");
        ensure(sys.device->reach, static_cast<index_t>(ng) * ng, "overset.reach");
        ensure(sys.device->wall_views, ng, "overset.wall_views");
        sync();
        tm.transfers += seconds_since(t0);
    }
    DeviceState& st = *sys.device;

    // Motion and reset.
    t0 = std::chrono::steady_clock::now();
    for (int gi = 0; gi < ng; ++gi) {
        DevGrid& d = st.grids[gi];
        const PoseArrays P = compose(pose_at(sys.grids[gi].motion, time), common).arrays();
        const double* ref = d.ref.data();
        double* x = d.xyz.data();
        std::int8_t* ns = d.nstatus.data();
        forall(d.n_nodes, [=] __device__(index_t i) {
            pose_apply(P, ref + 3 * i, dim, x + 3 * i);
            ns[i] = 1;
        });
        std::int8_t* cs = d.cstatus.data();
        forall(d.n_cells, [=] __device__(index_t c) { cs[c] = 1; });
    }
    sync();
    tm.motion += seconds_since(t0);

    // Wall tree over the wall nodes of all grids (in grid order, as the CPU gathers them).
    t0 = std::chrono::steady_clock::now();
    index_t nw = 0;
    int wall_layer = std::numeric_limits<int>::max();
    for (int gi = 0; gi < ng; ++gi) {
        nw += st.grids[gi].n_wall;
        if (st.grids[gi].n_wall > 0) wall_layer = std::min(wall_layer, sys.grids[gi].layer);
    }
    ensure(st.wall_pts, 3 * nw + 1, "overset.wall_points");
    {
        index_t o = 0;
        for (int gi = 0; gi < ng; ++gi) {
            DevGrid& d = st.grids[gi];
            const index_t* w = d.wall.data();
            const double* x = d.xyz.data();
            double* p = st.wall_pts.data() + 3 * o;
            forall(d.n_wall, [=] __device__(index_t j) {
                for (int a = 0; a < 3; ++a) p[3 * j + a] = x[w[j] * 3 + a];
            });
            o += d.n_wall;
        }
    }
    st.builder.build(st.wall_pts.data(), nw, 3, leaf, st.wall_tree);
    sync();
    tm.wall_tree_build += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    const KdView wv = view(st.wall_tree);
    for (int gi = 0; gi < ng; ++gi) {
        DevGrid& d = st.grids[gi];
        double* wd = d.wd.data();
        if (d.n_wall == 0 || nw == 0) {
            const int k = nw == 0 ? 1 : std::max(1, wall_layer - sys.grids[gi].layer);
            const double v = k * sys.layer_spacing;
            index_t* nn = d.nearest.data();
            forall(d.n_nodes, [=] __device__(index_t i) {
                wd[i] = v;
                nn[i] = -1;
            });
        } else if (!sys.advancing_front) {
            query_nearest(wv, d.xyz.data(), d.n_nodes, wd, d.nearest.data(), &st.sorter);
        } else {
            wall_distance_front(st, d, wv, st.wall_pts.data());
        }
    }
    sync();
    tm.wall_query += seconds_since(t0);

    // Donor trees.
    t0 = std::chrono::steady_clock::now();
    for (int gi = 0; gi < ng; ++gi) build_donor_tree(st, st.grids[gi], dim, leaf);
    std::vector<GridView> hv;
    for (int gi = 0; gi < ng; ++gi) hv.push_back(device_view(st.grids[gi], dim));
    st.views.copy_from(hv.data(), ng);
    sync();
    tm.donor_tree_build += seconds_since(t0);

    // Explicit hole cut (hole_cut.hpp, as assemble()): the face-box trees of the closed walls at
    // their current pose; every node against the other grids' walls (Morton order); cells with
    // such a node are holes from here on and all their nodes inactive.
    t0 = std::chrono::steady_clock::now();
    {
        std::vector<WallView> hw(static_cast<std::size_t>(ng));
        for (int gi = 0; gi < ng; ++gi) {
            DevGrid& d = st.grids[gi];
            d.wsurf.tree.n_nodes = 0;
            if (!sys.hole_cut || d.n_wface == 0) continue;
            const WallView w = device_wall_view(d, dim);
            double* bx = d.wsurf.box.data();
            const int k = 2 * dim;
            forall(d.n_wface, [=] __device__(index_t f) { wall_face_box(w, f, bx + f * k); });
            st.builder.build(bx, d.n_wface, k, leaf, d.wsurf.tree);
            hw[gi] = device_wall_view(d, dim);
        }
        st.wall_views.copy_from(hw.data(), ng);
    }
    const WallView* WV = st.wall_views.data();
    int* R = st.reach.data();
    int* n_cut = st.counter.data();
    UGKS_CUDA_CHECK(cudaMemset(R, 0, sizeof(int) * ng * ng));
    UGKS_CUDA_CHECK(cudaMemset(n_cut, 0, sizeof(int)));
    for (int gi = 0; gi < ng; ++gi) {
        DevGrid& d = st.grids[gi];
        std::int8_t* ib = d.inb.data();
        std::int8_t* ct = d.cut.data();
        std::int8_t* cs = d.cstatus.data();
        const double* x = d.xyz.data();
        const int* ord = d.order.data();
        const index_t* cno = d.cno.data();
        const index_t* cn = d.cn.data();
        const index_t* nco = d.nco.data();
        const index_t* ncs = d.nc.data();
        forall(d.n_nodes, [=] __device__(index_t j) {
            const index_t i = ord[j];
            std::int8_t in = 0;
            for (int b = 0; b < ng && !in; ++b)
                if (b != gi && wall_inside(WV[b], x + 3 * i)) in = static_cast<std::int8_t>(1 + b);
            ib[i] = in;
            if (in) R[gi * ng + in - 1] = 1;
        });
        forall(d.n_cells, [=] __device__(index_t c) {
            for (index_t b = cno[c]; b < cno[c + 1]; ++b)
                if (ib[cn[b]]) cs[c] = 0;
        });
        forall(d.n_nodes, [=] __device__(index_t i) {
            std::int8_t v = 0;
            for (index_t a = nco[i]; a < nco[i + 1]; ++a)
                if (cs[ncs[a]] == 0) v = 1;
            ct[i] = v;
            if (v) atomicAdd(n_cut, 1);
        });
    }
    const index_t hole_cut_nodes = download1(n_cut);
    sync();
    tm.hole_cut += seconds_since(t0);

    // Host search: smallest interpolated wall distance over the host cells in the other grids,
    // cut cells excluded, with the hole-cut priority between body grids (as assemble()).
    t0 = std::chrono::steady_clock::now();
    const GridView* V = st.views.data();
    const index_t* WO = st.wall_off.data();
    for (int gi = 0; gi < ng; ++gi) {
        DevGrid& d = st.grids[gi];
        double* hd = d.hostd.data();
        const double* x = d.xyz.data();
        const int* ord = d.order.data();
        const index_t* nwall = d.nearest.data();
        forall(d.n_nodes, [=] __device__(index_t j) {
            const index_t i = ord[j];  // Morton order: neighbouring threads, neighbouring cells
            hd[i] = host_wall_distance(V, ng, gi, R, WO, nwall[i], x + 3 * i);
        });
    }
    sync();
    tm.donor_query += seconds_since(t0);

    // Classification.
    t0 = std::chrono::steady_clock::now();
    AssemblyCounts cnt;
    cnt.hole_cut = hole_cut_nodes;
    for (int gi = 0; gi < ng; ++gi) {
        DevGrid& d = st.grids[gi];
        const double* hd = d.hostd.data();
        const double* wd = d.wd.data();
        const std::int8_t* ct = d.cut.data();
        std::int8_t* ns = d.nstatus.data();
        forall(d.n_nodes, [=] __device__(index_t i) { ns[i] = ct[i] || wd[i] > hd[i] ? 0 : 1; });
        cnt.islands_removed += remove_islands(st, d);
        std::int8_t* cs = d.cstatus.data();
        const index_t* cno = d.cno.data();
        const index_t* cn = d.cn.data();
        forall(d.n_cells, [=] __device__(index_t c) {
            int na = 0, nn = 0;
            for (index_t b = cno[c]; b < cno[c + 1]; ++b, ++nn) na += ns[cn[b]];
            cs[c] = na == nn ? 1 : (na == 0 ? 0 : -1);
        });
    }
    sync();
    tm.classification += seconds_since(t0);

    // Receptors (inactive nodes of fringe cells, ascending) and their donor stencils.
    t0 = std::chrono::steady_clock::now();
    std::vector<index_t> n_rec(static_cast<std::size_t>(ng), 0);
    for (int gi = 0; gi < ng; ++gi) {
        DevGrid& d = st.grids[gi];
        std::int8_t* rec = d.rec.data();
        const std::int8_t* ns = d.nstatus.data();
        const std::int8_t* cs = d.cstatus.data();
        const index_t* cno = d.cno.data();
        const index_t* cn = d.cn.data();
        forall(d.n_nodes, [=] __device__(index_t i) { rec[i] = 0; });
        forall(d.n_cells, [=] __device__(index_t c) {
            if (cs[c] != -1) return;
            for (index_t b = cno[c]; b < cno[c + 1]; ++b)
                if (!ns[cn[b]]) rec[cn[b]] = 1;
        });
        index_t nr = 0;
        if (d.n_nodes > 0) select_flagged(st, d.iota.data(), rec, d.fringe.data(), d.n_nodes, &nr);
        n_rec[gi] = nr;
        ensure(d.donor_grid, nr, "overset.fringe_donor_grid");
        ensure(d.donor_cell, nr, "overset.fringe_donor_cell");
        ensure(d.weights, nr * kMaxCellNodes, "overset.fringe_weights");
        const index_t* fr = d.fringe.data();
        const double* x = d.xyz.data();
        int* dg = d.donor_grid.data();
        index_t* dc = d.donor_cell.data();
        double* W = d.weights.data();
        forall(nr, [=] __device__(index_t r) {
            const Donor dn = best_donor(V, ng, gi, x + 3 * fr[r], W + r * kMaxCellNodes);
            dg[r] = dn.grid;
            dc[r] = dn.cell;
        });
    }
    sync();
    tm.donor_stencils += seconds_since(t0);

    // Results to the host grids.
    t0 = std::chrono::steady_clock::now();
    for (int gi = 0; gi < ng; ++gi) {
        OversetGrid& g = sys.grids[gi];
        DevGrid& d = st.grids[gi];
        download_into(g.xyz, d.xyz, 3 * d.n_nodes);
        download_into(g.wall_distance, d.wd, d.n_nodes);
        download_into(g.node_status, d.nstatus, d.n_nodes);
        download_into(g.in_body, d.inb, d.n_nodes);
        download_into(g.nearest_wall, d.nearest, d.n_nodes);
        download_into(g.cell_status, d.cstatus, d.n_cells);
        const index_t nr = n_rec[gi];
        download_into(g.fringe_node, d.fringe, nr);
        download_into(g.fringe_donor_grid, d.donor_grid, nr);
        download_into(g.fringe_donor_cell, d.donor_cell, nr);
        download_into(g.fringe_weights, d.weights, nr * kMaxCellNodes);
        g.n_orphans = 0;
        for (index_t r = 0; r < nr; ++r) g.n_orphans += g.fringe_donor_cell[r] < 0;
        g.cell_box.clear();
        g.donor_tree = KdTree{};
    }
    tm.transfers += seconds_since(t0);

    add_status_counts(sys, cnt);
    return cnt;
}

KdTree build_kdtree_device(const double* pts, index_t n, int k, int leaf_size) {
    dev::TreeBuilder b;
    dev::DeviceTree t;
    DeviceArray<double> p;
    dev::upload_raw(p, pts, n * k, "overset.points");
    b.build(p.data(), n, k, leaf_size, t);
    return dev::download(t);
}

std::vector<double> nearest_distances_device(const double* pts, index_t n_pts, const double* xyz,
                                             index_t n, int leaf_size,
                                             std::vector<index_t>* nearest, index_t sort_min) {
    dev::TreeBuilder b;
    dev::QuerySorter sorter;
    dev::DeviceTree t;
    DeviceArray<double> p, q, d;
    DeviceArray<index_t> nn;
    dev::upload_raw(p, pts, n_pts * 3, "overset.points");
    dev::upload_raw(q, xyz, n * 3, "overset.queries");
    dev::ensure(d, n, "overset.distances");
    dev::ensure(nn, n, "overset.nearest");
    b.build(p.data(), n_pts, 3, leaf_size, t);
    dev::query_nearest(view(t), q.data(), n, d.data(), nn.data(), &sorter, sort_min);
    std::vector<double> out;
    dev::download_into(out, d, n);
    if (nearest) dev::download_into(*nearest, nn, n);
    return out;
}

std::vector<index_t> find_donors_device(const OversetGrid& g, int dim, const double* x, index_t n,
                                        bool skip_holes, std::vector<double>* weights) {
    using namespace dev;
    DeviceState st;
    st.grids.resize(1);
    DevGrid& d = st.grids[0];
    upload_grid(d, g);
    d.xyz.copy_from(g.xyz.data(), 3 * d.n_nodes);
    if (!g.cell_status.empty()) d.cstatus.copy_from(g.cell_status.data(), d.n_cells);
    build_donor_tree(st, d, dim, 3);
    const GridView v = device_view(d, dim);
    DeviceArray<double> q, W;
    DeviceArray<index_t> C;
    upload_raw(q, x, 3 * n, "overset.queries");
    ensure(W, n * kMaxCellNodes, "overset.weights");
    ensure(C, n, "overset.donors");
    const double* qp = q.data();
    double* Wp = W.data();
    index_t* Cp = C.data();
    forall(n, [=] __device__(index_t i) {
        double w[kMaxCellNodes];
        const index_t c = find_donor_in(v, qp + 3 * i, skip_holes, w);
        for (int k = 0; k < kMaxCellNodes; ++k) Wp[i * kMaxCellNodes + k] = c >= 0 ? w[k] : 0.0;
        Cp[i] = c;
    });
    std::vector<index_t> out;
    download_into(out, C, n);
    if (weights) download_into(*weights, W, n * kMaxCellNodes);
    return out;
}

KdBenchTimes bench_kdtree_device(const double* pts, index_t n, const double* q, index_t nq,
                                 int leaf_size, int reps, std::vector<double>* dist,
                                 std::vector<index_t>* nearest, index_t sort_min) {
    using namespace dev;
    TreeBuilder b;
    QuerySorter sorter;
    DeviceTree t;
    DeviceArray<double> p, qd, d;
    upload_raw(p, pts, n * 3, "overset.points");
    upload_raw(qd, q, nq * 3, "overset.queries");
    DeviceArray<index_t> nn;
    ensure(d, nq, "overset.distances");
    ensure(nn, nq, "overset.nearest");
    KdBenchTimes best{kInf, kInf};
    for (int r = 0; r < std::max(1, reps); ++r) {
        sync();
        auto t0 = std::chrono::steady_clock::now();
        b.build(p.data(), n, 3, leaf_size, t);
        sync();
        best.build_s = std::min(best.build_s, seconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        // the Morton sort of the queries (above sort_min) is part of the query time
        query_nearest(view(t), qd.data(), nq, d.data(), nn.data(), &sorter, sort_min);
        sync();
        best.query_s = std::min(best.query_s, seconds_since(t0));
    }
    if (dist) download_into(*dist, d, nq);
    if (nearest) download_into(*nearest, nn, nq);
    return best;
}

}  // namespace ugks::overset

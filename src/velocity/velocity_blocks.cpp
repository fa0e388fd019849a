// Velocity blocks and their assignment to velocity ranks (docs/architecture.md sections 5-6,
// docs/formulation.md section 3.4).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {

void VelocityBlocks::range(int q, int& first, int& count) const {
    UGKS_REQUIRE(q >= 0 && q < velocity_ranks, "velocity rank " << q << " of " << velocity_ranks);
    const auto lo = std::lower_bound(block_owner.begin(), block_owner.end(), q);
    const auto hi = std::upper_bound(lo, block_owner.end(), q);
    first = static_cast<int>(lo - block_owner.begin());
    count = static_cast<int>(hi - lo);
}

namespace {

// Coordinates snapped to integer ids per axis (values within `tol` share an id), so that reflected
// points can be looked up exactly.
class PointIndex {
public:
    PointIndex(const std::vector<Vec3>& u, double tol) : m_tol(tol) {
        for (int d = 0; d < 3; ++d) {
            std::vector<double> v;
            v.reserve(u.size());
            for (const auto& p : u) v.push_back(p[d]);
            std::sort(v.begin(), v.end());
            for (double x : v)
                if (m_values[d].empty() || x - m_values[d].back() > tol) m_values[d].push_back(x);
        }
        m_ids.reserve(u.size());
        for (std::size_t k = 0; k < u.size(); ++k) {
            const auto [it, fresh] = m_ids.emplace(key(u[k]), static_cast<index_t>(k));
            if (!fresh)
                UGKS_INPUT_ERROR("velocities " << it->second << " and " << k << " coincide within "
                                               << tol << "; mirror images cannot be matched");
        }
    }
    // Index of the point at `p` (within tolerance), or -1.
    index_t find(const Vec3& p) const {
        const std::int64_t k = key(p);
        if (k < 0) return -1;
        const auto it = m_ids.find(k);
        return it == m_ids.end() ? -1 : it->second;
    }

private:
    std::int64_t id(int d, double x) const {
        const auto& v = m_values[d];
        auto it = std::lower_bound(v.begin(), v.end(), x - m_tol);
        if (it == v.end() || *it > x + m_tol) return -1;
        return it - v.begin();
    }
    std::int64_t key(const Vec3& p) const {
        std::int64_t k = 0;
        for (int d = 0; d < 3; ++d) {
            const std::int64_t i = id(d, p[d]);
            if (i < 0) return -1;
            k = k * static_cast<std::int64_t>(m_values[d].size()) + i;
        }
        return k;
    }
    double m_tol;
    std::array<std::vector<double>, 3> m_values;
    std::unordered_map<std::int64_t, index_t> m_ids;
};

const char* axis_name(int d) { return d == 0 ? "x" : (d == 1 ? "y" : "z"); }

}  // namespace

VelocityBlocks make_velocity_blocks(const VelocityGrid& grid, int block_size, int velocity_ranks,
                                    const std::array<bool, 3>& keep_mirrors) {
    if (block_size <= 0) UGKS_INPUT_ERROR("parallel.block_size must be > 0, got " << block_size);
    if (velocity_ranks <= 0)
        UGKS_INPUT_ERROR("parallel.velocity_ranks must be > 0, got " << velocity_ranks);
    const index_t n = grid.size();
    UGKS_REQUIRE(n > 0 && static_cast<index_t>(grid.w.size()) == n,
                 "empty or inconsistent velocity grid");
    const index_t min_blocks = (n + block_size - 1) / block_size;
    if (velocity_ranks > min_blocks)
        UGKS_INPUT_ERROR("parallel.velocity_ranks = "
                         << velocity_ranks << " exceeds the number of velocity blocks ("
                         << min_blocks << ") for parallel.block_size = " << block_size);

    // Mirror images (grid indices) for the required axes.
    std::vector<int> axes;
    for (int d = 0; d < 3; ++d)
        if (keep_mirrors[d]) axes.push_back(d);
    std::array<std::vector<index_t>, 3> image;
    if (!axes.empty()) {
        double umax = 0;
        for (const auto& p : grid.u)
            for (double c : p) umax = std::max(umax, std::fabs(c));
        const PointIndex index(grid.u, 1e-9 * std::max(1.0, umax));
        for (int d : axes) {
            image[d].resize(n);
            for (index_t k = 0; k < n; ++k) {
                if (d >= grid.dim) {
                    image[d][k] = k;
                    continue;
                }
                Vec3 r = grid.u[k];
                r[d] = -r[d];
                const index_t m = index.find(r);
                if (m < 0 || std::fabs(grid.w[m] - grid.w[k]) > 1e-9 * grid.w[k])
                    UGKS_INPUT_ERROR(
                        "velocity grid is not symmetric about u_"
                        << axis_name(d) << " = 0, needed for a symmetry/specular plane normal to "
                        << axis_name(d) << ": velocity " << k << " = (" << grid.u[k][0] << ", "
                        << grid.u[k][1] << ", " << grid.u[k][2] << ") has no mirror image"
                        << (m < 0 ? "" : " with the same weight")
                        << (grid.kind == "unstructured"
                                ? std::string(" (type unstructured is symmetric about u_") +
                                      axis_name(d) + " = 0 when every Maxwellian has U_" +
                                      axis_name(d) + " = 0)"
                                : std::string(" (use a grid centred on 0 along that axis: "
                                              "offset 0, lo = -hi)")));
                image[d][k] = m;
            }
        }
    }

    // Grid order, grouped by orbit under the required reflections; orbit boundaries in `orbit_end`.
    std::vector<index_t> seq;
    std::vector<std::size_t> orbit_end;
    seq.reserve(n);
    if (axes.empty()) {
        seq.resize(n);
        std::iota(seq.begin(), seq.end(), index_t(0));
    } else {
        std::vector<char> done(n, 0);
        for (index_t k = 0; k < n; ++k) {
            if (done[k]) continue;
            std::vector<index_t> orbit{k};
            for (int d : axes) {
                const std::size_t size = orbit.size();
                for (std::size_t i = 0; i < size; ++i) orbit.push_back(image[d][orbit[i]]);
            }
            std::sort(orbit.begin(), orbit.end());
            orbit.erase(std::unique(orbit.begin(), orbit.end()), orbit.end());
            for (index_t m : orbit) {
                UGKS_REQUIRE(!done[m], "velocity " << m << " in two orbits");
                done[m] = 1;
                seq.push_back(m);
            }
            orbit_end.push_back(seq.size());
        }
    }

    VelocityBlocks vb;
    vb.block_size = block_size;
    vb.velocity_ranks = velocity_ranks;
    // Blocks per rank for a total of `total` blocks: balanced, the first ranks take the extra
    // block.
    auto rank_blocks = [&](index_t total, int q) {
        return total / velocity_ranks + (q < total % velocity_ranks ? 1 : 0);
    };
    std::vector<index_t> rank_start;  // position in seq where each rank's velocities begin
    index_t total = min_blocks;
    if (!axes.empty()) {
        // Each rank takes whole orbits towards its proportional share of the velocities (so that no
        // rank is left with padding only), never beyond its capacity; the last rank takes the rest.
        for (;; ++total) {
            rank_start.assign(1, 0);
            std::size_t o = 0;  // next orbit
            index_t blocks_so_far = 0;
            for (int q = 0; q < velocity_ranks; ++q) {
                const index_t begin = rank_start.back();
                const index_t limit = begin + rank_blocks(total, q) * block_size;
                blocks_so_far += rank_blocks(total, q);
                const double share = static_cast<double>(n) * blocks_so_far / total;
                index_t end = begin;
                while (o < orbit_end.size()) {
                    const index_t next = static_cast<index_t>(orbit_end[o]);
                    if (next > limit) break;
                    if (q + 1 < velocity_ranks && next - share > share - end) break;
                    end = next;
                    ++o;
                }
                rank_start.push_back(end);
            }
            if (o == orbit_end.size()) break;
        }
    }
    vb.n_blocks = static_cast<int>(total);
    const index_t slots = total * block_size;
    vb.order.assign(slots, -1);
    vb.u.assign(slots, Vec3{0, 0, 0});
    vb.w.assign(slots, 0.0);
    vb.block_owner.resize(total);
    index_t block = 0;
    for (int q = 0; q < velocity_ranks; ++q) {
        const index_t nb = rank_blocks(total, q);
        for (index_t b = 0; b < nb; ++b) vb.block_owner[block + b] = q;
        if (!axes.empty()) {
            index_t slot = block * block_size;
            for (index_t p = rank_start[q]; p < rank_start[q + 1]; ++p) vb.order[slot++] = seq[p];
        }
        block += nb;
    }
    if (axes.empty())
        for (index_t k = 0; k < n; ++k) vb.order[k] = seq[k];

    std::vector<index_t> slot_of(n, -1);
    for (index_t s = 0; s < slots; ++s) {
        const index_t k = vb.order[s];
        if (k < 0) continue;
        vb.u[s] = grid.u[k];
        vb.w[s] = grid.w[k];
        slot_of[k] = s;
    }
    for (int d = 0; d < 3; ++d) {
        vb.mirror[d].assign(slots, -1);
        if (!keep_mirrors[d]) continue;
        for (index_t s = 0; s < slots; ++s)
            if (vb.order[s] >= 0) vb.mirror[d][s] = slot_of[image[d][vb.order[s]]];
    }
    return vb;
}

}  // namespace ugks

// Velocity blocks: padding, balanced contiguous rank ranges, mirror pairs on one velocity rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

VelocityGrid gh_grid(int dim, std::array<int, 3> n, std::array<double, 3> offset = {0, 0, 0}) {
    std::array<std::vector<double>, 3> x, w;
    for (int d = 0; d < dim; ++d) gauss_hermite_1d(n[d], 1.0, offset[d], x[d], w[d]);
    return make_tensor_velocity_grid(dim, x, w, "gauss_hermite");
}

// Invariants that hold for every decomposition; returns the number of failures seen by gtest.
void check_blocks(const VelocityGrid& g, const VelocityBlocks& vb, int B, int P,
                  const std::array<bool, 3>& keep, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(vb.block_size, B);
    ASSERT_EQ(vb.velocity_ranks, P);
    const index_t slots = index_t(vb.n_blocks) * B;
    ASSERT_EQ(vb.n_slots(), slots);
    ASSERT_EQ(static_cast<index_t>(vb.u.size()), slots);
    ASSERT_EQ(static_cast<index_t>(vb.w.size()), slots);
    ASSERT_EQ(static_cast<int>(vb.block_owner.size()), vb.n_blocks);
    // Coverage: every original velocity exactly once, with its own u and w; padding is zero.
    std::vector<int> seen(g.size(), 0);
    for (index_t s = 0; s < slots; ++s) {
        const index_t k = vb.order[s];
        if (k < 0) {
            EXPECT_EQ(k, -1);
            EXPECT_EQ(vb.w[s], 0.0) << s;
            EXPECT_EQ(vb.u[s], (Vec3{0, 0, 0})) << s;
            for (int d = 0; d < 3; ++d) EXPECT_EQ(vb.mirror[d][s], -1) << s;
            continue;
        }
        ASSERT_LT(k, g.size());
        ++seen[k];
        EXPECT_EQ(vb.u[s], g.u[k]);
        EXPECT_EQ(vb.w[s], g.w[k]);
    }
    for (index_t k = 0; k < g.size(); ++k) ASSERT_EQ(seen[k], 1) << "velocity " << k;
    // Balanced contiguous ranges covering all blocks in rank order.
    int next = 0, cmin = vb.n_blocks, cmax = 0;
    for (int q = 0; q < P; ++q) {
        int first = -1, count = -1;
        vb.range(q, first, count);
        EXPECT_EQ(first, next) << "rank " << q;
        for (int b = first; b < first + count; ++b) EXPECT_EQ(vb.block_owner[b], q);
        next = first + count;
        cmin = std::min(cmin, count);
        cmax = std::max(cmax, count);
    }
    EXPECT_EQ(next, vb.n_blocks);
    EXPECT_GE(cmin, 1);
    EXPECT_LE(cmax - cmin, 1);
    // Mirror pairs: on the same rank, reflected velocity, same weight, an involution.
    for (int d = 0; d < 3; ++d)
        for (index_t s = 0; s < slots; ++s) {
            if (vb.order[s] < 0) continue;
            const index_t m = vb.mirror[d][s];
            if (!keep[d]) {
                EXPECT_EQ(m, -1);
                continue;
            }
            ASSERT_GE(m, 0) << "axis " << d << " slot " << s;
            ASSERT_LT(m, slots);
            EXPECT_EQ(vb.block_owner[m / B], vb.block_owner[s / B])
                << "axis " << d << " slot " << s;
            Vec3 r = vb.u[s];
            r[d] = -r[d];
            EXPECT_EQ(vb.u[m], r);
            EXPECT_EQ(vb.w[m], vb.w[s]);
            EXPECT_EQ(vb.mirror[d][m], s);
        }
}

TEST(VelocityBlocks, PlainPaddingAtTheEndAndBalancedRanks) {
    const VelocityGrid g = gh_grid(2, {7, 6, 1});  // 42 velocities
    const VelocityBlocks vb = make_velocity_blocks(g, 8, 4, {false, false, false});
    check_blocks(g, vb, 8, 4, {false, false, false}, "plain");
    EXPECT_EQ(vb.n_blocks, 6);
    EXPECT_EQ(vb.block_owner, (std::vector<int>{0, 0, 1, 1, 2, 3}));
    for (index_t s = 0; s < 42; ++s) EXPECT_EQ(vb.order[s], s);
    for (index_t s = 42; s < 48; ++s) EXPECT_EQ(vb.order[s], -1);
    int first, count;
    vb.range(2, first, count);
    EXPECT_EQ(first, 4);
    EXPECT_EQ(count, 1);
}

TEST(VelocityBlocks, TooManyRanksIsAnInputError) {
    std::vector<double> x, w;
    gauss_hermite_1d(300, 1.0, 0.0, x, w);
    const VelocityGrid g = make_tensor_velocity_grid(1, {x, {}, {}}, {w, {}, {}}, "gauss_hermite");
    try {
        make_velocity_blocks(g, 64, 8, {false, false, false});
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "parallel.velocity_ranks = 8 exceeds the number of velocity blocks (5) for "
                  "parallel.block_size = 64");
    }
    EXPECT_NO_THROW(make_velocity_blocks(g, 64, 5, {false, false, false}));
    EXPECT_THROW(make_velocity_blocks(g, 0, 1, {false, false, false}), InputError);
    EXPECT_THROW(make_velocity_blocks(g, -4, 1, {false, false, false}), InputError);
    EXPECT_THROW(make_velocity_blocks(g, 64, 0, {false, false, false}), InputError);
}

TEST(VelocityBlocks, MirrorPairsStayOnOneRank) {
    const std::vector<std::array<bool, 3>> keeps{
        {false, true, false}, {true, false, false}, {false, true, true}, {true, true, true}};
    const std::vector<VelocityGrid> grids{gh_grid(3, {7, 6, 5}), gh_grid(3, {6, 6, 6}),
                                          gh_grid(2, {9, 8, 1}), gh_grid(3, {5, 7, 3})};
    for (std::size_t gi = 0; gi < grids.size(); ++gi)
        for (const auto& keep : keeps)
            for (int B : {4, 8, 13, 32})
                for (int P = 1; P <= 5; ++P) {
                    const auto& g = grids[gi];
                    if (P > (g.size() + B - 1) / B) continue;
                    const std::string what = "grid " + std::to_string(gi) +
                                             " B=" + std::to_string(B) + " P=" + std::to_string(P) +
                                             " keep=" + std::to_string(keep[0]) +
                                             std::to_string(keep[1]) + std::to_string(keep[2]);
                    const VelocityBlocks vb = make_velocity_blocks(g, B, P, keep);
                    check_blocks(g, vb, B, P, keep, what);
                    // Padding per rank costs at most a few blocks (each rank wastes < 8 slots).
                    const index_t bound = (g.size() + 7 * P + B - 1) / B + 1;
                    EXPECT_LE(vb.n_blocks, bound) << what;
                    if (::testing::Test::HasFailure()) return;
                }
}

TEST(VelocityBlocks, MirrorOrderGroupsOrbits) {
    // 3 x 2 grid, keep x and y: orbits {(+-a, +-b)} of 4 and {(0, +-b)} of 2, in order of smallest
    // index.
    const VelocityGrid g = gh_grid(2, {3, 2, 1});  // k = 2 i + j; x_1 = 0
    const VelocityBlocks vb = make_velocity_blocks(g, 3, 2, {true, true, false});
    // Orbit of 0: {0, 1, 4, 5} (4 > 3 slots of one block): 2 blocks for rank 0, orbit {2, 3} on
    // rank 1.
    EXPECT_EQ(vb.n_blocks, 3);
    EXPECT_EQ(vb.block_owner, (std::vector<int>{0, 0, 1}));
    EXPECT_EQ(vb.order, (std::vector<index_t>{0, 1, 4, 5, -1, -1, 2, 3, -1}));
    EXPECT_EQ(vb.mirror[0], (std::vector<index_t>{2, 3, 0, 1, -1, -1, 6, 7, -1}));
    EXPECT_EQ(vb.mirror[1], (std::vector<index_t>{1, 0, 3, 2, -1, -1, 7, 6, -1}));
    check_blocks(g, vb, 3, 2, {true, true, false}, "orbits");
}

TEST(VelocityBlocks, AxisBeyondTheGridDimensionIsItsOwnMirror) {
    const VelocityGrid g = gh_grid(2, {4, 3, 1});
    const VelocityBlocks vb = make_velocity_blocks(g, 5, 2, {false, false, true});
    for (index_t s = 0; s < vb.n_slots(); ++s) EXPECT_EQ(vb.mirror[2][s], vb.order[s] < 0 ? -1 : s);
}

TEST(VelocityBlocks, GridNotClosedUnderAReflectionNamesTheAxis) {
    const VelocityGrid g = gh_grid(3, {4, 4, 4}, {0.0, 0.3, 0.0});
    EXPECT_NO_THROW(make_velocity_blocks(g, 8, 2, {true, false, true}));
    try {
        make_velocity_blocks(g, 8, 2, {true, true, false});
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("not symmetric about u_y = 0"), std::string::npos) << msg;
        EXPECT_NE(msg.find("has no mirror image"), std::string::npos) << msg;
    }
    // A point file with an unpaired point.
    VelocityGrid f;
    f.dim = 1;
    f.u = {{-1, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    f.w = {1, 1, 1};
    f.counts = {3, 1, 1};
    try {
        make_velocity_blocks(f, 2, 1, {true, false, false});
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("u_x = 0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("velocity 2 = (2, 0, 0)"), std::string::npos)
            << e.what();
    }
    // Mirror point present but with another weight.
    f.u[2] = {0, 0, 0};
    f.w = {1, 2, 1};
    EXPECT_THROW(make_velocity_blocks(f, 2, 1, {true, false, false}), InputError);
    // Two points closer than the matching tolerance cannot be paired.
    f.u = {{-1, 0, 0}, {1, 0, 0}, {1 + 1e-12, 0, 0}};
    f.w = {1, 1, 1};
    try {
        make_velocity_blocks(f, 2, 1, {true, false, false});
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("velocities 1 and 2 coincide"), std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(make_velocity_blocks(f, 2, 1, {false, false, false}));
}

TEST(VelocityBlocks, HalfRangeAndNonuniformGridsHaveMirrorPairs) {
    std::array<std::vector<double>, 3> x, w;
    for (int d = 0; d < 3; ++d) half_range_gauss_hermite_1d(d == 0 ? 8 : 6, 1.0, 0.0, x[d], w[d]);
    const VelocityGrid hr = make_tensor_velocity_grid(3, x, w, "half_range_gauss_hermite");
    for (int P = 1; P <= 5; ++P)
        check_blocks(hr, make_velocity_blocks(hr, 16, P, {true, true, true}), 16, P,
                     {true, true, true}, "half-range P=" + std::to_string(P));
    const VelocityGrid nu = make_nonuniform_velocity_grid(
        3, {-10.6, -10.6, -10.6}, {14.5, 10.6, 10.6}, {{3.9, 0, 0}, {0, 0, 0}}, 1.0, 2000);
    for (int P : {1, 3, 4})
        check_blocks(nu, make_velocity_blocks(nu, 64, P, {false, true, true}), 64, P,
                     {false, true, true}, "nonuniform P=" + std::to_string(P));
    EXPECT_THROW(make_velocity_blocks(nu, 64, 2, {true, false, false}),
                 InputError);  // x range not symmetric
}

TEST(VelocityBlocks, BlockSumsEqualGridSums) {
    // Any velocity sum is additive over blocks: sum over slots == sum over the grid (padding w =
    // 0).
    const VelocityGrid g = gh_grid(3, {7, 6, 5});
    const VelocityBlocks vb = make_velocity_blocks(g, 16, 3, {false, true, true});
    double s_grid = 0, s_blocks = 0;
    for (index_t k = 0; k < g.size(); ++k)
        s_grid += g.w[k] * std::exp(-(g.u[k][0] - 0.3) * (g.u[k][0] - 0.3));
    for (int q = 0; q < 3; ++q) {
        int first, count;
        vb.range(q, first, count);
        for (index_t s = index_t(first) * 16; s < index_t(first + count) * 16; ++s)
            s_blocks += vb.w[s] * std::exp(-(vb.u[s][0] - 0.3) * (vb.u[s][0] - 0.3));
    }
    EXPECT_NEAR(s_blocks, s_grid, 1e-13 * s_grid);
}

}  // namespace
}  // namespace ugks

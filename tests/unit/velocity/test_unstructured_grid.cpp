// Unstructured (non-tensor) velocity sets: moments of the Maxwellians they are built for, positive
// weights, point count, determinism, mirror symmetry, errors (its `velocity` keys:
// test_velocity_config.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

#define EXPECT_HAS(msg, part) EXPECT_NE(std::string(msg).find(part), std::string::npos) << (msg)

constexpr double kPi = 3.14159265358979323846;

// Mach 8 free stream of a monatomic gas at T = 1 (U = 8 sqrt(5/6), nondimensional units) and the
// stagnation (wall) Maxwellian at rest at T = 5.4.
const double kUinf = 8 * std::sqrt(5.0 / 6.0);
const std::vector<VelocityMaxwellian> kMach8{{{kUinf, 0, 0}, 1.0}, {{0, 0, 0}, 5.4}};

double maxwellian(int dim, const VelocityMaxwellian& M, const Vec3& u) {
    double r2 = 0;
    for (int d = 0; d < dim; ++d) r2 += (u[d] - M.U[d]) * (u[d] - M.U[d]);
    return std::exp(-r2 / M.T) / std::pow(kPi * M.T, 0.5 * dim);
}

// The moments the grid must integrate: 1, u_i, u_i u_j (i <= j), |u|^2 u_i, |u|^4.
std::vector<double> moment_functions(int dim, const Vec3& u) {
    double u2 = 0;
    for (int d = 0; d < dim; ++d) u2 += u[d] * u[d];
    std::vector<double> p{1.0};
    for (int i = 0; i < dim; ++i) p.push_back(u[i]);
    for (int i = 0; i < dim; ++i)
        for (int j = i; j < dim; ++j) p.push_back(u[i] * u[j]);
    for (int i = 0; i < dim; ++i) p.push_back(u2 * u[i]);
    p.push_back(u2 * u2);
    return p;
}

// Reference moments by a tensor Gauss-Hermite rule centred on the Maxwellian (12 points per axis:
// exact for the Maxwellian times any polynomial of degree <= 23), independent of the generator.
std::vector<double> reference_moments(int dim, const VelocityMaxwellian& M) {
    std::array<std::vector<double>, 3> x, w;
    for (int d = 0; d < dim; ++d) gauss_hermite_1d(12, std::sqrt(M.T), M.U[d], x[d], w[d]);
    const VelocityGrid gh = make_tensor_velocity_grid(dim, x, w, "gauss_hermite");
    std::vector<double> sum;
    for (index_t k = 0; k < gh.size(); ++k) {
        const auto p = moment_functions(dim, gh.u[k]);
        sum.resize(p.size(), 0.0);
        for (std::size_t c = 0; c < p.size(); ++c)
            sum[c] += gh.w[k] * maxwellian(dim, M, gh.u[k]) * p[c];
    }
    return sum;
}

// Largest |sum_k w_k M(u_k) phi(u_k) - exact| / sum_k w_k M(u_k) |phi(u_k)| over the moments.
double moment_error(const VelocityGrid& g, const VelocityMaxwellian& M) {
    const std::vector<double> exact = reference_moments(g.dim, M);
    std::vector<double> sum(exact.size(), 0.0), mag(exact.size(), 0.0);
    for (index_t k = 0; k < g.size(); ++k) {
        const auto p = moment_functions(g.dim, g.u[k]);
        const double f = g.w[k] * maxwellian(g.dim, M, g.u[k]);
        for (std::size_t c = 0; c < p.size(); ++c) {
            sum[c] += f * p[c];
            mag[c] += std::fabs(f * p[c]);
        }
    }
    double err = 0;
    for (std::size_t c = 0; c < exact.size(); ++c)
        err = std::max(err, std::fabs(sum[c] - exact[c]) / mag[c]);
    return err;
}

struct GridCase {
    const char* name;
    int dim;
    std::vector<VelocityMaxwellian> maxwellians;
    index_t target;
};

std::vector<GridCase> grid_cases() {
    const double a = 20 * kPi / 180;  // angle of attack
    return {
        {"3D Mach 8 along x, 2000", 3, kMach8, 2000},
        {"3D Mach 8 along x, 20000", 3, kMach8, 20000},
        {"3D Mach 8 at 20 deg, 5000",
         3,
         {{{kUinf * std::cos(a), 0, kUinf * std::sin(a)}, 1.0}, {{0, 0, 0}, 5.4}},
         5000},
        {"2D Mach 8 at 20 deg, 1500",
         2,
         {{{kUinf * std::cos(a), kUinf * std::sin(a), 0}, 1.0}, {{0, 0, 0}, 5.4}},
         1500},
        {"2D three Maxwellians, 3000",
         2,
         {{{3.0, -1.0, 0}, 0.5}, {{0.5, 0, 0}, 2.0}, {{-2, 2, 0}, 1.0}},
         3000},
        {"1D Mach 8, 200", 1, {{{kUinf, 0, 0}, 1.0}, {{0, 0, 0}, 5.4}}, 200},
    };
}

TEST(UnstructuredGrid, MomentsOfEveryMaxwellianAreExact) {
    for (const GridCase& s : grid_cases()) {
        UnstructuredGridInfo info;
        const VelocityGrid g =
            make_unstructured_velocity_grid(s.dim, s.maxwellians, s.target, 5.0, 0.5, &info);
        for (std::size_t a = 0; a < s.maxwellians.size(); ++a)
            EXPECT_LE(moment_error(g, s.maxwellians[a]), 1e-10) << s.name << ", Maxwellian " << a;
        EXPECT_LE(info.max_residual, 1e-12) << s.name;
    }
}

TEST(UnstructuredGrid, PositiveWeightsAndCountNearTarget) {
    for (const GridCase& s : grid_cases()) {
        UnstructuredGridInfo info;
        const VelocityGrid g =
            make_unstructured_velocity_grid(s.dim, s.maxwellians, s.target, 5.0, 0.5, &info);
        EXPECT_LE(std::llabs(g.size() - s.target), s.target / 10) << s.name << ": " << g.size();
        ASSERT_EQ(g.w.size(), g.u.size());
        for (double w : g.w) ASSERT_GT(w, 0.0) << s.name;
        EXPECT_GT(info.min_weight_ratio, 0.5) << s.name;  // a mild correction of the volumes
        EXPECT_LT(info.max_weight_ratio, 2.0) << s.name;
    }
}

TEST(UnstructuredGrid, PointListLikeAFile) {
    const VelocityGrid g = make_unstructured_velocity_grid(3, kMach8, 2000);
    EXPECT_EQ(g.kind, "unstructured");
    EXPECT_EQ(g.dim, 3);
    EXPECT_EQ(g.counts, (std::array<int, 3>{static_cast<int>(g.size()), 1, 1}));
    EXPECT_FALSE(g.is_tensor());
    for (int d = 0; d < 3; ++d) {
        EXPECT_TRUE(g.axis_nodes[d].empty());
        EXPECT_TRUE(g.axis_weights[d].empty());
    }
    // Distinct points, ordered by position (u_x slowest), inside the background box.
    EXPECT_TRUE(std::is_sorted(g.u.begin(), g.u.end()));
    EXPECT_EQ(std::adjacent_find(g.u.begin(), g.u.end()), g.u.end());
    const VelocityGrid g2 = make_unstructured_velocity_grid(2, kMach8, 800);
    for (const auto& u : g2.u) EXPECT_EQ(u[2], 0.0);
}

TEST(UnstructuredGrid, RefinedAroundBothMaxwellians) {
    UnstructuredGridInfo info;
    const VelocityGrid g = make_unstructured_velocity_grid(3, kMach8, 20000, 5.0, 0.5, &info);
    double box = 1;
    for (int d = 0; d < 3; ++d) box *= info.hi[d] - info.lo[d];
    // Points per unit volume within one thermal width sqrt(T) of each centre, against the mean.
    const double mean = static_cast<double>(g.size()) / box;
    for (const auto& M : kMach8) {
        const double r = std::sqrt(M.T);
        index_t inside = 0;
        for (const auto& u : g.u) {
            double d2 = 0;
            for (int d = 0; d < 3; ++d) d2 += (u[d] - M.U[d]) * (u[d] - M.U[d]);
            inside += d2 < r * r;
        }
        const double density = inside / (4.0 / 3.0 * kPi * r * r * r);
        EXPECT_GT(density, 8 * mean / M.T) << "T = " << M.T;
    }
    // Finer around the narrow free-stream Maxwellian than around the wide wall one.
    EXPECT_GE(info.max_level, 4);
    // The box covers both Maxwellians to 5 sqrt(T).
    EXPECT_LE(info.lo[0], -5 * std::sqrt(5.4));
    EXPECT_GE(info.hi[0], kUinf + 5.0);
    EXPECT_LE(info.lo[1], -5 * std::sqrt(5.4));
}

TEST(UnstructuredGrid, Deterministic) {
    const VelocityGrid a = make_unstructured_velocity_grid(3, kMach8, 5000);
    const VelocityGrid b = make_unstructured_velocity_grid(3, kMach8, 5000);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a.u, b.u);  // bit for bit, same order
    EXPECT_EQ(a.w, b.w);
}

TEST(UnstructuredGrid, ExactMirrorPairsOnAxesWhereBothCentresAreZero) {
    UnstructuredGridInfo info;
    const VelocityGrid g = make_unstructured_velocity_grid(3, kMach8, 3000, 5.0, 0.5, &info);
    EXPECT_EQ(info.mirror, (std::array<bool, 3>{false, true, true}));
    std::map<Vec3, double> weight;
    for (index_t k = 0; k < g.size(); ++k) weight[g.u[k]] = g.w[k];
    for (index_t k = 0; k < g.size(); ++k)
        for (int d : {1, 2}) {
            Vec3 r = g.u[k];
            r[d] = -r[d];
            const auto it = weight.find(r);
            ASSERT_NE(it, weight.end()) << "point " << k << " has no exact mirror about u_" << d;
            EXPECT_EQ(it->second, g.w[k]) << k;
        }
    // Symmetry planes normal to y and z keep their mirror pairs on one rank; x has none.
    const VelocityBlocks blocks = make_velocity_blocks(g, 64, 3, {false, true, true});
    EXPECT_EQ(blocks.mirror[1].size(), blocks.order.size());
    try {
        make_velocity_blocks(g, 64, 1, {true, false, false});
        ADD_FAILURE() << "no error for a plane normal to x";
    } catch (const InputError& e) {
        EXPECT_HAS(e.what(), "not symmetric about u_x = 0");
        EXPECT_HAS(e.what(), "when every Maxwellian has U_x = 0");
    }
}

std::string generator_error(int dim, const std::vector<VelocityMaxwellian>& M, index_t target,
                            double extent = 5.0, double growth = 0.5) {
    try {
        make_unstructured_velocity_grid(dim, M, target, extent, growth);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(UnstructuredGrid, InvalidArguments) {
    EXPECT_HAS(generator_error(4, kMach8, 1000), "dim must be 1, 2 or 3");
    EXPECT_HAS(generator_error(3, {}, 1000), "1 to 4 Maxwellians, got 0");
    EXPECT_HAS(generator_error(3, std::vector<VelocityMaxwellian>(5), 1000), "got 5");
    EXPECT_HAS(generator_error(3, {{{0, 0, 0}, 0.0}}, 1000), "T must be finite and > 0");
    EXPECT_HAS(generator_error(3, {{{0, 0, 0}, 1.0}, {{0, 0, 0}, 1.0}}, 1000),
               "Maxwellians 0 and 1 are equal");
    EXPECT_HAS(generator_error(2, {{{1, 0, 0.5}, 1.0}}, 1000), "U component 2 must be 0");
    EXPECT_HAS(generator_error(3, kMach8, 1000, 1.0), "extent must be in [2, 20]");
    EXPECT_HAS(generator_error(3, kMach8, 1000, 5.0, 0.0), "growth must be in (0, 10]");
    EXPECT_HAS(generator_error(3, kMach8, 99), "target_points must be >= 100");
    // Too few points for the free-stream Maxwellian: the constraints cannot be met.
    EXPECT_HAS(generator_error(3, kMach8, 250), "raise velocity.target_points");
    // Enough for the constraints, but only with weights far from the cell volumes (2e-5 to 8):
    // under-resolved, refused too.
    EXPECT_HAS(generator_error(3, kMach8, 350), "the cells are too coarse");
}

}  // namespace
}  // namespace ugks

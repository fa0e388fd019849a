// Velocity point files, nonuniform tensor grids and build_velocity_grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

// The InputError message of read_velocity_file for `text` ("" when it did not throw).
std::string file_error(const std::string& text, int dim, std::string& path) {
    static int count = 0;
    path = test::temp_dir("velfile") + "/v" + std::to_string(count++) + ".dat";
    test::write_file(path, text);
    try {
        read_velocity_file(path, dim);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE(std::string(msg).find(part), std::string::npos) << (msg)

TEST(VelocityFile, ReadsPointsWithCommentsAndBlankLines) {
    const std::string path = test::temp_dir("velfile") + "/ok.dat";
    test::write_file(path,
                     "# u_x u_y w\n"
                     "\n"
                     "-1.5  0.25  0.5   # first\n"
                     "   2e-1 -3   1.25\n"
                     "\t\n"
                     "0 0 2\n");
    const VelocityGrid g = read_velocity_file(path, 2);
    EXPECT_EQ(g.dim, 2);
    EXPECT_EQ(g.kind, "file");
    ASSERT_EQ(g.size(), 3);
    EXPECT_EQ(g.u[0], (Vec3{-1.5, 0.25, 0}));
    EXPECT_EQ(g.u[1], (Vec3{0.2, -3, 0}));
    EXPECT_EQ(g.u[2], (Vec3{0, 0, 0}));
    EXPECT_EQ(g.w, (std::vector<double>{0.5, 1.25, 2}));
    EXPECT_EQ(g.counts, (std::array<int, 3>{3, 1, 1}));
    EXPECT_FALSE(g.is_tensor());
}

TEST(VelocityFile, ErrorsNameFileAndLine) {
    std::string path, msg;
    msg = file_error("# header\n0 0 1\n0.5 abc 1\n", 2, path);
    EXPECT_HAS(msg, path + ":3:");
    EXPECT_HAS(msg, "'abc' is not a number");

    msg = file_error("0 0 1\n\n1 1\n", 2, path);
    EXPECT_HAS(msg, path + ":3:");
    EXPECT_HAS(msg, "expected 3 columns (u_x u_y w)");
    EXPECT_HAS(msg, "got 2");

    msg = file_error("0 1\n1 1 1\n", 1, path);
    EXPECT_HAS(msg, path + ":2:");
    EXPECT_HAS(msg, "expected 2 columns");

    msg = file_error("0 0 0 1\n1 0 0 0\n", 3, path);
    EXPECT_HAS(msg, path + ":2:");
    EXPECT_HAS(msg, "weight must be > 0, got 0");

    msg = file_error("0 0 0 1\n1 0 0 -2.5\n", 3, path);
    EXPECT_HAS(msg, path + ":2: weight must be > 0, got -2.5");

    msg = file_error("0 0 1\n1 0 1\n# c\n1 0 2\n", 2, path);
    EXPECT_HAS(msg, path + ":4: duplicate velocity point (same as line 2)");

    msg = file_error("0 inf 1\n", 2, path);
    EXPECT_HAS(msg, path + ":1:");

    msg = file_error("0 1.5x 1\n", 2, path);
    EXPECT_HAS(msg, "'1.5x' is not a number");

    msg = file_error("# nothing\n\n", 2, path);
    EXPECT_HAS(msg, path + ":2: no velocity points");

    try {
        read_velocity_file("/nonexistent/dir/v.dat", 2);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_HAS(e.what(), "velocity file '/nonexistent/dir/v.dat' does not exist");
    }
}

// ---- nonuniform ---------------------------------------------------------------------------------

// The sphere case (seed section 3.3): Ma 4.25, U_inf ~ 3.9, T_max/T_inf ~ 7 -> range +-4 sqrt(7)
// around.
const std::array<double, 3> kLo{-10.6, -10.6, -10.6}, kHi{14.5, 10.6, 10.6};
const std::vector<Vec3> kCentres{{3.9, 0, 0}, {0, 0, 0}};

TEST(NonuniformGrid, SphereCaseCountVolumeAndSpacing) {
    const index_t target = 18800;
    const VelocityGrid g = make_nonuniform_velocity_grid(3, kLo, kHi, kCentres, 1.0, target);
    EXPECT_EQ(g.kind, "nonuniform");
    EXPECT_EQ(g.size(), index_t(g.counts[0]) * g.counts[1] * g.counts[2]);
    EXPECT_LE(std::llabs(g.size() - target), target / 10) << g.size();
    double volume = 0;
    for (double w : g.w) volume += w;
    const double box = (kHi[0] - kLo[0]) * (kHi[1] - kLo[1]) * (kHi[2] - kLo[2]);
    EXPECT_NEAR(volume, box, 1e-12 * box);

    for (int d = 0; d < 3; ++d) {
        const auto& x = g.axis_nodes[d];
        const auto& w = g.axis_weights[d];
        // Midpoint rule: nodes at the centres of cells that tile [lo, hi].
        double face = kLo[d];
        for (std::size_t i = 0; i < x.size(); ++i) {
            EXPECT_NEAR(x[i], face + w[i] / 2, 1e-12) << d << " " << i;
            face += w[i];
        }
        EXPECT_NEAR(face, kHi[d], 1e-12);
        const double hmin = *std::min_element(w.begin(), w.end());
        const double hmax = *std::max_element(w.begin(), w.end());
        EXPECT_GT(hmax, 3 * hmin) << d;  // stretched
        // The cell holding each centre coordinate has the minimum spacing.
        std::vector<double> cs{0.0};
        if (d == 0) cs.push_back(3.9);
        for (double c : cs) {
            std::size_t i = 0;
            while (i + 1 < x.size() && x[i] + w[i] / 2 < c) ++i;
            EXPECT_NEAR(w[i], hmin, 1e-9 * hmin) << "axis " << d << " centre " << c;
        }
    }
    // y: exactly antisymmetric (mirror pairs exist), spacing non-decreasing away from 0.
    const auto& y = g.axis_nodes[1];
    const auto& wy = g.axis_weights[1];
    const std::size_t ny = y.size();
    for (std::size_t i = 0; i < ny; ++i) {
        EXPECT_EQ(y[i], -y[ny - 1 - i]);
        EXPECT_EQ(wy[i], wy[ny - 1 - i]);
    }
    for (std::size_t i = ny / 2 + 1; i < ny; ++i) EXPECT_GE(wy[i], wy[i - 1] * (1 - 1e-12)) << i;
    // The edge cell has the desired spacing h0 (1 + growth (t - width)) at its centre (default
    // growth).
    const double h0 = *std::min_element(wy.begin(), wy.end());
    EXPECT_NEAR(wy[ny - 1], h0 * (1 + 0.25 * (y[ny - 1] - 1.0)), 0.02 * wy[ny - 1]);
}

TEST(NonuniformGrid, OneDimensionHitsTheTargetAndUniformWithoutCentres) {
    const VelocityGrid g1 =
        make_nonuniform_velocity_grid(1, {-5, 0, 0}, {7, 0, 0}, {{1.0, 0, 0}}, 0.5, 37);
    EXPECT_EQ(g1.size(), 37);
    EXPECT_EQ(g1.counts, (std::array<int, 3>{37, 1, 1}));
    for (const auto& u : g1.u) EXPECT_EQ(u[1], 0.0);

    const VelocityGrid g2 = make_nonuniform_velocity_grid(2, {-2, -3, 0}, {2, 3, 0}, {}, 1.0, 600);
    EXPECT_LE(std::llabs(g2.size() - 600), 60);
    for (int d = 0; d < 2; ++d) {
        const double h = (d == 0 ? 4.0 : 6.0) / g2.counts[d];
        for (double w : g2.axis_weights[d]) EXPECT_NEAR(w, h, 1e-12);
    }
    // Uniform spacing: about the same in both axes, so counts in the ratio of the ranges.
    EXPECT_NEAR(double(g2.counts[1]) / g2.counts[0], 1.5, 0.1);
}

// Density of the Maxwellian rho = 1, U, T on a grid (D = g.dim).
double density(const VelocityGrid& g, const Vec3& U, double T) {
    const double pi = std::acos(-1.0);
    double rho = 0;
    for (index_t k = 0; k < g.size(); ++k) {
        double c2 = 0;
        for (int d = 0; d < g.dim; ++d) c2 += std::pow(g.u[k][d] - U[d], 2);
        rho += g.w[k] * std::pow(pi * T, -g.dim / 2.0) * std::exp(-c2 / T);
    }
    return rho;
}

TEST(NonuniformGrid, MidpointRuleConvergesAtSecondOrder) {
    // Doubling the points halves every cell (fixed spacing shape): error ratio -> 4.
    for (double T : {1.0, 7.0}) {
        std::vector<double> err;
        for (index_t n : {40, 80, 160, 320}) {
            const VelocityGrid g = make_nonuniform_velocity_grid(1, {-10.6, 0, 0}, {14.5, 0, 0},
                                                                 {{3.9, 0, 0}, {0, 0, 0}}, 1.0, n);
            ASSERT_EQ(g.size(), n);
            err.push_back(std::fabs(density(g, {0.3, 0, 0}, T) - 1));
        }
        for (std::size_t i = 1; i < err.size(); ++i) {
            EXPECT_GT(err[i - 1] / err[i], 3.5) << "T=" << T << " " << i;
            EXPECT_LT(err[i - 1] / err[i], 4.5) << "T=" << T << " " << i;
        }
    }
}

TEST(NonuniformGrid, SphereCaseMaxwellians) {
    // Width 2 (about 2 sqrt(T_inf)): the free-stream Maxwellian lies on the uniform part.
    const VelocityGrid g = make_nonuniform_velocity_grid(3, kLo, kHi, kCentres, 2.0, 18800);
    EXPECT_NEAR(density(g, {3.9, 0, 0}, 1.0), 1.0, 1e-3);  // measured 3.6e-4
    EXPECT_NEAR(density(g, {0, 0, 0}, 7.0), 1.0, 1e-2);    // measured 4.8e-3
}

TEST(NonuniformGrid, BadArgumentsThrow) {
    EXPECT_THROW(make_nonuniform_velocity_grid(3, kLo, kHi, kCentres, 0.0, 1000), InputError);
    EXPECT_THROW(make_nonuniform_velocity_grid(3, kLo, kHi, kCentres, 1.0, 0), InputError);
    EXPECT_THROW(make_nonuniform_velocity_grid(3, kLo, kHi, kCentres, 1.0, 1000, -0.1), InputError);
    EXPECT_THROW(make_nonuniform_velocity_grid(3, kLo, {14.5, -10.6, 10.6}, kCentres, 1.0, 1000),
                 InputError);
    EXPECT_THROW(make_nonuniform_velocity_grid(4, kLo, kHi, kCentres, 1.0, 1000), InputError);
}

// ---- build_velocity_grid
// ---------------------------------------------------------------------------

TEST(BuildVelocityGrid, EveryType) {
    VelocityConfig vc;
    vc.dim = 2;
    vc.counts = {6, 4, 1};
    vc.scale = {1.5, 0.5, 1};
    vc.offset = {0.25, 0, 0};
    VelocityGrid g = build_velocity_grid(vc);
    EXPECT_EQ(g.kind, "gauss_hermite");
    EXPECT_EQ(g.counts, (std::array<int, 3>{6, 4, 1}));
    std::vector<double> x, w;
    gauss_hermite_1d(6, 1.5, 0.25, x, w);
    EXPECT_EQ(g.axis_nodes[0], x);
    EXPECT_EQ(g.u[5 * 4 + 3][0], x[5]);

    vc.type = "half_range_gauss_hermite";
    g = build_velocity_grid(vc);
    EXPECT_EQ(g.size(), 24);
    half_range_gauss_hermite_1d(4, 0.5, 0, x, w);
    EXPECT_EQ(g.axis_nodes[1], x);

    vc.type = "newton_cotes";
    vc.counts = {5, 9, 1};
    vc.lo = {-1, -2, 0};
    vc.hi = {1, 2, 0};
    g = build_velocity_grid(vc);
    EXPECT_EQ(g.size(), 45);
    double s = 0;
    for (double wk : g.w) s += wk;
    EXPECT_NEAR(s, 8.0, 1e-14);

    vc.type = "nonuniform";
    vc.refine_centres = {{0.5, 0, 0}};
    vc.target_points = 200;
    g = build_velocity_grid(vc);
    EXPECT_EQ(g.kind, "nonuniform");
    EXPECT_LE(std::llabs(g.size() - 200), 20);

    vc.type = "file";
    vc.file = test::temp_dir("velbuild") + "/v.dat";
    test::write_file(vc.file, "0 0 1\n1 0 1\n");
    g = build_velocity_grid(vc);
    EXPECT_EQ(g.size(), 2);

    vc.type = "lattice";
    EXPECT_THROW(build_velocity_grid(vc), InputError);
}

}  // namespace
}  // namespace ugks

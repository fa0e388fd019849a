// Periodic boundaries (issue 3): partner patches joined into interior faces whose neighbour is
// seen at its translated image (Mesh::face_shift).
//  - a uniform moving gas stays uniform through periodic faces (also periodic x + symmetry y);
//  - a fully periodic box has no boundary flux at all: mass, both momentum components and energy
//    are constant to round-off while a block of dense, hot gas moves and spreads;
//  - translation equivariance: the same block started 7 cells further along x (wrapping across the
//    periodic faces) gives the same fields, translated; this is what a wrong image position (shift
//    sign, missing shift in the least squares or the limiter) breaks, since the reconstruction at
//    the seam would then differ from the one in the interior;
//  - 2 cells across a periodic direction (each cell neighbours the other through two faces) gives
//    the same x-independent solution as 5 cells across;
//  - a shear wave across periodic faces decays at the Navier-Stokes rate nu k^2 (second-order
//    convergence of the rate with the number of cells).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "regression_util.hpp"
#include "ugks/physics/gas.hpp"

namespace {

using namespace ugks::regression;

constexpr int kN = 3;  // N = 3 + K_int, monatomic

// Largest deviation of rho, U, T from the uniform state (rho 1, T 1, U).
double uniform_deviation(const Fields& f, double Ux, double Uy) {
    double d = 0;
    for (std::size_t i = 0; i < f.n; ++i) {
        d = std::max(d, std::abs(f.rho[i] - 1.0));
        d = std::max(d, std::abs(f.T[i] - 1.0));
        d = std::max(d, std::abs(f.U[3 * i] - Ux));
        d = std::max(d, std::abs(f.U[3 * i + 1] - Uy));
        d = std::max(d, std::abs(f.U[3 * i + 2]));
    }
    return d;
}

// Why 1e-12 (uniform flow): in a uniform state every face of one orientation computes the same
// flux from the same inputs, periodic faces included (their inputs are the same cell values and
// the same geometry, seen through the shift), so each cell's net flux cancels to round-off; with
// symmetry planes the reflected half is exact on the mirror-closed grid. 200 steps of ~1e-16
// errors stay far below 1e-12. A periodic face joined to the wrong cell, a missing or duplicated
// face in a cell's list or a lost flux at the seam gives O(dt U / dx) ~ 1e-2 after one step.
TEST(Periodic, UniformFlowStaysUniform) {
    struct C {
        const char* name;
        double Ux, Uy;
        std::vector<std::string> ov;
    };
    const C cases[] = {{"periodic x and y", 0.3, -0.2, {}},
                       {"periodic x, symmetry y",
                        0.3,
                        0.0,
                        {"boundaries.ymin={type: symmetry}", "boundaries.ymax={type: symmetry}"}}};
    for (const C& c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<std::string> ov = c.ov;
        ov.push_back("initial.regions=[]");
        ov.push_back("initial.U=[" + std::to_string(c.Ux) + ", " + std::to_string(c.Uy) + "]");
        ov.push_back("time.steps=200");
        const SolverRun run = run_solver(case_file("periodic"), ov, "periodic_uniform");
        ASSERT_TRUE(run_completed(run, 200));
        const Fields f = read_fields(run.dir);
        ASSERT_EQ(f.n, 120u);
        const double d = uniform_deviation(f, c.Ux, c.Uy);
        EXPECT_LE(d, 1e-12);
        if (world_rank() == 0)
            std::printf("periodic uniform flow (%s): max deviation %.2e\n", c.name, d);
        if (!::testing::Test::HasFailure()) remove_output(run.dir);
    }
}

// Totals of the initial state of case.yaml: the block (rho 2, T 1.5, U (0, 0.2)) in
// [0.2, 0.6] x [0.3, 0.8], (rho 1, T 1, U (0.3, -0.1)) elsewhere; volume 0.01 per cell.
std::array<double, 5> initial_totals(const Fields& f) {
    std::array<double, 5> s{0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < f.n; ++i) {
        const bool in =
            f.x(i, 0) >= 0.2 && f.x(i, 0) <= 0.6 && f.x(i, 1) >= 0.3 && f.x(i, 1) <= 0.8;
        const double rho = in ? 2.0 : 1.0, T = in ? 1.5 : 1.0;
        const double Ux = in ? 0.0 : 0.3, Uy = in ? 0.2 : -0.1;
        const double V = f.volume[i];
        s[0] += V * rho;
        s[1] += V * rho * Ux;
        s[2] += V * rho * Uy;
        s[4] += V * (0.5 * rho * (Ux * Ux + Uy * Uy) + 0.25 * kN * rho * T);
    }
    return s;
}

// Why 1e-12: a fully periodic box has interior faces only; each face flux is added to one cell
// and subtracted from the other, so the totals change by summation round-off alone, ~1e-16 per
// cell and step, 120 cells x 200 steps ~ 2e-12 in the very worst (all errors of one sign) case and
// ~1e-14 typically (measured: see the printed drift). A periodic face whose flux reaches only one
// side, or is counted twice, changes the totals by ~ dt S F / M ~ 1e-3 per step.
TEST(Periodic, FullyPeriodicBoxConservesMassMomentumEnergy) {
    const SolverRun run =
        run_solver(case_file("periodic"), {"time.steps=200"}, "periodic_conservation");
    ASSERT_TRUE(run_completed(run, 200));
    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, 120u);
    const auto t0 = initial_totals(f);
    const auto t1 = totals(f, kN);
    ASSERT_NEAR(t0[0], 1.4, 1e-12);  // 100 cells of rho 1 and 20 of rho 2, 0.01 each
    double drift = 0;
    for (int e : {0, 1, 2, 4}) {
        const double rel = std::abs(t1[e] / t0[e] - 1.0);
        EXPECT_LE(rel, 1e-12) << "total "
                              << (e == 0   ? "mass"
                                  : e == 4 ? "energy"
                                           : "momentum")
                              << " component " << e;
        drift = std::max(drift, rel);
    }
    EXPECT_LE(std::abs(t1[3]), 1e-15);  // no z motion in a 2D velocity space
    // Not trivially frozen: the block has moved and spread (initially rho = 2 in it).
    double rho_max = 0;
    for (double r : f.rho) rho_max = std::max(rho_max, r);
    EXPECT_LT(rho_max, 1.8);
    EXPECT_GT(rho_max, 1.05);
    if (world_rank() == 0)
        std::printf("periodic conservation: largest relative drift of the totals %.2e\n", drift);
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

// Why 1e-12: the translated run computes the same operations on the same values (the geometry
// differs only by the round-off of the node coordinates, 1e-16, and the face order in the sums),
// so the fields agree to round-off after 60 steps (measured ~1e-15). With the neighbour image at
// the wrong place (no shift, or the wrong sign) the least-squares gradients of the cells at the
// seam change by O(1), which moves the fields by ~1e-3.
TEST(Periodic, TranslatedStartGivesTranslatedFields) {
    const std::vector<std::string> common = {"time.steps=60"};
    std::vector<std::string> ov_a = common, ov_b = common;
    // The block moved by 0.7 (7 cells) in x: [0.9, 1.3] wraps to [0.9, 1.2] and [0, 0.1].
    ov_b.push_back(
        "initial.regions=[{lo: [0.9, 0.3], hi: [1.2, 0.8], rho: 2.0, T: 1.5, U: [0.0, 0.2]}, "
        "{lo: [0.0, 0.3], hi: [0.1, 0.8], rho: 2.0, T: 1.5, U: [0.0, 0.2]}]");
    const SolverRun a = run_solver(case_file("periodic"), ov_a, "periodic_translate_a");
    const SolverRun b = run_solver(case_file("periodic"), ov_b, "periodic_translate_b");
    ASSERT_TRUE(run_completed(a, 60));
    ASSERT_TRUE(run_completed(b, 60));
    const Fields fa = read_fields(a.dir), fb = read_fields(b.dir);
    ASSERT_EQ(fa.n, 120u);
    ASSERT_EQ(fb.n, 120u);
    // b's cell at x corresponds to a's cell at x - 0.7 (mod 1.2), same y.
    std::vector<double> ra, rb, ua, ub, ta, tb;
    for (std::size_t i = 0; i < fb.n; ++i) {
        double xa = fb.x(i, 0) - 0.7;
        if (xa < 0) xa += 1.2;
        std::size_t j = fa.n;
        for (std::size_t k = 0; k < fa.n; ++k)
            if (std::abs(fa.x(k, 0) - xa) < 1e-9 && std::abs(fa.x(k, 1) - fb.x(i, 1)) < 1e-9) j = k;
        ASSERT_LT(j, fa.n) << "no cell at x = " << xa;
        ra.push_back(fa.rho[j]), rb.push_back(fb.rho[i]);
        ta.push_back(fa.T[j]), tb.push_back(fb.T[i]);
        for (int d = 0; d < 2; ++d) ua.push_back(fa.U[3 * j + d]), ub.push_back(fb.U[3 * i + d]);
    }
    const double d_rho = max_rel_diff(rb, ra), d_U = max_rel_diff(ub, ua),
                 d_T = max_rel_diff(tb, ta);
    EXPECT_LE(d_rho, 1e-12);
    EXPECT_LE(d_U, 1e-12);
    EXPECT_LE(d_T, 1e-12);
    // The state is far from uniform, so equality is not trivial.
    EXPECT_GT(*std::max_element(ra.begin(), ra.end()) - *std::min_element(ra.begin(), ra.end()),
              0.1);
    if (world_rank() == 0)
        std::printf("periodic translation: max relative differences rho %.2e, U %.2e, T %.2e\n",
                    d_rho, d_U, d_T);
    if (!::testing::Test::HasFailure()) {
        remove_output(a.dir);
        remove_output(b.dir);
    }
}

// Why 1e-12: with a state that does not depend on x, both x faces of a cell carry the same flux,
// whatever the number of cells across, and the cells' geometry (hence the time step) is the same
// in both runs, so the fields agree to round-off. If the two faces that join the same pair of cells
// were confused (one face listed twice), a cell would get twice the flux of one face instead of
// the difference of two equal ones: an O(dt U / dx) error at the first step.
TEST(Periodic, TwoCellsAcrossMatchFiveCellsAcross) {
    const std::vector<std::string> common = {
        "time.steps=60",
        "initial.regions=[{lo: [-1, 0.3], hi: [2, 0.6], rho: 1.6, T: 1.3, U: [0.1, 0.15]}]"};
    std::vector<std::string> ov2 = common, ov5 = common;
    ov2.push_back("mesh.box.cells=[2, 10]");
    ov2.push_back("mesh.box.hi=[0.2, 1.0]");
    ov5.push_back("mesh.box.cells=[5, 10]");
    ov5.push_back("mesh.box.hi=[0.5, 1.0]");
    const SolverRun r2 = run_solver(case_file("periodic"), ov2, "periodic_two_across");
    const SolverRun r5 = run_solver(case_file("periodic"), ov5, "periodic_five_across");
    ASSERT_TRUE(run_completed(r2, 60));
    ASSERT_TRUE(run_completed(r5, 60));
    const Fields f2 = read_fields(r2.dir), f5 = read_fields(r5.dir);
    ASSERT_EQ(f2.n, 20u);
    ASSERT_EQ(f5.n, 50u);
    double d = 0, spread = 0;
    for (std::size_t i = 0; i < f5.n; ++i) {
        std::size_t j = f2.n;
        for (std::size_t k = 0; k < f2.n; ++k)
            if (std::abs(f2.x(k, 1) - f5.x(i, 1)) < 1e-9) j = k;
        ASSERT_LT(j, f2.n);
        d = std::max(d, std::abs(f5.rho[i] - f2.rho[j]));
        d = std::max(d, std::abs(f5.T[i] - f2.T[j]));
        for (int c = 0; c < 2; ++c) d = std::max(d, std::abs(f5.U[3 * i + c] - f2.U[3 * j + c]));
        spread = std::max(spread, std::abs(f5.rho[i] - 1.0));
    }
    EXPECT_LE(d, 1e-12);
    EXPECT_GT(spread, 0.05);  // the band is still there
    if (world_rank() == 0) std::printf("periodic 2 vs 5 cells across: max difference %.2e\n", d);
    if (!::testing::Test::HasFailure()) {
        remove_output(r2.dir);
        remove_output(r5.dir);
    }
}

}  // namespace

namespace {

using namespace ugks::regression;

// Amplitude of the k = 2 pi / L Fourier mode of U_y over the cells (uniform cells).
double mode_amplitude(const std::vector<double>& x, const std::vector<double>& uy) {
    const double k = 2.0 * std::acos(-1.0);
    double s = 0, c = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        s += uy[i] * std::sin(k * x[i]);
        c += uy[i] * std::cos(k * x[i]);
    }
    return 2.0 * std::hypot(s, c) / static_cast<double>(x.size());
}

// Relative error of the measured decay rate of the fundamental mode against nu k^2 for a run with
// nx cells across.
double shear_rate_error(int nx) {
    const double Ly = 2.0 / nx;  // square cells, 2 across in y
    const SolverRun run = run_solver(case_file("periodic", "shear_wave.yaml"),
                                     {"mesh.box.cells=[" + std::to_string(nx) + ", 2]",
                                      "mesh.box.hi=[1.0, " + std::to_string(Ly) + "]"},
                                     "periodic_shear_" + std::to_string(nx));
    EXPECT_TRUE(run_completed(run));
    if (run.code != 0) return HUGE_VAL;
    const Fields f = read_fields(run.dir);
    std::vector<double> x, uy, u0;
    for (std::size_t i = 0; i < f.n; ++i) {
        x.push_back(f.x(i, 0));
        uy.push_back(f.U[3 * i + 1]);
        u0.push_back(f.x(i, 0) < 0.5 ? 0.05 : -0.05);  // the initial square wave
    }
    const double t = summary_time(run.dir);
    EXPECT_NEAR(t, 1.0, 1e-12);
    const double mu = ugks::mu_ref_from_kn(0.01, 1.0, 0.5);  // kn_definition hs
    const double k = 2.0 * std::acos(-1.0);
    const double rate = -std::log(mode_amplitude(x, uy) / mode_amplitude(x, u0)) / t;
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
    return rate / (mu * k * k) - 1.0;
}

// Shear-wave decay through periodic faces against the Navier-Stokes rate nu k^2. The remaining
// error is the scheme's own and converges (at least at second order) to the analytic rate: measured
// at t = 1 +23 % (20 cells), +6.2 % (40), +0.8 % (80); the kinetic correction at k lambda ~ 0.06 is
// ~1e-3.
// The test asserts < 3 % with 80 cells and an error ratio 40 -> 80 cells above 2.5 (second order
// gives ~4): a wrong image position at the seam, a lost flux or a wrong viscosity (e.g. tau off by
// 2) fails one of them by far.
TEST(Periodic, ShearWaveDecaysAtTheNavierStokesRate) {
    const double e40 = shear_rate_error(40);
    const double e80 = shear_rate_error(80);
    EXPECT_LT(std::abs(e80), 0.03);
    EXPECT_GT(std::abs(e40) / std::abs(e80), 2.5);
    if (world_rank() == 0)
        std::printf("periodic shear wave: decay rate / (nu k^2) - 1 = %.4f (40 cells), %.4f (80)\n",
                    e40, e80);
}

}  // namespace

// Sod shock tube at Kn = 1e-5 against the exact Riemann solution (issue 3, item 4).
//
// Measured quantity: L1 error of the density, sum_i |rho_i - rhobar_i| dx over [0, 1], with
// rhobar_i the exact cell average (exact_riemann.hpp integrates each smooth piece exactly), at 100
// and 200 cells. Measured (CPU solver, order 2, Venkatakrishnan): 6.22e-3 and 3.13e-3 (rate 0.99;
// 400 and 800 cells: 1.70e-3, 1.20e-3). Literature: second-order limited schemes give 5e-3 to 1e-2
// on 100 cells for this problem; a first-order scheme gives ~2e-2. Bounds: 1.3x the measured
// errors. Rates on the parts of the solution:
//  - overall ~1 (the contact smears as dx^{2/3}, the shock as dx): bound 0.8;
//  - star-state plateau left of the contact, [0.50, 0.60] (smooth): measured 2.56; bound 1.8;
//  - rarefaction interior [0.35, 0.44]: measured 0.92 (0.96 at 400-800 cells, also without limiter
//    and at CFL 0.1), because the numerical fan is centred at a slightly shifted origin: fitting
//    the exact solution with an origin shift of ~1.1 dx in x and ~1.4 dx in t removes 90 % of the
//    fan error. This O(dx) start-up error of a centred rarefaction is expected of second-order
//    schemes; bound 0.8.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exact_riemann.hpp"
#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

constexpr double kGamma = 5.0 / 3.0;  // monatomic, independent of the velocity-space dimension
const EulerState kLeft{1.0, 0.0, 0.5}, kRight{0.125, 0.0, 0.05};

struct SodResult {
    double l1 = 0, l1_fan = 0, l1_plateau = 0, t = 0;
    bool ok = false;
};

// L1 errors on [0, 1], on the fan interior [0.35, 0.44] (head at 0.317, tail at 0.476 at t = 0.2)
// and on the star plateau [0.50, 0.60] (contact at 0.619).
SodResult run_sod(int cells) {
    SodResult r;
    const SolverRun run =
        run_solver(case_file("sod"), {"mesh.box.cells=[" + std::to_string(cells) + "]"}, "sod");
    EXPECT_TRUE(run_completed(run));
    if (::testing::Test::HasFatalFailure() || run.code != 0 || summary_steps(run.dir) <= 0)
        return r;
    r.t = summary_time(run.dir);
    EXPECT_NEAR(r.t, 0.2, 1e-12) << "end_time";
    const Fields f = read_fields(run.dir);
    EXPECT_EQ(f.n, static_cast<std::size_t>(cells));
    const ExactRiemann rs(kLeft, kRight, kGamma);
    double mass = 0, mom = 0, energy = 0;
    for (std::size_t i = 0; i < f.n; ++i) {
        const double dx = f.volume[i], xc = f.x(i);
        const auto ex = rs.cell_average(xc - 0.5 * dx, xc + 0.5 * dx, r.t, 0.5);
        const double err = std::abs(f.rho[i] - ex[0]) * dx;
        r.l1 += err;
        if (xc > 0.35 && xc < 0.44) r.l1_fan += err;
        if (xc > 0.50 && xc < 0.60) r.l1_plateau += err;
        mass += f.rho[i] * dx;
        mom += f.rho[i] * f.U[3 * i] * dx;
        energy +=
            (0.5 * f.rho[i] * f.U[3 * i] * f.U[3 * i] + 1.5 * f.p[i]) * dx;  // p/(gamma-1) = 3p/2
        // p = rho T / 2 in these units.
        EXPECT_NEAR(f.p[i], 0.5 * f.rho[i] * f.T[i], 1e-13) << "cell " << i;
    }
    // Round-off balances (see the file comment): 1e-12 relative.
    EXPECT_NEAR(mass, 0.5 * (1.0 + 0.125), 1e-12) << "mass, " << cells << " cells";
    EXPECT_NEAR(energy, 0.5 * (0.75 + 0.075), 1e-12) << "energy, " << cells << " cells";
    EXPECT_NEAR(mom, (kLeft.p - kRight.p) * r.t, 1e-12) << "momentum, " << cells << " cells";
    r.ok = true;
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
    return r;
}

TEST(Sod, L1DensityErrorFallsWithResolution) {
    const SodResult a = run_sod(100);
    ASSERT_TRUE(a.ok);
    const SodResult b = run_sod(200);
    ASSERT_TRUE(b.ok);
    ::testing::Test::RecordProperty("l1_100", std::to_string(a.l1));
    ::testing::Test::RecordProperty("l1_200", std::to_string(b.l1));
    std::printf(
        "Sod L1(rho): 100 cells %.4e, 200 cells %.4e (rate %.2f); fan interior rate %.2f; plateau "
        "rate "
        "%.2f\n",
        a.l1, b.l1, std::log2(a.l1 / b.l1), std::log2(a.l1_fan / b.l1_fan),
        std::log2(a.l1_plateau / b.l1_plateau));
    EXPECT_LT(a.l1, 8.0e-3);
    EXPECT_LT(b.l1, 4.0e-3);
    EXPECT_GT(std::log2(a.l1 / b.l1), 0.8) << "overall rate";
    EXPECT_GT(std::log2(a.l1_plateau / b.l1_plateau), 1.8) << "rate on the star plateau";
    EXPECT_GT(std::log2(a.l1_fan / b.l1_fan), 0.8) << "rate in the rarefaction interior";
}

}  // namespace

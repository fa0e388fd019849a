// Sod shock tube at Kn = 1e-5 against the exact Riemann solution (issue 3, item 4).
//
// Measured quantity: L1 error of the density, sum_i |rho_i - rhobar_i| dx over [0, 1], with rhobar_i the
// exact cell average (exact_riemann.hpp integrates each smooth piece exactly), at 100 and 200 cells.
// Bounds (TODO-measure: set from the literature until the solver runs, then tighten to ~1.3x the measured
// values): second-order limited schemes give L1(rho) ~ 5e-3 to 1e-2 on 100 cells for the gamma = 1.4 Sod
// problem (Toro, ch. 14 figures; MUSCL-Hancock/HLLC tables in the literature), and the error falls at
// rate ~0.7-1 overall (the contact smears as dx^{2/3}, the shock as dx) and at rate ~2 in the interior of
// the rarefaction (smooth). A first-order or inconsistent scheme exceeds these by factors of 2-3.
//
// Exact balances (independent of the scheme's accuracy): the waves stay inside, so the zero-gradient ends
// see Maxwellians at rest: no mass or energy crosses them and the momentum grows by (p_L - p_R) t.
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
    double l1 = 0, l1_fan = 0, t = 0;
    bool ok = false;
};

// L1 errors on [0, 1] and on the fan interior [0.35, 0.44] (head at 0.317, tail at 0.476 at t = 0.2).
SodResult run_sod(int cells) {
    SodResult r;
    const SolverRun run =
        run_solver(case_file("sod"), {"mesh.box.cells=[" + std::to_string(cells) + "]"}, "sod");
    EXPECT_TRUE(run_completed(run));
    if (::testing::Test::HasFatalFailure() || run.code != 0 || summary_steps(run.dir) <= 0) return r;
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
        mass += f.rho[i] * dx;
        mom += f.rho[i] * f.U[3 * i] * dx;
        energy += (0.5 * f.rho[i] * f.U[3 * i] * f.U[3 * i] + 1.5 * f.p[i]) * dx;  // p/(gamma-1) = 3p/2
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
    std::printf("Sod L1(rho): 100 cells %.4e, 200 cells %.4e (rate %.2f); fan interior %.3e, %.3e (rate %.2f)\n",
                a.l1, b.l1, std::log2(a.l1 / b.l1), a.l1_fan, b.l1_fan, std::log2(a.l1_fan / b.l1_fan));
    // TODO-measure: literature-based bounds until the solver runs (see the file comment).
    EXPECT_LT(a.l1, 1.5e-2);
    EXPECT_LT(b.l1, 9.0e-3);
    EXPECT_GT(std::log2(a.l1 / b.l1), 0.5) << "overall rate";
    EXPECT_GT(std::log2(a.l1_fan / b.l1_fan), 1.0) << "rate in the rarefaction interior";
}

}  // namespace

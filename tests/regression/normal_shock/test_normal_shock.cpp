// Normal shock in argon at Mach 8 (issue 3, item 8): the steady end states satisfy the Rankine-Hugoniot
// relations and the density and velocity profiles are monotone through the shock.
//
// - End states: the mean of the 4 cells at each end (2 mean free paths from the boundary, > 10 mean free
//   paths from the shock, where the Ma 8 profile is flat to < 1e-4) against the Rankine-Hugoniot states,
//   and the Euler fluxes of the two measured states against each other: < 0.1 % (the bound). The
//   quadrature error of the 141-point set on these Maxwellians is < 1e-4 and the far-field ghost states
//   are exact, so a converged, consistent scheme is within ~1e-4; a non-conservative flux or a wrong
//   energy partition (h/b, N = 3) breaks the flux equality by percents.
// - Monotonicity: rho non-decreasing and U non-increasing along x, allowing steps back of 1e-4 of the jump
//   (TODO-measure; the Venkatakrishnan limiter admits tiny overshoots). An unlimited second-order scheme
//   oscillates by percents at this Mach number.
// - The shock stays in the middle of the domain ([-10, 10]), i.e. the two boundary states are mutually
//   consistent and the scheme did not drift.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "rankine_hugoniot.hpp"
#include "regression_util.hpp"
#include "ugks/core/types.hpp"
#include "ugks/io/config.hpp"

namespace {

using namespace ugks::regression;

constexpr double kGamma = 5.0 / 3.0, kMach = 8.0;

// The far-field and initial states of the case file are the Rankine-Hugoniot states (runs without the
// solver).
TEST(NormalShock, CaseFileStatesAreRankineHugoniot) {
    const ugks::Config cfg = ugks::Config::from_file(case_file("normal_shock"));
    const ShockState up = upstream_state(kMach, kGamma), dn = downstream_state(up, kGamma);
    EXPECT_NEAR(cfg.get<double>("boundaries.xmin.rho"), up.rho, 1e-14);
    EXPECT_NEAR(cfg.get<ugks::Vec3>("boundaries.xmin.U")[0], up.U, 1e-14);
    EXPECT_NEAR(cfg.get<double>("boundaries.xmin.T"), up.T, 1e-14);
    EXPECT_NEAR(cfg.get<double>("boundaries.xmax.rho"), dn.rho, 1e-14);
    EXPECT_NEAR(cfg.get<ugks::Vec3>("boundaries.xmax.U")[0], dn.U, 1e-14);
    EXPECT_NEAR(cfg.get<double>("boundaries.xmax.T"), dn.T, 1e-13);
    EXPECT_NEAR(cfg.get<double>("initial.rho"), dn.rho, 1e-14);
    EXPECT_NEAR(cfg.get<double>("initial.regions.0.rho"), up.rho, 1e-14);
    EXPECT_DOUBLE_EQ(cfg.get<double>("gas.omega"), 0.72);
}

TEST(NormalShock, MachEightEndStatesAndMonotoneProfile) {
    const SolverRun run = run_solver(case_file("normal_shock"), {}, "normal_shock");
    ASSERT_TRUE(run_completed(run));
    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, 100u);
    // Order the cells by x (the box numbering is x-ordered already; do not rely on it).
    std::vector<std::size_t> order(f.n);
    for (std::size_t i = 0; i < f.n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return f.x(a) < f.x(b); });

    const ShockState up = upstream_state(kMach, kGamma), dn = downstream_state(up, kGamma);
    auto mean_state = [&](std::size_t first, std::size_t count) {
        ShockState s{0, 0, 0};
        for (std::size_t k = first; k < first + count; ++k) {
            const std::size_t i = order[k];
            s.rho += f.rho[i] / count;
            s.U += f.U[3 * i] / count;
            s.T += f.T[i] / count;
        }
        return s;
    };
    const ShockState a = mean_state(0, 4), b = mean_state(f.n - 4, 4);
    std::printf("normal shock after %ld steps: upstream rho %.6f U %.6f T %.6f; downstream rho %.6f U %.6f "
                "T %.6f (RH: %.6f %.6f %.6f)\n",
                summary_steps(run.dir), a.rho, a.U, a.T, b.rho, b.U, b.T, dn.rho, dn.U, dn.T);
    const double tol = 1e-3;
    EXPECT_NEAR(a.rho / up.rho, 1.0, tol);
    EXPECT_NEAR(a.U / up.U, 1.0, tol);
    EXPECT_NEAR(a.T / up.T, 1.0, tol);
    EXPECT_NEAR(b.rho / dn.rho, 1.0, tol);
    EXPECT_NEAR(b.U / dn.U, 1.0, tol);
    EXPECT_NEAR(b.T / dn.T, 1.0, tol);
    const auto fa = euler_flux(a, kGamma), fb = euler_flux(b, kGamma);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(fb[k] / fa[k], 1.0, tol) << "Euler flux component " << k;

    // Monotone profiles and the shock position (where rho crosses the mean of the end densities).
    const double jump_rho = dn.rho - up.rho, jump_U = up.U - dn.U;
    double worst_rho = 0, worst_U = 0, x_mid = HUGE_VAL;
    for (std::size_t k = 1; k < f.n; ++k) {
        const std::size_t i = order[k - 1], j = order[k];
        worst_rho = std::max(worst_rho, (f.rho[i] - f.rho[j]) / jump_rho);
        worst_U = std::max(worst_U, (f.U[3 * j] - f.U[3 * i]) / jump_U);
        const double mid = 0.5 * (up.rho + dn.rho);
        if (f.rho[i] < mid && f.rho[j] >= mid)
            x_mid = f.x(i) + (mid - f.rho[i]) / (f.rho[j] - f.rho[i]) * (f.x(j) - f.x(i));
    }
    // Shock thickness by the maximum density slope, in upstream mean free paths (= length units): reported.
    double slope = 0;
    for (std::size_t k = 1; k < f.n; ++k)
        slope = std::max(slope, (f.rho[order[k]] - f.rho[order[k - 1]]) / (f.x(order[k]) - f.x(order[k - 1])));
    std::printf("normal shock: position %.3f, thickness %.3f mean free paths, largest steps back: rho %.2e, "
                "U %.2e of the jump\n", x_mid, jump_rho / slope, worst_rho, worst_U);
    EXPECT_LE(worst_rho, 1e-4) << "density must increase monotonically through the shock";
    EXPECT_LE(worst_U, 1e-4) << "velocity must decrease monotonically through the shock";
    EXPECT_GT(x_mid, -10.0);
    EXPECT_LT(x_mid, 10.0);
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

}  // namespace

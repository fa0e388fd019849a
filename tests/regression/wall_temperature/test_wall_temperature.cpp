// Wall temperature and velocity varying over a patch (issue 17): `T` and `U` components of a
// diffuse wall as expressions of the position (muParser, core/expression.hpp).
//
// ExpressionsOnPlatesEqualTheirValues: on a 1D mesh each wall is one face, so a wall temperature
// "1 + 0.02 * x" on both plates is T = 1 at x = 0 and 1.02 at x = 1, and a wall velocity
// "0.2 * x - 0.1" is -0.1 and +0.1: the runs must equal the constant-valued cases bit for bit
// (evaluation at the face centroid, the right component, no unit slip).
//
// LinearWallTemperatureConductsLikeFourier: the box of box.yaml, all four walls at
// T = 1 + 0.02 x, Kn = 0.001. The continuum solution is the linear profile with Fourier's heat
// flux q_x = -(kappa_0 / (omega + 1)) (T_2^(omega+1) - T_1^(omega+1)) (kappa = kappa_0 T^omega,
// kappa_0 = mu_ref (N + 2) / (4 Pr)), and no heat through the top and bottom walls. The scheme's
// walls carry a first-order error in this limit (the outgoing half of a wall face is the owner's
// cell value, decision U7), so the plates between x = 0 and 1 conduct like a gap shorter by about
// one cell: the 1D plates of plates.yaml at the same resolution show it (q/q_F 1.160 at 12 cells,
// 1.089 at 20, 1.015 at 80). Checked at 12 and 20 cells: the 2D centre heat flux equals the 1D
// plates' to 4.4 % and 2.2 % (measured; bounds 6 % and 3 %) and approaches Fourier with them
// (q/q_F 1.211, 1.113);
// the heat through the mid-span of the bottom and top walls (x in [0.4, 0.6]) falls with the same
// first-order wall error (measured 4.2 % and 2.4 % of q_F; bounds 6 % and 3.5 %), where constant
// wall temperatures T = 1 there take 102 % (measured at 12 cells).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

TEST(WallExpressions, ExpressionsOnPlatesEqualTheirValues) {
    const std::string plates = case_file("wall_temperature", "plates.yaml");
    const std::vector<std::string> quick = {"time.steps=60", "time.steady_tolerance=0"};
    std::vector<std::string> expr = quick;
    expr.push_back("boundaries.xmin.T=1 + 0.02 * x");
    expr.push_back("boundaries.xmax.T=1 + 0.02 * x");
    const SolverRun a = run_solver(plates, quick, "wall_T_const");
    const SolverRun b = run_solver(plates, expr, "wall_T_expr");
    ASSERT_TRUE(run_completed(a, 60));
    ASSERT_TRUE(run_completed(b, 60));
    const Fields fa = read_fields(a.dir), fb = read_fields(b.dir);
    EXPECT_EQ(fa.rho, fb.rho);
    EXPECT_EQ(fa.T, fb.T);
    EXPECT_EQ(fa.q, fb.q);
    const std::string couette = case_file("free_molecular", "couette.yaml");
    const std::vector<std::string> short_run = {"time.end_time=3"};
    std::vector<std::string> uexpr = short_run;
    uexpr.push_back("boundaries.xmin.U=[0, 0.2 * x - 0.1]");
    uexpr.push_back("boundaries.xmax.U=[0, 0.2 * x - 0.1]");
    const SolverRun c = run_solver(couette, short_run, "wall_U_const");
    const SolverRun d = run_solver(couette, uexpr, "wall_U_expr");
    ASSERT_TRUE(run_completed(c));
    ASSERT_TRUE(run_completed(d));
    const Fields fc = read_fields(c.dir), fd = read_fields(d.dir);
    EXPECT_EQ(fc.U, fd.U);
    EXPECT_EQ(fc.stress, fd.stress);
    if (!::testing::Test::HasFailure())
        for (const auto* r : {&a, &b, &c, &d}) remove_output(r->dir);
}

TEST(WallExpressions, LinearWallTemperatureConductsLikeFourier) {
    const double pi = 3.14159265358979323846;
    const double mu_ref = 5.0 * std::sqrt(pi) / 16.0 * 0.001, omega = 0.5;
    const double kappa0 = mu_ref * 5.0 / (4.0 * (2.0 / 3.0));
    const double qF = -(kappa0 / (omega + 1.0)) * (std::pow(1.02, omega + 1.0) - 1.0);
    double dev_F[2];
    const int cells[2] = {12, 20};
    for (int k = 0; k < 2; ++k) {
        const int n = cells[k];
        const std::string ns = std::to_string(n);
        const SolverRun p = run_solver(case_file("wall_temperature", "plates.yaml"),
                                       {"mesh.box.cells=[" + ns + "]"}, "plates_" + ns);
        const SolverRun b = run_solver(case_file("wall_temperature", "box.yaml"),
                                       {"mesh.box.cells=[" + ns + ", " + ns + "]"}, "box_" + ns);
        ASSERT_TRUE(run_completed(p));
        ASSERT_TRUE(run_completed(b));
        EXPECT_TRUE(read_summary(b.dir)["steady"]["converged"].get<bool>());
        const Fields fp = read_fields(p.dir), fb = read_fields(b.dir);
        // centre: the 1D cell at x just below 1/2 and the 2D cell there at y just below 1/2
        const double h = 1.0 / n, xc = (n / 2 - 0.5) * h;
        double q1 = NAN, q2 = NAN;
        for (std::size_t i = 0; i < fp.n; ++i)
            if (std::abs(fp.x(i) - xc) < 1e-9) q1 = fp.q[3 * i];
        for (std::size_t i = 0; i < fb.n; ++i)
            if (std::abs(fb.x(i) - xc) < 1e-9 && std::abs(fb.x(i, 1) - xc) < 1e-9) q2 = fb.q[3 * i];
        // heat into the top and bottom walls over x in [0.4, 0.6], per unit length
        const Csv s = read_csv(b.dir + "/surface_final.csv");
        double heat = 0, len = 0;
        const std::vector<double> sx = s.column("x"), sy = s.column("y"), sq = s.column("q"),
                                  sa = s.column("area");
        for (std::size_t r = 0; r < sx.size(); ++r)
            if ((sy[r] < 1e-12 || sy[r] > 1 - 1e-12) && sx[r] > 0.4 && sx[r] < 0.6) {
                heat += std::abs(sq[r]) * sa[r];
                len += sa[r];
            }
        const double side = heat / len / std::abs(qF);
        dev_F[k] = q2 / qF - 1.0;
        std::printf(
            "linear wall temperature, %d cells: centre q_x/q_F 2D %.4f, 1D plates %.4f "
            "(2D/1D %+.2f %%); mid-span side-wall heat %.2f %% of q_F\n",
            n, q2 / qF, q1 / qF, 100 * (q2 / q1 - 1), 100 * side);
        EXPECT_NEAR(q2 / q1, 1.0, k == 0 ? 0.06 : 0.03);
        EXPECT_LT(side, k == 0 ? 0.06 : 0.035);
        if (!::testing::Test::HasFailure()) {
            remove_output(p.dir);
            remove_output(b.dir);
        }
    }
    EXPECT_GT(dev_F[0], 0.0);
    EXPECT_LT(dev_F[1], 0.6 * dev_F[0]) << "refinement must approach Fourier's law";
}

}  // namespace

// Conservation in a closed box (issue 3, item 3).
//  - Diffuse walls: the wall density comes from the discrete zero-mass-flux condition (decision
//    U7), so the total mass is constant to round-off; momentum and energy are exchanged with the
//    walls.
//  - Symmetry (specular) planes: the reflected half is the mirror image of the incident half on a
//    mirror-closed velocity grid, so the mass and energy fluxes through the planes cancel exactly.
//    Momentum normal to a plane is NOT conserved (the plane carries the pressure); with a block
//    placed symmetrically about the box centre the pressures on opposite planes balance by
//    symmetry, so the total momentum stays zero to round-off while the gas moves.
//
// Why 1e-12: every interior face flux is added to one cell and subtracted from the other, so the
// totals change only by the boundary fluxes, which are zero to round-off here; the residual error
// is summation round-off, ~ n_cells x steps x 1e-16 = 1e-12 at the very worst, typically 1e-14. A
// flux applied with the wrong sign or area, a lost boundary term or a wall density from continuous
// rather than discrete sums (quadrature error ~1e-6 on this grid for T = 1.5) fails by orders of
// magnitude.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

constexpr int kN = 3;  // N = 3 + K_int, monatomic

// Totals of the initial state: (rho, T) = (2, 1.5) in the block [lo, hi], (1, 1) elsewhere, at
// rest.
std::array<double, 5> initial_totals(const Fields& f, double x0, double x1, double y0, double y1) {
    std::array<double, 5> s{0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < f.n; ++i) {
        const bool in = f.x(i, 0) >= x0 && f.x(i, 0) <= x1 && f.x(i, 1) >= y0 && f.x(i, 1) <= y1;
        const double rho = in ? 2.0 : 1.0, T = in ? 1.5 : 1.0;
        s[0] += f.volume[i] * rho;
        s[4] += f.volume[i] * 0.25 * kN * rho * T;
    }
    return s;
}

// Sum of V rho |U|: the scale against which a zero total momentum is judged.
double momentum_scale(const Fields& f) {
    double s = 0;
    for (std::size_t i = 0; i < f.n; ++i)
        s += f.volume[i] * f.rho[i] * std::hypot(f.U[3 * i], f.U[3 * i + 1], f.U[3 * i + 2]);
    return s;
}

const std::vector<std::string> kSymmetry = {
    "boundaries.xmin={type: symmetry}", "boundaries.xmax={type: symmetry}",
    "boundaries.ymin={type: symmetry}", "boundaries.ymax={type: symmetry}"};

TEST(Conservation, DiffuseWallsKeepMass) {
    const SolverRun run = run_solver(case_file("conservation"), {}, "conservation_diffuse");
    ASSERT_TRUE(run_completed(run, 100));
    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, 120u);
    const auto t0 = initial_totals(f, 0.2, 0.6, 0.3, 0.8);
    const auto t1 = totals(f, kN);
    EXPECT_NEAR(t1[0] / t0[0], 1.0, 1e-12) << "total mass";
    // Not trivially at rest: the block expands and the lid drags the gas.
    EXPECT_GT(momentum_scale(f), 1e-3 * t0[0]);
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

TEST(Conservation, SymmetryPlanesKeepMassAndEnergy) {
    const SolverRun run = run_solver(case_file("conservation"), kSymmetry, "conservation_symmetry");
    ASSERT_TRUE(run_completed(run, 100));
    const Fields f = read_fields(run.dir);
    const auto t0 = initial_totals(f, 0.2, 0.6, 0.3, 0.8);
    const auto t1 = totals(f, kN);
    EXPECT_NEAR(t1[0] / t0[0], 1.0, 1e-12) << "total mass";
    EXPECT_NEAR(t1[4] / t0[4], 1.0, 1e-12) << "total energy";
    EXPECT_GT(momentum_scale(f), 1e-3 * t0[0]);
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

TEST(Conservation, SymmetryPlanesCentredBlockKeepsZeroMomentum) {
    std::vector<std::string> ov = kSymmetry;
    ov.push_back("initial.regions.0.lo=[0.4, 0.3]");  // block centred on the box centre (0.6, 0.5)
    ov.push_back("initial.regions.0.hi=[0.8, 0.7]");
    const SolverRun run = run_solver(case_file("conservation"), ov, "conservation_centred");
    ASSERT_TRUE(run_completed(run, 100));
    const Fields f = read_fields(run.dir);
    const auto t0 = initial_totals(f, 0.4, 0.8, 0.3, 0.7);
    const auto t1 = totals(f, kN);
    EXPECT_NEAR(t1[0] / t0[0], 1.0, 1e-12) << "total mass";
    EXPECT_NEAR(t1[4] / t0[4], 1.0, 1e-12) << "total energy";
    const double scale = momentum_scale(f);
    ASSERT_GT(scale, 1e-3 * t0[0]) << "the gas should be moving";
    EXPECT_LE(std::abs(t1[1]), 1e-12 * scale) << "total x momentum";
    EXPECT_LE(std::abs(t1[2]), 1e-12 * scale) << "total y momentum";
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

}  // namespace

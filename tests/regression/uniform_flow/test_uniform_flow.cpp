// Uniform equilibrium flow stays uniform (issue 3, item 2) under every boundary type that admits
// it: far field at rest and moving, inflow + outflow, diffuse walls (at rest, and moving
// tangentially with the gas), symmetry planes (at rest, and with flow along the plane).
//
// Why 1e-12: in a uniform state every interior face of one orientation computes the same flux from
// the same inputs, so each cell's net flux cancels to round-off; the boundary fluxes equal the
// interior ones up to the exactness of the 12-point Gauss-Hermite rule (polynomials of degree <= 23
// times the Maxwellian, and exp(2uU) to ~1e-29), and the diffuse-wall density of a symmetric grid
// is 1 to round-off. 50 steps of ~1e-16 errors stay far below 1e-12; a sign error, a missing
// boundary term or a quadrature inconsistency between the macroscopic and the microscopic fluxes
// shows up at 1e-4 or more.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

struct UniformCase {
    const char* name;
    double Ux, Uy;
    std::vector<std::string>
        overrides;  // boundary conditions (the case file has far field at rest)
};

std::string far_field(double Ux, double Uy) {
    return "{type: far_field, rho: 1.0, T: 1.0, U: [" + std::to_string(Ux) + ", " +
           std::to_string(Uy) + "]}";
}

void check_uniform(const UniformCase& c) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> ov = c.overrides;
    ov.push_back("initial.U=[" + std::to_string(c.Ux) + ", " + std::to_string(c.Uy) + "]");
    const SolverRun run =
        run_solver(case_file("uniform_flow"), ov, std::string("uniform_") + c.name);
    ASSERT_TRUE(run_completed(run, 50));
    EXPECT_GT(summary_time(run.dir), 0.0);
    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, 48u);
    const double tol = 1e-12;
    const double gamma = 5.0 / 3.0, mach = std::hypot(c.Ux, c.Uy) / std::sqrt(gamma / 2.0);
    double worst[6] = {0, 0, 0, 0, 0, 0};  // rho, U, T, p, q, stress
    for (std::size_t i = 0; i < f.n; ++i) {
        worst[0] = std::max(worst[0], std::abs(f.rho[i] - 1.0));
        worst[1] = std::max({worst[1], std::abs(f.U[3 * i] - c.Ux), std::abs(f.U[3 * i + 1] - c.Uy),
                             std::abs(f.U[3 * i + 2])});
        worst[2] = std::max(worst[2], std::abs(f.T[i] - 1.0));
        worst[3] = std::max(worst[3], std::abs(f.p[i] - 0.5));
        for (int d = 0; d < 3; ++d) worst[4] = std::max(worst[4], std::abs(f.q[3 * i + d]));
        for (int d = 0; d < 6; ++d) worst[5] = std::max(worst[5], std::abs(f.stress[6 * i + d]));
        EXPECT_NEAR(f.Mach[i], mach, tol) << "cell " << i;
    }
    EXPECT_LE(worst[0], tol) << "max |rho - 1|";
    EXPECT_LE(worst[1], tol) << "max |U - U0|";
    EXPECT_LE(worst[2], tol) << "max |T - 1|";
    EXPECT_LE(worst[3], tol) << "max |p - 1/2|";
    EXPECT_LE(worst[4], tol) << "max |q| (a Maxwellian carries no heat flux)";
    EXPECT_LE(worst[5], tol) << "max |stress| (P_ij - p delta_ij of a Maxwellian is 0)";
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

TEST(UniformFlow, FarFieldAtRest) { check_uniform({"far_field_rest", 0.0, 0.0, {}}); }

TEST(UniformFlow, FarFieldMoving) {
    const std::string ff = far_field(0.3, 0.1);
    check_uniform({"far_field_moving",
                   0.3,
                   0.1,
                   {"boundaries.xmin=" + ff, "boundaries.xmax=" + ff, "boundaries.ymin=" + ff,
                    "boundaries.ymax=" + ff}});
}

TEST(UniformFlow, InflowOutflowMoving) {
    const std::string ff = far_field(0.3, 0.1);
    check_uniform({"inflow_outflow",
                   0.3,
                   0.1,
                   {"boundaries.xmin=" + ff, "boundaries.ymin=" + ff,
                    "boundaries.xmax={type: outflow}", "boundaries.ymax={type: outflow}"}});
}

TEST(UniformFlow, DiffuseWallsAtRest) {
    const std::string wall = "{type: diffuse_wall, T: 1.0}";
    check_uniform({"diffuse_walls_rest",
                   0.0,
                   0.0,
                   {"boundaries.xmin=" + wall, "boundaries.xmax=" + wall, "boundaries.ymin=" + wall,
                    "boundaries.ymax=" + wall}});
}

// Walls y = const moving with the gas along x: the wall Maxwellian is the gas Maxwellian.
TEST(UniformFlow, DiffuseWallsMovingWithTheGas) {
    const std::string ff = far_field(0.3, 0.0),
                      wall = "{type: diffuse_wall, T: 1.0, U: [0.3, 0.0]}";
    check_uniform({"diffuse_walls_moving",
                   0.3,
                   0.0,
                   {"boundaries.xmin=" + ff, "boundaries.xmax=" + ff, "boundaries.ymin=" + wall,
                    "boundaries.ymax=" + wall}});
}

TEST(UniformFlow, SymmetryAtRest) {
    const std::string sym = "{type: symmetry}";
    check_uniform({"symmetry_rest",
                   0.0,
                   0.0,
                   {"boundaries.xmin=" + sym, "boundaries.xmax=" + sym, "boundaries.ymin=" + sym,
                    "boundaries.ymax=" + sym}});
}

// Flow along the symmetry planes y = const.
TEST(UniformFlow, SymmetryWithTangentialFlow) {
    const std::string ff = far_field(0.3, 0.0), sym = "{type: symmetry}";
    check_uniform({"symmetry_tangential",
                   0.3,
                   0.0,
                   {"boundaries.xmin=" + ff, "boundaries.xmax=" + ff, "boundaries.ymin=" + sym,
                    "boundaries.ymax=" + sym}});
}

// A supersonic free stream on the unstructured velocity space (velocity.type unstructured, refined
// around the stream and a hot wall Maxwellian): its weights integrate the moments 1, u, uu, |u|^2 u
// and |u|^4 of both Maxwellians exactly, so the discrete free stream has exactly W, no heat flux
// and no stress, and stays uniform to round-off. A midpoint rule of the same size (type nonuniform,
// 900 points refined around the stream) leaves a stress of 1.1e-3 and fails the 1e-12 bounds.
TEST(UniformFlow, SupersonicFreeStreamOnTheUnstructuredVelocitySpace) {
    const std::string ff = "{type: far_field, rho: 1.0, T: 1.0, U: [1.8, 0.4]}";
    check_uniform({"unstructured_velocities",
                   1.8,
                   0.4,
                   {"boundaries.xmin=" + ff, "boundaries.xmax=" + ff, "boundaries.ymin=" + ff,
                    "boundaries.ymax=" + ff,
                    "velocity={type: unstructured, target_points: 900, maxwellians: "
                    "[{U: [1.8, 0.4], T: 1.0}, {U: [0.0, 0.0], T: 3.0}]}"}});
}

}  // namespace

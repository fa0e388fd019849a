// The analytic ingredients of the regression tests, verified on their own: exact Riemann solver,
// Rankine-Hugoniot relations, free-molecular two-plate state (closed form and discrete-velocity
// form), and the copied cavity reference data.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exact_riemann.hpp"
#include "free_molecular.hpp"
#include "rankine_hugoniot.hpp"
#include "regression_util.hpp"
#include "test_util.hpp"
#include "ugks/app/run_case.hpp"
#include "ugks/core/log.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace {

using namespace ugks::regression;

constexpr double kPi = 3.14159265358979323846;

// ---- exact Riemann solver
// -------------------------------------------------------------------------

// Toro, Table 4.3 (gamma = 1.4): p*, u*, rho*_L, rho*_R as printed; each is checked to half a unit
// of its last printed decimal.
struct ToroCase {
    EulerState left, right;
    const char* values[4];  // p*, u*, rho*_L, rho*_R
};

double printed_tolerance(const std::string& v) {
    const auto dot = v.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(v.size() - dot - 1);
    return 0.5 * std::pow(10.0, -decimals);
}

TEST(ExactRiemann, ReproducesToroTable) {
    const ToroCase cases[] = {{{1.0, 0.0, 1.0},
                               {0.125, 0.0, 0.1},
                               {"0.30313", "0.92745", "0.42632", "0.26557"}},  // test 1
                              {{1.0, -2.0, 0.4},
                               {1.0, 2.0, 0.4},
                               {"0.00189", "0.00000", "0.02185", "0.02185"}},  // test 2
                              {{1.0, 0.0, 1000.0},
                               {1.0, 0.0, 0.01},
                               {"460.894", "19.5975", "0.57506", "5.99924"}}};  // test 3
    // (Toro's two-shock collision case is left out: its input states are themselves rounded to 6
    // digits, which moves p* by 4e-6 relative, more than half a unit of the printed result.)
    for (const auto& c : cases) {
        const ExactRiemann rs(c.left, c.right, 1.4);
        const double got[4] = {rs.p_star(), rs.u_star(), rs.rho_star_left(), rs.rho_star_right()};
        for (int k = 0; k < 4; ++k)
            EXPECT_NEAR(got[k], std::stod(c.values[k]), printed_tolerance(c.values[k]))
                << "value " << k << " of the case with p_L = " << c.left.p;
    }
}

// Sod in solver units (p = rho T / 2, gamma = 5/3): jump conditions across the right shock,
// isentropy and the Riemann invariant across the left fan, continuity of u and p at the contact.
TEST(ExactRiemann, SodSolverUnitsSatisfiesJumpAndFanRelations) {
    const double g = 5.0 / 3.0;
    const EulerState L{1.0, 0.0, 0.5}, R{0.125, 0.0, 0.05};
    const ExactRiemann rs(L, R, g);
    ASSERT_FALSE(rs.left_is_shock());
    ASSERT_TRUE(rs.right_is_shock());
    const auto speeds = rs.wave_speeds();
    ASSERT_EQ(speeds.size(), 4u);
    const double S = speeds[3];
    EXPECT_NEAR(speeds[0], -std::sqrt(g * 0.5), 1e-15);  // fan head = -c_L
    const EulerState star_r = rs.sample(0.5 * (speeds[2] + speeds[3]));
    // Shock frame fluxes: mass, momentum, energy.
    auto flux = [&](const EulerState& w) {
        const double v = w.u - S;
        const double E = 0.5 * w.rho * w.u * w.u + w.p / (g - 1);
        return std::array<double, 3>{w.rho * v, w.rho * w.u * v + w.p, E * v + w.p * w.u};
    };
    const auto fa = flux(R), fb = flux(star_r);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(fa[k], fb[k], 1e-13) << "component " << k;
    // Contact: u and p continuous, density jumps.
    const EulerState star_l = rs.sample(0.5 * (speeds[1] + speeds[2]));
    EXPECT_DOUBLE_EQ(star_l.u, star_r.u);
    EXPECT_DOUBLE_EQ(star_l.p, star_r.p);
    EXPECT_GT(star_l.rho, star_r.rho);
    // Fan: p / rho^gamma and u + 2c/(gamma-1) constant (left-running rarefaction).
    const double s0 = L.p / std::pow(L.rho, g), j0 = L.u + 2 * std::sqrt(g * L.p / L.rho) / (g - 1);
    for (int k = 0; k <= 10; ++k) {
        const double s = speeds[0] + (speeds[1] - speeds[0]) * k / 10.0;
        const EulerState w = rs.sample(s);
        EXPECT_NEAR(w.p / std::pow(w.rho, g), s0, 1e-13);
        EXPECT_NEAR(w.u + 2 * std::sqrt(g * w.p / w.rho) / (g - 1), j0, 1e-13);
        EXPECT_NEAR(w.u - std::sqrt(g * w.p / w.rho), s, 1e-13);  // self-similar: u - c = x/t
    }
}

// Integral balance over [0, 1] at t = 0.2 (all waves inside): mass and energy conserved, momentum
// changes by (p_L - p_R) t. The cell averages integrate each smooth piece exactly to ~1e-13.
TEST(ExactRiemann, CellAveragesConserveMassMomentumEnergy) {
    const double g = 5.0 / 3.0, t = 0.2;
    const EulerState L{1.0, 0.0, 0.5}, R{0.125, 0.0, 0.05};
    const ExactRiemann rs(L, R, g);
    for (int n : {7, 100, 1000}) {
        std::array<double, 3> tot{0, 0, 0};
        for (int i = 0; i < n; ++i) {
            const auto a = rs.cell_average(double(i) / n, double(i + 1) / n, t, 0.5);
            for (int k = 0; k < 3; ++k) tot[k] += a[k] / n;
        }
        const auto cl = rs.conserved(L), cr = rs.conserved(R);
        EXPECT_NEAR(tot[0], 0.5 * (cl[0] + cr[0]), 1e-12) << n << " cells";
        EXPECT_NEAR(tot[1], (L.p - R.p) * t, 1e-12) << n << " cells";
        EXPECT_NEAR(tot[2], 0.5 * (cl[2] + cr[2]), 1e-12) << n << " cells";
    }
}

// ---- Rankine-Hugoniot
// ---------------------------------------------------------------------------------

TEST(RankineHugoniot, MachEightArgonStates) {
    const double g = 5.0 / 3.0;
    const ShockState up = upstream_state(8.0, g);
    EXPECT_DOUBLE_EQ(up.U, 8.0 * std::sqrt(5.0 / 6.0));
    const ShockState dn = downstream_state(up, g);
    // Closed forms for gamma = 5/3, M = 8: rho2/rho1 = 256/67, p2/p1 = 319/4, M2^2 = 67/319.
    EXPECT_NEAR(dn.rho, 256.0 / 67.0, 1e-14);
    EXPECT_NEAR(dn.p() / up.p(), 319.0 / 4.0, 1e-12);
    EXPECT_NEAR(dn.T, (319.0 / 4.0) / (256.0 / 67.0), 1e-12);
    EXPECT_NEAR(mach_number(dn, g), std::sqrt(67.0 / 319.0), 1e-14);
    const auto f1 = euler_flux(up, g), f2 = euler_flux(dn, g);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(f2[k] / f1[k], 1.0, 1e-14) << "flux component " << k;
}

TEST(RankineHugoniot, FluxesEqualForAnyMachAndGamma) {
    for (double g : {5.0 / 3.0, 1.4, 9.0 / 7.0})
        for (double M : {1.0, 1.5, 3.0, 8.0, 25.0}) {
            const ShockState up = upstream_state(M, g, 0.7, 1.3), dn = downstream_state(up, g);
            const auto f1 = euler_flux(up, g), f2 = euler_flux(dn, g);
            for (int k = 0; k < 3; ++k)
                EXPECT_NEAR(f2[k] / f1[k], 1.0, 1e-13) << "M " << M << " g " << g;
            if (M == 1.0) EXPECT_NEAR(dn.rho, up.rho, 1e-14);
            if (M > 1.0) EXPECT_LT(mach_number(dn, g), 1.0);
        }
}

// ---- free-molecular plates
// ---------------------------------------------------------------------------

// Direct numerical integration of the two half-Maxwellians (composite 5-point Gauss-Legendre on
// each half-line, which is exact to round-off for these smooth integrands) reproduces the closed
// form.
TEST(FreeMolecularPlates, ClosedFormMatchesDirectIntegration) {
    struct P {
        double T1, T2, rho;
        int K;
    };
    for (const P c : {P{1.0, 2.0, 1.0, 2}, P{1.0, 1.5, 0.3, 2}, P{2.5, 0.5, 1.7, 4}}) {
        const PlatesState s = free_molecular_plates(c.T1, c.T2, c.rho, c.K);
        EXPECT_NEAR(s.n1 * std::sqrt(c.T1), s.n2 * std::sqrt(c.T2), 1e-14);  // zero net mass flux
        EXPECT_DOUBLE_EQ(s.T, std::sqrt(c.T1 * c.T2));
        // Moments by quadrature: {h, u h, u^2 h, b, u^3 h, u b}.
        double m[6] = {0, 0, 0, 0, 0, 0};
        static const double xg[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                                     0.5384693101056831, 0.9061798459386640};
        static const double wg[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                                     0.4786286704993665, 0.2369268850561891};
        const double umax = 14.0 * std::sqrt(std::max(c.T1, c.T2));
        const int n = 4000;
        for (int side = 0; side < 2; ++side) {
            const double T = side == 0 ? c.T1 : c.T2, nn = side == 0 ? s.n1 : s.n2,
                         sgn = side == 0 ? 1 : -1;
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < 5; ++k) {
                    const double h = umax / n;
                    const double u = sgn * (h * i + 0.5 * h * (1.0 + xg[k]));
                    const double f =
                        nn * std::sqrt(1.0 / (kPi * T)) * std::exp(-u * u / T) * 0.5 * h * wg[k];
                    const double b = 0.5 * c.K * T * f;
                    m[0] += f;
                    m[1] += u * f;
                    m[2] += u * u * f;
                    m[3] += b;
                    m[4] += u * u * u * f;
                    m[5] += u * b;
                }
        }
        const int N = 1 + c.K;
        EXPECT_NEAR(m[0], s.rho, 1e-13 * s.rho);
        EXPECT_NEAR(m[1], 0.0, 1e-13 * s.rho);
        const double rhoE = 0.5 * (m[2] + m[3]);
        EXPECT_NEAR(4.0 * rhoE / (N * m[0]), s.T, 1e-13 * s.T);
        EXPECT_NEAR(0.5 * (m[4] + m[5]), s.qx, 1e-13 * std::abs(s.qx));
        EXPECT_NEAR(m[2], s.p, 1e-13 * s.p);  // P_xx = p: isotropic
    }
}

// The heat flux has the expected sign and scale: q = (2+K)/(4 sqrt(pi)) rho sqrt(T1
// T2)(T1-T2)/(s1+s2).
TEST(FreeMolecularPlates, HeatFluxClosedForm) {
    const PlatesState s = free_molecular_plates(1.0, 2.0, 1.0, 2);
    EXPECT_NEAR(s.qx, -std::sqrt(2.0) / (std::sqrt(kPi) * (1.0 + std::sqrt(2.0))), 1e-15);
    EXPECT_NEAR(s.qx, -0.3304946, 1e-7);
    EXPECT_NEAR(free_molecular_plates(2.0, 1.0, 1.0, 2).qx, -s.qx, 1e-15);
}

// Discrete form: exact invariants, the equilibrium special case, and convergence to the closed form
// on half-range Gauss-Hermite sets (the set used by the regression case: 12 points, scale
// sqrt(1.5)).
TEST(FreeMolecularPlates, DiscreteFormInvariantsAndConvergence) {
    std::vector<double> x, w;
    ugks::half_range_gauss_hermite_1d(12, std::sqrt(1.5), 0.0, x, w);
    const PlatesState d = free_molecular_plates_discrete(1.0, 2.0, 1.0, 1.0, 2, x, w);
    double f1 = 0, f2 = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        const double H1 = std::sqrt(1.0 / kPi) * std::exp(-x[k] * x[k]);
        const double H2 = std::sqrt(1.0 / (2.0 * kPi)) * std::exp(-x[k] * x[k] / 2.0);
        if (x[k] > 0)
            f1 += w[k] * x[k] * d.n1 * H1;
        else
            f2 -= w[k] * x[k] * d.n2 * H2;
    }
    EXPECT_NEAR(f1, f2, 1e-15);
    EXPECT_NEAR(d.rho, 1.0, 1e-15);
    EXPECT_NEAR(d.U, 0.0, 1e-15);
    // This grid is within 3e-5 of the continuous state (measured 2e-6 in T, 9e-6 in q).
    const PlatesState c = free_molecular_plates(1.0, 2.0, 1.0, 2);
    EXPECT_NEAR(d.T, c.T, 1e-5);
    EXPECT_NEAR(d.qx, c.qx, 3e-5);
    // Equal temperatures: the initial Maxwellian is the steady state.
    const PlatesState e = free_molecular_plates_discrete(1.3, 1.3, 0.8, 1.3, 2, x, w);
    EXPECT_NEAR(e.n1, 0.8, 1e-14);
    EXPECT_NEAR(e.n2, 0.8, 1e-14);
    EXPECT_NEAR(e.T, 1.3, 1e-14);
    EXPECT_NEAR(e.qx, 0.0, 1e-15);
    // Refinement: the error falls to round-off (28 points: < 1e-13).
    double prev = HUGE_VAL;
    for (int n : {8, 12, 16, 20, 28}) {
        ugks::half_range_gauss_hermite_1d(n, std::sqrt(1.5), 0.0, x, w);
        const PlatesState dn = free_molecular_plates_discrete(1.0, 2.0, 1.0, 1.0, 2, x, w);
        const double err = std::abs(dn.T - c.T) + std::abs(dn.qx - c.qx);
        EXPECT_LT(err, prev) << n << " points";
        prev = err;
    }
    EXPECT_LT(prev, 1e-13);
}

// A node at u = 0 (Newton-Cotes on a symmetric range) keeps its initial value; the rest still
// satisfies the discrete flux balance. The jump of h at u = 0 limits Newton-Cotes to first order:
// the error halves with each doubling (measured: T error 4.0e-2, 2.0e-2, 1.0e-2, 5.0e-3 for 41 ..
// 321 points), which is why the regression case uses half-range Gauss-Hermite.
TEST(FreeMolecularPlates, DiscreteFormWithZeroNodeConvergesAtFirstOrder) {
    const PlatesState c = free_molecular_plates(1.0, 2.0, 1.0, 2);
    double prev = 0;
    for (int n : {41, 81, 161, 321}) {
        std::vector<double> x, w;
        ugks::newton_cotes_1d(n, -8.0, 8.0, x, w);
        ASSERT_EQ(x[n / 2], 0.0);
        const PlatesState d = free_molecular_plates_discrete(1.0, 2.0, 1.0, 1.0, 2, x, w);
        EXPECT_NEAR(d.rho, 1.0, 1e-14);
        const double err = std::abs(d.T - c.T);
        if (prev > 0) EXPECT_NEAR(prev / err, 2.0, 0.1) << n << " points";
        prev = err;
    }
    EXPECT_LT(prev, 6e-3);
}

// ---- reference data copied for the cavity case
// ----------------------------------------------------------

TEST(CavityReference, CopiedDsmcTables) {
    const auto v = read_table(
        ugks::test::data_path("reference/cavity2d_kn0.075/vertical_centerline_U_dsmc.dat"));
    const auto h = read_table(
        ugks::test::data_path("reference/cavity2d_kn0.075/horizontal_centerline_V_dsmc.dat"));
    ASSERT_EQ(v.size(), 60u);  // SOURCE.md: 60 points on x = L/2, Y from 0.050 to 0.950
    ASSERT_EQ(h.size(), 59u);  // 59 points on y = L/2
    EXPECT_NEAR(v.front()[0], 0.050, 1e-3);
    EXPECT_NEAR(v.back()[0], 0.950, 1e-3);
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_GT(v[i][0], v[i - 1][0]);
    for (std::size_t i = 1; i < h.size(); ++i) EXPECT_GT(h[i][0], h[i - 1][0]);
    // Physics sanity of the digitized data: return flow below the lid centre, V changes sign near x
    // = 0.5.
    double umin = 0;
    for (const auto& p : v) umin = std::min(umin, p[1]);
    EXPECT_LT(umin, -0.13);
    std::vector<double> hx, hv;
    for (const auto& p : h) {
        hx.push_back(p[0]);
        hv.push_back(p[1]);
    }
    EXPECT_GT(interpolate(hx, hv, 0.45), 0.0);
    EXPECT_LT(interpolate(hx, hv, 0.55), 0.0);
}

// Every regression case file (and the full-resolution cavity case) passes the solver's input
// validation (ugks_solver --check: all keys known and used, mesh patches matched, velocity set
// valid).
TEST(RegressionCases, CaseFilesPassTheSolverCheck) {
    std::vector<std::string> files;
    for (const char* c : {"uniform_flow", "conservation", "sod", "free_molecular", "cavity2d",
                          "normal_shock", "decomposition"})
        files.push_back(case_file(c));
    files.push_back(std::string(UGKS_SOURCE_DIR) + "/cases/cavity2d_kn0.075/cavity2d_kn0.075.yaml");
    for (const auto& f : files) {
        ugks::CommandLine cl;
        cl.case_file = f;
        cl.check = true;
        cl.quiet = true;
        ugks::log::state().quiet = true;
        EXPECT_EQ(ugks::run_case(cl), 0) << f;
    }
}

TEST(Interpolate, PiecewiseLinear) {
    const std::vector<double> xs{0.0, 1.0, 3.0}, ys{1.0, 3.0, -1.0};
    EXPECT_DOUBLE_EQ(interpolate(xs, ys, 0.5), 2.0);
    EXPECT_DOUBLE_EQ(interpolate(xs, ys, 2.0), 1.0);
    EXPECT_DOUBLE_EQ(interpolate(xs, ys, -1.0), 1.0);
    EXPECT_DOUBLE_EQ(interpolate(xs, ys, 4.0), -1.0);
}

}  // namespace

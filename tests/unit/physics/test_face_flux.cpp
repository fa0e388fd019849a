// face_equilibrium and micro_flux (docs/formulation.md sections 5.2-5.10, decisions U1-U4) against
// an independent brute-force evaluation: every moment by quadrature at global-frame velocities.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kinetic_quadrature.hpp"
#include "ugks/physics/kinetic.hpp"

namespace phys = ugks::phys;
using ugks::test::QNode;

namespace {

phys::GasParams gas(int D, int K_int) {
    phys::GasParams g;
    g.D = D;
    g.K = 3 - D + K_int;
    g.N = 3 + K_int;
    g.Pr = 2.0 / 3.0;
    g.mu_ref = 0.05;
    g.omega = 0.81;
    return g;
}

phys::Prim prim(int D, double rho, double ux, double uy, double uz, double lambda) {
    phys::Prim p;
    p.rho = rho;
    p.U[0] = ux;
    p.U[1] = D >= 2 ? uy : 0.0;
    p.U[2] = D >= 3 ? uz : 0.0;
    p.lambda = lambda;
    return p;
}

void unit_normal(int D, const double n_in[3], double n[3]) {
    double l = 0.0;
    for (int d = 0; d < 3; ++d) {
        n[d] = d < D ? n_in[d] : 0.0;
        l += n[d] * n[d];
    }
    for (int d = 0; d < 3; ++d) n[d] /= std::sqrt(l);
}

/// Two different states, random gradients (spatial and momentum components < D only), cells on
/// both sides of the face, small cell heat fluxes.
phys::FaceInput make_input(const phys::GasParams& g, const double n_in[3], unsigned seed) {
    const int D = g.D;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    phys::FaceInput in{};
    double n[3];
    unit_normal(D, n_in, n);
    phys::prim_to_cons(prim(D, 1.2, 0.3, -0.2, 0.1, 0.9), g.N, in.WL);
    phys::prim_to_cons(prim(D, 0.8, -0.1, 0.25, -0.3, 1.3), g.N, in.WR);
    for (int c = 0; c < 5; ++c)
        for (int j = 0; j < 3; ++j) {
            const bool used = j < D && !(c >= 1 && c <= 3 && c - 1 >= D);
            in.gradWL[c][j] = used ? 0.2 * uni(rng) : 0.0;
            in.gradWR[c][j] = used ? 0.2 * uni(rng) : 0.0;
        }
    for (int d = 0; d < 3; ++d) {
        in.n[d] = n[d];
        in.xf[d] = d < D ? 0.1 * (d + 1) : 0.0;
        const double tang = d < D ? 0.05 * uni(rng) : 0.0;
        in.xL[d] = in.xf[d] - 0.5 * n[d] + tang;
        in.xR[d] = in.xf[d] + 0.6 * n[d] - tang;
        in.qL[d] = d < D ? 0.05 * uni(rng) : 0.0;
        in.qR[d] = d < D ? 0.05 * uni(rng) : 0.0;
    }
    return in;
}

struct Brute {
    double W0[5];
    phys::Prim p0;
    phys::Slope A;
    double F[5];
};

/// Coefficients (xi^0, xi^2, xi^4) of P(u, xi) = sum_{j<D} u_j a^{(j)}(u, xi) at a global u.
void combined_poly(const phys::Slope* a, int D, const double u[3], double c[3]) {
    const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    c[0] = c[1] = c[2] = 0.0;
    for (int j = 0; j < D; ++j) {
        const double aj = a[j].a0 + a[j].aU[0] * u[0] + a[j].aU[1] * u[1] + a[j].aU[2] * u[2] +
                          0.5 * a[j].aE * u2;
        c[0] += u[j] * aj;
        c[1] += u[j] * 0.5 * a[j].aE;
    }
}

Brute brute_face(const phys::FaceInput& in, const phys::GasParams& g, double dt) {
    const int D = g.D, N = g.N;
    Brute r{};
    double WLf[5], WRf[5];
    for (int c = 0; c < 5; ++c) {
        WLf[c] = in.WL[c];
        WRf[c] = in.WR[c];
        for (int j = 0; j < 3; ++j) {
            WLf[c] += in.gradWL[c][j] * (in.xf[j] - in.xL[j]);
            WRf[c] += in.gradWR[c][j] * (in.xf[j] - in.xR[j]);
        }
    }
    const phys::Prim pL = ugks::test::prim_of(WLf, N), pR = ugks::test::prim_of(WRf, N);
    const double one[3] = {1.0, 0.0, 0.0};
    for (int side : {+1, -1}) {
        const phys::Prim& p = side > 0 ? pL : pR;
        const ugks::test::XiMoments X = ugks::test::xi_moments(g.K, p.lambda);
        for (const QNode& q : ugks::test::maxwellian_nodes(p, D, in.n, side))
            ugks::test::add_psi_xi(q.w * ugks::test::maxwell_H(p, D, q.u), q.u, one, X, r.W0);
    }
    r.p0 = ugks::test::prim_of(r.W0, N);
    const phys::Prim& p0 = r.p0;
    phys::Slope aL[3], aR[3];
    for (int j = 0; j < D; ++j) {
        double dL[5], dR[5];
        for (int c = 0; c < 5; ++c) {
            dL[c] = in.gradWL[c][j];
            dR[c] = in.gradWR[c][j];
        }
        aL[j] = phys::micro_slope(p0, N, dL);
        aR[j] = phys::micro_slope(p0, N, dR);
    }
    const ugks::test::XiMoments X0 = ugks::test::xi_moments(g.K, p0.lambda);
    const std::vector<QNode> half[2] = {ugks::test::maxwellian_nodes(p0, D, in.n, +1),
                                        ugks::test::maxwellian_nodes(p0, D, in.n, -1)};
    double dWdt[5] = {0, 0, 0, 0, 0};
    // Body force (section 6.7): a_F(u) = -2 lambda0 a.(u - U0) joins both sides' slope sums.
    const auto force_poly = [&](const double u[3]) {
        double s = 0.0;
        for (int d = 0; d < 3; ++d) s += g.acc[d] * (u[d] - p0.U[d]);
        return -2.0 * p0.lambda * s;
    };
    for (int s = 0; s < 2; ++s)
        for (const QNode& q : half[s]) {
            double c[3];
            combined_poly(s == 0 ? aL : aR, D, q.u, c);
            c[0] += force_poly(q.u);
            ugks::test::add_psi_xi(-q.w * ugks::test::maxwell_H(p0, D, q.u), q.u, c, X0, dWdt);
        }
    r.A = phys::micro_slope(p0, N, dWdt);
    const phys::TimeCoeffs tc = phys::time_coefficients(dt, phys::relaxation_time(p0, g));
    double qf[3];
    for (int d = 0; d < 3; ++d) qf[d] = 0.5 * (in.qL[d] + in.qR[d]);
    for (int s = 0; s < 2; ++s)
        for (const QNode& q : half[s]) {
            const double un = q.u[0] * in.n[0] + q.u[1] * in.n[1] + q.u[2] * in.n[2];
            const double u2 = q.u[0] * q.u[0] + q.u[1] * q.u[1] + q.u[2] * q.u[2];
            double P[3];
            combined_poly(s == 0 ? aL : aR, D, q.u, P);
            P[0] += force_poly(q.u);
            const double Au = r.A.a0 + r.A.aU[0] * q.u[0] + r.A.aU[1] * q.u[1] +
                              r.A.aU[2] * q.u[2] + 0.5 * r.A.aE * u2;
            const double c[3] = {tc.q1 + tc.q2 * P[0] + tc.q3 * Au,
                                 tc.q2 * P[1] + tc.q3 * 0.5 * r.A.aE, tc.q2 * P[2]};
            const double H0 = ugks::test::maxwell_H(p0, D, q.u);
            ugks::test::add_psi_xi(q.w * H0 * un, q.u, c, X0, r.F);
            // Shakhov part q1 int u_n psi g0+ by quadrature (decision U4 replaces it analytically).
            double H, B, hp, bp;
            phys::maxwellian(p0, g, q.u, H, B);
            phys::shakhov_equilibrium(p0, qf, g, q.u, hp, bp);
            const double wH = q.w * tc.q1 * un * (hp - H), wB = q.w * tc.q1 * un * (bp - B);
            r.F[0] += wH;
            for (int d = 0; d < 3; ++d) r.F[1 + d] += q.u[d] * wH;
            r.F[4] += 0.5 * (u2 * wH + wB);
        }
    return r;
}

double max_abs(const double* v, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(v[i]));
    return m;
}

void expect_slope_near(const phys::Slope& a, const phys::Slope& b, double tol, const char* what) {
    EXPECT_NEAR(a.a0, b.a0, tol) << what;
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(a.aU[d], b.aU[d], tol) << what << " d " << d;
    EXPECT_NEAR(a.aE, b.aE, tol) << what;
}

/// Euler flux of the state p through n: (rho U_n, rho U U_n + p n, (rho E + p) U_n).
void euler_flux(const phys::Prim& p, int N, const double n[3], double F[5]) {
    double W[5];
    phys::prim_to_cons(p, N, W);
    const double un = p.U[0] * n[0] + p.U[1] * n[1] + p.U[2] * n[2];
    const double pr = p.rho / (2.0 * p.lambda);
    F[0] = p.rho * un;
    for (int d = 0; d < 3; ++d) F[1 + d] = W[1 + d] * un + pr * n[d];
    F[4] = (W[4] + pr) * un;
}

struct FaceCase {
    int D, K_int;
    double n[3];
    unsigned seed;
};
const FaceCase kCases[] = {
    {1, 0, {-1.0, 0.0, 0.0}, 11}, {1, 2, {1.0, 0.0, 0.0}, 12},   {2, 0, {0.76, 0.64, 0.0}, 13},
    {2, 2, {-0.3, 0.9, 0.0}, 14}, {3, 0, {0.3, -0.8, 0.52}, 15}, {3, 2, {-0.6, 0.2, 0.77}, 16},
    {3, 0, {0.0, 0.0, 1.0}, 17},
};

/// A face between two cells of the same state p (no gradients), unit normal n (first D components
/// of (0.6, 0.8, 0.5), or x in 1D), centroids at -n/2 and +n/2.
phys::FaceInput uniform_input(const phys::Prim& p, const phys::GasParams& g, double n[3]) {
    phys::FaceInput in{};
    phys::prim_to_cons(p, g.N, in.WL);
    phys::prim_to_cons(p, g.N, in.WR);
    const double n_raw[3] = {g.D == 1 ? 1.0 : 0.6, 0.8, 0.5};
    unit_normal(g.D, n_raw, n);
    for (int d = 0; d < 3; ++d) {
        in.n[d] = n[d];
        in.xL[d] = -0.5 * n[d];
        in.xR[d] = 0.5 * n[d];
    }
    return in;
}

}  // namespace

TEST(FaceEquilibrium, UniformStateGivesQ1TimesEulerFlux) {
    for (int D = 1; D <= 3; ++D) {
        for (int K_int : {0, 2}) {
            const phys::GasParams g = gas(D, K_int);
            const phys::Prim p = prim(D, 1.1, 0.45, -0.35, 0.2, 0.7);
            double n[3];
            const phys::FaceInput in = uniform_input(p, g, n);
            phys::FaceCoeffs fc;
            const double dt = 0.2;
            phys::face_equilibrium(in, g, dt, fc);
            // (b) W0 = W for W_L = W_R.
            double W0[5];
            phys::prim_to_cons(fc.p0, g.N, W0);
            for (int i = 0; i < 5; ++i) EXPECT_NEAR(W0[i], in.WL[i], 4e-15) << "D " << D;
            EXPECT_NEAR(fc.tau0, phys::relaxation_time(p, g), 1e-15);
            // Zero gradients -> zero spatial and time slopes.
            for (int j = 0; j < 3; ++j) {
                expect_slope_near(fc.aL[j], phys::Slope{}, 0.0, "aL");
                expect_slope_near(fc.aR[j], phys::Slope{}, 0.0, "aR");
            }
            expect_slope_near(fc.A, phys::Slope{}, 1e-15, "A");
            // (a) F = q1 * Euler flux (q = 0, so F_+ = 0).
            double E[5];
            euler_flux(p, g.N, n, E);
            for (int i = 0; i < 5; ++i)
                EXPECT_NEAR(fc.F[i], fc.tc.q1 * E[i], 1e-14 * fc.tc.q1 * max_abs(E, 5))
                    << "D " << D << " K_int " << K_int;
        }
    }
}

TEST(FaceEquilibrium, MatchesBruteForceQuadrature) {
    for (const FaceCase& fcase : kCases) {
        const phys::GasParams g = gas(fcase.D, fcase.K_int);
        const phys::FaceInput in = make_input(g, fcase.n, fcase.seed);
        const double dt = 0.1;
        phys::FaceCoeffs fc;
        phys::face_equilibrium(in, g, dt, fc);
        const Brute br = brute_face(in, g, dt);
        const std::string what = "D " + std::to_string(fcase.D) + " K_int " +
                                 std::to_string(fcase.K_int) + " seed " +
                                 std::to_string(fcase.seed);
        EXPECT_NEAR(fc.p0.rho, br.p0.rho, 1e-13) << what;
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(fc.p0.U[d], br.p0.U[d], 1e-13) << what;
        EXPECT_NEAR(fc.p0.lambda, br.p0.lambda, 1e-13) << what;
        const double a_scale =
            std::max({std::fabs(br.A.a0), std::fabs(br.A.aE), max_abs(br.A.aU, 3)});
        expect_slope_near(fc.A, br.A, 1e-11 * a_scale, what.c_str());
        const double f_scale = max_abs(br.F, 5);
        for (int i = 0; i < 5; ++i)
            EXPECT_NEAR(fc.F[i], br.F[i], 1e-11 * f_scale) << what << " i " << i;
        // The time slope is not trivially zero in these cases.
        EXPECT_GT(a_scale, 1e-3) << what;
    }
}

TEST(FaceEquilibrium, RotationInvariance) {
    // Rotating every vector (and both indices of the momentum gradients) rotates F and U0.
    const double ang = 0.9, ax[3] = {0.48, -0.6, 0.64};  // unit axis
    double Q[3][3];
    const double c = std::cos(ang), s = std::sin(ang);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            Q[i][j] = (i == j ? c : 0.0) + (1 - c) * ax[i] * ax[j];
        }
    Q[0][1] -= s * ax[2];
    Q[0][2] += s * ax[1];
    Q[1][0] += s * ax[2];
    Q[1][2] -= s * ax[0];
    Q[2][0] -= s * ax[1];
    Q[2][1] += s * ax[0];
    auto rot = [&](const double v[3], double out[3]) {
        for (int i = 0; i < 3; ++i) out[i] = Q[i][0] * v[0] + Q[i][1] * v[1] + Q[i][2] * v[2];
    };
    for (int K_int : {0, 2}) {
        const phys::GasParams g = gas(3, K_int);
        const double n0[3] = {0.3, -0.8, 0.52};
        const phys::FaceInput in = make_input(g, n0, 99);
        phys::FaceInput rin = in;
        rot(in.n, rin.n);
        rot(in.xL, rin.xL);
        rot(in.xR, rin.xR);
        rot(in.xf, rin.xf);
        rot(in.qL, rin.qL);
        rot(in.qR, rin.qR);
        rot(in.WL + 1, rin.WL + 1);
        rot(in.WR + 1, rin.WR + 1);
        for (int side = 0; side < 2; ++side) {
            const double(*G)[3] = side == 0 ? in.gradWL : in.gradWR;
            double(*RG)[3] = side == 0 ? rin.gradWL : rin.gradWR;
            rot(G[0], RG[0]);
            rot(G[4], RG[4]);
            for (int a = 0; a < 3; ++a)
                for (int j = 0; j < 3; ++j) {
                    double v = 0.0;
                    for (int b = 0; b < 3; ++b)
                        for (int k = 0; k < 3; ++k) v += Q[a][b] * Q[j][k] * G[1 + b][k];
                    RG[1 + a][j] = v;
                }
        }
        phys::FaceCoeffs f1, f2;
        phys::face_equilibrium(in, g, 0.1, f1);
        phys::face_equilibrium(rin, g, 0.1, f2);
        double Fm[3], U0[3], AU[3];
        rot(f1.F + 1, Fm);
        rot(f1.p0.U, U0);
        rot(f1.A.aU, AU);
        const double sc = max_abs(f1.F, 5);
        // Round-off only (the two problems use different face frames): 1e-13 relative.
        EXPECT_NEAR(f2.F[0], f1.F[0], 1e-13 * sc);
        EXPECT_NEAR(f2.F[4], f1.F[4], 1e-13 * sc);
        for (int d = 0; d < 3; ++d) {
            EXPECT_NEAR(f2.F[1 + d], Fm[d], 1e-13 * sc) << d;
            EXPECT_NEAR(f2.p0.U[d], U0[d], 1e-14) << d;
            EXPECT_NEAR(f2.A.aU[d], AU[d], 1e-13) << d;
        }
        EXPECT_NEAR(f2.p0.lambda, f1.p0.lambda, 1e-14);
        EXPECT_NEAR(f2.A.a0, f1.A.a0, 1e-13);
        EXPECT_NEAR(f2.A.aE, f1.A.aE, 1e-13);
    }
}

TEST(FaceEquilibrium, SwappingOwnerAndNeighbourNegatesFlux) {
    // Same physical face seen from the other cell: n -> -n, L <-> R. W0 and A are unchanged and
    // F changes sign (the L/R split follows the sign of u.n).
    for (const FaceCase& fcase : kCases) {
        const phys::GasParams g = gas(fcase.D, fcase.K_int);
        const phys::FaceInput in = make_input(g, fcase.n, fcase.seed);
        phys::FaceInput sw = in;
        for (int d = 0; d < 3; ++d) {
            sw.n[d] = -in.n[d];
            sw.xL[d] = in.xR[d];
            sw.xR[d] = in.xL[d];
            sw.qL[d] = in.qR[d];
            sw.qR[d] = in.qL[d];
        }
        for (int c = 0; c < 5; ++c) {
            sw.WL[c] = in.WR[c];
            sw.WR[c] = in.WL[c];
            for (int j = 0; j < 3; ++j) {
                sw.gradWL[c][j] = in.gradWR[c][j];
                sw.gradWR[c][j] = in.gradWL[c][j];
            }
        }
        phys::FaceCoeffs a, b;
        phys::face_equilibrium(in, g, 0.1, a);
        phys::face_equilibrium(sw, g, 0.1, b);
        const double sc = max_abs(a.F, 5);
        for (int i = 0; i < 5; ++i) EXPECT_NEAR(b.F[i], -a.F[i], 1e-14 * sc) << "D " << fcase.D;
        EXPECT_NEAR(b.p0.rho, a.p0.rho, 1e-14);
        EXPECT_NEAR(b.A.aE, a.A.aE, 1e-12 * std::fabs(a.A.aE));
    }
}

TEST(FaceEquilibrium, UnphysicalReconstructionFallsBackToCellAverage) {
    const phys::GasParams g = gas(3, 0);
    const phys::Prim p = prim(3, 1.0, 0.2, 0.1, -0.1, 1.0);
    for (int bad_component : {0, 4}) {
        phys::FaceInput in{};
        phys::prim_to_cons(p, g.N, in.WL);
        phys::prim_to_cons(p, g.N, in.WR);
        in.n[0] = 1.0;
        in.xL[0] = -0.5;
        in.xR[0] = 0.5;
        // rho_L,f = 1 - 0.5 * 10 < 0, or rho E_L,f = 0.78 - 5 < 0.
        in.gradWL[bad_component][0] = -10.0;
        phys::FaceCoeffs fc;
        phys::face_equilibrium(in, g, 0.1, fc);
        EXPECT_NEAR(fc.p0.rho, p.rho, 1e-15);
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(fc.p0.U[d], p.U[d], 1e-15);
        EXPECT_NEAR(fc.p0.lambda, p.lambda, 1e-14);
        for (double f : fc.F) EXPECT_TRUE(std::isfinite(f));
    }
}

/// A body-force acceleration along the first D axes.
static void set_force(phys::GasParams& g) {
    const double a[3] = {0.35, -0.25, 0.15};
    for (int d = 0; d < 3; ++d) g.acc[d] = d < g.D ? a[d] : 0.0;
}

// The body force (section 6.7) in the interface solution: the brute-force quadrature adds a_F to
// both sides' slope sums (compatibility and flux); face_equilibrium stores it folded into the
// time slope, A + (q2/q3) a_F (unfolded here for the comparison of A).
TEST(FaceEquilibrium, BodyForceMatchesBruteForceQuadrature) {
    for (const FaceCase& fcase : kCases) {
        phys::GasParams g = gas(fcase.D, fcase.K_int);
        set_force(g);
        const phys::FaceInput in = make_input(g, fcase.n, fcase.seed);
        const double dt = 0.1;
        phys::FaceCoeffs fc, fc0;
        phys::face_equilibrium(in, g, dt, fc);
        phys::GasParams g0 = g;
        g0.acc[0] = g0.acc[1] = g0.acc[2] = 0.0;
        phys::face_equilibrium(in, g0, dt, fc0);
        const Brute br = brute_face(in, g, dt);
        const std::string what =
            "D " + std::to_string(fcase.D) + " seed " + std::to_string(fcase.seed);
        const phys::Slope aF = phys::force_slope(fc.p0.U, fc.p0.lambda, g.acc);
        const double r = fc.tc.q2 / fc.tc.q3;
        phys::Slope A = fc.A;
        A.a0 -= r * aF.a0;
        for (int d = 0; d < 3; ++d) A.aU[d] -= r * aF.aU[d];
        const double a_scale =
            std::max({std::fabs(br.A.a0), std::fabs(br.A.aE), max_abs(br.A.aU, 3)});
        expect_slope_near(A, br.A, 1e-11 * a_scale, what.c_str());
        const double f_scale = max_abs(br.F, 5);
        double change = 0.0;
        for (int i = 0; i < 5; ++i) {
            EXPECT_NEAR(fc.F[i], br.F[i], 1e-11 * f_scale) << what << " i " << i;
            change = std::max(change, std::fabs(fc.F[i] - fc0.F[i]));
        }
        EXPECT_GT(change, 1e-5 * f_scale) << what << ": the force does not change the flux";
    }
}

// Continuum limit (tau = 0: q1 = dt, q2 = 0, q3 = dt^2/2) of a uniform gas under the force: the
// flux is the time integral of the Euler flux of the accelerating gas, U(t) = U + a t, to second
// order: F = dt E + dt^2/2 dE/dt with d(rho U_n)/dt = rho a_n, d(rho U U_n + p n)/dt = rho (a U_n
// + U a_n), d((rho E + p) U_n)/dt = rho (a.U) U_n + (rho E + p) a_n.
TEST(FaceEquilibrium, BodyForceOnAUniformGasInTheContinuumLimit) {
    for (int D = 1; D <= 3; ++D) {
        for (int K_int : {0, 2}) {
            phys::GasParams g = gas(D, K_int);
            g.mu_ref = 0.0;
            set_force(g);
            const phys::Prim p = prim(D, 1.1, 0.45, -0.35, 0.2, 0.7);
            double n[3];
            const phys::FaceInput in = uniform_input(p, g, n);
            phys::FaceCoeffs fc;
            const double dt = 0.2;
            phys::face_equilibrium(in, g, dt, fc);
            ASSERT_EQ(fc.tc.q2, 0.0);
            double W[5], E[5];
            phys::prim_to_cons(p, g.N, W);
            euler_flux(p, g.N, n, E);
            double un = 0.0, an = 0.0, aU = 0.0;
            for (int d = 0; d < 3; ++d) {
                un += p.U[d] * n[d];
                an += g.acc[d] * n[d];
                aU += g.acc[d] * p.U[d];
            }
            const double pr = p.rho / (2.0 * p.lambda);
            double dE[5];
            dE[0] = p.rho * an;
            for (int d = 0; d < 3; ++d) dE[1 + d] = p.rho * (g.acc[d] * un + p.U[d] * an);
            dE[4] = p.rho * aU * un + (W[4] + pr) * an;
            for (int i = 0; i < 5; ++i)
                EXPECT_NEAR(fc.F[i], dt * E[i] + 0.5 * dt * dt * dE[i], 1e-14 * max_abs(E, 5))
                    << "D " << D << " K_int " << K_int << " i " << i;
        }
    }
}

static void check_velocity_sums(bool force) {
    for (const FaceCase& fcase : kCases) {
        phys::GasParams g = gas(fcase.D, fcase.K_int);
        if (force) set_force(g);
        const phys::FaceInput in = make_input(g, fcase.n, fcase.seed);
        phys::FaceCoeffs fc;
        phys::face_equilibrium(in, g, 0.1, fc);
        double sum_eq[5] = {0, 0, 0, 0, 0}, sum_all[5] = {0, 0, 0, 0, 0},
               sum_fm[5] = {0, 0, 0, 0, 0};
        for (int side : {+1, -1})
            for (const QNode& q : ugks::test::maxwellian_nodes(fc.p0, g.D, in.n, side)) {
                const double un = q.u[0] * in.n[0] + q.u[1] * in.n[1] + q.u[2] * in.n[2];
                const double u2 = q.u[0] * q.u[0] + q.u[1] * q.u[1] + q.u[2] * q.u[2];
                double H0, B0;
                phys::maxwellian(fc.p0, g, q.u, H0, B0);
                // Interface data = the interface Maxwellian, no gradient: the free-transport part
                // integrates to q4 times the Euler flux of p0.
                const double zero[3] = {0, 0, 0};
                double ph, pb, fh, fb;
                phys::micro_flux(fc, g, q.u, un, H0, B0, zero, zero, ph, pb, fh, fb);
                // Arbitrary interface data and gradients: phi - fm must not depend on them.
                const double gh[3] = {0.3 * H0, -0.2 * H0, 0.1 * H0};
                const double gb[3] = {0.1 * B0, 0.2 * B0, -0.3 * B0};
                double ph2, pb2, fh2, fb2;
                phys::micro_flux(fc, g, q.u, un, 0.6 * H0, 1.7 * B0, gh, gb, ph2, pb2, fh2, fb2);
                const double e[3] = {ph2 - fh2, ph, fh};
                const double eb[3] = {pb2 - fb2, pb, fb};
                double* acc[3] = {sum_eq, sum_all, sum_fm};
                for (int k = 0; k < 3; ++k) {
                    acc[k][0] += q.w * e[k];
                    for (int d = 0; d < 3; ++d) acc[k][1 + d] += q.w * q.u[d] * e[k];
                    acc[k][4] += q.w * 0.5 * (u2 * e[k] + eb[k]);
                }
            }
        double E[5];
        double n[3];
        unit_normal(g.D, in.n, n);
        euler_flux(fc.p0, g.N, n, E);
        const double sc = max_abs(fc.F, 5);
        for (int i = 0; i < 5; ++i) {
            EXPECT_NEAR(sum_eq[i], fc.F[i], 1e-11 * sc) << "D " << fcase.D << " i " << i;
            EXPECT_NEAR(sum_fm[i], fc.tc.q4 * E[i], 1e-12 * sc) << "D " << fcase.D << " i " << i;
            EXPECT_NEAR(sum_all[i], fc.F[i] + fc.tc.q4 * E[i], 1e-11 * sc) << "D " << fcase.D;
        }
    }
}

TEST(MicroFlux, VelocitySumsReproduceFaceFlux) { check_velocity_sums(false); }

// With the body force folded into the time slope the per-velocity flux still sums to F.
TEST(MicroFlux, VelocitySumsReproduceFaceFluxWithBodyForce) { check_velocity_sums(true); }

TEST(MicroFlux, UniformMaxwellianIsDtTimesFreeTransport) {
    // q1 + q4 = dt: phi = dt u_n H exactly for a uniform equilibrium state (to the round-off of
    // the interface state and of the host exponential dev::exp_neg, within 2 ulp: 3e-15).
    for (int D = 1; D <= 3; ++D) {
        const phys::GasParams g = gas(D, 2);
        const phys::Prim p = prim(D, 0.9, -0.25, 0.4, 0.3, 1.6);
        phys::FaceInput in{};
        phys::prim_to_cons(p, g.N, in.WL);
        phys::prim_to_cons(p, g.N, in.WR);
        in.n[0] = 1.0;
        in.xL[0] = -0.5;
        in.xR[0] = 0.5;
        phys::FaceCoeffs fc;
        const double dt = 0.37;
        phys::face_equilibrium(in, g, dt, fc);
        const double zero[3] = {0, 0, 0};
        const double us[3][3] = {{0.8, -0.3, 1.2}, {-1.1, 0.6, -0.4}, {0.2, 2.0, 0.5}};
        for (const auto& uu : us) {
            const double u[3] = {uu[0], D >= 2 ? uu[1] : 0.0, D >= 3 ? uu[2] : 0.0};
            double H, B, ph, pb, fh, fb;
            phys::maxwellian(p, g, u, H, B);
            phys::micro_flux(fc, g, u, u[0], H, B, zero, zero, ph, pb, fh, fb);
            EXPECT_NEAR(ph, dt * u[0] * H, 3e-15 * std::fabs(dt * u[0] * H) + 1e-300) << D;
            EXPECT_NEAR(pb, dt * u[0] * B, 3e-15 * std::fabs(dt * u[0] * B) + 1e-300) << D;
            EXPECT_NEAR(fh, fc.tc.q4 * u[0] * H, 3e-15 * std::fabs(u[0] * H)) << D;
        }
    }
}

TEST(MicroFlux, UpwindSlopeSelection) {
    // For u.n > 0 only the owner's slopes enter, for u.n < 0 only the neighbour's.
    const phys::GasParams g = gas(3, 0);
    const double n0[3] = {0.3, -0.8, 0.52};
    const phys::FaceInput in = make_input(g, n0, 5);
    phys::FaceCoeffs fc;
    phys::face_equilibrium(in, g, 0.1, fc);
    phys::FaceCoeffs spoiled_R = fc, spoiled_L = fc;
    for (int j = 0; j < 3; ++j) {
        spoiled_R.aR[j].a0 += 5.0;
        spoiled_R.aR[j].aU[1] -= 3.0;
        spoiled_L.aL[j].aE += 4.0;
    }
    const double zero[3] = {0, 0, 0};
    const double u_pos[3] = {0.9, -0.4, 0.3}, u_neg[3] = {-0.7, 0.5, -0.2};
    for (const double* u : {u_pos, u_neg}) {
        const double un = u[0] * in.n[0] + u[1] * in.n[1] + u[2] * in.n[2];
        double a[4], b[4], c[4];
        phys::micro_flux(fc, g, u, un, 0.1, 0.0, zero, zero, a[0], a[1], a[2], a[3]);
        phys::micro_flux(spoiled_R, g, u, un, 0.1, 0.0, zero, zero, b[0], b[1], b[2], b[3]);
        phys::micro_flux(spoiled_L, g, u, un, 0.1, 0.0, zero, zero, c[0], c[1], c[2], c[3]);
        if (un > 0) {
            EXPECT_EQ(a[0], b[0]);
            EXPECT_NE(a[0], c[0]);
        } else {
            EXPECT_EQ(a[0], c[0]);
            EXPECT_NE(a[0], b[0]);
        }
    }
}

// Maxwellian moments, state conversions, micro-slope solve, Shakhov terms and the raw-moment heat
// flux (docs/formulation.md sections 2, 5.4, 5.8, 10) against brute-force quadrature.
#include <gtest/gtest.h>

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

const double kX[3] = {1.0, 0.0, 0.0};

}  // namespace

TEST(MaxwellianMoments, FullAndHalfSpaceMatchQuadrature) {
    struct Case {
        double U, lambda;
    };
    for (const Case c :
         {Case{-1.3, 0.7}, Case{0.0, 1.0}, Case{0.4, 2.0}, Case{2.5, 3.0}, Case{-4.0, 1.5}}) {
        double full[8], pos[8], neg[8];
        phys::maxwellian_moments_1d(c.U, c.lambda, 7, full, pos, neg);
        phys::Prim p = prim(1, 1.0, c.U, 0, 0, c.lambda);
        double ref[3][8] = {};
        for (int side : {0, +1, -1}) {
            for (const QNode& q : ugks::test::maxwellian_nodes(p, 1, kX, side)) {
                const double g = ugks::test::maxwell_H(p, 1, q.u);
                double pw = 1.0;
                for (int k = 0; k < 8; ++k, pw *= q.u[0])
                    ref[side == 0 ? 0 : (side > 0 ? 1 : 2)][k] += q.w * g * pw;
            }
        }
        const double sigma = 1.0 / std::sqrt(c.lambda);
        for (int k = 0; k < 8; ++k) {
            // Absolute tolerance on the natural scale (|U| + sigma)^k of the k-th moment.
            const double tol = 1e-13 * std::pow(std::fabs(c.U) + sigma, k);
            EXPECT_NEAR(full[k], ref[0][k], tol) << "U " << c.U << " k " << k;
            EXPECT_NEAR(pos[k], ref[1][k], tol) << "U " << c.U << " k " << k;
            EXPECT_NEAR(neg[k], ref[2][k], tol) << "U " << c.U << " k " << k;
            EXPECT_NEAR(pos[k] + neg[k], full[k], tol) << "U " << c.U << " k " << k;
        }
    }
    // Closed forms: <u^2> = U^2 + 1/(2 lambda), <u^4> = U^4 + 3U^2/lambda + 3/(4 lambda^2);
    // <u^0>_{>0} = 1/2 and <u^1>_{>0} = 1/(2 sqrt(pi lambda)) at U = 0.
    double full[8], pos[8];
    phys::maxwellian_moments_1d(0.7, 2.0, 7, full, pos, nullptr);
    EXPECT_NEAR(full[2], 0.49 + 0.25, 1e-15);
    EXPECT_NEAR(full[4], 0.7 * 0.7 * 0.7 * 0.7 + 3 * 0.49 / 2.0 + 3.0 / 16.0, 1e-15);
    phys::maxwellian_moments_1d(0.0, 2.0, 7, nullptr, pos, nullptr);
    EXPECT_DOUBLE_EQ(pos[0], 0.5);
    EXPECT_NEAR(pos[1], 0.5 / std::sqrt(3.14159265358979323846 * 2.0), 1e-16);
}

TEST(KineticState, ConversionsAndMaxwellianMoments) {
    // prim -> W -> prim round trip, and the moments of (H, B) reproduce W for every D and K_int.
    for (int K_int : {0, 2}) {
        for (int D = 1; D <= 3; ++D) {
            const phys::GasParams g = gas(D, K_int);
            const phys::Prim p = prim(D, 1.3, 0.4, -0.7, 0.25, 0.8);
            double W[5];
            phys::prim_to_cons(p, g.N, W);
            const phys::Prim back = phys::cons_to_prim(W, g.N);
            EXPECT_NEAR(back.rho, p.rho, 1e-15);
            for (int d = 0; d < 3; ++d) EXPECT_NEAR(back.U[d], p.U[d], 1e-15);
            EXPECT_NEAR(back.lambda, p.lambda, 1e-14);
            // rho E = rho |U|^2/2 + N rho / (4 lambda)
            const double U2 = p.U[0] * p.U[0] + p.U[1] * p.U[1] + p.U[2] * p.U[2];
            EXPECT_NEAR(W[4], 0.5 * 1.3 * U2 + g.N * 1.3 / (4 * 0.8), 1e-14);

            double m[5] = {0, 0, 0, 0, 0};
            for (const QNode& q : ugks::test::maxwellian_nodes(p, D, kX, 0)) {
                double H, B;
                phys::maxwellian(p, g, q.u, H, B);
                EXPECT_NEAR(H, ugks::test::maxwell_H(p, D, q.u), 1e-14 * (1 + H));
                EXPECT_NEAR(B, g.K / (2 * p.lambda) * H, 1e-15 * (1 + H));
                const double u2 = q.u[0] * q.u[0] + q.u[1] * q.u[1] + q.u[2] * q.u[2];
                m[0] += q.w * H;
                for (int d = 0; d < 3; ++d) m[1 + d] += q.w * q.u[d] * H;
                m[4] += q.w * 0.5 * (u2 * H + B);
            }
            for (int i = 0; i < 5; ++i) EXPECT_NEAR(m[i], W[i], 1e-13) << "D " << D << " i " << i;
        }
    }
}

TEST(KineticState, RelaxationTime) {
    phys::GasParams g;
    g.mu_ref = 0.1;
    g.omega = 0.81;
    phys::Prim p;
    p.rho = 0.5;
    p.lambda = 2.0;
    // 2 mu_ref lambda^(1 - omega) / rho = 2 * 0.1 * 2^0.19 / 0.5
    EXPECT_NEAR(phys::relaxation_time(p, g), 0.45630548634736945, 1e-15);
}

TEST(MicroSlope, InvertsMomentsOfSlopeTimesMaxwellian) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    for (int K_int : {0, 2}) {
        for (int D = 1; D <= 3; ++D) {
            const phys::GasParams g = gas(D, K_int);
            const phys::Prim p = prim(D, 1.1, 0.35, -0.2, 0.5, 1.7);
            const ugks::test::XiMoments X = ugks::test::xi_moments(g.K, p.lambda);
            for (int trial = 0; trial < 3; ++trial) {
                phys::Slope a;
                a.a0 = uni(rng);
                for (int d = 0; d < D; ++d) a.aU[d] = uni(rng);
                a.aE = uni(rng);
                // dW = int psi (a0 + aU.u + aE (|u|^2 + xi^2)/2) g, xi integrated analytically.
                double dW[5] = {0, 0, 0, 0, 0};
                for (const QNode& q : ugks::test::maxwellian_nodes(p, D, kX, 0)) {
                    const double u2 = q.u[0] * q.u[0] + q.u[1] * q.u[1] + q.u[2] * q.u[2];
                    const double c[3] = {a.a0 + a.aU[0] * q.u[0] + a.aU[1] * q.u[1] +
                                             a.aU[2] * q.u[2] + 0.5 * a.aE * u2,
                                         0.5 * a.aE, 0.0};
                    ugks::test::add_psi_xi(q.w * ugks::test::maxwell_H(p, D, q.u), q.u, c, X, dW);
                }
                const phys::Slope s = phys::micro_slope(p, g.N, dW);
                EXPECT_NEAR(s.a0, a.a0, 1e-12) << "D " << D << " K_int " << K_int;
                for (int d = 0; d < 3; ++d) EXPECT_NEAR(s.aU[d], a.aU[d], 1e-12) << "D " << D;
                EXPECT_NEAR(s.aE, a.aE, 1e-12) << "D " << D << " K_int " << K_int;
            }
        }
    }
}

TEST(Shakhov, ConservesAndRelaxesHeatFlux) {
    for (int K_int : {0, 2}) {
        for (int D = 1; D <= 3; ++D) {
            const phys::GasParams g = gas(D, K_int);
            const phys::Prim p = prim(D, 0.9, 0.3, -0.45, 0.2, 1.4);
            const double q[3] = {0.05, D >= 2 ? -0.03 : 0.0, D >= 3 ? 0.02 : 0.0};
            double mom[5] = {0, 0, 0, 0, 0}, heat[3] = {0, 0, 0}, heat_plus[3] = {0, 0, 0};
            for (const QNode& n : ugks::test::maxwellian_nodes(p, D, kX, 0, 14)) {
                double H, B, hp, bp;
                phys::maxwellian(p, g, n.u, H, B);
                phys::shakhov_equilibrium(p, q, g, n.u, hp, bp);
                const double Hs = hp - H, Bs = bp - B;  // the Shakhov parts alone
                const double u2 = n.u[0] * n.u[0] + n.u[1] * n.u[1] + n.u[2] * n.u[2];
                double c[3], c2 = 0.0;
                for (int d = 0; d < 3; ++d) {
                    c[d] = n.u[d] - p.U[d];
                    c2 += c[d] * c[d];
                }
                mom[0] += n.w * Hs;
                for (int d = 0; d < 3; ++d) mom[1 + d] += n.w * n.u[d] * Hs;
                mom[4] += n.w * 0.5 * (u2 * Hs + Bs);
                for (int d = 0; d < 3; ++d) {
                    heat[d] += n.w * 0.5 * c[d] * (c2 * H + B);  // the Maxwellian carries none
                    heat_plus[d] += n.w * 0.5 * c[d] * (c2 * hp + bp);
                }
            }
            for (int i = 0; i < 5; ++i)
                EXPECT_NEAR(mom[i], 0.0, 1e-13) << "D " << D << " K_int " << K_int << " i " << i;
            for (int d = 0; d < 3; ++d) {
                EXPECT_NEAR(heat[d], 0.0, 1e-14);
                EXPECT_NEAR(heat_plus[d], (1.0 - g.Pr) * q[d], 1e-13)
                    << "D " << D << " K_int " << K_int;
            }
        }
    }
}

TEST(Shakhov, ReducedMonatomicFormsOfSection24) {
    // K_int = 0: H+ = 0.8 (1-Pr) (lambda^2/rho) (c.q) (2 lambda |c|^2 + K - 5) H and
    //            B+ = 0.8 (1-Pr) (lambda^2/rho) (c.q) (2 lambda |c|^2 + K - 3) B, K = 3 - D.
    const double u_list[3][3] = {{0.7, -0.2, 1.1}, {-1.3, 0.4, 0.0}, {0.05, 1.9, -0.6}};
    for (int D = 1; D <= 3; ++D) {
        const phys::GasParams g = gas(D, 0);
        const phys::Prim p = prim(D, 1.2, -0.3, 0.6, 0.1, 0.75);
        const double q[3] = {0.04, D >= 2 ? 0.07 : 0.0, D >= 3 ? -0.05 : 0.0};
        for (const auto& uu : u_list) {
            const double u[3] = {uu[0], D >= 2 ? uu[1] : 0.0, D >= 3 ? uu[2] : 0.0};
            double H, B, hp, bp;
            phys::maxwellian(p, g, u, H, B);
            phys::shakhov_equilibrium(p, q, g, u, hp, bp);
            double c2 = 0.0, cq = 0.0;
            for (int d = 0; d < D; ++d) {
                c2 += (u[d] - p.U[d]) * (u[d] - p.U[d]);
                cq += (u[d] - p.U[d]) * q[d];
            }
            const double pre = 0.8 * (1.0 - g.Pr) * p.lambda * p.lambda / p.rho * cq;
            const int K = 3 - D;
            EXPECT_NEAR(hp - H, pre * (2 * p.lambda * c2 + K - 5) * H, 1e-15) << "D " << D;
            EXPECT_NEAR(bp - B, pre * (2 * p.lambda * c2 + K - 3) * B, 1e-15) << "D " << D;
            if (D == 3) {
                EXPECT_EQ(bp, 0.0);  // K = 0: b identically zero
            }
        }
    }
}

TEST(HeatFlux, RawMomentsMatchCentralSum) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> uni(-1.0, 1.0), pos(0.1, 1.0);
    const double U[3] = {0.4, -0.3, 0.2};
    double M0 = 0, M1[3] = {}, M2[9] = {}, M3[3] = {}, B0 = 0, B1[3] = {}, direct[3] = {};
    double scale = 0.0;
    for (int k = 0; k < 500; ++k) {
        const double u[3] = {2 * uni(rng), 2 * uni(rng), 2 * uni(rng)};
        const double w = pos(rng), h = pos(rng), b = pos(rng);
        const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        M0 += w * h;
        B0 += w * b;
        double c[3], c2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            M1[i] += w * u[i] * h;
            M3[i] += w * u[i] * u2 * h;
            B1[i] += w * u[i] * b;
            for (int j = 0; j < 3; ++j) M2[3 * i + j] += w * u[i] * u[j] * h;
            c[i] = u[i] - U[i];
            c2 += c[i] * c[i];
        }
        for (int i = 0; i < 3; ++i) direct[i] += 0.5 * w * c[i] * (c2 * h + b);
        scale += w * (std::pow(std::sqrt(u2) + 1.0, 3) * h + 3 * b);
    }
    double q[3];
    phys::heat_flux_from_raw(U, M0, M1, M2, M3, B0, B1, q);
    // Round-off of the raw sums relative to their magnitude (~500 terms of size ~scale/500).
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(q[i], direct[i], 1e-14 * scale) << i;
    // The b part alone: q_b = 1/2 (B1 - U B0) (M* = 0).
    double z[9] = {}, qb[3];
    phys::heat_flux_from_raw(U, 0.0, z, z, z, 2.0, z, qb);
    for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(qb[i], -U[i]);
}

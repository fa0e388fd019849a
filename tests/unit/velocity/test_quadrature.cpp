// 1D rules and tensor grids: exactness, Maxwellian moments (docs/formulation.md
// sections 2.3, 3.1-3.2).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

const double kSqrtPi = std::sqrt(std::acos(-1.0));

// sum_i r_i x_i^k against the exact integral, relative to sum_i |r_i x_i^k| (the scale of
// round-off).
double moment_error(const std::vector<double>& x, const std::vector<double>& r, int k,
                    double exact) {
    double s = 0, scale = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double t = r[i] * std::pow(x[i], k);
        s += t;
        scale += std::fabs(t);
    }
    return scale > 0 ? std::fabs(s - exact) / scale : std::fabs(s - exact);
}

// Raw Gauss weights w_i = omega_i e^{-x_i^2} from the effective ones (scale 1, offset 0).
std::vector<double> raw_weights(const std::vector<double>& x, const std::vector<double>& w) {
    std::vector<double> r(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = w[i] * std::exp(-x[i] * x[i]);
    return r;
}

double full_range_moment(int k) { return k % 2 ? 0.0 : std::tgamma((k + 1) / 2.0); }

TEST(GaussHermite, ClosedFormForTwoAndThreePoints) {
    std::vector<double> x, w;
    gauss_hermite_1d(2, 1.0, 0.0, x, w);
    ASSERT_EQ(x.size(), 2u);
    EXPECT_NEAR(x[0], -1 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(x[1], 1 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(w[0], kSqrtPi / 2 * std::exp(0.5), 1e-14);
    EXPECT_NEAR(w[1], kSqrtPi / 2 * std::exp(0.5), 1e-14);

    gauss_hermite_1d(3, 1.0, 0.0, x, w);
    ASSERT_EQ(x.size(), 3u);
    EXPECT_EQ(x[1], 0.0);
    EXPECT_NEAR(x[2], std::sqrt(1.5), 1e-15);
    EXPECT_EQ(x[0], -x[2]);
    EXPECT_NEAR(w[1], 2 * kSqrtPi / 3, 1e-15);
    EXPECT_NEAR(w[2], kSqrtPi / 6 * std::exp(1.5), 1e-14);
    EXPECT_EQ(w[0], w[2]);

    gauss_hermite_1d(1, 1.0, 0.0, x, w);
    ASSERT_EQ(x.size(), 1u);
    EXPECT_EQ(x[0], 0.0);
    EXPECT_NEAR(w[0], kSqrtPi, 1e-15);
}

TEST(GaussHermite, ExactForDegree2nMinus1AndNotBeyond) {
    for (int n : {1, 2, 3, 5, 10, 28, 41}) {
        std::vector<double> x, w;
        gauss_hermite_1d(n, 1.0, 0.0, x, w);
        const auto r = raw_weights(x, w);
        for (int k = 0; k <= 2 * n - 1; ++k)
            EXPECT_LT(moment_error(x, r, k, full_range_moment(k)), 2e-14)
                << "n=" << n << " k=" << k;
        if (n > 10) continue;  // below: cancellation would hide the small difference
        // x^{2n} = pi_n(x)^2 + (degree < 2n) and pi_n vanishes at the nodes, so the rule misses
        // x^{2n} by exactly the squared norm of the monic Hermite polynomial, sqrt(pi) n! / 2^n.
        double s = 0;
        for (int i = 0; i < n; ++i) s += r[i] * std::pow(x[i], 2 * n);
        const double norm2 = kSqrtPi * std::tgamma(n + 1.0) / std::pow(2.0, n);
        EXPECT_NEAR(full_range_moment(2 * n) - s, norm2, 1e-10 * norm2) << "n=" << n;
    }
}

TEST(GaussHermite, LargeRuleHasFiniteEffectiveWeightsAndExactLowMoments) {
    std::vector<double> x, w;
    gauss_hermite_1d(200, 1.0, 0.0, x, w);
    ASSERT_EQ(x.size(), 200u);
    for (int i = 0; i < 200; ++i) {
        ASSERT_TRUE(std::isfinite(w[i]) && w[i] > 0) << i;
        EXPECT_EQ(x[i], -x[199 - i]);
        EXPECT_EQ(w[i], w[199 - i]);
        if (i > 0) {
            EXPECT_GT(x[i], x[i - 1]);
        }
    }
    // The largest zero of H_200 (asymptotically sqrt(2n+1) - 1.85575 (2n+1)^(-1/6) ~ 19.34).
    EXPECT_NEAR(x[199], 19.3392, 1e-3);
    const auto r = raw_weights(x, w);
    for (int k : {0, 2, 4, 8})
        EXPECT_LT(moment_error(x, r, k, full_range_moment(k)), 1e-13) << "k=" << k;
    // The effective weights integrate a function that is not e^{-x^2}-weighted: int e^{-x^2/2} =
    // sqrt(2 pi).
    double s = 0;
    for (int i = 0; i < 200; ++i) s += w[i] * std::exp(-x[i] * x[i] / 2);
    EXPECT_NEAR(s, std::sqrt(2 * std::acos(-1.0)), 1e-12);
}

TEST(GaussHermite, ScaleAndOffsetMapNodesAndWeights) {
    std::vector<double> x1, w1, x, w;
    gauss_hermite_1d(8, 1.0, 0.0, x1, w1);
    gauss_hermite_1d(8, 1.7, -0.4, x, w);
    for (int i = 0; i < 8; ++i) {
        EXPECT_DOUBLE_EQ(x[i], -0.4 + 1.7 * x1[i]);
        EXPECT_DOUBLE_EQ(w[i], 1.7 * w1[i]);
    }
}

TEST(GaussHermite, BadArgumentsThrow) {
    std::vector<double> x, w;
    EXPECT_THROW(gauss_hermite_1d(0, 1.0, 0.0, x, w), InputError);
    EXPECT_THROW(gauss_hermite_1d(501, 1.0, 0.0, x, w), InputError);
    EXPECT_THROW(gauss_hermite_1d(4, 0.0, 0.0, x, w), InputError);
}

TEST(HalfRangeGaussHermite, HalfRangeMomentsExactToDegreeNMinus1) {
    for (int n : {2, 6, 28, 60}) {
        std::vector<double> x, w;
        half_range_gauss_hermite_1d(n, 1.0, 0.0, x, w);
        ASSERT_EQ(static_cast<int>(x.size()), n);
        const int h = n / 2;
        std::vector<double> xp(x.begin() + h, x.end()), wp(w.begin() + h, w.end());
        const auto r = raw_weights(xp, wp);
        // int_0^inf x^k e^{-x^2} dx = Gamma((k+1)/2) / 2, odd k included: Gauss with h nodes, k <=
        // 2h-1.
        for (int k = 0; k <= 2 * h - 1; ++k)
            EXPECT_LT(moment_error(xp, r, k, std::tgamma((k + 1) / 2.0) / 2), 2e-14)
                << "n=" << n << " k=" << k;
        if (h <= 3) {  // not exact beyond degree 2h-1
            EXPECT_GT(moment_error(xp, r, 2 * h, std::tgamma((2 * h + 1) / 2.0) / 2), 1e-3)
                << "n=" << n;
        }
        if (h == 1) {  // missed by |x - 1/sqrt(pi)|^2 = sqrt(pi)/4 - 1/(2 sqrt(pi)) exactly
            const double miss = std::tgamma(1.5) / 2 - r[0] * xp[0] * xp[0];
            EXPECT_NEAR(miss, kSqrtPi / 4 - 1 / (2 * kSqrtPi), 1e-15);
        }
        for (int i = 0; i < h; ++i) {
            EXPECT_GT(x[h + i], 0.0);
            EXPECT_EQ(x[h - 1 - i], -x[h + i]);
            EXPECT_EQ(w[h - 1 - i], w[h + i]);
        }
    }
}

TEST(HalfRangeGaussHermite, TwoPointRuleIsOneOverSqrtPi) {
    // One half-range node: x = int x e^{-x^2} / int e^{-x^2} = (1/2) / (sqrt(pi)/2) = 1/sqrt(pi).
    std::vector<double> x, w;
    half_range_gauss_hermite_1d(2, 1.0, 0.0, x, w);
    EXPECT_NEAR(x[1], 1 / kSqrtPi, 1e-15);
    EXPECT_NEAR(w[1], kSqrtPi / 2 * std::exp(1 / std::acos(-1.0)), 1e-14);
}

// The 28-point set of the public DUGKS/UGKS codes (zhulianhua/dugksFoam, demo/cavity/constant/Xis
// and weights: the half-range set of Shizgal 1981 mirrored, in dimensional units, i.e. multiplied
// by a velocity scale C). Compared scale-free: those values were computed to about 4 digits only.
TEST(HalfRangeGaussHermite, TwentyEightPointsMatchThePublicSet) {
    const double xis[14] = {8.081669586856050e+00, 4.191053058086345e+01, 1.002983167645718e+02,
                            1.798942417098881e+02, 2.772085504030553e+02, 3.892375482630983e+02,
                            5.137434245348340e+02, 6.493245662100430e+02, 7.954230659260544e+02,
                            9.523873153677370e+02, 1.121719095479805e+03, 1.306783128480995e+03,
                            1.514943121961132e+03, 1.766485662735688e+03};
    const double wts[14] = {2.066084454942525e+01, 4.661085500484188e+01, 6.958929437156898e+01,
                            8.901058452507309e+01, 1.051131321231802e+02, 1.185710858159069e+02,
                            1.302072032320505e+02, 1.408613179744801e+02, 1.513901552686665e+02,
                            1.627784378252140e+02, 1.764172456545240e+02, 1.948391592920267e+02,
                            2.243011914182848e+02, 2.903729432102395e+02};
    std::vector<double> x, w;
    half_range_gauss_hermite_1d(28, 1.0, 0.0, x, w);
    // Our exact rule: the end nodes (regression values, moments are checked above).
    EXPECT_NEAR(x[14], 0.0239568, 1e-7);
    EXPECT_NEAR(x[27], 5.238431, 1e-6);
    double c = 0;  // least-squares velocity scale of the public set
    double num = 0, den = 0;
    for (int i = 0; i < 14; ++i) {
        num += xis[i] * x[14 + i];
        den += x[14 + i] * x[14 + i];
    }
    c = num / den;
    for (int i = 0; i < 14; ++i) {
        EXPECT_NEAR(xis[i] / (c * x[14 + i]), 1.0, 5e-4) << i;
        EXPECT_NEAR(wts[i] / (c * w[14 + i]), 1.0, 5e-4) << i;
    }
}

TEST(HalfRangeGaussHermite, OddOrTooFewPointsThrow) {
    std::vector<double> x, w;
    EXPECT_THROW(half_range_gauss_hermite_1d(27, 1.0, 0.0, x, w), InputError);
    EXPECT_THROW(half_range_gauss_hermite_1d(0, 1.0, 0.0, x, w), InputError);
    EXPECT_THROW(half_range_gauss_hermite_1d(28, -1.0, 0.0, x, w), InputError);
}

TEST(NewtonCotes, BooleWeightsAndNodes) {
    std::vector<double> x, w;
    newton_cotes_1d(9, -1.0, 3.0, x, w);
    const double h = 0.5;
    const double c[9] = {14, 64, 24, 64, 28, 64, 24, 64, 14};
    for (int i = 0; i < 9; ++i) {
        EXPECT_DOUBLE_EQ(x[i], -1.0 + i * h);
        EXPECT_DOUBLE_EQ(w[i], h * c[i] / 45);
    }
    EXPECT_EQ(x[8], 3.0);
}

TEST(NewtonCotes, ExactForQuinticsNotSextics) {
    const double lo = -1.3, hi = 2.1;
    std::vector<double> x, w;
    newton_cotes_1d(13, lo, hi, x, w);
    for (int k = 0; k <= 6; ++k) {
        double s = 0;
        for (std::size_t i = 0; i < x.size(); ++i) s += w[i] * std::pow(x[i], k);
        const double exact = (std::pow(hi, k + 1) - std::pow(lo, k + 1)) / (k + 1);
        if (k <= 5)
            EXPECT_NEAR(s, exact, 1e-13 * std::fabs(exact) + 1e-14) << k;
        else
            EXPECT_GT(std::fabs(s - exact), 1e-6) << k;
    }
}

TEST(NewtonCotes, SixthOrderConvergence) {
    // A Maxwellian cut off where it is not negligible: error O(h^6), ratio -> 2^6 = 64 per halving
    // (measured 65.9, 64.4, 64.1 for m = 8 -> 16 -> 32 -> 64 panels).
    const double lo = -1.0, hi = 2.0, u0 = 0.3;
    const double exact = kSqrtPi / 2 * (std::erf(hi - u0) + std::erf(u0 - lo));
    std::vector<double> err;
    for (int m : {8, 16, 32, 64}) {
        std::vector<double> x, w;
        newton_cotes_1d(4 * m + 1, lo, hi, x, w);
        double s = 0;
        for (std::size_t i = 0; i < x.size(); ++i) s += w[i] * std::exp(-(x[i] - u0) * (x[i] - u0));
        err.push_back(std::fabs(s - exact));
    }
    for (std::size_t i = 1; i < err.size(); ++i) {
        const double ratio = err[i - 1] / err[i];
        EXPECT_GT(ratio, 60.0) << i;
        EXPECT_LT(ratio, 68.0) << i;
    }
}

TEST(NewtonCotes, BadCountsThrowWithTheRule) {
    std::vector<double> x, w;
    for (int n : {1, 4, 6, 7, 8, 30}) {
        try {
            newton_cotes_1d(n, -4, 4, x, w);
            ADD_FAILURE() << "no error for n=" << n;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("4m+1"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("got " + std::to_string(n)), std::string::npos)
                << e.what();
        }
    }
    EXPECT_THROW(newton_cotes_1d(9, 4, 4, x, w), InputError);
    EXPECT_THROW(newton_cotes_1d(9, 4, -4, x, w), InputError);
}

// ---- Maxwellian moments on tensor grids ---------------------------------------------------------

struct Moments {
    double rho = 0;
    Vec3 mom{0, 0, 0};
    double energy = 0;                                   // sum w |u|^2 H
    double p[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  // sum w c_i c_j H
    Vec3 q{0, 0, 0};                                     // 1/2 sum w c |c|^2 H
    double c4 = 0;                                       // sum w |c|^4 H
};

// H = rho (lam/pi)^{D/2} exp(-lam |u - U|^2), moments with c = u - U (exact U).
Moments maxwellian_moments(const VelocityGrid& g, double rho, const Vec3& U, double lam) {
    const int D = g.dim;
    const double pi = std::acos(-1.0);
    Moments m;
    for (index_t k = 0; k < g.size(); ++k) {
        Vec3 c{0, 0, 0};
        double c2 = 0, u2 = 0;
        for (int d = 0; d < D; ++d) {
            c[d] = g.u[k][d] - U[d];
            c2 += c[d] * c[d];
            u2 += g.u[k][d] * g.u[k][d];
        }
        const double wh = g.w[k] * rho * std::pow(lam / pi, D / 2.0) * std::exp(-lam * c2);
        m.rho += wh;
        for (int d = 0; d < D; ++d) {
            m.mom[d] += wh * g.u[k][d];
            m.q[d] += 0.5 * wh * c[d] * c2;
            for (int e = 0; e < D; ++e) m.p[d][e] += wh * c[d] * c[e];
        }
        m.energy += wh * u2;
        m.c4 += wh * c2 * c2;
    }
    return m;
}

void expect_maxwellian_moments(const VelocityGrid& g, double tol, const std::string& what) {
    const double rho = 1.3, T = 0.8, lam = 1 / T;
    const Vec3 U{0.2, -0.1, 0.05};
    const int D = g.dim;
    const Moments m = maxwellian_moments(g, rho, U, lam);
    const double p = rho / (2 * lam);
    double U2 = 0;
    for (int d = 0; d < D; ++d) U2 += U[d] * U[d];
    EXPECT_NEAR(m.rho, rho, tol * rho) << what;
    for (int d = 0; d < D; ++d) {
        EXPECT_NEAR(m.mom[d], rho * U[d], tol * rho) << what << " d=" << d;
        EXPECT_NEAR(m.q[d], 0.0, tol * rho) << what << " d=" << d;
        for (int e = 0; e < D; ++e)
            EXPECT_NEAR(m.p[d][e], d == e ? p : 0.0, tol * p) << what << " " << d << e;
    }
    EXPECT_NEAR(m.energy, rho * U2 + D * p, tol * (rho * U2 + D * p)) << what;
    const double c4 = rho * D * (D + 2) / (4 * lam * lam);
    EXPECT_NEAR(m.c4, c4, tol * c4) << what;
}

VelocityGrid tensor(int dim, const std::string& type, int n, double a, double b) {
    std::array<std::vector<double>, 3> x, w;
    for (int d = 0; d < dim; ++d) {
        if (type == "gauss_hermite")
            gauss_hermite_1d(n, a, b, x[d], w[d]);
        else if (type == "half_range_gauss_hermite")
            half_range_gauss_hermite_1d(n, a, b, x[d], w[d]);
        else
            newton_cotes_1d(n, a, b, x[d], w[d]);
    }
    return make_tensor_velocity_grid(dim, x, w, type);
}

// Tolerance 1e-12 (relative to rho, p, the energy, <|c|^4>) for every rule below; the measured
// errors are at round-off (~1e-16 in 1D) although T = 0.8 and U != 0 differ from the rules' own
// temperature.
TEST(MaxwellianMoments, GaussHermite) {
    for (int D = 1; D <= 3; ++D)
        expect_maxwellian_moments(tensor(D, "gauss_hermite", 28, 1, 0), 1e-12,
                                  "GH D=" + std::to_string(D));
    expect_maxwellian_moments(tensor(2, "gauss_hermite", 40, 1.2, 0.1), 1e-12,
                              "GH 40, scale, offset");
}

TEST(MaxwellianMoments, HalfRangeGaussHermite) {
    for (int D = 1; D <= 3; ++D)
        expect_maxwellian_moments(tensor(D, "half_range_gauss_hermite", 28, 1, 0), 1e-12,
                                  "half-range D=" + std::to_string(D));
}

TEST(MaxwellianMoments, NewtonCotesWideRange) {
    // Boole = (64 T(h) - 20 T(2h) + T(4h)) / 45 with trapezoid sums T, so on a range where the
    // Maxwellian vanishes its error is the aliasing error of T(4h), ~ (2/45) exp(-pi^2 / (lam
    // (4h)^2)): 105 points on [-6, 6] (h = 0.115) make that ~ 4e-18.
    for (int D = 1; D <= 3; ++D)
        expect_maxwellian_moments(tensor(D, "newton_cotes", 105, -6, 6), 1e-12,
                                  "NC D=" + std::to_string(D));
    // 41 points on [-7, 7] (4h = 1.4) are visibly worse (~1e-3): the reason [S1] uses 61 points on
    // [-4, 4].
    const Moments m =
        maxwellian_moments(tensor(1, "newton_cotes", 41, -7, 7), 1.3, {0.2, -0.1, 0.05}, 1.25);
    EXPECT_GT(std::fabs(m.rho - 1.3), 1e-5);
}

TEST(TensorGrid, OrderingLastAxisFastestAndProductWeights) {
    std::array<std::vector<double>, 3> x{std::vector<double>{-1, 1}, std::vector<double>{-2, 0, 2},
                                         std::vector<double>{-3, 3}},
        w{std::vector<double>{0.5, 1.5}, std::vector<double>{1, 2, 3}, std::vector<double>{7, 11}};
    const auto g = make_tensor_velocity_grid(3, x, w, "test");
    ASSERT_EQ(g.size(), 12);
    EXPECT_EQ(g.counts, (std::array<int, 3>{2, 3, 2}));
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < 2; ++l) {
                const index_t k = (i * 3 + j) * 2 + l;
                EXPECT_EQ(g.u[k], (Vec3{x[0][i], x[1][j], x[2][l]}));
                EXPECT_EQ(g.w[k], w[0][i] * w[1][j] * w[2][l]);
            }
    const auto g2 = make_tensor_velocity_grid(2, x, w, "test");
    ASSERT_EQ(g2.size(), 6);
    EXPECT_EQ(g2.counts, (std::array<int, 3>{2, 3, 1}));
    EXPECT_EQ(g2.u[5], (Vec3{1, 2, 0}));
    EXPECT_EQ(g2.w[5], 1.5 * 3);
    EXPECT_TRUE(g2.is_tensor());
}

}  // namespace
}  // namespace ugks

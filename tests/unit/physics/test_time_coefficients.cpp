// q1..q5 (docs/formulation.md section 5.6) against high-order quadrature of their integral
// definitions, their limits, and the switch between the series and the closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kinetic_quadrature.hpp"
#include "ugks/physics/kinetic.hpp"

namespace {
using ugks::phys::time_coefficients;
using ugks::phys::TimeCoeffs;

// Integrands in s = t/tau, evaluated without cancellation: f2 = (1+s)e^{-s} - 1 and
// f3 = s - 1 + e^{-s} by their Taylor series for s < 0.5 (terms fall by >= 4x, 40 terms).
double f2(double s) {
    if (s >= 0.5) return (1.0 + s) * std::exp(-s) - 1.0;
    double sum = 0.0, pw = s;  // pw = s^m / m!
    for (int m = 2; m < 40; ++m) {
        pw *= s / m;
        sum += ((m % 2 == 0) ? 1.0 : -1.0) * (1.0 - m) * pw;
    }
    return sum;
}
double f3(double s) {
    if (s >= 0.5) return s - 1.0 + std::exp(-s);
    double sum = 0.0, pw = s;
    for (int m = 2; m < 40; ++m) {
        pw *= s / m;
        sum += ((m % 2 == 0) ? 1.0 : -1.0) * pw;
    }
    return sum;
}

// Composite 30-point Gauss-Legendre over [0, dt] with panels graded geometrically in t/tau
// (breakpoints tau/8, tau/4, ...), so the e^{-t/tau} layer is resolved for any tau.
TimeCoeffs reference(double dt, double tau) {
    std::vector<double> gx, gw;
    ugks::test::gauss_legendre(30, gx, gw);
    std::vector<double> br{0.0};
    for (double t = tau / 8; t < dt; t *= 2) br.push_back(t);
    br.push_back(dt);
    TimeCoeffs r{0, 0, 0, 0, 0};
    for (size_t p = 0; p + 1 < br.size(); ++p) {
        const double a = br[p], b = br[p + 1];
        for (size_t i = 0; i < gx.size(); ++i) {
            const double t = a + 0.5 * (b - a) * (gx[i] + 1.0), w = 0.5 * (b - a) * gw[i];
            const double s = t / tau;
            r.q1 += w * -std::expm1(-s);
            r.q2 += w * tau * f2(s);
            r.q3 += w * tau * f3(s);
            r.q4 += w * std::exp(-s);
            r.q5 += w * t * std::exp(-s);
        }
    }
    return r;
}

void expect_rel(const TimeCoeffs& c, const TimeCoeffs& r, double tol, const char* what) {
    EXPECT_LE(std::fabs(c.q1 - r.q1), tol * std::fabs(r.q1))
        << what << " q1 " << c.q1 << " " << r.q1;
    EXPECT_LE(std::fabs(c.q2 - r.q2), tol * std::fabs(r.q2))
        << what << " q2 " << c.q2 << " " << r.q2;
    EXPECT_LE(std::fabs(c.q3 - r.q3), tol * std::fabs(r.q3))
        << what << " q3 " << c.q3 << " " << r.q3;
    EXPECT_LE(std::fabs(c.q4 - r.q4), tol * std::fabs(r.q4))
        << what << " q4 " << c.q4 << " " << r.q4;
    EXPECT_LE(std::fabs(c.q5 - r.q5), tol * std::fabs(r.q5))
        << what << " q5 " << c.q5 << " " << r.q5;
}

}  // namespace

TEST(TimeCoefficients, MatchQuadratureOfDefinitions) {
    const double dt = 0.37;
    for (double tau : {1e-6, 1e-3, 0.05, 0.5, 5.0, 1e6}) {
        const TimeCoeffs c = time_coefficients(dt, tau);
        const TimeCoeffs r = reference(dt, tau);
        expect_rel(c, r, 1e-12, "tau");
        // Sanity of the reference itself: q1 + q4 = dt (identity of the integrands).
        EXPECT_NEAR(r.q1 + r.q4, dt, 1e-15);
    }
}

TEST(TimeCoefficients, MatchQuadratureOverWholeRange) {
    // x = dt/tau from 1e-8 to 1e4, 4 points per decade, both sides of the series switch at x = 1.
    const double dt = 0.37;
    for (int i = 0; i <= 48; ++i) {
        const double x = std::pow(10.0, -8.0 + 0.25 * i);
        const double tau = dt / x;
        expect_rel(time_coefficients(dt, tau), reference(dt, tau), 1e-12, "sweep");
    }
}

TEST(TimeCoefficients, ContinuousAcrossSeriesSwitch) {
    const double dt = 0.37;
    const double tau_closed = dt;  // x = 1 exactly: closed forms
    const double tau_series = dt / std::nextafter(1.0, 0.0);
    ASSERT_LT(dt / tau_series, 1.0);
    ASSERT_EQ(dt / tau_closed, 1.0);
    const TimeCoeffs a = time_coefficients(dt, tau_series), b = time_coefficients(dt, tau_closed);
    // The true change over one ulp of x is ~1e-16 relative; both branches are accurate to ~1e-15.
    expect_rel(a, b, 1e-14, "switch");
}

TEST(TimeCoefficients, FreeMolecularLimitIsExact) {
    const double dt = 0.37;
    for (double tau : {std::numeric_limits<double>::infinity(), 2e300}) {
        const TimeCoeffs c = time_coefficients(dt, tau);
        EXPECT_EQ(c.q1, 0.0);
        EXPECT_EQ(c.q2, 0.0);
        EXPECT_EQ(c.q3, 0.0);
        EXPECT_EQ(c.q4, dt);
        EXPECT_EQ(c.q5, 0.5 * dt * dt);
    }
    // Approach: leading terms q1 ~ dt x/2, q2 ~ -dt^2 x/6, q3 ~ dt^2 x/6, q4 ~ dt (1 - x/2),
    // q5 ~ dt^2 (1/2 - x/3) with x = dt/tau = 3.7e-13 (next terms O(x^2) ~ 1e-25 relative).
    const double tau = 1e12, x = dt / tau;
    const TimeCoeffs c = time_coefficients(dt, tau);
    EXPECT_NEAR(c.q1 / (0.5 * dt * x), 1.0, 1e-12);
    EXPECT_NEAR(c.q2 / (-dt * dt * x / 6.0), 1.0, 1e-12);
    EXPECT_NEAR(c.q3 / (dt * dt * x / 6.0), 1.0, 1e-12);
    EXPECT_NEAR(c.q4 / (dt * (1.0 - 0.5 * x)), 1.0, 1e-15);
    EXPECT_NEAR(c.q5 / (dt * dt * (0.5 - x / 3.0)), 1.0, 1e-15);
}

TEST(TimeCoefficients, ContinuumLimitWithoutNaN) {
    const double dt = 0.37;
    const TimeCoeffs z = time_coefficients(dt, 0.0);
    EXPECT_EQ(z.q1, dt);
    EXPECT_EQ(z.q2, 0.0);
    EXPECT_EQ(z.q3, 0.5 * dt * dt);
    EXPECT_EQ(z.q4, 0.0);
    EXPECT_EQ(z.q5, 0.0);
    // tau -> 0: q1 -> dt - tau, q2 -> -tau dt, q3 -> dt^2/2 - tau dt, q4 -> tau, q5 -> tau^2
    // (exp(-dt/tau) underflows to 0, which is exact to double precision here).
    for (double tau : {1e-30, 1e-300}) {
        const TimeCoeffs c = time_coefficients(dt, tau);
        for (double q : {c.q1, c.q2, c.q3, c.q4, c.q5}) EXPECT_TRUE(std::isfinite(q)) << tau;
        EXPECT_EQ(c.q1, dt);
        EXPECT_NEAR(c.q2 / (-tau * dt), 1.0, 1e-15) << tau;
        EXPECT_EQ(c.q3, 0.5 * dt * dt);
        EXPECT_NEAR(c.q4 / tau, 1.0, 1e-15) << tau;
        EXPECT_GE(c.q5, 0.0);
        EXPECT_LE(c.q5, 1.0001 * tau * tau);
    }
    const TimeCoeffs d = time_coefficients(dt, 4e-320);  // subnormal tau: x = inf, still finite
    for (double q : {d.q1, d.q2, d.q3, d.q4, d.q5}) EXPECT_TRUE(std::isfinite(q));
    EXPECT_EQ(d.q1, dt);
    EXPECT_EQ(d.q3, 0.5 * dt * dt);
    const TimeCoeffs e = time_coefficients(0.0, 0.0);  // empty interval: all zero, no 0/0
    for (double q : {e.q1, e.q2, e.q3, e.q4, e.q5}) EXPECT_EQ(q, 0.0);
}

#pragma once
/// Exact solution of the Riemann problem of the 1D Euler equations for an ideal gas (Toro, "Riemann
/// Solvers and Numerical Methods for Fluid Dynamics", 3rd ed., chapter 4: pressure function, Newton
/// iteration for p*, sampling). Header-only helper of the regression tests.
///
/// Units: any consistent set. In the solver's sqrt(2 R T_ref) units p = rho T / 2 and the sound
/// speed is sqrt(gamma p / rho) = sqrt(gamma T / 2); the Euler equations themselves do not depend
/// on the choice, only the conversion T <-> p does.
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace ugks::regression {

/// Primitive Euler state: density, velocity, pressure.
struct EulerState {
    double rho = 1.0;
    double u = 0.0;
    double p = 1.0;
};

/// Exact Riemann solution for left/right states separated at x0 at t = 0.
class ExactRiemann {
public:
    /// Solves for p* and u* (Newton on Toro's pressure function, relative tolerance 1e-15).
    /// Throws std::invalid_argument for non-positive states or when the data generate vacuum.
    ExactRiemann(const EulerState& left, const EulerState& right, double gamma)
        : m_l(left), m_r(right), m_g(gamma) {
        if (left.rho <= 0 || right.rho <= 0 || left.p <= 0 || right.p <= 0 || gamma <= 1)
            throw std::invalid_argument("ExactRiemann: non-positive state or gamma <= 1");
        m_cl = std::sqrt(m_g * m_l.p / m_l.rho);
        m_cr = std::sqrt(m_g * m_r.p / m_r.rho);
        if (2.0 / (m_g - 1.0) * (m_cl + m_cr) <= m_r.u - m_l.u)
            throw std::invalid_argument("ExactRiemann: the initial data generate vacuum");
        solve_star();
    }

    double gamma() const { return m_g; }
    double p_star() const { return m_ps; }
    double u_star() const { return m_us; }
    /// Density left / right of the contact.
    double rho_star_left() const { return star_density(m_l); }
    double rho_star_right() const { return star_density(m_r); }
    bool left_is_shock() const { return m_ps > m_l.p; }
    bool right_is_shock() const { return m_ps > m_r.p; }

    /// Solution at similarity coordinate s = (x - x0) / t (Toro section 4.5).
    EulerState sample(double s) const {
        const double g = m_g;
        if (s <= m_us) {
            const EulerState& K = m_l;
            const double c = m_cl;
            if (m_ps > K.p) {
                const double sl =
                    K.u - c * std::sqrt((g + 1) / (2 * g) * m_ps / K.p + (g - 1) / (2 * g));
                return s <= sl ? K : EulerState{star_density(K), m_us, m_ps};
            }
            if (s <= K.u - c) return K;
            const double cs = c * std::pow(m_ps / K.p, (g - 1) / (2 * g));
            if (s > m_us - cs) return EulerState{star_density(K), m_us, m_ps};
            const double u = 2 / (g + 1) * (c + (g - 1) / 2 * K.u + s);
            const double cf = 2 / (g + 1) * (c + (g - 1) / 2 * (K.u - s));
            return EulerState{K.rho * std::pow(cf / c, 2 / (g - 1)), u,
                              K.p * std::pow(cf / c, 2 * g / (g - 1))};
        }
        const EulerState& K = m_r;
        const double c = m_cr;
        if (m_ps > K.p) {
            const double sr =
                K.u + c * std::sqrt((g + 1) / (2 * g) * m_ps / K.p + (g - 1) / (2 * g));
            return s >= sr ? K : EulerState{star_density(K), m_us, m_ps};
        }
        if (s >= K.u + c) return K;
        const double cs = c * std::pow(m_ps / K.p, (g - 1) / (2 * g));
        if (s <= m_us + cs) return EulerState{star_density(K), m_us, m_ps};
        const double u = 2 / (g + 1) * (-c + (g - 1) / 2 * K.u + s);
        const double cf = 2 / (g + 1) * (c - (g - 1) / 2 * (K.u - s));
        return EulerState{K.rho * std::pow(cf / c, 2 / (g - 1)), u,
                          K.p * std::pow(cf / c, 2 * g / (g - 1))};
    }

    /// Speeds of every wave edge, ascending: left shock (1 entry) or rarefaction head and tail (2),
    /// contact, right shock or rarefaction tail and head. The solution is smooth between them.
    std::vector<double> wave_speeds() const {
        const double g = m_g;
        std::vector<double> s;
        if (m_ps > m_l.p) {
            s.push_back(m_l.u -
                        m_cl * std::sqrt((g + 1) / (2 * g) * m_ps / m_l.p + (g - 1) / (2 * g)));
        } else {
            s.push_back(m_l.u - m_cl);
            s.push_back(m_us - m_cl * std::pow(m_ps / m_l.p, (g - 1) / (2 * g)));
        }
        s.push_back(m_us);
        if (m_ps > m_r.p) {
            s.push_back(m_r.u +
                        m_cr * std::sqrt((g + 1) / (2 * g) * m_ps / m_r.p + (g - 1) / (2 * g)));
        } else {
            s.push_back(m_us + m_cr * std::pow(m_ps / m_r.p, (g - 1) / (2 * g)));
            s.push_back(m_r.u + m_cr);
        }
        return s;
    }

    /// Cell average over [a, b] at time t > 0 (diaphragm at x0) of the conserved variables
    /// (rho, rho u, rho E), rho E = rho u^2 / 2 + p / (gamma - 1). The interval is split at every
    /// wave edge and each smooth piece is integrated with 5-point Gauss-Legendre, so the average is
    /// exact to ~1e-12 for cells of a few 1e-3 (the fan is a smooth power law of x).
    std::array<double, 3> cell_average(double a, double b, double t, double x0) const {
        std::vector<double> cuts{a};
        for (double s : wave_speeds()) {
            const double x = x0 + s * t;
            if (x > a && x < b) cuts.push_back(x);
        }
        cuts.push_back(b);
        static const double xg[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                                     0.5384693101056831, 0.9061798459386640};
        static const double wg[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                                     0.4786286704993665, 0.2369268850561891};
        std::array<double, 3> sum{0, 0, 0};
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            const double lo = cuts[k], hi = cuts[k + 1], half = 0.5 * (hi - lo),
                         mid = 0.5 * (hi + lo);
            for (int q = 0; q < 5; ++q) {
                const EulerState w = sample((mid + half * xg[q] - x0) / t);
                const auto c = conserved(w);
                for (int d = 0; d < 3; ++d) sum[d] += half * wg[q] * c[d];
            }
        }
        for (auto& v : sum) v /= (b - a);
        return sum;
    }

    /// (rho, rho u, rho E) of a primitive state with this gamma.
    std::array<double, 3> conserved(const EulerState& w) const {
        return {w.rho, w.rho * w.u, 0.5 * w.rho * w.u * w.u + w.p / (m_g - 1.0)};
    }

private:
    // Toro (4.6)-(4.7): f_K(p) and its derivative for a shock (p > p_K) or a rarefaction.
    void pressure_function(double p, const EulerState& K, double c, double& f, double& df) const {
        const double g = m_g;
        if (p > K.p) {
            const double A = 2.0 / ((g + 1) * K.rho), B = (g - 1) / (g + 1) * K.p;
            const double root = std::sqrt(A / (B + p));
            f = (p - K.p) * root;
            df = root * (1.0 - 0.5 * (p - K.p) / (B + p));
        } else {
            const double r = p / K.p;
            f = 2.0 * c / (g - 1) * (std::pow(r, (g - 1) / (2 * g)) - 1.0);
            df = 1.0 / (K.rho * c) * std::pow(r, -(g + 1) / (2 * g));
        }
    }

    void solve_star() {
        // Two-rarefaction initial guess (Toro 4.46): exact when both waves are rarefactions.
        const double g = m_g, z = (g - 1) / (2 * g);
        double p = std::pow((m_cl + m_cr - 0.5 * (g - 1) * (m_r.u - m_l.u)) /
                                (m_cl / std::pow(m_l.p, z) + m_cr / std::pow(m_r.p, z)),
                            1.0 / z);
        p = std::max(p, 1e-14 * std::min(m_l.p, m_r.p));
        for (int it = 0; it < 200; ++it) {
            double fl, dfl, fr, dfr;
            pressure_function(p, m_l, m_cl, fl, dfl);
            pressure_function(p, m_r, m_cr, fr, dfr);
            double pn = p - (fl + fr + m_r.u - m_l.u) / (dfl + dfr);
            if (pn <= 0) pn = 0.5 * p;
            const double change = std::abs(pn - p) / (0.5 * (pn + p));
            p = pn;
            if (change < 1e-15) break;
        }
        m_ps = p;
        double fl, dfl, fr, dfr;
        pressure_function(p, m_l, m_cl, fl, dfl);
        pressure_function(p, m_r, m_cr, fr, dfr);
        m_us = 0.5 * (m_l.u + m_r.u) + 0.5 * (fr - fl);
    }

    double star_density(const EulerState& K) const {
        const double g = m_g, r = m_ps / K.p;
        if (m_ps > K.p) {
            const double g6 = (g - 1) / (g + 1);
            return K.rho * (r + g6) / (g6 * r + 1.0);
        }
        return K.rho * std::pow(r, 1.0 / g);
    }

    EulerState m_l, m_r;
    double m_g;
    double m_cl = 0, m_cr = 0, m_ps = 0, m_us = 0;
};

}  // namespace ugks::regression

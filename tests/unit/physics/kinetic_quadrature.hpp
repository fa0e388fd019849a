#pragma once
// Brute-force velocity quadratures for the physics tests. They place nodes in their own frame (a
// tangent basis different from the implementation's), evaluate every integrand in the global frame,
// and integrate the xi directions analytically. Half spaces u.n > 0 / u.n < 0 use composite
// Gauss-Legendre along n (the integrand is smooth on each half), tangents use Gauss-Hermite scaled
// to the Maxwellian, which is exact for polynomial x Gaussian integrands.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ugks/physics/kinetic.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks::test {

/// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the three-term recurrence).
inline void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
    x.assign(n, 0.0);
    w.assign(n, 0.0);
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < n; ++i) {
        double z = std::cos(pi * (i + 0.75) / (n + 0.5));
        double dp = 1.0;
        for (int it = 0; it < 100; ++it) {
            double p0 = 1.0, p1 = z;
            for (int k = 2; k <= n; ++k) {
                const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (z * p1 - p0) / (z * z - 1.0);
            const double dz = p1 / dp;
            z -= dz;
            if (std::fabs(dz) < 1e-17) break;
        }
        double p0 = 1.0, p1 = z;
        for (int k = 2; k <= n; ++k) {
            const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
            p0 = p1;
            p1 = p2;
        }
        dp = n * (z * p1 - p0) / (z * z - 1.0);
        x[i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

/// Composite Gauss-Legendre (ng points per panel) on [a, b] with panels no wider than h.
inline void composite_gl(double a, double b, double h, int ng, std::vector<double>& x,
                         std::vector<double>& w) {
    std::vector<double> gx, gw;
    gauss_legendre(ng, gx, gw);
    const int np = std::max(1, static_cast<int>(std::ceil((b - a) / h)));
    const double len = (b - a) / np;
    x.clear();
    w.clear();
    for (int p = 0; p < np; ++p) {
        const double lo = a + p * len;
        for (int i = 0; i < ng; ++i) {
            x.push_back(lo + 0.5 * len * (gx[i] + 1.0));
            w.push_back(0.5 * len * gw[i]);
        }
    }
}

struct QNode {
    double u[3];
    double w;
};

/// Test-side orthonormal frame (rows n, t1, t2), deliberately not the implementation's choice.
inline void test_frame(const double n_in[3], int D, double e[3][3]) {
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) e[a][b] = 0.0;
    if (D == 1) {
        e[0][0] = n_in[0] >= 0 ? 1.0 : -1.0;
        e[1][1] = 1.0;
        e[2][2] = 1.0;
        return;
    }
    double n[3] = {n_in[0], n_in[1], D == 3 ? n_in[2] : 0.0};
    const double l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (double& c : n) c /= l;
    if (D == 2) {
        const double f[3][3] = {{n[0], n[1], 0}, {n[1], -n[0], 0}, {0, 0, 1}};
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) e[a][b] = f[a][b];
        return;
    }
    double t[3] = {0.3, -0.5, 0.81};
    const double tn = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
    for (int d = 0; d < 3; ++d) t[d] -= tn * n[d];
    const double tl = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (double& c : t) c /= tl;
    const double s[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2],
                         n[0] * t[1] - n[1] * t[0]};
    for (int d = 0; d < 3; ++d) {
        e[0][d] = n[d];
        e[1][d] = t[d];
        e[2][d] = s[d];
    }
}

/// Nodes integrating functions that decay like the Maxwellian of p over u.n > 0 (side = +1),
/// u.n < 0 (side = -1) or all of R^D (side = 0, Gauss-Hermite along n too). Global coordinates.
inline std::vector<QNode> maxwellian_nodes(const phys::Prim& p, int D, const double n[3], int side,
                                           int n_tan = 12) {
    double e[3][3];
    test_frame(n, D, e);
    const double sigma = 1.0 / std::sqrt(p.lambda);
    auto dot = [&](int a) { return e[a][0] * p.U[0] + e[a][1] * p.U[1] + e[a][2] * p.U[2]; };
    std::vector<double> xn, wn;
    const double c = dot(0);
    if (side == 0) {
        gauss_hermite_1d(n_tan, sigma, c, xn, wn);
    } else if (side > 0) {
        composite_gl(0.0, std::max(c, 0.0) + 13.0 * sigma, 0.4 * sigma, 16, xn, wn);
    } else {
        composite_gl(std::min(c, 0.0) - 13.0 * sigma, 0.0, 0.4 * sigma, 16, xn, wn);
    }
    std::vector<double> x1{0.0}, w1{1.0}, x2{0.0}, w2{1.0};
    if (D >= 2) gauss_hermite_1d(n_tan, sigma, dot(1), x1, w1);
    if (D >= 3) gauss_hermite_1d(n_tan, sigma, dot(2), x2, w2);
    std::vector<QNode> out;
    out.reserve(xn.size() * x1.size() * x2.size());
    for (size_t i = 0; i < xn.size(); ++i)
        for (size_t j = 0; j < x1.size(); ++j)
            for (size_t k = 0; k < x2.size(); ++k) {
                QNode q;
                for (int d = 0; d < 3; ++d)
                    q.u[d] = xn[i] * e[0][d] + x1[j] * e[1][d] + x2[k] * e[2][d];
                for (int d = D; d < 3; ++d) q.u[d] = 0.0;  // exact zeros beyond D
                q.w = wn[i] * w1[j] * w2[k];
                out.push_back(q);
            }
    return out;
}

/// <xi^{2m}> of the K-dimensional xi Maxwellian, m = 0..3.
struct XiMoments {
    double m[4];
};
inline XiMoments xi_moments(int K, double lambda) {
    return {{1.0, K / (2.0 * lambda), K * (K + 2.0) / (4.0 * lambda * lambda),
             K * (K + 2.0) * (K + 4.0) / (8.0 * lambda * lambda * lambda)}};
}

/// Test-side reduced Maxwellian H = rho (lambda/pi)^(D/2) exp(-lambda |u - U|^2).
inline double maxwell_H(const phys::Prim& p, int D, const double u[3]) {
    double c2 = 0.0;
    for (int d = 0; d < D; ++d) c2 += (u[d] - p.U[d]) * (u[d] - p.U[d]);
    return p.rho * std::pow(p.lambda / 3.14159265358979323846, 0.5 * D) * std::exp(-p.lambda * c2);
}

/// Adds weight * int psi phi g dxi / H for phi(u, xi) = c[0] + c[1] xi^2 + c[2] xi^4 (per unit H):
/// (sum c_m X_m) (1, u) and 1/2 (|u|^2 sum c_m X_m + sum c_m X_{m+1}) for the energy entry.
inline void add_psi_xi(double weight, const double u[3], const double c[3], const XiMoments& X,
                       double out[5]) {
    const double s0 = c[0] * X.m[0] + c[1] * X.m[1] + c[2] * X.m[2];
    const double s1 = c[0] * X.m[1] + c[1] * X.m[2] + c[2] * X.m[3];
    const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    out[0] += weight * s0;
    for (int d = 0; d < 3; ++d) out[1 + d] += weight * u[d] * s0;
    out[4] += weight * 0.5 * (u2 * s0 + s1);
}

/// Test-side W -> (rho, U, lambda).
inline phys::Prim prim_of(const double W[5], int N) {
    phys::Prim p;
    p.rho = W[0];
    double m2 = 0.0;
    for (int d = 0; d < 3; ++d) {
        p.U[d] = W[1 + d] / W[0];
        m2 += W[1 + d] * W[1 + d];
    }
    p.lambda = N * W[0] / (4.0 * (W[4] - 0.5 * m2 / W[0]));
    return p;
}

}  // namespace ugks::test

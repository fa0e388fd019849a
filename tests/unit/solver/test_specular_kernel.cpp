// The kernel functions of the interpolated specular reflection (include/ugks/solver/kernels/
// bc_specular.hpp, docs/formulation.md section 8.2b) on the host: the axis stencils reproduce
// quadratics on nonuniform nodes, the log-quadratic interpolation reflects any Maxwellian exactly,
// the fallbacks where values are not positive, and the limit across u.n = 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "ugks/solver/kernels/bc_specular.hpp"

namespace {

using namespace ugks;

// Nonuniform ascending nodes on [-a, a] (stretched towards the ends).
std::vector<double> nodes(int n, double a, double skew) {
    std::vector<double> x(n);
    for (int i = 0; i < n; ++i) {
        const double t = -1.0 + 2.0 * i / (n - 1);
        x[i] = a * (t + skew * t * t * t) / (1.0 + skew);
    }
    return x;
}

struct Grid3 {
    std::vector<double> x[3], w[3];
    std::vector<index_t> slot;
    kern::SpecularGrid G;
    Grid3(int nx, int ny, int nz) {
        const int n[3] = {nx, ny, nz};
        for (int d = 0; d < 3; ++d) {
            x[d] = nodes(n[d], 5.0 - d, 0.3 + 0.2 * d);
            w[d].assign(n[d], 1.0);
            G.n[d] = n[d];
            G.x[d] = x[d].data();
            G.w[d] = w[d].data();
        }
        // slots in reverse order: the interpolation must go through the slot table
        const index_t N = G.size();
        slot.resize(N);
        for (index_t k = 0; k < N; ++k) slot[k] = N - 1 - k;
        G.slot = slot.data();
    }
    template <class F>
    std::vector<double> row(F f) const {
        std::vector<double> r(G.size());
        for (index_t k = 0; k < G.size(); ++k) {
            double u[3], wk;
            kern::specular_grid_point(G, k, u, wk);
            r[slot[k]] = f(u);
        }
        return r;
    }
};

std::vector<double> logs(const std::vector<double>& r) {
    std::vector<double> g(r.size());
    for (std::size_t k = 0; k < r.size(); ++k) g[k] = kern::specular_log(r[k]);
    return g;
}

double maxwellian(const double u[3]) {
    const double U[3] = {0.7, -0.4, 0.25}, lambda = 1.0 / 1.3;
    double c2 = 0;
    for (int d = 0; d < 3; ++d) c2 += (u[d] - U[d]) * (u[d] - U[d]);
    return 0.8 * std::exp(-lambda * c2);
}

TEST(SpecularKernel, AxisStencilReproducesQuadratics) {
    const std::vector<double> x = nodes(9, 4.0, 0.5);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> pick(-4.5, 4.5);
    for (int t = 0; t < 200; ++t) {
        const double c = pick(rng), cc = std::min(std::max(c, x.front()), x.back());
        kern::AxisStencil s;
        kern::axis_stencil(x.data(), 9, c, s);
        ASSERT_EQ(s.nq, 3);
        ASSERT_EQ(s.nl, 2);
        double q = 0, l = 0, sum = 0;
        for (int i = 0; i < 3; ++i) {
            const double xi = x[s.q0 + i];
            q += s.q[i] * (1.0 - 2.0 * xi + 0.7 * xi * xi);
            sum += s.q[i];
        }
        for (int i = 0; i < 2; ++i) l += s.l[i] * x[s.l0 + i];
        EXPECT_NEAR(sum, 1.0, 1e-14);
        EXPECT_NEAR(q, 1.0 - 2.0 * cc + 0.7 * cc * cc, 1e-12) << "c = " << c;
        EXPECT_NEAR(l, cc, 1e-13);  // linear weights reproduce the coordinate, clamped
        // the quadratic stencil is centred on the nearest node
        EXPECT_LE(std::abs(cc - x[s.q0 + 1]),
                  std::max(x[s.q0 + 1] - x[s.q0], x[s.q0 + 2] - x[s.q0 + 1]));
    }
    // at a node: weight 1 there, 0 elsewhere, exactly
    kern::AxisStencil s;
    kern::axis_stencil(x.data(), 9, x[4], s);
    EXPECT_EQ(s.q[1], 1.0);
    EXPECT_EQ(s.q[0], 0.0);
    EXPECT_EQ(s.q[2], 0.0);
}

// Where the whole 3^D stencil lies on the incident side (u.n > 0) the log-quadratic interpolation
// is exact for any Maxwellian on nonuniform nodes.
TEST(SpecularKernel, LogQuadraticInterpolationIsExactForAMaxwellian) {
    const Grid3 g(13, 11, 9);
    const std::vector<double> r = g.row(maxwellian);
    const double n[3] = {1.0, 0.0, 0.0};
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> pick(-1.0, 1.0);
    double worst = 0;
    for (int t = 0; t < 500; ++t) {
        const double c[3] = {3.5 + pick(rng), 3.5 * pick(rng), 2.5 * pick(rng)};
        double h, b;
        kern::interpolate_rows<false>(g.G, r.data(), nullptr, logs(r).data(), nullptr, n, c, h, b);
        worst = std::max(worst, std::abs(h - maxwellian(c)) / 0.8);
    }
    std::printf("log-quadratic interpolation of a Maxwellian: max error %.2e of the peak\n", worst);
    EXPECT_LT(worst, 1e-12);
}

// The reflection of a Maxwellian whose mean velocity lies in the plane is the same Maxwellian
// (b alike), for an oblique normal.
TEST(SpecularKernel, ReflectionOfAMaxwellianAlongThePlaneIsItself) {
    const Grid3 g(15, 15, 13);
    const double n[3] = {0.6, -0.48, 0.64};  // unit
    const double U[3] = {0.48, 0.6, 0.0};    // U.n = 0.288 - 0.288 = 0
    auto M = [&](const double u[3]) {
        double c2 = 0;
        for (int d = 0; d < 3; ++d) c2 += (u[d] - U[d]) * (u[d] - U[d]);
        return std::exp(-c2 / 1.2);
    };
    const std::vector<double> rh = g.row(M);
    std::vector<double> rb = rh;
    for (double& v : rb) v *= 0.9;
    const std::vector<double> gh = logs(rh), gb = logs(rb);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> pick(-2.5, 2.5);
    int used = 0;
    double worst = 0;
    for (int t = 0; t < 2000; ++t) {
        const double u[3] = {pick(rng), pick(rng), pick(rng)};
        const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
        if (un > -1.6) continue;  // keep the mirror image's stencil on the incident side
        bool inside = true;       // and inside the grid (no clamping)
        for (int d = 0; d < 3; ++d)
            inside = inside && std::abs(u[d] - 2 * un * n[d]) < g.x[d].back() - 0.5;
        if (!inside) continue;
        double h, b;
        kern::specular_raw<true>(g.G, rh.data(), rb.data(), gh.data(), gb.data(), n, u, h, b);
        worst = std::max(worst, std::max(std::abs(h - M(u)), std::abs(b - 0.9 * M(u))));
        ++used;
    }
    EXPECT_GT(used, 50);
    EXPECT_LT(worst, 1e-12);
}

// Across the jump at u.n = 0 (incident half vs a much smaller re-emitted half) the result stays in
// the stencil's range; with a value that is not positive the log-linear and then the linear
// fallback apply.
TEST(SpecularKernel, LimitAcrossTheJumpAndFallbacks) {
    const Grid3 g(13, 11, 9);
    const double n[3] = {1.0, 0.0, 0.0};
    std::vector<double> r =
        g.row([](const double u[3]) { return u[0] > 0 ? maxwellian(u) : 1e-6 * maxwellian(u); });
    double u0 = 0;  // the first positive node on x
    for (double x : g.x[0])
        if (x > 0) {
            u0 = x;
            break;
        }
    const double c[3] = {0.6 * u0, 0.1, -0.2};  // stencil spans nodes with u_x < 0 and > 0
    double h, b;
    kern::interpolate_rows<false>(g.G, r.data(), nullptr, logs(r).data(), nullptr, n, c, h, b);
    kern::AxisStencil S[3];
    for (int d = 0; d < 3; ++d) kern::axis_stencil(g.x[d].data(), g.G.n[d], c[d], S[d]);
    double lo = HUGE_VAL, hi = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < 3; ++l) {
                const index_t k =
                    (static_cast<index_t>(S[0].q0 + i) * g.G.n[1] + S[1].q0 + j) * g.G.n[2] +
                    S[2].q0 + l;
                lo = std::min(lo, r[g.slot[k]]);
                hi = std::max(hi, r[g.slot[k]]);
            }
    EXPECT_GE(h, lo);
    EXPECT_LE(h, hi);
    // a non-positive value in the quadratic stencil but not among the bracketing nodes:
    // log-linear on the bracketing nodes
    const double c2[3] = {3.4, 0.3, 0.2};
    for (int d = 0; d < 3; ++d) kern::axis_stencil(g.x[d].data(), g.G.n[d], c2[d], S[d]);
    auto at = [&](int a, int e, int o) {
        return g.slot[(static_cast<index_t>(a) * g.G.n[1] + e) * g.G.n[2] + o];
    };
    const int far0 = S[0].q0 == S[0].l0 ? S[0].q0 + 2 : S[0].q0;  // quadratic-only node on x
    std::vector<double> r2 = g.row(maxwellian);
    r2[at(far0, S[1].q0, S[2].q0)] = -1e-15;
    kern::interpolate_rows<false>(g.G, r2.data(), nullptr, logs(r2).data(), nullptr, n, c2, h, b);
    double gl = 0, ml;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int l = 0; l < 2; ++l) {
                const double wl = S[0].l[i] * S[1].l[j] * S[2].l[l];
                const double v = r2[at(S[0].l0 + i, S[1].l0 + j, S[2].l0 + l)];
                gl += wl * std::log(v);
            }
    EXPECT_NEAR(h, std::exp(gl), 1e-14 * std::exp(gl));
    // and with a non-positive bracketing value: multilinear in the values
    r2[at(S[0].l0, S[1].l0, S[2].l0)] = 0.0;
    ml = 0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int l = 0; l < 2; ++l)
                ml += S[0].l[i] * S[1].l[j] * S[2].l[l] *
                      r2[at(S[0].l0 + i, S[1].l0 + j, S[2].l0 + l)];
    kern::interpolate_rows<false>(g.G, r2.data(), nullptr, logs(r2).data(), nullptr, n, c2, h, b);
    EXPECT_NEAR(h, ml, 1e-15);
}

// The mass scale makes the reflected mass flux equal the incident one.
TEST(SpecularKernel, MassScaleBalancesTheFace) {
    const Grid3 g(11, 11, 11);
    const std::vector<double> r = g.row(maxwellian), gr = logs(r);
    const double n[3] = {0.36, 0.48, 0.8};
    double out = 0, in = 0;
    for (index_t k = 0; k < g.G.size(); ++k) {
        double u[3], w;
        kern::specular_grid_point(g.G, k, u, w);
        kern::specular_mass_terms(g.G, r.data(), gr.data(), n, w, u, g.slot[k], out, in);
    }
    const double c = kern::specular_scale(out, in);
    double back = 0;
    for (index_t k = 0; k < g.G.size(); ++k) {
        double u[3], w, h, b;
        kern::specular_grid_point(g.G, k, u, w);
        const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
        if (un >= 0) continue;
        kern::specular_raw<false>(g.G, r.data(), nullptr, gr.data(), nullptr, n, u, h, b);
        back -= w * un * c * h;
    }
    EXPECT_GT(out, 0.0);
    EXPECT_NEAR(back, out, 1e-13 * out);
    EXPECT_EQ(kern::specular_scale(1.0, 0.0), 0.0);
}

}  // namespace

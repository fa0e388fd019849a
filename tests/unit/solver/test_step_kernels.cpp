// The kernel functions of the UGKS step (include/ugks/solver/kernels/, physics/kinetic.hpp)
// evaluated inside forall kernels: written once, compiled as CUDA in cuda builds (run on the GPU)
// and as host code otherwise, checked against closed forms and conservation properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ugks/device/array.hpp"
#include "ugks/device/capabilities.hpp"
#include "ugks/device/device.hpp"
#include "ugks/device/forall.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/bc_diffuse_wall.hpp"
#include "ugks/solver/kernels/bc_symmetry.hpp"
#include "ugks/solver/kernels/flux.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"
#include "ugks/solver/kernels/update.hpp"
#include "ugks/solver/raw_moments.hpp"

namespace {

using ugks::DeviceArray;
using ugks::index_t;
namespace phys = ugks::phys;
namespace kern = ugks::kern;

template <class T>
DeviceArray<T> upload(const std::vector<T>& v) {
    DeviceArray<T> a("test", static_cast<index_t>(v.size()));
    a.copy_from(v);
    return a;
}
template <class T>
std::vector<T> download(const DeviceArray<T>& a) {
    std::vector<T> h;
    a.copy_to(h);
    return h;
}

/// A tensor Newton-Cotes (trapezoid) velocity grid of n points per axis on [-L, L]^D (the
/// trapezoid rule is spectrally accurate for Gaussians that vanish at the ends).
struct Grid {
    std::vector<double> u;  // [k][3]
    std::vector<double> w;
    std::vector<int> ix;  // [k][3] table offsets (axis d at d * n)
    std::vector<double> axis;
    int n = 0;
};
Grid make_grid(int D, int n, double L) {
    Grid g;
    g.n = n;
    const double h = 2.0 * L / (n - 1);
    for (int d = 0; d < 3; ++d)
        for (int i = 0; i < n; ++i) g.axis.push_back(-L + h * i);
    const int ny = D > 1 ? n : 1, nz = D > 2 ? n : 1;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < ny; ++j)
            for (int k = 0; k < nz; ++k) {
                const int id[3] = {i, j, k};
                double w = 1.0;
                for (int d = 0; d < 3; ++d) {
                    g.u.push_back(d < D ? g.axis[id[d]] : 0.0);
                    g.ix.push_back(d < D ? d * n + id[d] : 0);
                    if (d < D) w *= (id[d] == 0 || id[d] == n - 1) ? 0.5 * h : h;
                }
                g.w.push_back(w);
            }
    return g;
}

phys::GasParams gas(int D, int K_int, double Pr = 2.0 / 3.0) {
    phys::GasParams g;
    g.D = D;
    g.K = 3 - D + K_int;
    g.N = 3 + K_int;
    g.Pr = Pr;
    g.mu_ref = 0.1;
    return g;
}

class StepKernels : public ::testing::Test {
protected:
    void SetUp() override {
        if constexpr (ugks::device::kGpuBuild) {
            if (ugks::device::device_count() == 0) GTEST_SKIP() << "no CUDA device";
            ugks::device::bind(0);
        }
    }
};

// ---- kernels (free functions: nvcc forbids extended lambdas inside a gtest's TestBody) ------

void symmetry_values(const DeviceArray<index_t>& mirror, const DeviceArray<double>& row_h,
                     const DeviceArray<double>& row_b, DeviceArray<double>& out) {
    const auto m = mirror.view();
    const auto rh = row_h.view();
    const auto rb = row_b.view();
    auto o = out.view();
    ugks::forall(
        mirror.size(), UGKS_LAMBDA(index_t s) {
            double hin, bin;
            kern::symmetry_incident<true>(m[s], rh.data, rb.data, hin, bin);
            o[2 * s] = hin;
            o[2 * s + 1] = bin;
        });
}

/// Per velocity: the wall-density terms (num, den) of the owner distribution h, then with
/// rho_w = num/den the face flux (Phi_h, Phi_b) of a diffuse wall.
template <int D>
void wall_terms(const phys::EqConst& unit, const double n[3], const DeviceArray<double>& u,
                const DeviceArray<double>& w, const DeviceArray<double>& h,
                DeviceArray<double>& out) {
    const auto uu = u.view();
    const auto ww = w.view();
    const auto hh = h.view();
    auto o = out.view();
    const double n0 = n[0], n1 = n[1], n2 = n[2];
    ugks::forall(
        w.size(), UGKS_LAMBDA(index_t k) {
            const double* uk = &uu.data[3 * k];
            const double un = uk[0] * n0 + uk[1] * n1 + uk[2] * n2;
            double num = 0.0, den = 0.0;
            kern::wall_density_terms<D>(unit, ww[k], uk, un, hh[k], num, den);
            o[2 * k] = num;
            o[2 * k + 1] = den;
        });
}
template <int D>
void wall_flux(const phys::EqConst& wall, const double n[3], double dtw,
               const DeviceArray<double>& u, const DeviceArray<double>& h,
               const DeviceArray<double>& b, DeviceArray<double>& out) {
    const auto uu = u.view();
    const auto hh = h.view();
    const auto bb = b.view();
    auto o = out.view();
    const double n0 = n[0], n1 = n[1], n2 = n[2];
    ugks::forall(
        h.size(), UGKS_LAMBDA(index_t k) {
            const double* uk = &uu.data[3 * k];
            const double un = uk[0] * n0 + uk[1] * n1 + uk[2] * n2;
            double hin = 0.0, bin = 0.0;
            if (un <= 0) phys::maxwellian_pair<D, true>(wall, uk, hin, bin);
            double ph, pb;
            kern::kinetic_boundary_flux<true>(dtw, un, hh[k], bb[k], hin, bin, ph, pb);
            o[2 * k] = ph;
            o[2 * k + 1] = pb;
        });
}

/// Per velocity: H from the formula and from per-axis tables, and the Shakhov parts H+, B+.
template <int D>
void equilibrium_values(const phys::EqConst& C, const DeviceArray<double>& u,
                        const DeviceArray<int>& ix, const DeviceArray<double>& E,
                        DeviceArray<double>& out) {
    const auto uu = u.view();
    const auto ii = ix.view();
    const auto ee = E.view();
    auto o = out.view();
    ugks::forall(
        u.size() / 3, UGKS_LAMBDA(index_t k) {
            const double* uk = &uu.data[3 * k];
            const double H = phys::maxwellian_H<D>(C, uk);
            double B, Hp, Bp;
            phys::shakhov_parts<D, true>(C, uk, H, B, Hp, Bp);
            o[4 * k] = H;
            o[4 * k + 1] = phys::maxwellian_H_tables<D>(C, ee.data, &ii.data[3 * k]);
            o[4 * k + 2] = Hp;
            o[4 * k + 3] = Bp;
        });
}

void limiter_values(const DeviceArray<double>& in, DeviceArray<double>& out, int kind) {
    const auto a = in.view();
    auto o = out.view();
    ugks::forall(
        out.size(), UGKS_LAMBDA(index_t k) {
            o[k] = kern::limiter_ratio(kind, a[5 * k], a[5 * k + 1], a[5 * k + 2], a[5 * k + 3],
                                       a[5 * k + 4]);
        });
}

/// Per stencil k (rows of 6 + 3 * nf values: g0, g1, g2, fi, vmax, vmin, then nf face offsets
/// x_f - x_i), scale = max(|vmax|, |vmin|, |fi|): kern::limiter_psi over the nf faces.
void limiter_psis(const DeviceArray<double>& in, int nf, int kind, double kd3,
                  DeviceArray<double>& out) {
    const auto a = in.view();
    auto o = out.view();
    const int row = 6 + 3 * nf;
    ugks::forall(
        out.size(), UGKS_LAMBDA(index_t k) {
            const double* r = &a.data[row * k];
            const double sc = fmax(fabs(r[3]), fmax(fabs(r[4]), fabs(r[5])));
            o[k] =
                kern::limiter_psi(kind, 0, nf, r + 6, r[0], r[1], r[2], r[3], r[4], r[5], sc, kd3);
        });
}

void gradient_of_cell0(const DeviceArray<double>& W, const DeviceArray<index_t>& off,
                       const DeviceArray<index_t>& nbr, const DeviceArray<double>& lsq,
                       const DeviceArray<double>& dx, int kind, DeviceArray<double>& g,
                       DeviceArray<double>* psi = nullptr) {
    const int mode = psi ? kern::kLimiterFrozen : kern::kLimiterLive;
    double* pv = psi ? psi->view().data : nullptr;
    const auto Wv = W.view();
    const auto ov = off.view();
    const auto nv = nbr.view();
    const auto lv = lsq.view();
    const auto dv = dx.view();
    auto gv = g.view();
    ugks::forall(
        1, UGKS_LAMBDA(index_t i) {
            kern::gradient_W_cell(i, Wv.data, ov.data, nv.data, lv.data, dv.data, kind, 0.0,
                                  gv.data, mode, pv);
        });
}

void raw_moments_of(const DeviceArray<double>& u, const DeviceArray<double>& w,
                    const DeviceArray<double>& h, const DeviceArray<double>& b,
                    DeviceArray<double>& out) {
    const auto uu = u.view();
    const auto ww = w.view();
    const auto hh = h.view();
    const auto bb = b.view();
    auto o = out.view();
    const index_t n = w.size();
    ugks::forall(
        1, UGKS_LAMBDA(index_t) {
            double M[17];
            for (int e = 0; e < 17; ++e) M[e] = 0.0;
            for (index_t k = 0; k < n; ++k)
                kern::add_raw_moments<17>(ww[k], &uu.data[3 * k], hh[k], bb[k], M);
            for (int e = 0; e < 17; ++e) o[e] = M[e];
        });
}

/// Per velocity: the body-force source over `span` of the Maxwellian pair (H, B) of C under the
/// acceleration a (kern::force_factor of phys::force_slope), and in the last thread the
/// trapezoidal force increment of W over span (kern::add_force_increment, no flux change).
template <int D>
void force_sources(const phys::EqConst& C, const double a[3], double span, const double W[5],
                   const DeviceArray<double>& u, DeviceArray<double>& out,
                   DeviceArray<double>& dW) {
    const auto uu = u.view();
    auto o = out.view();
    auto dv = dW.view();
    const double a0 = a[0], a1 = a[1], a2 = a[2];
    const double w0 = W[0], w1 = W[1], w2 = W[2], w3 = W[3], w4 = W[4];
    const index_t n = u.size() / 3;
    ugks::forall(
        n, UGKS_LAMBDA(index_t k) {
            const double acc[3] = {a0, a1, a2};
            const double* uk = &uu.data[3 * k];
            const double H = phys::maxwellian_H<D>(C, uk);
            double B, Hp, Bp;
            phys::shakhov_parts<D, true>(C, uk, H, B, Hp, Bp);
            const double s = kern::force_factor<D>(phys::force_slope(C.U, C.lambda, acc), span, uk);
            o[2 * k] = s * H;
            o[2 * k + 1] = s * B;
            if (k == n - 1) {
                const double Wn[5] = {w0, w1, w2, w3, w4};
                double d[5] = {0, 0, 0, 0, 0};
                kern::add_force_increment(Wn, acc, span, d);
                for (int e = 0; e < 5; ++e) dv[e] = d[e];
            }
        });
}

// ---- tests ------------------------------------------------------------------------------------

// The body-force source of the microscopic stages (docs/formulation.md section 6.7) has the
// moments of the force: over a time span, mass 0, momentum span rho a, energy span rho U.a (the b
// part included), by quadrature on a fine grid; and the macroscopic increment of a uniform gas
// (no flux) is exact: rho unchanged, momentum + span rho a, the temperature unchanged to round-off.
TEST_F(StepKernels, BodyForceSourceHasTheMomentsOfTheForce) {
    constexpr int D = 2;
    const phys::GasParams g = gas(D, 2);
    const Grid G = make_grid(D, 48, 7.0);
    phys::Prim p;
    p.rho = 1.3;
    p.U[0] = 0.3;
    p.U[1] = -0.45;
    p.lambda = 1.0 / 1.2;
    const double zero_q[3] = {0, 0, 0};
    const phys::EqConst C = phys::eq_const(p, zero_q, g);
    const double a[3] = {0.4, 0.25, 0.0}, span = 0.05;
    double W[5];
    phys::prim_to_cons(p, g.N, W);
    auto du = upload(G.u);
    DeviceArray<double> out("s", 2 * static_cast<index_t>(G.w.size())), dW("dW", 5);
    force_sources<D>(C, a, span, W, du, out, dW);
    const auto o = download(out);
    double m[5] = {0, 0, 0, 0, 0};
    for (std::size_t k = 0; k < G.w.size(); ++k) {
        const double* u = &G.u[3 * k];
        const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        m[0] += G.w[k] * o[2 * k];
        for (int d = 0; d < 3; ++d) m[1 + d] += G.w[k] * u[d] * o[2 * k];
        m[4] += G.w[k] * 0.5 * (u2 * o[2 * k] + o[2 * k + 1]);
    }
    EXPECT_NEAR(m[0], 0.0, 1e-13);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(m[1 + d], span * p.rho * a[d], 1e-13) << d;
    EXPECT_NEAR(m[4], span * p.rho * (a[0] * p.U[0] + a[1] * p.U[1]), 1e-13);
    const auto d = download(dW);
    double W1[5];
    for (int e = 0; e < 5; ++e) W1[e] = W[e] + d[e];
    EXPECT_EQ(d[0], 0.0);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(W1[1 + k], W[1 + k] + span * p.rho * a[k], 1e-15);
    const phys::Prim p1 = phys::cons_to_prim(W1, g.N);
    EXPECT_NEAR(p1.lambda, p.lambda, 1e-14);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(p1.U[k], p.U[k] + span * a[k], 1e-15);
}

TEST_F(StepKernels, SymmetryIncidentOfPaddingSlotsIsZero) {
    // slots 0..5: mirrors 3, 2, 1, 0 and two padding slots (-1)
    const std::vector<index_t> mirror = {3, 2, 1, 0, -1, -1};
    const std::vector<double> rh = {1.5, 2.5, 3.5, 4.5, 99.0, 98.0};
    const std::vector<double> rb = {0.1, 0.2, 0.3, 0.4, 77.0, 76.0};
    auto dm = upload(mirror);
    auto dh = upload(rh);
    auto db = upload(rb);
    DeviceArray<double> out("out", 12);
    symmetry_values(dm, dh, db, out);
    const auto o = download(out);
    for (int s = 0; s < 6; ++s) {
        EXPECT_EQ(o[2 * s], mirror[s] >= 0 ? rh[mirror[s]] : 0.0) << s;
        EXPECT_EQ(o[2 * s + 1], mirror[s] >= 0 ? rb[mirror[s]] : 0.0) << s;
    }
}

TEST_F(StepKernels, DiffuseWallDensityMakesTheMassFluxZero) {
    // Decision U7: with rho_w = num / den from the discrete sums, the discrete mass flux through
    // the wall is zero to round-off, whatever the incident distribution and the wall state.
    constexpr int D = 2;
    const phys::GasParams g = gas(D, 0);
    const Grid G = make_grid(D, 28, 5.0);
    const double n[3] = {std::cos(0.5), std::sin(0.5), 0.0};
    const double Uw[3] = {0.3 * -std::sin(0.5), 0.3 * std::cos(0.5), 0.0};  // tangential
    const double Tw = 0.8;
    // incident (owner) distribution: a drifting Maxwellian with a bump
    const index_t nv = static_cast<index_t>(G.w.size());
    std::vector<double> h(nv), b(nv);
    for (index_t k = 0; k < nv; ++k) {
        const double* u = &G.u[3 * k];
        const double c2 = (u[0] - 0.2) * (u[0] - 0.2) + (u[1] + 0.1) * (u[1] + 0.1);
        h[k] = 1.3 / (M_PI * 1.1) * std::exp(-c2 / 1.1) * (1.0 + 0.2 * u[0] * u[1]);
        b[k] = 0.5 * g.K * 1.1 * h[k];
    }
    auto du = upload(G.u);
    auto dw = upload(G.w);
    auto dh = upload(h);
    auto db = upload(b);
    DeviceArray<double> terms("terms", 2 * nv), flux("flux", 2 * nv);
    wall_terms<D>(kern::wall_const(1.0, Tw, Uw, g), n, du, dw, dh, terms);
    const auto t = download(terms);
    double num = 0.0, den = 0.0;
    for (index_t k = 0; k < nv; ++k) {
        num += t[2 * k];
        den += t[2 * k + 1];
    }
    ASSERT_GT(num, 0.0);
    ASSERT_GT(den, 0.0);
    const double dtw = 0.01;
    wall_flux<D>(kern::wall_const(num / den, Tw, Uw, g), n, dtw, du, dh, db, flux);
    const auto ph = download(flux);
    double mass = 0.0, scale = 0.0;
    for (index_t k = 0; k < nv; ++k) {
        mass += G.w[k] * ph[2 * k];
        scale += G.w[k] * std::fabs(ph[2 * k]);
        // incoming velocities carry the wall Maxwellian of density rho_w
        const double* u = &G.u[3 * k];
        const double un = u[0] * n[0] + u[1] * n[1];
        if (un < 0) {
            const double c2 = (u[0] - Uw[0]) * (u[0] - Uw[0]) + (u[1] - Uw[1]) * (u[1] - Uw[1]);
            const double H = num / den / (M_PI * Tw) * std::exp(-c2 / Tw);
            // round-off of exp(-x) grows like eps x: relative tolerance 1e-15 (1 + x)
            const double tol = 1e-15 * (1.0 + c2 / Tw) * std::fabs(dtw * un * H) + 1e-300;
            EXPECT_NEAR(ph[2 * k], dtw * un * H, tol) << k;
            EXPECT_NEAR(ph[2 * k + 1], dtw * un * 0.5 * g.K * Tw * H, 2 * tol) << k;
        } else if (un > 0) {
            // device code contracts u.n and the product into FMAs: a few ulp
            EXPECT_NEAR(ph[2 * k], dtw * un * h[k], 1e-14 * std::fabs(dtw * un * h[k])) << k;
        }
    }
    EXPECT_LT(std::fabs(mass), 1e-14 * scale);
}

TEST_F(StepKernels, MaxwellianTablesAndShakhovPartsAreConsistent) {
    // H from the per-axis tables equals the formula (to round-off); padding slots give 0; the
    // Shakhov parts carry no mass, momentum or energy, and their heat flux is (1 - Pr) q
    // (section 2.4).
    constexpr int D = 3;
    const phys::GasParams g = gas(D, 2, 0.72);
    Grid G = make_grid(D, 32, 8.0);
    phys::Prim p;
    p.rho = 0.8;
    p.U[0] = 0.3;
    p.U[1] = -0.2;
    p.U[2] = 0.1;
    p.lambda = 1.0 / 1.3;
    const double q[3] = {0.05, -0.02, 0.03};
    const phys::EqConst C = phys::eq_const(p, q, g);
    std::vector<double> E(G.axis.size());
    for (int d = 0; d < 3; ++d)
        for (int i = 0; i < G.n; ++i) {
            const double c = G.axis[d * G.n + i] - p.U[d];
            E[d * G.n + i] = std::exp(-p.lambda * c * c);
        }
    const index_t nv = static_cast<index_t>(G.w.size());
    G.ix[3 * (nv - 1)] = -1;  // the last slot as a padding slot
    auto du = upload(G.u);
    auto di = upload(G.ix);
    auto dE = upload(E);
    DeviceArray<double> out("eq", 4 * nv);
    equilibrium_values<D>(C, du, di, dE, out);
    const auto o = download(out);
    double mom[5] = {0, 0, 0, 0, 0}, heat[3] = {0, 0, 0}, mass = 0.0;
    for (index_t k = 0; k + 1 < nv; ++k) {
        const double* u = &G.u[3 * k];
        const double w = G.w[k], Hp = o[4 * k + 2], Bp = o[4 * k + 3];
        const double c[3] = {u[0] - p.U[0], u[1] - p.U[1], u[2] - p.U[2]};
        const double c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        // the round-off of exp(-x) grows like eps x: relative 2e-15 (1 + x)
        EXPECT_NEAR(o[4 * k + 1], o[4 * k], 2e-15 * (1.0 + p.lambda * c2) * o[4 * k] + 1e-300) << k;
        mass += w * o[4 * k];
        mom[0] += w * Hp;
        for (int d = 0; d < 3; ++d) {
            mom[1 + d] += w * u[d] * Hp;
            heat[d] += 0.5 * w * c[d] * (c2 * Hp + Bp);
        }
        mom[4] += 0.5 * w * ((u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * Hp + Bp);
    }
    EXPECT_EQ(o[4 * (nv - 1) + 1], 0.0);
    EXPECT_NEAR(mass, p.rho, 1e-12);
    for (int e = 0; e < 5; ++e) EXPECT_NEAR(mom[e], 0.0, 1e-12) << e;
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(heat[d], (1.0 - g.Pr) * q[d], 1e-12) << d;
}

TEST_F(StepKernels, LimiterRatiosOfClosedForms) {
    // rows: up, dn, d2, kd3, scale
    const std::vector<double> in = {0.5, -0.2, 1.0,  0.0, 1.0,   // d2 > up: up / d2
                                    0.5, -0.2, -0.4, 0.0, 1.0,   // d2 < dn: dn / d2
                                    0.5, -0.2, 0.25, 0.0, 1.0,   // inside: 1
                                    0.5, -0.2, 0.0,  0.0, 1.0,   // d2 = 0: 1
                                    0.0, 0.0,  0.3,  0.0, 1.0};  // extremum: 0
    auto din = upload(in);
    DeviceArray<double> out("lim", 5);
    limiter_values(din, out, kern::kBarthJespersen);
    auto o = download(out);
    EXPECT_EQ(o[0], 0.5);
    EXPECT_EQ(o[1], 0.5);
    EXPECT_EQ(o[2], 1.0);
    EXPECT_EQ(o[3], 1.0);
    EXPECT_EQ(o[4], 0.0);
    limiter_values(din, out, kern::kVenkatakrishnan);
    o = download(out);
    // (d1^2 + eps^2 + 2 d1 d2) / (d1^2 + 2 d2^2 + d1 d2 + eps^2), eps^2 = 1e-300
    EXPECT_DOUBLE_EQ(o[0], (0.25 + 1.0) / (0.25 + 2.0 + 0.5));
    EXPECT_DOUBLE_EQ(o[1], (0.04 + 0.16) / (0.04 + 0.32 + 0.08));
    EXPECT_EQ(o[2], 1.0);  // (0.25 + 0.25) / (0.25 + 0.125 + 0.125) = 1
    EXPECT_EQ(o[3], 1.0);
    EXPECT_NEAR(o[4], 0.0, 1e-290);  // eps^2 / (2 d2^2 + eps^2)
}

TEST_F(StepKernels, LimiterFactorWithoutDivisionsIsTheSmallestFaceRatio) {
    // kern::limiter_psi (one division per velocity: scaled values, fractions compared by cross
    // products) against the minimum of the per-face ratios kern::limiter_ratio of the same scaled
    // values: equal to a few ulp, for random stencils of 6 faces at magnitudes from 1e-250 to
    // 1e100. The same stencils at every magnitude give the same factor (the limiter is scale
    // invariant): compared products of values near 1e-150 would underflow without the scaling.
    const int nf = 6, row = 6 + 3 * nf, n = 200;
    const double mags[] = {1.0, 1e-150, 1e-250, 1e100};
    std::uint64_t state = 12345;
    auto rnd = [&]() {  // uniform in [-1, 1)
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
    };
    std::vector<double> base(static_cast<std::size_t>(row) * n);
    for (int k = 0; k < n; ++k) {
        double* r = &base[static_cast<std::size_t>(row) * k];
        const double fi = rnd();
        r[3] = fi;
        r[4] = fi + 0.5 * (1.0 + rnd());  // vmax >= fi
        r[5] = fi - 0.5 * (1.0 + rnd());  // vmin <= fi
        for (int d = 0; d < 3; ++d) r[d] = 2.0 * rnd();
        for (int j = 0; j < 3 * nf; ++j) r[6 + j] = 0.6 * rnd();
        if (k % 7 == 0) r[0] = r[1] = r[2] = 0.0;  // d2 = 0 on every face: psi = 1
    }
    for (int kind : {kern::kVenkatakrishnan, kern::kBarthJespersen}) {
        std::vector<double> first;
        for (double mag : mags) {
            std::vector<double> in = base;
            for (int k = 0; k < n; ++k)
                for (int j = 0; j < 6; ++j) in[static_cast<std::size_t>(row) * k + j] *= mag;
            auto din = upload(in);
            DeviceArray<double> out("psi", n);
            limiter_psis(din, nf, kind, 0.05, out);
            const auto psi = download(out);
            for (int k = 0; k < n; ++k) {
                const double* r = &in[static_cast<std::size_t>(row) * k];
                const double sc =
                    std::max(std::abs(r[3]), std::max(std::abs(r[4]), std::abs(r[5])));
                int e = 0;
                std::frexp(sc, &e);
                const double s = std::ldexp(1.0, 1 - e);  // sc * s in [1, 2)
                double ref = 1.0;
                for (int f = 0; f < nf; ++f) {
                    const double* x = r + 6 + 3 * f;
                    const double d2 = (r[0] * x[0] + r[1] * x[1] + r[2] * x[2]) * s;
                    ref = std::min(ref, kern::limiter_ratio(kind, (r[4] - r[3]) * s,
                                                            (r[5] - r[3]) * s, d2, 0.05, sc * s));
                }
                EXPECT_NEAR(psi[k], ref, 4e-16) << kind << " " << mag << " " << k;
                EXPECT_GE(psi[k], 0.0);
                EXPECT_LE(psi[k], 1.0);
                if (k % 7 == 0) EXPECT_EQ(psi[k], 1.0);
            }
            if (first.empty()) {
                first = psi;
                int limited = 0;
                for (double p : psi) limited += p < 0.999;
                EXPECT_GT(limited, n / 4) << "the stencils must exercise the limiter";
            } else {
                // (the inputs times a magnitude that is not a power of two are rounded: a few ulp)
                for (int k = 0; k < n; ++k) EXPECT_NEAR(psi[k], first[k], 2e-15) << mag << " " << k;
            }
        }
    }
}

/// Cell 0 at the origin with neighbours 1..4 at (+-1, 0), (0, +-1): LSQ vectors d/2, faces at d/2;
/// W linear, component e with slope a[e] * (1, -2).
struct LinearStencil {
    const double a[5] = {0.3, -0.7, 1.1, 0.0, 2.5};
    std::vector<double> W = std::vector<double>(25), lsq, dx;
    LinearStencil() {
        const double d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        const double base[5] = {1.0, 0.2, -0.1, 0.0, 3.0};
        for (int e = 0; e < 5; ++e) W[e] = base[e];
        for (int j = 0; j < 4; ++j) {
            const double x = d[j][0], y = d[j][1];
            for (int e = 0; e < 5; ++e) W[5 * (j + 1) + e] = base[e] + a[e] * (x - 2.0 * y);
            lsq.insert(lsq.end(), {0.5 * x, 0.5 * y, 0.0});
            dx.insert(dx.end(), {0.5 * x, 0.5 * y, 0.0});
        }
    }
};

TEST_F(StepKernels, LimitedGradientOfALinearFieldIsExact) {
    // LinearStencil: a linear W is reproduced exactly, and the limiters leave it unlimited (the
    // face increment is half of the neighbour difference).
    LinearStencil st;
    const auto& a = st.a;
    const auto &W = st.W, &lsq = st.lsq, &dx = st.dx;
    auto dW = upload(W);
    auto doff = upload(std::vector<index_t>{0, 4});
    auto dn = upload(std::vector<index_t>{1, 2, 3, 4});
    auto dl = upload(lsq);
    auto ddx = upload(dx);
    for (int kind : {kern::kNoLimiter, kern::kBarthJespersen, kern::kVenkatakrishnan}) {
        DeviceArray<double> g("g", 15);
        gradient_of_cell0(dW, doff, dn, dl, ddx, kind, g);
        const auto o = download(g);
        for (int e = 0; e < 5; ++e) {
            EXPECT_DOUBLE_EQ(o[3 * e], a[e]) << kind << " " << e;
            EXPECT_DOUBLE_EQ(o[3 * e + 1], -2.0 * a[e]) << kind << " " << e;
            EXPECT_EQ(o[3 * e + 2], 0.0);
        }
    }
}

TEST_F(StepKernels, FrozenLimiterFactorsOnlyFall) {
    // LinearStencil with a bump of +2 in component 0 of the
    // +x neighbour, so that Barth-Jespersen limits component 0 (psi0 < 1) and no other. Frozen
    // with stored factors {0.25, 0.5, 1, 1, 1}: components 0 and 1 use the stored factors
    // (smaller than the live ones) and keep them, 2-4 use the live factor 1. Frozen with stored
    // factors 1: the live factors are used and stored.
    LinearStencil st;
    std::vector<double> W = st.W;
    const auto &lsq = st.lsq, &dx = st.dx;
    W[5] += 2.0;
    auto dW = upload(W);
    auto doff = upload(std::vector<index_t>{0, 4});
    auto dn = upload(std::vector<index_t>{1, 2, 3, 4});
    auto dl = upload(lsq);
    auto ddx = upload(dx);
    DeviceArray<double> g("g", 15);
    gradient_of_cell0(dW, doff, dn, dl, ddx, kern::kBarthJespersen, g);
    const auto live = download(g);
    gradient_of_cell0(dW, doff, dn, dl, ddx, kern::kNoLimiter, g);
    const auto raw = download(g);
    const double psi0 = live[0] / raw[0];
    ASSERT_GT(psi0, 0.3);
    ASSERT_LT(psi0, 0.99);
    {
        auto psi = upload(std::vector<double>{0.25, 0.5, 1, 1, 1});
        gradient_of_cell0(dW, doff, dn, dl, ddx, kern::kBarthJespersen, g, &psi);
        const auto o = download(g);
        const auto p = download(psi);
        EXPECT_EQ(p, (std::vector<double>{0.25, 0.5, 1, 1, 1}));
        for (int k = 0; k < 3; ++k) {
            EXPECT_DOUBLE_EQ(o[k], 0.25 * raw[k]);
            EXPECT_DOUBLE_EQ(o[3 + k], 0.5 * raw[3 + k]);
            for (int e = 2; e < 5; ++e) EXPECT_EQ(o[3 * e + k], live[3 * e + k]);
        }
    }
    {
        auto psi = upload(std::vector<double>(5, 1.0));
        gradient_of_cell0(dW, doff, dn, dl, ddx, kern::kBarthJespersen, g, &psi);
        EXPECT_EQ(download(g), live);
        const auto p = download(psi);
        EXPECT_DOUBLE_EQ(p[0], psi0);
        for (int e = 1; e < 5; ++e) EXPECT_EQ(p[e], 1.0);
    }
}

TEST(LimiterCodes, RoundTripAndRatchet) {
    // Every 16-bit code survives value -> code (a checkpoint stores the values); codes round up,
    // so an unchanged live factor is applied unchanged; the frozen factor of a distribution is
    // the smaller of the live factor and the stored code's value.
    for (int c = 0; c <= 65535; ++c) {
        const auto code = static_cast<std::uint16_t>(c);
        ASSERT_EQ(kern::limiter_code(kern::limiter_value(code)), code) << c;
    }
    EXPECT_EQ(kern::limiter_code(-0.5), 0);
    EXPECT_EQ(kern::limiter_code(1.5), 65535);
    for (double p : {0.6, 0.123456789, 0.99999, 1e-7}) {
        EXPECT_GE(kern::limiter_value(kern::limiter_code(p)), p - 2e-11) << p;
        EXPECT_LT(kern::limiter_value(kern::limiter_code(p)), p + 1.6e-5) << p;
    }
    std::uint16_t code = kern::limiter_code(1.0);
    EXPECT_EQ(kern::limiter_frozen(0.61, code), 0.61) << "freezing changes nothing at once";
    EXPECT_EQ(code, kern::limiter_code(0.61));
    EXPECT_EQ(kern::limiter_frozen(0.61, code), 0.61) << "nor in the next step";
    EXPECT_EQ(kern::limiter_frozen(0.9, code), kern::limiter_value(kern::limiter_code(0.61)))
        << "a frozen factor never rises";
    EXPECT_EQ(kern::limiter_frozen(0.2, code), 0.2);
    EXPECT_EQ(code, kern::limiter_code(0.2));
}

TEST_F(StepKernels, RawMomentsOfAMaxwellianGiveNoHeatFluxOrStress) {
    constexpr int D = 3;
    const phys::GasParams g = gas(D, 1);
    const Grid G = make_grid(D, 36, 6.5);
    phys::Prim p;
    p.rho = 1.2;
    p.U[0] = -0.25;
    p.U[1] = 0.4;
    p.U[2] = 0.15;
    p.lambda = 1.0 / 0.9;
    const index_t nv = static_cast<index_t>(G.w.size());
    std::vector<double> h(nv), b(nv);
    for (index_t k = 0; k < nv; ++k) phys::maxwellian(p, g, &G.u[3 * k], h[k], b[k]);
    auto du = upload(G.u);
    auto dw = upload(G.w);
    auto dh = upload(h);
    auto db = upload(b);
    DeviceArray<double> out("M", 17);
    raw_moments_of(du, dw, dh, db, out);
    const auto M = download(out);
    EXPECT_NEAR(M[0], p.rho, 1e-12);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(M[1 + d], p.rho * p.U[d], 1e-12);
    double q[3], stress[6];
    ugks::q_stress_from_raw(M.data(), p, D, q, stress);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(q[d], 0.0, 1e-12) << d;
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(stress[k], 0.0, 1e-12) << k;
}

}  // namespace

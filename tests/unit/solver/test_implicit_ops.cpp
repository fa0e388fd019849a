// Piecewise verification of the implicit steady iteration's operators (docs/steady.md section 7,
// include/ugks/solver/implicit_ops.hpp):
// - the Euler flux difference dF = F(W + e d) - F(W) of the macroscopic prediction tends to the
//   analytic flux Jacobian A_n d (first order in e);
// - the microscopic matrix is the Jacobian of the first-order upwind transport residual, coded
//   here independently as a loop over faces (the residual is affine in f, so A x must equal it
//   exactly up to rounding);
// - the Gauss-Seidel sweeps solve manufactured systems: microscopic (any cell order; one sweep
//   pair exact in 1D) and macroscopic (the nonlinear system as documented);
// - the closed-domain mass scaling of the microscopic update: after f^{n+1} is scaled by the factor
//   of kern::mass_residual_factor, the moments Q of the residual of the scaled f (recomputed here
//   per velocity) equal kern::scale_micro_moments' update and have zero total mass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "ugks/mesh/sources.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/kernels/implicit.hpp"
#include "ugks/solver/kernels/update.hpp"
#include "ugks/solver/macro_krylov.hpp"

namespace {

using namespace ugks;

Mesh box(int dim, std::array<index_t, 3> n, double stretch, const std::string& type = "") {
    BoxSpec s;
    s.dim = dim;
    s.n = n;
    s.stretch = {stretch, stretch, stretch};
    s.stretch_symmetric = true;
    s.cell_type = type;
    return make_box(s);
}

TEST(ImplicitOps, EulerFluxDifferenceTendsToTheJacobian) {
    const double g = 5.0 / 3.0;
    const double W[5] = {1.3, 0.4, -0.26, 0.13, 2.1};
    double n[3] = {0.6, -0.48, 0.64};
    const double d[5] = {0.7, -0.3, 0.5, 0.2, -0.9};
    double A[25];  // verified against central differences in test_macro_krylov.cpp
    implicit::euler_jacobian_n(W, n, g, A);
    double Ad[5] = {0, 0, 0, 0, 0};
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 5; ++c) Ad[r] += A[5 * r + c] * d[c];
    double prev = 0;
    for (double e : {1e-3, 5e-4}) {
        double Wp[5], F0[5], F1[5];
        for (int k = 0; k < 5; ++k) Wp[k] = W[k] + e * d[k];
        implicit::euler_flux_n(W, n, g, F0);
        implicit::euler_flux_n(Wp, n, g, F1);
        double err = 0;
        for (int k = 0; k < 5; ++k) err = std::max(err, std::abs((F1[k] - F0[k]) / e - Ad[k]));
        EXPECT_LT(err, 5e-3 * e / 1e-3) << "e = " << e;
        if (prev > 0) EXPECT_NEAR(prev / err, 2.0, 0.05) << "first-order convergence";
        prev = err;
    }
}

// Independent first-order upwind residual: a0_i x_i + (1/V_i) sum over the faces of the cell of
// sigma S (u.n_f) x_upwind, the upwind cell owner when u.n_f > 0 else neighbour; at boundary
// faces only outflow counts (nothing enters).
std::vector<double> upwind_residual(const Mesh& m, int B, const std::vector<double>& u,
                                    const std::vector<double>& a0, const std::vector<double>& x) {
    const index_t nc = static_cast<index_t>(m.cell_volume.size());
    std::vector<double> r(static_cast<std::size_t>(nc) * B, 0.0);
    for (std::size_t f = 0; f < m.face_area.size(); ++f) {
        const index_t L = m.face_owner[f], R = m.face_neighbour[f];
        for (int v = 0; v < B; ++v) {
            const double un = u[3 * v] * m.face_normal[f][0] + u[3 * v + 1] * m.face_normal[f][1] +
                              u[3 * v + 2] * m.face_normal[f][2];
            double flux = 0;
            if (un > 0)
                flux = un * x[L * B + v];
            else if (R >= 0)
                flux = un * x[R * B + v];
            flux *= m.face_area[f];
            r[L * B + v] += flux / m.cell_volume[L];
            if (R >= 0) r[R * B + v] -= flux / m.cell_volume[R];
        }
    }
    for (index_t i = 0; i < nc; ++i)
        for (int v = 0; v < B; ++v) r[i * B + v] += a0[i] * x[i * B + v];
    return r;
}

struct MicroProblem {
    Mesh mesh;
    index_t nc = 0;
    int B = 0;
    std::vector<double> u, ux, uy, uz, a0;
};

MicroProblem micro_problem(Mesh mesh, int B, unsigned seed, double a0_scale) {
    MicroProblem p;
    p.mesh = std::move(mesh);
    p.nc = static_cast<index_t>(p.mesh.cell_volume.size());
    p.B = B;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> U(-2.0, 2.0), P(0.5, 1.5);
    for (int v = 0; v < B; ++v) {
        const double c[3] = {U(rng), U(rng), 0.0};
        for (int d = 0; d < 3; ++d) p.u.push_back(c[d]);
        p.ux.push_back(c[0]);
        p.uy.push_back(c[1]);
        p.uz.push_back(c[2]);
    }
    for (index_t i = 0; i < p.nc; ++i) p.a0.push_back(a0_scale * P(rng));
    return p;
}

std::vector<double> random_vector(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    std::vector<double> x(n);
    for (auto& e : x) e = U(rng);
    return x;
}

TEST(ImplicitOps, MicroMatrixIsTheJacobianOfTheUpwindResidual) {
    for (const char* type : {"", "triangle"}) {
        SCOPED_TRACE(type);
        const MicroProblem p = micro_problem(box(2, {7, 5, 1}, 1.3, type), 9, 11, 0.3);
        const std::vector<double> x = random_vector(static_cast<std::size_t>(p.nc) * p.B, 5);
        std::vector<double> Ax(x.size());
        implicit::micro_apply(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                              x.data(), Ax.data());
        const std::vector<double> r = upwind_residual(p.mesh, p.B, p.u, p.a0, x);
        double err = 0, scale = 0;
        for (std::size_t k = 0; k < x.size(); ++k) {
            err = std::max(err, std::abs(Ax[k] - r[k]));
            scale = std::max(scale, std::abs(r[k]));
        }
        EXPECT_LT(err, 1e-13 * scale);
        // and the residual is affine: its finite difference in any direction is A applied to it
        const std::vector<double> d = random_vector(x.size(), 8);
        std::vector<double> xp(x), Ad(x.size());
        for (std::size_t k = 0; k < x.size(); ++k) xp[k] += 1e-3 * d[k];
        const std::vector<double> rp = upwind_residual(p.mesh, p.B, p.u, p.a0, xp);
        implicit::micro_apply(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                              d.data(), Ad.data());
        double fd = 0;
        for (std::size_t k = 0; k < x.size(); ++k)
            fd = std::max(fd, std::abs((rp[k] - r[k]) / 1e-3 - Ad[k]));
        EXPECT_LT(fd, 1e-9);
    }
}

TEST(ImplicitOps, MicroSweepsSolveAManufacturedSystemInAnyOrder) {
    // a0 small (large pseudo step, weak relaxation): the transport part dominates
    const MicroProblem p = micro_problem(box(2, {9, 8, 1}, 1.2, "triangle"), 12, 3, 0.05);
    const std::size_t n = static_cast<std::size_t>(p.nc) * p.B;
    const std::vector<double> xs = random_vector(n, 21), xbs = random_vector(n, 22);
    std::vector<double> b(n), bb(n);
    implicit::micro_apply(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                          xs.data(), b.data());
    implicit::micro_apply(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                          xbs.data(), bb.data());
    std::vector<index_t> natural(p.nc), reversed(p.nc), shuffled(p.nc);
    std::iota(natural.begin(), natural.end(), 0);
    reversed.assign(natural.rbegin(), natural.rend());
    shuffled = natural;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(4));
    for (const auto* order : {&natural, &reversed, &shuffled}) {
        std::vector<double> x(n, 0.0), xb(n, 0.0);
        implicit::micro_sgs(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                            b.data(), x.data(), bb.data(), xb.data(), order->data(), 400);
        double err = 0, errb = 0;
        for (std::size_t k = 0; k < n; ++k) {
            err = std::max(err, std::abs(x[k] - xs[k]));
            errb = std::max(errb, std::abs(xb[k] - xbs[k]));
        }
        EXPECT_LT(err, 1e-11);
        EXPECT_LT(errb, 1e-11);
    }
}

TEST(ImplicitOps, OneSweepPairIsExactIn1D) {
    // 1D: every velocity is swept downstream by the forward (u > 0) or the backward (u < 0)
    // sweep of natural order, so one pair solves the system exactly (a stretched mesh, no
    // relaxation term).
    MicroProblem p = micro_problem(box(1, {40, 1, 1}, 1.1), 8, 7, 0.0);
    for (int v = 0; v < p.B; ++v) p.uy[v] = p.u[3 * v + 1] = 0.0;
    std::fill(p.a0.begin(), p.a0.end(), 1e-12);
    const std::size_t n = static_cast<std::size_t>(p.nc) * p.B;
    const std::vector<double> xs = random_vector(n, 9);
    std::vector<double> b(n), x(n, 0.0);
    implicit::micro_apply(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                          xs.data(), b.data());
    std::vector<index_t> order(p.nc);
    std::iota(order.begin(), order.end(), 0);
    implicit::micro_sgs(p.mesh, p.nc, p.B, p.ux.data(), p.uy.data(), p.uz.data(), p.a0.data(),
                        b.data(), x.data(), nullptr, nullptr, order.data(), 1);
    double err = 0;
    for (std::size_t k = 0; k < n; ++k) err = std::max(err, std::abs(x[k] - xs[k]));
    EXPECT_LT(err, 1e-11);
}

TEST(ImplicitOps, MacroSweepsConvergeToTheStatedSystem) {
    const Mesh m = box(2, {10, 9, 1}, 1.25, "triangle");
    const index_t nc = static_cast<index_t>(m.cell_volume.size());
    const double g = 5.0 / 3.0;
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    std::vector<double> W(5 * nc), rhs(5 * nc), diag(nc), rf(m.face_area.size());
    for (index_t i = 0; i < nc; ++i) {
        const double rho = 1.0 + 0.2 * U(rng), u0 = 0.2 * U(rng), u1 = 0.2 * U(rng);
        const double p = 0.5 * (1.0 + 0.2 * U(rng));
        W[5 * i] = rho;
        W[5 * i + 1] = rho * u0;
        W[5 * i + 2] = rho * u1;
        W[5 * i + 3] = 0;
        W[5 * i + 4] = p / (g - 1.0) + 0.5 * rho * (u0 * u0 + u1 * u1);
        for (int e = 0; e < 5; ++e) rhs[5 * i + e] = 0.01 * U(rng);
    }
    // r_f >= |U.n| + c (the spectral radius bound of the documented system) plus a viscous part
    for (std::size_t f = 0; f < rf.size(); ++f) rf[f] = 1.4 + 0.3 * (1.0 + U(rng));
    for (index_t i = 0; i < nc; ++i) {
        double s = 0;
        for (index_t k = m.cell_face_offsets[i]; k < m.cell_face_offsets[i + 1]; ++k)
            s += m.face_area[m.cell_faces[k]] * rf[m.cell_faces[k]];
        diag[i] = 1e-3 + 0.5 * s / m.cell_volume[i];  // large pseudo step
    }
    std::vector<index_t> order(nc);
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> res(5 * nc);
    // the documented system, coded independently as a loop over faces (each interior face couples
    // its two cells with opposite normals)
    auto max_res = [&](const std::vector<double>& dW) {
        for (index_t i = 0; i < nc; ++i)
            for (int e = 0; e < 5; ++e) res[5 * i + e] = diag[i] * dW[5 * i + e] - rhs[5 * i + e];
        for (std::size_t f = 0; f < m.face_area.size(); ++f) {
            const index_t L = m.face_owner[f], R = m.face_neighbour[f];
            if (R < 0) continue;
            for (int side = 0; side < 2; ++side) {
                const index_t i = side == 0 ? L : R, j = side == 0 ? R : L;
                const double sg = side == 0 ? 1.0 : -1.0;
                const double n[3] = {sg * m.face_normal[f][0], sg * m.face_normal[f][1],
                                     sg * m.face_normal[f][2]};
                double Wt[5], F0[5], F1[5];
                for (int e = 0; e < 5; ++e) Wt[e] = W[5 * j + e] + dW[5 * j + e];
                implicit::euler_flux_n(&W[5 * j], n, g, F0);
                implicit::euler_flux_n(Wt, n, g, F1);
                for (int e = 0; e < 5; ++e)
                    res[5 * i + e] += 0.5 * m.face_area[f] / m.cell_volume[i] *
                                      (F1[e] - F0[e] - rf[f] * dW[5 * j + e]);
            }
        }
        double r = 0;
        for (double e : res) r = std::max(r, std::abs(e));
        // the library's own evaluation of the same system agrees
        std::vector<double> lib(5 * nc);
        implicit::macro_system_residual(m, nc, W.data(), rf.data(), diag.data(), rhs.data(),
                                        dW.data(), g, lib.data());
        for (std::size_t k = 0; k < lib.size(); ++k)
            EXPECT_NEAR(lib[k], res[k], 1e-13 + 1e-12 * std::abs(res[k]));
        return r;
    };
    std::vector<double> dW(5 * nc, 0.0);
    const double r0 = max_res(dW);
    double prev = r0;
    for (int pairs : {1, 1, 2, 4, 8, 32, 200}) {
        implicit::macro_sgs(m, nc, W.data(), rf.data(), diag.data(), rhs.data(), dW.data(),
                            order.data(), pairs, g);
        const double r = max_res(dW);
        EXPECT_LT(r, prev) << "sweeps must reduce the residual of the stated system";
        prev = r;
    }
    // (weakly diagonally dominant with a large pseudo step: linear, slow convergence)
    EXPECT_LT(prev, 1e-6 * r0);
}

TEST(ImplicitOps, MassScalingZeroesTheTotalMassOfTheMicroResidual) {
    // Cells with volumes, relaxation times, a microscopic residual r_k and a distribution f_k
    // (h and b) per velocity; Q and m(f) as micro_relax sums them.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(0.2, 1.0), S(-1.0, 1.0);
    const int nc = 7, nv = 12;
    std::vector<double> vol(nc), tau(nc), w(nv), u(3 * nv), f(nc * nv), fb(nc * nv), r(nc * nv),
        rb(nc * nv), Qm(kern::kQm * nc, 0.0);
    for (int v = 0; v < nv; ++v) {
        w[v] = U(rng);
        for (int d = 0; d < 3; ++d) u[3 * v + d] = S(rng);
    }
    for (int i = 0; i < nc; ++i) {
        vol[i] = U(rng);
        tau[i] = i == 3 ? 50.0 : U(rng);  // one nearly collisionless cell
        for (int v = 0; v < nv; ++v) {
            const int k = i * nv + v;
            f[k] = U(rng);
            fb[k] = U(rng);
            r[k] = 0.1 * S(rng);
            rb[k] = 0.1 * S(rng);
            double q[5] = {0, 0, 0, 0, 0}, m[5] = {0, 0, 0, 0, 0};
            kern::add_conserved_moments(w[v], &u[3 * v], r[k], rb[k], q);
            kern::add_conserved_moments(w[v], &u[3 * v], f[k], fb[k], m);
            for (int e = 0; e < 5; ++e) {
                Qm[kern::kQm * i + e] += q[e];
                Qm[kern::kQm * i + 5 + e] += m[e];
            }
        }
    }
    double s[2] = {0.0, 0.0};
    for (int i = 0; i < nc; ++i) kern::add_mass_residual(vol[i], tau[i], &Qm[kern::kQm * i], s);
    const double alpha = kern::mass_residual_factor(s);
    ASSERT_GT(alpha, 0.5);
    ASSERT_LT(alpha, 2.0);
    ASSERT_NE(alpha, 1.0);
    double total = 0.0, scale = 0.0;
    for (int i = 0; i < nc; ++i) {
        kern::scale_micro_moments(alpha, tau[i], &Qm[kern::kQm * i]);
        // the residual of alpha f: r - (alpha - 1) f / tau, velocity by velocity
        double q[5] = {0, 0, 0, 0, 0}, m[5] = {0, 0, 0, 0, 0};
        for (int v = 0; v < nv; ++v) {
            const int k = i * nv + v;
            const double c = (alpha - 1.0) / tau[i];
            kern::add_conserved_moments(w[v], &u[3 * v], r[k] - c * f[k], rb[k] - c * fb[k], q);
            kern::add_conserved_moments(w[v], &u[3 * v], alpha * f[k], alpha * fb[k], m);
        }
        for (int e = 0; e < 5; ++e) {
            EXPECT_NEAR(Qm[kern::kQm * i + e], q[e], 1e-13) << "cell " << i << " moment " << e;
            EXPECT_NEAR(Qm[kern::kQm * i + 5 + e], m[e], 1e-13) << "cell " << i << " moment " << e;
        }
        total += vol[i] * q[0];
        scale += vol[i] * std::abs(q[0]);
    }
    EXPECT_LE(std::abs(total), 1e-14 * scale);
    // no collisions (tau infinite): nothing to scale
    const double none[2] = {0.3, 0.0};
    EXPECT_EQ(kern::mass_residual_factor(none), 1.0);
    // far from a fixed point the factor is kept within [1/2, 2]
    const double big[2] = {10.0, 1.0}, neg[2] = {-10.0, 1.0};
    EXPECT_EQ(kern::mass_residual_factor(big), 2.0);
    EXPECT_EQ(kern::mass_residual_factor(neg), 0.5);
}

}  // namespace

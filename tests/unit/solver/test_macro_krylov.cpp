// Piecewise verification of the Krylov macroscopic solve of the implicit steady iteration
// (include/ugks/solver/macro_krylov.hpp, docs/steady.md section 7.3):
// - the analytic Euler flux Jacobian against central differences of euler_flux_n;
// - the block CSR pattern from the connectivity (sizes, sorted columns, symmetry, diagonal) and
//   the assembled matrix against the matrix-free macroscopic system of implicit_ops (the linear
//   limit of macro_system_residual: A x = lim (res(e x) + rhs) / e);
// - GMRES on manufactured systems: exact after n steps without restart, convergence with restart,
//   the preconditioned solve needs fewer matrix applications, the reduction callback is used for
//   every inner product (a scaled "reduction" must not change the answer direction), and the
//   macroscopic system of a cavity-like state is solved to the requested tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "ugks/mesh/sources.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/macro_krylov.hpp"

namespace {

using namespace ugks;

Mesh box(int dim, std::array<index_t, 3> n, double stretch) {
    BoxSpec s;
    s.dim = dim;
    s.n = n;
    s.stretch = {stretch, stretch, stretch};
    s.stretch_symmetric = true;
    return make_box(s);
}

// A random gas state per cell (rho, rho U, rho E) and the system coefficients of the implicit
// iteration's macroscopic prediction (r_f >= |U.n| + c, diag from a pseudo step).
struct MacroProblem {
    std::vector<double> W, rf, diag, rhs;
    double g = 5.0 / 3.0;
    MacroProblem(const Mesh& m, double inv_dtau, unsigned seed) {
        const index_t nc = m.n_cells();
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> U(-1.0, 1.0);
        W.resize(5 * nc);
        rhs.resize(5 * nc);
        diag.resize(nc);
        rf.resize(m.n_faces());
        for (index_t i = 0; i < nc; ++i) {
            const double rho = 1.0 + 0.2 * U(rng),
                         u[3] = {0.2 * U(rng), 0.2 * U(rng), m.dim == 3 ? 0.2 * U(rng) : 0.0};
            const double p = 0.5 * (1.0 + 0.2 * U(rng));
            W[5 * i] = rho;
            for (int d = 0; d < 3; ++d) W[5 * i + 1 + d] = rho * u[d];
            W[5 * i + 4] = p / (g - 1.0) + 0.5 * rho * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int e = 0; e < 5; ++e) rhs[5 * i + e] = 0.01 * U(rng);
        }
        for (auto& r : rf) r = 1.4 + 0.3 * (1.0 + U(rng));
        for (index_t i = 0; i < nc; ++i) {
            double s = 0;
            for (index_t k = m.cell_face_offsets[i]; k < m.cell_face_offsets[i + 1]; ++k)
                s += m.face_area[m.cell_faces[k]] * rf[m.cell_faces[k]];
            diag[i] = inv_dtau + 0.5 * s / m.cell_volume[i];
        }
    }
};

TEST(MacroKrylov, EulerJacobianMatchesCentralDifferences) {
    const double g = 5.0 / 3.0;
    const double W[5] = {1.3, 0.4, -0.26, 0.13, 2.1};
    const double n[3] = {0.48, -0.6, 0.64};
    double A[25];
    implicit::euler_jacobian_n(W, n, g, A);
    const double eps = 1e-6;
    double worst = 0.0;
    for (int q = 0; q < 5; ++q) {
        double Wp[5], Wm[5], Fp[5], Fm[5];
        std::copy(W, W + 5, Wp);
        std::copy(W, W + 5, Wm);
        Wp[q] += eps;
        Wm[q] -= eps;
        implicit::euler_flux_n(Wp, n, g, Fp);
        implicit::euler_flux_n(Wm, n, g, Fm);
        for (int e = 0; e < 5; ++e)
            worst = std::max(worst, std::abs((Fp[e] - Fm[e]) / (2 * eps) - A[5 * e + q]));
    }
    EXPECT_LT(worst, 1e-8);  // central differences: O(eps^2) + rounding/eps
    // F is homogeneous of degree 1 in W: A W = F (Euler's theorem), exact up to rounding
    double F[5];
    implicit::euler_flux_n(W, n, g, F);
    for (int e = 0; e < 5; ++e) {
        double s = 0;
        for (int q = 0; q < 5; ++q) s += A[5 * e + q] * W[q];
        EXPECT_NEAR(s, F[e], 1e-14 * (1 + std::abs(F[e])));
    }
}

TEST(MacroKrylov, PatternFromTheConnectivity) {
    const Mesh m = box(2, {5, 4, 1}, 1.0);  // 20 cells, 31 interior faces
    const index_t nc = m.n_cells();
    const auto A = implicit::macro_pattern(m, nc);
    ASSERT_EQ(A.n, nc);
    index_t interior = 0;
    for (index_t f = 0; f < m.n_faces(); ++f) interior += m.face_neighbour[f] >= 0;
    EXPECT_EQ(interior, 31);
    EXPECT_EQ(A.nnz(), nc + 2 * interior);
    for (index_t i = 0; i < nc; ++i) {
        EXPECT_TRUE(std::is_sorted(A.col.begin() + A.row_ptr[i], A.col.begin() + A.row_ptr[i + 1]));
        ASSERT_GE(A.diag[i], A.row_ptr[i]);
        EXPECT_EQ(A.col[A.diag[i]], i);
        for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {  // structurally symmetric
            const index_t j = A.col[p];
            EXPECT_TRUE(std::binary_search(A.col.begin() + A.row_ptr[j],
                                           A.col.begin() + A.row_ptr[j + 1], i));
        }
    }
    // a partition's first 7 cells: faces to cells >= 7 couple nothing
    const auto P = implicit::macro_pattern(m, 7);
    for (index_t c : P.col) EXPECT_LT(c, 7);
    EXPECT_EQ(P.row_ptr.back(), P.nnz());
}

TEST(MacroKrylov, AssembledMatrixIsTheLinearizedMacroSystem) {
    for (int dim : {2, 3}) {
        const Mesh m = dim == 2 ? box(2, {6, 5, 1}, 3.0) : box(3, {4, 3, 3}, 2.0);
        const index_t nc = m.n_cells();
        for (index_t no : {nc, nc / 2}) {
            MacroProblem P(m, 0.37, 5 + dim);
            auto A = implicit::macro_pattern(m, no);
            implicit::macro_fill(m, no, P.W.data(), P.rf.data(), P.diag.data(), P.g, A);
            std::mt19937 rng(3);
            std::uniform_real_distribution<double> U(-1.0, 1.0);
            std::vector<double> x(5 * nc, 0.0), y(5 * no), res(5 * no), zero(5 * no, 0.0);
            for (index_t k = 0; k < 5 * no; ++k) x[k] = U(rng);
            implicit::bcsr_apply(A, x.data(), y.data());
            // the matrix-free system with rhs = 0 at e x, divided by e: linear in e up to O(e)
            for (double e : {1e-4, 1e-5}) {
                std::vector<double> ex(x);
                for (auto& v : ex) v *= e;
                implicit::macro_system_residual(m, no, P.W.data(), P.rf.data(), P.diag.data(),
                                                zero.data(), ex.data(), P.g, res.data());
                double worst = 0, scale = 0;
                for (index_t k = 0; k < 5 * no; ++k) {
                    worst = std::max(worst, std::abs(res[k] / e - y[k]));
                    scale = std::max(scale, std::abs(y[k]));
                }
                EXPECT_LT(worst, 50 * e * scale) << "dim " << dim << " no " << no << " e " << e;
            }
        }
    }
}

// A nonsymmetric sparse test matrix with known solution: 1D convection-diffusion-like rows.
struct Manufactured {
    index_t n;
    std::vector<double> a, b, c;  // sub, main, super diagonals plus a far coupling
    std::vector<double> far;
    int offset;
    void apply(const double* x, double* y) const {
        for (index_t i = 0; i < n; ++i) {
            double s = b[i] * x[i];
            if (i > 0) s += a[i] * x[i - 1];
            if (i + 1 < n) s += c[i] * x[i + 1];
            if (i + offset < n) s += far[i] * x[i + offset];
            y[i] = s;
        }
    }
};

Manufactured manufactured(index_t n, double dominance, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> U(0.0, 1.0);
    Manufactured M{n,
                   std::vector<double>(n),
                   std::vector<double>(n),
                   std::vector<double>(n),
                   std::vector<double>(n),
                   7};
    for (index_t i = 0; i < n; ++i) {
        M.a[i] = -1.0 - U(rng);
        M.c[i] = -0.2 * U(rng);
        M.far[i] = 0.5 * (U(rng) - 0.5);
        M.b[i] = dominance * (std::abs(M.a[i]) + std::abs(M.c[i]) + std::abs(M.far[i]));
    }
    return M;
}

TEST(MacroKrylov, GmresSolvesManufacturedSystems) {
    const auto serial = [](double s) { return s; };
    const index_t n = 60;
    const auto M = manufactured(n, 1.05, 11);
    std::vector<double> xs(n), b(n);
    for (index_t i = 0; i < n; ++i) xs[i] = std::sin(0.3 * i) + 0.1 * i;
    M.apply(xs.data(), b.data());
    const auto op = [&](const double* x, double* y) { M.apply(x, y); };
    // without restart: the Krylov space is the whole space after n steps
    {
        std::vector<double> x(n, 0.0);
        const auto r = implicit::gmres(n, op, {}, serial, b.data(), x.data(), n, n, 1e-13);
        EXPECT_TRUE(r.converged);
        EXPECT_LE(r.iterations, n);
        double err = 0;
        for (index_t i = 0; i < n; ++i) err = std::max(err, std::abs(x[i] - xs[i]));
        EXPECT_LT(err, 1e-10);
    }
    // restarted GMRES(8) to 1e-10, and the preconditioned (Jacobi) solve needs fewer steps
    std::vector<double> x(n, 0.0);
    const auto plain = implicit::gmres(n, op, {}, serial, b.data(), x.data(), 8, 2000, 1e-10);
    EXPECT_TRUE(plain.converged);
    EXPECT_LE(plain.residual, 1e-10 * plain.residual0);
    double err = 0;
    for (index_t i = 0; i < n; ++i) err = std::max(err, std::abs(x[i] - xs[i]));
    EXPECT_LT(err, 1e-7);
    // Gauss-Seidel (lower triangle incl. the diagonal) as right preconditioner
    const auto gs = [&](const double* z, double* y) {
        for (index_t i = 0; i < n; ++i) y[i] = (z[i] - (i > 0 ? M.a[i] * y[i - 1] : 0.0)) / M.b[i];
    };
    std::fill(x.begin(), x.end(), 0.0);
    const auto pre = implicit::gmres(n, op, gs, serial, b.data(), x.data(), 8, 2000, 1e-10);
    EXPECT_TRUE(pre.converged);
    EXPECT_LT(pre.iterations, plain.iterations);
    err = 0;
    for (index_t i = 0; i < n; ++i) err = std::max(err, std::abs(x[i] - xs[i]));
    EXPECT_LT(err, 1e-7);
    // a starting guess at the solution returns at once
    const auto again = implicit::gmres(n, op, gs, serial, b.data(), xs.data(), 8, 2000, 1e-10);
    EXPECT_EQ(again.iterations, 0);
    // the iteration limit is respected and reported as not converged
    std::fill(x.begin(), x.end(), 0.0);
    const auto cut = implicit::gmres(n, op, {}, serial, b.data(), x.data(), 8, 5, 1e-14);
    EXPECT_FALSE(cut.converged);
    EXPECT_EQ(cut.iterations, 5);
    EXPECT_LT(cut.residual, cut.residual0);
}

TEST(MacroKrylov, GmresReducesEveryInnerProduct) {
    // Two "ranks" holding the same vector halves: the reduction doubles every partial sum, as a
    // sum over two ranks would; the solution must be the same as the serial one (norms scale by
    // sqrt 2, directions do not), and the number of reductions must match the algorithm's.
    const index_t n = 40;
    const auto M = manufactured(n, 1.2, 4);
    std::vector<double> xs(n, 1.0), b(n);
    M.apply(xs.data(), b.data());
    const auto op = [&](const double* x, double* y) { M.apply(x, y); };
    long calls = 0;
    const auto twice = [&](double s) {
        ++calls;
        return 2.0 * s;
    };
    std::vector<double> x1(n, 0.0), x2(n, 0.0);
    const auto r1 = implicit::gmres(
        n, op, {}, [](double s) { return s; }, b.data(), x1.data(), 10, 500, 1e-12);
    const auto r2 = implicit::gmres(n, op, {}, twice, b.data(), x2.data(), 10, 500, 1e-12);
    EXPECT_EQ(r1.iterations, r2.iterations);
    for (index_t i = 0; i < n; ++i) EXPECT_NEAR(x1[i], x2[i], 1e-12);
    EXPECT_NEAR(r2.residual0, std::sqrt(2.0) * r1.residual0, 1e-12 * r1.residual0);
    EXPECT_GT(calls, r2.iterations);  // at least one (Gram-Schmidt) reduction per step
}

TEST(MacroKrylov, GmresWithBlockSgsSolvesTheMacroSystem) {
    const Mesh m = box(2, {12, 10, 1}, 4.0);  // stretched: anisotropic cells
    const index_t nc = m.n_cells();
    MacroProblem P(m, 1e-3, 21);  // large pseudo step: weak diagonal dominance
    auto A = implicit::macro_pattern(m, nc);
    implicit::macro_fill(m, nc, P.W.data(), P.rf.data(), P.diag.data(), P.g, A);
    std::vector<index_t> order(nc);
    std::iota(order.begin(), order.end(), 0);
    const index_t n = 5 * nc;
    const auto op = [&](const double* x, double* y) { implicit::bcsr_apply(A, x, y); };
    const auto serial = [](double s) { return s; };
    std::vector<double> x(n, 0.0), r(n);
    int last_its = 1 << 30;
    for (int pairs : {0, 1, 2}) {
        std::fill(x.begin(), x.end(), 0.0);
        implicit::LinearOp pre;
        if (pairs > 0)
            pre = [&, pairs](const double* z, double* y) {
                implicit::bcsr_sgs(A, z, y, order.data(), pairs);
            };
        const auto res =
            implicit::gmres(n, op, pre, serial, P.rhs.data(), x.data(), 30, 3000, 1e-9);
        EXPECT_TRUE(res.converged) << pairs;
        op(x.data(), r.data());
        double worst = 0, scale = 0;
        for (index_t k = 0; k < n; ++k) {
            worst = std::max(worst, std::abs(r[k] - P.rhs[k]));
            scale = std::max(scale, std::abs(P.rhs[k]));
        }
        EXPECT_LT(worst, 1e-7 * scale) << pairs;
        EXPECT_LT(res.iterations, last_its) << "more SGS pairs, fewer Krylov steps";
        last_its = res.iterations;
    }
    // block SGS alone with many pairs reaches the same solution (it is a convergent splitting)
    std::vector<double> xg(n);
    implicit::bcsr_sgs(A, P.rhs.data(), xg.data(), order.data(), 400);
    double d = 0, s = 0;
    for (index_t k = 0; k < n; ++k) {
        d = std::max(d, std::abs(xg[k] - x[k]));
        s = std::max(s, std::abs(x[k]));
    }
    EXPECT_LT(d, 1e-6 * s);
}

}  // namespace

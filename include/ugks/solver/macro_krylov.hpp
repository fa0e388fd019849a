#pragma once
// Krylov solution of the macroscopic prediction of the implicit steady iteration (docs/steady.md
// section 7.3, time.implicit.macro_solver: gmres): the linearized system of implicit_ops.hpp's
// macro_sgs with the Euler flux differences replaced by the analytic flux Jacobian, assembled as a
// 5x5-block CSR matrix directly from the mesh connectivity (row counts, exclusive scan, fill,
// columns sorted per row), solved by restarted GMRES with right preconditioning (block symmetric
// Gauss-Seidel on the same matrix). Inner products go through a caller-supplied reduction so that
// the same code sums over the ranks of a communicator.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/mesh/mesh.hpp"

namespace ugks::implicit {

/// Analytic Jacobian A = dF/dW of the normal Euler flux F(W).n of euler_flux_n (gamma law),
/// row-major 5x5. Both backends.
UGKS_HOST_DEVICE inline void euler_jacobian_n(const double* W, const double* n, double g,
                                              double* A) {
    const double rho = W[0];
    const double U[3] = {W[1] / rho, W[2] / rho, W[3] / rho};
    const double q2 = U[0] * U[0] + U[1] * U[1] + U[2] * U[2];
    const double p = (g - 1.0) * (W[4] - 0.5 * rho * q2);
    const double H = (W[4] + p) / rho;
    const double u = U[0] * n[0] + U[1] * n[1] + U[2] * n[2];
    const double phi = 0.5 * (g - 1.0) * q2;
    A[0] = 0.0;
    for (int k = 0; k < 3; ++k) A[1 + k] = n[k];
    A[4] = 0.0;
    for (int d = 0; d < 3; ++d) {
        double* r = A + 5 * (1 + d);
        r[0] = phi * n[d] - U[d] * u;
        for (int k = 0; k < 3; ++k)
            r[1 + k] = U[d] * n[k] + (d == k ? u : 0.0) - (g - 1.0) * U[k] * n[d];
        r[4] = (g - 1.0) * n[d];
    }
    double* r = A + 20;
    r[0] = u * (phi - H);
    for (int k = 0; k < 3; ++k) r[1 + k] = H * n[k] - (g - 1.0) * U[k] * u;
    r[4] = g * u;
}

/// Square matrix of 5x5 blocks over the owned cells (block rows = cells 0..n-1).
struct BlockCsr5 {
    index_t n = 0;
    std::vector<index_t> row_ptr;  ///< n + 1 offsets into col
    std::vector<index_t> col;      ///< block columns, ascending within a row
    std::vector<index_t> diag;     ///< position of the diagonal block of each row in col
    std::vector<double> val;       ///< 25 doubles per block, row-major
    index_t nnz() const { return static_cast<index_t>(col.size()); }
};

/// The block pattern of the macroscopic system on the owned cells 0..no-1: the diagonal and one
/// block per face to another owned cell (faces to ghosts and boundaries couple nothing). A cell
/// that meets a neighbour through several faces (periodic images, thin meshes) gets one block.
BlockCsr5 macro_pattern(const Mesh& mesh, index_t no);

/// Fill the blocks of the linearized macroscopic system (implicit_ops.hpp, macro_sgs):
///   diag_i dW_i + (1/(2 V_i)) sum_{f, j < no} S_f (A_j(n_f) - r_f I) dW_j = rhs_i,
/// A_j = euler_jacobian_n(W_j, n_f) with n_f pointing out of cell i.
void macro_fill(const Mesh& mesh, index_t no, const double* W, const double* rf, const double* diag,
                double gamma, BlockCsr5& A);

/// y = A x (5 n values each).
void bcsr_apply(const BlockCsr5& A, const double* x, double* y);

/// x = D^{-1} r for a 5x5 block D (row-major) by Gaussian elimination with partial pivoting.
/// Both backends.
UGKS_HOST_DEVICE inline void solve5(const double* D, const double* r, double* x) {
    double a[5][6];
    for (int p = 0; p < 5; ++p) {
        for (int q = 0; q < 5; ++q) a[p][q] = D[5 * p + q];
        a[p][5] = r[p];
    }
    for (int c = 0; c < 5; ++c) {
        int piv = c;
        for (int p = c + 1; p < 5; ++p)
            if ((a[p][c] < 0 ? -a[p][c] : a[p][c]) > (a[piv][c] < 0 ? -a[piv][c] : a[piv][c]))
                piv = p;
        if (piv != c)
            for (int q = 0; q < 6; ++q) {
                const double t = a[c][q];
                a[c][q] = a[piv][q];
                a[piv][q] = t;
            }
        for (int p = c + 1; p < 5; ++p) {
            const double m = a[p][c] / a[c][c];
            for (int q = c; q < 6; ++q) a[p][q] -= m * a[c][q];
        }
    }
    for (int c = 4; c >= 0; --c) {
        double s = a[c][5];
        for (int q = c + 1; q < 5; ++q) s -= a[c][q] * x[q];
        x[c] = s / a[c][c];
    }
}

/// `pairs` forward + backward block Gauss-Seidel sweeps for A x = b over the block rows in
/// `order`, starting from x = 0 (the preconditioner of gmres). The diagonal blocks must be
/// multiples of the identity (they are for macro_fill).
void bcsr_sgs(const BlockCsr5& A, const double* b, double* x, const index_t* order, int pairs);

using LinearOp = std::function<void(const double* x, double* y)>;
/// Sum of the local partial inner product over the participating ranks (identity on one rank).
using Reduce = std::function<double(double local)>;

struct GmresResult {
    int iterations = 0;      ///< Krylov vectors built (matrix applications)
    double residual0 = 0.0;  ///< ||b - A x0||
    double residual = 0.0;   ///< ||b - A x|| at return (recomputed, not the Arnoldi estimate)
    bool converged = false;  ///< residual <= rtol * residual0
};

/// Restarted GMRES(restart) with right preconditioning M on any vector storage: `ops` provides
/// dot(u, v) (reduced over the ranks), axpy(a, u, y) (y += a u), scale(a, u, y) (y = a u),
/// zero(y), apply(u, y) (y = A u) and precond(u, y) (y = M^{-1} u, a copy without
/// preconditioner); V (restart + 1 vectors), r, w, z are work vectors of that storage. Only the
/// small Hessenberg system lives on the host. Used by gmres() (host vectors) and by the CUDA
/// solver (device vectors), so both backends take the same steps.
template <class Ops>
GmresResult gmres_generic(const Ops& ops, const double* b, double* x, double* const* V, double* r,
                          double* w, double* z, int restart, int max_iterations, double rtol) {
    const int m = restart;
    auto true_residual = [&] {
        ops.apply(x, w);
        ops.scale(-1.0, w, r);
        ops.axpy(1.0, b, r);
        return std::sqrt(ops.dot(r, r));
    };
    GmresResult res;
    res.residual0 = res.residual = true_residual();
    const double target = rtol * res.residual0;
    if (res.residual0 == 0.0 || res.residual <= target) {
        res.converged = true;
        return res;
    }
    std::vector<double> H(static_cast<std::size_t>(m + 1) * m, 0.0), cs(m), sn(m), g(m + 1), y(m);
    auto Hij = [&](int i, int j) -> double& { return H[static_cast<std::size_t>(i) * m + j]; };
    while (res.iterations < max_iterations) {
        const double beta = res.residual;
        ops.scale(1.0 / beta, r, V[0]);
        std::fill(g.begin(), g.end(), 0.0);
        g[0] = beta;
        int j = 0;
        double est = beta;
        for (; j < m && res.iterations < max_iterations; ++j) {
            ops.precond(V[j], z);  // w = A M^{-1} v_j
            ops.apply(z, w);
            ++res.iterations;
            for (int i = 0; i <= j; ++i) {  // modified Gram-Schmidt
                Hij(i, j) = ops.dot(w, V[i]);
                ops.axpy(-Hij(i, j), V[i], w);
            }
            Hij(j + 1, j) = std::sqrt(ops.dot(w, w));
            if (Hij(j + 1, j) > 0.0) ops.scale(1.0 / Hij(j + 1, j), w, V[j + 1]);
            for (int i = 0; i < j; ++i) {  // previous rotations
                const double t = cs[i] * Hij(i, j) + sn[i] * Hij(i + 1, j);
                Hij(i + 1, j) = -sn[i] * Hij(i, j) + cs[i] * Hij(i + 1, j);
                Hij(i, j) = t;
            }
            const double d = std::hypot(Hij(j, j), Hij(j + 1, j));
            cs[j] = d > 0.0 ? Hij(j, j) / d : 1.0;
            sn[j] = d > 0.0 ? Hij(j + 1, j) / d : 0.0;
            Hij(j, j) = d;
            Hij(j + 1, j) = 0.0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            est = std::abs(g[j + 1]);
            if (est <= target || d == 0.0) {
                ++j;
                break;
            }
        }
        for (int i = j - 1; i >= 0; --i) {  // y = H^{-1} g (upper triangular j x j)
            double s = g[i];
            for (int q = i + 1; q < j; ++q) s -= Hij(i, q) * y[q];
            y[i] = Hij(i, i) != 0.0 ? s / Hij(i, i) : 0.0;
        }
        ops.zero(w);  // x += M^{-1} V y
        for (int i = 0; i < j; ++i) ops.axpy(y[i], V[i], w);
        ops.precond(w, z);
        ops.axpy(1.0, z, x);
        res.residual = true_residual();
        if (res.residual <= target) {
            res.converged = true;
            break;
        }
        if (est == 0.0) break;  // breakdown with a residual the estimate did not see
    }
    return res;
}

/// Restarted GMRES(restart) with right preconditioning M (x = M^{-1} z: `precond(z, x)`; empty for
/// none) for A x = b, n local values, from the x given, until ||r|| <= rtol ||r0|| or
/// max_iterations matrix applications. Modified Gram-Schmidt, Givens rotations; every inner
/// product is reduced with `reduce`, so all ranks take the same steps.
GmresResult gmres(index_t n, const LinearOp& apply, const LinearOp& precond, const Reduce& reduce,
                  const double* b, double* x, int restart, int max_iterations, double rtol);

/// Settings of the macroscopic Krylov solve (time.implicit.gmres_* keys, docs/usage.md).
struct MacroKrylovSettings {
    int restart = 30;         ///< Krylov vectors before a restart
    int max_iterations = 60;  ///< matrix applications per macroscopic prediction
    double rtol = 1e-3;       ///< relative residual reduction
    int precond_pairs = 2;    ///< block SGS sweep pairs of the preconditioner (0: none)
};

/// The macroscopic prediction by GMRES: fills A (pattern from macro_pattern(mesh, no), kept by
/// the caller across iterations) with macro_fill and solves A dW = rhs from dW = 0 (dW: 5 no
/// values at least; entries past 5 no are left as they are).
GmresResult macro_gmres(const Mesh& mesh, index_t no, const double* W, const double* rf,
                        const double* diag, const double* rhs, double* dW, const index_t* order,
                        double gamma, const MacroKrylovSettings& settings, const Reduce& reduce,
                        BlockCsr5& A);

}  // namespace ugks::implicit

#pragma once
/// Kernel functions of the implicit steady iteration (docs/steady.md section 7), written once for
/// both backends: one owned cell's row of the macroscopic system and one (cell, velocity) row of
/// the microscopic system. The CPU backend relaxes the rows in sweep order, the CUDA backend one
/// colour (cells that share no face) per launch.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/macro_krylov.hpp"

namespace ugks::kern {

/// Off-diagonal part of the macroscopic row of owned cell i (docs/steady.md section 7.2):
/// (1/(2 V_i)) sum_{f, j < no} S_f (F(W_j + dW_j).n - F(W_j).n - r_f dW_j), n pointing out of
/// cell i; boundary faces and other ranks' cells (j < 0, j >= no) contribute nothing.
/// normal: [face][3].
UGKS_HOST_DEVICE inline void macro_offdiag(index_t i, index_t no, const index_t* cf_off,
                                           const index_t* cf, const index_t* owner,
                                           const index_t* neigh, const double* normal,
                                           const double* area, double vol, const double* W,
                                           const double* rf, const double* dW, double gamma,
                                           double (&off)[5]) {
    for (int e = 0; e < 5; ++e) off[e] = 0.0;
    for (index_t k = cf_off[i]; k < cf_off[i + 1]; ++k) {
        const index_t f = cf[k];
        const bool own = owner[f] == i;
        const index_t j = own ? neigh[f] : owner[f];
        if (j < 0 || j >= no) continue;
        const double sg = own ? 1.0 : -1.0;
        const double n[3] = {sg * normal[3 * f], sg * normal[3 * f + 1], sg * normal[3 * f + 2]};
        double Wt[5], F0[5], F1[5];
        for (int e = 0; e < 5; ++e) Wt[e] = W[5 * j + e] + dW[5 * j + e];
        implicit::euler_flux_n(&W[5 * j], n, gamma, F0);
        implicit::euler_flux_n(Wt, n, gamma, F1);
        const double S = area[f];
        for (int e = 0; e < 5; ++e) off[e] += S * (F1[e] - F0[e] - rf[f] * dW[5 * j + e]);
    }
    const double h = 0.5 / vol;
    for (int e = 0; e < 5; ++e) off[e] *= h;
}

/// Diagonal of the macroscopic row of owned cell i: 1/dtau_i + (1/(2 V_i)) sum_f S_f r_f.
UGKS_HOST_DEVICE inline double macro_diag(index_t i, const index_t* cf_off, const index_t* cf,
                                          const double* area, const double* rf, double vol,
                                          double dtau) {
    double sum = 0.0;
    for (index_t k = cf_off[i]; k < cf_off[i + 1]; ++k) sum += area[cf[k]] * rf[cf[k]];
    return 1.0 / dtau + 0.5 * sum / vol;
}

/// One face's part of the microscopic row at one velocity (first-order upwind transport,
/// docs/steady.md section 7.3): outgoing (un > 0, n out of the cell) adds S un to the diagonal a;
/// incoming from an owned neighbour subtracts S un x_j (and S un xb_j for b) from acc.
template <bool HB>
UGKS_HOST_DEVICE inline void micro_row_face(double S, double un, bool coupled, double xj,
                                            double xbj, double& a, double& acc, double& accb) {
    if (un > 0) {
        a += S * un;
    } else if (coupled) {
        acc -= S * un * xj;
        if (HB) accb -= S * un * xbj;
    }
}

/// The relaxed value of the microscopic row: (a0 + a / V) x = rhs + acc / V.
UGKS_HOST_DEVICE inline double micro_row_inverse(double a0, double a, double invV) {
    return 1.0 / (a0 + invV * a);
}

/// Block-CSR (5x5 blocks) kernel functions of the Krylov macroscopic solve (docs/steady.md
/// section 7.3): block rows rp, block columns col (ascending per row), diagonal positions dg,
/// values val (25 per block, row-major).

/// Position of block (i, j) in row i (binary search over the row's sorted columns).
UGKS_HOST_DEVICE inline index_t bcsr_position(const index_t* rp, const index_t* col, index_t i,
                                              index_t j) {
    index_t lo = rp[i], hi = rp[i + 1];
    while (lo < hi) {
        const index_t mid = (lo + hi) / 2;
        if (col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/// Row i of the macroscopic block matrix: diag_i I, plus (1/(2 V_i)) S_f (A_j(n_f) - r_f I) per
/// face to an owned cell j (A_j = implicit::euler_jacobian_n(W_j, n_f), n_f out of cell i), in
/// the cell's face order. The row's blocks must be zero on entry.
UGKS_HOST_DEVICE inline void macro_fill_row(index_t i, index_t no, const index_t* cf_off,
                                            const index_t* cf, const index_t* owner,
                                            const index_t* neigh, const double* normal,
                                            const double* area, double vol, const double* W,
                                            const double* rf, const double* diag, double gamma,
                                            const index_t* rp, const index_t* col,
                                            const index_t* dg, double* val) {
    double* D = val + 25 * dg[i];
    for (int e = 0; e < 5; ++e) D[6 * e] = diag[i];
    const double h = 0.5 / vol;
    for (index_t k = cf_off[i]; k < cf_off[i + 1]; ++k) {
        const index_t f = cf[k];
        const bool own = owner[f] == i;
        const index_t j = own ? neigh[f] : owner[f];
        if (j < 0 || j >= no) continue;
        const double sg = own ? 1.0 : -1.0;
        const double n[3] = {sg * normal[3 * f], sg * normal[3 * f + 1], sg * normal[3 * f + 2]};
        double J[25];
        implicit::euler_jacobian_n(&W[5 * j], n, gamma, J);
        for (int e = 0; e < 5; ++e) J[6 * e] -= rf[f];
        double* Bij = val + 25 * bcsr_position(rp, col, i, j);
        const double c = h * area[f];
        for (int e = 0; e < 25; ++e) Bij[e] += c * J[e];
    }
}

/// s += sign sum_p B_p x_col(p) over the blocks p of row i but `skip` (-1: none).
UGKS_HOST_DEVICE inline void bcsr_row_accumulate(index_t i, const index_t* rp, const index_t* col,
                                                 const double* val, const double* x, index_t skip,
                                                 double sign, double (&s)[5]) {
    for (index_t p = rp[i]; p < rp[i + 1]; ++p) {
        if (p == skip) continue;
        const double* Bk = val + 25 * p;
        const double* xj = x + 5 * col[p];
        for (int e = 0; e < 5; ++e)
            for (int q = 0; q < 5; ++q) s[e] += sign * Bk[5 * e + q] * xj[q];
    }
}

/// y_i = (A x)_i for block row i.
UGKS_HOST_DEVICE inline void bcsr_row_apply(index_t i, const index_t* rp, const index_t* col,
                                            const double* val, const double* x, double* y) {
    double s[5] = {0, 0, 0, 0, 0};
    bcsr_row_accumulate(i, rp, col, val, x, -1, 1.0, s);
    for (int e = 0; e < 5; ++e) y[5 * i + e] = s[e];
}

/// One block Gauss-Seidel relaxation of row i of A x = b: x_i = D_i^{-1} (b_i - sum_{p != diag}
/// B_p x_col(p)).
UGKS_HOST_DEVICE inline void bcsr_row_relax(index_t i, const index_t* rp, const index_t* col,
                                            const index_t* dg, const double* val, const double* b,
                                            double* x) {
    double r[5];
    for (int e = 0; e < 5; ++e) r[e] = b[5 * i + e];
    bcsr_row_accumulate(i, rp, col, val, x, dg[i], -1.0, r);
    implicit::solve5(val + 25 * dg[i], r, x + 5 * i);
}

/// Values per owned cell of the microscopic moments of an implicit iteration: [0, 5) the conserved
/// moments Q of the microscopic residual with f^{n+1}, [5, 10) the conserved moments of f^{n+1}.
constexpr int kQm = 10;

/// Closed-domain mass balance of the microscopic update (docs/steady.md section 7.4b): adds
/// V rho(r) and V rho(f^{n+1}) / tau of one cell (r the microscopic residual with f^{n+1}) to
/// s[0], s[1].
UGKS_HOST_DEVICE inline void add_mass_residual(double vol, double tau, const double* Qm,
                                               double (&s)[2]) {
    s[0] += vol * Qm[0];
    s[1] += vol * Qm[5] / tau;
}

/// The factor alpha for which the microscopic residual of alpha f^{n+1} has zero total mass:
/// r(alpha f) = r(f) - (alpha - 1) f / tau, so alpha = 1 + s[0] / s[1] (the sums of
/// add_mass_residual over the domain); 1 when no cell collides (s[1] = 0: scaling changes no
/// residual), kept within [1/2, 2] (far from the fixed point only: there alpha = 1 exactly).
UGKS_HOST_DEVICE inline double mass_residual_factor(const double (&s)[2]) {
    if (!(s[1] > 0.0)) return 1.0;
    const double a = 1.0 + s[0] / s[1];
    return a < 0.5 ? 0.5 : a > 2.0 ? 2.0 : a;
}

/// The microscopic moments of one cell after f^{n+1} was scaled by alpha: the residual's moments
/// lose (alpha - 1) m(f^{n+1}) / tau, the moments of f scale.
UGKS_HOST_DEVICE inline void scale_micro_moments(double alpha, double tau, double* Qm) {
    for (int e = 0; e < 5; ++e) {
        Qm[e] -= (alpha - 1.0) * Qm[5 + e] / tau;
        Qm[5 + e] *= alpha;
    }
}

/// Moment-consistency correction of owned cell i (docs/steady.md section 7.4): W += theta tau (Rm
/// - Q), Q the conserved moments of the microscopic residual with f^{n+1}, theta the positivity
/// fraction (rho and p keep at least half their values). Zero exactly when both residuals are, so
/// the fixed point is unchanged; it moves W to the moments of f in one step where the macroscopic
/// prediction alone would relax that mismatch at the collision rate (slow at large Kn).
/// gm1 = gamma - 1 = 2/N; W, Rm, Q: 5 values of the cell.
UGKS_HOST_DEVICE inline void moment_correction(double tau, const double* Rm, const double* Q,
                                               double gm1, double* W) {
    double dc[5];
    for (int e = 0; e < 5; ++e) dc[e] = tau * (Rm[e] - Q[e]);
    const double theta = implicit::positive_fraction(gm1, W, dc);
    for (int e = 0; e < 5; ++e) W[e] += theta * dc[e];
}

}  // namespace ugks::kern

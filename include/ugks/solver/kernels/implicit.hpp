#pragma once
/// Kernel functions of the implicit steady iteration (docs/steady.md section 7), written once for
/// both backends: one owned cell's row of the macroscopic system and one (cell, velocity) row of
/// the microscopic system. The CPU backend relaxes the rows in sweep order, the CUDA backend one
/// colour (cells that share no face) per launch.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/solver/implicit_ops.hpp"

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

}  // namespace ugks::kern

#pragma once
// The linear(ized) operators and Gauss-Seidel sweeps of the implicit steady iteration
// (docs/steady.md section 7), as free functions on the mesh connectivity so that they can be
// verified piecewise (tests/unit/solver/test_implicit_ops.cpp). Cells 0..no-1 are the owned cells;
// a face's other cell j couples only when 0 <= j < no (boundary faces and other ranks' cells
// contribute no increment). Normals point out of the cell being relaxed.
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/mesh/mesh.hpp"

namespace ugks::implicit {

/// Normal Euler flux F(W).n of a conservative state W (rho, rho U, rho E) for any W (pressure
/// (gamma - 1)(rho E - |rho U|^2 / (2 rho))). Both backends.
UGKS_HOST_DEVICE inline void euler_flux_n(const double* W, const double* n, double gamma,
                                          double* F) {
    const double rho = W[0];
    const double U[3] = {W[1] / rho, W[2] / rho, W[3] / rho};
    const double p = (gamma - 1.0) * (W[4] - 0.5 * (W[1] * U[0] + W[2] * U[1] + W[3] * U[2]));
    const double Un = U[0] * n[0] + U[1] * n[1] + U[2] * n[2];
    F[0] = W[0] * Un;
    for (int d = 0; d < 3; ++d) F[1 + d] = W[1 + d] * Un + p * n[d];
    F[4] = (W[4] + p) * Un;
}

/// Positivity safeguard of an increment (docs/steady.md section 7.2): the largest theta in
/// {1, 1/2, 1/4, ...} (down to 2^-20, else 0) for which W + theta dW keeps rho and p at least half
/// of those of W; gm1 = gamma - 1. Both backends.
UGKS_HOST_DEVICE inline double positive_fraction(double gm1, const double* W, const double* dW) {
    auto pressure = [gm1](const double* w) {
        return gm1 * (w[4] - 0.5 * (w[1] * w[1] + w[2] * w[2] + w[3] * w[3]) / w[0]);
    };
    const double p0 = pressure(W);
    double theta = 1.0;
    for (int k = 0; k <= 20; ++k, theta *= 0.5) {
        double Wt[5];
        for (int e = 0; e < 5; ++e) Wt[e] = W[e] + theta * dW[e];
        if (Wt[0] >= 0.5 * W[0] && pressure(Wt) >= 0.5 * p0) return theta;
    }
    return 0.0;
}

/// Greedy colouring of the owned cells 0..no-1 in local order (each cell takes the smallest colour
/// no owned face neighbour has yet). Returns the cells sorted by colour (local order inside a
/// colour) and fills colour_offsets (colour c: entries [c], [c+1]). Cells of one colour share no
/// face, so their relaxations are independent (the colored sweep order, both backends).
std::vector<index_t> greedy_colour_order(const Mesh& mesh, index_t no,
                                         std::vector<index_t>& colour_offsets);

/// Macroscopic system, per owned cell i (5 components, dW and rhs of size 5 no at least):
///   diag_i dW_i + (1/(2 V_i)) sum_{f, j < no} S_f ( F(W_j + dW_j).n - F(W_j).n - r_f dW_j ) =
///   rhs_i.
/// `pairs` forward + backward Gauss-Seidel sweeps over `order` (a permutation of 0..no-1), in place
/// from the dW given.
void macro_sgs(const Mesh& mesh, index_t no, const double* W, const double* rf, const double* diag,
               const double* rhs, double* dW, const index_t* order, int pairs, double gamma);
/// Left-hand side minus right-hand side of the macroscopic system (per owned cell, 5 each).
void macro_system_residual(const Mesh& mesh, index_t no, const double* W, const double* rf,
                           const double* diag, const double* rhs, const double* dW, double gamma,
                           double* res);

/// Microscopic system of one velocity block of B velocities u (ux, uy, uz), per owned cell i and
/// velocity v (arrays [cell][B]):
///   (a0_i + (1/V_i) sum_f S_f (u.n_f)^+) x_i - (1/V_i) sum_{f, j < no} S_f (u.n_f)^- x_j = rhs_i,
/// (x^+ = max(x, 0), x^- = min(x, 0)): first-order upwind transport + a0 (1/dtau + 1/tau).
/// `pairs` forward + backward Gauss-Seidel sweeps over `order`, in place from the x given; the b
/// system (same matrix) is relaxed alongside when xb is not null.
void micro_sgs(const Mesh& mesh, index_t no, int B, const double* ux, const double* uy,
               const double* uz, const double* a0, const double* rhs, double* x,
               const double* rhs_b, double* xb, const index_t* order, int pairs);
/// y = A x for the microscopic matrix above (owned cells; x of other cells read as 0).
void micro_apply(const Mesh& mesh, index_t no, int B, const double* ux, const double* uy,
                 const double* uz, const double* a0, const double* x, double* y);

}  // namespace ugks::implicit

#pragma once
/// Time-step kernel functions (docs/formulation.md section 7, docs/steady.md section 7), written
/// once for both backends.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks::kern {

/// 2 V_i / sum_f S_f s_f,i (7a): the CFL bound of a cell per unit CFL number, with the face speed
/// s_f,i = max(umax . |n_f|, |U_i.n_f| + c_i) (umax: max |u_d| over the velocity grid per axis, >=
/// max_k |u_k.n|, equal on tensor grids; c the sound speed). The rule of the global, the local
/// (steady mode) and the implicit pseudo time step. Faces cf[k0..k1), normals [face][3].
UGKS_HOST_DEVICE inline double cfl_ratio(const phys::Prim& p, int N, const double umax[3],
                                         double vol, index_t k0, index_t k1, const index_t* cf,
                                         const double* normal, const double* area) {
    const double gamma = (N + 2.0) / N;
    const double c = sqrt(gamma / (2.0 * p.lambda));
    double sum = 0.0;
    for (index_t k = k0; k < k1; ++k) {
        const index_t f = cf[k];
        const double* n = &normal[3 * f];
        const double Un = fabs(p.U[0] * n[0] + p.U[1] * n[1] + p.U[2] * n[2]);
        const double um = umax[0] * fabs(n[0]) + umax[1] * fabs(n[1]) + umax[2] * fabs(n[2]);
        sum += area[f] * fmax(um, Un + c);
    }
    return 2.0 * vol / sum;
}

/// Implicit iteration: the spectral radius of face f (docs/steady.md section 7.2),
/// r_f = max(|U.n| + c) + 2 max(nu) (gamma / Pr) / d_f over the face's cells (pL, tauL; pR, tauR
/// when has_R), nu = RT min(tau, K dt_f) (K = time.implicit.viscous_bound), d_f = |(dxL - dxR).n|
/// (the distance between the cell centre and its neighbour or image).
UGKS_HOST_DEVICE inline double spectral_radius(const phys::Prim& pL, double tauL,
                                               const phys::Prim& pR, double tauR, bool has_R,
                                               const double n[3], const double dxL[3],
                                               const double dxR[3], double dtf, double K, int N,
                                               double Pr) {
    const double gamma = (N + 2.0) / N;
    const double visc = gamma / Pr;
    double s = 0.0, nu = 0.0;
    for (int side = 0; side < (has_R ? 2 : 1); ++side) {
        const phys::Prim& p = side == 0 ? pL : pR;
        const double Un = fabs(p.U[0] * n[0] + p.U[1] * n[1] + p.U[2] * n[2]);
        const double RT = 0.5 / p.lambda;
        const double nuc = RT * fmin(side == 0 ? tauL : tauR, K * dtf);
        const double sc = Un + sqrt(gamma * RT);
        s = side == 0 ? sc : fmax(s, sc);
        nu = side == 0 ? nuc : fmax(nu, nuc);
    }
    double d = 0.0;
    for (int k = 0; k < 3; ++k) d += (dxL[k] - dxR[k]) * n[k];
    d = fmax(fabs(d), 1e-300);
    return s + 2.0 * nu * visc / d;
}

}  // namespace ugks::kern

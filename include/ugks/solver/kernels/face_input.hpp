#pragma once
/// What an equilibrium face (interior, far field / inflow, outflow) needs before the velocity
/// sweep (docs/formulation.md sections 5.1-5.2, decisions U1-U4), gathered once for both backends.
/// Kinetic boundary faces (diffuse walls, symmetry planes) have no interface equilibrium.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/face_kind.hpp"

namespace ugks::kern {

/// The FaceInput of face f of kind `kind` with owner L and neighbour R (interior faces): cell
/// averages W [cell][5], limited gradients gradW [cell][15], heat fluxes q [cell][3], centroids
/// ccent [cell][3], fcent [face][3], normals [face][3], dxR [face][3] = x_f - x_R (x_R the
/// neighbour's image or the owner's mirror image). Ghost states: far field / inflow, the boundary
/// state Wg (5, zero gradient, no heat flux); outflow, the owner's state (zero gradient).
UGKS_HOST_DEVICE inline void face_input(int kind, index_t f, index_t L, index_t R, const double* W,
                                        const double* gradW, const double* q, const double* ccent,
                                        const double* fcent, const double* normal,
                                        const double* dxR, const double* Wg, phys::FaceInput& in) {
    for (int e = 0; e < 5; ++e) {
        in.WL[e] = W[5 * L + e];
        for (int d = 0; d < 3; ++d) {
            in.gradWL[e][d] = gradW[15 * L + 3 * e + d];
            in.gradWR[e][d] = 0.0;
        }
    }
    for (int d = 0; d < 3; ++d) {
        in.xL[d] = ccent[3 * L + d];
        in.xf[d] = fcent[3 * f + d];
        in.n[d] = normal[3 * f + d];
        in.qL[d] = q[3 * L + d];
        in.xR[d] = in.xf[d] - dxR[3 * f + d];
        in.qR[d] = 0.0;
    }
    if (kind == kInterior) {
        for (int e = 0; e < 5; ++e) {
            in.WR[e] = W[5 * R + e];
            for (int d = 0; d < 3; ++d) in.gradWR[e][d] = gradW[15 * R + 3 * e + d];
        }
        for (int d = 0; d < 3; ++d) in.qR[d] = q[3 * R + d];
    } else if (kind == kOutflow) {
        for (int e = 0; e < 5; ++e) in.WR[e] = in.WL[e];
        for (int d = 0; d < 3; ++d) in.qR[d] = in.qL[d];
    } else {  // far field / inflow
        for (int e = 0; e < 5; ++e) in.WR[e] = Wg[e];
    }
}

}  // namespace ugks::kern

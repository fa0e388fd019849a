#pragma once
/// Heat flux and deviatoric stress of one cell from its 17 raw velocity moments, shared by the CPU
/// solver (UgksSolver::stage2_and_moments) and the CUDA backend (k_q_stress).
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks {

/// M: the 17 raw moments of a cell summed over all velocities (M0, M1[3], the 6 distinct
/// entries of M2 in the order xx xy xz yy yz zz, M3[3], B0, B1[3]; see stage2_cell); p: the
/// cell's primitive state; D: velocity dimension. Writes q[3] and the stress P - p I in the order
/// xx xy xz yy yz zz (entries with an axis >= D are 0).
UGKS_HOST_DEVICE inline void q_stress_from_raw(const double* M, const phys::Prim& p, int D,
                                               double* q, double* stress) {
    const double M2[9] = {M[4], M[5], M[6], M[5], M[7], M[8], M[6], M[8], M[9]};
    phys::heat_flux_from_raw(p.U, M[0], &M[1], M2, &M[10], M[13], &M[14], q);
    const double pr = p.rho / (2.0 * p.lambda);
    const int idx[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    for (int k = 0; k < 6; ++k) {
        const int a = idx[k][0], c = idx[k][1];
        if (a >= D || c >= D) {
            stress[k] = 0.0;
            continue;
        }
        const double Pac =
            M2[3 * a + c] - p.U[a] * M[1 + c] - M[1 + a] * p.U[c] + M[0] * p.U[a] * p.U[c];
        stress[k] = Pac - (a == c ? pr : 0.0);
    }
}

}  // namespace ugks

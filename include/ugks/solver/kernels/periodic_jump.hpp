#pragma once
/// Periodic pairs with a pressure jump (docs/formulation.md section 8.6, decisions.md), written
/// once for both backends: the image cells' values and the flux of a jump face's partner face.
///
/// A jump face f joins its owner L to an image of the neighbour R scaled by s (a density ratio at
/// the same temperature and velocity), so the face sees a smooth neighbourhood in L's frame. R's
/// own face f' (normal -n) takes its flux from f: R receives f's flux plus the pressure jump,
///   Phi'(u) = -(Phi(u) + d dt_f (u.n - U.n) M(u)),   d = 1/s - 1,
/// with M the interface Maxwellian of f (its equilibrium constants at t^n). The added term carries
/// no mass, the momentum d p n dt_f and the energy d p U.n dt_f (p = rho / (2 lambda) of the
/// interface state): the momentum and pressure work of the jump d p, exactly, in the macroscopic
/// flux F' = -(F + d dt_f (0, p n, p U.n)); the mass leaving L enters R unchanged.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks::kern {

/// Component j of image k of an array laid out [cell][width]: dst row = scale x src row for the
/// quantities linear in the density (scaled), a copy otherwise (time steps). The value is rounded
/// to S, the storage type of the array's values (float: distributions with numerics.storage fp32,
/// held as float on the GPU and as double in the CPU's block buffer).
template <class S = double, class T>
UGKS_HOST_DEVICE inline void fill_image(T* a, int width, index_t k, int j, const index_t* src,
                                        const index_t* dst, const double* scale, bool scaled) {
    const double v = a[static_cast<std::size_t>(src[k]) * width + j];
    a[static_cast<std::size_t>(dst[k]) * width + j] =
        static_cast<T>(static_cast<S>(scaled ? scale[k] * v : v));
}

/// The partner face's flux at one velocity u from the jump face's (ph, pb): see the file comment.
/// eq: the jump face's interface equilibrium constants, n its normal, dtf its time step.
template <int D, bool HB>
UGKS_HOST_DEVICE inline void jump_partner_flux(const phys::EqConst& eq, double d, double dtf,
                                               const double n[3], const double u[3], double ph,
                                               double pb, double& qh, double& qb) {
    double H, Bv;
    phys::maxwellian_pair<D, HB>(eq, u, H, Bv);
    double c = 0.0;
    for (int k = 0; k < D; ++k) c += (u[k] - eq.U[k]) * n[k];
    c *= d * dtf;
    qh = -(ph + c * H);
    qb = HB ? -(pb + c * Bv) : 0.0;
}

/// The partner face's analytic macroscopic flux Fp[5] from the jump face's F[5] and interface
/// state p0: Fp = -(F + d dtf (0, p n, p U.n)).
UGKS_HOST_DEVICE inline void jump_partner_F(const phys::Prim& p0, double d, double dtf,
                                            const double n[3], const double F[5], double Fp[5]) {
    const double p = p0.rho / (2.0 * p0.lambda);
    const double Un = p0.U[0] * n[0] + p0.U[1] * n[1] + p0.U[2] * n[2];
    const double c = d * dtf * p;
    Fp[0] = -F[0];
    for (int k = 0; k < 3; ++k) Fp[1 + k] = -(F[1 + k] + c * n[k]);
    Fp[4] = -(F[4] + c * Un);
}

}  // namespace ugks::kern

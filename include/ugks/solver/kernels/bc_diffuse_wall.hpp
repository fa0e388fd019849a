#pragma once
/// Diffuse wall (docs/formulation.md decision U7): the wall re-emits a Maxwellian at its own
/// velocity and temperature whose density makes the discrete mass flux through the face zero.
/// Kernel functions written once for both backends.
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks::kern {

/// Equilibrium constants of the wall Maxwellian of density rho_w (rho_w = 1: the unit-density
/// Maxwellian of the density sums).
UGKS_HOST_DEVICE inline phys::EqConst wall_const(double rho_w, double T, const double U[3],
                                                 const phys::GasParams& g) {
    phys::Prim p;
    p.rho = rho_w;
    for (int d = 0; d < 3; ++d) p.U[d] = U[d];
    p.lambda = 1.0 / T;
    const double zero[3] = {0, 0, 0};
    return phys::eq_const(p, zero, g);
}

/// One velocity's terms of the wall-density sums (U7a): num += w un h (outgoing, un > 0) and
/// den -= w un H_1 (incoming, un < 0; H_1 the unit-density wall Maxwellian, unit: its EqConst).
/// rho_w = num / den after the sums over every velocity.
template <int D>
UGKS_HOST_DEVICE inline void wall_density_terms(const phys::EqConst& unit, double w,
                                                const double u[3], double un, double h, double& num,
                                                double& den) {
    if (un > 0) {
        num += w * un * h;
    } else if (un < 0) {
        den -= w * un * phys::maxwellian_H<D>(unit, u);
    }
}

// The re-emitted distribution at an incoming velocity is phys::maxwellian_pair of the wall's
// EqConst with the density rho_w.

}  // namespace ugks::kern

#pragma once
/// Diffuse wall (docs/formulation.md decision U7): the wall re-emits a Maxwellian at its own
/// velocity and temperature whose density makes the discrete mass flux through the face zero;
/// with Maxwell's accommodation alpha < 1 the fraction 1 - alpha is reflected specularly.
/// Kernel functions written once for both backends.
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/bc_symmetry.hpp"

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

/// The wall density rho_w = alpha num / den (U7a with Maxwell's accommodation alpha: the diffuse
/// part re-emits the fraction alpha of the incident mass flux, the specular part the rest).
UGKS_HOST_DEVICE inline double wall_density(double alpha, double num, double den) {
    return alpha * num / den;
}

/// The incident distribution of a wall at an incoming velocity u (un <= 0): the wall Maxwellian
/// Ew (density rho_w) plus, with alpha < 1, (1 - alpha) times the owner's values at t^n at the
/// mirrored velocity slot sm (kern::symmetry_incident; sym_h, sym_b the face's row). The mirrored
/// velocity has the same |u.n| and weight, so the specular part returns its share of the
/// incident mass flux exactly.
template <int D, bool HB>
UGKS_HOST_DEVICE inline void wall_incident(const phys::EqConst& Ew, const double u[3], double alpha,
                                           index_t sm, const double* sym_h, const double* sym_b,
                                           double& hin, double& bin) {
    phys::maxwellian_pair<D, HB>(Ew, u, hin, bin);
    if (alpha < 1.0) {
        double hs, bs;
        symmetry_incident<HB>(sm, sym_h, sym_b, hs, bs);
        hin += (1.0 - alpha) * hs;
        if (HB) bin += (1.0 - alpha) * bs;
    }
}

}  // namespace ugks::kern

#pragma once
/// Pressure inlet and outlet (docs/formulation.md section 8.5): ghost faces whose state is
/// rebuilt every step from the owner cell, the characteristic treatment of DVM codes. The
/// incoming half of the face sees the Maxwellian of that ghost state, the outgoing half the owner
/// (as at every ghost face, face_input.hpp and the sweeps). Kernel function written once for both
/// backends.
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks::kern {

/// How the ghost state of a kGhostMaxwellian face is set.
enum GhostMode : int {
    kGhostFixed = 0,           ///< far field / inflow: the condition's own state
    kGhostPressureInlet = 1,   ///< pressure_inlet {p, T}: p and T prescribed, U of the owner
    kGhostPressureOutlet = 2,  ///< pressure_outlet {p}: p prescribed, U and T of the owner
};

/// The ghost state of a pressure face from its owner's state po: rho = 2 p lambda (p = rho T / 2
/// in the units of formulation.md 1.2) with lambda = 1/T of the inlet or the owner's, U the
/// owner's (zero gradient).
UGKS_HOST_DEVICE inline phys::Prim pressure_ghost(int mode, double p, double T,
                                                  const phys::Prim& po) {
    phys::Prim g = po;
    if (mode == kGhostPressureInlet) g.lambda = 1.0 / T;
    g.rho = 2.0 * p * g.lambda;
    return g;
}

/// W and the Maxwellian constants of a ghost state g (no heat flux): what face_input and the
/// sweeps read for a kGhostMaxwellian face.
UGKS_HOST_DEVICE inline void ghost_state(const phys::Prim& g, const phys::GasParams& gas,
                                         double W[5], phys::EqConst& E) {
    phys::prim_to_cons(g, gas.N, W);
    const double zero_q[3] = {0, 0, 0};
    E = phys::eq_const(g, zero_q, gas);
}

}  // namespace ugks::kern

#pragma once
/// Face-flux kernel functions at one (face, velocity) (docs/formulation.md sections 5.9-5.10,
/// 9), written once for both backends; the interior flux itself is phys::micro_flux_lane.
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks::kern {

/// The weight of the owner side for normal velocity un: 1 for un > 0, else 0. At un = 0 either
/// side may be taken (every flux term carries the factor un).
UGKS_HOST_DEVICE inline double owner_weight(double un) { return un > 0.0 ? 1.0 : 0.0; }

/// Add one velocity's share of a face's moments (weights w) to acc: the five conserved moments
/// (1, u, (|u|^2 + xi^2)/2) of the flux fh (and fb for b), u2 = |u|^2 (section 5.9; walls:
/// section 8.1). Components of u beyond D are zero and skipped.
template <int D, bool HB>
UGKS_HOST_DEVICE inline void add_flux_moments(double w, const double u[3], double u2, double fh,
                                              double fb, double& m0, double& m1, double& m2,
                                              double& m3, double& m4) {
    const double wf = w * fh;
    m0 += wf;
    m1 += wf * u[0];
    if (D > 1) m2 += wf * u[1];
    if (D > 2) m3 += wf * u[2];
    m4 += HB ? 0.5 * w * (u2 * fh + fb) : 0.5 * w * (u2 * fh);
}
/// The same into acc[5] (scalar outputs above: see kern::add_raw_moments).
template <int D, bool HB>
UGKS_HOST_DEVICE inline void add_flux_moments(double w, const double u[3], double u2, double fh,
                                              double fb, double (&acc)[5]) {
    add_flux_moments<D, HB>(w, u, u2, fh, fb, acc[0], acc[1], acc[2], acc[3], acc[4]);
}

/// Flux through a kinetic boundary face (diffuse wall or symmetry plane) at one velocity
/// (decisions U7, sections 8.1-8.2): free transport of the interface value over the face step dtw,
/// Phi = dtw un f_f, where f_f is the owner's value for outgoing velocities (un > 0) and the
/// boundary's incident value (hin, bin: the wall Maxwellian or the mirrored state) otherwise.
template <bool HB>
UGKS_HOST_DEVICE inline void kinetic_boundary_flux(double dtw, double un, double hown, double bown,
                                                   double hin, double bin, double& ph, double& pb) {
    const double hf = un > 0 ? hown : hin;
    const double bf = un > 0 ? bown : bin;
    ph = dtw * un * hf;
    pb = HB ? dtw * un * bf : 0.0;
}

}  // namespace ugks::kern

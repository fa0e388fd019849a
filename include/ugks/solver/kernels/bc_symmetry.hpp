#pragma once
/// Symmetry (specular) plane (docs/formulation.md section 8.2): an incoming velocity sees the
/// owner's distribution at t^n at the mirror image of the velocity about the plane (axis-aligned
/// planes on a grid symmetric about that axis: the mirrored velocity slot of the same block set;
/// any other plane: the face's row holds the interpolated reflected values at each slot and the
/// mirror is the identity, bc_specular.hpp). Kernel function written once for both backends.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"

namespace ugks::kern {

/// The incident values at a symmetry face for a velocity whose mirror image is local slot sm;
/// sym_h, sym_b: the face's row of stored owner values (indexed by local slot). Padding slots
/// (weight 0, no mirror image: sm < 0) see nothing.
template <bool HB>
UGKS_HOST_DEVICE inline void symmetry_incident(index_t sm, const double* sym_h, const double* sym_b,
                                               double& hin, double& bin) {
    hin = sm >= 0 ? sym_h[sm] : 0.0;
    bin = HB && sm >= 0 ? sym_b[sm] : 0.0;
}

}  // namespace ugks::kern

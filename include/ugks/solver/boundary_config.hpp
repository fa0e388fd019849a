#pragma once
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/physics/units.hpp"
#include "ugks/solver/kernels/bc_pressure.hpp"
#include "ugks/solver/kernels/bc_specular.hpp"
#include "ugks/solver/kernels/face_kind.hpp"

namespace ugks {
class Config;
struct Mesh;
struct VelocityGrid;

/// Boundary condition of one mesh patch (the `boundaries` section: one entry per patch name).
/// Types (docs/formulation.md section 8): diffuse_wall (T, U, accommodation: Maxwell's diffuse
/// fraction, the rest reflected specularly), far_field and inflow (rho, U, T: ghost Maxwellian),
/// outflow (zero gradient), pressure_inlet (p, T) and pressure_outlet (p): ghost Maxwellians
/// rebuilt each step from the owner (section 8.5), symmetry and specular_wall (specular reflection
/// on any plane or surface, section 8.2b; specular_wall is parsed as a diffuse wall with
/// accommodation 0), periodic (partner patch, pressure_ratio).
struct BoundaryCondition {
    std::string patch;
    /// Its key under `boundaries` (key paths of messages): the patch name, or the pattern whose
    /// entry took the patch (check_boundaries gives every patch a pattern takes a copy).
    std::string key;
    std::string type;
    double rho = 1.0;     ///< far_field / inflow density (nondimensional)
    double T = 1.0;       ///< wall, far-field or pressure-inlet temperature (nondimensional)
    double p = 0.5;       ///< pressure_inlet / pressure_outlet pressure (nondimensional, rho T / 2)
    Vec3 U{0, 0, 0};      ///< wall velocity (tangential) or far-field velocity
    std::string partner;  ///< periodic partner patch
    /// periodic: p on this patch's side over p on the partner's side (a density ratio at the
    /// same temperature and velocity; 1: a plain periodic pair; docs/formulation.md section 8.6)
    double pressure_ratio = 1.0;
    /// diffuse_wall: Maxwell's accommodation coefficient alpha in [0, 1] (1: fully diffuse; the
    /// fraction 1 - alpha is reflected specularly, which needs an axis-aligned plane)
    double accommodation = 1.0;
    /// diffuse_wall: T and the components of U as expressions of the position (x, y, z in the
    /// case's units) where they vary over the patch; empty: the constant T, U above
    /// (core/expression.hpp, docs/usage.md). `units` converts their values and coordinates.
    std::string T_expr;
    std::array<std::string, 3> U_expr;
    ReferenceState units;
    bool varies() const {
        return !T_expr.empty() || !U_expr[0].empty() || !U_expr[1].empty() || !U_expr[2].empty();
    }
    int symmetry_axis = -1;  ///< symmetry, and walls with accommodation < 1: the velocity axis
                             ///< normal to the plane (set by check_boundaries; -1: not a plane
                             ///< normal to an axis)
    /// The reflection interpolates in velocity space (kern bc_specular.hpp): the patch is not a
    /// plane normal to an axis, or the velocity grid is not symmetric about that axis (set by
    /// check_boundaries and resolve_reflections).
    bool interpolated_mirror = false;
    /// The row of SolverStatic::mirror its faces read.
    int mirror_row() const {
        return interpolated_mirror ? kern::kInterpolatedMirror
                                   : (symmetry_axis < 0 ? 0 : symmetry_axis);
    }
    /// A specular part: a symmetry plane or a wall with accommodation < 1 (the owner's values at
    /// the mirrored velocities are kept per face).
    bool reflects() const {
        return type == "symmetry" || (type == "diffuse_wall" && accommodation < 1.0);
    }
    /// The FaceKind of its faces (periodic faces are interior: kInterior).
    int face_kind() const {
        return type == "diffuse_wall" ? kDiffuseWall
               : type == "symmetry"   ? kSymmetry
               : type == "outflow"    ? kOutflow
               : type == "periodic"   ? kInterior
                                      : kGhostMaxwellian;
    }
    /// kGhostMaxwellian faces: how the ghost state is set (kern::GhostMode).
    int ghost_mode() const {
        return type == "pressure_inlet"    ? kern::kGhostPressureInlet
               : type == "pressure_outlet" ? kern::kGhostPressureOutlet
                                           : kern::kGhostFixed;
    }
};

/// The temperature and velocity of a diffuse wall at a point x (solver units): its constants, or
/// its expressions evaluated at x in the case's units and converted (both backends read them per
/// face from SolverStatic::wall_T, wall_U).
class WallValues {
public:
    explicit WallValues(const BoundaryCondition& bc);
    ~WallValues();
    double T(const Vec3& x) const;
    Vec3 U(const Vec3& x) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

/// Parse `boundaries`: a map patch (or patch pattern, ugks/mesh/mesh.hpp) -> {type, ...}. Unknown
/// types get a did-you-mean hint. rho, T and U are converted to nondimensional values with `ref`
/// (from kg/m^3, K, m/s when ref.si_input; unchanged by default). Velocity components beyond
/// velocity_dim (velocity.dim, which may exceed the mesh dimension) must be 0.
std::vector<BoundaryCondition> parse_boundaries(Config& cfg, int velocity_dim,
                                                const ReferenceState& ref = ReferenceState{});

/// Cross-check with the mesh. First the patterns are resolved (docs/usage.md "Patch patterns"):
/// a mesh patch takes the entry of its exact name, else the one pattern that matches it (two or
/// more: InputError naming the patch and the patterns); each pattern entry is replaced by one copy
/// per patch it takes (patch = the name, key = the pattern), and the log names them; a pattern
/// that matches no mesh patch is refused like an unknown patch name, a periodic pattern entry is
/// refused. Then every mesh patch has a condition and vice versa; a reflecting patch
/// (symmetry, accommodation < 1) that is a plane normal to a coordinate axis gets symmetry_axis,
/// any other reflecting patch interpolated_mirror; diffuse-wall velocities are tangential;
/// periodic partners exist, are periodic, point back, and have the same face count and area.
/// `source` names the mesh. Returns, per velocity axis, whether mirror pairs must stay on one
/// velocity rank.
std::array<bool, 3> check_boundaries(std::vector<BoundaryCondition>& bcs, const Mesh& mesh,
                                     const Config& cfg, const std::string& source);

/// With the velocity grid: an axis-aligned reflecting patch on a tensor grid whose nodes and
/// weights on that axis are not symmetric about 0 switches to the interpolated reflection (and
/// mirrors[axis] is cleared when no patch needs it any more); an interpolated reflection on a
/// point-list grid (velocity.type file) -> InputError naming the patch's key.
void resolve_reflections(std::vector<BoundaryCondition>& bcs, const VelocityGrid& grid,
                         std::array<bool, 3>& mirrors, const Config& cfg);

/// The periodic pairs (A, B) of checked conditions, each pair once, A the patch listed first; for
/// connect_periodic (ugks/mesh/mesh.hpp).
std::vector<std::pair<std::string, std::string>> periodic_pairs(
    const std::vector<BoundaryCondition>& bcs);

/// Per pair of periodic_pairs: the factor s by which a B-side cell is seen from the A side
/// (add_jump_images): A's pressure_ratio, else 1 / B's (1 for a plain pair).
std::vector<double> periodic_jump_scales(const std::vector<BoundaryCondition>& bcs);

}  // namespace ugks

#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/mesh/mesh.hpp"

namespace ugks {

/// Per-face wall data of the owned boundary faces of the selected (wall) patches on this rank
/// (docs/formulation.md section 9). All values nondimensional, in the solver's units.
struct SurfaceFace {
    index_t global_face = -1;  ///< face id in the global mesh (a boundary face)
    int patch = -1;            ///< mesh patch index (Mesh::face_patch, into Mesh::patch_names)
    Vec3 centroid{0, 0, 0};    ///< face centroid
    Vec3 normal{0, 0, 0};      ///< unit normal, out of the fluid into the body
    double area = 0;           ///< face area (edge length in 2D, 1 in 1D)
    Vec3 P{0, 0, 0};  ///< momentum flux into the wall = force per unit area on the body (P_w)
    double qw = 0;    ///< heat flux into the body (positive when the body is heated)
};

/// Free-stream reference state for the coefficients (nondimensional: rho_inf = 1, p_inf = 1/2 in
/// sqrt(2RT_inf) units).
struct SurfaceReference {
    double rho_inf = 1;
    double p_inf = 0.5;
    Vec3 U_inf{0, 0, 0};     ///< free-stream velocity; its direction is the drag direction
    double A_ref = 1;        ///< reference area of CD and CL
    Vec3 lift_dir{0, 1, 0};  ///< lift direction (normalized here; should be normal to U_inf)
    /// Reference dynamic pressure used when |U_inf| == 0 (e.g. 1/2 rho U_lid^2 for a cavity). The
    /// coefficients then use the speed U_ref = sqrt(2 q_ref / rho_inf). With |U_inf| == 0 and
    /// q_ref <= 0 the coefficients are NaN. Ignored when |U_inf| > 0.
    double q_ref = 0;
};

/// Force and heat integrated over a set of wall faces.
struct SurfaceTotals {
    Vec3 force{0, 0, 0};  ///< sum of P_w * area: force on the body
    double heat = 0;      ///< sum of q_w * area: heat flux into the body
    /// force . e_inf / (q_dyn A_ref), e_inf = U_inf / |U_inf|; NaN when |U_inf| == 0.
    double CD = 0;
    /// force . lift_dir / (q_dyn A_ref) (lift_dir normalized); NaN when q_dyn is undefined or
    /// lift_dir is zero.
    double CL = 0;
    double area = 0;      ///< wetted area (sum of face areas)
    index_t n_faces = 0;  ///< number of faces summed
};

/// Reference dynamic pressure 1/2 rho_inf |U_inf|^2, or ref.q_ref when |U_inf| == 0 (NaN when that
/// is <= 0 too).
double surface_dynamic_pressure(const SurfaceReference& ref);
/// Reference speed: |U_inf|, or sqrt(2 q_ref / rho_inf) when |U_inf| == 0 (NaN when undefined).
double surface_reference_speed(const SurfaceReference& ref);

/// Derived wall quantities of one face (docs/formulation.md section 9).
struct WallCoefficients {
    double p = 0;       ///< p_w = P . n
    Vec3 tau{0, 0, 0};  ///< shear vector P - (P . n) n
    double Cp = 0;      ///< (p_w - p_inf) / q_dyn
    double Cf = 0;      ///< |tau| / q_dyn (Ct along a chosen tangent is left to post-processing)
    double Ch = 0;      ///< q_w / (1/2 rho_inf U_ref^3) = q_w / (q_dyn U_ref)
};
/// p_w, tau, Cp, Cf, Ch of one face. Pure function (same result on every rank).
WallCoefficients wall_coefficients(const Vec3& P, double qw, const Vec3& normal,
                                   const SurfaceReference& ref);

/// Totals over the faces of all ranks of `comm` (collective). The faces are gathered and summed
/// in ascending global face order, so the result is bitwise identical for every decomposition and
/// on every rank. Cheap enough for a history line per step (surfaces are small).
SurfaceTotals surface_totals(MPI_Comm comm, const std::vector<SurfaceFace>& faces,
                             const SurfaceReference& ref);

/// Write the wall output collectively over `comm` (one velocity group, e.g. comm_x of q = 0):
/// `h5_path` (parallel HDF5) with its XDMF companion (xdmf_path_for(h5_path)), and `csv_path`
/// (written by rank 0). An empty path skips that output. Returns the totals over all faces
/// (identical on every rank, independent of the decomposition).
///
/// `faces`: this rank's owned wall faces (any order; a rank may have none); every global face
/// may appear on one rank only. `patch_names`: the wall patches reported (names of
/// `global_mesh` patches, no duplicates); every face's patch must be one of them; a listed patch
/// without faces gets zero totals. Faces are gathered on every rank (O(global wall faces) memory)
/// and everything is written in ascending global face order.
///
/// HDF5 layout (n = global wall face count, doubles native, integers int64):
/// - /faces/global_face int64 (n); /faces/patch int64 (n) with string attribute `patch_names`
///   (the mesh patch names, one a line, line i = patch index i); /faces/centroid (n, 3);
///   /faces/normal (n, 3); /faces/area (n)
/// - /fields/p (n), /fields/tau (n, 3), /fields/q (n), /fields/Cp, /fields/Cf, /fields/Ch (n)
/// - /mesh/nodes (m, 3): the nodes used by the faces, in ascending global node id;
///   /mesh/global_node int64 (m); /mesh/topology int64: XDMF Mixed list per face in face order,
///   node ids into /mesh/nodes: Polyvertex "1 1 a" (1D point faces), Polyline "2 2 a b" (2D
///   edges), Triangle "4 a b c", Quadrilateral "5 a b c d" (Mesh face node order, so the
///   right-hand normal points into the body), attribute `cell_count` = n
/// - root attributes: `config` (resolved YAML), `step`, `time`, `ugks_version`, the totals over
///   all faces `force` (double[3]), `heat`, `CD`, `CL`, `area`, `face_count`, and the reference
///   `rho_inf`, `p_inf`, `U_inf` (double[3]), `A_ref`, `lift_dir` (double[3]), `q_ref`, `q_dyn`
///   (the dynamic pressure used), `U_ref`
/// - /totals/<patch name> (one group per listed patch; '/' in a name becomes '_') with
///   attributes `name`, `patch` (mesh index), `force`, `heat`, `CD`, `CL`, `area`, `face_count`
///
/// The .xdmf has one Grid with Mixed topology and cell-centred attributes p, tau, q, Cp, Cf, Ch,
/// normal, area, global_face, patch.
///
/// CSV: comment lines ("# ...") with step, time, the reference state and the totals as a
/// small embedded table ("# totals: name,patch,faces,area,force_x,force_y,force_z,heat,CD,CL",
/// then "# all,-1,..." and one "# <name>,<index>,..." line per listed patch), then the header
/// global_face,patch,x,y,z,nx,ny,nz,area,p,tau_x,tau_y,tau_z,q,Cp,Cf,Ch and one row per face,
/// numbers as %.17g (exact round trip; NaN as "nan").
///
/// Files are written to `path`.tmp and renamed. Errors (missing or unwritable directory, write
/// failures, a listed patch that is not in the mesh) throw InputError naming the path (or the
/// patch) on every rank of `comm`; inconsistent face data (a face id out of range or not on the
/// boundary, a face on two ranks, a patch differing from the mesh or not listed) is an internal
/// error (UGKS_REQUIRE). `config_yaml`, `step`, `time` are taken from rank 0.
SurfaceTotals write_surface(const std::string& h5_path, const std::string& csv_path, MPI_Comm comm,
                            const Mesh& global_mesh, const std::vector<SurfaceFace>& faces,
                            const std::vector<std::string>& patch_names,
                            const SurfaceReference& ref, const std::string& config_yaml, long step,
                            double time);

}  // namespace ugks

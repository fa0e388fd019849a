#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/io/fields_io.hpp"
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

/// A symmetry plane of the computed part of a body: x[axis] = position. The full body is the
/// computed part and its mirror images in every plane (2^m parts for m planes, normal to
/// different axes).
struct SymmetryPlane {
    int axis = 0;
    double position = 0;
};

/// Free-stream reference state and reference geometry of the coefficients (nondimensional: rho_inf
/// = 1, p_inf = 1/2 in sqrt(2RT_inf) units).
struct SurfaceReference {
    double rho_inf = 1;
    double p_inf = 0.5;
    Vec3 U_inf{0, 0, 0};  ///< free-stream velocity; its direction is the default drag direction
    double A_ref = 1;     ///< reference area of the force coefficients
    double L_ref = 1;     ///< reference length of the moment coefficients
    Vec3 moment_center{0, 0, 0};
    /// Drag direction; zero: U_inf / |U_inf| (the coefficients are NaN when both are zero).
    Vec3 drag_dir{0, 0, 0};
    /// Lift direction, made orthogonal to the drag direction and normalized (surface_axes).
    Vec3 lift_dir{0, 1, 0};
    /// Reference dynamic pressure used when |U_inf| == 0 (e.g. 1/2 rho U_lid^2 for a cavity). The
    /// coefficients then use the speed U_ref = sqrt(2 q_ref / rho_inf). With |U_inf| == 0 and
    /// q_ref <= 0 the coefficients are NaN. Ignored when |U_inf| > 0.
    double q_ref = 0;
    /// Planes of symmetry of the body (full-body loads = computed part + mirror images); empty:
    /// the faces are the whole body.
    std::vector<SymmetryPlane> symmetry;
};

/// The unit drag, lift and side directions of `ref`: drag = drag_dir (or U_inf) normalized, lift =
/// lift_dir minus its drag component, normalized (lift_dir normalized when there is no drag
/// direction), side = drag x lift. A direction that cannot be formed (no drag direction, lift
/// parallel to it) is NaN.
struct SurfaceAxes {
    Vec3 drag, lift, side;
};
SurfaceAxes surface_axes(const SurfaceReference& ref);

/// Force, moment about ref.moment_center and heat of the whole body: every face counted with its
/// mirror images in the symmetry planes (a face at x with force F: the image R x, R F, R the
/// reflection; the moment (R x - c) x R F).
struct BodyLoads {
    Vec3 force{0, 0, 0};
    Vec3 moment{0, 0, 0};
    double heat = 0;
    double area = 0;
};
/// Add one face (centroid x, force F = P_w area, heat Q = q_w area, area) and its images.
void add_body_loads(const SurfaceReference& ref, const Vec3& x, const Vec3& F, double Q,
                    double area, BodyLoads& loads);

/// Force and heat integrated over a set of wall faces.
struct SurfaceTotals {
    Vec3 force{0, 0, 0};  ///< sum of P_w * area over the faces (the computed part of the body)
    double heat = 0;      ///< sum of q_w * area: heat flux into the body (computed part)
    double area = 0;      ///< wetted area (sum of face areas, computed part)
    index_t n_faces = 0;  ///< number of faces summed
    BodyLoads body;       ///< the whole body (symmetry images included), moment about the centre
    int images = 1;       ///< parts the whole body consists of (2^planes)
    /// Coefficients of the whole body: C_D, C_L, C_S = body force . (drag, lift, side) / (q_dyn
    /// A_ref), C_m = body moment / (q_dyn A_ref L_ref) (x, y, z components); NaN when q_dyn or the
    /// direction is undefined.
    double CD = 0;
    double CL = 0;
    double CS = 0;
    Vec3 Cm{0, 0, 0};
};

/// The coefficients of `body` with reference `ref` (into t.CD, CL, CS, Cm).
void body_coefficients(const SurfaceReference& ref, SurfaceTotals& t);

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
/// - /mesh/nodes (m, 3): the nodes used by the faces, in ascending global node id (coordinates
///   times extra.length_scale);
///   /mesh/global_node int64 (m); /mesh/topology int64: XDMF Mixed list per face in face order,
///   node ids into /mesh/nodes: Polyvertex "1 1 a" (1D point faces), Polyline "2 2 a b" (2D
///   edges), Triangle "4 a b c", Quadrilateral "5 a b c d" (Mesh face node order, so the
///   right-hand normal points into the body), attribute `cell_count` = n; /mesh/connectivity
///   (n, k) when all faces have k nodes (the uniform topology of the XDMF)
/// - root attributes: `config` (resolved YAML), `step`, `time`, `ugks_version`, the totals over
///   all faces `force` (double[3]), `heat`, `area`, `face_count` (computed part), `body_force`,
///   `body_moment` (double[3]), `body_heat`, `body_area`, `images` (whole body), `CD`, `CL`, `CS`,
///   `Cm` (double[3]), and the reference `rho_inf`, `p_inf`, `U_inf` (double[3]), `A_ref`, `L_ref`,
///   `moment_center`, `drag_dir`, `lift_dir`, `side_dir` (double[3], the unit axes used),
///   `q_ref`, `q_dyn` (the dynamic pressure used), `U_ref`; extra.run_id, extra.numbers and
///   extra.strings; a `units` string attribute on the datasets extra.dataset_units names
/// - /totals/<patch name> (one group per listed patch; '/' in a name becomes '_') with
///   attributes `name`, `patch` (mesh index) and the totals attributes of the root
///
/// The .xdmf has one Grid (uniform topology when every face has the same node count, else Mixed)
/// and cell-centred attributes p, tau, q, Cp, Cf, Ch, normal, area, global_face, patch.
///
/// CSV (plain tables, pandas.read_csv reads them with its defaults): `csv_path` has the header
/// global_face,patch,x,y,z,nx,ny,nz,area,p,tau_x,tau_y,tau_z,q,Cp,Cf,Ch and one row per face, the
/// patch by name (quoted when it holds a comma or a quote); totals_csv_path_for(csv_path) has the
/// header name,patch,faces,area,force_x,force_y,force_z,heat,CD,CL,CS,Cm_x,Cm_y,Cm_z,body_force_x,
/// body_force_y,body_force_z,body_moment_x,body_moment_y,body_moment_z,body_heat, a row "all"
/// (patch -1: every listed wall) and one row per listed patch (its mesh index). Numbers as %.17g
/// (exact round trip; NaN as "nan"). The values are as given (the caller converts units); step,
/// time and the reference state are in the HDF5 file.
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
                            double time, const FieldsMeta& extra = FieldsMeta{});

/// "dir/surface_final.csv" -> "dir/surface_final_totals.csv" (other names: + "_totals.csv").
std::string totals_csv_path_for(const std::string& csv_path);

}  // namespace ugks

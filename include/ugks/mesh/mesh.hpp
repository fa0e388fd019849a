#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/mesh/cell_type.hpp"

namespace ugks {

// Accessors of the cell-type table (cell_type.hpp). A value that is no CellType is an internal
// error, except for cell_type_name ("unknown").

/// Topological dimension (1, 2 or 3) of a cell type.
int cell_dimension(CellType t);
/// Number of nodes of a cell type (linear elements only).
int cell_num_nodes(CellType t);
/// Lower-case name ("segment", "triangle", "quad", "tetra", "hexa", "prism", "pyramid").
const char* cell_type_name(CellType t);
/// Number of faces of a cell type: end points (1D), edges (2D), triangles/quads (3D).
int cell_num_faces(CellType t);

/// One face of a cell in local node numbers. The order defines the outward normal of a positively
/// oriented cell: 3D right-hand rule; 2D edge a->b has outward normal (dy, -dx) for a
/// counter-clockwise cell; 1D local face 0 (node 0) has normal -x, face 1 (node 1) has normal +x.
struct LocalFace {
    int n = 0;                   ///< number of nodes: 1 (1D), 2 (2D), 3 or 4 (3D)
    std::array<int, 4> nodes{};  ///< local node indices into the cell's node list
};
/// Local face `f` (0 <= f < cell_num_faces(t)) of cell type `t`.
LocalFace cell_local_face(CellType t, int f);

/// Unstructured finite-volume mesh (host memory). Cells, faces (built from cell connectivity),
/// geometry, named boundary patches. In 2D the z coordinate is 0, "face area" is the edge length
/// (unit depth) and the "volume" is the cell area; in 1D face area is 1 and the volume is the
/// length.
struct Mesh {
    int dim = 0;  ///< 1, 2 or 3
    std::vector<Vec3> nodes;

    // cells: CSR connectivity into nodes
    std::vector<CellType> cell_type;
    std::vector<index_t> cell_node_offsets{0};
    std::vector<index_t> cell_nodes;

    // faces: CSR connectivity into nodes (a node in 1D, an edge in 2D, a triangle/quad in 3D)
    std::vector<index_t> face_node_offsets{0};
    std::vector<index_t> face_nodes;
    std::vector<index_t> face_owner;      ///< cell on the side the normal points away from
    std::vector<index_t> face_neighbour;  ///< cell the normal points into; -1 on a boundary
    std::vector<int> face_patch;          ///< -1 for interior faces, else index into patch_names
    /// unit normal, owner -> neighbour (out of the fluid at boundaries)
    std::vector<Vec3> face_normal;
    std::vector<Vec3> face_centroid;
    std::vector<double> face_area;
    /// Periodic faces (an interior face joining two periodic patches): the translation that
    /// brings the neighbour next to the face, i.e. the neighbour's image centroid is
    /// cell_centroid[neighbour] + face_shift[f]; zero for every other face. Empty when the mesh
    /// has no periodic faces.
    std::vector<Vec3> face_shift;
    /// Periodic faces: the index of their pair in the connect_periodic call that joined them; -1
    /// for every other face. Empty when the mesh has no periodic faces.
    std::vector<int> face_pair;

    // cell -> faces (CSR)
    std::vector<index_t> cell_face_offsets{0};
    std::vector<index_t> cell_faces;

    std::vector<double> cell_volume;
    std::vector<Vec3> cell_centroid;

    std::vector<std::string> patch_names;  ///< boundary patches, in the order of the source

    index_t n_cells() const { return static_cast<index_t>(cell_type.size()); }
    index_t n_faces() const { return static_cast<index_t>(face_owner.size()); }
    index_t n_nodes() const { return static_cast<index_t>(nodes.size()); }
    int patch_index(const std::string& name) const;  ///< -1 when absent
};

/// Boundary faces as read from a mesh file, before faces are built: node list + patch index.
struct BoundaryFaceSpec {
    std::vector<index_t> nodes;
    int patch = -1;
};

/// From nodes, cells and tagged boundary faces: build faces (owner/neighbour, matching boundary
/// faces to patches by their node sets), cell->face lists and all geometry. `mesh.dim`, `nodes`,
/// the cell arrays and `patch_names` must be set; everything else is (re)computed. Faces are
/// numbered in order of first appearance (cell by cell, local face order); the owner is the lower
/// cell index and the face keeps the owner's node order, so the normal points owner -> neighbour
/// (out of the fluid on the boundary). A tagged face that turns out to be interior is ignored.
/// Geometry: 3D faces are fans of triangles from the mean of their nodes (non-planar quads
/// allowed), cells are decomposed into tetrahedra from the mean of their nodes; volumes are signed
/// (an inverted element gets a negative volume, reported by validate_mesh). Errors (InputError
/// naming `source`): a cell of the wrong dimension or with a bad node index, a boundary face that
/// is in no patch, a tagged face that is no face of any cell or is in two patches, a face shared by
/// more than two cells. Messages name nodes by `node_label[i]` (a reader's file node numbers: Gmsh
/// tags, CGNS 1-based vertex numbers) when given, else by the 0-based index.
void build_faces_and_geometry(Mesh& mesh, const std::vector<BoundaryFaceSpec>& boundary_faces,
                              const std::string& source,
                              const std::vector<index_t>& node_label = {});

/// Reverse the node order of every 2D cell (triangle, quad) that is clockwise in the xy-plane, so
/// that a 2D mesh generated on a surface with normal -z becomes positively oriented. Call before
/// build_faces_and_geometry (mesh readers); returns the number of cells reversed. No-op for dim
/// != 2.
index_t orient_cells_2d(Mesh& mesh);

/// Check every face (positive area) and every cell: positive volume, closed surface
/// (|sum of sigma S_f n_f| <= 1e-10 sum of S_f over its faces), outward normals
/// (sigma n_f . (x_f - x_c) > 0, x_f seen from the neighbour side of a periodic face shifted back
/// by face_shift). Errors name `source`, the cell (or face) index and its centroid.
void validate_mesh(const Mesh& mesh, const std::string& source);

/// Join periodic patch pairs into interior faces. For every pair (A, B): the translation T from B
/// to A is the difference of the patches' area-weighted face centroids; every face of B is matched
/// (spatial hash, linear in the patch size) with the face of A whose centroid is the B face's
/// centroid + T within 1e-6 of the face's linear size, with equal area (same relative tolerance)
/// and opposite normal. Each pair of faces becomes ONE interior face: the A face, with owner = the
/// A face's owner, neighbour = the B face's owner, normal/centroid/area/nodes of the A face,
/// face_patch = -1 and face_shift = centroid_A - centroid_B (the neighbour's image centroid is
/// cell_centroid[neighbour] + face_shift, next to the A face). The B faces are removed, faces are
/// renumbered (kept faces in their old order), cell_faces point to the joined face where they
/// pointed to the B face; face_shift is created (zero for every other face) and face_pair (the
/// index of the pair in `pairs`, -1 for every other face). patch_names are kept,
/// A and B then have no faces. InputError naming both patches (and the offending face centroid):
/// unknown or identical patches, a patch without boundary faces, different face counts, a face
/// without a partner, unequal areas, normals not opposite, or a face joined to its own cell (a
/// periodic direction needs at least 2 cells across). No-op for an empty list.
void connect_periodic(Mesh& mesh, const std::vector<std::pair<std::string, std::string>>& pairs);

/// Whether a name in the case file (a `boundaries` key, an overset `walls` entry) is a pattern of
/// patch names: it has one of * ? [ (docs/usage.md
/// "Patch patterns").
bool is_patch_pattern(const std::string& key);

/// fnmatch-style match of a whole patch name: `*` any run of characters, `?` one character,
/// `[abc]`, `[a-z]`, `[!a-z]` (or `[^...]`) one character of (not of) the set, a backslash makes
/// the next character literal; a `[` without its `]` is a literal `[`.
bool patch_pattern_match(const std::string& pattern, const std::string& name);

/// Every patch named in the case must exist in the mesh and vice versa (InputError listing both
/// sets).
void check_patches(const Mesh& mesh, const std::vector<std::string>& case_patches,
                   const std::string& source);

}  // namespace ugks

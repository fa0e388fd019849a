#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {

/// Cell (element) types. Node ordering follows Gmsh/VTK conventions (Gmsh 4.1 types 1,2,3,4,5,6,7).
enum class CellType : std::int8_t { Segment = 1, Triangle = 2, Quad = 3, Tetra = 4, Hexa = 5, Prism = 6, Pyramid = 7 };
int cell_dimension(CellType t);
int cell_num_nodes(CellType t);
const char* cell_type_name(CellType t);

/// Unstructured finite-volume mesh (host memory). Cells, faces (built from cell connectivity), geometry,
/// named boundary patches. In 2D the z coordinate is 0, "face area" is the edge length (unit depth) and the
/// "volume" is the cell area; in 1D face area is 1 and the volume is the length.
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
    std::vector<Vec3> face_normal;        ///< unit normal, owner -> neighbour (out of the fluid at boundaries)
    std::vector<Vec3> face_centroid;
    std::vector<double> face_area;

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

/// From nodes, cells and tagged boundary faces: build faces (owner/neighbour, matching boundary faces to
/// patches by their node sets), cell->face lists and all geometry. Errors (InputError naming `source`):
/// a boundary face that is in no patch, a face shared by more than two cells.
void build_faces_and_geometry(Mesh& mesh, const std::vector<BoundaryFaceSpec>& boundary_faces,
                              const std::string& source);

/// Check every cell: positive volume, closed surface (sum of S_f n_f over its faces ~ 0 relative to its
/// size), outward normals. Errors name `source`, the cell index and its centroid.
void validate_mesh(const Mesh& mesh, const std::string& source);

/// Every patch named in the case must exist in the mesh and vice versa (InputError listing both sets).
void check_patches(const Mesh& mesh, const std::vector<std::string>& case_patches, const std::string& source);

}  // namespace ugks

#pragma once
#include <array>
#include <string>

#include "ugks/mesh/mesh.hpp"

namespace ugks {
class Config;

/// Built-in structured box generator. Patches xmin, xmax, ymin, ymax, zmin, zmax (as many as dim).
struct BoxSpec {
    int dim = 2;
    std::array<index_t, 3> n{1, 1, 1};  ///< cells per axis
    Vec3 lo{0, 0, 0}, hi{1, 1, 1};      ///< extents
    std::array<double, 3> stretch{1, 1,
                                  1};  ///< geometric ratio of successive cell sizes (1 = uniform)
    bool stretch_symmetric = false;    ///< cluster towards both ends (walls) instead of towards lo
    /// 1D: segment; 2D: quad | triangle; 3D: hexa | tetra | prism | pyramid (each hex split
    /// accordingly)
    std::string cell_type = "";
};
Mesh make_box(const BoxSpec& spec);

/// Gmsh .msh 4.1 (ASCII and binary): physical groups of dimension dim-1 become patches (named by
/// their physical names, "patch_<tag>" when unnamed, in the order of the physical tags); elements
/// of dimension dim (the highest present) become cells; other sections are skipped. A partitioned
/// file (gmsh -part N: $PartitionedEntities, $GhostElements skipped) gives its global mesh. `scale`
/// multiplies all coordinates. The returned mesh has faces and geometry built
/// (build_faces_and_geometry), nodes used by no cell dropped (file order kept), cells with mirrored
/// node order (e.g. a 2D surface with normal -z) reoriented; a 2D mesh must lie in z = 0, a 1D one
/// on the x axis. Bad input (missing file, other format version, second-order or unknown elements,
/// unknown node tags, truncated file, a boundary entity in two physical groups) -> InputError
/// naming the file and, for ASCII, the line.
Mesh read_gmsh(const std::string& path, double scale = 1.0);

/// CGNS unstructured zones of the first base (several zones are merged into one mesh by their
/// coincident vertices, docs/usage.md "Mesh files") with sections NODE, BAR_2, TRI_3, QUAD_4,
/// TETRA_4, PYRA_5, PENTA_6, HEXA_8 or MIXED of these: elements of the base's cell dimension become
/// cells. Patches from ZoneBC: PointRange/PointList of face elements (FaceCenter/EdgeCenter,
/// ElementRange/ElementList) or of vertices (Vertex: the cell faces whose nodes are all listed),
/// named by the BC's FamilyName if any, else by the BC name (BCs of one family form one patch);
/// a section of boundary elements none of whose faces a BC lists (all of them without ZoneBC) is a
/// patch named after the section. Coordinates are converted to metres when the file gives a length
/// unit (DimensionalUnits LengthUnits Meter, Centimeter, Millimeter, Foot, Inch, the nearest of
/// array, GridCoordinates, zone and base; DataConversion applied; nondimensional DataClass: used as
/// stored; rules in docs/usage.md "Mesh files"), then multiplied by `scale`.
/// Post-processing and errors as read_gmsh. Builds without the CGNS library throw InputError "this
/// build has no CGNS support".
Mesh read_cgns(const std::string& path, double scale = 1.0);

/// The `mesh` section of the case file: source (box | gmsh | cgns), file, scale, box parameters.
/// `section` is the key path of the section ("mesh"; overset grids use "overset.grids.<i>.mesh").
struct MeshConfig {
    std::string source = "box";
    std::string file;  ///< resolved path (relative paths are taken from the case file's folder)
    double scale = 1.0;
    BoxSpec box;
};
MeshConfig parse_mesh_config(Config& cfg, const std::string& section = "mesh");

/// Build or read the mesh, build faces and geometry, validate. InputError on bad input.
Mesh load_mesh(const MeshConfig& mc);

}  // namespace ugks

#pragma once
#include <array>
#include <string>

#include "ugks/mesh/mesh.hpp"

namespace ugks {
class Config;

/// Built-in structured box generator. Patches xmin, xmax, ymin, ymax, zmin, zmax (as many as dim).
struct BoxSpec {
    int dim = 2;
    std::array<index_t, 3> n{1, 1, 1};    ///< cells per axis
    Vec3 lo{0, 0, 0}, hi{1, 1, 1};         ///< extents
    std::array<double, 3> stretch{1, 1, 1};  ///< geometric ratio of successive cell sizes (1 = uniform)
    bool stretch_symmetric = false;          ///< cluster towards both ends (walls) instead of towards lo
    /// 1D: segment; 2D: quad | triangle; 3D: hexa | tetra | prism | pyramid (each hex split accordingly)
    std::string cell_type = "";
};
Mesh make_box(const BoxSpec& spec);

/// Gmsh .msh 4.1 (ASCII and binary): physical groups of dimension dim-1 become patches; elements of
/// dimension dim become cells. `scale` multiplies all coordinates.
Mesh read_gmsh(const std::string& path, double scale = 1.0);

/// CGNS unstructured zone (single base, single zone): element sections of any supported type; boundary
/// patches from ZoneBC (point lists/ranges of faces) or from boundary element sections named by family.
Mesh read_cgns(const std::string& path, double scale = 1.0);

/// The `mesh` section of the case file: source (box | gmsh | cgns), file, scale, box parameters.
struct MeshConfig {
    std::string source = "box";
    std::string file;   ///< resolved path (relative paths are taken from the case file's folder)
    double scale = 1.0;
    BoxSpec box;
};
MeshConfig parse_mesh_config(Config& cfg);

/// Build or read the mesh, build faces and geometry, validate. InputError on bad input.
Mesh load_mesh(const MeshConfig& mc);

}  // namespace ugks

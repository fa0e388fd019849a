#pragma once
/// Cell (element) types and the one table of their properties (name, dimension, node count): the
/// mesh, its readers and writers, and the overset layer read it from here. constexpr, so device
/// code may call it too (CUDA builds compile with --expt-relaxed-constexpr).
#include <cstdint>

namespace ugks {

/// Cell (element) types. Node ordering follows Gmsh/VTK conventions (Gmsh 4.1 types 1,2,3,4,5,6,7).
enum class CellType : std::int8_t {
    Segment = 1,
    Triangle = 2,
    Quad = 3,
    Tetra = 4,
    Hexa = 5,
    Prism = 6,
    Pyramid = 7
};

/// Largest node count of a cell type (the hexahedron).
constexpr int kMaxCellTypeNodes = 8;

/// One row of the cell-type table.
struct CellTypeInfo {
    const char* name;  ///< lower-case name; "unknown" for a value that is no CellType
    int dim;           ///< topological dimension: 1, 2 or 3; 0 for a value that is no CellType
    int n_nodes;       ///< corner nodes (linear elements); 0 for a value that is no CellType
};

/// The cell-type table. A value outside the enumeration gives {"unknown", 0, 0} (the checked
/// accessors of mesh.hpp, cell_num_nodes and friends, throw instead).
constexpr CellTypeInfo cell_type_info(CellType t) {
    // In CellType order (Segment = 1 ... Pyramid = 7).
    constexpr CellTypeInfo table[] = {{"segment", 1, 2}, {"triangle", 2, 3}, {"quad", 2, 4},
                                      {"tetra", 3, 4},   {"hexa", 3, 8},     {"prism", 3, 6},
                                      {"pyramid", 3, 5}};
    const int i = static_cast<int>(t) - 1;
    constexpr int n = static_cast<int>(sizeof table / sizeof table[0]);
    return i >= 0 && i < n ? table[i] : CellTypeInfo{"unknown", 0, 0};
}

}  // namespace ugks

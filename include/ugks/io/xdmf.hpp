#pragma once
// XDMF 3 companions of the HDF5 outputs (fields, surfaces, overset grids): the Mixed topology of
// Mesh cells and the text of the .xdmf files.
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ugks/mesh/mesh.hpp"

namespace ugks {

/// XDMF "Mixed" topology code of a cell type: Segment 2 (Polyline, followed by its node count),
/// Triangle 4, Quad 5, Tetra 6, Pyramid 7, Prism 8 (Wedge), Hexa 9.
int xdmf_cell_code(CellType t);

/// Number of entries append_xdmf_cell writes for cell `c` of `m`.
index_t xdmf_cell_length(const Mesh& m, index_t c);

/// Append cell `c` of `m` to an XDMF Mixed topology list: its code, the node count of a polyline,
/// its nodes. The node order is the Mesh's (Gmsh = VTK/XDMF for these linear cells) except for the
/// prism, written as nodes 0 2 1 3 5 4 because VTK's wedge has the opposite orientation to Gmsh's
/// prism (ParaView's cell volumes stay positive).
void append_xdmf_cell(const Mesh& m, index_t c, std::vector<index_t>& topology);

/// The first and last lines of every .xdmf file (XML declaration to <Domain>, and back).
extern const char* const kXdmfHead;
extern const char* const kXdmfTail;

/// One <DataItem> line: `dims` ("n" or "n w"), number type "Float" or "Int" of `precision` bytes,
/// from HDF5 dataset `dataset` of the file `h5_name` (a name relative to the .xdmf).
void xdmf_data_item(std::ostream& os, const std::string& indent, const std::string& dims,
                    const char* number_type, int precision, const std::string& h5_name,
                    const std::string& dataset);

/// XDMF AttributeType of `width` values per element: Scalar (1), Vector (3), Tensor6 (6),
/// Tensor (9), else Matrix.
const char* xdmf_attribute_type(int width);

/// The text of an .xdmf file of one uniform grid, as the field and surface outputs write it: Mixed
/// topology in dataset /mesh/topology, XYZ nodes in /mesh/nodes of `h5_name`, time and step, and
/// cell-centred attributes.
class XdmfUniformGrid {
public:
    XdmfUniformGrid(std::string h5_name, const std::string& grid_name, index_t n_cells,
                    index_t topology_length, index_t n_nodes, long step, double time);
    /// A cell attribute of `width` values per cell ("Float" or "Int", 8 bytes) in `dataset`.
    void cell_attribute(const std::string& name, int width, const char* number_type,
                        const std::string& dataset);
    /// The whole file.
    std::string text() const;

private:
    std::string m_h5_name;
    index_t m_n_cells;
    std::ostringstream m_os;
};

}  // namespace ugks

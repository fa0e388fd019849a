#pragma once
// XDMF 3 companions of the HDF5 outputs (fields, surfaces, overset grids): the Mixed topology of
// Mesh cells and the text of the .xdmf files.
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
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

/// Number of node ids that follow XDMF Mixed code `code` (for Polyvertex 1 and Polyline 2 the
/// count that follows the code; 0 for an unknown code).
int xdmf_fixed_nodes(int code);

/// Where the mesh of a grid is and what its topology is. When every cell has the same type
/// (`uniform_code` != 0) the grid names that type (Hexahedron, Tetrahedron, Quadrilateral, ...,
/// Polyline/Polyvertex with NodesPerElement) and reads an (n_cells, nodes_per_cell) connectivity
/// dataset; otherwise a Mixed list. Readers that cannot read a Mixed list from HDF5 (meshio 5-7
/// outside its time-series reader) read the uniform form.
struct XdmfMesh {
    std::string h5_name;           ///< file holding the datasets, relative to the .xdmf
    std::string topology_dataset;  ///< the Mixed list, or the connectivity when uniform
    std::string nodes_dataset;     ///< (n_nodes, 3) coordinates
    index_t n_cells = 0;
    index_t topology_length = 0;  ///< entries of the Mixed list (ignored when uniform)
    index_t n_nodes = 0;
    int uniform_code = 0;    ///< the XDMF code shared by every cell, 0: Mixed
    int nodes_per_cell = 0;  ///< nodes of each cell when uniform
};

/// The uniform code and node count of a Mixed list of `n_cells` cells: {code, nodes} when every
/// cell has the same code (and, for Polyvertex/Polyline, the same count), else {0, 0}.
std::pair<int, int> xdmf_uniform_type(const std::vector<index_t>& mixed);
/// The node ids of a Mixed list without its codes and counts: the rows of the uniform form.
std::vector<index_t> xdmf_connectivity(const std::vector<index_t>& mixed);

/// One <Grid GridType="Uniform"> element: topology and geometry of `mesh`, the time when given
/// (a member of a temporal collection; meshio's plain XDMF reader refuses <Time>, so single
/// snapshots leave it out), and cell-centred attributes.
class XdmfGrid {
public:
    XdmfGrid(const XdmfMesh& mesh, const std::string& grid_name, const double* time,
             const std::string& indent);
    /// A cell attribute of `width` values per cell ("Float" or "Int", 8 bytes) in `dataset` of
    /// file `h5_name` (relative to the .xdmf).
    void cell_attribute(const std::string& name, int width, const char* number_type,
                        const std::string& h5_name, const std::string& dataset);
    /// The element, closed.
    std::string text() const;

private:
    index_t m_n_cells;
    std::string m_indent;
    std::ostringstream m_os;
};

/// A whole .xdmf file holding one grid element (XdmfGrid::text with indent "    ").
std::string xdmf_document(const std::string& grid);
/// A whole .xdmf file holding a temporal collection named `name` of grid elements (each with its
/// time, indent "      "): ParaView's time series, meshio's xdmf.TimeSeriesReader.
std::string xdmf_time_series(const std::string& name, const std::vector<std::string>& grids);

}  // namespace ugks

// XDMF 3 companions of the HDF5 outputs (include/ugks/io/xdmf.hpp).
#include "ugks/io/xdmf.hpp"

#include "hdf5_common.hpp"
#include "ugks/core/error.hpp"

namespace ugks {

int xdmf_cell_code(CellType t) {
    switch (t) {
        case CellType::Segment:
            return 2;  // Polyline, followed by its node count
        case CellType::Triangle:
            return 4;
        case CellType::Quad:
            return 5;
        case CellType::Tetra:
            return 6;
        case CellType::Pyramid:
            return 7;
        case CellType::Prism:
            return 8;  // Wedge
        case CellType::Hexa:
            return 9;
    }
    UGKS_REQUIRE(false, "unknown cell type " << static_cast<int>(t));
    return 0;
}

index_t xdmf_cell_length(const Mesh& m, index_t c) {
    const index_t nn = m.cell_node_offsets[c + 1] - m.cell_node_offsets[c];
    return 1 + nn + (m.cell_type[c] == CellType::Segment ? 1 : 0);
}

void append_xdmf_cell(const Mesh& m, index_t c, std::vector<index_t>& topology) {
    const CellType t = m.cell_type[c];
    topology.push_back(xdmf_cell_code(t));
    const index_t a = m.cell_node_offsets[c], b = m.cell_node_offsets[c + 1];
    if (t == CellType::Segment) topology.push_back(b - a);
    if (t == CellType::Prism) {
        for (int k : {0, 2, 1, 3, 5, 4}) topology.push_back(m.cell_nodes[a + k]);
    } else {
        topology.insert(topology.end(), m.cell_nodes.begin() + a, m.cell_nodes.begin() + b);
    }
}

const char* const kXdmfHead =
    "<?xml version=\"1.0\" ?>\n"
    "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    "<Xdmf xmlns:xi=\"http://www.w3.org/2001/XInclude\" Version=\"3.0\">\n"
    "  <Domain>\n";
const char* const kXdmfTail =
    "  </Domain>\n"
    "</Xdmf>\n";

void xdmf_data_item(std::ostream& os, const std::string& indent, const std::string& dims,
                    const char* number_type, int precision, const std::string& h5_name,
                    const std::string& dataset) {
    os << indent << "<DataItem Dimensions=\"" << dims << "\" NumberType=\"" << number_type
       << "\" Precision=\"" << precision << "\" Format=\"HDF\">" << io_detail::xml_escape(h5_name)
       << ":" << io_detail::xml_escape(dataset) << "</DataItem>\n";
}

const char* xdmf_attribute_type(int width) {
    switch (width) {
        case 1:
            return "Scalar";
        case 3:
            return "Vector";
        case 6:
            return "Tensor6";
        case 9:
            return "Tensor";
        default:
            return "Matrix";
    }
}

int xdmf_fixed_nodes(int code) {
    switch (code) {
        case 4:
            return 3;
        case 5:
            return 4;
        case 6:
            return 4;
        case 7:
            return 5;
        case 8:
            return 6;
        case 9:
            return 8;
        default:
            return 0;
    }
}

namespace {

/// Calls visit(code, count, first) per cell of a Mixed list (`first`: index of its first node).
template <class F>
void for_each_mixed_cell(const std::vector<index_t>& mixed, F&& visit) {
    std::size_t i = 0;
    while (i < mixed.size()) {
        const int code = static_cast<int>(mixed[i]);
        const bool counted = code == 1 || code == 2;
        UGKS_REQUIRE(counted || xdmf_fixed_nodes(code) > 0,
                     "unknown XDMF cell code " << code << " at " << i);
        UGKS_REQUIRE(!counted || i + 1 < mixed.size(), "truncated XDMF Mixed list");
        const int count = counted ? static_cast<int>(mixed[i + 1]) : xdmf_fixed_nodes(code);
        const std::size_t first = i + (counted ? 2 : 1);
        UGKS_REQUIRE(count > 0 && first + count <= mixed.size(), "truncated XDMF Mixed list");
        visit(code, count, first);
        i = first + count;
    }
}

const char* xdmf_type_name(int code) {
    switch (code) {
        case 1:
            return "Polyvertex";
        case 2:
            return "Polyline";
        case 4:
            return "Triangle";
        case 5:
            return "Quadrilateral";
        case 6:
            return "Tetrahedron";
        case 7:
            return "Pyramid";
        case 8:
            return "Wedge";
        case 9:
            return "Hexahedron";
        default:
            return "Mixed";
    }
}

}  // namespace

std::pair<int, int> xdmf_uniform_type(const std::vector<index_t>& mixed) {
    int code = -1, nodes = 0;
    bool uniform = true;
    for_each_mixed_cell(mixed, [&](int c, int count, std::size_t) {
        if (code < 0) {
            code = c;
            nodes = count;
        } else if (c != code || count != nodes) {
            uniform = false;
        }
    });
    if (!uniform || code < 0) return {0, 0};
    return {code, nodes};
}

std::vector<index_t> xdmf_connectivity(const std::vector<index_t>& mixed) {
    std::vector<index_t> out;
    out.reserve(mixed.size());
    for_each_mixed_cell(mixed, [&](int, int count, std::size_t first) {
        out.insert(out.end(), mixed.begin() + first, mixed.begin() + first + count);
    });
    return out;
}

XdmfGrid::XdmfGrid(const XdmfMesh& mesh, const std::string& grid_name, const double* time,
                   const std::string& indent)
    : m_n_cells(mesh.n_cells), m_indent(indent) {
    m_os.precision(17);
    const std::string in1 = indent + "  ", in2 = indent + "    ";
    m_os << indent << "<Grid Name=\"" << io_detail::xml_escape(grid_name)
         << "\" GridType=\"Uniform\">\n";
    if (time) m_os << in1 << "<Time Value=\"" << *time << "\"/>\n";
    if (mesh.uniform_code != 0) {
        m_os << in1 << "<Topology TopologyType=\"" << xdmf_type_name(mesh.uniform_code)
             << "\" NumberOfElements=\"" << mesh.n_cells << "\"";
        if (mesh.uniform_code == 1 || mesh.uniform_code == 2)
            m_os << " NodesPerElement=\"" << mesh.nodes_per_cell << "\"";
        m_os << ">\n";
        xdmf_data_item(m_os, in2,
                       std::to_string(mesh.n_cells) + " " + std::to_string(mesh.nodes_per_cell),
                       "Int", 8, mesh.h5_name, mesh.topology_dataset);
    } else {
        m_os << in1 << "<Topology TopologyType=\"Mixed\" NumberOfElements=\"" << mesh.n_cells
             << "\">\n";
        xdmf_data_item(m_os, in2, std::to_string(mesh.topology_length), "Int", 8, mesh.h5_name,
                       mesh.topology_dataset);
    }
    m_os << in1 << "</Topology>\n" << in1 << "<Geometry GeometryType=\"XYZ\">\n";
    xdmf_data_item(m_os, in2, std::to_string(mesh.n_nodes) + " 3", "Float", 8, mesh.h5_name,
                   mesh.nodes_dataset);
    m_os << in1 << "</Geometry>\n";
}

void XdmfGrid::cell_attribute(const std::string& name, int width, const char* number_type,
                              const std::string& h5_name, const std::string& dataset) {
    const std::string n = std::to_string(m_n_cells);
    m_os << m_indent << "  <Attribute Name=\"" << io_detail::xml_escape(name)
         << "\" AttributeType=\"" << xdmf_attribute_type(width) << "\" Center=\"Cell\">\n";
    xdmf_data_item(m_os, m_indent + "    ", width == 1 ? n : n + " " + std::to_string(width),
                   number_type, 8, h5_name, dataset);
    m_os << m_indent << "  </Attribute>\n";
}

std::string XdmfGrid::text() const { return m_os.str() + m_indent + "</Grid>\n"; }

std::string xdmf_document(const std::string& grid) { return kXdmfHead + grid + kXdmfTail; }

std::string xdmf_time_series(const std::string& name, const std::vector<std::string>& grids) {
    std::string out = std::string(kXdmfHead) + "    <Grid Name=\"" + io_detail::xml_escape(name) +
                      "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (const std::string& g : grids) out += g;
    return out + "    </Grid>\n" + kXdmfTail;
}

}  // namespace ugks

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

XdmfUniformGrid::XdmfUniformGrid(std::string h5_name, const std::string& grid_name, index_t n_cells,
                                 index_t topology_length, index_t n_nodes, long step, double time)
    : m_h5_name(std::move(h5_name)), m_n_cells(n_cells) {
    m_os.precision(17);
    m_os << kXdmfHead << "    <Grid Name=\"" << io_detail::xml_escape(grid_name)
         << "\" GridType=\"Uniform\">\n"
         << "      <Time Value=\"" << time << "\"/>\n"
         << "      <Information Name=\"step\" Value=\"" << step << "\"/>\n"
         << "      <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << n_cells << "\">\n";
    xdmf_data_item(m_os, "        ", std::to_string(topology_length), "Int", 8, m_h5_name,
                   "/mesh/topology");
    m_os << "      </Topology>\n"
         << "      <Geometry GeometryType=\"XYZ\">\n";
    xdmf_data_item(m_os, "        ", std::to_string(n_nodes) + " 3", "Float", 8, m_h5_name,
                   "/mesh/nodes");
    m_os << "      </Geometry>\n";
}

void XdmfUniformGrid::cell_attribute(const std::string& name, int width, const char* number_type,
                                     const std::string& dataset) {
    const std::string n = std::to_string(m_n_cells);
    m_os << "      <Attribute Name=\"" << io_detail::xml_escape(name) << "\" AttributeType=\""
         << xdmf_attribute_type(width) << "\" Center=\"Cell\">\n";
    xdmf_data_item(m_os, "        ", width == 1 ? n : n + " " + std::to_string(width), number_type,
                   8, m_h5_name, dataset);
    m_os << "      </Attribute>\n";
}

std::string XdmfUniformGrid::text() const { return m_os.str() + "    </Grid>\n" + kXdmfTail; }

}  // namespace ugks

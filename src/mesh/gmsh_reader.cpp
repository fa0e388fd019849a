// Gmsh MSH 4.1 reader (ASCII and binary), after the "MSH file format" chapter of the Gmsh manual:
// sections $MeshFormat, $PhysicalNames, $Entities, $PartitionedEntities, $Nodes, $Elements; other
// sections ($GhostElements, $Periodic, ...) are skipped. A partitioned file (gmsh -part N) is read
// as the one global mesh it holds (docs/usage.md "Mesh files").
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reader_common.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks {
namespace {

struct GmshType {
    int dim = -1;  ///< -1: unknown type
    int nodes = 0;
    const char* name = "unknown";
};

// Element types of gmsh/src/common/GmshDefines.h that appear in practice (orders 1..5).
GmshType gmsh_type(int type) {
    switch (type) {
        case 1:
            return {1, 2, "line2"};
        case 2:
            return {2, 3, "tri3"};
        case 3:
            return {2, 4, "quad4"};
        case 4:
            return {3, 4, "tet4"};
        case 5:
            return {3, 8, "hex8"};
        case 6:
            return {3, 6, "prism6"};
        case 7:
            return {3, 5, "pyramid5"};
        case 8:
            return {1, 3, "line3"};
        case 9:
            return {2, 6, "tri6"};
        case 10:
            return {2, 9, "quad9"};
        case 11:
            return {3, 10, "tet10"};
        case 12:
            return {3, 27, "hex27"};
        case 13:
            return {3, 18, "prism18"};
        case 14:
            return {3, 14, "pyramid14"};
        case 15:
            return {0, 1, "point"};
        case 16:
            return {2, 8, "quad8"};
        case 17:
            return {3, 20, "hex20"};
        case 18:
            return {3, 15, "prism15"};
        case 19:
            return {3, 13, "pyramid13"};
        case 20:
            return {2, 9, "tri9"};
        case 21:
            return {2, 10, "tri10"};
        case 22:
            return {2, 12, "tri12"};
        case 23:
            return {2, 15, "tri15"};
        case 24:
            return {2, 15, "tri15i"};
        case 25:
            return {2, 21, "tri21"};
        case 26:
            return {1, 4, "line4"};
        case 27:
            return {1, 5, "line5"};
        case 28:
            return {1, 6, "line6"};
        case 29:
            return {3, 20, "tet20"};
        case 30:
            return {3, 35, "tet35"};
        case 31:
            return {3, 56, "tet56"};
        case 36:
            return {2, 16, "quad16"};
        case 37:
            return {2, 25, "quad25"};
        case 38:
            return {2, 36, "quad36"};
        case 92:
            return {3, 64, "hex64"};
        case 93:
            return {3, 125, "hex125"};
        default:
            return {};
    }
}

bool is_linear_cell(int type) { return type >= 1 && type <= 7; }

constexpr const char* kLinearOnly =
    "only linear elements (line2, tri3, quad4, tet4, hex8, prism6, pyramid5) are supported: mesh "
    "with Mesh.ElementOrder = 1";

/// Node tag -> index into the node list. Dense when tags are compact (the usual case), hashed
/// otherwise.
class NodeMap {
public:
    void reserve(std::size_t max_tag, std::size_t n_nodes) {
        m_dense_ok = max_tag <= 4 * n_nodes + 1024;
        if (m_dense_ok) m_dense.assign(max_tag + 1, -1);
    }
    /// false when the tag is already present
    bool insert(std::size_t tag, index_t index) {
        if (m_dense_ok && tag < m_dense.size()) {
            if (m_dense[tag] >= 0) return false;
            m_dense[tag] = index;
            return true;
        }
        if (m_dense_ok && tag >= m_dense.size()) {
            // header's maxNodeTag was wrong: move everything to the hash map
            for (std::size_t t = 0; t < m_dense.size(); ++t)
                if (m_dense[t] >= 0) m_hash.emplace(t, m_dense[t]);
            m_dense.clear();
            m_dense_ok = false;
        }
        return m_hash.emplace(tag, index).second;
    }
    index_t find(std::size_t tag) const {
        if (m_dense_ok) return tag < m_dense.size() ? m_dense[tag] : -1;
        auto it = m_hash.find(tag);
        return it == m_hash.end() ? -1 : it->second;
    }

private:
    bool m_dense_ok = false;
    std::vector<index_t> m_dense;
    std::unordered_map<std::size_t, index_t> m_hash;
};

struct ElementBlock {
    int dim = 0;
    int entity = 0;
    int type = 0;
    std::size_t pos = 0;  ///< file position of its first element (for messages)
    std::size_t count = 0;
    std::vector<index_t> conn;  ///< node indices, count x nodes (linear types only)
};

class GmshParser {
public:
    GmshParser(std::string path, std::string data)
        : m_path(std::move(path)), m_buf(std::move(data)) {}

    Mesh run(double scale);

private:
    std::string m_path;
    std::string m_buf;
    std::size_t m_pos = 0;
    bool m_binary = false;
    std::string m_section;  // current section, for "truncated" messages
    // first byte after the byte-order int of a binary file (messages give lines before, bytes
    // after)
    std::size_t m_binary_start = static_cast<std::size_t>(-1);

    std::map<int, std::string> m_phys_names[4];                     // by dimension: tag -> name
    std::map<std::pair<int, int>, std::vector<int>> m_entity_phys;  // (dim, tag) -> physical tags
    bool m_have_entities = false;
    std::vector<Vec3> m_nodes;
    std::vector<std::size_t> m_node_tags;
    NodeMap m_node_map;
    bool m_have_nodes = false;
    std::vector<ElementBlock> m_blocks;
    bool m_have_elements = false;

    // ---- errors ---------------------------------------------------------------------------
    std::string where(std::size_t pos) const {
        std::ostringstream os;
        os << "Gmsh file '" << m_path << "'";
        if (!m_binary || pos <= m_binary_start) {
            const auto line =
                1 +
                std::count(m_buf.begin(),
                           m_buf.begin() + static_cast<std::ptrdiff_t>(std::min(pos, m_buf.size())),
                           '\n');
            os << ", line " << line;
        } else {
            os << ", byte " << pos;
        }
        return os.str();
    }
    [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
        throw InputError(where(pos) + ": " + what);
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError("Gmsh file '" + m_path + "': " + what);
    }
    [[noreturn]] void truncated() const {
        fail_at(m_buf.size(),
                "unexpected end of file" +
                    (m_section.empty() ? std::string() : " in section $" + m_section) +
                    " (truncated file?)");
    }
    // ---- ASCII tokens ---------------------------------------------------------------------
    void skip_ws() {
        while (m_pos < m_buf.size() && std::isspace(static_cast<unsigned char>(m_buf[m_pos])))
            ++m_pos;
    }
    /// Position of the next value (after white space in ASCII; binary values start right here).
    std::size_t here() {
        if (!m_binary) skip_ws();
        return m_pos;
    }
    bool at_end() {
        skip_ws();
        return m_pos >= m_buf.size();
    }
    std::string_view token() {
        skip_ws();
        if (m_pos >= m_buf.size()) truncated();
        const std::size_t b = m_pos;
        while (m_pos < m_buf.size() && !std::isspace(static_cast<unsigned char>(m_buf[m_pos])))
            ++m_pos;
        return std::string_view(m_buf).substr(b, m_pos - b);
    }
    long long ascii_int(const char* what) {
        const std::size_t at = (skip_ws(), m_pos);
        const std::string t(token());
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(t.c_str(), &end, 10);
        if (end == t.c_str() || *end != '\0' || errno == ERANGE)
            fail_at(at, std::string("expected an integer (") + what + "), got '" + t + "'");
        return v;
    }
    double ascii_double(const char* what) {
        const std::size_t at = (skip_ws(), m_pos);
        const std::string t(token());
        char* end = nullptr;
        const double v = std::strtod(t.c_str(), &end);
        if (end == t.c_str() || *end != '\0')
            fail_at(at, std::string("expected a number (") + what + "), got '" + t + "'");
        return v;
    }
    /// true when the rest of the current line has another token
    bool more_on_line() {
        while (m_pos < m_buf.size() &&
               (m_buf[m_pos] == ' ' || m_buf[m_pos] == '\t' || m_buf[m_pos] == '\r'))
            ++m_pos;
        return m_pos < m_buf.size() && m_buf[m_pos] != '\n';
    }

    // ---- binary values ----------------------------------------------------------------------
    template <class T>
    T bin() {
        if (m_pos + sizeof(T) > m_buf.size()) truncated();
        T v;
        std::memcpy(&v, m_buf.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }

    // ---- values in sections that are binary in binary files ---------------------------------
    int get_int(const char* what) {
        if (m_binary) return bin<std::int32_t>();
        const std::size_t at = (skip_ws(), m_pos);
        const long long v = ascii_int(what);
        if (v < INT32_MIN || v > INT32_MAX) fail_at(at, std::string(what) + " out of range");
        return static_cast<int>(v);
    }
    std::size_t get_size(const char* what) {
        if (m_binary) return bin<std::uint64_t>();
        const std::size_t at = (skip_ws(), m_pos);
        const long long v = ascii_int(what);
        if (v < 0)
            fail_at(at, std::string(what) + " must not be negative, got " + std::to_string(v));
        return static_cast<std::size_t>(v);
    }
    double get_double(const char* what) { return m_binary ? bin<double>() : ascii_double(what); }
    /// A count of items that each take at least `min_bytes` in a binary file (1 in ASCII): a count
    /// that the rest of the file cannot hold means a truncated or corrupt file, caught before
    /// allocating.
    std::size_t get_count(const char* what, std::size_t min_bytes) {
        const std::size_t at = here();
        const std::size_t n = get_size(what);
        const std::size_t left = m_buf.size() - std::min(m_buf.size(), m_pos);
        if (n > left / (m_binary ? min_bytes : 1)) {
            fail_at(at, "unexpected end of file in section $" + m_section + ": " + what + " = " +
                            std::to_string(n) +
                            " is more than the rest of the file can hold (truncated "
                            "or corrupt file?)");
        }
        return n;
    }

    // ---- sections -----------------------------------------------------------------------------
    void expect_end(const std::string& name) {
        const std::size_t at = (skip_ws(), m_pos);
        const std::string_view t = token();
        if (t != "$End" + name)
            fail_at(at, "expected $End" + name + ", got '" + std::string(t.substr(0, 40)) + "'");
    }
    void skip_section(const std::string& name) {
        const std::string end = "$End" + name;
        const std::size_t p = m_buf.find(end, m_pos);
        if (p == std::string::npos) truncated();
        m_pos = p;
    }
    void read_format();
    void read_physical_names();
    void read_entities();
    void read_partitioned_entities();
    void read_nodes();
    void read_elements();
    void read_element_block(ElementBlock& blk, const GmshType& info);
};

void GmshParser::read_format() {
    const std::size_t at = (skip_ws(), m_pos);
    const std::string version(token());
    if (version != "4.1") {
        fail_at(at, "Gmsh format version " + version +
                        " is not supported; export the mesh as MSH 4.1 (gmsh -format msh41, or "
                        "Mesh.MshFileVersion = 4.1)");
    }
    const long long file_type = ascii_int("file-type");
    const std::size_t at_size = (skip_ws(), m_pos);
    const long long data_size = ascii_int("data-size");
    if (file_type != 0 && file_type != 1) fail_at(at, "file-type must be 0 (ASCII) or 1 (binary)");
    if (data_size != 8) fail_at(at_size, "data-size must be 8, got " + std::to_string(data_size));
    if (file_type == 1) {
        // one newline, then the int 1 that tells the byte order
        if (m_pos < m_buf.size() && m_buf[m_pos] == '\r') ++m_pos;
        if (m_pos < m_buf.size() && m_buf[m_pos] == '\n') ++m_pos;
        m_binary_start = m_pos;
        m_binary = true;
        const std::int32_t one = bin<std::int32_t>();
        if (one != 1) {
            fail_at(at, one == 0x01000000
                            ? "binary file written with the other byte order (not supported)"
                            : "corrupt binary header (endianness check is not 1)");
        }
    }
}

void GmshParser::read_physical_names() {
    // always ASCII, also in binary files
    const bool was_binary = m_binary;
    m_binary = false;
    const std::size_t at_n = (skip_ws(), m_pos);
    const long long n_names = ascii_int("numPhysicalNames");
    if (n_names < 0) fail_at(at_n, "numPhysicalNames must not be negative");
    const auto n = static_cast<std::size_t>(n_names);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t at = (skip_ws(), m_pos);
        const long long dim = ascii_int("physical group dimension");
        const long long tag = ascii_int("physical tag");
        if (dim < 0 || dim > 3) fail_at(at, "physical group dimension must be 0..3");
        skip_ws();
        if (m_pos >= m_buf.size()) truncated();
        if (m_buf[m_pos] != '"') fail_at(m_pos, "expected a quoted physical name");
        const std::size_t q = m_buf.find('"', m_pos + 1);
        const std::size_t nl = m_buf.find('\n', m_pos + 1);
        if (q == std::string::npos || (nl != std::string::npos && nl < q))
            fail_at(m_pos, "unterminated physical name");
        m_phys_names[static_cast<int>(dim)][static_cast<int>(tag)] =
            m_buf.substr(m_pos + 1, q - m_pos - 1);
        m_pos = q + 1;
    }
    m_binary = was_binary;
}

void GmshParser::read_entities() {
    m_have_entities = true;
    std::size_t counts[4];
    for (std::size_t& c : counts) c = get_count("number of entities", 20);
    for (int dim = 0; dim < 4; ++dim) {
        for (std::size_t e = 0; e < counts[dim]; ++e) {
            const int tag = get_int("entity tag");
            for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) get_double("entity bounding box");
            const std::size_t n_phys = get_count("numPhysicalTags", 4);
            std::vector<int> phys(n_phys);
            for (int& p : phys) p = get_int("physical tag");
            if (dim > 0) {
                const std::size_t n_bound = get_count("numBounding", 4);
                for (std::size_t b = 0; b < n_bound; ++b) get_int("bounding entity tag");
            }
            m_entity_phys[{dim, tag}] = std::move(phys);
        }
    }
}

// $PartitionedEntities (MSH 4.1, files of gmsh -part N): the entities that nodes and elements of a
// partitioned file refer to, each with its parent model entity. A partition entity of the parent's
// dimension is a piece of it and takes its physical groups; one of lower dimension than its parent
// is a boundary between partitions inside it (interior: in no patch). Ghost entities are only
// counted; $GhostElements are skipped (each element is read once, from its own partition).
void GmshParser::read_partitioned_entities() {
    if (!m_have_entities) fail_at(m_pos, "$PartitionedEntities comes before $Entities");
    get_size("numPartitions");
    const std::size_t n_ghost = get_count("numGhostEntities", 8);
    for (std::size_t g = 0; g < n_ghost; ++g) {
        get_int("ghostEntityTag");
        get_int("partition");
    }
    std::size_t counts[4];
    for (std::size_t& c : counts) c = get_count("number of partitioned entities", 24);
    std::map<std::pair<int, int>, std::vector<int>> pieces;
    for (int dim = 0; dim < 4; ++dim) {
        for (std::size_t e = 0; e < counts[dim]; ++e) {
            const std::size_t at = here();
            const int tag = get_int("entity tag");
            const int parent_dim = get_int("parentDim");
            const int parent_tag = get_int("parentTag");
            if (parent_dim < dim || parent_dim > 3) {
                fail_at(at, "partitioned entity " + std::to_string(tag) + " of dimension " +
                                std::to_string(dim) + " has parent dimension " +
                                std::to_string(parent_dim));
            }
            const std::size_t n_part = get_count("numPartitions", 4);
            for (std::size_t k = 0; k < n_part; ++k) get_int("partition tag");
            for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) get_double("entity bounding box");
            const std::size_t n_phys = get_count("numPhysicalTags", 4);
            std::vector<int> phys(n_phys);
            for (int& p : phys) p = get_int("physical tag");
            if (dim > 0) {
                const std::size_t n_bound = get_count("numBounding", 4);
                for (std::size_t b = 0; b < n_bound; ++b) get_int("bounding entity tag");
            }
            if (parent_dim == dim) {
                auto parent = m_entity_phys.find({parent_dim, parent_tag});
                if (parent != m_entity_phys.end()) phys = parent->second;
            } else {
                phys.clear();  // between partitions: interior
            }
            pieces[{dim, tag}] = std::move(phys);
        }
    }
    // Nodes and elements refer to the partition entities (their tags follow the model's).
    for (auto& [key, phys] : pieces) m_entity_phys[key] = std::move(phys);
}

void GmshParser::read_nodes() {
    m_have_nodes = true;
    const std::size_t n_blocks = get_count("numEntityBlocks", 20);
    const std::size_t n_nodes = get_count("numNodes", 32);
    get_size("minNodeTag");
    const std::size_t max_tag = get_size("maxNodeTag");
    m_node_map.reserve(max_tag, n_nodes);
    m_nodes.reserve(n_nodes);
    m_node_tags.reserve(n_nodes);
    for (std::size_t b = 0; b < n_blocks; ++b) {
        const std::size_t at_block = here();
        const int entity_dim = get_int("entityDim");
        get_int("entityTag");
        const int parametric = get_int("parametric");
        const std::size_t n = get_count("numNodesInBlock", 32);
        if (entity_dim < 0 || entity_dim > 3) fail_at(at_block, "entityDim must be 0..3");
        const std::size_t first = m_nodes.size();
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t at = here();
            const std::size_t tag = get_size("node tag");
            if (!m_node_map.insert(tag, static_cast<index_t>(first + i)))
                fail_at(at, "node tag " + std::to_string(tag) + " appears twice");
            m_node_tags.push_back(tag);
        }
        const int n_param = parametric ? entity_dim : 0;
        for (std::size_t i = 0; i < n; ++i) {
            Vec3 x;
            for (double& c : x) c = get_double("node coordinate");
            for (int k = 0; k < n_param; ++k) get_double("parametric coordinate");
            m_nodes.push_back(x);
        }
    }
    if (m_nodes.size() != n_nodes) {
        fail_at(m_pos, "the $Nodes header announces " + std::to_string(n_nodes) +
                           " nodes, the blocks hold " + std::to_string(m_nodes.size()));
    }
}

void GmshParser::read_element_block(ElementBlock& blk, const GmshType& info) {
    const bool keep = is_linear_cell(blk.type) || blk.type == 15;
    if (keep) blk.conn.reserve(blk.count * static_cast<std::size_t>(info.nodes));
    for (std::size_t e = 0; e < blk.count; ++e) {
        const std::size_t at = here();
        if (e == 0) blk.pos = at;
        get_size("element tag");
        int n_nodes = info.nodes;
        if (info.dim < 0) {
            // unknown type: in ASCII the element is the rest of its line; in binary its size is
            // unknown, so the file cannot be parsed further
            if (m_binary) fail_at(at, "unknown element type " + std::to_string(blk.type));
            n_nodes = 0;
            while (more_on_line()) {
                token();
                ++n_nodes;
            }
        }
        for (int k = 0; k < n_nodes; ++k) {
            const std::size_t at_node = here();
            const std::size_t tag = get_size("node tag");
            const index_t idx = m_node_map.find(tag);
            if (idx < 0) {
                fail_at(at_node, "element of type " + std::to_string(blk.type) + " (" + info.name +
                                     ") references node tag " + std::to_string(tag) +
                                     ", which is not in $Nodes");
            }
            if (keep) blk.conn.push_back(idx);
        }
    }
}

void GmshParser::read_elements() {
    if (!m_have_nodes) fail_at(m_pos, "$Elements comes before $Nodes");
    m_have_elements = true;
    const std::size_t n_blocks = get_count("numEntityBlocks", 20);
    get_count("numElements", 16);
    get_size("minElementTag");
    get_size("maxElementTag");
    m_blocks.reserve(n_blocks);
    for (std::size_t b = 0; b < n_blocks; ++b) {
        ElementBlock blk;
        blk.pos = here();
        blk.dim = get_int("entityDim");
        blk.entity = get_int("entityTag");
        blk.type = get_int("elementType");
        blk.count = get_count("numElementsInBlock", 16);
        if (blk.dim < 0 || blk.dim > 3) fail_at(blk.pos, "entityDim must be 0..3");
        const GmshType info = gmsh_type(blk.type);
        if (info.dim >= 0 && info.dim != blk.dim) {
            fail_at(blk.pos, "element type " + std::to_string(blk.type) + " (" + info.name +
                                 ") in an entity of dimension " + std::to_string(blk.dim));
        }
        read_element_block(blk, info);
        m_blocks.push_back(std::move(blk));
    }
}

Mesh GmshParser::run(double scale) {
    bool have_format = false;
    while (!at_end()) {
        const std::size_t at = m_pos;
        const std::string_view t = token();
        if (t.size() < 2 || t[0] != '$' || t.substr(0, 4) == "$End")
            fail_at(at, "expected a section header such as $Nodes, got '" +
                            std::string(t.substr(0, 40)) + "'");
        m_section = std::string(t.substr(1));
        // binary data starts right after the header line's newline
        if (m_pos < m_buf.size() && m_buf[m_pos] == '\r') ++m_pos;
        if (m_pos < m_buf.size() && m_buf[m_pos] == '\n') ++m_pos;
        if (!have_format && m_section != "MeshFormat")
            fail_at(at, "not a Gmsh MSH file: it must start with $MeshFormat");
        if (m_section == "MeshFormat") {
            if (have_format) fail_at(at, "second $MeshFormat section");
            read_format();
            have_format = true;
        } else if (m_section == "PhysicalNames") {
            read_physical_names();
        } else if (m_section == "Entities") {
            read_entities();
        } else if (m_section == "PartitionedEntities") {
            read_partitioned_entities();
        } else if (m_section == "Nodes") {
            if (m_have_nodes)
                fail_at(at,
                        "second $Nodes section (one file must hold the whole mesh: write "
                        "partitioned meshes as one file, without -part_split)");
            read_nodes();
        } else if (m_section == "Elements") {
            if (m_have_elements) fail_at(at, "second $Elements section");
            read_elements();
        } else {
            skip_section(m_section);
        }
        expect_end(m_section);
        m_section.clear();
    }
    if (!have_format) fail("empty file (not a Gmsh MSH file)");
    if (!m_have_nodes || !m_have_elements) fail("the file has no $Nodes or no $Elements section");

    detail::RawMesh raw;
    for (const ElementBlock& b : m_blocks)
        if (b.count > 0 && b.dim > raw.dim) raw.dim = b.dim;
    if (raw.dim == 0) {
        fail(
            "no elements of dimension 1, 2 or 3 (note: when physical groups exist, Gmsh saves only "
            "the elements of physical groups; put the volume/surface in one)");
    }
    const int dim = raw.dim;

    // Patches: physical groups of dimension dim-1, in the order of their tags.
    std::set<int> patch_tags;
    for (const auto& [tag, name] : m_phys_names[dim - 1]) patch_tags.insert(tag);
    for (const auto& [key, phys] : m_entity_phys)
        if (key.first == dim - 1) patch_tags.insert(phys.begin(), phys.end());
    std::map<int, int> patch_of_tag;
    for (int tag : patch_tags) {
        auto it = m_phys_names[dim - 1].find(tag);
        std::string name =
            it != m_phys_names[dim - 1].end() ? it->second : "patch_" + std::to_string(tag);
        if (std::find(raw.patch_names.begin(), raw.patch_names.end(), name) !=
            raw.patch_names.end())
            fail("two physical groups of dimension " + std::to_string(dim - 1) + " are named '" +
                 name + "'");
        patch_of_tag[tag] = static_cast<int>(raw.patch_names.size());
        raw.patch_names.push_back(std::move(name));
    }

    for (const ElementBlock& b : m_blocks) {
        if (b.count == 0) continue;
        const GmshType info = gmsh_type(b.type);
        if (b.dim == dim) {
            if (!is_linear_cell(b.type)) {
                fail_at(b.pos, "unsupported element type " + std::to_string(b.type) + " (" +
                                   info.name + "); " + kLinearOnly);
            }
            const auto n = static_cast<std::size_t>(info.nodes);
            for (std::size_t e = 0; e < b.count; ++e) {
                raw.cell_type.push_back(static_cast<CellType>(b.type));
                raw.cell_nodes.insert(raw.cell_nodes.end(),
                                      b.conn.begin() + static_cast<std::ptrdiff_t>(e * n),
                                      b.conn.begin() + static_cast<std::ptrdiff_t>((e + 1) * n));
                raw.cell_node_offsets.push_back(static_cast<index_t>(raw.cell_nodes.size()));
            }
        } else if (b.dim == dim - 1) {
            if (!m_have_entities)
                fail_at(b.pos, "boundary elements but no $Entities section to find their patch");
            auto it = m_entity_phys.find({b.dim, b.entity});
            if (it == m_entity_phys.end()) {
                fail_at(b.pos, "entity " + std::to_string(b.entity) + " of dimension " +
                                   std::to_string(b.dim) + " is not in $Entities");
            }
            if (it->second.empty()) continue;  // not in a physical group: not a patch
            if (it->second.size() > 1) {
                fail_at(b.pos,
                        "boundary entity " + std::to_string(b.entity) + " (dimension " +
                            std::to_string(b.dim) + ") is in " + std::to_string(it->second.size()) +
                            " physical groups; a boundary face must belong to exactly one patch");
            }
            const bool face_type = (dim == 3 && (b.type == 2 || b.type == 3)) ||
                                   (dim == 2 && b.type == 1) || (dim == 1 && b.type == 15);
            if (!face_type) {
                fail_at(b.pos, "unsupported boundary element type " + std::to_string(b.type) +
                                   " (" + info.name + "); " + kLinearOnly);
            }
            const int patch = patch_of_tag.at(it->second[0]);
            const auto n = static_cast<std::size_t>(info.nodes);
            for (std::size_t e = 0; e < b.count; ++e) {
                BoundaryFaceSpec f;
                f.nodes.assign(b.conn.begin() + static_cast<std::ptrdiff_t>(e * n),
                               b.conn.begin() + static_cast<std::ptrdiff_t>((e + 1) * n));
                f.patch = patch;
                raw.faces.push_back(std::move(f));
            }
        }
    }
    m_blocks.clear();
    raw.nodes = std::move(m_nodes);
    raw.node_label.assign(m_node_tags.begin(), m_node_tags.end());
    return detail::finish_raw_mesh(std::move(raw), scale, m_path);
}

}  // namespace

Mesh read_gmsh(const std::string& path, double scale) {
    if (const std::string why = input_file_problem(path); !why.empty())
        UGKS_INPUT_ERROR("Gmsh file '" << path << "' " << why);
    std::ifstream in(path, std::ios::binary);
    if (!in) UGKS_INPUT_ERROR("Gmsh file '" << path << "': cannot open (missing or unreadable)");
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) UGKS_INPUT_ERROR("Gmsh file '" << path << "': read error");
    GmshParser parser(path, std::move(data));
    return parser.run(scale);
}

}  // namespace ugks

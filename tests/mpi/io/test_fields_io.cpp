// Parallel HDF5 field output: global order, exact round trip, decomposition invariance, XDMF
// companion, atomic rename and error reporting. Runs under 1, 2 and 4 ranks.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/version.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/mesh/sources.hpp"

namespace {

using ugks::CellField;
using ugks::CellType;
using ugks::index_t;
using ugks::LocalMesh;
using ugks::Mesh;
using ugks::Vec3;

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

// ---- hand-built meshes (only what the writer reads: nodes, cells, volumes, centroids) ----------

struct MeshBuilder {
    Mesh mesh;
    explicit MeshBuilder(int dim) { mesh.dim = dim; }

    index_t node(const Vec3& p) {
        mesh.nodes.push_back(p);
        return mesh.n_nodes() - 1;
    }
    static double det3(const Vec3& a, const Vec3& b, const Vec3& c) {
        return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
               a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    /// Adds a cell whose exact volume/centroid is the union of `simplices` (local node indices):
    /// tetrahedra in 3D, triangles in 2D, segments in 1D.
    void cell(CellType t, const std::vector<index_t>& nodes,
              const std::vector<std::vector<int>>& simplices) {
        mesh.cell_type.push_back(t);
        mesh.cell_nodes.insert(mesh.cell_nodes.end(), nodes.begin(), nodes.end());
        mesh.cell_node_offsets.push_back(static_cast<index_t>(mesh.cell_nodes.size()));
        double vol = 0;
        Vec3 c{0, 0, 0};
        for (const auto& s : simplices) {
            const Vec3& p0 = mesh.nodes[nodes[s[0]]];
            Vec3 e[3] = {};
            for (std::size_t k = 1; k < s.size(); ++k)
                for (int d = 0; d < 3; ++d) e[k - 1][d] = mesh.nodes[nodes[s[k]]][d] - p0[d];
            double v = 0;
            if (s.size() == 4) v = std::abs(det3(e[0], e[1], e[2])) / 6;
            if (s.size() == 3) v = std::abs(e[0][0] * e[1][1] - e[0][1] * e[1][0]) / 2;
            if (s.size() == 2) v = std::abs(e[0][0]);
            for (int d = 0; d < 3; ++d) {
                double m = 0;
                for (int k : s) m += mesh.nodes[nodes[k]][d];
                c[d] += v * m / static_cast<double>(s.size());
            }
            vol += v;
        }
        for (double& x : c) x /= vol;
        mesh.cell_volume.push_back(vol);
        mesh.cell_centroid.push_back(c);
    }
};

/// nx*ny*nz boxes on a stretched grid; box h becomes a hexahedron, two prisms, six pyramids around
/// a centre node, or six tetrahedra (h % 4), so every 3D cell type appears.
Mesh mixed_3d(int nx, int ny, int nz) {
    MeshBuilder b(3);
    auto coord = [](int i, double scale) { return scale * (i + 0.1 * i * i); };
    auto id = [&](int i, int j, int k) {
        return static_cast<index_t>(i + (nx + 1) * (j + (ny + 1) * k));
    };
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= ny; ++j)
            for (int i = 0; i <= nx; ++i) b.node({coord(i, 1.0), coord(j, 0.5), coord(k, 0.25)});
    const std::vector<std::vector<int>> kuhn = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                                {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
    int h = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i, ++h) {
                const std::vector<index_t> v = {id(i, j, k),
                                                id(i + 1, j, k),
                                                id(i + 1, j + 1, k),
                                                id(i, j + 1, k),
                                                id(i, j, k + 1),
                                                id(i + 1, j, k + 1),
                                                id(i + 1, j + 1, k + 1),
                                                id(i, j + 1, k + 1)};
                switch (h % 4) {
                    case 0:
                        b.cell(CellType::Hexa, v, kuhn);
                        break;
                    case 1:
                        b.cell(CellType::Prism, {v[0], v[1], v[2], v[4], v[5], v[6]},
                               {{0, 1, 2, 5}, {0, 1, 4, 5}, {0, 3, 4, 5}});
                        b.cell(CellType::Prism, {v[0], v[2], v[3], v[4], v[6], v[7]},
                               {{0, 1, 2, 5}, {0, 1, 4, 5}, {0, 3, 4, 5}});
                        break;
                    case 2: {
                        Vec3 m{0, 0, 0};
                        for (index_t n : v)
                            for (int d = 0; d < 3; ++d) m[d] += b.mesh.nodes[n][d] / 8;
                        const index_t apex = b.node(m);
                        // Box faces seen from inside: each base's normal points to the apex
                        // (positive Gmsh/VTK pyramids).
                        const int faces[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1},
                                                 {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
                        for (const auto& f : faces)
                            b.cell(CellType::Pyramid, {v[f[0]], v[f[1]], v[f[2]], v[f[3]], apex},
                                   {{0, 1, 2, 4}, {0, 2, 3, 4}});
                        break;
                    }
                    default:
                        for (const auto& t : kuhn) {
                            std::vector<index_t> tet = {v[t[0]], v[t[1]], v[t[2]], v[t[3]]};
                            Vec3 e[3];
                            for (int k = 0; k < 3; ++k)
                                for (int d = 0; d < 3; ++d)
                                    e[k][d] = b.mesh.nodes[tet[k + 1]][d] - b.mesh.nodes[tet[0]][d];
                            if (MeshBuilder::det3(e[0], e[1], e[2]) < 0) std::swap(tet[1], tet[2]);
                            b.cell(CellType::Tetra, tet, {{0, 1, 2, 3}});
                        }
                }
            }
    return b.mesh;
}

/// nx*ny rectangles; odd ones split into two triangles.
Mesh mixed_2d(int nx, int ny) {
    MeshBuilder b(2);
    auto id = [&](int i, int j) { return static_cast<index_t>(i + (nx + 1) * j); };
    for (int j = 0; j <= ny; ++j)
        for (int i = 0; i <= nx; ++i) b.node({0.3 * i + 0.01 * i * i, 0.2 * j, 0.0});
    int h = 0;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i, ++h) {
            const index_t a = id(i, j), c = id(i + 1, j), d = id(i + 1, j + 1), e = id(i, j + 1);
            if (h % 2 == 0) {
                b.cell(CellType::Quad, {a, c, d, e}, {{0, 1, 2}, {0, 2, 3}});
            } else {
                b.cell(CellType::Triangle, {a, c, d}, {{0, 1, 2}});
                b.cell(CellType::Triangle, {a, d, e}, {{0, 1, 2}});
            }
        }
    return b.mesh;
}

Mesh line_1d(int n) {
    MeshBuilder b(1);
    for (int i = 0; i <= n; ++i) b.node({0.1 * i * i + i, 0, 0});
    for (int i = 0; i < n; ++i) b.cell(CellType::Segment, {i, i + 1}, {{0, 1}});
    return b.mesh;
}

// ---- partitions and local meshes -------------------------------------------------------------

int block_part(index_t g, index_t n, int p) { return static_cast<int>(g * p / n); }
int scattered_part(index_t g, int p) { return static_cast<int>((g * 7 + g / 5) % p); }

/// The LocalMesh the writer needs: owned global ids ascending (no ghosts unless asked).
LocalMesh local_mesh(const Mesh& global, const std::function<int(index_t)>& part, int me) {
    LocalMesh lm;
    lm.n_global_cells = global.n_cells();
    for (index_t g = 0; g < global.n_cells(); ++g)
        if (part(g) == me) lm.global_cell.push_back(g);
    lm.n_owned = static_cast<index_t>(lm.global_cell.size());
    lm.part = me;
    return lm;
}

// Analytic fields of the centroid, so every decomposition computes identical values.
double rho_of(const Vec3& x) { return 1.0 + x[0] + 2.0 * x[1] + 3.0 * x[2]; }
std::vector<double> u_of(const Vec3& x) {
    return {std::sin(x[0]), std::cos(x[1]), x[0] * x[1] * x[2]};
}
std::vector<double> tau_of(const Vec3& x) {
    return {x[0], x[1], x[2], x[0] * x[1], x[1] * x[2], x[2] * x[0]};
}
std::vector<double> q2_of(const Vec3& x) { return {x[0] - x[1], std::exp(-x[0])}; }

struct FieldSpec {
    const char* name;
    int width;
    std::function<std::vector<double>(const Vec3&)> f;
};
const std::vector<FieldSpec>& field_specs() {
    static const std::vector<FieldSpec> specs = {
        {"rho", 1, [](const Vec3& x) { return std::vector<double>{rho_of(x)}; }},
        {"U", 3, u_of},
        {"stress", 6, tau_of},
        {"q2", 2, q2_of},
    };
    return specs;
}

/// Field data for the local cells `rows` (owned, then ghosts when n_ghost > 0).
std::vector<CellField> local_fields(const Mesh& global, const LocalMesh& lm,
                                    double ghost_value = NAN) {
    std::vector<CellField> out;
    for (const FieldSpec& s : field_specs()) {
        CellField f{s.name, s.width, {}};
        for (index_t l = 0; l < lm.n_owned + lm.n_ghost; ++l) {
            const std::vector<double> v = s.f(global.cell_centroid[lm.global_cell[l]]);
            for (double x : v) f.data.push_back(l < lm.n_owned ? x : ghost_value);
        }
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<double> expected_field(const Mesh& global, const FieldSpec& s) {
    std::vector<double> out;
    for (const Vec3& c : global.cell_centroid)
        for (double x : s.f(c)) out.push_back(x);
    return out;
}

std::vector<index_t> expected_topology(const Mesh& m) {
    const std::map<CellType, index_t> code = {
        {CellType::Segment, 2}, {CellType::Triangle, 4}, {CellType::Quad, 5}, {CellType::Tetra, 6},
        {CellType::Pyramid, 7}, {CellType::Prism, 8},    {CellType::Hexa, 9}};
    std::vector<index_t> t;
    for (index_t c = 0; c < m.n_cells(); ++c) {
        t.push_back(code.at(m.cell_type[c]));
        const index_t a = m.cell_node_offsets[c], b = m.cell_node_offsets[c + 1];
        if (m.cell_type[c] == CellType::Segment) t.push_back(b - a);
        if (m.cell_type[c] == CellType::Prism) {
            // VTK wedge = Gmsh prism with both triangles reversed.
            for (int k : {0, 2, 1, 3, 5, 4}) t.push_back(m.cell_nodes[a + k]);
        } else {
            for (index_t k = a; k < b; ++k) t.push_back(m.cell_nodes[k]);
        }
    }
    return t;
}

std::vector<double> flat(const std::vector<Vec3>& v) {
    std::vector<double> out;
    for (const Vec3& p : v) out.insert(out.end(), p.begin(), p.end());
    return out;
}

const char* kConfig =
    "case: \"cavity <lid> & 'quotes'\"\n"
    "mesh:\n  file: box.msh\n  scale: 1.0e-3\n"
    "gas: {name: argon, omega: 0.81}\n"
    "unicode: \"\xce\xbc = 2.1e-5 Pa s\"\n";

/// Asserts that every dataset of the file holds the values computed from the global mesh.
void expect_file_matches(const std::string& path, const Mesh& m, const std::string& config,
                         long step, double time) {
    const index_t n = m.n_cells();
    std::vector<index_t> iota(n);
    for (index_t i = 0; i < n; ++i) iota[i] = i;
    EXPECT_EQ(ugks::read_index_field(path, "/cells/global_id", MPI_COMM_WORLD), iota);
    EXPECT_EQ(ugks::read_field(path, "/cells/global_id", MPI_COMM_WORLD),
              std::vector<double>(iota.begin(), iota.end()));
    EXPECT_EQ(ugks::read_field(path, "/cells/centroid", MPI_COMM_WORLD), flat(m.cell_centroid));
    EXPECT_EQ(ugks::read_field(path, "/cells/volume", MPI_COMM_WORLD), m.cell_volume);
    EXPECT_EQ(ugks::read_field(path, "/mesh/nodes", MPI_COMM_WORLD), flat(m.nodes));
    EXPECT_EQ(ugks::read_index_field(path, "/mesh/topology", MPI_COMM_WORLD), expected_topology(m));
    for (const FieldSpec& s : field_specs()) {
        EXPECT_EQ(ugks::read_field(path, std::string("/fields/") + s.name, MPI_COMM_WORLD),
                  expected_field(m, s))
            << s.name;
        const std::vector<index_t> dims =
            ugks::read_dataset_dims(path, std::string("/fields/") + s.name);
        const std::vector<index_t> want =
            s.width == 1 ? std::vector<index_t>{n} : std::vector<index_t>{n, s.width};
        EXPECT_EQ(dims, want) << s.name;
    }
    EXPECT_EQ(ugks::read_dataset_dims(path, "/cells/centroid"), (std::vector<index_t>{n, 3}));
    EXPECT_EQ(ugks::read_dataset_dims(path, "/cells/volume"), (std::vector<index_t>{n}));
    EXPECT_EQ(ugks::read_dataset_dims(path, "/mesh/nodes"), (std::vector<index_t>{m.n_nodes(), 3}));
    EXPECT_EQ(ugks::read_index_attribute(path, "cell_count", "/mesh/topology"), n);
    EXPECT_EQ(ugks::read_string_attribute(path, "config"), config);
    EXPECT_EQ(ugks::read_index_attribute(path, "step"), step);
    EXPECT_EQ(ugks::read_double_attribute(path, "time"), time);
    EXPECT_EQ(ugks::read_string_attribute(path, "ugks_version"),
              std::string(ugks::version_string) + " (" + ugks::git_commit + ")");
}

std::set<std::string> dir_listing(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        names.insert(e.path().filename().string());
    return names;
}

// ---- a minimal XML reader (well-formedness + elements with attributes and text) ----------------

struct XmlElement {
    std::string name;
    std::map<std::string, std::string> attrs;
    std::string text;
    std::vector<XmlElement> children;
};

std::string xml_unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') {
            out += s[i];
            continue;
        }
        const std::size_t semi = s.find(';', i);
        if (semi == std::string::npos) throw std::runtime_error("bad entity");
        const std::string ent = s.substr(i + 1, semi - i - 1);
        const std::map<std::string, char> known = {
            {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
        if (!known.count(ent)) throw std::runtime_error("unknown entity &" + ent + ";");
        out += known.at(ent);
        i = semi;
    }
    return out;
}

/// Parses the document element; throws std::runtime_error on malformed XML (unbalanced or
/// mismatched tags, unquoted attributes, stray '<', text outside the root).
XmlElement parse_xml(const std::string& doc) {
    std::size_t i = 0;
    auto skip_ws = [&] {
        while (i < doc.size() && std::isspace(static_cast<unsigned char>(doc[i]))) ++i;
    };
    auto fail = [&](const std::string& what) {
        throw std::runtime_error("XML error at offset " + std::to_string(i) + ": " + what);
    };
    // Prolog: <?xml ...?> and <!DOCTYPE ...>
    skip_ws();
    while (doc.compare(i, 2, "<?") == 0 || doc.compare(i, 2, "<!") == 0) {
        const std::size_t e = doc.find('>', i);
        if (e == std::string::npos) fail("unterminated prolog");
        i = e + 1;
        skip_ws();
    }
    std::function<XmlElement()> element = [&]() -> XmlElement {
        if (doc[i] != '<') fail("expected '<'");
        ++i;
        XmlElement el;
        while (i < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[i])) ||
                                  doc[i] == ':' || doc[i] == '_' || doc[i] == '-'))
            el.name += doc[i++];
        if (el.name.empty()) fail("empty tag name");
        for (;;) {
            skip_ws();
            if (doc.compare(i, 2, "/>") == 0) {
                i += 2;
                return el;
            }
            if (doc[i] == '>') {
                ++i;
                break;
            }
            std::string key;
            while (i < doc.size() && doc[i] != '=' &&
                   !std::isspace(static_cast<unsigned char>(doc[i])))
                key += doc[i++];
            skip_ws();
            if (doc[i] != '=') fail("attribute without '='");
            ++i;
            skip_ws();
            if (doc[i] != '"' && doc[i] != '\'') fail("unquoted attribute value");
            const char q = doc[i++];
            const std::size_t e = doc.find(q, i);
            if (e == std::string::npos) fail("unterminated attribute value");
            const std::string raw = doc.substr(i, e - i);
            if (raw.find('<') != std::string::npos) fail("'<' in attribute value");
            if (el.attrs.count(key)) fail("duplicate attribute " + key);
            el.attrs[key] = xml_unescape(raw);
            i = e + 1;
        }
        for (;;) {
            if (i >= doc.size()) fail("unterminated element " + el.name);
            if (doc.compare(i, 2, "</") == 0) {
                i += 2;
                const std::size_t e = doc.find('>', i);
                if (e == std::string::npos || doc.substr(i, e - i) != el.name)
                    fail("mismatched closing tag for " + el.name);
                i = e + 1;
                return el;
            }
            if (doc[i] == '<') {
                el.children.push_back(element());
            } else {
                const std::size_t e = doc.find('<', i);
                if (e == std::string::npos) fail("unterminated text");
                el.text += xml_unescape(doc.substr(i, e - i));
                i = e;
            }
        }
    };
    XmlElement root = element();
    skip_ws();
    if (i != doc.size()) fail("content after the root element");
    return root;
}

void collect(const XmlElement& el, const std::string& name, std::vector<const XmlElement*>& out) {
    if (el.name == name) out.push_back(&el);
    for (const XmlElement& c : el.children) collect(c, name, out);
}

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

/// H5Lexists along every component of an absolute path.
bool h5_path_exists(const std::string& file, const std::string& object) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return false;
    bool ok = true;
    std::string prefix;
    std::istringstream parts(object.substr(1));
    for (std::string part; ok && std::getline(parts, part, '/');) {
        prefix += "/" + part;
        ok = H5Lexists(f, prefix.c_str(), H5P_DEFAULT) > 0;
    }
    H5Fclose(f);
    return ok;
}

// ---- tests -----------------------------------------------------------------------------------

class FieldsIo : public ::testing::Test {
protected:
    void SetUp() override { m_dir = ugks::test::temp_dir("fields_io"); }
    void TearDown() override {
        // Keep the files for inspection with UGKS_KEEP_TEST_FILES=1.
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank() == 0 && !std::getenv("UGKS_KEEP_TEST_FILES")) {
            std::error_code ec;
            std::filesystem::remove_all(m_dir, ec);
        }
    }
    std::string m_dir;
};

TEST_F(FieldsIo, MixedMeshRoundTripsInGlobalOrderFromScatteredOwnership) {
    const Mesh m = mixed_3d(4, 3, 2);  // 24 boxes -> 6 hexa, 12 prisms, 36 pyramids, 36 tetra
    ASSERT_EQ(m.n_cells(), 90);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/fields_000042.h5";
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), kConfig, 42, 0.125);
    expect_file_matches(path, m, kConfig, 42, 0.125);
    // The topology holds every 3D XDMF code, each once per cell of that type.
    const std::vector<index_t> topo =
        ugks::read_index_field(path, "/mesh/topology", MPI_COMM_WORLD);
    EXPECT_EQ(topo.size(), 6u * 9 + 12u * 7 + 36u * 6 + 36u * 5);
    EXPECT_EQ(dir_listing(m_dir),
              (std::set<std::string>{"fields_000042.h5", "fields_000042.xdmf"}));
}

TEST_F(FieldsIo, OutputIsIdenticalForEveryDecomposition) {
    const Mesh m = mixed_3d(3, 2, 2);
    const index_t n = m.n_cells();
    const int p = world_size(), me = world_rank();
    const std::vector<std::pair<std::string, std::function<int(index_t)>>> partitions = {
        {"blocks", [&](index_t g) { return block_part(g, n, p); }},
        {"scattered", [&](index_t g) { return scattered_part(g, p); }},
        {"reversed", [&](index_t g) { return p - 1 - block_part(g, n, p); }},
        {"all_on_last", [&](index_t) { return p - 1; }},
    };
    for (const auto& [name, part] : partitions) {
        const LocalMesh lm = local_mesh(m, part, me);
        ugks::write_fields(m_dir + "/" + name + ".h5", MPI_COMM_WORLD, m, lm, local_fields(m, lm),
                           kConfig, 7, 1.5);
    }
    // And one file written by rank 0 alone (a one-rank communicator) as the reference.
    MPI_Comm solo;
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
    if (me == 0) {
        const LocalMesh lm = local_mesh(
            m, [](index_t) { return 0; }, 0);
        ugks::write_fields(m_dir + "/serial.h5", solo, m, lm, local_fields(m, lm), kConfig, 7, 1.5);
        MPI_Comm_free(&solo);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const std::string ref = m_dir + "/serial.h5";
    std::vector<std::string> datasets = {"/cells/centroid", "/cells/volume", "/cells/global_id",
                                         "/mesh/nodes", "/mesh/topology"};
    for (const FieldSpec& s : field_specs()) datasets.push_back(std::string("/fields/") + s.name);
    for (const auto& [name, part] : partitions) {
        const std::string path = m_dir + "/" + name + ".h5";
        for (const std::string& d : datasets) {
            EXPECT_EQ(ugks::read_field(path, d, MPI_COMM_WORLD),
                      ugks::read_field(ref, d, MPI_COMM_WORLD))
                << name << " " << d;
            EXPECT_EQ(ugks::read_dataset_dims(path, d), ugks::read_dataset_dims(ref, d))
                << name << " " << d;
        }
        expect_file_matches(path, m, kConfig, 7, 1.5);
        // Apart from the file name in the DataItems, the XDMF is the same too.
        std::ifstream a(ugks::xdmf_path_for(path)), b(ugks::xdmf_path_for(ref));
        std::string ta((std::istreambuf_iterator<char>(a)), {}),
            tb((std::istreambuf_iterator<char>(b)), {});
        for (std::size_t pos; (pos = ta.find(name + ".h5:")) != std::string::npos;)
            ta.replace(pos, name.size(), "serial");
        EXPECT_EQ(ta, tb) << name;
    }
}

TEST_F(FieldsIo, GhostRowsOfFieldDataAreIgnored) {
    const Mesh m = mixed_2d(5, 4);
    const int p = world_size(), me = world_rank();
    LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    // Two fake ghosts (cells owned elsewhere or, with one rank, anything) whose rows hold NaN.
    lm.global_cell.push_back(0);
    lm.global_cell.push_back(1);
    lm.n_ghost = 2;
    const std::vector<CellField> fields = local_fields(m, lm, NAN);
    ASSERT_EQ(fields[1].data.size(), static_cast<std::size_t>(3 * (lm.n_owned + 2)));
    const std::string path = m_dir + "/ghosts.h5";
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, fields, kConfig, 3, 0.0);
    expect_file_matches(path, m, kConfig, 3, 0.0);
}

TEST_F(FieldsIo, TwoAndOneDimensionalTopologies) {
    const int p = world_size(), me = world_rank();
    const Mesh m2 = mixed_2d(4, 3);  // 6 quads, 12 triangles
    const LocalMesh l2 = local_mesh(
        m2, [&](index_t g) { return scattered_part(g, p); }, me);
    ugks::write_fields(m_dir + "/two.h5", MPI_COMM_WORLD, m2, l2, local_fields(m2, l2), "dim: 2\n",
                       1, 0.5);
    const std::vector<index_t> t2 =
        ugks::read_index_field(m_dir + "/two.h5", "/mesh/topology", MPI_COMM_WORLD);
    // First cell: quad (5) on nodes 0 1 6 5; second box split into triangles (4) 1 2 7 and 1 7 6.
    ASSERT_GE(t2.size(), 13u);
    EXPECT_EQ(std::vector<index_t>(t2.begin(), t2.begin() + 13),
              (std::vector<index_t>{5, 0, 1, 6, 5, 4, 1, 2, 7, 4, 1, 7, 6}));
    EXPECT_EQ(t2.size(), 6u * 5 + 12u * 4);
    expect_file_matches(m_dir + "/two.h5", m2, "dim: 2\n", 1, 0.5);

    const Mesh m1 = line_1d(9);
    const index_t n1 = m1.n_cells();
    const LocalMesh l1 = local_mesh(
        m1, [&](index_t g) { return block_part(g, n1, p); }, me);
    ugks::write_fields(m_dir + "/one.h5", MPI_COMM_WORLD, m1, l1, local_fields(m1, l1), "dim: 1\n",
                       2, 0.25);
    const std::vector<index_t> t1 =
        ugks::read_index_field(m_dir + "/one.h5", "/mesh/topology", MPI_COMM_WORLD);
    // Polyline (2) with its node count (2), then the two nodes, per segment.
    std::vector<index_t> expected;
    for (index_t c = 0; c < 9; ++c) expected.insert(expected.end(), {2, 2, c, c + 1});
    EXPECT_EQ(t1, expected);
    expect_file_matches(m_dir + "/one.h5", m1, "dim: 1\n", 2, 0.25);
}

TEST_F(FieldsIo, MoreRanksThanCells) {
    const Mesh m = line_1d(2);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return static_cast<int>((g + 1) % p); }, me);
    const std::string path = m_dir + "/tiny.h5";
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), kConfig, 0, 0.0);
    expect_file_matches(path, m, kConfig, 0, 0.0);
}

TEST_F(FieldsIo, XdmfIsWellFormedAndReferencesExistingDatasets) {
    const Mesh m = mixed_3d(2, 2, 2);
    const index_t n = m.n_cells();
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/fields_final.h5";
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), kConfig, 99, 2.5);
    ASSERT_EQ(ugks::xdmf_path_for(path), m_dir + "/fields_final.xdmf");
    std::ifstream in(ugks::xdmf_path_for(path));
    ASSERT_TRUE(in.good());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    XmlElement root;
    ASSERT_NO_THROW(root = parse_xml(text)) << text;
    EXPECT_EQ(root.name, "Xdmf");
    EXPECT_EQ(root.attrs["Version"], "3.0");
    ASSERT_EQ(root.children.size(), 1u);
    ASSERT_EQ(root.children[0].name, "Domain");
    ASSERT_EQ(root.children[0].children.size(), 1u);
    const XmlElement& grid = root.children[0].children[0];
    EXPECT_EQ(grid.name, "Grid");
    EXPECT_EQ(grid.attrs.at("GridType"), "Uniform");

    std::vector<const XmlElement*> topo, geom, attrs, items, times;
    collect(grid, "Topology", topo);
    collect(grid, "Geometry", geom);
    collect(grid, "Attribute", attrs);
    collect(grid, "DataItem", items);
    collect(grid, "Time", times);
    ASSERT_EQ(topo.size(), 1u);
    EXPECT_EQ(topo[0]->attrs.at("TopologyType"), "Mixed");
    EXPECT_EQ(topo[0]->attrs.at("NumberOfElements"), std::to_string(n));
    ASSERT_EQ(geom.size(), 1u);
    EXPECT_EQ(geom[0]->attrs.at("GeometryType"), "XYZ");
    // No <Time> in a single snapshot (meshio's plain reader refuses it; fields.xdmf has the times).
    EXPECT_EQ(times.size(), 0u);

    // Every DataItem: HDF format, 8-byte numbers, a relative "file.h5:/dataset" reference to an
    // existing dataset whose shape is the declared Dimensions.
    ASSERT_EQ(items.size(), 2u + field_specs().size() + 2u);
    for (const XmlElement* item : items) {
        EXPECT_EQ(item->attrs.at("Format"), "HDF");
        EXPECT_EQ(item->attrs.at("Precision"), "8");
        const std::string ref = trim(item->text);
        const std::size_t colon = ref.find(':');
        ASSERT_NE(colon, std::string::npos) << ref;
        EXPECT_EQ(ref.substr(0, colon), "fields_final.h5");
        const std::string dataset = ref.substr(colon + 1);
        EXPECT_TRUE(h5_path_exists(path, dataset)) << dataset;
        std::ostringstream dims;
        const std::vector<index_t> shape = ugks::read_dataset_dims(path, dataset);
        for (std::size_t k = 0; k < shape.size(); ++k) dims << (k ? " " : "") << shape[k];
        EXPECT_EQ(item->attrs.at("Dimensions"), dims.str()) << dataset;
        const bool integer = dataset == "/mesh/topology" || dataset == "/cells/global_id";
        EXPECT_EQ(item->attrs.at("NumberType"), integer ? "Int" : "Float") << dataset;
    }
    // The topology length is the one of the array; cell data have n rows.
    EXPECT_EQ(topo[0]->children.at(0).attrs.at("Dimensions"),
              std::to_string(expected_topology(m).size()));
    EXPECT_EQ(geom[0]->children.at(0).attrs.at("Dimensions"), std::to_string(m.n_nodes()) + " 3");

    std::map<std::string, std::pair<std::string, std::string>> found;  // name -> (type, dims)
    for (const XmlElement* a : attrs) {
        EXPECT_EQ(a->attrs.at("Center"), "Cell");
        found[a->attrs.at("Name")] = {a->attrs.at("AttributeType"),
                                      a->children.at(0).attrs.at("Dimensions")};
    }
    const std::string ns = std::to_string(n);
    const std::map<std::string, std::pair<std::string, std::string>> expected = {
        {"rho", {"Scalar", ns}},
        {"U", {"Vector", ns + " 3"}},
        {"stress", {"Tensor6", ns + " 6"}},
        {"q2", {"Matrix", ns + " 2"}},
        {"volume", {"Scalar", ns}},
        {"global_id", {"Scalar", ns}}};
    EXPECT_EQ(found, expected);
}

TEST_F(FieldsIo, XmlCheckerRejectsMalformedDocuments) {
    // The checker used above must itself catch broken XDMF.
    EXPECT_NO_THROW(parse_xml("<?xml version=\"1.0\"?><A x=\"1\"><B/>t</A>"));
    EXPECT_THROW(parse_xml("<A><B></A></B>"), std::runtime_error);
    EXPECT_THROW(parse_xml("<A x=1></A>"), std::runtime_error);
    EXPECT_THROW(parse_xml("<A>a & b</A>"), std::runtime_error);
    EXPECT_THROW(parse_xml("<A></A><B/>"), std::runtime_error);
}

TEST_F(FieldsIo, RewritingReplacesTheFileAndLeavesNoTemporary) {
    const Mesh m = mixed_2d(3, 3);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/fields_final.h5";
    std::vector<CellField> fields = local_fields(m, lm);
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, fields, "first: 1\n", 10, 1.0);
    for (double& x : fields[0].data) x *= 2;
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, fields, "second: 2\n", 20, 2.0);
    std::vector<double> rho2 = expected_field(m, field_specs()[0]);
    for (double& x : rho2) x *= 2;
    EXPECT_EQ(ugks::read_field(path, "/fields/rho", MPI_COMM_WORLD), rho2);
    EXPECT_EQ(ugks::read_string_attribute(path, "config"), "second: 2\n");
    EXPECT_EQ(ugks::read_index_attribute(path, "step"), 20);
    EXPECT_EQ(ugks::read_double_attribute(path, "time"), 2.0);
    EXPECT_EQ(dir_listing(m_dir), (std::set<std::string>{"fields_final.h5", "fields_final.xdmf"}));
}

TEST_F(FieldsIo, LongConfigAttributeRoundTrips) {
    // Over the 64 KiB object-header message limit: needs dense attribute storage.
    std::string config = "# resolved configuration\n";
    for (int i = 0; config.size() < 200000; ++i)
        config += "key_" + std::to_string(i) + ": " + std::to_string(i * 0.5) + "\n";
    const Mesh m = line_1d(5);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/long.h5";
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), config, 5, 0.5);
    EXPECT_EQ(ugks::read_string_attribute(path, "config"), config);
    expect_file_matches(path, m, config, 5, 0.5);
}

TEST_F(FieldsIo, MissingDirectoryIsInputErrorOnEveryRank) {
    const Mesh m = line_1d(4);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/no_such_dir/fields_000001.h5";
    int threw = 0;
    try {
        ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), kConfig, 1, 0.0);
    } catch (const ugks::InputError& e) {
        threw = 1;
        const std::string msg = e.what();
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        EXPECT_NE(msg.find("no_such_dir' does not exist"), std::string::npos) << msg;
    }
    int all = 0;
    MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, p);
    EXPECT_TRUE(dir_listing(m_dir).empty());
}

TEST_F(FieldsIo, OutputPathThatIsADirectoryIsInputErrorOnEveryRank) {
    // The .tmp file can be created but not renamed onto a directory: reported, no .tmp left.
    const Mesh m = line_1d(4);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/taken.h5";
    if (me == 0) std::filesystem::create_directory(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int threw = 0;
    try {
        ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), kConfig, 1, 0.0);
    } catch (const ugks::InputError& e) {
        threw = 1;
        EXPECT_NE(std::string(e.what()).find("output file '" + path + "'"), std::string::npos)
            << e.what();
    }
    int all = 0;
    MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, p);
    EXPECT_EQ(dir_listing(m_dir), (std::set<std::string>{"taken.h5"}));
}

TEST_F(FieldsIo, InvalidFieldNamesAreInputErrors) {
    const Mesh m = line_1d(3);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/bad.h5";
    std::vector<CellField> fields = local_fields(m, lm);
    fields[1].name = "a/b";
    try {
        ugks::write_fields(path, MPI_COMM_WORLD, m, lm, fields, kConfig, 1, 0.0);
        ADD_FAILURE() << "no InputError for field name 'a/b'";
    } catch (const ugks::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "output file '" + path +
                      "': invalid field name 'a/b' (must be non-empty, without '/')");
    }
    fields[1].name = "rho";
    try {
        ugks::write_fields(path, MPI_COMM_WORLD, m, lm, fields, kConfig, 1, 0.0);
        ADD_FAILURE() << "no InputError for a duplicate field";
    } catch (const ugks::InputError& e) {
        EXPECT_EQ(std::string(e.what()), "output file '" + path + "': field 'rho' given twice");
    }
    EXPECT_TRUE(dir_listing(m_dir).empty());
}

TEST_F(FieldsIo, ReadingMissingDatasetOrFileIsInputErrorOnEveryRank) {
    const Mesh m = line_1d(3);
    const int p = world_size(), me = world_rank();
    const LocalMesh lm = local_mesh(
        m, [&](index_t g) { return scattered_part(g, p); }, me);
    const std::string path = m_dir + "/f.h5";
    ugks::write_fields(path, MPI_COMM_WORLD, m, lm, local_fields(m, lm), kConfig, 1, 0.0);
    int threw = 0;
    try {
        ugks::read_field(path, "/fields/T", MPI_COMM_WORLD);
    } catch (const ugks::InputError& e) {
        ++threw;
        EXPECT_EQ(std::string(e.what()), "HDF5 file '" + path + "': no dataset '/fields/T'");
    }
    try {
        ugks::read_field(m_dir + "/missing.h5", "/fields/rho", MPI_COMM_WORLD);
    } catch (const ugks::InputError& e) {
        ++threw;
        EXPECT_EQ(std::string(e.what()), "HDF5 file '" + m_dir + "/missing.h5' does not exist");
    }
    EXPECT_THROW(ugks::read_string_attribute(path, "nope"), ugks::InputError);
    int all = 0;
    MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, 2 * p);
}

TEST_F(FieldsIo, BoxMeshWithMetisPartitionAndGhosts) {
    // The production path: make_box, METIS partition, build_local_mesh (owned + ghost cells).
    const int p = world_size(), me = world_rank();
    for (const char* type : {"prism", "pyramid"}) {
        ugks::BoxSpec spec;
        spec.dim = 3;
        spec.n = {4, 3, 2};
        spec.hi = {2.0, 1.5, 1.0};
        spec.stretch = {1.2, 1.0, 0.9};
        spec.cell_type = type;
        const Mesh m = ugks::make_box(spec);
        const std::vector<int> part = ugks::partition_cells(m, p, MPI_COMM_WORLD);
        const LocalMesh lm = ugks::build_local_mesh(m, part, me);
        ASSERT_EQ(lm.n_owned + lm.n_ghost, static_cast<index_t>(lm.global_cell.size()));
        if (p > 1) EXPECT_GT(lm.n_ghost, 0);
        // Ghost rows carry real values here, as a solver's arrays would.
        const std::vector<CellField> fields = local_fields(m, lm, 0.0);
        const std::string path = m_dir + "/box_" + type + ".h5";
        ugks::write_fields(path, MPI_COMM_WORLD, m, lm, fields, kConfig, 11, 0.75);
        expect_file_matches(path, m, kConfig, 11, 0.75);
    }
}

TEST(FieldsIoPaths, XdmfCompanionName) {
    EXPECT_EQ(ugks::xdmf_path_for("out/fields_000010.h5"), "out/fields_000010.xdmf");
    EXPECT_EQ(ugks::xdmf_path_for("fields"), "fields.xdmf");
    EXPECT_EQ(ugks::xdmf_path_for(".h5"), ".h5.xdmf");
}

}  // namespace

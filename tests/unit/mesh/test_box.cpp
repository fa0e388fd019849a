// Built-in box generator (every cell type, stretched and uniform) and the `mesh` section of the
// case.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks {
namespace {

using test::input_error_of;

struct BoxCase {
    int dim;
    std::string type;
    std::array<index_t, 3> n;
    std::array<double, 3> stretch;
    bool symmetric;
};

std::string case_name(const BoxCase& c) {
    std::string s = std::to_string(c.dim) + "d_" + c.type;
    for (int d = 0; d < c.dim; ++d) s += "_" + std::to_string(c.n[d]);
    if (c.stretch[0] != 1 || c.stretch[1] != 1 || c.stretch[2] != 1)
        s += c.symmetric ? "_sym" : "_str";
    return s;
}

void PrintTo(const BoxCase& c, std::ostream* os) { *os << case_name(c); }

// Cell and face counts of the box for a given cell type, with N hexes and F_hex hex faces.
void expected_counts(const BoxCase& c, index_t& cells, index_t& faces, index_t& nodes) {
    const index_t nx = c.n[0], ny = c.n[1], nz = c.n[2];
    if (c.dim == 1) {
        cells = nx, faces = nx + 1, nodes = nx + 1;
        return;
    }
    if (c.dim == 2) {
        const index_t edges = (nx + 1) * ny + nx * (ny + 1);
        nodes = (nx + 1) * (ny + 1);
        cells = c.type == "quad" ? nx * ny : 2 * nx * ny;
        faces = c.type == "quad" ? edges : edges + nx * ny;
        return;
    }
    const index_t n = nx * ny * nz;
    const index_t fx = (nx + 1) * ny * nz, fy = nx * (ny + 1) * nz, fz = nx * ny * (nz + 1);
    nodes = (nx + 1) * (ny + 1) * (nz + 1);
    if (c.type == "hexa") cells = n, faces = fx + fy + fz;
    if (c.type == "tetra") cells = 6 * n, faces = 2 * (fx + fy + fz) + 6 * n;
    if (c.type == "prism") cells = 2 * n, faces = fx + fy + 2 * fz + n;
    if (c.type == "pyramid") cells = 6 * n, faces = fx + fy + fz + 12 * n, nodes += n;
}

class BoxTest : public ::testing::TestWithParam<BoxCase> {};

TEST_P(BoxTest, GeometryAndTopology) {
    const BoxCase& bc = GetParam();
    BoxSpec spec;
    spec.dim = bc.dim;
    spec.n = bc.n;
    spec.lo = {-1.0, 0.5, 2.0};
    spec.hi = {2.0, 1.5, 4.5};
    spec.stretch = bc.stretch;
    spec.stretch_symmetric = bc.symmetric;
    spec.cell_type = bc.type;
    const Mesh m = make_box(spec);
    ASSERT_NO_THROW(validate_mesh(m, "box"));
    EXPECT_EQ(m.dim, bc.dim);

    index_t cells = 0, faces = 0, nodes = 0;
    expected_counts(bc, cells, faces, nodes);
    EXPECT_EQ(m.n_cells(), cells);
    EXPECT_EQ(m.n_faces(), faces);
    EXPECT_EQ(m.n_nodes(), nodes);
    for (index_t c = 0; c < m.n_cells(); ++c)
        ASSERT_EQ(std::string(cell_type_name(m.cell_type[c])), bc.type);

    // Extents and patch areas; unused axes have extent 1 (unit depth) and centre 0.
    double L[3], centre[3];
    for (int d = 0; d < 3; ++d) {
        L[d] = d < bc.dim ? spec.hi[d] - spec.lo[d] : 1.0;
        centre[d] = d < bc.dim ? 0.5 * (spec.hi[d] + spec.lo[d]) : 0.0;
    }
    const double box_volume = L[0] * L[1] * L[2];

    // Volume and volume-weighted centroid of the whole mesh.
    double vol = 0;
    Vec3 moment{0, 0, 0};
    for (index_t c = 0; c < m.n_cells(); ++c) {
        ASSERT_GT(m.cell_volume[c], 0);
        vol += m.cell_volume[c];
        for (int d = 0; d < 3; ++d) moment[d] += m.cell_volume[c] * m.cell_centroid[c][d];
    }
    EXPECT_NEAR(vol, box_volume, 1e-12 * box_volume);
    for (int d = 0; d < 3; ++d)
        EXPECT_NEAR(moment[d] / vol, centre[d], 1e-12 * (1 + std::abs(centre[d])));

    // Each cell closed with outward normals (independent of validate_mesh): sum sigma S n = 0 and
    // sum sigma S n.x_f = dim * V (divergence theorem for planar faces).
    for (index_t c = 0; c < m.n_cells(); ++c) {
        Vec3 s{0, 0, 0};
        double flux_x = 0;
        for (index_t k = m.cell_face_offsets[c]; k < m.cell_face_offsets[c + 1]; ++k) {
            const index_t f = m.cell_faces[k];
            ASSERT_TRUE(m.face_owner[f] == c || m.face_neighbour[f] == c);
            const double sigma = m.face_owner[f] == c ? 1.0 : -1.0;
            double ndx = 0;
            for (int d = 0; d < 3; ++d) {
                s[d] += sigma * m.face_area[f] * m.face_normal[f][d];
                ndx += m.face_normal[f][d] * (m.face_centroid[f][d] - m.cell_centroid[c][d]);
                flux_x += sigma * m.face_area[f] * m.face_normal[f][d] * m.face_centroid[f][d];
            }
            ASSERT_GT(sigma * ndx, 0) << "cell " << c << " face " << f;
        }
        for (int d = 0; d < 3; ++d) ASSERT_NEAR(s[d], 0, 1e-13);
        ASSERT_NEAR(flux_x, bc.dim * m.cell_volume[c], 1e-12 * std::max(1.0, m.cell_volume[c]));
    }

    // Faces: interior ones have two distinct cells and no patch; boundary ones lie on their patch's
    // plane with the outward axis normal. Per-patch area = the box side.
    std::vector<double> patch_area(2 * bc.dim, 0.0);
    ASSERT_EQ(static_cast<int>(m.patch_names.size()), 2 * bc.dim);
    const char* names[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    for (int p = 0; p < 2 * bc.dim; ++p) EXPECT_EQ(m.patch_names[p], names[p]);
    index_t n_cell_faces = 0;
    for (index_t f = 0; f < m.n_faces(); ++f) {
        n_cell_faces += m.face_neighbour[f] >= 0 ? 2 : 1;
        if (m.face_neighbour[f] >= 0) {
            ASSERT_NE(m.face_owner[f], m.face_neighbour[f]);
            ASSERT_LT(m.face_owner[f], m.face_neighbour[f]);
            ASSERT_EQ(m.face_patch[f], -1);
            continue;
        }
        const int p = m.face_patch[f];
        ASSERT_GE(p, 0);
        const int axis = p / 2;
        const double side = p % 2 == 0 ? -1.0 : 1.0;
        ASSERT_NEAR(m.face_centroid[f][axis], p % 2 == 0 ? spec.lo[axis] : spec.hi[axis], 1e-14);
        for (int d = 0; d < 3; ++d) ASSERT_NEAR(m.face_normal[f][d], d == axis ? side : 0.0, 1e-14);
        patch_area[p] += m.face_area[f];
    }
    EXPECT_EQ(n_cell_faces, static_cast<index_t>(m.cell_faces.size()));
    for (int p = 0; p < 2 * bc.dim; ++p) {
        const int axis = p / 2;
        const double area = box_volume / L[axis];
        EXPECT_NEAR(patch_area[p], area, 1e-12 * area) << m.patch_names[p];
    }
}

const std::array<double, 3> kUniform{1, 1, 1};
const std::array<double, 3> kStretch{1.3, 0.8, 1.2};
INSTANTIATE_TEST_SUITE_P(AllTypes, BoxTest,
                         ::testing::Values(BoxCase{1, "segment", {7, 1, 1}, kUniform, false},
                                           BoxCase{1, "segment", {7, 1, 1}, kStretch, true},
                                           BoxCase{2, "quad", {4, 3, 1}, kUniform, false},
                                           BoxCase{2, "quad", {5, 4, 1}, kStretch, false},
                                           BoxCase{2, "triangle", {4, 3, 1}, kUniform, false},
                                           BoxCase{2, "triangle", {5, 4, 1}, kStretch, true},
                                           BoxCase{3, "hexa", {3, 2, 4}, kUniform, false},
                                           BoxCase{3, "hexa", {4, 3, 3}, kStretch, true},
                                           BoxCase{3, "tetra", {3, 2, 2}, kUniform, false},
                                           BoxCase{3, "tetra", {3, 3, 2}, kStretch, false},
                                           BoxCase{3, "prism", {3, 2, 2}, kUniform, false},
                                           BoxCase{3, "prism", {2, 3, 3}, kStretch, true},
                                           BoxCase{3, "pyramid", {2, 2, 3}, kUniform, false},
                                           BoxCase{3, "pyramid", {3, 2, 2}, kStretch, false}),
                         [](const ::testing::TestParamInfo<BoxCase>& info) {
                             return case_name(info.param);
                         });

TEST(Box, SegmentLengthsFollowTheStretchRatio) {
    BoxSpec spec;
    spec.dim = 1;
    spec.n = {5, 1, 1};
    spec.lo = {0, 0, 0};
    spec.hi = {3.1, 0, 0};
    spec.stretch = {2, 1, 1};
    const Mesh m = make_box(spec);
    ASSERT_EQ(m.n_cells(), 5);
    // sizes h0 * 2^i with h0 (1 + 2 + 4 + 8 + 16) = 3.1 -> h0 = 0.1
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(m.cell_volume[i], 0.1 * std::pow(2.0, i), 1e-14);
    for (const Vec3& x : m.nodes) {
        EXPECT_EQ(x[1], 0.0);
        EXPECT_EQ(x[2], 0.0);
    }
    EXPECT_EQ(m.nodes.front()[0], 0.0);
    EXPECT_EQ(m.nodes.back()[0], 3.1);
}

TEST(Box, SymmetricStretchMirrorsAboutTheMiddle) {
    BoxSpec spec;
    spec.dim = 1;
    spec.n = {5, 1, 1};
    spec.hi = {1.7, 1, 1};
    spec.stretch = {2, 1, 1};
    spec.stretch_symmetric = true;
    const Mesh m = make_box(spec);
    // sizes h (1, 2, 4, 2, 1), total 10 h = 1.7: the ends are refined
    const double w[] = {1, 2, 4, 2, 1};
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(m.cell_volume[i], 0.17 * w[i], 1e-14);
    spec.n = {4, 1, 1};  // even count: (1, 2, 2, 1)
    const Mesh e = make_box(spec);
    const double we[] = {1, 2, 2, 1};
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(e.cell_volume[i], 1.7 / 6 * we[i], 1e-14);
}

TEST(Box, QuadCellsAreTheTensorProductOfAxisSpacings) {
    BoxSpec spec;
    spec.dim = 2;
    spec.n = {3, 2, 1};
    spec.hi = {7, 3, 1};
    spec.stretch = {2, 0.5, 1};
    const Mesh m = make_box(spec);
    const double hx[] = {1, 2, 4}, hy[] = {2, 1};  // 7 = 1+2+4, 3 = 2+1
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(m.cell_volume[i + 3 * j], hx[i] * hy[j], 1e-13);
    for (const Vec3& x : m.nodes) EXPECT_EQ(x[2], 0.0);
}

TEST(Box, DefaultCellTypesAndBadSpecs) {
    BoxSpec spec;
    spec.dim = 3;
    spec.n = {2, 2, 2};
    EXPECT_EQ(make_box(spec).cell_type[0], CellType::Hexa);
    spec.dim = 2;
    EXPECT_EQ(make_box(spec).cell_type[0], CellType::Quad);
    spec.cell_type = "tetra";
    EXPECT_NE(
        input_error_of([&] { make_box(spec); }).find("cell_type 'tetra' is not available in 2D"),
        std::string::npos);
    spec.cell_type = "";
    spec.n[1] = 0;
    EXPECT_NE(input_error_of([&] { make_box(spec); }).find("cells[1] = 0 must be >= 1"),
              std::string::npos);
    spec.n[1] = 2;
    spec.hi[0] = spec.lo[0];
    EXPECT_NE(
        input_error_of([&] { make_box(spec); }).find("hi[0] = 0 must be greater than lo[0] = 0"),
        std::string::npos);
}

// ---- the `mesh` section of the case file ----

TEST(MeshConfigParse, BoxDefaults) {
    Config cfg = Config::from_string("mesh:\n  box:\n    cells: [4, 3]\n", "case.yaml");
    const MeshConfig mc = parse_mesh_config(cfg);
    EXPECT_EQ(mc.source, "box");
    EXPECT_EQ(mc.scale, 1.0);
    EXPECT_EQ(mc.box.dim, 2);
    EXPECT_EQ(mc.box.n[0], 4);
    EXPECT_EQ(mc.box.n[1], 3);
    EXPECT_EQ(mc.box.lo, (Vec3{0, 0, 0}));
    EXPECT_EQ(mc.box.hi[0], 1.0);
    EXPECT_EQ(mc.box.hi[1], 1.0);
    EXPECT_EQ(mc.box.cell_type, "quad");
    EXPECT_FALSE(mc.box.stretch_symmetric);
    EXPECT_NO_THROW(cfg.check_unused());
}

TEST(MeshConfigParse, FullBoxAndLoadWithScale) {
    Config cfg = Config::from_string(
        "mesh:\n  source: box\n  scale: 2\n  box:\n    dim: 3\n    cells: [2, 3, 4]\n"
        "    lo: [0, -1, 0]\n    hi: [1, 1, 0.5]\n    stretch: [1, 1.1, 1]\n    stretch_symmetric: "
        "true\n"
        "    cell_type: prism\n",
        "case.yaml");
    const MeshConfig mc = parse_mesh_config(cfg);
    EXPECT_NO_THROW(cfg.check_unused());
    EXPECT_EQ(mc.box.cell_type, "prism");
    EXPECT_EQ(mc.box.stretch[1], 1.1);
    EXPECT_TRUE(mc.box.stretch_symmetric);
    const Mesh m = load_mesh(mc);
    EXPECT_EQ(m.n_cells(), 2 * 24);
    double vol = 0;
    for (double v : m.cell_volume) vol += v;
    EXPECT_NEAR(vol, 8.0 * (1 * 2 * 0.5), 1e-12);  // scale 2 in each direction
}

TEST(MeshConfigParse, ErrorsNameTheKey) {
    const auto err = [](const std::string& yaml) {
        return input_error_of([&] {
            Config cfg = Config::from_string(yaml, "case.yaml");
            parse_mesh_config(cfg);
        });
    };
    const auto expect_key = [](const std::string& msg, const std::string& key) {
        EXPECT_NE(msg.find("'" + key + "'"), std::string::npos)
            << "expected key " << key << " in: " << msg;
    };
    expect_key(err("mesh:\n  box:\n    dim: 2\n    cells: [4]\n"), "mesh.box.cells");
    expect_key(err("mesh:\n  box:\n    cells: [4, 0]\n"), "mesh.box.cells.1");
    expect_key(err("mesh:\n  box:\n    dim: 4\n    cells: [1, 1, 1, 1]\n"), "mesh.box.dim");
    expect_key(err("mesh:\n  box:\n    cells: [4, 2]\n    lo: [0, 1]\n    hi: [1, 1]\n"),
               "mesh.box.hi");
    expect_key(err("mesh:\n  box:\n    cells: [4, 2]\n    lo: [0, 1, 2]\n"), "mesh.box.lo");
    expect_key(err("mesh:\n  box:\n    cells: [4, 2]\n    stretch: [1, 0]\n"),
               "mesh.box.stretch.1");
    expect_key(err("mesh:\n  box:\n    cells: [4, 2]\n    cell_type: tetra\n"),
               "mesh.box.cell_type");
    expect_key(err("mesh:\n  source: gmsh\n"), "mesh.file");
    expect_key(err("mesh:\n  source: vtk\n"), "mesh.source");
    expect_key(err("mesh:\n  scale: 0\n  box:\n    cells: [2]\n"), "mesh.scale");
    expect_key(err("mesh:\n  source: gmsh\n  file: does_not_exist.msh\n"), "mesh.file");
    // a file key with the box source is never read: the strict config reports it
    Config cfg = Config::from_string("mesh:\n  box:\n    cells: [2]\n    lo: [0]\n  file: x.msh\n",
                                     "case.yaml");
    parse_mesh_config(cfg);
    expect_key(input_error_of([&] { cfg.check_unused(); }), "mesh.file");
}

TEST(MeshConfigParse, RelativeFileIsTakenFromTheCaseFolder) {
    const std::string dir = test::temp_dir("mesh_config");
    test::write_file(dir + "/meshes/m.msh", "dummy\n");
    test::write_file(dir + "/case.yaml",
                     "mesh:\n  source: gmsh\n  file: meshes/m.msh\n  scale: 0.001\n");
    Config cfg = Config::from_file(dir + "/case.yaml");
    const MeshConfig mc = parse_mesh_config(cfg);
    EXPECT_EQ(mc.source, "gmsh");
    EXPECT_EQ(std::filesystem::path(mc.file), std::filesystem::path(dir) / "meshes" / "m.msh");
    EXPECT_EQ(mc.scale, 0.001);
    EXPECT_NO_THROW(cfg.check_unused());
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ugks

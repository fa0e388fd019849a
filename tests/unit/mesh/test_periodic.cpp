// connect_periodic: joining periodic patch pairs into interior faces with a shift vector.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks {
namespace {

using test::input_error_of;

Mesh box(int dim, std::array<index_t, 3> n, Vec3 hi, const std::string& type = "") {
    BoxSpec s;
    s.dim = dim;
    s.n = n;
    s.lo = {0, 0, 0};
    s.hi = hi;
    s.cell_type = type;
    return make_box(s);
}

index_t patch_faces(const Mesh& m, const std::string& name) {
    const int p = m.patch_index(name);
    index_t k = 0;
    for (index_t f = 0; f < m.n_faces(); ++f) k += m.face_patch[f] == p;
    return k;
}

// Every face is listed by its owner and (if any) its neighbour exactly once, every listed face
// touches the cell, and all per-face arrays have n_faces entries.
void expect_consistent(const Mesh& m) {
    const auto nf = static_cast<std::size_t>(m.n_faces());
    ASSERT_EQ(m.face_neighbour.size(), nf);
    ASSERT_EQ(m.face_patch.size(), nf);
    ASSERT_EQ(m.face_normal.size(), nf);
    ASSERT_EQ(m.face_centroid.size(), nf);
    ASSERT_EQ(m.face_area.size(), nf);
    ASSERT_EQ(m.face_shift.size(), nf);
    ASSERT_EQ(m.face_node_offsets.size(), nf + 1);
    ASSERT_EQ(static_cast<std::size_t>(m.face_node_offsets.back()), m.face_nodes.size());
    std::vector<int> seen(nf, 0);
    for (index_t c = 0; c < m.n_cells(); ++c) {
        ASSERT_EQ(m.cell_face_offsets[c + 1] - m.cell_face_offsets[c],
                  cell_num_faces(m.cell_type[c]));
        for (index_t k = m.cell_face_offsets[c]; k < m.cell_face_offsets[c + 1]; ++k) {
            const index_t f = m.cell_faces[k];
            ASSERT_GE(f, 0);
            ASSERT_LT(f, m.n_faces());
            ASSERT_TRUE(m.face_owner[f] == c || m.face_neighbour[f] == c) << "cell " << c;
            ++seen[f];
        }
    }
    for (index_t f = 0; f < m.n_faces(); ++f) {
        EXPECT_EQ(seen[f], m.face_neighbour[f] >= 0 ? 2 : 1) << "face " << f;
        EXPECT_EQ(m.face_patch[f] < 0, m.face_neighbour[f] >= 0) << "face " << f;
    }
}

TEST(Periodic, QuadBoxXPairJoinsFacesWithTheBoxLength) {
    Mesh m = box(2, {6, 4, 1}, {1.5, 1.0, 0});
    const index_t nf0 = m.n_faces();
    connect_periodic(m, {{"xmin", "xmax"}});
    EXPECT_EQ(m.n_faces(), nf0 - 4);  // one face removed per pair: 4 rows
    expect_consistent(m);
    EXPECT_EQ(patch_faces(m, "xmin"), 0);
    EXPECT_EQ(patch_faces(m, "xmax"), 0);
    EXPECT_EQ(patch_faces(m, "ymin"), 6);
    EXPECT_EQ(m.patch_names.size(), 4u);  // patch names stay
    index_t joined = 0;
    for (index_t f = 0; f < m.n_faces(); ++f) {
        const Vec3& s = m.face_shift[f];
        if (s[0] == 0 && s[1] == 0 && s[2] == 0) continue;
        ++joined;
        // The A (xmin) face: normal -x, owner in the first column, neighbour in the last.
        EXPECT_DOUBLE_EQ(s[0], -1.5);
        EXPECT_EQ(s[1], 0.0);
        EXPECT_EQ(m.face_centroid[f][0], 0.0);
        EXPECT_EQ(m.face_normal[f][0], -1.0);
        EXPECT_DOUBLE_EQ(m.cell_centroid[m.face_owner[f]][0], 0.125);
        EXPECT_DOUBLE_EQ(m.cell_centroid[m.face_neighbour[f]][0], 1.375);
        EXPECT_EQ(m.cell_centroid[m.face_owner[f]][1], m.cell_centroid[m.face_neighbour[f]][1]);
        // The neighbour's image sits half a cell beyond the face, mirroring the owner.
        EXPECT_NEAR(m.cell_centroid[m.face_neighbour[f]][0] + s[0], -0.125, 1e-15);
        EXPECT_DOUBLE_EQ(m.face_area[f], 0.25);
    }
    EXPECT_EQ(joined, 4);
    EXPECT_NO_THROW(validate_mesh(m, "periodic box"));
}

TEST(Periodic, FullyPeriodicBoxesHaveNoBoundaryFaces) {
    struct C {
        int dim;
        std::array<index_t, 3> n;
        std::string type;
        index_t sx, sy, sz;  // joined faces per direction
    };
    const C cases[] = {{2, {6, 4, 1}, "quad", 4, 6, 0},
                       {2, {5, 3, 1}, "triangle", 3, 5, 0},
                       {3, {3, 4, 2}, "hexa", 8, 6, 12},
                       {3, {2, 2, 3}, "prism", 6, 6, 2 * 4},  // z faces: two triangles per quad
                       {3, {2, 2, 2}, "tetra", 8, 8, 8},      // two triangles per quad
                       {3, {2, 3, 2}, "pyramid", 6, 4, 6}};
    const Vec3 hi{1.5, 1.0, 0.5};
    for (const C& c : cases) {
        SCOPED_TRACE(c.type);
        Mesh m = box(c.dim, c.n, hi, c.type);
        const index_t nf0 = m.n_faces();
        std::vector<std::pair<std::string, std::string>> pairs{{"xmin", "xmax"}, {"ymin", "ymax"}};
        if (c.dim == 3) pairs.push_back({"zmin", "zmax"});
        connect_periodic(m, pairs);
        EXPECT_EQ(m.n_faces(), nf0 - (c.sx + c.sy + c.sz));
        expect_consistent(m);
        for (index_t f = 0; f < m.n_faces(); ++f) EXPECT_GE(m.face_neighbour[f], 0);
        index_t sx = 0, sy = 0, sz = 0;
        for (const Vec3& s : m.face_shift) {
            // 3D face centroids carry round-off (fans of triangles), hence 1e-14.
            const bool x = std::abs(s[0]) > 1e-14, y = std::abs(s[1]) > 1e-14,
                       z = std::abs(s[2]) > 1e-14;
            ASSERT_LE(x + y + z, 1);
            if (x) {
                EXPECT_NEAR(s[0], -hi[0], 1e-14);
                ++sx;
            }
            if (y) {
                EXPECT_NEAR(s[1], -hi[1], 1e-14);
                ++sy;
            }
            if (z) {
                EXPECT_NEAR(s[2], -hi[2], 1e-14);
                ++sz;
            }
        }
        EXPECT_EQ(sx, c.sx);
        EXPECT_EQ(sy, c.sy);
        EXPECT_EQ(sz, c.sz);
        EXPECT_NO_THROW(validate_mesh(m, "periodic box"));
    }
}

TEST(Periodic, OneDimensionalRing) {
    Mesh m = box(1, {5, 1, 1}, {2.0, 0, 0});
    connect_periodic(m, {{"xmin", "xmax"}});
    ASSERT_EQ(m.n_faces(), 5);
    expect_consistent(m);
    index_t joined = 0;
    for (index_t f = 0; f < 5; ++f)
        if (m.face_shift[f][0] != 0) {
            ++joined;
            EXPECT_DOUBLE_EQ(m.face_shift[f][0], -2.0);
            EXPECT_EQ(m.face_normal[f][0], -1.0);
            EXPECT_EQ(m.face_owner[f], 0);
            EXPECT_EQ(m.face_neighbour[f], 4);
        }
    EXPECT_EQ(joined, 1);
    EXPECT_NO_THROW(validate_mesh(m, "ring"));
}

TEST(Periodic, TwoCellsAcrossGiveTwoDistinctFacesBetweenTheSameCells) {
    Mesh m = box(2, {2, 1, 1}, {1.0, 1.0, 0});
    connect_periodic(m, {{"xmin", "xmax"}});
    expect_consistent(m);
    index_t between = 0;
    for (index_t f = 0; f < m.n_faces(); ++f)
        if (m.face_neighbour[f] >= 0) {
            ++between;
            EXPECT_NE(m.face_owner[f], m.face_neighbour[f]);
        }
    EXPECT_EQ(between, 2);  // the interior face and the periodic one
    EXPECT_NO_THROW(validate_mesh(m, "two cells"));
}

TEST(Periodic, OneCellAcrossIsRejected) {
    Mesh m = box(2, {1, 3, 1}, {1.0, 1.0, 0});
    const std::string e = input_error_of([&] { connect_periodic(m, {{"xmin", "xmax"}}); });
    EXPECT_NE(e.find("'xmin' and 'xmax'"), std::string::npos) << e;
    EXPECT_NE(e.find("at least 2 cells across"), std::string::npos) << e;
}

TEST(Periodic, EmptyListIsANoOp) {
    Mesh m = box(2, {3, 3, 1}, {1, 1, 0});
    const index_t nf = m.n_faces();
    connect_periodic(m, {});
    EXPECT_EQ(m.n_faces(), nf);
    EXPECT_TRUE(m.face_shift.empty());
}

// A mesh whose xmax side is graded differently from xmin: same face count and total area (what the
// case-file check compares), but no face has a partner.
TEST(Periodic, PatchesWithDifferentNodesAreRejected) {
    Mesh m = box(2, {6, 4, 1}, {1.5, 1.0, 0});
    for (Vec3& x : m.nodes)
        if (x[0] == 1.5 && x[1] == 0.5) x[1] = 0.6;  // move one node of the xmax side
    std::vector<BoundaryFaceSpec> bf;
    for (index_t f = 0; f < m.n_faces(); ++f)
        if (m.face_neighbour[f] < 0)
            bf.push_back({{m.face_nodes.begin() + m.face_node_offsets[f],
                           m.face_nodes.begin() + m.face_node_offsets[f + 1]},
                          m.face_patch[f]});
    build_faces_and_geometry(m, bf, "graded box");
    validate_mesh(m, "graded box");
    const std::string e = input_error_of([&] { connect_periodic(m, {{"xmin", "xmax"}}); });
    EXPECT_NE(e.find("periodic patches 'xmin' and 'xmax' do not match"), std::string::npos) << e;
    // the first xmax face without a partner: (1.5, 0.425) (edge 0.25 .. 0.6)
    EXPECT_NE(e.find("(1.5, 0.425, 0)"), std::string::npos) << e;
}

TEST(Periodic, PatchesThatAreNoTranslatesAreRejected) {
    Mesh m = box(2, {4, 4, 1}, {1.0, 1.0, 0});  // xmin and ymin: same count and area
    const std::string e = input_error_of([&] { connect_periodic(m, {{"xmin", "ymin"}}); });
    EXPECT_NE(e.find("periodic patches 'xmin' and 'ymin' do not match"), std::string::npos) << e;
}

TEST(Periodic, AreaAndNormalChecks) {
    {
        Mesh m = box(2, {3, 3, 1}, {1.0, 1.0, 0});
        for (index_t f = 0; f < m.n_faces(); ++f)
            if (m.face_patch[f] == m.patch_index("xmax") && m.face_centroid[f][1] > 0.4 &&
                m.face_centroid[f][1] < 0.6)
                m.face_area[f] *= 1.01;
        const std::string e = input_error_of([&] { connect_periodic(m, {{"xmin", "xmax"}}); });
        EXPECT_NE(e.find("'xmin' and 'xmax' do not match"), std::string::npos) << e;
        EXPECT_NE(e.find("has area"), std::string::npos) << e;
    }
    {
        Mesh m = box(2, {3, 3, 1}, {1.0, 1.0, 0});
        for (index_t f = 0; f < m.n_faces(); ++f)
            if (m.face_patch[f] == m.patch_index("xmax")) m.face_normal[f] = {-1, 0, 0};
        const std::string e = input_error_of([&] { connect_periodic(m, {{"xmin", "xmax"}}); });
        EXPECT_NE(e.find("are not opposite"), std::string::npos) << e;
    }
    {
        Mesh m = box(2, {3, 3, 1}, {1.0, 1.0, 0});
        const std::string e = input_error_of([&] {
            connect_periodic(m, {{"xmin", "xmax"}, {"xmax", "xmin"}});  // joined twice
        });
        EXPECT_NE(e.find("has no boundary faces"), std::string::npos) << e;
    }
    {
        Mesh m = box(2, {3, 3, 1}, {1.0, 1.0, 0});
        const std::string e = input_error_of([&] { connect_periodic(m, {{"xmin", "nope"}}); });
        EXPECT_NE(e.find("'nope' does not exist"), std::string::npos) << e;
    }
}

// The hash search is linear: a 200 x 200 box joins in well under a second (O(n^2) over 400 faces
// would also be quick, so this mainly checks correctness on a larger patch).
TEST(Periodic, LargerBoxMatchesEveryFace) {
    Mesh m = box(2, {200, 150, 1}, {2.0, 1.5, 0});
    const index_t nf0 = m.n_faces();
    connect_periodic(m, {{"ymax", "ymin"}, {"xmax", "xmin"}});
    EXPECT_EQ(m.n_faces(), nf0 - 350);
    for (index_t f = 0; f < m.n_faces(); ++f) {
        ASSERT_GE(m.face_neighbour[f], 0);
        const Vec3& s = m.face_shift[f];
        if (s[0] != 0) ASSERT_DOUBLE_EQ(s[0], 2.0);  // A = xmax: the image of xmin's cell
        if (s[1] != 0) ASSERT_DOUBLE_EQ(s[1], 1.5);
    }
    EXPECT_NO_THROW(validate_mesh(m, "large box"));
}

}  // namespace
}  // namespace ugks

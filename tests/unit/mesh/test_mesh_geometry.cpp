// Mesh core: cell tables, face construction, geometry of single elements, validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/mesh.hpp"

namespace ugks {
namespace {

Mesh make_mesh(int dim, const std::vector<Vec3>& nodes, const std::vector<CellType>& types,
               const std::vector<std::vector<index_t>>& cells,
               std::vector<std::string> patches = {"wall"}) {
    Mesh m;
    m.dim = dim;
    m.nodes = nodes;
    for (std::size_t c = 0; c < types.size(); ++c) {
        m.cell_type.push_back(types[c]);
        m.cell_nodes.insert(m.cell_nodes.end(), cells[c].begin(), cells[c].end());
        m.cell_node_offsets.push_back(static_cast<index_t>(m.cell_nodes.size()));
    }
    m.patch_names = std::move(patches);
    return m;
}

// Every face of every cell on patch 0 (for single-cell meshes).
std::vector<BoundaryFaceSpec> all_faces(const Mesh& m, int patch = 0) {
    std::vector<BoundaryFaceSpec> out;
    for (index_t c = 0; c < m.n_cells(); ++c) {
        const index_t* cn = m.cell_nodes.data() + m.cell_node_offsets[c];
        for (int f = 0; f < cell_num_faces(m.cell_type[c]); ++f) {
            const LocalFace lf = cell_local_face(m.cell_type[c], f);
            BoundaryFaceSpec bf;
            for (int i = 0; i < lf.n; ++i) bf.nodes.push_back(cn[lf.nodes[i]]);
            bf.patch = patch;
            out.push_back(bf);
        }
    }
    return out;
}

Mesh single(int dim, CellType t, const std::vector<Vec3>& nodes) {
    std::vector<index_t> conn(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) conn[i] = static_cast<index_t>(i);
    Mesh m = make_mesh(dim, nodes, {t}, {conn});
    build_faces_and_geometry(m, all_faces(m), "single.msh");
    return m;
}

void expect_vec(const Vec3& a, const Vec3& b, double tol = 1e-13) {
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(a[d], b[d], tol) << "component " << d;
}

using test::input_error_of;

TEST(MeshTables, CountsAndDimensions) {
    const CellType types[] = {CellType::Segment, CellType::Triangle, CellType::Quad,
                              CellType::Tetra,   CellType::Hexa,     CellType::Prism,
                              CellType::Pyramid};
    const int nodes[] = {2, 3, 4, 4, 8, 6, 5};
    const int faces[] = {2, 3, 4, 4, 6, 5, 5};
    const int dims[] = {1, 2, 2, 3, 3, 3, 3};
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(cell_num_nodes(types[i]), nodes[i]);
        EXPECT_EQ(cell_num_faces(types[i]), faces[i]);
        EXPECT_EQ(cell_dimension(types[i]), dims[i]);
        // Every node of the cell appears in dim faces at least (faces cover the cell boundary).
        std::vector<int> seen(nodes[i], 0);
        for (int f = 0; f < faces[i]; ++f) {
            const LocalFace lf = cell_local_face(types[i], f);
            for (int k = 0; k < lf.n; ++k) ++seen[lf.nodes[k]];
        }
        for (int v = 0; v < nodes[i]; ++v) EXPECT_GE(seen[v], dims[i]) << cell_type_name(types[i]);
    }
    EXPECT_STREQ(cell_type_name(CellType::Pyramid), "pyramid");
    // Face sizes of the 3D types: prism 2 triangles + 3 quads, pyramid 1 quad + 4 triangles.
    EXPECT_EQ(cell_local_face(CellType::Prism, 0).n + cell_local_face(CellType::Prism, 2).n, 7);
    EXPECT_EQ(cell_local_face(CellType::Pyramid, 0).n, 4);
    EXPECT_EQ(cell_local_face(CellType::Pyramid, 1).n, 3);
}

TEST(MeshGeometry, UnitCubeHexa) {
    const Mesh m = single(
        3, CellType::Hexa,
        {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}});
    ASSERT_EQ(m.n_faces(), 6);
    EXPECT_NEAR(m.cell_volume[0], 1.0, 1e-15);
    expect_vec(m.cell_centroid[0], {0.5, 0.5, 0.5});
    Vec3 sum_n{0, 0, 0};
    for (index_t f = 0; f < 6; ++f) {
        EXPECT_NEAR(m.face_area[f], 1.0, 1e-15);
        EXPECT_EQ(m.face_owner[f], 0);
        EXPECT_EQ(m.face_neighbour[f], -1);
        EXPECT_EQ(m.face_patch[f], 0);
        // outward: the centroid is offset by 0.5 along the normal
        for (int d = 0; d < 3; ++d) {
            EXPECT_NEAR(m.face_centroid[f][d] - 0.5, 0.5 * m.face_normal[f][d], 1e-15);
            sum_n[d] += m.face_normal[f][d];
        }
    }
    expect_vec(sum_n, {0, 0, 0});
    EXPECT_NO_THROW(validate_mesh(m, "single.msh"));
}

TEST(MeshGeometry, HexaWithTiltedPlanarTop) {
    // Top face on the plane z = 1 + x: V = 3/2, centroid (5/9, 1/2, 7/9).
    const Mesh m = single(
        3, CellType::Hexa,
        {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 2}, {1, 1, 2}, {0, 1, 1}});
    EXPECT_NEAR(m.cell_volume[0], 1.5, 1e-14);
    expect_vec(m.cell_centroid[0], {5.0 / 9.0, 0.5, 7.0 / 9.0}, 1e-14);
    // the top face (local face 1, global face 1) has area sqrt(2) and normal (-1, 0, 1)/sqrt(2)
    EXPECT_NEAR(m.face_area[1], std::sqrt(2.0), 1e-14);
    expect_vec(m.face_normal[1], {-1 / std::sqrt(2.0), 0, 1 / std::sqrt(2.0)}, 1e-14);
    expect_vec(m.face_centroid[1], {0.5, 0.5, 1.5}, 1e-14);
    EXPECT_NO_THROW(validate_mesh(m, "single.msh"));
}

TEST(MeshGeometry, HexaWithNonPlanarTop) {
    // Unit cube with node 6 raised to z = h: the top is a non-planar quad. The 4-triangle fan from
    // its node mean has the same volume as the bilinear (trilinear hex) surface: V = (3 + h) / 4.
    const double h = 2.0;
    const Mesh m = single(
        3, CellType::Hexa,
        {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, h}, {0, 1, 1}});
    EXPECT_NEAR(m.cell_volume[0], (3 + h) / 4, 1e-14);
    EXPECT_NO_THROW(validate_mesh(m, "single.msh"));
    // closed surface: the vector areas of a cell cancel to round-off even with non-planar faces
    Vec3 s{0, 0, 0};
    for (index_t f = 0; f < m.n_faces(); ++f) {
        for (int d = 0; d < 3; ++d) s[d] += m.face_area[f] * m.face_normal[f][d];
    }
    expect_vec(s, {0, 0, 0}, 1e-14);
}

TEST(MeshGeometry, VolumeIsInvariantUnderRotationAndTranslation) {
    std::vector<Vec3> p = {{0, 0, 0},   {1.1, 0, 0.1}, {1, 1.2, 0},     {0, 1, -0.1},
                           {0.1, 0, 1}, {1, 0.1, 1.1}, {1.3, 1.2, 1.4}, {0, 1, 1}};
    const Mesh a = single(3, CellType::Hexa, p);
    const double c = std::cos(0.7), s = std::sin(0.7);
    const Vec3 shift{3.0, -2.0, 5.0};
    auto transform = [&](const Vec3& x) {  // rotation about z by 0.7 rad, then shift
        return Vec3{c * x[0] - s * x[1] + shift[0], s * x[0] + c * x[1] + shift[1],
                    x[2] + shift[2]};
    };
    for (Vec3& x : p) x = transform(x);
    const Mesh b = single(3, CellType::Hexa, p);
    EXPECT_NEAR(a.cell_volume[0], b.cell_volume[0], 1e-13);
    expect_vec(transform(a.cell_centroid[0]), b.cell_centroid[0], 1e-13);
    for (index_t f = 0; f < a.n_faces(); ++f) EXPECT_NEAR(a.face_area[f], b.face_area[f], 1e-13);
}

TEST(MeshGeometry, Tetra) {
    // Corner tetrahedron with legs 2, 3, 4: V = 4, centroid = mean of the nodes.
    const Mesh m = single(3, CellType::Tetra, {{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 4}});
    EXPECT_NEAR(m.cell_volume[0], 4.0, 1e-14);
    expect_vec(m.cell_centroid[0], {0.5, 0.75, 1.0}, 1e-14);
    // local faces: (0,2,1) z=0, (0,1,3) y=0, (0,3,2) x=0, (1,2,3) slanted
    EXPECT_NEAR(m.face_area[0], 3.0, 1e-14);
    expect_vec(m.face_normal[0], {0, 0, -1});
    EXPECT_NEAR(m.face_area[1], 4.0, 1e-14);
    expect_vec(m.face_normal[1], {0, -1, 0});
    EXPECT_NEAR(m.face_area[2], 6.0, 1e-14);
    expect_vec(m.face_normal[2], {-1, 0, 0});
    EXPECT_NEAR(m.face_area[3], 0.5 * std::sqrt(244.0), 1e-14);
    const double l = std::sqrt(244.0);
    expect_vec(m.face_normal[3], {12 / l, 8 / l, 6 / l}, 1e-14);
    expect_vec(m.face_centroid[3], {2.0 / 3, 1.0, 4.0 / 3}, 1e-14);
}

TEST(MeshGeometry, ObliquePrism) {
    // Right triangle of area 1/2, top shifted by (0.5, 0, 2): V = 1, centroid = base centroid +
    // shift/2.
    const Mesh m = single(3, CellType::Prism,
                          {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, 0, 2}, {1.5, 0, 2}, {0.5, 1, 2}});
    EXPECT_NEAR(m.cell_volume[0], 1.0, 1e-14);
    expect_vec(m.cell_centroid[0], {1.0 / 3 + 0.25, 1.0 / 3, 1.0}, 1e-14);
    EXPECT_NEAR(m.face_area[0], 0.5, 1e-15);
    EXPECT_NEAR(m.face_area[1], 0.5, 1e-15);
    expect_vec(m.face_normal[0], {0, 0, -1});
    expect_vec(m.face_normal[1], {0, 0, 1});
    EXPECT_NEAR(m.face_area[2], 2.0, 1e-14);  // y = 0 side: parallelogram base 1, height 2
    EXPECT_NO_THROW(validate_mesh(m, "single.msh"));
}

TEST(MeshGeometry, PyramidWithOffsetApex) {
    // Base 2 x 2 centred at the origin, apex at (0.3, -0.2, 3): V = base * h / 3 = 4,
    // centroid = base centre + (apex - base centre) / 4.
    const Mesh m = single(3, CellType::Pyramid,
                          {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0.3, -0.2, 3}});
    EXPECT_NEAR(m.cell_volume[0], 4.0, 1e-14);
    expect_vec(m.cell_centroid[0], {0.075, -0.05, 0.75}, 1e-14);
    EXPECT_NEAR(m.face_area[0], 4.0, 1e-14);
    expect_vec(m.face_normal[0], {0, 0, -1});
    EXPECT_NO_THROW(validate_mesh(m, "single.msh"));
}

TEST(MeshGeometry, QuadAndTriangle2D) {
    // Convex quad (0,0) (2,0) (3,2) (0,1): area 7/2, centroid (29/21, 17/21).
    const Mesh q = single(2, CellType::Quad, {{0, 0, 0}, {2, 0, 0}, {3, 2, 0}, {0, 1, 0}});
    EXPECT_NEAR(q.cell_volume[0], 3.5, 1e-14);
    expect_vec(q.cell_centroid[0], {29.0 / 21, 17.0 / 21, 0}, 1e-14);
    const double len[] = {2.0, std::sqrt(5.0), std::sqrt(10.0), 1.0};
    for (int f = 0; f < 4; ++f) EXPECT_NEAR(q.face_area[f], len[f], 1e-14);
    expect_vec(q.face_normal[0], {0, -1, 0});
    expect_vec(q.face_normal[1], {2 / std::sqrt(5.0), -1 / std::sqrt(5.0), 0}, 1e-14);
    expect_vec(q.face_normal[3], {-1, 0, 0});
    expect_vec(q.face_centroid[2], {1.5, 1.5, 0});
    EXPECT_NO_THROW(validate_mesh(q, "single.msh"));

    const Mesh t = single(2, CellType::Triangle, {{1, 1, 0}, {4, 1, 0}, {1, 5, 0}});
    EXPECT_NEAR(t.cell_volume[0], 6.0, 1e-14);
    expect_vec(t.cell_centroid[0], {2, 7.0 / 3, 0}, 1e-14);
    EXPECT_NEAR(t.face_area[1], 5.0, 1e-14);
    expect_vec(t.face_normal[1], {0.8, 0.6, 0}, 1e-15);
}

TEST(MeshGeometry, SegmentsIn1D) {
    Mesh m = make_mesh(1, {{0, 0, 0}, {0.1, 0, 0}, {0.4, 0, 0}, {1, 0, 0}},
                       {CellType::Segment, CellType::Segment, CellType::Segment},
                       {{0, 1}, {1, 2}, {2, 3}}, {"left", "right"});
    build_faces_and_geometry(m, {{{0}, 0}, {{3}, 1}}, "line");
    ASSERT_EQ(m.n_faces(), 4);
    const double vol[] = {0.1, 0.3, 0.6};
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(m.cell_volume[c], vol[c], 1e-15);
        EXPECT_NEAR(m.cell_centroid[c][0], 0.5 * (m.nodes[c][0] + m.nodes[c + 1][0]), 1e-15);
    }
    // faces in order of appearance: node 0, node 1, node 2, node 3
    const double nx[] = {-1, 1, 1, 1};
    const index_t owner[] = {0, 0, 1, 2}, neighbour[] = {-1, 1, 2, -1};
    const int patch[] = {0, -1, -1, 1};
    for (int f = 0; f < 4; ++f) {
        EXPECT_EQ(m.face_area[f], 1.0);
        expect_vec(m.face_normal[f], {nx[f], 0, 0});
        expect_vec(m.face_centroid[f], m.nodes[f]);
        EXPECT_EQ(m.face_owner[f], owner[f]);
        EXPECT_EQ(m.face_neighbour[f], neighbour[f]);
        EXPECT_EQ(m.face_patch[f], patch[f]);
    }
    EXPECT_NO_THROW(validate_mesh(m, "line"));
}

TEST(MeshFaces, InteriorFaceOwnerIsLowerCellAndNormalPointsToNeighbour) {
    // Cell 0 is the +x hexa, cell 1 the -x one: the shared face x = 1 is owned by cell 0 and its
    // normal points to cell 1, i.e. along -x.
    std::vector<Vec3> p;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 3; ++i) p.push_back({double(i), double(j), double(k)});
    auto n = [](int i, int j, int k) { return index_t(i + 3 * (j + 2 * k)); };
    auto hex = [&](int i) {
        return std::vector<index_t>{n(i, 0, 0), n(i + 1, 0, 0), n(i + 1, 1, 0), n(i, 1, 0),
                                    n(i, 0, 1), n(i + 1, 0, 1), n(i + 1, 1, 1), n(i, 1, 1)};
    };
    Mesh m = make_mesh(3, p, {CellType::Hexa, CellType::Hexa}, {hex(1), hex(0)});
    std::vector<BoundaryFaceSpec> bf = all_faces(m);
    build_faces_and_geometry(m, bf, "two.msh");
    ASSERT_EQ(m.n_faces(), 11);
    int interior = 0;
    for (index_t f = 0; f < m.n_faces(); ++f) {
        if (m.face_neighbour[f] < 0) {
            EXPECT_EQ(m.face_patch[f], 0);
            continue;
        }
        ++interior;
        EXPECT_EQ(m.face_owner[f], 0);
        EXPECT_EQ(m.face_neighbour[f], 1);
        EXPECT_EQ(m.face_patch[f], -1);
        expect_vec(m.face_normal[f], {-1, 0, 0});
        expect_vec(m.face_centroid[f], {1, 0.5, 0.5});
    }
    EXPECT_EQ(interior, 1);
    // cell -> face lists: 6 faces each, the shared face in both
    EXPECT_EQ(m.cell_face_offsets, (std::vector<index_t>{0, 6, 12}));
    EXPECT_NO_THROW(validate_mesh(m, "two.msh"));
}

TEST(MeshErrors, InvertedTetraHasNonPositiveVolume) {
    // Nodes 1 and 2 swapped: the element is inside out.
    const Mesh m = single(3, CellType::Tetra, {{0, 0, 0}, {0, 3, 0}, {2, 0, 0}, {0, 0, 4}});
    EXPECT_NEAR(m.cell_volume[0], -4.0, 1e-14);
    const std::string msg = input_error_of([&] { validate_mesh(m, "bad.msh"); });
    EXPECT_NE(msg.find("bad.msh: cell 0 at (0.5, 0.75, 1)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("non-positive volume -4"), std::string::npos) << msg;
}

TEST(MeshErrors, DegenerateTriangle) {
    const Mesh m = single(2, CellType::Triangle, {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}});
    const std::string msg = input_error_of([&] { validate_mesh(m, "flat.msh"); });
    EXPECT_NE(msg.find("flat.msh: cell 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("non-positive volume 0"), std::string::npos) << msg;
}

TEST(MeshErrors, NonConvexQuadHasInwardNormal) {
    // Arrowhead quad with a reflex corner at (2,1): positive area 1, but the edge (0,2)->(2,1)
    // faces the centroid (5/3, 1).
    const Mesh m = single(2, CellType::Quad, {{0, 0, 0}, {3, 1, 0}, {0, 2, 0}, {2, 1, 0}});
    EXPECT_NEAR(m.cell_volume[0], 1.0, 1e-14);
    const std::string msg = input_error_of([&] { validate_mesh(m, "dart.msh"); });
    EXPECT_NE(msg.find("dart.msh: cell 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("normal of face 2 at (1, 1.5, 0) does not point out of the cell"),
              std::string::npos)
        << msg;
}

TEST(MeshErrors, OpenCellIsDetected) {
    Mesh m = single(3, CellType::Tetra, {{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 4}});
    m.face_area[3] *= 1.0 + 1e-6;  // breaks sum S n = 0, keeps every normal outward
    const std::string msg = input_error_of([&] { validate_mesh(m, "open.msh"); });
    EXPECT_NE(msg.find("open.msh: cell 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is not closed"), std::string::npos) << msg;
}

TEST(MeshErrors, BoundaryFaceWithoutPatch) {
    Mesh m = make_mesh(
        3, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}},
        {CellType::Hexa}, {{0, 1, 2, 3, 4, 5, 6, 7}});
    std::vector<BoundaryFaceSpec> bf = all_faces(m);
    bf.erase(bf.begin() + 1);  // the top face (4,5,6,7) is untagged
    const std::string msg = input_error_of([&] { build_faces_and_geometry(m, bf, "cube.msh"); });
    EXPECT_EQ(msg,
              "cube.msh: boundary face with nodes [4, 5, 6, 7] at (0.5, 0.5, 1) belongs to no "
              "boundary patch");
}

TEST(MeshErrors, FaceSharedByThreeCells) {
    // Three triangles on the edge (0,1).
    Mesh m = make_mesh(2, {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {0.5, -1, 0}, {0.5, 2, 0}},
                       {CellType::Triangle, CellType::Triangle, CellType::Triangle},
                       {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}});
    const std::string msg =
        input_error_of([&] { build_faces_and_geometry(m, all_faces(m), "fan.msh"); });
    EXPECT_NE(
        msg.find("fan.msh: face with nodes [0, 1] at (0.5, 0, 0) is shared by more than two cells "
                 "(cells 0, 1, 2)"),
        std::string::npos)
        << msg;
}

TEST(MeshErrors, TaggedFaceThatIsNoFaceOrInTwoPatches) {
    Mesh m = make_mesh(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {CellType::Triangle}, {{0, 1, 2}},
                       {"a", "b"});
    std::vector<BoundaryFaceSpec> bf = all_faces(m);
    bf.push_back({{0, 1, 2}, 1});
    std::string msg = input_error_of([&] { build_faces_and_geometry(m, bf, "t.msh"); });
    EXPECT_EQ(msg,
              "t.msh: boundary face with nodes [0, 1, 2] of patch 'b' is not a face of any cell");
    bf.back() = {{1, 0}, 1};  // same edge as (0,1), other patch
    msg = input_error_of([&] { build_faces_and_geometry(m, bf, "t.msh"); });
    EXPECT_EQ(msg, "t.msh: boundary face with nodes [1, 0] belongs to two patches, 'a' and 'b'");
}

TEST(MeshErrors, WrongDimensionOrNodeIndex) {
    Mesh m = make_mesh(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {CellType::Triangle}, {{0, 1, 2}});
    EXPECT_EQ(input_error_of([&] { build_faces_and_geometry(m, {}, "x.msh"); }),
              "x.msh: cell 0 is a triangle in a 3D mesh");
    m.dim = 2;
    m.cell_nodes[2] = 7;
    EXPECT_EQ(input_error_of([&] { build_faces_and_geometry(m, {}, "x.msh"); }),
              "x.msh: cell 0 refers to node 7, but the mesh has 3 nodes");
}

TEST(MeshOrientation, ClockwiseCellsAreReversed) {
    Mesh m = make_mesh(2, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {2, 0, 0}},
                       {CellType::Quad, CellType::Triangle}, {{0, 3, 2, 1}, {1, 4, 2}}, {"w"});
    EXPECT_EQ(orient_cells_2d(m), 1);  // only the quad is clockwise
    EXPECT_EQ(m.cell_nodes, (std::vector<index_t>{0, 1, 2, 3, 1, 4, 2}));
    build_faces_and_geometry(m, all_faces(m), "cw.msh");
    EXPECT_NEAR(m.cell_volume[0], 1.0, 1e-15);
    EXPECT_NEAR(m.cell_volume[1], 0.5, 1e-15);
    EXPECT_NO_THROW(validate_mesh(m, "cw.msh"));
}

TEST(MeshPatches, CheckPatchesBothDirections) {
    Mesh m;
    m.patch_names = {"wall", "inlet", "outlet"};
    EXPECT_NO_THROW(check_patches(m, {"outlet", "wall", "inlet"}, "case.yaml"));
    EXPECT_EQ(
        input_error_of([&] {
            check_patches(m, {"wall", "inlet", "outlet", "farfield"}, "case.yaml");
        }),
        "case.yaml: boundary patches of the case and of the mesh differ; in the case but not in "
        "the mesh: 'farfield' (mesh patches: 'wall', 'inlet', 'outlet')");
    EXPECT_EQ(
        input_error_of([&] { check_patches(m, {"wall"}, "case.yaml"); }),
        "case.yaml: boundary patches of the case and of the mesh differ; in the mesh but not in "
        "the case: 'inlet', 'outlet' (mesh patches: 'wall', 'inlet', 'outlet')");
    EXPECT_EQ(
        input_error_of([&] {
            check_patches(m, {"wall", "inlet", "sym"}, "case.yaml");
        }),
        "case.yaml: boundary patches of the case and of the mesh differ; in the case but not in "
        "the mesh: 'sym'; in the mesh but not in the case: 'outlet' (mesh patches: 'wall', "
        "'inlet', 'outlet')");
    EXPECT_EQ(m.patch_index("outlet"), 2);
    EXPECT_EQ(m.patch_index("farfield"), -1);
}

}  // namespace
}  // namespace ugks

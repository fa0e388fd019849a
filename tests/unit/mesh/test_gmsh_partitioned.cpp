// Gmsh partitioned files (gmsh -part N: $PartitionedEntities, $GhostElements) are read as the one
// global mesh they hold: the same cells, volumes and patches as the unpartitioned file of the same
// mesh (tests/data/mesh/*.geo give the commands; docs/usage.md "Mesh files").
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks {
namespace {

/// A cell as its type and sorted node coordinates: independent of cell and node numbering.
using CellKey = std::pair<int, std::vector<std::array<double, 3>>>;

std::map<CellKey, double> cells_by_nodes(const Mesh& m) {
    std::map<CellKey, double> out;
    for (index_t c = 0; c < m.n_cells(); ++c) {
        CellKey k{static_cast<int>(m.cell_type[c]), {}};
        for (index_t i = m.cell_node_offsets[c]; i < m.cell_node_offsets[c + 1]; ++i) {
            const Vec3& x = m.nodes[static_cast<std::size_t>(m.cell_nodes[i])];
            k.second.push_back({x[0], x[1], x[2]});
        }
        std::sort(k.second.begin(), k.second.end());
        EXPECT_TRUE(out.emplace(k, m.cell_volume[c]).second) << "cell " << c << " twice";
    }
    return out;
}

/// Per patch: the sorted face centroids and the total area.
std::map<std::string, std::pair<std::vector<std::array<double, 3>>, double>> patches(
    const Mesh& m) {
    std::map<std::string, std::pair<std::vector<std::array<double, 3>>, double>> out;
    for (const std::string& p : m.patch_names) out[p] = {{}, 0.0};
    for (index_t f = 0; f < m.n_faces(); ++f) {
        if (m.face_patch[f] < 0) continue;
        auto& e = out[m.patch_names[static_cast<std::size_t>(m.face_patch[f])]];
        const Vec3& x = m.face_centroid[f];
        e.first.push_back({x[0], x[1], x[2]});
        e.second += m.face_area[f];
    }
    for (auto& [name, e] : out) std::sort(e.first.begin(), e.first.end());
    return out;
}

index_t interior_faces(const Mesh& m) {
    index_t n = 0;
    for (index_t f = 0; f < m.n_faces(); ++f) n += m.face_neighbour[f] >= 0;
    return n;
}

void expect_same_global_mesh(const Mesh& part, const Mesh& whole) {
    EXPECT_EQ(part.dim, whole.dim);
    EXPECT_EQ(part.n_nodes(), whole.n_nodes());
    ASSERT_EQ(part.n_cells(), whole.n_cells());
    EXPECT_EQ(part.n_faces(), whole.n_faces());
    EXPECT_EQ(interior_faces(part), interior_faces(whole));
    const auto a = cells_by_nodes(part), b = cells_by_nodes(whole);
    ASSERT_EQ(a.size(), b.size());
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
        EXPECT_TRUE(ia->first == ib->first) << "a cell of one file is not in the other";
        EXPECT_NEAR(ia->second, ib->second, 1e-15);
    }
    // patches by physical names, in the order of the physical tags, with the same faces
    EXPECT_EQ(part.patch_names, whole.patch_names);
    const auto pa = patches(part), pb = patches(whole);
    for (const auto& [name, e] : pb) {
        ASSERT_TRUE(pa.count(name)) << name;
        EXPECT_EQ(pa.at(name).first, e.first) << name;
        EXPECT_NEAR(pa.at(name).second, e.second, 1e-14) << name;
    }
}

TEST(GmshPartitioned, TwoPartitionsAsciiAndBinaryEqualTheWholeMesh) {
    // ASCII files carry 16 significant digits, binary ones the exact doubles: each partitioned
    // file is compared with the whole mesh in its own format
    for (const std::string fmt : {"", "_bin"}) {
        SCOPED_TRACE(fmt);
        const Mesh whole = read_gmsh(test::data_path("mesh/square2d" + fmt + ".msh"));
        const std::string path = test::data_path("mesh/square2d_part2" + fmt + ".msh");
        const Mesh part = read_gmsh(path);
        validate_mesh(part, path);
        expect_same_global_mesh(part, whole);
        EXPECT_EQ(part.patch_names, (std::vector<std::string>{"inlet", "wall", "patch_7"}));
    }
}

TEST(GmshPartitioned, ThreePartitionsWithGhostCellsEqualTheWholeMesh) {
    // -part_ghosts adds $GhostElements: every cell is still read once
    const Mesh whole = read_gmsh(test::data_path("mesh/cube_tet.msh"));
    const std::string path = test::data_path("mesh/cube_tet_part3.msh");
    const Mesh part = read_gmsh(path);
    validate_mesh(part, path);
    expect_same_global_mesh(part, whole);
    EXPECT_EQ(part.patch_names, (std::vector<std::string>{"walls", "lid"}));
    double v = 0;
    for (double x : part.cell_volume) v += x;
    EXPECT_NEAR(v, 1.0, 1e-13);
}

}  // namespace
}  // namespace ugks

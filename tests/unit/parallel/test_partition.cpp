// Serial tests of the mesh partition (METIS) and of the local meshes and halo lists built from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/parallel/partition.hpp"

namespace ugks {
namespace {

Mesh box(int dim, index_t nx, index_t ny, index_t nz, const std::string& type,
         Vec3 hi = {1, 1, 1}) {
    BoxSpec s;
    s.dim = dim;
    s.n = {nx, ny, nz};
    s.hi = hi;
    s.cell_type = type;
    return make_box(s);
}

/// Minimal mesh for partition_cells, which only reads cells and face owner/neighbour.
Mesh graph_mesh(index_t n_cells, const std::vector<std::pair<index_t, index_t>>& interior) {
    Mesh m;
    m.dim = 1;
    m.cell_type.assign(static_cast<std::size_t>(n_cells), CellType::Segment);
    for (auto [a, b] : interior) {
        m.face_owner.push_back(a);
        m.face_neighbour.push_back(b);
    }
    return m;
}

std::vector<index_t> part_sizes(const std::vector<int>& part, int k) {
    std::vector<index_t> count(static_cast<std::size_t>(k), 0);
    for (int p : part) {
        EXPECT_GE(p, 0);
        EXPECT_LT(p, k);
        if (p >= 0 && p < k) ++count[p];
    }
    return count;
}

/// Is part p connected through interior faces?
bool part_connected(const Mesh& m, const std::vector<int>& part, int p) {
    std::vector<std::vector<index_t>> adj(static_cast<std::size_t>(m.n_cells()));
    for (index_t f = 0; f < m.n_faces(); ++f) {
        const index_t a = m.face_owner[f], b = m.face_neighbour[f];
        if (b >= 0 && part[a] == p && part[b] == p) {
            adj[a].push_back(b);
            adj[b].push_back(a);
        }
    }
    std::vector<index_t> cells;
    for (index_t c = 0; c < m.n_cells(); ++c)
        if (part[c] == p) cells.push_back(c);
    if (cells.empty()) return false;
    std::set<index_t> seen{cells[0]};
    std::vector<index_t> stack{cells[0]};
    while (!stack.empty()) {
        const index_t c = stack.back();
        stack.pop_back();
        for (index_t d : adj[c])
            if (seen.insert(d).second) stack.push_back(d);
    }
    return seen.size() == cells.size();
}

struct PartCase {
    const char* name;
    Mesh mesh;
    int k;
};

TEST(Partition, BalancedContiguousAndCoversEveryCell) {
    std::vector<PartCase> cases;
    cases.push_back({"quad 24x20 / 4", box(2, 24, 20, 1, "quad"), 4});
    cases.push_back({"quad 24x20 / 3", box(2, 24, 20, 1, "quad"), 3});
    cases.push_back({"triangle 16x16 / 7", box(2, 16, 16, 1, "triangle"), 7});
    cases.push_back({"hexa 8x8x8 / 8", box(3, 8, 8, 8, "hexa"), 8});
    cases.push_back({"tetra 5x5x5 / 6", box(3, 5, 5, 5, "tetra"), 6});
    for (const PartCase& pc : cases) {
        SCOPED_TRACE(pc.name);
        const std::vector<int> part = partition_cells(pc.mesh, pc.k);
        ASSERT_EQ(static_cast<index_t>(part.size()), pc.mesh.n_cells());
        const std::vector<index_t> count = part_sizes(part, pc.k);
        const double ideal = static_cast<double>(pc.mesh.n_cells()) / pc.k;
        for (int p = 0; p < pc.k; ++p) {
            EXPECT_GT(count[p], 0) << "part " << p;
            // METIS's default imbalance tolerance is 3 %; allow 5 % for the contiguity constraint.
            EXPECT_LE(static_cast<double>(count[p]), std::ceil(1.05 * ideal)) << "part " << p;
            EXPECT_TRUE(part_connected(pc.mesh, part, p)) << "part " << p;
        }
    }
}

TEST(Partition, DeterministicWhenComputedTwice) {
    const Mesh m = box(3, 6, 5, 4, "tetra");
    const std::vector<int> a = partition_cells(m, 5);
    const std::vector<int> b = partition_cells(m, 5);
    EXPECT_EQ(a, b);
    const Mesh m2 = box(3, 6, 5, 4, "tetra");
    EXPECT_EQ(partition_cells(m2, 5), a);
}

TEST(Partition, OnePartIsAllZeros) {
    const Mesh m = box(2, 3, 4, 1, "quad");
    EXPECT_EQ(partition_cells(m, 1), std::vector<int>(12, 0));
}

TEST(Partition, MorePartsThanCellsIsAnInputError) {
    const Mesh m = box(2, 3, 2, 1, "quad");
    try {
        partition_cells(m, 7);
        FAIL() << "no exception";
    } catch (const InputError& e) {
        EXPECT_NE(
            std::string(e.what()).find("the mesh has 6 cells, fewer than the 7 physical parts"),
            std::string::npos)
            << e.what();
    }
    EXPECT_THROW(partition_cells(m, 0), InputError);
}

TEST(Partition, AsManyPartsAsCellsGivesOneCellEach) {
    // Tiny graphs are where METIS may leave parts empty; every part must still get exactly one
    // cell.
    const std::vector<std::pair<Mesh, int>> cases = {{box(1, 5, 1, 1, "segment"), 5},
                                                     {box(2, 2, 2, 1, "quad"), 4},
                                                     {box(2, 3, 3, 1, "quad"), 9},
                                                     {box(2, 2, 1, 1, "triangle"), 4}};
    for (const auto& [m, k] : cases) {
        const std::vector<int> part = partition_cells(m, k);
        EXPECT_EQ(part_sizes(part, k), std::vector<index_t>(static_cast<std::size_t>(k), 1));
    }
    // One fewer part than cells: one part of two cells, all others single.
    const Mesh m = box(2, 3, 3, 1, "quad");
    std::vector<index_t> sizes = part_sizes(partition_cells(m, 8), 8);
    std::sort(sizes.begin(), sizes.end());
    EXPECT_EQ(sizes, (std::vector<index_t>{1, 1, 1, 1, 1, 1, 1, 2}));
}

TEST(Partition, DisconnectedGraphKeepsComponentsApart) {
    // Two chains of four cells with no face between them: the cut-minimising 2-way split is the two
    // chains (METIS cannot be asked for contiguous parts here).
    const Mesh m = graph_mesh(8, {{0, 1}, {1, 2}, {2, 3}, {4, 5}, {5, 6}, {6, 7}});
    const std::vector<int> part = partition_cells(m, 2);
    EXPECT_EQ(part_sizes(part, 2), (std::vector<index_t>{4, 4}));
    for (int c = 1; c < 4; ++c) EXPECT_EQ(part[c], part[0]);
    for (int c = 5; c < 8; ++c) EXPECT_EQ(part[c], part[4]);
    EXPECT_NE(part[0], part[4]);
}

TEST(Partition, NoInteriorFacesGivesConsecutiveBlocks) {
    const Mesh m = graph_mesh(5, {});
    EXPECT_EQ(partition_cells(m, 2), (std::vector<int>{0, 0, 0, 1, 1}));
}

TEST(Partition, DuplicateFacesBetweenTwoCellsAreOneEdge) {
    // Cells 0 and 1 share two faces (as split polygons can); METIS must see a single edge.
    const Mesh m = graph_mesh(4, {{0, 1}, {1, 0}, {1, 2}, {2, 3}, {2, 3}});
    const std::vector<int> part = partition_cells(m, 2);
    EXPECT_EQ(part_sizes(part, 2), (std::vector<index_t>{2, 2}));
    EXPECT_EQ(part[0], part[1]);
    EXPECT_EQ(part[2], part[3]);
}

// ---- local meshes
// ---------------------------------------------------------------------------------

TEST(LocalMesh, OneDimensionalChainExactLists) {
    const Mesh g = box(1, 6, 1, 1, "segment", {6, 1, 1});
    for (index_t c = 0; c < 6; ++c) ASSERT_DOUBLE_EQ(g.cell_centroid[c][0], c + 0.5);
    const LocalMesh L = build_local_mesh(g, {0, 0, 1, 1, 2, 2}, 1);
    EXPECT_EQ(L.part, 1);
    EXPECT_EQ(L.n_owned, 2);
    EXPECT_EQ(L.n_ghost, 2);
    EXPECT_EQ(L.n_global_cells, 6);
    EXPECT_EQ(L.global_cell, (std::vector<index_t>{2, 3, 1, 4}));
    EXPECT_EQ(L.ghost_part, (std::vector<int>{0, 2}));
    EXPECT_EQ(L.mesh.n_cells(), 4);
    EXPECT_EQ(L.halo.neighbours, (std::vector<int>{0, 2}));
    EXPECT_EQ(L.halo.send_cells, (std::vector<std::vector<index_t>>{{0}, {1}}));
    EXPECT_EQ(L.halo.recv_cells, (std::vector<std::vector<index_t>>{{2}, {3}}));
    // Faces at x = 2, 3, 4 (those touching an owned cell), in ascending global order.
    ASSERT_EQ(L.mesh.n_faces(), 3);
    std::vector<double> fx;
    for (index_t f = 0; f < 3; ++f) fx.push_back(L.mesh.face_centroid[f][0]);
    std::sort(fx.begin(), fx.end());
    EXPECT_EQ(fx, (std::vector<double>{2, 3, 4}));
    EXPECT_TRUE(std::is_sorted(L.global_face.begin(), L.global_face.end()));
    // Nodes of cells 1..4: x = 1..5.
    ASSERT_EQ(L.mesh.n_nodes(), 5);
    for (index_t v = 0; v < 5; ++v)
        EXPECT_DOUBLE_EQ(L.mesh.nodes[v][0], static_cast<double>(v + 1));
    // Owned cells see both their faces, ghosts only the one they share with an owned cell.
    const auto nfaces = [&](index_t c) {
        return L.mesh.cell_face_offsets[c + 1] - L.mesh.cell_face_offsets[c];
    };
    EXPECT_EQ(nfaces(0), 2);
    EXPECT_EQ(nfaces(1), 2);
    EXPECT_EQ(nfaces(2), 1);
    EXPECT_EQ(nfaces(3), 1);
    EXPECT_DOUBLE_EQ(L.mesh.cell_volume[0] + L.mesh.cell_volume[1], 2.0);
}

/// Every structural property of the local meshes of all parts, checked against the global mesh.
void check_local_meshes(const Mesh& g, const std::vector<int>& part, int k, double domain_volume) {
    std::vector<LocalMesh> locals;
    for (int p = 0; p < k; ++p) locals.push_back(build_local_mesh(g, part, p));

    std::vector<int> owned_times(static_cast<std::size_t>(g.n_cells()), 0);
    std::vector<int> face_copies(static_cast<std::size_t>(g.n_faces()), 0);
    double volume = 0;
    for (int p = 0; p < k; ++p) {
        SCOPED_TRACE("part " + std::to_string(p));
        const LocalMesh& L = locals[p];
        const Mesh& m = L.mesh;
        ASSERT_EQ(m.n_cells(), L.n_owned + L.n_ghost);
        ASSERT_EQ(static_cast<index_t>(L.global_cell.size()), m.n_cells());
        EXPECT_TRUE(std::is_sorted(L.global_cell.begin(), L.global_cell.begin() + L.n_owned));
        EXPECT_TRUE(std::is_sorted(L.global_cell.begin() + L.n_owned, L.global_cell.end()));
        for (index_t c = 0; c < L.n_owned; ++c) {
            EXPECT_EQ(part[L.global_cell[c]], p);
            ++owned_times[L.global_cell[c]];
            volume += m.cell_volume[c];
        }
        for (index_t i = 0; i < L.n_ghost; ++i) {
            const index_t gc = L.global_cell[L.n_owned + i];
            EXPECT_NE(part[gc], p);
            EXPECT_EQ(L.ghost_part[i], part[gc]);
        }
        // Every ghost is a face neighbour of an owned cell, and every such neighbour is a ghost.
        std::set<index_t> expected_ghosts;
        for (index_t f = 0; f < g.n_faces(); ++f) {
            const index_t a = g.face_owner[f], b = g.face_neighbour[f];
            if (b < 0) continue;
            if (part[a] == p && part[b] != p) expected_ghosts.insert(b);
            if (part[b] == p && part[a] != p) expected_ghosts.insert(a);
        }
        EXPECT_EQ(std::vector<index_t>(L.global_cell.begin() + L.n_owned, L.global_cell.end()),
                  std::vector<index_t>(expected_ghosts.begin(), expected_ghosts.end()));

        // Nodes: ascending global ids, same coordinates, cell connectivity maps back.
        EXPECT_TRUE(std::is_sorted(L.global_node.begin(), L.global_node.end()));
        for (index_t v = 0; v < m.n_nodes(); ++v) EXPECT_EQ(m.nodes[v], g.nodes[L.global_node[v]]);
        for (index_t c = 0; c < m.n_cells(); ++c) {
            const index_t gc = L.global_cell[c];
            EXPECT_EQ(m.cell_type[c], g.cell_type[gc]);
            EXPECT_EQ(m.cell_centroid[c], g.cell_centroid[gc]);
            ASSERT_EQ(m.cell_node_offsets[c + 1] - m.cell_node_offsets[c],
                      g.cell_node_offsets[gc + 1] - g.cell_node_offsets[gc]);
            for (index_t k2 = 0; k2 < m.cell_node_offsets[c + 1] - m.cell_node_offsets[c]; ++k2)
                EXPECT_EQ(L.global_node[m.cell_nodes[m.cell_node_offsets[c] + k2]],
                          g.cell_nodes[g.cell_node_offsets[gc] + k2]);
        }

        // Faces: same orientation, geometry and patch; owner/neighbour map back to the global
        // cells.
        EXPECT_TRUE(std::is_sorted(L.global_face.begin(), L.global_face.end()));
        for (index_t f = 0; f < m.n_faces(); ++f) {
            const index_t gf = L.global_face[f];
            ++face_copies[gf];
            EXPECT_EQ(L.global_cell[m.face_owner[f]], g.face_owner[gf]);
            const index_t nb = m.face_neighbour[f];
            EXPECT_EQ(nb < 0 ? index_t{-1} : L.global_cell[nb], g.face_neighbour[gf]);
            EXPECT_EQ(m.face_patch[f], g.face_patch[gf]);
            EXPECT_EQ(m.face_area[f], g.face_area[gf]);
            EXPECT_EQ(m.face_normal[f], g.face_normal[gf]);
            EXPECT_EQ(m.face_centroid[f], g.face_centroid[gf]);
            // Periodic faces: the global orientation is kept, so is the neighbour image's shift.
            if (g.face_shift.empty())
                EXPECT_TRUE(m.face_shift.empty());
            else if (static_cast<index_t>(m.face_shift.size()) == m.n_faces())
                EXPECT_EQ(m.face_shift[f], g.face_shift[gf]);
            else
                ADD_FAILURE() << "local face_shift has " << m.face_shift.size() << " entries for "
                              << m.n_faces() << " faces";
            std::vector<index_t> ln, gn;
            for (index_t q = m.face_node_offsets[f]; q < m.face_node_offsets[f + 1]; ++q)
                ln.push_back(L.global_node[m.face_nodes[q]]);
            for (index_t q = g.face_node_offsets[gf]; q < g.face_node_offsets[gf + 1]; ++q)
                gn.push_back(g.face_nodes[q]);
            EXPECT_EQ(ln, gn);
        }
        // cell -> faces: the global list for owned cells, the present faces for ghosts.
        for (index_t c = 0; c < m.n_cells(); ++c) {
            const index_t gc = L.global_cell[c];
            std::vector<index_t> lf, gf;
            for (index_t q = m.cell_face_offsets[c]; q < m.cell_face_offsets[c + 1]; ++q)
                lf.push_back(L.global_face[m.cell_faces[q]]);
            for (index_t q = g.cell_face_offsets[gc]; q < g.cell_face_offsets[gc + 1]; ++q) {
                const index_t f = g.cell_faces[q];
                const index_t a = g.face_owner[f], b = g.face_neighbour[f];
                if (c < L.n_owned || part[a] == p || (b >= 0 && part[b] == p)) gf.push_back(f);
            }
            EXPECT_EQ(lf, gf) << "local cell " << c;
        }

        // Halo lists against a direct computation from the global mesh.
        std::map<int, std::set<index_t>> send, recv;
        for (index_t f = 0; f < g.n_faces(); ++f) {
            const index_t a = g.face_owner[f], b = g.face_neighbour[f];
            if (b < 0 || part[a] == part[b]) continue;
            if (part[a] == p) {
                send[part[b]].insert(a);
                recv[part[b]].insert(b);
            }
            if (part[b] == p) {
                send[part[a]].insert(b);
                recv[part[a]].insert(a);
            }
        }
        std::vector<int> nbrs;
        for (const auto& kv : send) nbrs.push_back(kv.first);
        EXPECT_EQ(L.halo.neighbours, nbrs);
        ASSERT_EQ(L.halo.send_cells.size(), nbrs.size());
        ASSERT_EQ(L.halo.recv_cells.size(), nbrs.size());
        for (std::size_t i = 0; i < nbrs.size(); ++i) {
            std::vector<index_t> s, r;
            for (index_t c : L.halo.send_cells[i]) {
                EXPECT_LT(c, L.n_owned);
                s.push_back(L.global_cell[c]);
            }
            for (index_t c : L.halo.recv_cells[i]) {
                EXPECT_GE(c, L.n_owned);
                r.push_back(L.global_cell[c]);
            }
            const auto& es = send[nbrs[i]];
            const auto& er = recv[nbrs[i]];
            EXPECT_EQ(s, std::vector<index_t>(es.begin(), es.end()));
            EXPECT_EQ(r, std::vector<index_t>(er.begin(), er.end()));
        }
    }

    EXPECT_EQ(owned_times, std::vector<int>(static_cast<std::size_t>(g.n_cells()), 1));
    EXPECT_NEAR(volume, domain_volume, 1e-12 * domain_volume);
    // A face is in the local mesh of each part that owns one of its cells.
    for (index_t f = 0; f < g.n_faces(); ++f) {
        const index_t a = g.face_owner[f], b = g.face_neighbour[f];
        const int expected = (b >= 0 && part[a] != part[b]) ? 2 : 1;
        EXPECT_EQ(face_copies[f], expected) << "global face " << f;
    }
    // Symmetry: A's i-th send to B is, cell by cell, B's receive from A.
    for (int a = 0; a < k; ++a) {
        const LocalMesh& A = locals[a];
        for (std::size_t i = 0; i < A.halo.neighbours.size(); ++i) {
            const LocalMesh& B = locals[A.halo.neighbours[i]];
            const auto it = std::find(B.halo.neighbours.begin(), B.halo.neighbours.end(), a);
            ASSERT_NE(it, B.halo.neighbours.end());
            const auto j = static_cast<std::size_t>(it - B.halo.neighbours.begin());
            ASSERT_EQ(A.halo.send_cells[i].size(), B.halo.recv_cells[j].size());
            for (std::size_t q = 0; q < A.halo.send_cells[i].size(); ++q)
                EXPECT_EQ(A.global_cell[A.halo.send_cells[i][q]],
                          B.global_cell[B.halo.recv_cells[j][q]]);
        }
    }
}

TEST(LocalMesh, QuadBoxFourParts) {
    const Mesh g = box(2, 12, 10, 1, "quad", {2, 3, 1});
    check_local_meshes(g, partition_cells(g, 4), 4, 6.0);
}

TEST(LocalMesh, TriangleBoxThreeParts) {
    const Mesh g = box(2, 9, 7, 1, "triangle", {1.5, 1, 1});
    check_local_meshes(g, partition_cells(g, 3), 3, 1.5);
}

TEST(LocalMesh, TetraBoxFiveParts) {
    const Mesh g = box(3, 4, 4, 3, "tetra", {1, 2, 0.5});
    check_local_meshes(g, partition_cells(g, 5), 5, 1.0);
}

TEST(LocalMesh, HandMadeStripedPartition) {
    // Parts that interleave (part = column mod 3) give every part two neighbours on both sides.
    const Mesh g = box(2, 9, 4, 1, "quad");
    std::vector<int> part(static_cast<std::size_t>(g.n_cells()));
    for (index_t c = 0; c < g.n_cells(); ++c)
        part[c] = static_cast<int>(std::floor(g.cell_centroid[c][0] * 9)) % 3;
    check_local_meshes(g, part, 3, 1.0);
}

Mesh periodic_box(int dim, index_t nx, index_t ny, index_t nz, const std::string& type, Vec3 hi) {
    Mesh g = box(dim, nx, ny, nz, type, hi);
    std::vector<std::pair<std::string, std::string>> pairs{{"xmin", "xmax"}};
    if (dim >= 2) pairs.push_back({"ymin", "ymax"});
    if (dim == 3) pairs.push_back({"zmin", "zmax"});
    connect_periodic(g, pairs);
    return g;
}

TEST(LocalMesh, FullyPeriodicBoxesMetisParts) {
    const Mesh q = periodic_box(2, 12, 10, 1, "quad", {1.2, 1, 1});
    check_local_meshes(q, partition_cells(q, 4), 4, 1.2);
    const Mesh t = periodic_box(2, 7, 5, 1, "triangle", {1, 1, 1});
    check_local_meshes(t, partition_cells(t, 3), 3, 1.0);
    const Mesh h = periodic_box(3, 4, 3, 3, "hexa", {1, 1, 1});
    check_local_meshes(h, partition_cells(h, 5), 5, 1.0);
}

// Two halves in x of a box periodic in x: each half's ghosts are the column next to its interior
// cut AND the column across the periodic faces; the local shift is the global one (+-L_x on the
// faces at x = 0, where the xmin face is the owner side).
TEST(LocalMesh, PeriodicGhostsAcrossTheJoinedFaces) {
    Mesh g = box(2, 6, 3, 1, "quad", {1.5, 1, 1});
    connect_periodic(g, {{"xmin", "xmax"}});
    std::vector<int> part(static_cast<std::size_t>(g.n_cells()));
    for (index_t c = 0; c < g.n_cells(); ++c) part[c] = g.cell_centroid[c][0] < 0.75 ? 0 : 1;
    check_local_meshes(g, part, 2, 1.5);
    for (int p = 0; p < 2; ++p) {
        SCOPED_TRACE("part " + std::to_string(p));
        const LocalMesh L = build_local_mesh(g, part, p);
        ASSERT_EQ(L.n_owned, 9);
        ASSERT_EQ(L.n_ghost, 6);  // 3 cells at the cut, 3 across the periodic faces
        std::multiset<double> ghost_x;
        for (index_t i = L.n_owned; i < L.mesh.n_cells(); ++i)
            ghost_x.insert(L.mesh.cell_centroid[i][0]);
        const std::multiset<double> expected =
            p == 0 ? std::multiset<double>{0.875, 0.875, 0.875, 1.375, 1.375, 1.375}
                   : std::multiset<double>{0.125, 0.125, 0.125, 0.625, 0.625, 0.625};
        EXPECT_EQ(ghost_x, expected);
        index_t periodic = 0;
        for (index_t f = 0; f < L.mesh.n_faces(); ++f) {
            if (L.mesh.face_shift[f][0] == 0) continue;
            ++periodic;
            EXPECT_EQ(L.mesh.face_shift[f][0], -1.5);
            // The neighbour's image lies next to the owner, across the face at x = 0.
            const index_t a = L.mesh.face_owner[f], b = L.mesh.face_neighbour[f];
            EXPECT_DOUBLE_EQ(L.mesh.cell_centroid[a][0], 0.125);
            EXPECT_DOUBLE_EQ(L.mesh.cell_centroid[b][0] + L.mesh.face_shift[f][0], -0.125);
            EXPECT_EQ((a < L.n_owned) + (b < L.n_owned), 1);  // one side owned, one ghost
        }
        EXPECT_EQ(periodic, 3);
        // Halo: one neighbour part, 6 cells each way (the cut column and the periodic column).
        ASSERT_EQ(L.halo.neighbours, std::vector<int>{1 - p});
        EXPECT_EQ(L.halo.send_cells[0].size(), 6u);
        EXPECT_EQ(L.halo.recv_cells[0].size(), 6u);
    }
}

// A pressure jump on the x pair (add_jump_images, s = 1.25): the joined faces at x = 0 see an
// image of their neighbour (s times it, at its centroid - L_x); where the neighbour is owned it
// gets its own face at x = L_x with an image of the owner (1/s, at its centroid + L_x). Every
// owned cell stays closed with outward normals and no face keeps a shift. s = 1 changes nothing.
TEST(LocalMesh, JumpImagesSplitThePeriodicFaces) {
    Mesh g = box(2, 6, 3, 1, "quad", {1.5, 1, 1});
    connect_periodic(g, {{"xmin", "xmax"}});
    std::vector<int> part(static_cast<std::size_t>(g.n_cells()));
    for (index_t c = 0; c < g.n_cells(); ++c) part[c] = g.cell_centroid[c][0] < 0.75 ? 0 : 1;
    {
        LocalMesh L = build_local_mesh(g, part, 0);
        const index_t nf = L.mesh.n_faces(), nc = L.mesh.n_cells();
        add_jump_images(L, {1.0});
        EXPECT_EQ(L.mesh.n_faces(), nf);
        EXPECT_EQ(L.mesh.n_cells(), nc);
        EXPECT_TRUE(L.images.empty());
    }
    for (int p = 0; p < 2; ++p) {
        SCOPED_TRACE("part " + std::to_string(p));
        LocalMesh L = build_local_mesh(g, part, p);
        const index_t ghosts = L.n_ghost, nf0 = L.mesh.n_faces();
        add_jump_images(L, {1.25});
        const Mesh& M = L.mesh;
        const index_t nimg = p == 0 ? 3 : 6;
        ASSERT_EQ(L.images.dst.size(), static_cast<std::size_t>(nimg));
        EXPECT_EQ(L.n_ghost, ghosts + nimg);
        EXPECT_EQ(M.n_cells(), L.n_owned + L.n_ghost);
        EXPECT_EQ(M.n_faces(), nf0 + (p == 0 ? 0 : 3));
        ASSERT_EQ(L.jumps.size(), 3u);
        for (std::size_t k = 0; k < L.images.dst.size(); ++k) {
            const index_t src = L.images.src[k], dst = L.images.dst[k];
            EXPECT_GE(dst, L.n_owned + ghosts);
            EXPECT_EQ(L.global_cell[dst], L.global_cell[src]);
            const double sx = M.cell_centroid[src][0], ix = M.cell_centroid[dst][0];
            if (L.images.scale[k] == 1.25) {  // a B-side cell seen from x = 0
                EXPECT_DOUBLE_EQ(sx, 1.375);
                EXPECT_DOUBLE_EQ(ix, -0.125);
            } else {  // an A-side cell seen from x = L_x
                EXPECT_DOUBLE_EQ(L.images.scale[k], 0.8);
                EXPECT_DOUBLE_EQ(sx, 0.125);
                EXPECT_DOUBLE_EQ(ix, 1.625);
            }
        }
        for (const JumpFace& J : L.jumps) {
            EXPECT_EQ(J.scale, 1.25);
            EXPECT_GE(M.face_neighbour[J.face], L.n_owned + ghosts);  // an image
            if (p == 0) {
                EXPECT_EQ(J.partner, -1);  // the B side is a ghost here
                continue;
            }
            ASSERT_GE(J.partner, nf0);
            const index_t b = M.face_owner[J.partner];
            EXPECT_LT(b, L.n_owned);
            EXPECT_DOUBLE_EQ(M.face_normal[J.partner][0], 1.0);
            EXPECT_DOUBLE_EQ(M.face_centroid[J.partner][0], 1.5);
            EXPECT_EQ(M.face_area[J.partner], M.face_area[J.face]);
            const auto begin = M.cell_faces.begin() + M.cell_face_offsets[b];
            const auto end = M.cell_faces.begin() + M.cell_face_offsets[b + 1];
            EXPECT_EQ(std::count(begin, end, J.partner), 1);
            EXPECT_EQ(std::count(begin, end, J.face), 0);
        }
        for (const Vec3& s : M.face_shift) EXPECT_EQ(s, (Vec3{0, 0, 0}));
        for (index_t i = 0; i < L.n_owned; ++i) {
            Vec3 sum{0, 0, 0};
            for (index_t k = M.cell_face_offsets[i]; k < M.cell_face_offsets[i + 1]; ++k) {
                const index_t f = M.cell_faces[k];
                const double sg = M.face_owner[f] == i ? 1.0 : -1.0;
                double out = 0;
                for (int d = 0; d < 3; ++d) {
                    sum[d] += sg * M.face_area[f] * M.face_normal[f][d];
                    out +=
                        sg * M.face_normal[f][d] * (M.face_centroid[f][d] - M.cell_centroid[i][d]);
                }
                EXPECT_GT(out, 0.0) << "cell " << i << " face " << f;
            }
            for (int d = 0; d < 3; ++d) EXPECT_NEAR(sum[d], 0.0, 1e-14) << "cell " << i;
        }
    }
}

TEST(Partition, PeriodicFacesAreGraphEdges) {
    // A periodic ring of 8 segments in 2 parts: METIS cuts the ring twice, parts stay contiguous.
    Mesh g = box(1, 8, 1, 1, "segment", {8, 1, 1});
    connect_periodic(g, {{"xmin", "xmax"}});
    ASSERT_EQ(g.n_faces(), 8);
    const auto part = partition_cells(g, 2);
    EXPECT_EQ(part_sizes(part, 2), (std::vector<index_t>{4, 4}));
    int cuts = 0;
    for (index_t f = 0; f < g.n_faces(); ++f)
        cuts += part[g.face_owner[f]] != part[g.face_neighbour[f]];
    EXPECT_EQ(cuts, 2);
    check_local_meshes(g, part, 2, 8.0);
}

TEST(LocalMesh, SinglePartHasNoGhostsAndTheWholeMesh) {
    const Mesh g = box(3, 3, 2, 2, "prism");
    const LocalMesh L =
        build_local_mesh(g, std::vector<int>(static_cast<std::size_t>(g.n_cells()), 0), 0);
    EXPECT_EQ(L.n_owned, g.n_cells());
    EXPECT_EQ(L.n_ghost, 0);
    EXPECT_TRUE(L.halo.neighbours.empty());
    EXPECT_EQ(L.mesh.n_faces(), g.n_faces());
    EXPECT_EQ(L.mesh.n_nodes(), g.n_nodes());
    EXPECT_EQ(L.mesh.face_owner, g.face_owner);
    EXPECT_EQ(L.mesh.face_neighbour, g.face_neighbour);
    EXPECT_EQ(L.mesh.cell_faces, g.cell_faces);
    EXPECT_EQ(L.mesh.patch_names, g.patch_names);
}

}  // namespace
}  // namespace ugks

// Donor search: every element type (2D/3D, perturbed non-affine cells): tree search equals brute
// force, weights sum to 1, receptors lie inside their donors, linear fields are interpolated
// exactly; natural coordinates of the element nodes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "overset_test_meshes.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

struct TypeCase {
    int dim;
    const char* type;
    int n;
};

OversetGrid grid_of(Mesh m) {
    OversetSystem sys;
    add_grid(sys, "g", std::move(m), 0, {});
    OversetGrid g = std::move(sys.grids[0]);
    const index_t n = g.mesh.n_nodes();
    g.xyz.resize(static_cast<std::size_t>(n) * 3);
    for (index_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) g.xyz[i * 3 + a] = g.mesh.nodes[i][a];
    g.cell_box = cell_boxes(g.mesh, g.xyz.data());
    g.donor_tree = build_kdtree(g.cell_box.data(), g.mesh.n_cells(), 2 * g.mesh.dim, 3);
    g.cell_status.assign(static_cast<std::size_t>(g.mesh.n_cells()), 1);
    return g;
}

}  // namespace

TEST(CellLocate, ElementNodesHaveUnitWeights) {
    // reference nodes of every type map to weight 1 at that node
    const double tri[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const double hex[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    const double prism[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};
    const double pyr[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1};
    const double tet[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    struct T {
        int type, dim;
        const double* xn;
    } cases[] = {{2, 2, tri}, {3, 2, hex}, {4, 3, tet}, {5, 3, hex}, {6, 3, prism}, {7, 3, pyr}};
    for (const T& c : cases) {
        for (int i = 0; i < shape_count(c.type); ++i) {
            double xi[3], w[8];
            ASSERT_TRUE(locate_in_cell(c.type, c.dim, c.xn, c.xn + 3 * i, xi, w))
                << "type " << c.type << " node " << i;
            for (int j = 0; j < shape_count(c.type); ++j)
                EXPECT_NEAR(w[j], i == j ? 1.0 : 0.0, 1e-12) << c.type << " " << i << " " << j;
        }
        double far[3] = {5, 5, 5}, xi[3], w[8];
        EXPECT_FALSE(locate_in_cell(c.type, c.dim, c.xn, far, xi, w));
    }
}

TEST(DonorSearch, EveryElementTypeAgainstBruteForceAndLinearExactness) {
    const TypeCase cases[] = {{2, "triangle", 12}, {2, "quad", 12}, {3, "tetra", 5},
                              {3, "hexa", 5},      {3, "prism", 5}, {3, "pyramid", 5}};
    for (const TypeCase& tc : cases) {
        OversetGrid g =
            grid_of(test::perturbed_box(tc.dim, tc.type, tc.n, 0.2, 3, {-1, -1, -1}, {1, 1, 1}));
        std::mt19937 rng(4);
        std::uniform_real_distribution<double> u(-1.1, 1.1);
        const double a0 = 0.3, b[3] = {1.7, -2.3, 0.9};
        int found = 0;
        for (int q = 0; q < 1500; ++q) {
            double x[3] = {u(rng), u(rng), tc.dim == 3 ? u(rng) : 0.0};
            if (q % 50 == 0)  // a mesh node: on shared faces/edges
                for (int a = 0; a < 3; ++a) x[a] = g.xyz[(q % g.mesh.n_nodes()) * 3 + a];
            double w[8], wb[8];
            const index_t c = find_donor(g, tc.dim, x, false, w);
            const index_t cb = find_donor_brute(g, tc.dim, x, false, wb);
            ASSERT_EQ(c, cb) << tc.type << " query " << q;
            const bool inside =
                std::fabs(x[0]) <= 1 && std::fabs(x[1]) <= 1 && std::fabs(x[2]) <= 1;
            if (inside) ASSERT_GE(c, 0) << tc.type << ": no donor for an interior point " << q;
            if (c < 0) continue;
            ++found;
            double sw = 0, f = 0, xr[3] = {0, 0, 0};
            const index_t o = g.mesh.cell_node_offsets[c];
            const int nn = static_cast<int>(g.mesh.cell_node_offsets[c + 1] - o);
            for (int j = 0; j < nn; ++j) {
                const double* xn = g.xyz.data() + 3 * g.mesh.cell_nodes[o + j];
                sw += w[j];
                f += w[j] * (a0 + b[0] * xn[0] + b[1] * xn[1] + b[2] * xn[2]);
                for (int a = 0; a < 3; ++a) xr[a] += w[j] * xn[a];
                EXPECT_GE(w[j], -1e-9);
            }
            EXPECT_NEAR(sw, 1.0, 1e-14) << tc.type;
            EXPECT_NEAR(f, a0 + b[0] * x[0] + b[1] * x[1] + b[2] * x[2], 1e-13) << tc.type;
            for (int a = 0; a < tc.dim; ++a) EXPECT_NEAR(xr[a], x[a], 1e-13) << tc.type;
        }
        EXPECT_GT(found, 1000) << tc.type;
    }
}

TEST(DonorSearch, StretchedCellsAgainstBruteForce) {
    // 100:1 cells (a thin stretched box)
    OversetGrid g = grid_of(test::perturbed_box(3, "hexa", 6, 0.15, 5, {0, 0, 0}, {100, 1, 1}));
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> u(0, 1);
    for (int q = 0; q < 2000; ++q) {
        double x[3] = {100 * u(rng), u(rng), u(rng)}, w[8], wb[8];
        const index_t c = find_donor(g, 3, x, false, w);
        ASSERT_EQ(c, find_donor_brute(g, 3, x, false, wb));
        ASSERT_GE(c, 0);
    }
}

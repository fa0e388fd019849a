// Assembly: wall distance against brute force (all grids' wall points, with and without the
// advancing-front radius), exact layer distances, the standard configuration (a body grid inside
// a box: no orphans, donors never holes, receptors inside donors, linear fields exact), invariance
// under a common rigid motion, full-period rotation, a 3D configuration.
#include <gtest/gtest.h>

#include <cmath>

#include "overset_test_meshes.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

Mesh background_2d(int n = 60, double L = 3) {
    BoxSpec b;
    b.dim = 2;
    b.n = {n, n, 1};
    b.lo = {-L, -L, 0};
    b.hi = {L, L, 0};
    b.cell_type = "quad";
    return make_box(b);
}

OversetSystem cylinder_in_box(const Motion& body_motion = {}, double ds = 0.6137) {
    OversetSystem sys;
    sys.layer_spacing = ds;
    add_grid(sys, "background", background_2d(), 0, {});
    add_grid(sys, "cylinder", test::make_annulus(0.5, 1.5, 16, 96), 1, {"wall"}, body_motion);
    return sys;
}

// Checks that must hold after every assembly.
void check_assembly(const OversetSystem& sys, const AssemblyCounts& c) {
    EXPECT_EQ(c.active_cells + c.fringe_cells + c.hole_cells, c.cells);
    EXPECT_EQ(c.active_nodes + c.inactive_nodes, c.nodes);
    EXPECT_EQ(c.orphans, 0);
    for (std::size_t gi = 0; gi < sys.grids.size(); ++gi) {
        const OversetGrid& g = sys.grids[gi];
        for (std::size_t r = 0; r < g.fringe_node.size(); ++r) {
            const int dg = g.fringe_donor_grid[r];
            const index_t dc = g.fringe_donor_cell[r];
            if (dc < 0) continue;
            ASSERT_NE(dg, static_cast<int>(gi));
            const OversetGrid& h = sys.grids[dg];
            ASSERT_NE(h.cell_status[dc], 0) << "donor is a hole cell";
            EXPECT_EQ(g.node_status[g.fringe_node[r]], 0);
            // receptor inside its donor: sum w x = x; linear field exact; weights sum to 1
            const double* x = g.xyz.data() + 3 * g.fringe_node[r];
            const index_t o = h.mesh.cell_node_offsets[dc];
            const int nn = static_cast<int>(h.mesh.cell_node_offsets[dc + 1] - o);
            double sw = 0, f = 0, xr[3] = {0, 0, 0};
            for (int j = 0; j < nn; ++j) {
                const double w = g.fringe_weights[r * kMaxCellNodes + j];
                const double* xn = h.xyz.data() + 3 * h.mesh.cell_nodes[o + j];
                sw += w;
                f += w * (2.0 + 0.7 * xn[0] - 1.3 * xn[1] + 0.4 * xn[2]);
                for (int a = 0; a < 3; ++a) xr[a] += w * xn[a];
                ASSERT_GE(w, -1e-9);
            }
            ASSERT_NEAR(sw, 1.0, 1e-14);
            ASSERT_NEAR(f, 2.0 + 0.7 * x[0] - 1.3 * x[1] + 0.4 * x[2], 1e-13);
            for (int a = 0; a < 3; ++a) ASSERT_NEAR(xr[a], x[a], 1e-13);
        }
    }
}

}  // namespace

TEST(WallDistance, EqualsBruteForceOverAllGridsWalls) {
    for (bool front : {true, false}) {
        OversetSystem sys;
        sys.advancing_front = front;
        add_grid(sys, "background", background_2d(40), 0, {});
        add_grid(sys, "a", test::make_annulus(0.3, 1.0, 10, 60, {-1, 0, 0}), 1, {"wall"});
        add_grid(sys, "b", test::make_annulus(0.2, 0.9, 8, 48, {1.1, 0.3, 0}), 1, {"wall"});
        assemble(sys, 0.0);
        std::vector<double> walls;
        for (const auto& g : sys.grids)
            for (index_t i : g.wall_nodes)
                for (int a = 0; a < 3; ++a) walls.push_back(g.xyz[i * 3 + a]);
        for (std::size_t gi = 1; gi < 3; ++gi) {
            const auto& g = sys.grids[gi];
            const auto b =
                nearest_distances_brute(walls.data(), static_cast<index_t>(walls.size() / 3),
                                        g.xyz.data(), g.mesh.n_nodes());
            for (index_t i = 0; i < g.mesh.n_nodes(); ++i)
                ASSERT_EQ(g.wall_distance[i], b[i]) << g.name << " node " << i;
        }
    }
}

TEST(WallDistance, LayerDistancesAreExactMultiplesOfTheSpacing) {
    OversetSystem sys;
    sys.layer_spacing = 0.37;
    add_grid(sys, "far", background_2d(20, 6), 0, {});
    add_grid(sys, "near", background_2d(30, 2.5), 1, {});
    add_grid(sys, "body", test::make_annulus(0.5, 1.5, 8, 48), 2, {"wall"});
    assemble(sys, 0.0);
    for (double d : sys.grids[0].wall_distance) ASSERT_EQ(d, 2 * 0.37);
    for (double d : sys.grids[1].wall_distance) ASSERT_EQ(d, 0.37);
    check_assembly(sys, assemble(sys, 0.0));
}

TEST(Assembly, CylinderInBoxStandardConfiguration) {
    OversetSystem sys = cylinder_in_box();
    AssemblyTimes t;
    const AssemblyCounts c = assemble(sys, 0.0, &t);
    check_assembly(sys, c);
    EXPECT_GT(c.hole_cells, 0);
    EXPECT_GT(c.fringe_cells, 0);
    EXPECT_GT(c.receptors, 0);
    // background nodes inside the cylinder: cut explicitly; without the explicit hole cut they
    // are removed as islands, with the same classification
    EXPECT_GT(c.hole_cut, 0);
    EXPECT_EQ(c.islands_removed, 0);
    OversetSystem off = cylinder_in_box();
    off.hole_cut = false;
    const AssemblyCounts co = assemble(off, 0.0);
    EXPECT_GT(co.islands_removed, 0);
    EXPECT_EQ(co.hole_cut, 0);
    for (std::size_t g = 0; g < sys.grids.size(); ++g) {
        EXPECT_EQ(off.grids[g].node_status, sys.grids[g].node_status);
        EXPECT_EQ(off.grids[g].cell_status, sys.grids[g].cell_status);
        EXPECT_EQ(off.grids[g].fringe_donor_cell, sys.grids[g].fringe_donor_cell);
    }
    const OversetGrid& bg = sys.grids[0];
    const OversetGrid& cyl = sys.grids[1];
    // background nodes inside the body (r < 0.5) and near the wall are inactive; far ones active
    for (index_t i = 0; i < bg.mesh.n_nodes(); ++i) {
        const double r = std::hypot(bg.xyz[3 * i], bg.xyz[3 * i + 1]);
        if (r < 0.9) ASSERT_EQ(bg.node_status[i], 0) << "r " << r;
        if (r > 1.5) ASSERT_EQ(bg.node_status[i], 1) << "r " << r;
    }
    // body grid: active near the wall, cut at its outer edge (wall distance > Δs)
    for (index_t i = 0; i < cyl.mesh.n_nodes(); ++i) {
        if (cyl.wall_distance[i] < 0.5) ASSERT_EQ(cyl.node_status[i], 1);
        if (cyl.wall_distance[i] > 0.75) ASSERT_EQ(cyl.node_status[i], 0);
    }
    EXPECT_GT(t.total(), 0.0);
}

TEST(Assembly, InvariantUnderACommonRigidMotion) {
    OversetSystem a = cylinder_in_box(), b = cylinder_in_box();
    assemble(a, 0.0);
    Pose common = rotation_pose({0, 0, 1}, {0.3, -0.2, 0}, 0.7);
    common.shift = {1.25, -3.5, 0};
    check_assembly(b, assemble(b, 0.0, nullptr, common));
    for (int gi = 0; gi < 2; ++gi) {
        const auto& ga = a.grids[gi];
        const auto& gb = b.grids[gi];
        EXPECT_EQ(ga.node_status, gb.node_status) << ga.name;
        EXPECT_EQ(ga.cell_status, gb.cell_status) << ga.name;
        EXPECT_EQ(ga.fringe_node, gb.fringe_node) << ga.name;
        EXPECT_EQ(ga.fringe_donor_cell, gb.fringe_donor_cell) << ga.name;
        for (std::size_t i = 0; i < ga.wall_distance.size(); ++i)
            ASSERT_NEAR(ga.wall_distance[i], gb.wall_distance[i], 1e-12);
    }
}

TEST(Assembly, FullPeriodRotationReturnsTheInitialClassification) {
    Motion m;
    m.type = Motion::Type::Rotation;
    m.axis = {0, 0, 1};
    m.point = {0.2, 0.1, 0};  // off-centre: the body sweeps through the background
    m.omega = 1.3;
    OversetSystem sys = cylinder_in_box(m);
    check_assembly(sys, assemble(sys, 0.0));
    const auto n0 = sys.grids[0].node_status, n1 = sys.grids[1].node_status;
    const auto c0 = sys.grids[0].cell_status, c1 = sys.grids[1].cell_status;
    const auto d0 = sys.grids[0].fringe_donor_cell, d1 = sys.grids[1].fringe_donor_cell;
    const double period = 2 * std::acos(-1.0) / m.omega;
    bool changed = false;
    for (int s = 1; s <= 4; ++s) {  // intermediate poses differ and stay orphan-free
        check_assembly(sys, assemble(sys, period * s / 4.5));
        changed = changed || sys.grids[0].node_status != n0;
    }
    EXPECT_TRUE(changed);
    check_assembly(sys, assemble(sys, period));
    EXPECT_EQ(sys.grids[0].node_status, n0);
    EXPECT_EQ(sys.grids[1].node_status, n1);
    EXPECT_EQ(sys.grids[0].cell_status, c0);
    EXPECT_EQ(sys.grids[1].cell_status, c1);
    EXPECT_EQ(sys.grids[0].fringe_donor_cell, d0);
    EXPECT_EQ(sys.grids[1].fringe_donor_cell, d1);
}

TEST(Assembly, TranslationAndPoseTable) {
    Motion t;
    t.type = Motion::Type::Translation;
    t.velocity = {0.5, -0.25, 0};
    Motion p;
    p.type = Motion::Type::Poses;
    p.table = {{0, 0, 0, 0, 0}, {1, 0.5, -0.25, 0, 0}, {2, 1.0, -0.5, 0, 0}};
    OversetSystem a = cylinder_in_box(t), b = cylinder_in_box(p);
    check_assembly(a, assemble(a, 1.5));
    check_assembly(b, assemble(b, 1.5));
    for (int gi = 0; gi < 2; ++gi) {
        EXPECT_EQ(a.grids[gi].node_status, b.grids[gi].node_status);
        for (std::size_t i = 0; i < a.grids[gi].xyz.size(); ++i)
            ASSERT_NEAR(a.grids[gi].xyz[i], b.grids[gi].xyz[i], 1e-14);
    }
    const Pose q = pose_at(p, 5.0);  // held after the table
    EXPECT_DOUBLE_EQ(q.shift[0], 1.0);
}

TEST(Assembly, ThreeDimensionalBodyInABox) {
    // A body box with a wall on its zmin face (a plate) inside a background box; every 3D type.
    for (const char* type : {"tetra", "prism", "pyramid", "hexa"}) {
        OversetSystem sys;
        sys.layer_spacing = 0.3;
        BoxSpec bg;
        bg.dim = 3;
        bg.n = {14, 14, 14};
        bg.lo = {-1.5, -1.5, -1.5};
        bg.hi = {1.5, 1.5, 1.5};
        bg.cell_type = "hexa";
        add_grid(sys, "background", make_box(bg), 0, {});
        Mesh body = test::perturbed_box(3, type, 6, 0.15, 7, {-0.6, -0.6, -0.3}, {0.6, 0.6, 0.6});
        add_grid(sys, "body", std::move(body), 1, {"zmin"});
        const AssemblyCounts c = assemble(sys, 0.0);
        check_assembly(sys, c);
        EXPECT_GT(c.hole_cells, 0) << type;
        EXPECT_GT(c.fringe_cells, 0) << type;
    }
}

// The standard overset cases of cases/overset_* (sphere in a box, airfoil with a rotating flap,
// store separation) at a small size (coarser backgrounds, the committed body grids), assembled at
// every step of their motion through the case files' own parsing and mesh loading. After every
// assembly: no orphans, fringes and holes present, every receptor inside its donor cell (an
// independent polygon test in 2D, a convex combination of the donor's nodes in 3D), weights summing
// to 1, a linear field interpolated exactly (1e-12), every node inside a solid body inactive and
// every cell inside a body a hole, nodes next to their own wall active and background nodes far
// from the bodies active. The flap's full period returns the initial classification bit for bit.
// The explicit hole cut changes nothing in these cases (every step equals the assembly without it)
// and is what keeps a flap grid reaching into the main element right (no node inside a body
// active, no orphans; without the cut: active nodes inside the main element and orphans).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ugks/core/config.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

struct CaseSystem {
    OversetCase oc;
    OversetSystem sys;
};

CaseSystem load_case(const std::string& name, const std::vector<std::string>& overrides) {
    Config cfg = Config::from_file(std::string(UGKS_SOURCE_DIR) + "/cases/overset_" + name +
                                   "/overset_" + name + ".yaml");
    for (const auto& o : overrides) cfg.apply_override(o);
    CaseSystem c;
    c.oc = parse_overset_case(cfg);
    std::vector<Mesh> meshes;
    for (const GridSpec& g : c.oc.grids) meshes.push_back(load_mesh(g.mesh));
    check_case_meshes(cfg, c.oc, meshes);
    c.sys = make_system(c.oc, std::move(meshes));
    return c;
}

// Point-in-polygon (even-odd) of the 2D point p against the edges (a, b) of a closed curve.
bool inside_edges(const std::vector<std::array<double, 4>>& edges, const double* p) {
    bool in = false;
    for (const auto& e : edges) {
        const double x1 = e[0], y1 = e[1], x2 = e[2], y2 = e[3];
        if ((y1 > p[1]) != (y2 > p[1]) && p[0] < (x2 - x1) * (p[1] - y1) / (y2 - y1) + x1) in = !in;
    }
    return in;
}

// The solid body of a wall-carrying grid at its current pose: in 2D the wall edges (boundary faces
// of the wall patches), in 3D a sphere (centre and radius from the wall nodes; the sphere case).
struct Body {
    int grid = -1;
    std::vector<std::array<double, 4>> edges;
    double c[3] = {0, 0, 0}, r = 0;
    bool inside(int dim, const double* x) const {
        if (dim == 2) return inside_edges(edges, x);
        const double d = std::sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) +
                                   (x[2] - c[2]) * (x[2] - c[2]));
        return d < 0.98 * r;  // inside the faceted wall (facet sagitta < 0.5 % of r here)
    }
};

std::vector<Body> bodies(const CaseSystem& cs) {
    std::vector<Body> out;
    for (std::size_t gi = 0; gi < cs.sys.grids.size(); ++gi) {
        const OversetGrid& g = cs.sys.grids[gi];
        if (g.wall_nodes.empty()) continue;
        Body b;
        b.grid = static_cast<int>(gi);
        const Mesh& m = g.mesh;
        std::vector<int> wall_patch(m.patch_names.size(), 0);
        for (const std::string& w : cs.oc.grids[gi].walls) wall_patch[m.patch_index(w)] = 1;
        for (index_t f = 0; f < m.n_faces(); ++f) {
            if (m.face_neighbour[f] >= 0 || !wall_patch[m.face_patch[f]]) continue;
            if (cs.sys.dim == 2) {
                const index_t a = m.face_nodes[m.face_node_offsets[f]];
                const index_t e = m.face_nodes[m.face_node_offsets[f] + 1];
                b.edges.push_back({g.xyz[3 * a], g.xyz[3 * a + 1], g.xyz[3 * e], g.xyz[3 * e + 1]});
            }
        }
        if (cs.sys.dim == 3) {
            for (const index_t i : g.wall_nodes)
                for (int a = 0; a < 3; ++a) b.c[a] += g.xyz[3 * i + a] / g.wall_nodes.size();
            for (const index_t i : g.wall_nodes)
                b.r += std::sqrt(std::pow(g.xyz[3 * i] - b.c[0], 2) +
                                 std::pow(g.xyz[3 * i + 1] - b.c[1], 2) +
                                 std::pow(g.xyz[3 * i + 2] - b.c[2], 2)) /
                       g.wall_nodes.size();
        }
        out.push_back(std::move(b));
    }
    return out;
}

double linear_field(const double* x) { return 1.7 + 3.1 * x[0] - 2.3 * x[1] + 0.9 * x[2]; }

// Everything that must hold after each assembly; `far` = distance from all walls beyond which the
// background must be active (the largest body-grid extent plus a background cell).
void check_step(const CaseSystem& cs, const AssemblyCounts& cnt, double far,
                const std::string& at) {
    SCOPED_TRACE(at);
    const OversetSystem& sys = cs.sys;
    const int dim = sys.dim;
    ASSERT_EQ(cnt.orphans, 0);
    EXPECT_EQ(cnt.active_cells + cnt.fringe_cells + cnt.hole_cells, cnt.cells);
    EXPECT_EQ(cnt.active_nodes + cnt.inactive_nodes, cnt.nodes);
    const std::vector<Body> bs = bodies(cs);
    ASSERT_EQ(bs.size(), sys.grids.size() - 1);  // one background, the rest body grids
    long receptors_checked = 0;
    for (std::size_t gi = 0; gi < sys.grids.size(); ++gi) {
        const OversetGrid& g = sys.grids[gi];
        const Mesh& m = g.mesh;
        long fringe = 0, holes = 0;
        for (const auto s : g.cell_status) fringe += s == -1, holes += s == 0;
        EXPECT_GT(fringe, 0) << g.name;
        if (gi == 0) EXPECT_GT(holes, 0) << g.name;
        EXPECT_EQ(g.n_orphans, 0) << g.name;
        // receptors: inside their donor cell, weights sum to 1, linear fields exact
        for (std::size_t r = 0; r < g.fringe_node.size(); ++r) {
            const int dg = g.fringe_donor_grid[r];
            const index_t dc = g.fringe_donor_cell[r];
            ASSERT_GE(dg, 0);
            ASSERT_GE(dc, 0);
            ASSERT_NE(dg, static_cast<int>(gi));
            ASSERT_EQ(g.node_status[g.fringe_node[r]], 0);
            const OversetGrid& h = sys.grids[dg];
            ASSERT_NE(h.cell_status[dc], 0) << "donor is a hole";
            const double* x = g.xyz.data() + 3 * g.fringe_node[r];
            const index_t o = h.mesh.cell_node_offsets[dc];
            const int nn = static_cast<int>(h.mesh.cell_node_offsets[dc + 1] - o);
            ASSERT_EQ(nn, shape_count(static_cast<int>(h.mesh.cell_type[dc])));
            double sw = 0, f = 0, xr[3] = {0, 0, 0};
            std::vector<std::array<double, 4>> poly;
            for (int j = 0; j < nn; ++j) {
                const double w = g.fringe_weights[r * kMaxCellNodes + j];
                const double* xn = h.xyz.data() + 3 * h.mesh.cell_nodes[o + j];
                const double* xm = h.xyz.data() + 3 * h.mesh.cell_nodes[o + (j + 1) % nn];
                poly.push_back({xn[0], xn[1], xm[0], xm[1]});
                ASSERT_GE(w, -1e-10);  // a convex combination of the donor's nodes
                sw += w;
                f += w * linear_field(xn);
                for (int a = 0; a < 3; ++a) xr[a] += w * xn[a];
            }
            for (int j = nn; j < kMaxCellNodes; ++j)
                ASSERT_EQ(g.fringe_weights[r * kMaxCellNodes + j], 0.0);
            ASSERT_NEAR(sw, 1.0, 1e-13);
            ASSERT_NEAR(f, linear_field(x), 1e-12);
            for (int a = 0; a < 3; ++a) ASSERT_NEAR(xr[a], x[a], 1e-12);
            if (dim == 2) {  // independent polygon test (nudged towards the centroid by 1e-12)
                double c[2] = {0, 0};
                for (const auto& e : poly) c[0] += e[0] / nn, c[1] += e[1] / nn;
                const double p[2] = {x[0] + 1e-9 * (c[0] - x[0]), x[1] + 1e-9 * (c[1] - x[1])};
                ASSERT_TRUE(inside_edges(poly, p)) << g.name << " receptor " << r;
            }
            ++receptors_checked;
        }
        // holes inside bodies; nodes near their own wall active; far background active
        std::vector<double> own;  // distance to the grid's own wall nodes
        for (const index_t i : g.wall_nodes)
            for (int a = 0; a < 3; ++a) own.push_back(g.xyz[3 * i + a]);
        const std::vector<double> d_own =
            own.empty() ? std::vector<double>(m.n_nodes(), 1e300)
                        : nearest_distances_brute(own.data(), static_cast<index_t>(own.size() / 3),
                                                  g.xyz.data(), m.n_nodes());
        for (index_t i = 0; i < m.n_nodes(); ++i) {
            const double* x = g.xyz.data() + 3 * i;
            bool in_body = false;
            for (const Body& b : bs)
                if (b.grid != static_cast<int>(gi) && b.inside(dim, x)) in_body = true;
            if (in_body) ASSERT_EQ(g.node_status[i], 0) << g.name << " node " << i << " in a body";
            if (gi > 0 && !in_body && d_own[i] < 0.5 * sys.layer_spacing)
                ASSERT_EQ(g.node_status[i], 1) << g.name << " node " << i << " near its wall";
        }
        for (index_t c = 0; c < m.n_cells(); ++c) {
            bool all_in = true;
            for (index_t b = m.cell_node_offsets[c]; b < m.cell_node_offsets[c + 1] && all_in;
                 ++b) {
                bool in = false;
                for (const Body& bd : bs)
                    if (bd.grid != static_cast<int>(gi) &&
                        bd.inside(dim, g.xyz.data() + 3 * m.cell_nodes[b]))
                        in = true;
                all_in = in;
            }
            if (all_in) ASSERT_EQ(g.cell_status[c], 0) << g.name << " cell " << c << " in a body";
        }
    }
    EXPECT_EQ(receptors_checked, cnt.receptors);
    // background nodes farther than `far` from every wall node are active
    std::vector<double> walls;
    for (const OversetGrid& g : sys.grids)
        for (const index_t i : g.wall_nodes)
            for (int a = 0; a < 3; ++a) walls.push_back(g.xyz[3 * i + a]);
    const OversetGrid& bg = sys.grids[0];
    const std::vector<double> d = nearest_distances_brute(
        walls.data(), static_cast<index_t>(walls.size() / 3), bg.xyz.data(), bg.mesh.n_nodes());
    long far_nodes = 0;
    for (index_t i = 0; i < bg.mesh.n_nodes(); ++i)
        if (d[i] > far) {
            ++far_nodes;
            ASSERT_EQ(bg.node_status[i], 1) << "background node " << i << " at " << d[i];
        }
    EXPECT_GT(far_nodes, bg.mesh.n_nodes() / 2);
}

struct Snapshot {
    std::vector<std::vector<std::int8_t>> node_status, cell_status;
    std::vector<std::vector<index_t>> fringe_node, donor_cell;
    std::vector<std::vector<int>> donor_grid;
    std::vector<std::vector<double>> weights, wall_distance;
    /// node/cell status, receptors and their donors equal
    bool same_classification(const Snapshot& o) const {
        return node_status == o.node_status && cell_status == o.cell_status &&
               fringe_node == o.fringe_node && donor_cell == o.donor_cell &&
               donor_grid == o.donor_grid;
    }
    /// ... and the weights and wall distances bit for bit
    bool operator==(const Snapshot& o) const {
        return same_classification(o) && weights == o.weights && wall_distance == o.wall_distance;
    }
    /// largest difference of the weights and wall distances (same classification)
    double max_difference(const Snapshot& o) const {
        double m = 0;
        for (std::size_t g = 0; g < weights.size(); ++g) {
            for (std::size_t i = 0; i < weights[g].size(); ++i)
                m = std::max(m, std::abs(weights[g][i] - o.weights[g][i]));
            for (std::size_t i = 0; i < wall_distance[g].size(); ++i)
                m = std::max(m, std::abs(wall_distance[g][i] - o.wall_distance[g][i]));
        }
        return m;
    }
};

Snapshot snapshot(const OversetSystem& sys) {
    Snapshot s;
    for (const OversetGrid& g : sys.grids) {
        s.node_status.push_back(g.node_status);
        s.cell_status.push_back(g.cell_status);
        s.fringe_node.push_back(g.fringe_node);
        s.donor_cell.push_back(g.fringe_donor_cell);
        s.donor_grid.push_back(g.fringe_donor_grid);
        s.weights.push_back(g.fringe_weights);
        s.wall_distance.push_back(g.wall_distance);
    }
    return s;
}

/// The system with the explicit hole cut off (the assembly before it existed).
OversetSystem without_hole_cut(const OversetSystem& sys) {
    OversetSystem s = sys;
    s.hole_cut = false;
    s.device.reset();
    return s;
}

/// Nodes of any grid inside another grid's body that are active.
long active_in_bodies(const CaseSystem& cs) {
    const std::vector<Body> bs = bodies(cs);
    long n = 0;
    for (std::size_t gi = 0; gi < cs.sys.grids.size(); ++gi) {
        const OversetGrid& g = cs.sys.grids[gi];
        for (index_t i = 0; i < g.mesh.n_nodes(); ++i) {
            if (!g.node_status[i]) continue;
            for (const Body& b : bs)
                if (b.grid != static_cast<int>(gi) && b.inside(cs.sys.dim, g.xyz.data() + 3 * i)) {
                    ++n;
                    break;
                }
        }
    }
    return n;
}

}  // namespace

TEST(OversetCases, SphereInBoxEveryStepOfARevolution) {
    // 26^3: the cell diagonal (0.27) stays below Δs, so the cut shell closes around the sphere and
    // island removal reaches the nodes inside it (on 20^3 it leaks)
    CaseSystem cs = load_case("sphere_box", {"overset.grids.0.mesh.box.cells=[26,26,26]"});
    ASSERT_EQ(cs.sys.dim, 3);
    ASSERT_EQ(cs.oc.steps, 8);
    Snapshot s0;
    OversetSystem off = without_hole_cut(cs.sys);
    for (long k = 0; k <= cs.oc.steps; ++k) {
        const AssemblyCounts c = assemble(cs.sys, k * cs.oc.dt);
        // the body reaches 0.6 from the wall; background cell diagonal 0.27
        check_step(cs, c, 0.6 + 0.35, "sphere step " + std::to_string(k));
        // background nodes inside the sphere: cut explicitly (before: removed as islands)
        EXPECT_GT(c.hole_cut, 50);
        if (k % 4 == 0) {
            const AssemblyCounts co = assemble(off, k * cs.oc.dt);
            EXPECT_TRUE(snapshot(off) == snapshot(cs.sys)) << "step " << k
                                                           << ": the hole cut "
                                                              "changes nothing here";
            EXPECT_GT(co.islands_removed, c.islands_removed);  // cut explicitly now
            EXPECT_EQ(co.hole_cut, 0);
        }
        if (k == 0) s0 = snapshot(cs.sys);
        if (k == 4) EXPECT_FALSE(snapshot(cs.sys).same_classification(s0));
    }
    // the rotation by 2 pi is the identity only to round-off (sin(2 pi) = -2.4e-16): the
    // classification is the same, weights and wall distances equal to ~1e-15
    const Snapshot s8 = snapshot(cs.sys);
    ASSERT_TRUE(s8.same_classification(s0)) << "a revolution returns the initial classification";
    EXPECT_LT(s8.max_difference(s0), 1e-13);
}

TEST(OversetCases, AirfoilFlapFullPeriodReturnsTheInitialClassification) {
    CaseSystem cs = load_case("airfoil_flap", {"overset.grids.0.mesh.box.cells=[125,70]"});
    ASSERT_EQ(cs.sys.dim, 2);
    ASSERT_EQ(cs.oc.steps, 16);
    Snapshot s0;
    std::vector<std::int8_t> flap_mid;
    bool moved = false;
    OversetSystem off = without_hole_cut(cs.sys);
    for (long k = 0; k <= cs.oc.steps; ++k) {
        const AssemblyCounts c = assemble(cs.sys, k * cs.oc.dt);
        check_step(cs, c, 0.1 + 0.03, "airfoil_flap step " + std::to_string(k));
        EXPECT_GT(c.hole_cut, 0);  // background nodes inside the two elements
        const Snapshot s = snapshot(cs.sys);
        if (k % 4 == 0) {
            assemble(off, k * cs.oc.dt);
            EXPECT_TRUE(snapshot(off) == s) << "step " << k << ": the hole cut changes nothing";
        }
        if (k == 0) s0 = s;
        // the pose table returns to angle 0 exactly: everything bit for bit, weights included
        if (k == 4) {  // flap 20 degrees down: the background cut has moved
            EXPECT_NE(s.node_status[0], s0.node_status[0]);
            EXPECT_NE(s.cell_status[0], s0.cell_status[0]);
        }
        if (k == 8) EXPECT_TRUE(s == s0) << "half way (flap back at 0 degrees)";
        moved = moved || !(s == s0);
    }
    EXPECT_TRUE(moved);
    EXPECT_TRUE(snapshot(cs.sys) == s0) << "a full period returns the initial classification";
}

TEST(OversetCases, StoreSeparationEveryStep) {
    CaseSystem cs = load_case("store_separation", {"overset.grids.0.mesh.box.cells=[120,92]"});
    ASSERT_EQ(cs.sys.dim, 2);
    const OversetGrid& store = cs.sys.grids[2];
    ASSERT_EQ(store.name, "store");
    double y_prev = 1e300;
    OversetSystem off = without_hole_cut(cs.sys);
    for (long k = 0; k <= cs.oc.steps; ++k) {
        const AssemblyCounts c = assemble(cs.sys, k * cs.oc.dt);
        check_step(cs, c, 0.1 + 0.03, "store step " + std::to_string(k));
        EXPECT_GT(c.hole_cut, 0);
        if (k % 4 == 0) {
            assemble(off, k * cs.oc.dt);
            EXPECT_TRUE(snapshot(off) == snapshot(cs.sys))
                << "step " << k << ": the hole cut changes nothing";
        }
        // the store moves away from the wing: its lowest wall node goes down every step
        double y = 1e300;
        for (const index_t i : store.wall_nodes) y = std::min(y, store.xyz[3 * i + 1]);
        if (k > 0) EXPECT_LT(y, y_prev) << "step " << k;
        y_prev = y;
    }
    EXPECT_LT(y_prev, -1.1);  // 0.95 below its start
}

// docs/overset.md, "What a case must respect": the flap grid made to reach 0.25 from its wall
// (tests/unit/overset/data/flap_reach025.msh: the flap of scripts/make_overset_meshes.sh with ext
// 0.25 instead of 0.1, i.e. in cases/overset_airfoil_flap `gmsh -2 -format msh41 airfoil_ogrid.geo
// -setnumber chord 0.35 -setnumber x_le 1.15 -setnumber y_le -0.04 -setnumber aoa 5 -setnumber ext
// 0.25 -setnumber n_s 40 -setnumber n_r 16 -setnumber grow 1.12`) reaches into the main element's
// trailing edge. Without the explicit hole
// cut flap nodes inside the main element stay active and main-grid receptors orphan; with it, every
// step of the flap's period passes every check (no orphans, every node inside a body inactive).
TEST(OversetCases, FlapReachingIntoTheMainElementIsCutExplicitly) {
    CaseSystem cs =
        load_case("airfoil_flap", {"overset.grids.0.mesh.box.cells=[125,70]",
                                   "overset.grids.2.mesh.file=" + std::string(UGKS_SOURCE_DIR) +
                                       "/tests/unit/overset/data/flap_reach025.msh"});
    ASSERT_EQ(cs.sys.grids[2].name, "flap");
    ASSERT_TRUE(cs.sys.grids[1].wall.closed);
    ASSERT_TRUE(cs.sys.grids[2].wall.closed);
    CaseSystem off{cs.oc, without_hole_cut(cs.sys)};
    long off_inside = 0, off_orphans = 0, off_bad_steps = 0;
    for (long k = 0; k <= cs.oc.steps; ++k) {
        const double t = k * cs.oc.dt;
        const AssemblyCounts co = assemble(off.sys, t);
        const long a = active_in_bodies(off);
        off_inside += a;
        off_orphans += co.orphans;
        off_bad_steps += a > 0 || co.orphans > 0;
        const AssemblyCounts c = assemble(cs.sys, t);
        EXPECT_EQ(active_in_bodies(cs), 0) << "step " << k;
        EXPECT_EQ(c.orphans, 0) << "step " << k;
        EXPECT_GT(c.hole_cut, co.hole_cut) << "step " << k;
        long flap_cut = 0;  // flap nodes inside the main element
        for (const auto v : cs.sys.grids[2].in_body) flap_cut += v == 1 + 1;
        EXPECT_GT(flap_cut, 0) << "step " << k;
        check_step(cs, c, 0.25 + 0.03, "reaching flap step " + std::to_string(k));
    }
    // the configuration does exercise the limitation
    EXPECT_GT(off_inside, 0);
    EXPECT_GT(off_orphans, 0);
    EXPECT_GT(off_bad_steps, cs.oc.steps / 2);
    std::printf(
        "hole cut off: %ld active nodes inside a body, %ld orphans over %ld steps (%ld "
        "steps wrong)\n",
        off_inside, off_orphans, cs.oc.steps + 1, off_bad_steps);
}

// Overset assembly on the device against the CPU backend (issue 6): identical k-d trees, wall
// distances bit for bit (random clouds, duplicates, a 100:1 stretched set), donors and weights bit
// for bit for every element type, and the full classification (wall distance, node/cell status,
// receptors, donors, weights) of cases/overset_cylinder_box over a revolution of its moving body
// and of 3D configurations; the explicit hole cut (inside flags, classification) of the standard
// cases and of a flap grid reaching into the main element over their motion; the Morton-ordered
// 1-NN queries. Skips without a visible CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "../unit/overset/overset_test_meshes.hpp"
#include "ugks/core/config.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

bool have_device() { return device_available(); }

std::vector<double> random_cloud(index_t n, unsigned seed, double sx = 1, double sy = 1,
                                 double sz = 1) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> p(static_cast<std::size_t>(n) * 3);
    for (index_t i = 0; i < n; ++i) {
        p[3 * i] = sx * u(rng);
        p[3 * i + 1] = sy * u(rng);
        p[3 * i + 2] = sz * u(rng);
    }
    return p;
}

/// Points on an ellipsoid surface with semi-axes 100 : 1 : 1 (a thin stretched body).
std::vector<double> stretched_surface(index_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0, 1);
    std::vector<double> p(static_cast<std::size_t>(n) * 3);
    for (index_t i = 0; i < n; ++i) {
        double v[3] = {g(rng), g(rng), g(rng)};
        const double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        p[3 * i] = 100 * v[0] / r;
        p[3 * i + 1] = v[1] / r;
        p[3 * i + 2] = v[2] / r;
    }
    return p;
}

void expect_same_tree(const KdTree& a, const KdTree& b, const std::string& what) {
    EXPECT_EQ(a.k, b.k) << what;
    EXPECT_EQ(a.n_points, b.n_points) << what;
    EXPECT_EQ(a.depth, b.depth) << what;
    EXPECT_EQ(a.perm, b.perm) << what;
    EXPECT_EQ(a.coords, b.coords) << what;
    EXPECT_EQ(a.box_lo, b.box_lo) << what;
    EXPECT_EQ(a.box_hi, b.box_hi) << what;
    EXPECT_EQ(a.child, b.child) << what;
    EXPECT_EQ(a.begin, b.begin) << what;
    EXPECT_EQ(a.end, b.end) << what;
    EXPECT_EQ(a.split_dim, b.split_dim) << what;
}

void expect_same_distances(const std::vector<double>& pts, const std::vector<double>& q,
                           const std::string& what) {
    const index_t np = static_cast<index_t>(pts.size() / 3),
                  nq = static_cast<index_t>(q.size() / 3);
    const KdTree t = build_kdtree(pts.data(), np, 3);
    const std::vector<double> cpu = nearest_distances(t, q.data(), nq);
    const std::vector<double> gpu = nearest_distances_device(pts.data(), np, q.data(), nq);
    ASSERT_EQ(cpu.size(), gpu.size());
    for (index_t i = 0; i < nq; ++i) ASSERT_EQ(cpu[i], gpu[i]) << what << " query " << i;
    if (np * nq <= 2e8) {
        const std::vector<double> b = nearest_distances_brute(pts.data(), np, q.data(), nq);
        for (index_t i = 0; i < nq; ++i) ASSERT_EQ(gpu[i], b[i]) << what << " brute, query " << i;
    }
}

/// Every per-node / per-cell / per-receptor result of two assemblies, bit for bit.
void expect_same_assembly(const OversetSystem& a, const AssemblyCounts& ca, const OversetSystem& b,
                          const AssemblyCounts& cb, const std::string& what) {
    EXPECT_EQ(ca.active_nodes, cb.active_nodes) << what;
    EXPECT_EQ(ca.active_cells, cb.active_cells) << what;
    EXPECT_EQ(ca.fringe_cells, cb.fringe_cells) << what;
    EXPECT_EQ(ca.hole_cells, cb.hole_cells) << what;
    EXPECT_EQ(ca.receptors, cb.receptors) << what;
    EXPECT_EQ(ca.orphans, cb.orphans) << what;
    EXPECT_EQ(ca.islands_removed, cb.islands_removed) << what;
    EXPECT_EQ(ca.hole_cut, cb.hole_cut) << what;
    ASSERT_EQ(a.grids.size(), b.grids.size());
    for (std::size_t gi = 0; gi < a.grids.size(); ++gi) {
        const OversetGrid& g = a.grids[gi];
        const OversetGrid& h = b.grids[gi];
        const std::string w = what + " grid " + g.name;
        EXPECT_EQ(g.xyz, h.xyz) << w;
        ASSERT_EQ(g.wall_distance.size(), h.wall_distance.size()) << w;
        for (std::size_t i = 0; i < g.wall_distance.size(); ++i)
            ASSERT_EQ(g.wall_distance[i], h.wall_distance[i]) << w << " node " << i;
        EXPECT_EQ(g.node_status, h.node_status) << w;
        EXPECT_EQ(g.in_body, h.in_body) << w;
        EXPECT_EQ(g.nearest_wall, h.nearest_wall) << w;
        EXPECT_EQ(g.cell_status, h.cell_status) << w;
        EXPECT_EQ(g.fringe_node, h.fringe_node) << w;
        EXPECT_EQ(g.fringe_donor_grid, h.fringe_donor_grid) << w;
        EXPECT_EQ(g.fringe_donor_cell, h.fringe_donor_cell) << w;
        EXPECT_EQ(g.fringe_weights, h.fringe_weights) << w;
        EXPECT_EQ(g.n_orphans, h.n_orphans) << w;
    }
}

std::string source_dir() {
    const char* e = std::getenv("UGKS_SOURCE_DIR");
    return e && *e ? std::string(e) : std::string(UGKS_SOURCE_DIR);
}

OversetSystem cylinder_box_case(Backend backend, bool front = true) {
    Config cfg =
        Config::from_file(source_dir() + "/cases/overset_cylinder_box/overset_cylinder_box.yaml");
    const OversetCase oc = parse_overset_case(cfg);
    std::vector<Mesh> meshes;
    for (const GridSpec& s : oc.grids) meshes.push_back(load_mesh(s.mesh));
    OversetSystem sys = make_system(oc, std::move(meshes));
    sys.backend = backend;
    sys.advancing_front = front;
    return sys;
}

/// A standard case (cases/overset_<name>) with overrides, on the given backend.
OversetSystem standard_case(const std::string& name, const std::vector<std::string>& overrides,
                            Backend backend, OversetCase* oc_out = nullptr) {
    Config cfg =
        Config::from_file(source_dir() + "/cases/overset_" + name + "/overset_" + name + ".yaml");
    for (const auto& o : overrides) cfg.apply_override(o);
    const OversetCase oc = parse_overset_case(cfg);
    std::vector<Mesh> meshes;
    for (const GridSpec& s : oc.grids) meshes.push_back(load_mesh(s.mesh));
    OversetSystem sys = make_system(oc, std::move(meshes));
    sys.backend = backend;
    if (oc_out) *oc_out = oc;
    return sys;
}

}  // namespace

TEST(OversetDeviceKdTree, BuildEqualsTheCpuTree) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    for (const index_t n : {1, 2, 3, 4, 7, 100, 1000, 65537, 300000}) {
        const auto p = random_cloud(n, 11 + n);
        expect_same_tree(build_kdtree(p.data(), n, 3), build_kdtree_device(p.data(), n, 3),
                         "uniform n=" + std::to_string(n));
    }
    // stretched 100:1, and duplicated / degenerate coordinates (integer lattice, a flat set)
    const auto s = stretched_surface(50000, 5);
    expect_same_tree(build_kdtree(s.data(), 50000, 3), build_kdtree_device(s.data(), 50000, 3),
                     "stretched");
    std::vector<double> lat;
    for (int i = 0; i < 20000; ++i)
        for (int a = 0; a < 3; ++a) lat.push_back(a == 2 ? 0.0 : (i * (a + 7)) % 13);
    expect_same_tree(build_kdtree(lat.data(), 20000, 3), build_kdtree_device(lat.data(), 20000, 3),
                     "lattice with duplicates");
    for (const int leaf : {1, 5}) {
        const auto p = random_cloud(5000, 3);
        expect_same_tree(build_kdtree(p.data(), 5000, 3, leaf),
                         build_kdtree_device(p.data(), 5000, 3, leaf),
                         "leaf " + std::to_string(leaf));
    }
    // 2k-D box points of a perturbed mesh (donor trees), 2D and 3D
    for (const int dim : {2, 3}) {
        const Mesh m =
            test::perturbed_box(dim, dim == 2 ? "quad" : "hexa", dim == 2 ? 80 : 18, 0.2, 9);
        std::vector<double> xyz;
        for (const auto& x : m.nodes) xyz.insert(xyz.end(), x.begin(), x.end());
        const auto box = cell_boxes(m, xyz.data());
        expect_same_tree(build_kdtree(box.data(), m.n_cells(), 2 * dim),
                         build_kdtree_device(box.data(), m.n_cells(), 2 * dim),
                         "boxes " + std::to_string(dim) + "D");
    }
}

TEST(OversetDeviceWallDistance, RandomCloudsEqualCpuAndBruteForce) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    for (const index_t n : {1, 5, 1000, 20000}) {
        expect_same_distances(random_cloud(n, 21 + n), random_cloud(20000, 99),
                              "uniform n=" + std::to_string(n));
    }
    expect_same_distances(random_cloud(200000, 4), random_cloud(200000, 8), "uniform 2e5");
}

TEST(OversetDeviceWallDistance, Stretched100To1EqualsCpuAndBruteForce) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    expect_same_distances(stretched_surface(20000, 31), random_cloud(20000, 32, 110, 3, 3),
                          "stretched surface");
    expect_same_distances(random_cloud(20000, 33, 100, 1, 1), random_cloud(20000, 34, 100, 2, 2),
                          "stretched cloud");
}

// The device queries in Morton order (n >= kDeviceQuerySortMin, or forced with sort_min = 0) give
// the distances and nearest indices of the CPU tree and of brute force, for queries inside and
// outside the tree's box, duplicated queries, a flat point set and a single query; and the same
// as the unsorted device queries (sort_min huge).
TEST(OversetDeviceWallDistance, MortonOrderedQueriesEqualCpuAndBruteForce) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    const index_t never = index_t{1} << 62;
    std::vector<double> flat = random_cloud(5000, 61);
    for (index_t i = 0; i < 5000; ++i) flat[3 * i + 2] = 0.25;  // a flat axis quantizes to 0
    std::vector<double> dup = random_cloud(3000, 62, 3, 3, 3);  // mostly outside [-1, 1]^3
    dup.insert(dup.end(), dup.begin(), dup.end());              // every query twice
    const std::vector<std::pair<std::vector<double>, std::vector<double>>> sets = {
        {random_cloud(20000, 63), random_cloud(kDeviceQuerySortMin + 7, 64)},
        {random_cloud(20000, 65), dup},
        {flat, random_cloud(6000, 66)},
        {random_cloud(100, 67), random_cloud(1, 68)},
        {stretched_surface(20000, 69), random_cloud(40000, 70, 110, 3, 3)}};
    int k = 0;
    for (const auto& [pts, q] : sets) {
        const std::string what = "set " + std::to_string(k++);
        const index_t np = static_cast<index_t>(pts.size() / 3),
                      nq = static_cast<index_t>(q.size() / 3);
        const KdTree t = build_kdtree(pts.data(), np, 3);
        std::vector<index_t> ncpu, nsort, nplain, nauto;
        const std::vector<double> cpu = nearest_distances(t, q.data(), nq, nullptr, &ncpu);
        const std::vector<double> sorted =
            nearest_distances_device(pts.data(), np, q.data(), nq, 3, &nsort, 0);
        const std::vector<double> plain =
            nearest_distances_device(pts.data(), np, q.data(), nq, 3, &nplain, never);
        const std::vector<double> aut =
            nearest_distances_device(pts.data(), np, q.data(), nq, 3, &nauto);
        const std::vector<double> b = nearest_distances_brute(pts.data(), np, q.data(), nq);
        ASSERT_EQ(sorted.size(), static_cast<std::size_t>(nq)) << what;
        for (index_t i = 0; i < nq; ++i) {
            ASSERT_EQ(sorted[i], cpu[i]) << what << " query " << i;
            ASSERT_EQ(nsort[i], ncpu[i]) << what << " query " << i;
            ASSERT_EQ(plain[i], cpu[i]) << what << " query " << i;
            ASSERT_EQ(nplain[i], ncpu[i]) << what << " query " << i;
            ASSERT_EQ(aut[i], cpu[i]) << what << " query " << i;
            ASSERT_EQ(nauto[i], ncpu[i]) << what << " query " << i;
            ASSERT_EQ(sorted[i], b[i]) << what << " brute, query " << i;
        }
    }
}

TEST(OversetDeviceDonor, EveryElementTypeEqualsCpu) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    struct C {
        int dim;
        const char* type;
        int n;
    };
    for (const C c : {C{2, "triangle", 12}, C{2, "quad", 12}, C{3, "tetra", 5}, C{3, "hexa", 5},
                      C{3, "prism", 5}, C{3, "pyramid", 5}}) {
        OversetSystem sys;
        add_grid(sys, "g", test::perturbed_box(c.dim, c.type, c.n, 0.2, 17), 0, {});
        OversetGrid& g = sys.grids[0];
        const index_t nn = g.mesh.n_nodes();
        g.xyz.resize(static_cast<std::size_t>(nn) * 3);
        for (index_t i = 0; i < nn; ++i)
            for (int a = 0; a < 3; ++a) g.xyz[i * 3 + a] = g.mesh.nodes[i][a];
        g.cell_box = cell_boxes(g.mesh, g.xyz.data());
        g.donor_tree = build_kdtree(g.cell_box.data(), g.mesh.n_cells(), 2 * c.dim, 3);
        g.cell_status.assign(static_cast<std::size_t>(g.mesh.n_cells()), 1);
        for (index_t k = 0; k < g.mesh.n_cells(); k += 3) g.cell_status[k] = 0;  // some holes
        // random points (some outside) and every node (on cell boundaries: ties between cells)
        std::vector<double> q = random_cloud(4000, 41, 0.6, 0.6, c.dim == 3 ? 0.6 : 0.0);
        for (std::size_t i = 0; i < q.size(); ++i)
            q[i] += i % 3 < static_cast<std::size_t>(c.dim) ? 0.5 : 0;
        q.insert(q.end(), g.xyz.begin(), g.xyz.end());
        const index_t nq = static_cast<index_t>(q.size() / 3);
        for (const bool skip : {false, true}) {
            std::vector<double> wg;
            const std::vector<index_t> dg = find_donors_device(g, c.dim, q.data(), nq, skip, &wg);
            index_t found = 0;
            for (index_t i = 0; i < nq; ++i) {
                double w[kMaxCellNodes] = {0, 0, 0, 0, 0, 0, 0, 0};
                const index_t dc = find_donor(g, c.dim, q.data() + 3 * i, skip, w);
                ASSERT_EQ(dc, dg[i]) << c.type << " point " << i << " skip " << skip;
                found += dc >= 0;
                if (dc < 0) continue;
                for (int k = 0; k < kMaxCellNodes; ++k)
                    ASSERT_EQ(w[k], wg[i * kMaxCellNodes + k]) << c.type << " point " << i;
            }
            EXPECT_GT(found, nq / 3) << c.type;
        }
    }
}

TEST(OversetDeviceAssembly, CylinderBoxCaseEveryStepEqualsCpu) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    for (const bool front : {true, false}) {
        OversetSystem cpu = cylinder_box_case(Backend::Host, front);
        OversetSystem gpu = cylinder_box_case(Backend::Device, front);
        // the case's revolution in 8 steps, plus off-grid times
        for (const double t : {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.37, 2.9}) {
            AssemblyTimes tg;
            const AssemblyCounts cc = assemble(cpu, t);
            const AssemblyCounts cg = assemble(gpu, t, &tg);
            expect_same_assembly(cpu, cc, gpu, cg,
                                 "t=" + std::to_string(t) + (front ? " front" : " plain"));
            EXPECT_GT(cg.hole_cells, 0);
            EXPECT_EQ(cg.orphans, 0);
            EXPECT_GT(tg.total(), 0.0);
        }
    }
}

TEST(OversetDeviceAssembly, TwoBodiesAndLayersEqualCpu) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto make = [](Backend b) {
        OversetSystem sys;
        sys.backend = b;
        sys.layer_spacing = 0.37;
        BoxSpec far;
        far.dim = 2;
        far.n = {50, 50, 1};
        far.lo = {-6, -6, 0};
        far.hi = {6, 6, 0};
        far.cell_type = "triangle";
        add_grid(sys, "far", make_box(far), 0, {});
        Motion m;
        m.type = Motion::Type::Rotation;
        m.point = {0.1, 0.2, 0};
        m.omega = 0.9;
        add_grid(sys, "a", test::make_annulus(0.3, 1.0, 10, 60, {-1, 0, 0}), 1, {"wall"}, m);
        Motion tr;
        tr.type = Motion::Type::Translation;
        tr.velocity = {0.2, -0.1, 0};
        add_grid(sys, "b", test::make_annulus(0.2, 0.9, 8, 48, {1.1, 0.3, 0}), 1, {"wall"}, tr);
        return sys;
    };
    OversetSystem cpu = make(Backend::Host), gpu = make(Backend::Device);
    for (const double t : {0.0, 0.5, 1.0, 1.5}) {
        const AssemblyCounts cc = assemble(cpu, t);
        const AssemblyCounts cg = assemble(gpu, t);
        expect_same_assembly(cpu, cc, gpu, cg, "two bodies t=" + std::to_string(t));
    }
}

TEST(OversetDeviceAssembly, ThreeDimensionalBodiesEqualCpu) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    for (const char* type : {"tetra", "prism", "pyramid", "hexa"}) {
        auto make = [&](Backend b) {
            OversetSystem sys;
            sys.backend = b;
            sys.layer_spacing = 0.3;
            BoxSpec bg;
            bg.dim = 3;
            bg.n = {14, 14, 14};
            bg.lo = {-1.5, -1.5, -1.5};
            bg.hi = {1.5, 1.5, 1.5};
            bg.cell_type = "hexa";
            add_grid(sys, "background", make_box(bg), 0, {});
            Motion m;
            m.type = Motion::Type::Rotation;
            m.axis = {0.3, 1, 0.2};
            m.point = {0.05, 0, 0};
            m.omega = 0.4;
            Mesh body =
                test::perturbed_box(3, type, 6, 0.15, 7, {-0.6, -0.6, -0.3}, {0.6, 0.6, 0.6});
            add_grid(sys, "body", std::move(body), 1, {"zmin"}, m);
            return sys;
        };
        OversetSystem cpu = make(Backend::Host), gpu = make(Backend::Device);
        for (const double t : {0.0, 0.8}) {
            const AssemblyCounts cc = assemble(cpu, t);
            const AssemblyCounts cg = assemble(gpu, t);
            expect_same_assembly(cpu, cc, gpu, cg, std::string(type) + " t=" + std::to_string(t));
            EXPECT_GT(cg.hole_cells, 0) << type;
        }
    }
}

// The explicit hole cut on the device equals the host's (inside flags, cut cells, priority between
// body grids, classification, donors) at every step of the standard cases' motion (coarser
// backgrounds as in tests/unit/overset/test_overset_cases.cpp) and of the flap grid reaching into
// the main element (tests/unit/overset/data/flap_reach025.msh), where the cut removes nodes.
TEST(OversetDeviceAssembly, HoleCutOfTheStandardCasesEqualsCpu) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    const std::string reach =
        "overset.grids.2.mesh.file=" + source_dir() + "/tests/unit/overset/data/flap_reach025.msh";
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"sphere_box", {"overset.grids.0.mesh.box.cells=[26,26,26]"}},
        {"airfoil_flap", {"overset.grids.0.mesh.box.cells=[125,70]"}},
        {"store_separation", {"overset.grids.0.mesh.box.cells=[120,92]"}},
        {"airfoil_flap", {"overset.grids.0.mesh.box.cells=[125,70]", reach}},
        {"airfoil_flap", {reach}}};  // the full 250 x 140 background
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const auto& [name, ov] = cases[k];
        OversetCase oc;
        OversetSystem cpu = standard_case(name, ov, Backend::Host, &oc);
        OversetSystem gpu = standard_case(name, ov, Backend::Device);
        for (long s = 0; s <= oc.steps; ++s) {
            const double t = s * oc.dt;
            const AssemblyCounts cc = assemble(cpu, t);
            const AssemblyCounts cg = assemble(gpu, t);
            const std::string what =
                name + " (" + std::to_string(k) + ") step " + std::to_string(s);
            expect_same_assembly(cpu, cc, gpu, cg, what);
            EXPECT_GT(cg.hole_cut, 0) << what;
            EXPECT_EQ(cg.orphans, 0) << what;
        }
    }
}

// Overset assembly distributed over the ranks (distributed.hpp) against the serial assembly:
// - the partition: every cell on exactly one rank, every node owned by exactly one rank, parts
//   balanced (sizes within one cell per bisection level);
// - the distributed donor query: random points and every node of the grids (points on cell faces
//   and nodes, where the smallest-global-index rule decides) give find_donor()'s cell and weights
//   bit for bit, with and without skipping holes;
// - the whole assembly of the standard cases (coarse backgrounds, several steps of their motion):
//   wall distances, node and cell status, receptors, donors, weights and counts equal to the serial
//   assemble() bit for bit.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ugks/core/config.hpp"
#include "ugks/overset/distributed.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int world_size() {
    int p = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

OversetSystem load_case(const std::string& name, const std::vector<std::string>& overrides) {
    Config cfg = Config::from_file(std::string(UGKS_SOURCE_DIR) + "/cases/overset_" + name +
                                   "/overset_" + name + ".yaml");
    for (const auto& o : overrides) cfg.apply_override(o);
    OversetCase oc = parse_overset_case(cfg);
    oc.backend = "host";
    std::vector<Mesh> meshes;
    for (const GridSpec& g : oc.grids) meshes.push_back(load_mesh(g.mesh));
    check_case_meshes(cfg, oc, meshes);
    OversetSystem sys = make_system(oc, std::move(meshes));
    sys.backend = Backend::Host;
    return sys;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/// Every rank agrees that `ok` holds on every rank.
bool all_ranks(bool ok) {
    int v = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

/// Serial assemble() of `serial` and distributed assembly of the same system at `time`; the
/// distributed state gathered into `gathered` (rank 0). Checks everything bit for bit on rank 0
/// (the serial assembly runs there), the counts on every rank.
void expect_same_assembly(OversetSystem& serial, DistributedSystem& ds, OversetSystem& gathered,
                          double time, const std::string& what) {
    AssemblyCounts cs;  // the serial assembly on rank 0 only (the other ranks would repeat it)
    if (world_rank() == 0) cs = assemble(serial, time);
    MPI_Bcast(&cs, sizeof cs, MPI_BYTE, 0, MPI_COMM_WORLD);
    const AssemblyCounts cd = assemble_distributed(ds, time);
    gather_state(ds, gathered);
    // counts: identical on every rank and equal to the serial ones
    const long long mine[11] = {cd.nodes,           cd.active_nodes, cd.inactive_nodes,
                                cd.cells,           cd.active_cells, cd.fringe_cells,
                                cd.hole_cells,      cd.receptors,    cd.orphans,
                                cd.islands_removed, cd.hole_cut};
    const long long ser[11] = {cs.nodes,        cs.active_nodes,    cs.inactive_nodes, cs.cells,
                               cs.active_cells, cs.fringe_cells,    cs.hole_cells,     cs.receptors,
                               cs.orphans,      cs.islands_removed, cs.hole_cut};
    for (int k = 0; k < 11; ++k) EXPECT_EQ(mine[k], ser[k]) << what << " count " << k;
    EXPECT_GT(cs.receptors, 0) << what;
    EXPECT_GT(cs.hole_cells, 0) << what;
    if (world_rank() != 0) return;
    for (std::size_t gi = 0; gi < serial.grids.size(); ++gi) {
        const OversetGrid& a = serial.grids[gi];
        const OversetGrid& b = gathered.grids[gi];
        const std::string w = what + " grid " + a.name;
        EXPECT_TRUE(same_bits(a.xyz, b.xyz)) << w;
        EXPECT_TRUE(same_bits(a.wall_distance, b.wall_distance)) << w;
        EXPECT_EQ(a.node_status, b.node_status) << w;
        EXPECT_EQ(a.cell_status, b.cell_status) << w;
        EXPECT_EQ(a.fringe_node, b.fringe_node) << w;
        EXPECT_EQ(a.fringe_donor_grid, b.fringe_donor_grid) << w;
        EXPECT_EQ(a.fringe_donor_cell, b.fringe_donor_cell) << w;
        EXPECT_TRUE(same_bits(a.fringe_weights, b.fringe_weights)) << w;
        EXPECT_EQ(a.n_orphans, b.n_orphans) << w;
    }
}

void check_case(const std::string& name, const std::vector<std::string>& overrides,
                const std::vector<double>& times, long long min_hole_cut = 0) {
    OversetSystem serial = load_case(name, overrides);
    if (min_hole_cut > 0) {  // the explicit hole cut acts in this configuration (serial run)
        OversetSystem probe = serial;
        const AssemblyCounts c = assemble(probe, times.front());
        EXPECT_GE(c.hole_cut, min_hole_cut) << name;
        EXPECT_EQ(c.orphans, 0) << name;
    }
    OversetSystem gathered = serial;
    DistributedSystem ds = distribute(serial, MPI_COMM_WORLD);
    for (const double t : times) expect_same_assembly(serial, ds, gathered, t, name);
    // A scattered partition (cells dealt out by a hash of their index): most nodes are shared, and
    // the island removal has to cross ranks at nearly every cell of the flood.
    const int p = world_size();
    std::vector<std::vector<int>> scattered;
    for (const OversetGrid& g : serial.grids) {
        std::vector<int> part(static_cast<std::size_t>(g.mesh.n_cells()));
        for (std::size_t c = 0; c < part.size(); ++c)
            part[c] = static_cast<int>((c * 2654435761u >> 7) % static_cast<unsigned>(p));
        scattered.push_back(part);
    }
    DistributedSystem dss = distribute(serial, MPI_COMM_WORLD, scattered);
    expect_same_assembly(serial, dss, gathered, times.back(), name + " (scattered partition)");
}

}  // namespace

TEST(OversetPartition, EveryCellOnceEveryNodeOwnedOnceBalanced) {
    OversetSystem sys = load_case("airfoil_flap", {"overset.grids.0.mesh.box.cells=[125,70]"});
    // the partition alone, for several part counts
    for (const int np : {1, 2, 3, 4, 5, 7}) {
        int levels = 0;
        while ((1 << levels) < np) ++levels;
        for (const OversetGrid& g : sys.grids) {
            const std::vector<int> part = partition_cells(g.mesh, np);
            ASSERT_EQ(part.size(), static_cast<std::size_t>(g.mesh.n_cells()));
            std::vector<long> n(np, 0);
            for (const int r : part) {
                ASSERT_GE(r, 0);
                ASSERT_LT(r, np);
                ++n[r];
            }
            const long lo = *std::min_element(n.begin(), n.end());
            const long hi = *std::max_element(n.begin(), n.end());
            EXPECT_LE(hi - lo, levels) << g.name << " np " << np;
            EXPECT_EQ(part, partition_cells(g.mesh, np)) << "deterministic";
        }
    }
    // the local grids of this communicator
    const DistributedSystem ds = distribute(sys, MPI_COMM_WORLD);
    for (std::size_t gi = 0; gi < sys.grids.size(); ++gi) {
        const Mesh& m = sys.grids[gi].mesh;
        const LocalGrid& L = ds.grids[gi];
        std::vector<int> cells(static_cast<std::size_t>(m.n_cells()), 0), cells_all(cells.size());
        std::vector<int> owned(static_cast<std::size_t>(m.n_nodes()), 0), owned_all(owned.size());
        for (const index_t c : L.cell_gid) cells[c] = 1;
        for (index_t i = 0; i < L.n_nodes(); ++i) owned[L.node_gid[i]] += L.node_owned[i];
        EXPECT_TRUE(std::is_sorted(L.cell_gid.begin(), L.cell_gid.end()));
        EXPECT_TRUE(std::is_sorted(L.node_gid.begin(), L.node_gid.end()));
        // the local cells' nodes are the global cells' nodes
        for (index_t c = 0; c < L.n_cells(); ++c) {
            const index_t gc = L.cell_gid[c];
            ASSERT_EQ(L.cell_node_offsets[c + 1] - L.cell_node_offsets[c],
                      m.cell_node_offsets[gc + 1] - m.cell_node_offsets[gc]);
            for (index_t j = 0; j < L.cell_node_offsets[c + 1] - L.cell_node_offsets[c]; ++j)
                ASSERT_EQ(L.node_gid[L.cell_nodes[L.cell_node_offsets[c] + j]],
                          m.cell_nodes[m.cell_node_offsets[gc] + j]);
        }
        MPI_Allreduce(cells.data(), cells_all.data(), static_cast<int>(cells.size()), MPI_INT,
                      MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(owned.data(), owned_all.data(), static_cast<int>(owned.size()), MPI_INT,
                      MPI_SUM, MPI_COMM_WORLD);
        EXPECT_TRUE(std::all_of(cells_all.begin(), cells_all.end(), [](int v) { return v == 1; }))
            << sys.grids[gi].name;
        EXPECT_TRUE(std::all_of(owned_all.begin(), owned_all.end(), [](int v) { return v == 1; }))
            << sys.grids[gi].name;
        long n = L.n_cells(), nmin = 0, nmax = 0;
        MPI_Allreduce(&n, &nmin, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&n, &nmax, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        EXPECT_LE(nmax - nmin, 2) << sys.grids[gi].name;
        EXPECT_GT(nmin, 0) << sys.grids[gi].name;
    }
}

TEST(OversetDistributedQuery, EqualsSerialFindDonor) {
    for (const std::string name : {"cylinder_box", "sphere_box"}) {
        OversetSystem sys = load_case(
            name, name == "sphere_box"
                      ? std::vector<std::string>{"overset.grids.0.mesh.box.cells=[14,14,14]"}
                      : std::vector<std::string>{});
        DistributedSystem ds = distribute(sys, MPI_COMM_WORLD);
        const double t = 1.3;
        assemble(sys, t);  // serial: trees, cell boxes and statuses of the whole grids
        assemble_distributed(ds, t);
        const int ng = static_cast<int>(sys.grids.size()), dim = sys.dim;
        // query points: random ones in each grid's box (and a margin), every node of every grid
        std::vector<double> x;
        std::vector<int> grid;
        std::mt19937_64 rng(12345);
        for (int gi = 0; gi < ng; ++gi) {
            const OversetGrid& g = sys.grids[gi];
            double lo[3] = {1e300, 1e300, 0}, hi[3] = {-1e300, -1e300, 0};
            for (index_t i = 0; i < g.mesh.n_nodes(); ++i)
                for (int a = 0; a < dim; ++a) {
                    lo[a] = std::min(lo[a], g.xyz[i * 3 + a]);
                    hi[a] = std::max(hi[a], g.xyz[i * 3 + a]);
                }
            for (int k = 0; k < 3000; ++k) {
                for (int a = 0; a < 3; ++a) {
                    const double m = 0.05 * (hi[a] - lo[a]);
                    std::uniform_real_distribution<double> u(lo[a] - m, hi[a] + m);
                    x.push_back(a < dim ? u(rng) : 0.0);
                }
                grid.push_back(gi);
            }
            for (int hj = 0; hj < ng; ++hj) {
                if (hj == gi) continue;
                const OversetGrid& h = sys.grids[hj];
                for (index_t i = 0; i < h.mesh.n_nodes(); ++i) {
                    x.insert(x.end(), {h.xyz[i * 3], h.xyz[i * 3 + 1], h.xyz[i * 3 + 2]});
                    grid.push_back(gi);
                }
                for (index_t i = 0; i < g.mesh.n_nodes(); i += 3) {  // its own nodes too
                    x.insert(x.end(), {g.xyz[i * 3], g.xyz[i * 3 + 1], g.xyz[i * 3 + 2]});
                    grid.push_back(gi);
                }
            }
        }
        // each rank asks for a different share of the points (all of them on one rank)
        const int r = world_rank(), p = world_size();
        std::vector<double> xs;
        std::vector<int> gs;
        for (std::size_t q = 0; q < grid.size(); ++q)
            if (static_cast<int>(q % p) == r) {
                xs.insert(xs.end(), {x[q * 3], x[q * 3 + 1], x[q * 3 + 2]});
                gs.push_back(grid[q]);
            }
        for (const bool skip : {false, true}) {
            const std::vector<DonorHit> hits = query_donors(ds, xs, gs, skip);
            ASSERT_EQ(hits.size(), gs.size());
            long found = 0, bad = 0;
            for (std::size_t q = 0; q < gs.size(); ++q) {
                double w[kMaxCellNodes];
                const OversetGrid& g = sys.grids[gs[q]];
                const index_t c = find_donor(g, dim, &xs[q * 3], skip, w);
                bool ok = c == hits[q].cell;
                if (c >= 0) {
                    ++found;
                    ok = ok && std::memcmp(w, hits[q].w, sizeof w) == 0;
                    const GridView v = grid_view(g, dim);
                    const double d = interpolate_in_cell(v, c, w, v.wall_distance);
                    ok = ok && std::memcmp(&d, &hits[q].d, sizeof d) == 0;
                }
                if (!ok && bad++ < 5)
                    ADD_FAILURE() << name << " skip " << skip << " point " << q << " grid " << gs[q]
                                  << ": serial cell " << c << ", distributed " << hits[q].cell;
            }
            EXPECT_EQ(bad, 0) << name;
            EXPECT_GT(found, static_cast<long>(gs.size() / 8)) << name;
        }
        EXPECT_TRUE(all_ranks(!::testing::Test::HasFailure()));
    }
}

TEST(OversetDistributedAssembly, CylinderBoxEqualsSerial) {
    check_case("cylinder_box", {}, {0.0, 1.0, 3.0, 6.0});
}

TEST(OversetDistributedAssembly, SphereBoxEqualsSerial) {
    check_case("sphere_box", {"overset.grids.0.mesh.box.cells=[26,26,26]"}, {0.0, 3.0});
}

TEST(OversetDistributedAssembly, AirfoilFlapEqualsSerial) {
    check_case("airfoil_flap", {"overset.grids.0.mesh.box.cells=[125,70]"}, {0.0, 2.0, 5.5});
}

// The explicit hole cut over the ranks: the flap grid reaching 0.25 from its wall into the main
// element (docs/overset.md): inside flags, cut cells (their nodes' flags OR-ed over the copies),
// the reaching pairs and the host priority must give the serial classification bit for bit.
TEST(OversetDistributedAssembly, ReachingFlapHoleCutEqualsSerial) {
    check_case("airfoil_flap",
               {"overset.grids.0.mesh.box.cells=[125,70]",
                "overset.grids.2.mesh.file=" + std::string(UGKS_SOURCE_DIR) +
                    "/tests/unit/overset/data/flap_reach025.msh"},
               {0.0, 2.0, 5.5}, 50);
}

TEST(OversetDistributedAssembly, StoreSeparationEqualsSerial) {
    check_case("store_separation", {"overset.grids.0.mesh.box.cells=[120,92]"}, {0.0, 4.0});
}

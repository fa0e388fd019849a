// Overset assembly distributed over MPI ranks (distributed.hpp;
// docs/decisions.md, "Overset assembly over MPI ranks"). Every phase uses the per-point functions
// of the serial assembly (grid_view.hpp, kdtree.hpp, cell_locate.hpp) on the local part of each
// grid; what crosses ranks are the wall points (allgather), the donor queries (alltoallv to the
// ranks whose part box contains the point, smallest global cell index wins) and flags of the nodes
// shared by several ranks (island removal, receptors).
#include "ugks/overset/distributed.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "host_loop.hpp"
#include "ugks/core/error.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/parallel/mpi_check.hpp"

namespace ugks::overset {

using detail::fill_reached;
using detail::host_for;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Adds the seconds of a scope to *acc (MPI time).
struct MpiTimer {
    double* acc;
    Clock::time_point t0 = Clock::now();
    explicit MpiTimer(double* a) : acc(a) {}
    ~MpiTimer() {
        if (acc) *acc += seconds_since(t0);
    }
};

GridView local_view(const LocalGrid& g, int dim) {
    GridView v;
    v.dim = dim;
    v.n_nodes = g.n_nodes();
    v.n_cells = g.n_cells();
    v.xyz = g.xyz.data();
    v.cell_node_offsets = g.cell_node_offsets.data();
    v.cell_nodes = g.cell_nodes.data();
    v.cell_type = g.cell_type.data();
    v.cell_status = g.cell_status.empty() ? nullptr : g.cell_status.data();
    v.wall_distance = g.wall_distance.empty() ? nullptr : g.wall_distance.data();
    v.tree = view(g.donor_tree);
    return v;
}

std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> d(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i) d[i + 1] = d[i] + counts[i];
    return d;
}

/// Alltoallv of doubles: send[r] to rank r; returns what every rank sent here, by rank.
std::vector<double> alltoallv(MPI_Comm comm, const std::vector<std::vector<double>>& send,
                              std::vector<int>* recv_counts_out) {
    const int p = static_cast<int>(send.size());
    std::vector<int> sc(p), rc(p);
    for (int r = 0; r < p; ++r) sc[r] = static_cast<int>(send[r].size());
    UGKS_MPI_CHECK(MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, comm));
    const std::vector<int> sd = displacements(sc), rd = displacements(rc);
    std::vector<double> sb(static_cast<std::size_t>(sd[p])), rb(static_cast<std::size_t>(rd[p]));
    for (int r = 0; r < p; ++r) std::copy(send[r].begin(), send[r].end(), sb.begin() + sd[r]);
    UGKS_MPI_CHECK(MPI_Alltoallv(sb.data(), sc.data(), sd.data(), MPI_DOUBLE, rb.data(), rc.data(),
                                 rd.data(), MPI_DOUBLE, comm));
    if (recv_counts_out) *recv_counts_out = rc;
    return rb;
}

/// OR of per-node flags over the copies of the shared nodes of every grid (flags[g][local node]).
/// Returns true when a flag of this rank changed.
bool or_shared_flags(const DistributedSystem& ds, std::vector<std::vector<char>>& flags,
                     double* mpi_s) {
    const int p = ds.size;
    std::vector<std::vector<double>> send(p);
    for (int r = 0; r < p; ++r)
        for (std::size_t g = 0; g < ds.grids.size(); ++g)
            for (const index_t i : ds.grids[g].shared[r]) send[r].push_back(flags[g][i]);
    std::vector<int> rc;
    std::vector<double> recv;
    {
        MpiTimer t(mpi_s);
        recv = alltoallv(ds.comm, send, &rc);
    }
    bool changed = false;
    std::size_t k = 0;
    for (int r = 0; r < p; ++r)
        for (std::size_t g = 0; g < ds.grids.size(); ++g)
            for (const index_t i : ds.grids[g].shared[r]) {
                if (recv[k++] != 0 && !flags[g][i]) {
                    flags[g][i] = 1;
                    changed = true;
                }
            }
    return changed;
}

void rcb(const std::vector<double>& cen, int dim, std::vector<index_t>& idx, std::size_t b,
         std::size_t e, int part0, int nparts, std::vector<int>& out) {
    if (nparts == 1 || e - b == 0) {
        for (std::size_t i = b; i < e; ++i) out[idx[i]] = part0;
        return;
    }
    double lo[3] = {kInf, kInf, kInf}, hi[3] = {-kInf, -kInf, -kInf};
    for (std::size_t i = b; i < e; ++i)
        for (int a = 0; a < dim; ++a) {
            lo[a] = std::min(lo[a], cen[idx[i] * 3 + a]);
            hi[a] = std::max(hi[a], cen[idx[i] * 3 + a]);
        }
    int ax = 0;
    for (int a = 1; a < dim; ++a)
        if (hi[a] - lo[a] > hi[ax] - lo[ax]) ax = a;
    const int nl = nparts / 2;
    const std::size_t cut = b + (e - b) * static_cast<std::size_t>(nl) / nparts;
    std::nth_element(idx.begin() + b, idx.begin() + cut, idx.begin() + e,
                     [&](index_t x, index_t y) {
                         const double u = cen[x * 3 + ax], v = cen[y * 3 + ax];
                         return u != v ? u < v : x < y;
                     });
    rcb(cen, dim, idx, b, cut, part0, nl, out);
    rcb(cen, dim, idx, cut, e, part0 + nl, nparts - nl, out);
}

}  // namespace

// ---- partition and local grids ------------------------------------------------------------------

std::vector<int> partition_cells(const Mesh& m, int nparts) {
    UGKS_REQUIRE(nparts >= 1, "partition into " << nparts << " parts");
    const index_t nc = m.n_cells();
    std::vector<double> cen(static_cast<std::size_t>(nc) * 3, 0.0);
    for (index_t c = 0; c < nc; ++c) {
        const index_t a = m.cell_node_offsets[c], b = m.cell_node_offsets[c + 1];
        for (index_t j = a; j < b; ++j)
            for (int d = 0; d < 3; ++d) cen[c * 3 + d] += m.nodes[m.cell_nodes[j]][d];
        for (int d = 0; d < 3; ++d) cen[c * 3 + d] /= static_cast<double>(b - a);
    }
    std::vector<index_t> idx(static_cast<std::size_t>(nc));
    std::iota(idx.begin(), idx.end(), index_t{0});
    std::vector<int> out(static_cast<std::size_t>(nc), 0);
    rcb(cen, m.dim, idx, 0, idx.size(), 0, nparts, out);
    return out;
}

DistributedSystem distribute(const OversetSystem& sys, MPI_Comm comm,
                             std::vector<std::vector<int>> cell_rank) {
    DistributedSystem ds;
    ds.comm = comm;
    MPI_Comm_rank(comm, &ds.rank);
    MPI_Comm_size(comm, &ds.size);
    ds.dim = sys.dim;
    ds.layer_spacing = sys.layer_spacing;
    ds.leaf_size = sys.leaf_size;
    ds.wall_layer = std::numeric_limits<int>::max();
    std::vector<index_t> wall_offset;  // index of each grid's first wall node in the serial list
    for (const OversetGrid& g : sys.grids) {
        wall_offset.push_back(ds.n_wall_nodes);
        ds.n_wall_nodes += static_cast<index_t>(g.wall_nodes.size());
        if (!g.wall_nodes.empty()) ds.wall_layer = std::min(ds.wall_layer, g.layer);
    }
    wall_offset.push_back(ds.n_wall_nodes);
    ds.wall_offset = wall_offset;
    ds.hole_cut = sys.hole_cut;
    for (const OversetGrid& g : sys.grids) {
        ds.walls.push_back(g.wall);
        ds.wall_nodes.push_back(g.wall_nodes);
        ds.wall_xyz.emplace_back();
        if (g.wall.closed)
            ds.wall_xyz.back().assign(static_cast<std::size_t>(g.mesh.n_nodes()) * 3, 0.0);
    }
    const int me = ds.rank;
    UGKS_REQUIRE(
        cell_rank.empty() || cell_rank.size() == sys.grids.size(),
        "distribute: " << cell_rank.size() << " partitions for " << sys.grids.size() << " grids");
    ds.cell_rank = std::move(cell_rank);
    for (std::size_t gi = 0; gi < sys.grids.size(); ++gi) {
        const OversetGrid& g = sys.grids[gi];
        const Mesh& m = g.mesh;
        const index_t nn = m.n_nodes(), nc = m.n_cells();
        if (ds.cell_rank.size() <= gi) ds.cell_rank.push_back(partition_cells(m, ds.size));
        const std::vector<int>& cr = ds.cell_rank[gi];
        UGKS_REQUIRE(
            static_cast<index_t>(cr.size()) == nc &&
                std::all_of(cr.begin(), cr.end(), [&](int r) { return r >= 0 && r < ds.size; }),
            "distribute: the partition of grid '" << g.name << "' is not a rank per cell");
        LocalGrid L;
        L.n_global_nodes = nn;
        L.n_global_cells = nc;
        L.layer = g.layer;
        L.motion = g.motion;
        L.has_walls = !g.wall_nodes.empty();
        std::vector<index_t> g2l(static_cast<std::size_t>(nn), -1);
        for (index_t c = 0; c < nc; ++c)
            if (cr[c] == me) {
                L.cell_gid.push_back(c);
                for (index_t j = m.cell_node_offsets[c]; j < m.cell_node_offsets[c + 1]; ++j)
                    g2l[m.cell_nodes[j]] = 0;
            }
        for (index_t v = 0; v < nn; ++v)
            if (g2l[v] == 0) {
                g2l[v] = static_cast<index_t>(L.node_gid.size());
                L.node_gid.push_back(v);
            }
        for (const index_t c : L.cell_gid) {
            for (index_t j = m.cell_node_offsets[c]; j < m.cell_node_offsets[c + 1]; ++j)
                L.cell_nodes.push_back(g2l[m.cell_nodes[j]]);
            L.cell_node_offsets.push_back(static_cast<index_t>(L.cell_nodes.size()));
            L.cell_type.push_back(static_cast<std::int8_t>(m.cell_type[c]));
        }
        const index_t nl = L.n_nodes();
        L.ref_xyz.resize(static_cast<std::size_t>(nl) * 3);
        L.node_owned.assign(static_cast<std::size_t>(nl), 0);
        L.shared.assign(static_cast<std::size_t>(ds.size), {});
        std::vector<int> holders;
        for (index_t i = 0; i < nl; ++i) {
            const index_t v = L.node_gid[i];
            for (int d = 0; d < 3; ++d) L.ref_xyz[i * 3 + d] = m.nodes[v][d];
            holders.clear();
            for (index_t a = g.node_cell_offsets[v]; a < g.node_cell_offsets[v + 1]; ++a)
                holders.push_back(cr[g.node_cells[a]]);
            std::sort(holders.begin(), holders.end());
            holders.erase(std::unique(holders.begin(), holders.end()), holders.end());
            L.node_owned[i] = holders.front() == me ? 1 : 0;
            for (const int r : holders)
                if (r != me) L.shared[r].push_back(i);
        }
        // local node -> local cells (CSR)
        L.node_cell_offsets.assign(static_cast<std::size_t>(nl) + 1, 0);
        for (const index_t v : L.cell_nodes) ++L.node_cell_offsets[v + 1];
        for (index_t i = 0; i < nl; ++i) L.node_cell_offsets[i + 1] += L.node_cell_offsets[i];
        L.node_cells.resize(L.cell_nodes.size());
        {
            std::vector<index_t> pos(L.node_cell_offsets.begin(), L.node_cell_offsets.end() - 1);
            for (index_t c = 0; c < L.n_cells(); ++c)
                for (index_t j = L.cell_node_offsets[c]; j < L.cell_node_offsets[c + 1]; ++j)
                    L.node_cells[pos[L.cell_nodes[j]]++] = c;
        }
        for (const index_t v : g.boundary_nodes)
            if (g2l[v] >= 0) L.boundary_nodes.push_back(g2l[v]);
        for (std::size_t k = 0; k < g.wall_nodes.size(); ++k) {
            const index_t v = g.wall_nodes[k];
            if (g2l[v] < 0 || !L.node_owned[g2l[v]]) continue;
            L.owned_wall_nodes.push_back(g2l[v]);
            L.owned_wall_index.push_back(wall_offset[gi] + static_cast<index_t>(k));
        }
        ds.grids.push_back(std::move(L));
    }
    return ds;
}

// ---- distributed donor query --------------------------------------------------------------------

std::vector<DonorHit> query_donors(const DistributedSystem& ds, const std::vector<double>& x,
                                   const std::vector<int>& grid, bool skip_holes, double* mpi_s) {
    const int p = ds.size, ng = static_cast<int>(ds.grids.size()), dim = ds.dim;
    const index_t n = static_cast<index_t>(grid.size());
    // 1. Send every point to the ranks whose part of its grid has a box containing it (4 doubles:
    //    x, y, z, grid); remember which query each sent slot belongs to.
    std::vector<std::vector<double>> send(p);
    std::vector<std::vector<index_t>> slot(p);
    for (index_t q = 0; q < n; ++q)
        for (int r = 0; r < p; ++r) {
            const double* b = &ds.part_box[(static_cast<std::size_t>(r) * ng + grid[q]) * 6];
            bool in = true;
            for (int a = 0; a < dim && in; ++a)
                in = b[a] <= x[q * 3 + a] && b[3 + a] >= x[q * 3 + a];
            if (!in) continue;
            send[r].insert(send[r].end(),
                           {x[q * 3], x[q * 3 + 1], x[q * 3 + 2], static_cast<double>(grid[q])});
            slot[r].push_back(q);
        }
    std::vector<int> rc;
    std::vector<double> recv;
    {
        MpiTimer t(mpi_s);
        recv = alltoallv(ds.comm, send, &rc);
    }
    // 2. Answer with the local find_donor_in (smallest local = smallest global index): 10 doubles
    //    (global cell or -1, interpolated wall distance, weights).
    constexpr int kReply = 2 + kMaxCellNodes;
    const index_t nr = static_cast<index_t>(recv.size() / 4);
    std::vector<double> reply(static_cast<std::size_t>(nr) * kReply, 0.0);
    std::vector<GridView> views;
    for (const LocalGrid& g : ds.grids) views.push_back(local_view(g, dim));
    const double* rq = recv.data();
    double* rp = reply.data();
    host_for(nr, [&, rq, rp](index_t i) {
        const int gi = static_cast<int>(rq[i * 4 + 3]);
        const GridView& v = views[gi];
        double w[kMaxCellNodes];
        const index_t c = find_donor_in(v, rq + i * 4, skip_holes, w);
        double* o = rp + i * kReply;
        o[0] = -1;
        if (c < 0) return;
        o[0] = static_cast<double>(ds.grids[gi].cell_gid[c]);
        o[1] = interpolate_in_cell(v, c, w, v.wall_distance);
        for (int k = 0; k < kMaxCellNodes; ++k) o[2 + k] = w[k];
    });
    // 3. Replies back (same order as received), then the smallest global cell index per query.
    std::vector<std::vector<double>> back(p);
    {
        std::size_t k = 0;
        for (int r = 0; r < p; ++r) {
            back[r].assign(reply.begin() + k * kReply, reply.begin() + (k + rc[r] / 4) * kReply);
            k += rc[r] / 4;
        }
    }
    std::vector<double> ans;
    {
        MpiTimer t(mpi_s);
        ans = alltoallv(ds.comm, back, nullptr);
    }
    std::vector<DonorHit> hits(static_cast<std::size_t>(n));
    std::size_t k = 0;
    for (int r = 0; r < p; ++r)
        for (const index_t q : slot[r]) {
            const double* o = &ans[k++ * kReply];
            if (o[0] < 0) continue;
            const index_t c = static_cast<index_t>(o[0]);
            DonorHit& h = hits[q];
            if (h.cell >= 0 && h.cell < c) continue;
            h.cell = c;
            h.d = o[1];
            for (int j = 0; j < kMaxCellNodes; ++j) h.w[j] = o[2 + j];
        }
    return hits;
}

// ---- assembly -----------------------------------------------------------------------------------

AssemblyCounts assemble_distributed(DistributedSystem& ds, double time, AssemblyTimes* times,
                                    const Pose& common) {
    AssemblyTimes local_t;
    AssemblyTimes& tm = times ? *times : local_t;
    const int dim = ds.dim, ng = static_cast<int>(ds.grids.size()), p = ds.size;
    double mpi = 0;  // MPI seconds of the current phase (moved from the phase to tm.mpi)
    auto phase_end = [&](double& phase, Clock::time_point t0) {
        phase += seconds_since(t0) - mpi;
        tm.mpi += mpi;
        mpi = 0;
    };

    // Motion: reset, then place every local node at its pose.
    auto t0 = Clock::now();
    for (LocalGrid& g : ds.grids) {
        const PoseArrays pa = compose(pose_at(g.motion, time), common).arrays();
        const index_t n = g.n_nodes();
        g.xyz.resize(static_cast<std::size_t>(n) * 3);
        for (index_t i = 0; i < n; ++i) pose_apply(pa, &g.ref_xyz[i * 3], dim, &g.xyz[i * 3]);
        g.node_status.assign(static_cast<std::size_t>(n), 1);
        g.cell_status.assign(static_cast<std::size_t>(g.n_cells()), 1);
        g.fringe_node.clear();
        g.fringe_donor_grid.clear();
        g.fringe_donor_cell.clear();
        g.fringe_weights.clear();
        g.n_orphans = 0;
    }
    phase_end(tm.motion, t0);

    // Wall distance: every rank gets all wall points (each from its owner rank, placed in the
    // serial order: grid by grid, wall nodes ascending, so the tree is the serial one) and queries
    // its nodes exactly (the distance to the nearest wall point is the serial value: the serial
    // advancing front only prunes).
    t0 = Clock::now();
    std::vector<double> mine;
    for (const LocalGrid& g : ds.grids)
        for (std::size_t k = 0; k < g.owned_wall_nodes.size(); ++k) {
            const index_t i = g.owned_wall_nodes[k];
            mine.insert(mine.end(), {static_cast<double>(g.owned_wall_index[k]), g.xyz[i * 3],
                                     g.xyz[i * 3 + 1], g.xyz[i * 3 + 2]});
        }
    std::vector<double> got, pts;
    {
        MpiTimer t(&mpi);
        int cnt = static_cast<int>(mine.size());
        std::vector<int> counts(p);
        UGKS_MPI_CHECK(MPI_Allgather(&cnt, 1, MPI_INT, counts.data(), 1, MPI_INT, ds.comm));
        const std::vector<int> disp = displacements(counts);
        got.resize(static_cast<std::size_t>(disp[p]));
        UGKS_MPI_CHECK(MPI_Allgatherv(mine.data(), cnt, MPI_DOUBLE, got.data(), counts.data(),
                                      disp.data(), MPI_DOUBLE, ds.comm));
    }
    const index_t nw = static_cast<index_t>(got.size() / 4);
    UGKS_REQUIRE(nw == ds.n_wall_nodes, "distributed overset: " << nw << " wall points gathered, "
                                                                << ds.n_wall_nodes << " expected");
    pts.resize(static_cast<std::size_t>(nw) * 3);
    for (index_t k = 0; k < nw; ++k) {
        const index_t j = static_cast<index_t>(got[k * 4]);
        UGKS_REQUIRE(j >= 0 && j < nw, "distributed overset: wall point index " << j);
        for (int a = 0; a < 3; ++a) pts[j * 3 + a] = got[k * 4 + 1 + a];
    }
    const KdTree wall_tree = build_kdtree(pts.data(), nw, 3, ds.leaf_size);
    phase_end(tm.wall_tree_build, t0);
    t0 = Clock::now();
    for (LocalGrid& g : ds.grids) {
        const index_t n = g.n_nodes();
        g.nearest_wall.assign(static_cast<std::size_t>(n), -1);
        if (!g.has_walls || nw == 0) {
            const int k = nw == 0 ? 1 : std::max(1, ds.wall_layer - g.layer);
            g.wall_distance.assign(static_cast<std::size_t>(n), k * ds.layer_spacing);
        } else {
            g.wall_distance =
                nearest_distances(wall_tree, g.xyz.data(), n, nullptr, &g.nearest_wall);
        }
    }
    phase_end(tm.wall_query, t0);

    // Donor trees over the local cell boxes; part boxes of every rank and grid.
    t0 = Clock::now();
    std::vector<double> my_box(static_cast<std::size_t>(ng) * 6);
    for (int gi = 0; gi < ng; ++gi) {
        LocalGrid& g = ds.grids[gi];
        const index_t nc = g.n_cells();
        g.cell_box.resize(static_cast<std::size_t>(nc) * 2 * dim);
        double* bx = g.cell_box.data();
        const index_t* off = g.cell_node_offsets.data();
        const index_t* cn = g.cell_nodes.data();
        const double* xyz = g.xyz.data();
        host_for(nc, [=](index_t c) { cell_box_of(dim, off, cn, xyz, c, bx + c * 2 * dim); });
        g.donor_tree = build_kdtree(g.cell_box.data(), nc, 2 * dim, ds.leaf_size);
        double* b = &my_box[static_cast<std::size_t>(gi) * 6];
        for (int a = 0; a < 3; ++a) b[a] = kInf, b[3 + a] = -kInf;
        for (index_t c = 0; c < nc; ++c)
            for (int a = 0; a < dim; ++a) {
                b[a] = std::min(b[a], bx[c * 2 * dim + a]);
                b[3 + a] = std::max(b[3 + a], bx[c * 2 * dim + dim + a]);
            }
    }
    ds.part_box.resize(static_cast<std::size_t>(p) * ng * 6);
    {
        MpiTimer t(&mpi);
        UGKS_MPI_CHECK(MPI_Allgather(my_box.data(), ng * 6, MPI_DOUBLE, ds.part_box.data(), ng * 6,
                                     MPI_DOUBLE, ds.comm));
    }
    phase_end(tm.donor_tree_build, t0);

    // Explicit hole cut (as assemble()): the closed walls at their current pose (wall nodes from
    // the gathered wall points), the inside flags of the local nodes, the local cut cells (a cell
    // has all its nodes locally: every copy of a node decides the same), the cut flags of the
    // nodes (OR-ed over the copies: a node's cells may lie on several ranks) and the pairs of
    // grids of which one reaches into the other's body (OR over the ranks).
    t0 = Clock::now();
    std::vector<int> bodies;
    if (ds.hole_cut)
        for (int bi = 0; bi < ng; ++bi)
            if (ds.walls[bi].closed) {
                std::vector<double>& wx = ds.wall_xyz[bi];
                const std::vector<index_t>& wn = ds.wall_nodes[bi];
                for (std::size_t k = 0; k < wn.size(); ++k)
                    for (int a = 0; a < 3; ++a)
                        wx[wn[k] * 3 + a] =
                            pts[(ds.wall_offset[bi] + static_cast<index_t>(k)) * 3 + a];
                update_wall_surface(ds.walls[bi], wx.data(), ds.leaf_size);
                bodies.push_back(bi);
            }
    std::vector<std::vector<char>> cut(ng);
    std::vector<int> reach(static_cast<std::size_t>(ng) * ng, 0);
    for (int gi = 0; gi < ng; ++gi) {
        LocalGrid& g = ds.grids[gi];
        cut[gi].assign(static_cast<std::size_t>(g.n_nodes()), 0);
        std::vector<WallView> walls;
        std::vector<int> wall_grid;
        for (const int bi : bodies)
            if (bi != gi) {
                walls.push_back(wall_view(ds.walls[bi], ds.wall_xyz[bi].data()));
                wall_grid.push_back(bi);
            }
        if (walls.empty()) continue;
        std::vector<std::int8_t> ib(static_cast<std::size_t>(g.n_nodes()), 0);
        inside_flags(walls, wall_grid, g.xyz.data(), g.n_nodes(), ib.data());
        for (index_t i = 0; i < g.n_nodes(); ++i)
            if (ib[i]) reach[gi * ng + ib[i] - 1] = 1;
        for (index_t c = 0; c < g.n_cells(); ++c)
            for (index_t b = g.cell_node_offsets[c]; b < g.cell_node_offsets[c + 1]; ++b)
                if (ib[g.cell_nodes[b]]) g.cell_status[c] = 0;
        for (index_t c = 0; c < g.n_cells(); ++c)
            if (g.cell_status[c] == 0)
                for (index_t b = g.cell_node_offsets[c]; b < g.cell_node_offsets[c + 1]; ++b)
                    cut[gi][g.cell_nodes[b]] = 1;
    }
    if (!bodies.empty() && p > 1) {
        or_shared_flags(ds, cut, &mpi);
        MpiTimer t(&mpi);
        UGKS_MPI_CHECK(
            MPI_Allreduce(MPI_IN_PLACE, reach.data(), ng * ng, MPI_INT, MPI_LOR, ds.comm));
    }
    phase_end(tm.hole_cut, t0);

    // Host search: for every local node, the smallest interpolated wall distance over its host
    // cells in the other grids (+inf without a host), cut cells excluded, through the distributed
    // query; between two grids of which one reaches into the other's body, the grid whose wall
    // holds the node's nearest wall node decides (hole_cut_priority).
    t0 = Clock::now();
    std::vector<double> qx;
    std::vector<int> qg;
    for (int gi = 0; gi < ng; ++gi) {
        const LocalGrid& g = ds.grids[gi];
        for (index_t i = 0; i < g.n_nodes(); ++i)
            for (int hi = 0; hi < ng; ++hi) {
                if (hi == gi) continue;
                qx.insert(qx.end(), {g.xyz[i * 3], g.xyz[i * 3 + 1], g.xyz[i * 3 + 2]});
                qg.push_back(hi);
            }
    }
    const std::vector<DonorHit> hosts = query_donors(ds, qx, qg, true, &mpi);
    std::vector<std::vector<double>> host_d(ng);
    {
        std::size_t q = 0;
        for (int gi = 0; gi < ng; ++gi) {
            const LocalGrid& g = ds.grids[gi];
            const index_t n = g.n_nodes();
            host_d[gi].assign(static_cast<std::size_t>(n), kInf);
            for (index_t i = 0; i < n; ++i)
                for (int hi = 0; hi < ng; ++hi) {
                    if (hi == gi) continue;
                    const DonorHit& h = hosts[q++];
                    const int pr = hole_cut_priority(reach.data(), ds.wall_offset.data(), ng, gi,
                                                     hi, g.nearest_wall[i]);
                    if (pr == kHostIgnored || h.cell < 0) continue;
                    const double d = pr == kHostWins ? -kInf : h.d;
                    if (d < host_d[gi][i]) host_d[gi][i] = d;
                }
        }
    }
    phase_end(tm.donor_query, t0);

    // Classification (every copy of a node decides the same), island removal (reached flags
    // OR-ed over the copies until no rank changes), cell status.
    t0 = Clock::now();
    AssemblyCounts cnt;
    std::vector<std::vector<char>> reached(ng);
    std::vector<std::vector<index_t>> front(ng);
    for (int gi = 0; gi < ng; ++gi) {
        LocalGrid& g = ds.grids[gi];
        const index_t n = g.n_nodes();
        for (index_t i = 0; i < n; ++i) {
            g.node_status[i] = cut[gi][i] || g.wall_distance[i] > host_d[gi][i] ? 0 : 1;
            if (g.node_owned[i] && cut[gi][i]) ++cnt.hole_cut;
        }
        reached[gi].assign(static_cast<std::size_t>(n), 0);
        for (const index_t i : g.boundary_nodes)
            if (g.node_status[i] && !reached[gi][i]) {
                reached[gi][i] = 1;
                front[gi].push_back(i);
            }
    }
    for (;;) {
        for (int gi = 0; gi < ng; ++gi) {
            const LocalGrid& g = ds.grids[gi];
            fill_reached(node_adjacency(g, g), g.node_status.data(), reached[gi].data(), front[gi]);
        }
        if (p == 1) break;
        // copies reached elsewhere start the next local sweep
        std::vector<std::vector<char>> before = reached;
        or_shared_flags(ds, reached, &mpi);
        int changed = 0;
        for (int gi = 0; gi < ng; ++gi)
            for (index_t i = 0; i < ds.grids[gi].n_nodes(); ++i)
                if (reached[gi][i] && !before[gi][i]) {
                    front[gi].push_back(i);
                    changed = 1;
                }
        int any = 0;
        {
            MpiTimer t(&mpi);
            UGKS_MPI_CHECK(MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_LOR, ds.comm));
        }
        if (!any) break;
    }
    for (int gi = 0; gi < ng; ++gi) {
        LocalGrid& g = ds.grids[gi];
        for (index_t i = 0; i < g.n_nodes(); ++i)
            if (g.node_status[i] && !reached[gi][i]) {
                g.node_status[i] = 0;
                if (g.node_owned[i]) ++cnt.islands_removed;
            }
        for (index_t c = 0; c < g.n_cells(); ++c) {
            int na = 0, nn = 0;
            for (index_t b = g.cell_node_offsets[c]; b < g.cell_node_offsets[c + 1]; ++b, ++nn)
                na += g.node_status[g.cell_nodes[b]];
            g.cell_status[c] = na == nn ? 1 : (na == 0 ? 0 : -1);
        }
    }
    phase_end(tm.classification, t0);

    // Donor stencils: receptors = inactive nodes of a fringe cell on any rank (flags OR-ed over
    // the copies), each found by its owner rank; among the other grids' non-hole cells containing
    // it, the smallest interpolated wall distance (ties: lower grid, then lower cell index).
    t0 = Clock::now();
    std::vector<std::vector<char>> rec(ng);
    for (int gi = 0; gi < ng; ++gi) {
        const LocalGrid& g = ds.grids[gi];
        rec[gi].assign(static_cast<std::size_t>(g.n_nodes()), 0);
        for (index_t c = 0; c < g.n_cells(); ++c)
            if (g.cell_status[c] == -1)
                for (index_t b = g.cell_node_offsets[c]; b < g.cell_node_offsets[c + 1]; ++b)
                    if (!g.node_status[g.cell_nodes[b]]) rec[gi][g.cell_nodes[b]] = 1;
    }
    if (p > 1) or_shared_flags(ds, rec, &mpi);
    qx.clear();
    qg.clear();
    for (int gi = 0; gi < ng; ++gi) {
        LocalGrid& g = ds.grids[gi];
        for (index_t i = 0; i < g.n_nodes(); ++i)
            if (rec[gi][i] && g.node_owned[i]) {
                g.fringe_node.push_back(i);
                for (int hi = 0; hi < ng; ++hi) {
                    if (hi == gi) continue;
                    qx.insert(qx.end(), {g.xyz[i * 3], g.xyz[i * 3 + 1], g.xyz[i * 3 + 2]});
                    qg.push_back(hi);
                }
            }
    }
    const std::vector<DonorHit> donors = query_donors(ds, qx, qg, true, &mpi);
    {
        std::size_t q = 0;
        for (int gi = 0; gi < ng; ++gi) {
            LocalGrid& g = ds.grids[gi];
            const index_t nr = static_cast<index_t>(g.fringe_node.size());
            g.fringe_donor_grid.assign(static_cast<std::size_t>(nr), -1);
            g.fringe_donor_cell.assign(static_cast<std::size_t>(nr), -1);
            g.fringe_weights.assign(static_cast<std::size_t>(nr) * kMaxCellNodes, 0.0);
            for (index_t r = 0; r < nr; ++r) {
                double best = kInf;
                for (int hi = 0; hi < ng; ++hi) {
                    if (hi == gi) continue;
                    const DonorHit& h = donors[q++];
                    if (h.cell < 0 || !(h.d < best)) continue;
                    best = h.d;
                    g.fringe_donor_grid[r] = hi;
                    g.fringe_donor_cell[r] = h.cell;
                    for (int k = 0; k < kMaxCellNodes; ++k)
                        g.fringe_weights[r * kMaxCellNodes + k] = h.w[k];
                }
                g.n_orphans += g.fringe_donor_cell[r] < 0;
            }
        }
    }
    phase_end(tm.donor_stencils, t0);

    // Global counts (owned nodes, all local cells: every cell has one rank).
    long long c[11] = {0,
                       0,
                       0,
                       0,
                       0,
                       0,
                       0,
                       0,
                       0,
                       static_cast<long long>(cnt.islands_removed),
                       static_cast<long long>(cnt.hole_cut)};
    for (const LocalGrid& g : ds.grids) {
        c[0] += g.n_global_nodes;
        c[3] += g.n_global_cells;
        for (index_t i = 0; i < g.n_nodes(); ++i)
            if (g.node_owned[i]) (g.node_status[i] ? c[1] : c[2])++;
        for (const auto s : g.cell_status) (s == 1 ? c[4] : s == 0 ? c[6] : c[5])++;
        c[7] += static_cast<long long>(g.fringe_node.size());
        c[8] += g.n_orphans;
    }
    long long s[11];
    t0 = Clock::now();
    UGKS_MPI_CHECK(MPI_Allreduce(c, s, 11, MPI_LONG_LONG, MPI_SUM, ds.comm));
    tm.mpi += seconds_since(t0);
    // nodes and cells are global totals already (the same on every rank)
    cnt.nodes = c[0];
    cnt.cells = c[3];
    cnt.active_nodes = s[1];
    cnt.inactive_nodes = s[2];
    cnt.active_cells = s[4];
    cnt.fringe_cells = s[5];
    cnt.hole_cells = s[6];
    cnt.receptors = s[7];
    cnt.orphans = s[8];
    cnt.islands_removed = s[9];
    cnt.hole_cut = s[10];
    return cnt;
}

// ---- output -------------------------------------------------------------------------------------

namespace {

template <class T>
std::vector<T> gatherv_root(MPI_Comm comm, const std::vector<T>& mine, MPI_Datatype type) {
    int rank = 0, p = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int cnt = static_cast<int>(mine.size());
    std::vector<int> counts(p);
    UGKS_MPI_CHECK(MPI_Gather(&cnt, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
    std::vector<int> disp = displacements(counts);
    std::vector<T> all(rank == 0 ? static_cast<std::size_t>(disp[p]) : 0);
    UGKS_MPI_CHECK(
        MPI_Gatherv(mine.data(), cnt, type, all.data(), counts.data(), disp.data(), type, 0, comm));
    return all;
}

}  // namespace

void gather_state(const DistributedSystem& ds, OversetSystem& sys, double* mpi_s) {
    MpiTimer timer(mpi_s);
    const bool root = ds.rank == 0;
    for (std::size_t gi = 0; gi < ds.grids.size(); ++gi) {
        const LocalGrid& g = ds.grids[gi];
        // owned nodes: gid; xyz, wall distance, status
        std::vector<long long> ids, cids, fids;
        std::vector<double> nd, fw;
        std::vector<int> cst;
        for (index_t i = 0; i < g.n_nodes(); ++i)
            if (g.node_owned[i]) {
                ids.push_back(g.node_gid[i]);
                nd.insert(nd.end(), {g.xyz[i * 3], g.xyz[i * 3 + 1], g.xyz[i * 3 + 2],
                                     g.wall_distance[i], static_cast<double>(g.node_status[i])});
            }
        for (index_t c = 0; c < g.n_cells(); ++c) {
            cids.push_back(g.cell_gid[c]);
            cst.push_back(g.cell_status[c]);
        }
        for (std::size_t r = 0; r < g.fringe_node.size(); ++r) {
            fids.insert(fids.end(), {static_cast<long long>(g.node_gid[g.fringe_node[r]]),
                                     static_cast<long long>(g.fringe_donor_grid[r]),
                                     static_cast<long long>(g.fringe_donor_cell[r])});
            fw.insert(fw.end(), g.fringe_weights.begin() + r * kMaxCellNodes,
                      g.fringe_weights.begin() + (r + 1) * kMaxCellNodes);
        }
        const auto all_ids = gatherv_root(ds.comm, ids, MPI_LONG_LONG);
        const auto all_nd = gatherv_root(ds.comm, nd, MPI_DOUBLE);
        const auto all_cids = gatherv_root(ds.comm, cids, MPI_LONG_LONG);
        const auto all_cst = gatherv_root(ds.comm, cst, MPI_INT);
        const auto all_fids = gatherv_root(ds.comm, fids, MPI_LONG_LONG);
        const auto all_fw = gatherv_root(ds.comm, fw, MPI_DOUBLE);
        if (!root) continue;
        OversetGrid& G = sys.grids[gi];
        const std::size_t n = static_cast<std::size_t>(g.n_global_nodes);
        UGKS_REQUIRE(
            all_ids.size() == n && all_cids.size() == static_cast<std::size_t>(g.n_global_cells),
            "distributed overset: gathered " << all_ids.size() << " nodes, " << all_cids.size()
                                             << " cells of grid " << G.name);
        G.xyz.assign(n * 3, 0.0);
        G.wall_distance.assign(n, 0.0);
        G.node_status.assign(n, 0);
        G.cell_status.assign(static_cast<std::size_t>(g.n_global_cells), 0);
        for (std::size_t k = 0; k < all_ids.size(); ++k) {
            const std::size_t v = static_cast<std::size_t>(all_ids[k]);
            for (int a = 0; a < 3; ++a) G.xyz[v * 3 + a] = all_nd[k * 5 + a];
            G.wall_distance[v] = all_nd[k * 5 + 3];
            G.node_status[v] = static_cast<std::int8_t>(all_nd[k * 5 + 4]);
        }
        for (std::size_t k = 0; k < all_cids.size(); ++k)
            G.cell_status[static_cast<std::size_t>(all_cids[k])] =
                static_cast<std::int8_t>(all_cst[k]);
        const std::size_t nr = all_fids.size() / 3;
        std::vector<std::size_t> order(nr);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return all_fids[a * 3] < all_fids[b * 3]; });
        G.fringe_node.resize(nr);
        G.fringe_donor_grid.resize(nr);
        G.fringe_donor_cell.resize(nr);
        G.fringe_weights.resize(nr * kMaxCellNodes);
        G.n_orphans = 0;
        for (std::size_t r = 0; r < nr; ++r) {
            const std::size_t k = order[r];
            G.fringe_node[r] = all_fids[k * 3];
            G.fringe_donor_grid[r] = static_cast<int>(all_fids[k * 3 + 1]);
            G.fringe_donor_cell[r] = all_fids[k * 3 + 2];
            for (int j = 0; j < kMaxCellNodes; ++j)
                G.fringe_weights[r * kMaxCellNodes + j] = all_fw[k * kMaxCellNodes + j];
            G.n_orphans += G.fringe_donor_cell[r] < 0;
        }
        G.cell_box.clear();
        G.donor_tree = KdTree{};
    }
}

}  // namespace ugks::overset

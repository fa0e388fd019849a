// Distributed partition, local meshes and halo exchange (run under mpiexec -n 2, 3, 4).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ugks/mesh/sources.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"

namespace ugks {
namespace {

int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}
int size_of(MPI_Comm comm) {
    int s = 1;
    MPI_Comm_size(comm, &s);
    return s;
}

Mesh box(int dim, index_t nx, index_t ny, index_t nz, const std::string& type, Vec3 hi) {
    BoxSpec s;
    s.dim = dim;
    s.n = {nx, ny, nz};
    s.hi = hi;
    s.cell_type = type;
    return make_box(s);
}

struct Distributed {
    Mesh global;
    std::vector<int> part;
    LocalMesh local;
};

Distributed distribute(Mesh global, MPI_Comm comm) {
    Distributed d;
    d.global = std::move(global);
    d.part = partition_cells(d.global, size_of(comm), comm);
    d.local = build_local_mesh(d.global, d.part, rank_of(comm));
    return d;
}

std::vector<Distributed> test_meshes() {
    std::vector<Distributed> v;
    v.push_back(distribute(box(2, 12, 10, 1, "quad", {2, 3, 1}), MPI_COMM_WORLD));
    v.push_back(distribute(box(3, 4, 3, 3, "tetra", {1, 2, 0.5}), MPI_COMM_WORLD));
    return v;
}
const double kDomainVolume[] = {6.0, 1.0};

double field(index_t global_cell, int k) { return static_cast<double>(global_cell) * 3 + k; }

/// Owned rows hold field(global, k), ghost rows NaN.
std::vector<double> make_field(const LocalMesh& L, int width, double offset = 0) {
    std::vector<double> f(static_cast<std::size_t>(L.mesh.n_cells()) * width,
                          std::numeric_limits<double>::quiet_NaN());
    for (index_t c = 0; c < L.n_owned; ++c)
        for (int k = 0; k < width; ++k) f[c * width + k] = field(L.global_cell[c], k) + offset;
    return f;
}

/// Number of rows (owned and ghost) that differ from field(global, k) + offset.
index_t count_wrong(const LocalMesh& L, const std::vector<double>& f, int width,
                    double offset = 0) {
    index_t wrong = 0;
    for (index_t c = 0; c < L.mesh.n_cells(); ++c)
        for (int k = 0; k < width; ++k)
            if (!(f[c * width + k] == field(L.global_cell[c], k) + offset)) {
                ++wrong;
                break;
            }
    return wrong;
}

TEST(DistributedMesh, PartitionIsTheSameOnEveryRank) {
    const Mesh g = box(3, 5, 4, 3, "tetra", {1, 1, 1});
    const int size = size_of(MPI_COMM_WORLD);
    // Each rank runs METIS itself; compare with rank 0's result and with the collective variant.
    std::vector<int> mine = partition_cells(g, size);
    std::vector<int> root = mine;
    MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_EQ(mine, root);
    EXPECT_EQ(partition_cells(g, size, MPI_COMM_WORLD), root);
}

TEST(DistributedMesh, CollectivePartitionErrorReachesEveryRank) {
    const Mesh g = box(1, 2, 1, 1, "segment", {1, 1, 1});
    try {
        partition_cells(g, 3, MPI_COMM_WORLD);
        FAIL() << "no exception";
    } catch (const InputError& e) {
        EXPECT_NE(
            std::string(e.what()).find("the mesh has 2 cells, fewer than the 3 physical parts"),
            std::string::npos)
            << e.what();
    }
}

TEST(DistributedMesh, OwnedCellsCoverTheMeshOnceAndAddUpToTheDomainVolume) {
    const std::vector<Distributed> meshes = test_meshes();
    for (std::size_t m = 0; m < meshes.size(); ++m) {
        const Distributed& d = meshes[m];
        std::vector<int> owned(static_cast<std::size_t>(d.global.n_cells()), 0);
        double volume = 0;
        for (index_t c = 0; c < d.local.n_owned; ++c) {
            ++owned[d.local.global_cell[c]];
            volume += d.local.mesh.cell_volume[c];
        }
        MPI_Allreduce(MPI_IN_PLACE, owned.data(), static_cast<int>(owned.size()), MPI_INT, MPI_SUM,
                      MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &volume, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_EQ(owned, std::vector<int>(owned.size(), 1));
        EXPECT_NEAR(volume, kDomainVolume[m], 1e-12 * kDomainVolume[m]);
        EXPECT_GT(d.local.n_owned, 0);
        EXPECT_EQ(d.local.n_global_cells, d.global.n_cells());
    }
}

TEST(DistributedMesh, EveryFaceIsOnTheRanksOwningItsCellsWithTheSameGeometry) {
    const std::vector<Distributed> meshes = test_meshes();
    for (const Distributed& d : meshes) {
        const Mesh& g = d.global;
        const Mesh& m = d.local.mesh;
        const index_t nf = g.n_faces();
        // Per global face: number of copies, and the sum of the copies' area and normal components.
        std::vector<double> acc(static_cast<std::size_t>(nf) * 5, 0.0);
        for (index_t f = 0; f < m.n_faces(); ++f) {
            const index_t gf = d.local.global_face[f];
            acc[gf * 5 + 0] += 1;
            acc[gf * 5 + 1] += m.face_area[f];
            for (int i = 0; i < 3; ++i) acc[gf * 5 + 2 + i] += m.face_normal[f][i];
            EXPECT_EQ(d.local.global_cell[m.face_owner[f]], g.face_owner[gf]);
        }
        MPI_Allreduce(MPI_IN_PLACE, acc.data(), static_cast<int>(acc.size()), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        index_t bad = 0;
        for (index_t f = 0; f < nf; ++f) {
            const index_t a = g.face_owner[f], b = g.face_neighbour[f];
            const double copies = (b >= 0 && d.part[a] != d.part[b]) ? 2 : 1;
            bool ok =
                acc[f * 5] == copies && std::abs(acc[f * 5 + 1] - copies * g.face_area[f]) < 1e-14;
            for (int i = 0; i < 3; ++i)
                ok = ok && std::abs(acc[f * 5 + 2 + i] - copies * g.face_normal[f][i]) < 1e-14;
            if (!ok) ++bad;
        }
        EXPECT_EQ(bad, 0);
    }
}

TEST(HaloExchange, SendListsMatchTheNeighboursReceiveListsByGlobalId) {
    const std::vector<Distributed> meshes = test_meshes();
    for (const Distributed& d : meshes) {
        const LocalMesh& L = d.local;
        const HaloPattern& H = L.halo;
        std::vector<std::vector<std::int64_t>> from(H.neighbours.size());
        std::vector<MPI_Request> req;
        std::vector<std::vector<std::int64_t>> to(H.neighbours.size());
        for (std::size_t i = 0; i < H.neighbours.size(); ++i) {
            for (index_t c : H.send_cells[i]) to[i].push_back(L.global_cell[c]);
            from[i].resize(H.recv_cells[i].size() +
                           1);  // one extra: a longer send would be truncated
        }
        req.resize(2 * H.neighbours.size());
        for (std::size_t i = 0; i < H.neighbours.size(); ++i) {
            MPI_Irecv(from[i].data(), static_cast<int>(from[i].size()), MPI_INT64_T,
                      H.neighbours[i], 99, MPI_COMM_WORLD, &req[i]);
            MPI_Isend(to[i].data(), static_cast<int>(to[i].size()), MPI_INT64_T, H.neighbours[i],
                      99, MPI_COMM_WORLD, &req[H.neighbours.size() + i]);
        }
        std::vector<MPI_Status> st(req.size());
        MPI_Waitall(static_cast<int>(req.size()), req.data(), st.data());
        for (std::size_t i = 0; i < H.neighbours.size(); ++i) {
            int count = 0;
            MPI_Get_count(&st[i], MPI_INT64_T, &count);
            ASSERT_EQ(static_cast<std::size_t>(count), H.recv_cells[i].size());
            for (std::size_t k = 0; k < H.recv_cells[i].size(); ++k)
                EXPECT_EQ(from[i][k], L.global_cell[H.recv_cells[i][k]]);
        }
        // Every rank has a neighbour (the meshes are connected and split into non-empty parts).
        EXPECT_FALSE(H.neighbours.empty());
    }
}

TEST(HaloExchange, GlobalIdsAsInt64) {
    const std::vector<Distributed> meshes = test_meshes();
    for (const Distributed& d : meshes) {
        const LocalMesh& L = d.local;
        HaloExchange halo(MPI_COMM_WORLD, L.halo);
        std::vector<std::int64_t> ids(static_cast<std::size_t>(L.mesh.n_cells()) * 2, -1);
        for (index_t c = 0; c < L.n_owned; ++c) {
            ids[c * 2] = L.global_cell[c];
            ids[c * 2 + 1] = -L.global_cell[c];
        }
        halo.exchange(ids.data(), 2);
        for (index_t c = 0; c < L.mesh.n_cells(); ++c) {
            EXPECT_EQ(ids[c * 2], L.global_cell[c]);
            EXPECT_EQ(ids[c * 2 + 1], -L.global_cell[c]);
        }
    }
}

TEST(HaloExchange, FillsEveryGhostWithTheOwnersValueForWidths1To300) {
    const std::vector<Distributed> meshes = test_meshes();
    for (const Distributed& d : meshes) {
        HaloExchange halo(MPI_COMM_WORLD, d.local.halo);
        for (int width : {1, 7, 300}) {
            SCOPED_TRACE("width " + std::to_string(width));
            std::vector<double> f = make_field(d.local, width);
            ASSERT_EQ(count_wrong(d.local, f, width), d.local.n_ghost);  // ghosts start wrong
            halo.exchange(f.data(), width);
            EXPECT_EQ(count_wrong(d.local, f, width), 0);
            EXPECT_FALSE(halo.in_flight());
        }
    }
}

TEST(HaloExchange, SplitPhaseSendsTheValuesAtBegin) {
    const Distributed d = distribute(box(2, 10, 9, 1, "triangle", {1, 1, 1}), MPI_COMM_WORLD);
    HaloExchange halo(MPI_COMM_WORLD, d.local.halo);
    const int width = 7;
    std::vector<double> f = make_field(d.local, width);
    halo.begin(f.data(), width);
    EXPECT_TRUE(halo.in_flight());
    // Owned rows change while the exchange is in flight (as a stage-1 update would).
    for (index_t c = 0; c < d.local.n_owned; ++c)
        for (int k = 0; k < width; ++k) f[c * width + k] += 1000;
    halo.end(f.data());
    EXPECT_FALSE(halo.in_flight());
    for (index_t c = 0; c < d.local.mesh.n_cells(); ++c) {
        const double shift = c < d.local.n_owned ? 1000 : 0;
        for (int k = 0; k < width; ++k)
            ASSERT_EQ(f[c * width + k], field(d.local.global_cell[c], k) + shift);
    }
}

TEST(HaloExchange, TwoExchangesInFlightOnOneCommunicatorDoNotMix) {
    const Distributed d = distribute(box(2, 8, 8, 1, "quad", {1, 1, 1}), MPI_COMM_WORLD);
    HaloExchange a(MPI_COMM_WORLD, d.local.halo), b(MPI_COMM_WORLD, d.local.halo);
    const int width = 3;  // same message sizes, so crossed messages would go unnoticed by MPI
    std::vector<double> fa = make_field(d.local, width, 0.0);
    std::vector<double> fb = make_field(d.local, width, 0.5);
    a.begin(fa.data(), width);
    b.begin(fb.data(), width);
    b.end(fb.data());
    a.end(fa.data());
    EXPECT_EQ(count_wrong(d.local, fa, width, 0.0), 0);
    EXPECT_EQ(count_wrong(d.local, fb, width, 0.5), 0);
}

TEST(HaloExchange, MovedObjectKeepsWorkingAndAbandonedExchangeDoesNotHang) {
    const Distributed d = distribute(box(2, 6, 6, 1, "quad", {1, 1, 1}), MPI_COMM_WORLD);
    HaloExchange halo;
    {
        HaloExchange tmp(MPI_COMM_WORLD, d.local.halo);
        halo = std::move(tmp);
    }
    std::vector<double> f = make_field(d.local, 2);
    {
        // An exception between begin and end destroys the object mid-exchange.
        HaloExchange abandoned(MPI_COMM_WORLD, d.local.halo);
        abandoned.begin(f.data(), 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    halo.exchange(f.data(), 2);
    EXPECT_EQ(count_wrong(d.local, f, 2), 0);
}

TEST(HaloExchange, OverCommXOfEveryPhaseSpaceLayout) {
    const int size = size_of(MPI_COMM_WORLD);
    const Mesh g = box(2, 9, 8, 1, "quad", {1, 1, 1});
    for (int pv = 1; pv <= size; ++pv) {
        if (size % pv != 0) continue;
        SCOPED_TRACE("P_v = " + std::to_string(pv));
        PhaseSpaceLayout L = make_layout(MPI_COMM_WORLD, pv);
        const std::vector<int> part = partition_cells(g, L.P_x, L.comm_x);
        const LocalMesh local = build_local_mesh(g, part, L.p);
        {
            HaloExchange halo(L.comm_x, local.halo);
            // Each velocity rank q carries its own values: traffic must stay within comm_x(q).
            const double offset = 1000.0 * L.q;
            std::vector<double> f = make_field(local, 5, offset);
            halo.exchange(f.data(), 5);
            EXPECT_EQ(count_wrong(local, f, 5, offset), 0);
            // Every velocity rank of one physical part holds the same cells.
            std::int64_t sum = 0;
            for (index_t c = 0; c < local.n_owned; ++c) sum += local.global_cell[c];
            std::int64_t lo = 0, hi = 0;
            MPI_Allreduce(&sum, &lo, 1, MPI_INT64_T, MPI_MIN, L.comm_v);
            MPI_Allreduce(&sum, &hi, 1, MPI_INT64_T, MPI_MAX, L.comm_v);
            EXPECT_EQ(lo, hi);
        }
        free_layout(L);
    }
}

}  // namespace
}  // namespace ugks

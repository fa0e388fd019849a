// Phase-space layout, rank map and error agreement (run under mpiexec -n 2, 3, 4, 6).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/device/device.hpp"
#include "ugks/parallel/layout.hpp"

namespace ugks {
namespace {

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

std::vector<int> allgather(MPI_Comm comm, int value) {
    int n = 0;
    MPI_Comm_size(comm, &n);
    std::vector<int> all(static_cast<std::size_t>(n));
    MPI_Allgather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
    return all;
}

std::vector<std::string> all_hosts() {
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    std::vector<char> buf(static_cast<std::size_t>(MPI_MAX_PROCESSOR_NAME) * world_size());
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, buf.data(), MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> hosts;
    for (int r = 0; r < world_size(); ++r)
        hosts.emplace_back(buf.data() + MPI_MAX_PROCESSOR_NAME * r);
    return hosts;
}

bool has_errors_return(MPI_Comm comm) {
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(comm, &eh);
    const bool ok = eh == MPI_ERRORS_RETURN;
    MPI_Errhandler_free(&eh);
    return ok;
}

/// Run fn; return the exception's dynamic type name and message ("" / "none" when nothing is
/// thrown).
struct Thrown {
    std::string type = "none";
    std::string message;
};
Thrown catch_all(const std::function<void()>& fn) {
    Thrown t;
    try {
        fn();
    } catch (const InputError& e) {
        t = {"InputError", e.what()};
    } catch (const NumericalError& e) {
        t = {"NumericalError", e.what()};
    } catch (const std::runtime_error& e) {
        t = {typeid(e) == typeid(std::runtime_error) ? "runtime_error" : "other runtime_error",
             e.what()};
    } catch (const std::exception& e) {
        t = {"other", e.what()};
    }
    return t;
}

TEST(Layout, SplitForEveryDivisorOfTheWorldSize) {
    const int size = world_size(), rank = world_rank();
    const std::vector<std::string> hosts = all_hosts();
    for (int pv = 1; pv <= size; ++pv) {
        if (size % pv != 0) continue;
        SCOPED_TRACE("P_v = " + std::to_string(pv));
        PhaseSpaceLayout L = make_layout(MPI_COMM_WORLD, pv);
        EXPECT_EQ(L.world_rank, rank);
        EXPECT_EQ(L.world_size, size);
        EXPECT_EQ(L.P_v, pv);
        EXPECT_EQ(L.P_x, size / pv);
        EXPECT_EQ(L.q, rank % pv);  // velocity index fastest
        EXPECT_EQ(L.p, rank / pv);
        EXPECT_EQ(L.device, -1);

        int n = 0, r = -1, cmp = MPI_UNEQUAL;
        MPI_Comm_compare(L.world, MPI_COMM_WORLD, &cmp);
        EXPECT_EQ(cmp, MPI_CONGRUENT);  // a duplicate, not MPI_COMM_WORLD itself
        MPI_Comm_size(L.comm_x, &n);
        EXPECT_EQ(n, L.P_x);
        MPI_Comm_rank(L.comm_x, &r);
        EXPECT_EQ(r, L.p);
        MPI_Comm_size(L.comm_v, &n);
        EXPECT_EQ(n, L.P_v);
        MPI_Comm_rank(L.comm_v, &r);
        EXPECT_EQ(r, L.q);

        // comm_v(p): the consecutive world ranks p*P_v .. p*P_v + P_v - 1; comm_x(q): q, q + P_v,
        // ...
        std::vector<int> expect_v(static_cast<std::size_t>(pv)),
            expect_x(static_cast<std::size_t>(L.P_x));
        for (int j = 0; j < pv; ++j) expect_v[j] = L.p * pv + j;
        for (int i = 0; i < L.P_x; ++i) expect_x[i] = i * pv + L.q;
        EXPECT_EQ(allgather(L.comm_v, rank), expect_v);
        EXPECT_EQ(allgather(L.comm_x, rank), expect_x);
        int lo = 0, hi = 0;
        MPI_Allreduce(&L.q, &lo, 1, MPI_INT, MPI_MIN, L.comm_x);
        MPI_Allreduce(&L.q, &hi, 1, MPI_INT, MPI_MAX, L.comm_x);
        EXPECT_EQ(lo, L.q);
        EXPECT_EQ(hi, L.q);
        MPI_Allreduce(&L.p, &lo, 1, MPI_INT, MPI_MIN, L.comm_v);
        MPI_Allreduce(&L.p, &hi, 1, MPI_INT, MPI_MAX, L.comm_v);
        EXPECT_EQ(lo, L.p);
        EXPECT_EQ(hi, L.p);

        // Node communicator: the ranks on this host, ordered by world rank.
        int same_host_below = 0, same_host = 0;
        for (int w = 0; w < size; ++w) {
            if (hosts[w] != hosts[rank]) continue;
            ++same_host;
            if (w < rank) ++same_host_below;
        }
        EXPECT_EQ(L.local_rank, same_host_below);
        EXPECT_EQ(L.local_size, same_host);
        EXPECT_EQ(L.host, hosts[rank]);

        EXPECT_TRUE(has_errors_return(L.world));
        EXPECT_TRUE(has_errors_return(L.comm_x));
        EXPECT_TRUE(has_errors_return(L.comm_v));
        EXPECT_TRUE(has_errors_return(L.comm_node));

        free_layout(L);
        EXPECT_EQ(L.world, MPI_COMM_NULL);
        EXPECT_EQ(L.comm_x, MPI_COMM_NULL);
        EXPECT_EQ(L.comm_v, MPI_COMM_NULL);
        EXPECT_EQ(L.comm_node, MPI_COMM_NULL);
    }
}

TEST(Layout, VelocityRanksNotDividingTheWorldIsAnInputErrorOnEveryRank) {
    const int size = world_size();
    int bad = 2;
    while (size % bad == 0) ++bad;
    const Thrown t = catch_all([&] { make_layout(MPI_COMM_WORLD, bad); });
    EXPECT_EQ(t.type, "InputError");
    EXPECT_EQ(t.message, "parallel.velocity_ranks = " + std::to_string(bad) +
                             " does not divide the number of MPI ranks (" + std::to_string(size) +
                             ")");
    if (size == 4)
        EXPECT_EQ(t.message,
                  "parallel.velocity_ranks = 3 does not divide the number of MPI ranks (4)");

    for (int pv : {0, -2}) {
        const Thrown z = catch_all([&] { make_layout(MPI_COMM_WORLD, pv); });
        EXPECT_EQ(z.type, "InputError");
        EXPECT_EQ(z.message,
                  "parallel.velocity_ranks = " + std::to_string(pv) +
                      " must be at least 1 (number of MPI ranks: " + std::to_string(size) + ")");
    }
    // The world is still usable afterwards.
    PhaseSpaceLayout L = make_layout(MPI_COMM_WORLD, 1);
    EXPECT_EQ(L.P_x, size);
    free_layout(L);
}

TEST(Layout, VelocityRanksDifferingBetweenRanksFailsEverywhereWithoutHanging) {
    const int pv = world_rank() == 0 ? 1 : world_size();
    const Thrown t = catch_all([&] { make_layout(MPI_COMM_WORLD, pv); });
    EXPECT_EQ(t.type, "runtime_error");
    EXPECT_EQ(t.message, "parallel.velocity_ranks differs between MPI ranks (1 .. " +
                             std::to_string(world_size()) + ")");
}

TEST(AgreeOrThrow, NothingHappensWhenEveryRankSucceeds) {
    EXPECT_EQ(catch_all([] { agree_or_throw(MPI_COMM_WORLD, 0, "unused"); }).type, "none");
}

TEST(AgreeOrThrow, OnlyRankOneFailsAndEveryRankThrowsItsMessage) {
    const int rank = world_rank();
    const struct {
        int code;
        const char* type;
    } cases[] = {
        {2, "InputError"}, {3, "NumericalError"}, {1, "runtime_error"}, {7, "runtime_error"}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.type);
        const Thrown t = catch_all([&] {
            agree_or_throw(MPI_COMM_WORLD, rank == 1 ? c.code : 0,
                           rank == 1 ? "case.yaml:12: key 'time.cfl' bad on rank 1" : "");
        });
        EXPECT_EQ(t.type, c.type);
        EXPECT_EQ(t.message, "case.yaml:12: key 'time.cfl' bad on rank 1");
    }
}

TEST(AgreeOrThrow, WorstClassWinsThenLowestRank) {
    const int rank = world_rank(), size = world_size();
    // Rank 1 has an input error, the last rank a numerical one: the numerical error is reported.
    const int last = size - 1;
    int code = 0;
    std::string msg;
    if (rank == 0 && size == 2) code = 2, msg = "input on rank 0";
    if (rank == 1 && size > 2) code = 2, msg = "input on rank 1";
    if (rank == last) code = 3, msg = "numerical on rank " + std::to_string(last);
    Thrown t = catch_all([&] { agree_or_throw(MPI_COMM_WORLD, code, msg); });
    EXPECT_EQ(t.type, "NumericalError");
    EXPECT_EQ(t.message, "numerical on rank " + std::to_string(last));

    // Every rank fails with the same class: the lowest rank's message.
    t = catch_all([&] { agree_or_throw(MPI_COMM_WORLD, 2, "rank " + std::to_string(rank)); });
    EXPECT_EQ(t.type, "InputError");
    EXPECT_EQ(t.message, "rank 0");

    // Ranks >= 1 fail: rank 1 speaks.
    t = catch_all(
        [&] { agree_or_throw(MPI_COMM_WORLD, rank >= 1 ? 1 : 0, "r" + std::to_string(rank)); });
    EXPECT_EQ(t.type, "runtime_error");
    EXPECT_EQ(t.message, "r1");
}

TEST(AgreeOrThrow, WorksOnSubCommunicators) {
    PhaseSpaceLayout L = make_layout(MPI_COMM_WORLD, 1);
    // Only world rank 1 fails; agreement over comm_v (just itself) and over comm_x (everyone).
    const Thrown self =
        catch_all([&] { agree_or_throw(L.comm_v, L.world_rank == 1 ? 2 : 0, "own"); });
    EXPECT_EQ(self.type, L.world_rank == 1 ? "InputError" : "none");
    const Thrown all =
        catch_all([&] { agree_or_throw(L.comm_x, L.world_rank == 1 ? 3 : 0, "nan at cell 4"); });
    EXPECT_EQ(all.type, "NumericalError");
    EXPECT_EQ(all.message, "nan at cell 4");
    free_layout(L);
}

TEST(RunCollective, ExceptionOnOneRankReachesEveryRank) {
    const int rank = world_rank();
    Thrown t = catch_all([&] {
        run_collective(MPI_COMM_WORLD, [&] {
            if (rank == 1) throw InputError("mesh.file: cannot open 'x.msh'");
        });
    });
    EXPECT_EQ(t.type, "InputError");
    EXPECT_EQ(t.message, "mesh.file: cannot open 'x.msh'");

    t = catch_all([&] {
        run_collective(MPI_COMM_WORLD, [&] {
            if (rank == 1) throw std::logic_error("internal");
        });
    });
    EXPECT_EQ(t.type, "runtime_error");
    EXPECT_EQ(t.message, "internal");

    int calls = 0;
    t = catch_all([&] { run_collective(MPI_COMM_WORLD, [&] { ++calls; }); });
    EXPECT_EQ(t.type, "none");
    EXPECT_EQ(calls, 1);
}

TEST(Layout, BindDeviceUsesTheNodeLocalRank) {
    PhaseSpaceLayout L = make_layout(MPI_COMM_WORLD, 1);
    bind_device(L);
    const int count = device::device_count();
    if (count == 0) {
        EXPECT_EQ(L.device, -1);
    } else if (std::getenv("CTEST_RESOURCE_GROUP_0_GPUS") == nullptr) {
        EXPECT_EQ(L.device, L.local_rank % count);
    }
    free_layout(L);
}

TEST(Layout, RankMapListsEveryRankOnce) {
    const int size = world_size(), rank = world_rank();
    const int pv = size % 2 == 0 ? 2 : size;
    PhaseSpaceLayout L = make_layout(MPI_COMM_WORLD, pv);
    const std::vector<std::string> hosts = all_hosts();
    const std::vector<RankInfo> rows = gather_rank_info(L);
    const std::string text = rank_map(L);
    free_layout(L);  // collective: before any early return below
    if (rank != 0) {
        EXPECT_TRUE(rows.empty());
        EXPECT_EQ(text, "");
        return;
    }
    ASSERT_EQ(static_cast<int>(rows.size()), size);
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(rows[r].world_rank, r);
        EXPECT_EQ(rows[r].host, hosts[r]);
        EXPECT_EQ(rows[r].p, r / pv);
        EXPECT_EQ(rows[r].q, r % pv);
        EXPECT_EQ(rows[r].device, -1);
    }

    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "rank map: " + std::to_string(size) + " ranks = P_x " +
                        std::to_string(size / pv) + " x P_v " + std::to_string(pv));
    std::getline(in, line);
    std::istringstream header(line);
    std::vector<std::string> cols;
    for (std::string w; header >> w;) cols.push_back(w);
    EXPECT_EQ(cols,
              (std::vector<std::string>{"rank", "host", "local", "device", "visible", "p", "q"}));
    std::vector<int> seen(static_cast<std::size_t>(size), 0);
    int n_rows = 0;
    while (std::getline(in, line)) {
        std::istringstream row(line);
        int r = -1, local = -1, visible = -1, p = -1, q = -1;
        std::string host, dev;
        ASSERT_TRUE(static_cast<bool>(row >> r >> host >> local >> dev >> visible >> p >> q))
            << line;
        EXPECT_EQ(visible, rows[r].visible_devices);
        EXPECT_EQ(visible, ugks::device::device_count());  // one host: every rank sees the same
        ASSERT_GE(r, 0);
        ASSERT_LT(r, size);
        ++seen[r];
        ++n_rows;
        EXPECT_EQ(host, hosts[r]);
        EXPECT_EQ(p, r / pv);
        EXPECT_EQ(q, r % pv);
        EXPECT_EQ(dev, "-");
        EXPECT_EQ(local, rows[r].local_rank);
    }
    EXPECT_EQ(n_rows, size);
    EXPECT_EQ(seen, std::vector<int>(static_cast<std::size_t>(size), 1));
}

}  // namespace
}  // namespace ugks

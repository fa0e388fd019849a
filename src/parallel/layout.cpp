#include "ugks/parallel/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "ugks/core/error.hpp"
#include "ugks/device/device.hpp"
#include "ugks/parallel/mpi_check.hpp"

namespace ugks {

namespace detail {
[[noreturn]] void mpi_check_fail(int err, const char* expr, const char* file, int line) {
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) text[0] = 0;
    internal_fail(fmt::format("MPI call {} failed: {} (error code {})", expr, text, err), file,
                  line);
}
}  // namespace detail

namespace {

void set_errors_return(MPI_Comm comm) {
    UGKS_MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
}

void free_comm(MPI_Comm& comm) {
    if (comm != MPI_COMM_NULL && comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF)
        UGKS_MPI_CHECK(MPI_Comm_free(&comm));
    comm = MPI_COMM_NULL;
}

}  // namespace

void agree_or_throw(MPI_Comm comm, int code, const std::string& message) {
    UGKS_REQUIRE(code >= 0, "agree_or_throw: negative code " << code);
    int max_code = 0;
    UGKS_MPI_CHECK(MPI_Allreduce(&code, &max_code, 1, MPI_INT, MPI_MAX, comm));
    if (max_code == 0) return;

    int rank = 0, size = 1;
    UGKS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    UGKS_MPI_CHECK(MPI_Comm_size(comm, &size));
    // The lowest rank of the worst class speaks for everyone: same message on every rank.
    const int candidate = code == max_code ? rank : size;
    int root = size;
    UGKS_MPI_CHECK(MPI_Allreduce(&candidate, &root, 1, MPI_INT, MPI_MIN, comm));

    std::string text = rank == root ? message : std::string();
    long long len = static_cast<long long>(text.size());
    UGKS_MPI_CHECK(MPI_Bcast(&len, 1, MPI_LONG_LONG, root, comm));
    text.resize(static_cast<std::size_t>(len));
    if (len > 0) {
        UGKS_REQUIRE(len <= static_cast<long long>(INT32_MAX), "error message too long");
        UGKS_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, root, comm));
    }

    if (max_code == kExitInput) throw InputError(text);
    if (max_code == kExitNumerical) throw NumericalError(text);
    throw std::runtime_error(text);
}

PhaseSpaceLayout make_layout(MPI_Comm world, int velocity_ranks) {
    int size = 1, rank = 0;
    UGKS_MPI_CHECK(MPI_Comm_size(world, &size));
    UGKS_MPI_CHECK(MPI_Comm_rank(world, &rank));

    // Every rank reads P_v from the same case file; a mismatch would be an internal error, and
    // checking it here keeps the split below from deadlocking.
    int extremes[2] = {velocity_ranks, -velocity_ranks};
    UGKS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_INT, MPI_MAX, world));
    int code = 0;
    std::string msg;
    if (extremes[0] != -extremes[1]) {
        code = kExitFailure;
        msg = fmt::format("parallel.velocity_ranks differs between MPI ranks ({} .. {})",
                          -extremes[1], extremes[0]);
    } else if (velocity_ranks < 1) {
        code = kExitInput;
        msg =
            fmt::format("parallel.velocity_ranks = {} must be at least 1 (number of MPI ranks: {})",
                        velocity_ranks, size);
    } else if (size % velocity_ranks != 0) {
        code = kExitInput;
        msg =
            fmt::format("parallel.velocity_ranks = {} does not divide the number of MPI ranks ({})",
                        velocity_ranks, size);
    }
    agree_or_throw(world, code, msg);

    PhaseSpaceLayout L;
    UGKS_MPI_CHECK(MPI_Comm_dup(world, &L.world));
    set_errors_return(L.world);
    L.world_rank = rank;
    L.world_size = size;
    L.P_v = velocity_ranks;
    L.P_x = size / velocity_ranks;
    L.q =
        rank % velocity_ranks;  // velocity index fastest: one physical part's ranks are consecutive
    L.p = rank / velocity_ranks;

    UGKS_MPI_CHECK(MPI_Comm_split(L.world, L.p, L.q, &L.comm_v));
    UGKS_MPI_CHECK(MPI_Comm_split(L.world, L.q, L.p, &L.comm_x));
    UGKS_MPI_CHECK(
        MPI_Comm_split_type(L.world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &L.comm_node));
    set_errors_return(L.comm_v);
    set_errors_return(L.comm_x);
    set_errors_return(L.comm_node);
    UGKS_MPI_CHECK(MPI_Comm_rank(L.comm_node, &L.local_rank));
    UGKS_MPI_CHECK(MPI_Comm_size(L.comm_node, &L.local_size));

    int rx = -1, rv = -1;
    UGKS_MPI_CHECK(MPI_Comm_rank(L.comm_x, &rx));
    UGKS_MPI_CHECK(MPI_Comm_rank(L.comm_v, &rv));
    UGKS_REQUIRE(rx == L.p && rv == L.q, "communicator split: rank in comm_x "
                                             << rx << " != p " << L.p << " or rank in comm_v " << rv
                                             << " != q " << L.q);

    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    UGKS_MPI_CHECK(MPI_Get_processor_name(name, &len));
    L.host.assign(name, static_cast<std::size_t>(len));
    return L;
}

void free_layout(PhaseSpaceLayout& layout) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {
        layout.comm_x = layout.comm_v = layout.comm_node = layout.world = MPI_COMM_NULL;
        return;
    }
    free_comm(layout.comm_x);
    free_comm(layout.comm_v);
    free_comm(layout.comm_node);
    free_comm(layout.world);
}

void bind_device(PhaseSpaceLayout& layout) {
    run_collective(layout.world, [&] { layout.device = device::bind(layout.local_rank); });
}

std::vector<RankInfo> gather_rank_info(const PhaseSpaceLayout& layout) {
    constexpr int kInts = 6;
    const int mine[kInts] = {layout.world_rank, layout.local_rank, layout.device,
                             layout.p,          layout.q,          device::device_count()};
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    layout.host.copy(host, std::min<std::size_t>(layout.host.size(), MPI_MAX_PROCESSOR_NAME - 1));

    const bool root = layout.world_rank == 0;
    std::vector<int> ints(root ? static_cast<std::size_t>(kInts) * layout.world_size : 0);
    std::vector<char> hosts(
        root ? static_cast<std::size_t>(MPI_MAX_PROCESSOR_NAME) * layout.world_size : 0);
    UGKS_MPI_CHECK(MPI_Gather(mine, kInts, MPI_INT, ints.data(), kInts, MPI_INT, 0, layout.world));
    UGKS_MPI_CHECK(MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(),
                              MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, layout.world));

    std::vector<RankInfo> rows;
    if (!root) return rows;
    rows.resize(static_cast<std::size_t>(layout.world_size));
    for (int r = 0; r < layout.world_size; ++r) {
        const int* v = ints.data() + static_cast<std::size_t>(kInts) * r;
        RankInfo& row = rows[static_cast<std::size_t>(r)];
        row.world_rank = v[0];
        row.local_rank = v[1];
        row.device = v[2];
        row.p = v[3];
        row.q = v[4];
        row.visible_devices = v[5];
        row.host = std::string(hosts.data() + static_cast<std::size_t>(MPI_MAX_PROCESSOR_NAME) * r);
    }
    return rows;
}

std::string rank_map(const PhaseSpaceLayout& layout) {
    const std::vector<RankInfo> rows = gather_rank_info(layout);
    if (layout.world_rank != 0) return {};
    std::size_t host_w = 4;
    for (const RankInfo& r : rows) host_w = std::max(host_w, r.host.size());
    std::string out = fmt::format("rank map: {} ranks = P_x {} x P_v {}\n", layout.world_size,
                                  layout.P_x, layout.P_v);
    out += fmt::format("{:>6}  {:<{}}  {:>5}  {:>6}  {:>7}  {:>6}  {:>6}\n", "rank", "host", host_w,
                       "local", "device", "visible", "p", "q");
    for (const RankInfo& r : rows) {
        const std::string dev = r.device < 0 ? std::string("-") : std::to_string(r.device);
        out += fmt::format("{:>6}  {:<{}}  {:>5}  {:>6}  {:>7}  {:>6}  {:>6}\n", r.world_rank,
                           r.host, host_w, r.local_rank, dev, r.visible_devices, r.p, r.q);
    }
    return out;
}

}  // namespace ugks

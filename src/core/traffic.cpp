#include "ugks/core/traffic.hpp"

#include <atomic>
#include <cstdio>

namespace ugks {

namespace {
std::array<std::atomic<std::uint64_t>, kTrafficCounters>& counters() {
    static std::array<std::atomic<std::uint64_t>, kTrafficCounters> c{};
    return c;
}
}  // namespace

const char* traffic_name(Traffic c) {
    switch (c) {
        case Traffic::H2D:
            return "h2d";
        case Traffic::D2H:
            return "d2h";
        case Traffic::MpiSent:
            return "mpi_sent";
        case Traffic::MpiRecv:
            return "mpi_recv";
        case Traffic::NcclSent:
            return "nccl_sent";
        case Traffic::NcclRecv:
            return "nccl_recv";
        case Traffic::ReduceV:
            return "reduce_v";
        case Traffic::ReduceX:
            return "reduce_x";
        case Traffic::ReduceWorld:
            return "reduce_world";
        case Traffic::Count:
            break;
    }
    return "?";
}

void traffic_add(Traffic c, std::uint64_t bytes) {
    counters()[static_cast<int>(c)].fetch_add(bytes, std::memory_order_relaxed);
}

void traffic_add(Traffic c, MPI_Comm comm, std::uint64_t bytes) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size > 1) traffic_add(c, bytes);
}

TrafficCounts traffic_snapshot() {
    TrafficCounts t;
    for (int k = 0; k < kTrafficCounters; ++k)
        t.bytes[k] = counters()[k].load(std::memory_order_relaxed);
    return t;
}

std::vector<TrafficStat> reduce_traffic(const TrafficCounts& mine, MPI_Comm comm) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    // Doubles hold byte counts exactly up to 2^53 (8 PiB per rank).
    std::array<double, kTrafficCounters> local{}, mn{}, mx{}, sum{}, r0{};
    for (int k = 0; k < kTrafficCounters; ++k) local[k] = static_cast<double>(mine.bytes[k]);
    MPI_Allreduce(local.data(), mn.data(), kTrafficCounters, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(local.data(), mx.data(), kTrafficCounters, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(local.data(), sum.data(), kTrafficCounters, MPI_DOUBLE, MPI_SUM, comm);
    if (rank == 0) r0 = local;
    MPI_Bcast(r0.data(), kTrafficCounters, MPI_DOUBLE, 0, comm);
    std::vector<TrafficStat> out;
    for (int k = 0; k < kTrafficCounters; ++k)
        out.push_back({traffic_name(static_cast<Traffic>(k)), mn[k], sum[k] / size, mx[k], r0[k]});
    return out;
}

std::string format_bytes(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    double v = bytes;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        ++u;
    }
    char buf[48];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%.0f B", v);
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
    return buf;
}

}  // namespace ugks

#pragma once
/// Byte counters of the data a rank moves (issue 19, "Profiling"): host <-> device copies, MPI
/// point-to-point messages, NCCL sends and receives, and the payloads of reductions per
/// communicator. The places where the bytes move add to them (traffic_add); the time loop takes
/// the difference of two snapshots around each step (summary.json `traffic`, docs/usage.md).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ugks {

/// What a counter counts (bytes of this rank).
enum class Traffic : int {
    H2D = 0,   ///< host -> device copies (CUDA backend)
    D2H,       ///< device -> host copies (CUDA backend)
    MpiSent,   ///< MPI point-to-point payload sent (halo exchanges)
    MpiRecv,   ///< MPI point-to-point payload received
    NcclSent,  ///< NCCL point-to-point payload sent (parallel.halo: nccl)
    NcclRecv,  ///< NCCL point-to-point payload received
    ReduceV,   ///< reduction / broadcast payload over the velocity communicator C_v (MPI or NCCL)
    ReduceX,   ///< reduction / broadcast payload over the physical communicator C_x
    ReduceWorld,  ///< reduction / broadcast payload over all ranks
    Count
};
constexpr int kTrafficCounters = static_cast<int>(Traffic::Count);

/// The counters' names in summary.json ("h2d", "d2h", "mpi_sent", "mpi_recv", "nccl_sent",
/// "nccl_recv", "reduce_v", "reduce_x", "reduce_world").
const char* traffic_name(Traffic c);

/// A set of counter values (bytes).
struct TrafficCounts {
    std::array<std::uint64_t, kTrafficCounters> bytes{};
    std::uint64_t operator[](Traffic c) const { return bytes[static_cast<int>(c)]; }
    TrafficCounts& operator+=(const TrafficCounts& o) {
        for (int k = 0; k < kTrafficCounters; ++k) bytes[k] += o.bytes[k];
        return *this;
    }
    /// this - o per counter (o an earlier snapshot of the same counters).
    TrafficCounts operator-(const TrafficCounts& o) const {
        TrafficCounts d;
        for (int k = 0; k < kTrafficCounters; ++k) d.bytes[k] = bytes[k] - o.bytes[k];
        return d;
    }
};

/// Add bytes to a counter of this process (thread-safe, relaxed atomics).
void traffic_add(Traffic c, std::uint64_t bytes);
/// Add the payload of one collective over comm (a reduction, broadcast or gather: this rank's
/// contribution) to c; nothing when comm has a single rank, where no byte leaves the process.
void traffic_add(Traffic c, MPI_Comm comm, std::uint64_t bytes);
/// The process's counters since it started.
TrafficCounts traffic_snapshot();

/// One counter over the ranks of a communicator: min, mean, max and rank 0's value.
struct TrafficStat {
    std::string name;
    double min = 0, mean = 0, max = 0, rank0 = 0;
};
/// Collective over comm: the statistics of every counter of `mine` (in the order of Traffic).
std::vector<TrafficStat> reduce_traffic(const TrafficCounts& mine, MPI_Comm comm);

/// A byte count for a log line: "0 B", "512 B", "1.50 KiB", "2.25 MiB", "3.00 GiB".
std::string format_bytes(double bytes);

}  // namespace ugks

#pragma once
#include <mpi.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ugks {

/// Wall-clock timers by category (docs/architecture.md section 8: kernels, copies and MPI apart).
/// Categories used across the code: "reconstruction", "flux", "update", "reduction_device", "h2d",
/// "d2h", "mpi_halo", "mpi_reduction", "io", "setup", "total". Host-side wall time; device work is
/// fenced by the caller before stopping a device category.
class Timers {
public:
    void start(const std::string& category);
    void stop(const std::string& category);
    void add(const std::string& category, double seconds);
    double seconds(const std::string& category) const;
    const std::map<std::string, double>& all() const { return m_acc; }
    /// Replace the accumulated seconds (e.g. by an earlier all(): forget what was timed since).
    void reset_to(const std::map<std::string, double>& acc) { m_acc = acc; }

    /// Statistics of one category over the ranks of a communicator.
    struct Stat {
        std::string category;
        double min = 0, mean = 0, max = 0;
    };
    /// Collective over comm: min/mean/max per category (the union of categories on all ranks).
    std::vector<Stat> reduce(MPI_Comm comm) const;

private:
    std::map<std::string, double> m_acc;
    std::map<std::string, std::chrono::steady_clock::time_point> m_open;
};

/// The process-wide timers.
Timers& timers();

/// RAII scope: ScopedTimer t("io");
class ScopedTimer {
public:
    explicit ScopedTimer(std::string category) : m_cat(std::move(category)) {
        timers().start(m_cat);
    }
    ~ScopedTimer() { timers().stop(m_cat); }
    ScopedTimer(const ScopedTimer&) = delete;
    ScopedTimer& operator=(const ScopedTimer&) = delete;

private:
    std::string m_cat;
};

}  // namespace ugks

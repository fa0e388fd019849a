#pragma once
// Convergence monitor of steady runs (issue 8, docs/steady.md, docs/usage.md `time.monitor_*`):
// monitored output quantities (total force on the diffuse walls, values of the output probes) and
// the stopping rule "changed by less than a relative time.monitor_tolerance over the last
// time.monitor_window steps".
#include <mpi.h>

#include <deque>
#include <string>
#include <vector>

#include "ugks/app/case_setup.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/parallel/partition.hpp"

namespace ugks {

/// One monitored quantity: a vector of values judged together (relative to its largest entry).
struct MonitorGroup {
    std::string name;
    std::vector<double> values;
};

class SteadyMonitor {
public:
    SteadyMonitor(double tolerance, long window) : m_tol(tolerance), m_window(window) {}
    bool active() const { return m_tol > 0; }
    /// Add the values of this step (the same groups, in the same order, every step).
    void record(std::vector<MonitorGroup> groups);
    /// Largest relative change over the window: max over groups g, records k of the last `window`
    /// steps, entries j of |Q_j(now) - Q_j(k)| / max_j |Q_j(now)| (a group that is identically 0
    /// compares absolutely). +inf until window + 1 steps are recorded; 0 with no groups.
    double change() const;
    /// The group with the largest change ("" when none).
    std::string worst() const;
    bool converged() const { return active() && change() <= m_tol; }
    long window() const { return m_window; }
    double tolerance() const { return m_tol; }

private:
    double m_tol;
    long m_window;
    std::deque<std::vector<MonitorGroup>> m_hist;  ///< the last window + 1 records
};

/// The owned cell whose centroid is nearest to x over all ranks of comm (collective; ties go to the
/// lowest global cell id, independent of the decomposition): its rank, and on that rank the local
/// cell index (-1 on the other ranks).
struct NearestCell {
    int rank = 0;
    index_t cell = -1;
};
NearestCell nearest_owned_cell(const LocalMesh& local, const Vec3& x, MPI_Comm comm);

/// Cells sampled by the output probes (nearest owned cell centroid, global nearest over comm, as
/// probes_<name>.csv): per probe point the rank that holds it and its local cell.
class ProbeSampler {
public:
    ProbeSampler(const OutputConfig& out, const LocalMesh& local, MPI_Comm comm);
    /// Groups "probe <name> <field>" for the fields rho, U, T at every probe point (collective over
    /// comm: one MPI_Allreduce). Identical on every rank of comm.
    std::vector<MonitorGroup> sample(const std::vector<CellField>& fields) const;
    bool empty() const { return m_names.empty(); }

private:
    MPI_Comm m_comm;
    std::vector<std::string> m_names;
    std::vector<std::vector<index_t>> m_cell;  ///< per probe, per point: local cell or -1
};

}  // namespace ugks

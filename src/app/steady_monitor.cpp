#include "ugks/app/steady_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ugks/io/reports.hpp"

namespace ugks {

void SteadyMonitor::record(std::vector<MonitorGroup> groups) {
    m_hist.push_back(std::move(groups));
    while (static_cast<long>(m_hist.size()) > m_window + 1) m_hist.pop_front();
}

namespace {
/// Relative change of group g between the newest record and every other kept record.
double group_change(const std::deque<std::vector<MonitorGroup>>& hist, std::size_t g) {
    const auto& now = hist.back()[g].values;
    double scale = 0.0;
    for (double v : now) scale = std::max(scale, std::abs(v));
    if (!(scale > 0)) scale = 1.0;
    double d = 0.0;
    for (std::size_t k = 0; k + 1 < hist.size(); ++k) {
        const auto& old = hist[k][g].values;
        for (std::size_t j = 0; j < now.size() && j < old.size(); ++j)
            d = std::max(d, std::abs(now[j] - old[j]));
    }
    return d / scale;
}
}  // namespace

double SteadyMonitor::change() const {
    if (static_cast<long>(m_hist.size()) < m_window + 1) return HUGE_VAL;
    double c = 0.0;
    for (std::size_t g = 0; g < m_hist.back().size(); ++g) c = std::max(c, group_change(m_hist, g));
    return c;
}

std::string SteadyMonitor::worst() const {
    if (m_hist.empty() || static_cast<long>(m_hist.size()) < m_window + 1) return "";
    std::string name;
    double c = -1.0;
    for (std::size_t g = 0; g < m_hist.back().size(); ++g) {
        const double cg = group_change(m_hist, g);
        if (cg > c) c = cg, name = m_hist.back()[g].name;
    }
    return name;
}

NearestCell nearest_owned_cell(const LocalMesh& local, const Vec3& x, MPI_Comm comm) {
    // Ties (points equidistant from several centroids, e.g. on a mid-plane of a box mesh) go to the
    // lowest global cell id, so the choice does not depend on the decomposition.
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    struct {
        double d;
        int gid;
    } mine{HUGE_VAL, std::numeric_limits<int>::max()}, best{};
    index_t cell = -1;
    for (index_t i = 0; i < local.n_owned; ++i) {
        const Vec3& c = local.mesh.cell_centroid[i];
        const double d = (c[0] - x[0]) * (c[0] - x[0]) + (c[1] - x[1]) * (c[1] - x[1]) +
                         (c[2] - x[2]) * (c[2] - x[2]);
        const int gid = static_cast<int>(local.global_cell[i]);
        if (d < mine.d || (d == mine.d && gid < mine.gid)) {
            mine.d = d;
            mine.gid = gid;
            cell = i;
        }
    }
    MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    const bool owner = cell >= 0 && mine.d == best.d && mine.gid == best.gid;
    int owner_rank = owner ? rank : -1;
    MPI_Allreduce(MPI_IN_PLACE, &owner_rank, 1, MPI_INT, MPI_MAX, comm);
    return {owner_rank, owner ? cell : index_t(-1)};
}

ProbeSampler::ProbeSampler(const OutputConfig& out, const LocalMesh& local, MPI_Comm comm)
    : m_comm(comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (const auto& probe : out.probes) {
        m_names.push_back(probe.name);
        std::vector<index_t> cells;
        for (const auto& x : probe_points(probe.from, probe.to, probe.points)) {
            const NearestCell near = nearest_owned_cell(local, x, comm);
            cells.push_back(near.rank == rank ? near.cell : -1);
        }
        m_cell.push_back(cells);
    }
}

std::vector<MonitorGroup> ProbeSampler::sample(const std::vector<CellField>& fields) const {
    std::vector<MonitorGroup> groups;
    if (m_names.empty()) return groups;
    std::vector<const CellField*> mon;
    for (const auto& f : fields)
        if (f.name == "rho" || f.name == "U" || f.name == "T") mon.push_back(&f);
    // One buffer for every probe, field and point; exactly one rank fills each entry.
    std::vector<double> buf;
    for (std::size_t p = 0; p < m_names.size(); ++p)
        for (const CellField* f : mon) {
            groups.push_back({"probe " + m_names[p] + " " + f->name, {}});
            for (index_t cell : m_cell[p])
                for (int k = 0; k < f->width; ++k)
                    buf.push_back(cell >= 0 ? f->data[cell * f->width + k] : 0.0);
        }
    MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_SUM,
                  m_comm);
    std::size_t pos = 0, g = 0;
    for (std::size_t p = 0; p < m_names.size(); ++p)
        for (const CellField* f : mon) {
            const std::size_t n = m_cell[p].size() * static_cast<std::size_t>(f->width);
            groups[g++].values.assign(buf.begin() + pos, buf.begin() + pos + n);
            pos += n;
        }
    return groups;
}

}  // namespace ugks

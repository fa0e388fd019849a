#include "ugks/core/timer.hpp"

#include <cstring>
#include <set>

namespace ugks {

Timers& timers() {
    static Timers t;
    return t;
}

void Timers::start(const std::string& category) { m_open[category] = std::chrono::steady_clock::now(); }

void Timers::stop(const std::string& category) {
    auto it = m_open.find(category);
    if (it == m_open.end()) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second).count();
    m_acc[category] += s;
    m_open.erase(it);
}

void Timers::add(const std::string& category, double seconds) { m_acc[category] += seconds; }

double Timers::seconds(const std::string& category) const {
    auto it = m_acc.find(category);
    return it == m_acc.end() ? 0.0 : it->second;
}

std::vector<Timers::Stat> Timers::reduce(MPI_Comm comm) const {
    // Agree on the union of category names: gather all names as one '\n'-joined string.
    int size = 1;
    MPI_Comm_size(comm, &size);
    std::string mine;
    for (const auto& [k, v] : m_acc) mine += k + "\n";
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(size), displs(size);
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displs[r] = total;
        total += lens[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, comm);
    std::set<std::string> names;
    size_t pos = 0;
    while (pos < all.size()) {
        size_t nl = all.find('\n', pos);
        names.insert(all.substr(pos, nl - pos));
        pos = nl + 1;
    }
    std::vector<double> local, mn(names.size()), mx(names.size()), sum(names.size());
    for (const auto& n : names) local.push_back(seconds(n));
    const int n = static_cast<int>(local.size());
    MPI_Allreduce(local.data(), mn.data(), n, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(local.data(), mx.data(), n, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(local.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    std::vector<Stat> out;
    int i = 0;
    for (const auto& name : names) {
        out.push_back({name, mn[i], sum[i] / size, mx[i]});
        ++i;
    }
    return out;
}

}  // namespace ugks

// ugks_bench_overset: k-d tree build (ns/point) and 1-NN query (ns/query) of the overset
// wall-distance tree on the CPU (build_kdtree + nearest_distances, OpenMP queries) and on the
// device (CUDA builds), with brute force on the small sizes. Used by scripts/bench_overset.sh
// (docs/performance.md).
//
//   ugks_bench_overset [--sizes 1e4,1e5,1e6,1e7] [--sets uniform,stretched] [--backends cpu,gpu]
//                      [--reps 3] [--brute-max 1e5] [--max-queries 1e6] [--leaf 3] [--dump DIR]
//                      [--nanoflann-leaf 10,3] [--clock wall|cpu] [--sort-min N]
//
// Builds with nanoflann (libnanoflann-dev; CMake defines UGKS_HAVE_NANOFLANN) add the backend
// "nanoflann": its KDTreeSingleIndexAdaptor (L2, 3-D, one thread) on the same points and queries,
// one row per leaf size of --nanoflann-leaf (10 = nanoflann's default, 3 = ours), with the number
// of distances that differ from our CPU tree's.
//
// Points: "uniform" in [-1,1]^3, "stretched" in [-100,100]x[-1,1]^2 (100:1); queries: an
// independent cloud of the same distribution, min(n, max-queries) of them. Build times exclude the
// copy of the points to the device; best of reps. One line per row: backend set n queries
// build_ns_per_point query_ns_per_query, and for the device rows the mismatches against the CPU
// tree (distance or nearest point index differing, when the CPU rows ran). The device queries run
// in Morton order when there are at least --sort-min of them (default kDeviceQuerySortMin; 0:
// always, 1e18: never); the sort is included in the query time.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ugks/overset/overset.hpp"

#ifdef UGKS_HAVE_NANOFLANN
#include <nanoflann.hpp>
#endif

using namespace ugks;
using namespace ugks::overset;

namespace {

std::vector<double> cloud(index_t n, unsigned seed, double sx) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> p(static_cast<std::size_t>(n) * 3);
    for (index_t i = 0; i < n; ++i) {
        p[3 * i] = sx * u(rng);
        p[3 * i + 1] = u(rng);
        p[3 * i + 2] = u(rng);
    }
    return p;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    std::string t;
    while (std::getline(ss, t, ',')) v.push_back(t);
    return v;
}

// --clock cpu: the process's CPU time (std::clock) instead of the wall clock, for one-thread rows
// on a shared machine (other processes then cost this one no time; the device rows keep their own
// timers).
bool g_cpu_clock = false;
struct Stamp {
    std::chrono::steady_clock::time_point wall;
    std::clock_t cpu;
};
Stamp now() { return {std::chrono::steady_clock::now(), std::clock()}; }
double secs(const Stamp& t0) {
    if (g_cpu_clock) return static_cast<double>(std::clock() - t0.cpu) / CLOCKS_PER_SEC;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0.wall).count();
}

#ifdef UGKS_HAVE_NANOFLANN
// nanoflann's dataset adaptor over our flat xyz array.
struct Cloud {
    const double* p;
    std::size_t n;
    std::size_t kdtree_get_point_count() const { return n; }
    double kdtree_get_pt(std::size_t i, std::size_t d) const { return p[3 * i + d]; }
    template <class Box>
    bool kdtree_get_bbox(Box&) const {
        return false;
    }
};
using NfTree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, Cloud>,
                                                   Cloud, 3, std::uint32_t>;
#endif

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> sizes{"1e4", "1e5", "1e6", "1e7"}, sets{"uniform", "stretched"},
        backends{"cpu", "gpu"};
    int reps = 3, leaf = 3;
    double brute_max = 1e5, max_q = 1e6;
    std::vector<std::string> nf_leaves{"10", "3"};
    std::string dump;  // --dump DIR: write the point sets (raw float64, 3 per point) for the peers
    double sort_min = static_cast<double>(kDeviceQuerySortMin);
    for (int a = 1; a + 1 < argc; a += 2) {
        const std::string k = argv[a], v = argv[a + 1];
        if (k == "--sizes")
            sizes = split(v);
        else if (k == "--sets")
            sets = split(v);
        else if (k == "--backends")
            backends = split(v);
        else if (k == "--reps")
            reps = std::atoi(v.c_str());
        else if (k == "--leaf")
            leaf = std::atoi(v.c_str());
        else if (k == "--brute-max")
            brute_max = std::atof(v.c_str());
        else if (k == "--max-queries")
            max_q = std::atof(v.c_str());
        else if (k == "--dump")
            dump = v;
        else if (k == "--nanoflann-leaf")
            nf_leaves = split(v);
        else if (k == "--sort-min")
            sort_min = std::atof(v.c_str());
        else if (k == "--clock")
            g_cpu_clock = v == "cpu";
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    const bool want_cpu = std::count(backends.begin(), backends.end(), "cpu") > 0;
    const bool want_gpu = std::count(backends.begin(), backends.end(), "gpu") > 0;
    const bool want_nf = std::count(backends.begin(), backends.end(), "nanoflann") > 0;
#ifndef UGKS_HAVE_NANOFLANN
    if (want_nf)
        std::fprintf(stderr,
                     "nanoflann rows skipped: built without nanoflann (libnanoflann-dev)\n");
#endif
    if (want_gpu && !device_available()) {
        std::fprintf(stderr, "gpu rows skipped: no CUDA build or no visible device\n");
    }
    std::printf("# host timers: %s\n",
                g_cpu_clock ? "process CPU time (--clock cpu)" : "wall clock");
    std::printf("%-6s %-10s %10s %9s %14s %14s %s\n", "impl", "set", "points", "queries",
                "build_ns/pt", "query_ns/q", "check");
    for (const std::string& set : sets) {
        const double sx = set == "stretched" ? 100.0 : 1.0;
        for (const std::string& ss : sizes) {
            const index_t n = static_cast<index_t>(std::atof(ss.c_str()));
            const index_t nq = std::min<index_t>(n, static_cast<index_t>(max_q));
            const std::vector<double> p = cloud(n, 1234 + static_cast<unsigned>(n), sx);
            const std::vector<double> q = cloud(nq, 777 + static_cast<unsigned>(n), sx);
            if (!dump.empty()) {
                for (const auto& [tag, v] :
                     {std::pair<const char*, const std::vector<double>*>{"p", &p}, {"q", &q}}) {
                    const std::string f = dump + "/" + tag + "_" + set + "_" + ss + ".bin";
                    if (FILE* fp = std::fopen(f.c_str(), "wb")) {
                        std::fwrite(v->data(), sizeof(double), v->size(), fp);
                        std::fclose(fp);
                    }
                }
            }
            std::vector<double> dcpu;
            std::vector<index_t> ncpu;
            if (want_cpu) {
                const int r = n >= 1000000 ? 1 : reps;
                double tb = 1e300, tq = 1e300;
                for (int i = 0; i < r; ++i) {
                    auto t0 = now();
                    const KdTree t = build_kdtree(p.data(), n, 3, leaf);
                    tb = std::min(tb, secs(t0));
                    t0 = now();
                    dcpu = nearest_distances(t, q.data(), nq, nullptr, &ncpu);
                    tq = std::min(tq, secs(t0));
                }
                std::printf("%-6s %-10s %10lld %9lld %14.1f %14.1f %s\n", "cpu", set.c_str(),
                            static_cast<long long>(n), static_cast<long long>(nq), tb / n * 1e9,
                            tq / nq * 1e9, "-");
                std::fflush(stdout);
            }
#ifdef UGKS_HAVE_NANOFLANN
            for (const std::string& ls : want_nf ? nf_leaves : std::vector<std::string>{}) {
                const int nleaf = std::atoi(ls.c_str());
                const int r = n >= 1000000 ? 1 : reps;
                const Cloud c{p.data(), static_cast<std::size_t>(n)};
                double tb = 1e300, tq = 1e300;
                std::vector<double> dn(static_cast<std::size_t>(nq));
                for (int i = 0; i < r; ++i) {
                    auto t0 = now();
                    NfTree t(3, c, nanoflann::KDTreeSingleIndexAdaptorParams(nleaf));  // builds
                    tb = std::min(tb, secs(t0));
                    t0 = now();
                    for (index_t j = 0; j < nq; ++j) {
                        std::uint32_t idx = 0;
                        double d2 = 0;
                        t.knnSearch(q.data() + 3 * j, 1, &idx, &d2);
                        dn[j] = d2;
                    }
                    tq = std::min(tq, secs(t0));
                }
                index_t bad = 0;
                for (index_t j = 0; j < nq && !dcpu.empty(); ++j)
                    bad += std::sqrt(dn[j]) != dcpu[j];
                char impl[32], check[64];
                std::snprintf(impl, sizeof impl, "nf-l%d", nleaf);
                if (dcpu.empty())
                    std::snprintf(check, sizeof check, "-");
                else
                    std::snprintf(check, sizeof check, "%lld differ from cpu tree",
                                  static_cast<long long>(bad));
                std::printf("%-6s %-10s %10lld %9lld %14.1f %14.1f %s\n", impl, set.c_str(),
                            static_cast<long long>(n), static_cast<long long>(nq), tb / n * 1e9,
                            tq / nq * 1e9, check);
                std::fflush(stdout);
            }
#endif
            std::vector<double> dg;
            if (want_gpu && device_available()) {
                std::vector<index_t> ng;
                const KdBenchTimes t =
                    bench_kdtree_device(p.data(), n, q.data(), nq, leaf, std::max(reps, 2), &dg,
                                        &ng, static_cast<index_t>(sort_min));
                index_t bad = 0;  // distance or nearest index differing from the CPU tree's
                for (index_t i = 0; i < nq && !dcpu.empty(); ++i)
                    bad += dg[i] != dcpu[i] || ng[i] != ncpu[i];
                char check[64];
                if (dcpu.empty())
                    std::snprintf(check, sizeof check, "-");
                else
                    std::snprintf(check, sizeof check, "%lld mismatches vs cpu",
                                  static_cast<long long>(bad));
                std::printf("%-6s %-10s %10lld %9lld %14.2f %14.2f %s\n", "gpu", set.c_str(),
                            static_cast<long long>(n), static_cast<long long>(nq),
                            t.build_s / n * 1e9, t.query_s / nq * 1e9, check);
                std::fflush(stdout);
            }
            if (n <= brute_max) {
                const index_t nb = std::min<index_t>(nq, 10000);
                const auto t0 = now();
                const std::vector<double> b = nearest_distances_brute(p.data(), n, q.data(), nb);
                const double tq = secs(t0);
                // brute force against the CPU tree (else the device tree): the same distances
                const std::vector<double>& ref = dcpu.empty() ? dg : dcpu;
                index_t bad = 0;
                for (index_t i = 0; i < nb && !ref.empty(); ++i) bad += b[i] != ref[i];
                std::printf("%-6s %-10s %10lld %9lld %14s %14.1f %s\n", "brute", set.c_str(),
                            static_cast<long long>(n), static_cast<long long>(nb), "-",
                            tq / nb * 1e9,
                            ref.empty() ? "-"
                            : bad       ? "MISMATCH"
                                  : (dcpu.empty() ? "equal to gpu tree" : "equal to cpu tree"));
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

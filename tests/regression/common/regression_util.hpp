#pragma once
/// Shared helpers of the regression tests: run the solver in-process on a case file, read its
/// outputs (fields_final.h5, summary.json, history.csv, probes, reference tables) and compare
/// fields. Header-only; needs the `ugks` interface target and the test common library.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/app/run_case.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/io/fields_io.hpp"

#ifndef UGKS_REGRESSION_SOURCE_DIR
#error \
    "UGKS_REGRESSION_SOURCE_DIR must name tests/regression (set in tests/regression/CMakeLists.txt)"
#endif

namespace ugks::regression {

/// tests/regression/<name>/<file> in the source tree.
inline std::string case_file(const std::string& name, const std::string& file = "case.yaml") {
    return std::string(UGKS_REGRESSION_SOURCE_DIR) + "/" + name + "/" + file;
}

/// Rank in MPI_COMM_WORLD.
inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/// Empty the serial reference directory `dir` of a decomposition test (rank 0 removes and recreates
/// it; collective over MPI_COMM_WORLD).
inline void fresh_reference_dir(const std::string& dir) {
    if (world_rank() == 0) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        std::filesystem::create_directories(dir, ec);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/// One in-process run of ugks::run_case (collective over MPI_COMM_WORLD).
struct SolverRun {
    int code = -1;    ///< exit code of run_case (0 ok, 2 input, 3 numerical, 1 other)
    std::string dir;  ///< output directory
};

/// Run `case_path` with `output.directory` set to `dir` (a fresh temporary directory named after
/// `tag` when empty) plus the given --set overrides; quiet.
inline SolverRun run_solver(const std::string& case_path, const std::vector<std::string>& overrides,
                            const std::string& tag, std::string dir = "") {
    if (dir.empty()) dir = ugks::test::temp_dir(tag);
    ugks::CommandLine cl;
    cl.case_file = case_path;
    cl.overrides.push_back("output.directory=" + dir);
    cl.overrides.insert(cl.overrides.end(), overrides.begin(), overrides.end());
    cl.quiet = true;
    ugks::log::state().quiet = true;  // run_case leaves the log state to main(); tests stay quiet
    ugks::log::state().rank = world_rank();
    SolverRun r;
    r.dir = dir;
    r.code = ugks::run_case(cl);
    // Rank 0 writes summary.json and the CSV files last; wait for it so that every rank reads the
    // same complete outputs (otherwise a rank could fail an assertion alone and leave the others in
    // a collective).
    MPI_Barrier(MPI_COMM_WORLD);
    return r;
}

/// Remove an output directory (rank 0, after a barrier); used when a test passed.
inline void remove_output(const std::string& dir) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0 && !dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/// summary.json of a run.
inline nlohmann::json read_summary(const std::string& dir) {
    std::ifstream in(dir + "/summary.json");
    if (!in) throw std::runtime_error("cannot open " + dir + "/summary.json");
    return nlohmann::json::parse(in);
}

/// Number of steps and simulated time from summary.json (-1 when absent).
inline long summary_steps(const std::string& dir) {
    const auto j = read_summary(dir);
    return j.contains("steps") && j["steps"].is_number() ? j["steps"].get<long>() : -1;
}
inline double summary_time(const std::string& dir) {
    const auto j = read_summary(dir);
    return j.contains("time") && j["time"].is_number() ? j["time"].get<double>() : -1.0;
}

/// Cell fields of fields_final.h5 (global cell order), n = cell count.
struct Fields {
    std::size_t n = 0;
    std::vector<double> centroid, volume, rho, U, T, p, q, stress, Mach;
    double x(std::size_t i, int d = 0) const { return centroid[3 * i + d]; }
};

/// Read the cell fields of `<dir>/<file>` (collective over MPI_COMM_WORLD).
inline Fields read_fields(const std::string& dir, const std::string& file = "fields_final.h5") {
    const std::string path = dir + "/" + file;
    Fields f;
    auto rd = [&](const char* ds) { return ugks::read_field(path, ds, MPI_COMM_WORLD); };
    f.centroid = rd("/cells/centroid");
    f.volume = rd("/cells/volume");
    f.rho = rd("/fields/rho");
    f.U = rd("/fields/U");
    f.T = rd("/fields/T");
    f.p = rd("/fields/p");
    f.q = rd("/fields/q");
    f.stress = rd("/fields/stress");
    f.Mach = rd("/fields/Mach");
    f.n = f.rho.size();
    return f;
}

/// Check that a run completed and advanced: exit code 0 and, when `steps` >= 0, exactly that many
/// steps in summary.json. A steady run that time.steps ended before its tolerance (exit code 5,
/// summary.json steady.stopped_by "time.steps") did the steps asked for and counts as completed;
/// the tests that need convergence check steady.converged. A run of the set-up-only driver (steps
/// = 0) fails here with a clear message.
inline ::testing::AssertionResult run_completed(const SolverRun& r, long steps = -1) {
    bool step_limit = false;
    if (r.code == ugks::kExitNotConverged) {
        const auto j = read_summary(r.dir);
        step_limit = j.contains("steady") && j["steady"].value("stopped_by", "") == "time.steps";
    }
    if (r.code != 0 && !step_limit)
        return ::testing::AssertionFailure()
               << "ugks::run_case returned " << r.code << " (output in " << r.dir << ")";
    const long done = summary_steps(r.dir);
    if (done <= 0)
        return ::testing::AssertionFailure()
               << "the solver did not advance (summary.json steps = " << done
               << "): the UGKS time stepping is not available in this build (output in " << r.dir
               << ")";
    if (steps >= 0 && done != steps)
        return ::testing::AssertionFailure()
               << "summary.json reports " << done << " steps, expected " << steps;
    return ::testing::AssertionSuccess();
}

/// A CSV file with a header line (history.csv, probes_*.csv).
struct Csv {
    std::vector<std::string> columns;
    std::vector<std::vector<double>> rows;
    /// Index of a column; throws std::out_of_range naming the column when absent.
    std::size_t col(const std::string& name) const {
        for (std::size_t c = 0; c < columns.size(); ++c)
            if (columns[c] == name) return c;
        throw std::out_of_range("no column '" + name + "'");
    }
    std::vector<double> column(const std::string& name) const {
        const std::size_t c = col(name);
        std::vector<double> v;
        for (const auto& r : rows) v.push_back(c < r.size() ? r[c] : std::nan(""));
        return v;
    }
};

inline Csv read_csv(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    Csv csv;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;  // comment lines (surface_final.csv)
        std::stringstream ss(line);
        std::string cell;
        std::vector<std::string> cells;
        while (std::getline(ss, cell, ',')) cells.push_back(cell);
        if (header) {
            for (auto& c : cells) {
                c.erase(0, c.find_first_not_of(" \t\""));
                c.erase(c.find_last_not_of(" \t\"\r") + 1);
            }
            csv.columns = cells;
            header = false;
            continue;
        }
        std::vector<double> row;
        for (const auto& c : cells) row.push_back(std::strtod(c.c_str(), nullptr));
        csv.rows.push_back(row);
    }
    return csv;
}

/// Two-column numeric table (reference data, '#' comments).
inline std::vector<std::array<double, 2>> read_table(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<std::array<double, 2>> t;
    std::string line;
    while (std::getline(in, line)) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        std::stringstream ss(line);
        double a, b;
        if (ss >> a >> b) t.push_back({a, b});
    }
    return t;
}

/// Piecewise-linear interpolation of (xs, ys), xs ascending; constant extrapolation outside.
inline double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
    if (xs.empty()) return std::nan("");
    if (x <= xs.front()) return ys.front();
    if (x >= xs.back()) return ys.back();
    const auto it = std::upper_bound(xs.begin(), xs.end(), x);
    const std::size_t j = static_cast<std::size_t>(it - xs.begin());
    const double t = (x - xs[j - 1]) / (xs[j] - xs[j - 1]);
    return ys[j - 1] + t * (ys[j] - ys[j - 1]);
}

/// Domain totals sum_i V_i (rho, rho U_x, rho U_y, rho U_z, rho E), rho E = rho |U|^2 / 2 + N p / 2
/// (= N rho T / 4 + kinetic energy; N = 3 + K_int).
inline std::array<double, 5> totals(const Fields& f, int N) {
    std::array<double, 5> s{0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < f.n; ++i) {
        const double v = f.volume[i], r = f.rho[i];
        const double u2 = f.U[3 * i] * f.U[3 * i] + f.U[3 * i + 1] * f.U[3 * i + 1] +
                          f.U[3 * i + 2] * f.U[3 * i + 2];
        s[0] += v * r;
        for (int d = 0; d < 3; ++d) s[1 + d] += v * r * f.U[3 * i + d];
        s[4] += v * (0.5 * r * u2 + 0.25 * N * r * f.T[i]);
    }
    return s;
}

/// max_i |a_i - b_i| / max(max_i |b_i|, floor): the deviation of a field relative to its own scale.
inline double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b,
                           double floor = 1e-300) {
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double d = 0, s = floor;
    for (std::size_t i = 0; i < a.size(); ++i) {
        d = std::max(d, std::abs(a[i] - b[i]));
        s = std::max(s, std::abs(b[i]));
    }
    return d / s;
}

/// One component of a field of width `width`.
inline std::vector<double> component(const std::vector<double>& v, int width, int c) {
    std::vector<double> out;
    for (std::size_t i = c; i < v.size(); i += width) out.push_back(v[i]);
    return out;
}

/// The output fields compared by the decomposition tests, with their widths.
struct NamedField {
    const char* name;
    int width;
    std::vector<double> Fields::*member;
};
inline const NamedField kComparedFields[] = {
    {"rho", 1, &Fields::rho},  {"U", 3, &Fields::U}, {"T", 1, &Fields::T},
    {"p", 1, &Fields::p},      {"q", 3, &Fields::q}, {"stress", 6, &Fields::stress},
    {"Mach", 1, &Fields::Mach}};

// Every field (each component of the vector ones) of `run` against `ref`, relative to the field's
// scale; `worst` collects the largest deviation seen.
inline void expect_same_fields(const Fields& ref, const Fields& run, const std::string& what,
                               double& worst, double tol = 1e-11) {
    ASSERT_EQ(run.n, ref.n) << what;
    EXPECT_EQ(run.centroid, ref.centroid) << what << ": global cell order";
    for (const auto& nf : kComparedFields)
        for (int c = 0; c < nf.width; ++c) {
            const double d = max_rel_diff(component(run.*nf.member, nf.width, c),
                                          component(ref.*nf.member, nf.width, c), 1e-300);
            EXPECT_LE(d, tol) << what << ": field " << nf.name << " component " << c;
            worst = std::max(worst, d);
        }
}

/// The columns of a surface file (surface_final.csv: '#' comment lines, a header row, one row per
/// face) by name.
inline std::map<std::string, std::vector<double>> surface_rows(const std::string& path) {
    std::ifstream in(path);
    std::map<std::string, std::vector<double>> out;
    std::vector<std::string> cols;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::stringstream ss(line);
        std::vector<std::string> cells;
        for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
        if (cols.empty()) {
            cols = cells;
            continue;
        }
        for (std::size_t k = 0; k < cells.size() && k < cols.size(); ++k)
            out[cols[k]].push_back(std::strtod(cells[k].c_str(), nullptr));
    }
    return out;
}

}  // namespace ugks::regression

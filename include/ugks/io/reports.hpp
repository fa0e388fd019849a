#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {

/// Write JSON atomically: pretty-printed (2 spaces) to "<path>.tmp.<pid>" in the same directory,
/// flushed and fsync'ed, then renamed over `path`, so readers never see a partial file. Invalid
/// UTF-8 in strings is replaced (U+FFFD), NaN/inf numbers are written as null. Call on one rank
/// only. Failure -> InputError "output file 'path': ..." (the temporary is removed).
void write_json(const std::string& path, const nlohmann::json& j);

/// CSV writer with a fixed header; values written with full precision (%.17g, so they read back
/// bit-exactly; non-finite values as nan/inf). Each row is flushed, so a killed run leaves complete
/// rows. Rank 0 only (the caller decides). Column names with ',', '"' or a newline are quoted.
class CsvWriter {
public:
    CsvWriter() = default;
    /// Create/truncate `path` and write the header; cannot open -> InputError naming the path.
    CsvWriter(const std::string& path, const std::vector<std::string>& columns);
    /// One row; values.size() must equal the number of columns (checked: UGKS_REQUIRE).
    /// A write error (disk full) -> InputError naming the path and the system's reason.
    void row(const std::vector<double>& values);
    bool is_open() const { return m_out.is_open(); }
    const std::string& path() const { return m_path; }

private:
    std::ofstream m_out;
    std::string m_path;
    std::size_t m_ncol = 0;
};

/// Sample points of a probe line from `a` to `b` with n >= 2 points (ends included exactly, equal
/// spacing (b - a) / (n - 1)). n < 2 -> InputError (callers check the case key first for a message
/// with its path).
std::vector<Vec3> probe_points(const Vec3& a, const Vec3& b, int n);

}  // namespace ugks

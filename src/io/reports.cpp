#include "ugks/io/reports.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "ugks/core/error.hpp"

namespace ugks {
namespace {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

void write_json(const std::string& path, const nlohmann::json& j) {
    const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // Same directory as the target, so that rename() is atomic; the pid keeps concurrent runs
    // apart.
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f)
        UGKS_INPUT_ERROR("output file '" << path << "': cannot create '" << tmp
                                         << "': " << std::strerror(errno));
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fflush(f) == 0 && ok;
    int err = ok ? 0 : errno;
    // fsync so that a crash right after the rename cannot leave an empty file under the final name.
    if (ok && ::fsync(::fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
        ok = false;
        err = errno;
    }
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        std::remove(tmp.c_str());
        UGKS_INPUT_ERROR("output file '" << path << "': cannot write it: " << std::strerror(err));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        err = errno;
        std::remove(tmp.c_str());
        UGKS_INPUT_ERROR("output file '" << path << "': cannot rename '" << tmp
                                         << "' to it: " << std::strerror(err));
    }
}

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_out(path, std::ios::out | std::ios::trunc), m_path(path), m_ncol(columns.size()) {
    if (!m_out)
        UGKS_INPUT_ERROR("output file '"
                         << path << "': cannot open it for writing: " << std::strerror(errno));
    UGKS_REQUIRE(!columns.empty(), "CSV file '" << path << "' needs at least one column");
    std::string header;
    for (std::size_t i = 0; i < columns.size(); ++i)
        header += (i ? "," : "") + csv_field(columns[i]);
    m_out << header << '\n';
    m_out.flush();
    if (!m_out)
        UGKS_INPUT_ERROR("output file '" << path << "': writing failed: " << std::strerror(errno));
}

void CsvWriter::row(const std::vector<double>& values) {
    UGKS_REQUIRE(m_out.is_open(), "CsvWriter::row() on a writer that is not open");
    UGKS_REQUIRE(values.size() == m_ncol, "CSV row for '" << m_path << "' has " << values.size()
                                                          << " values, header has " << m_ncol);
    std::string line;
    line.reserve(values.size() * 25);
    char buf[40];
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%.17g", values[i]);
        if (i) line += ',';
        line += buf;
    }
    line += '\n';
    m_out << line;
    m_out.flush();
    if (!m_out)
        UGKS_INPUT_ERROR("output file '" << m_path
                                         << "': writing failed: " << std::strerror(errno));
}

std::vector<Vec3> probe_points(const Vec3& a, const Vec3& b, int n) {
    if (n < 2) UGKS_INPUT_ERROR("a probe line needs at least 2 points, got " << n);
    std::vector<Vec3> pts(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / (n - 1);
        for (int d = 0; d < 3; ++d) {
            // The ends are copied, not computed, so that they are exact.
            pts[i][d] = i == 0 ? a[d] : (i == n - 1 ? b[d] : a[d] + (b[d] - a[d]) * t);
        }
    }
    return pts;
}

}  // namespace ugks

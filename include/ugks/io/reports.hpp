#pragma once
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {

/// Write JSON atomically (temporary name, then rename).
void write_json(const std::string& path, const nlohmann::json& j);

/// CSV writer with a fixed header; values written with full precision (%.17g). Rank 0 only.
class CsvWriter {
public:
    CsvWriter() = default;
    CsvWriter(const std::string& path, const std::vector<std::string>& columns);
    void row(const std::vector<double>& values);
    bool is_open() const { return m_out.is_open(); }

private:
    std::ofstream m_out;
    std::size_t m_ncol = 0;
};

/// Sample points of a probe line from `a` to `b` with n points (ends included).
std::vector<Vec3> probe_points(const Vec3& a, const Vec3& b, int n);

}  // namespace ugks

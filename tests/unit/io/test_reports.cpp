// Tests of the small report writers: atomic JSON, full-precision CSV, probe lines.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/io/reports.hpp"

namespace {

namespace fs = std::filesystem;
using ugks::Vec3;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep)) out.push_back(cur);
    return out;
}

std::vector<std::string> dir_entries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(Reports, CsvRoundTripFullPrecision) {
    const std::string dir = ugks::test::temp_dir("csv");
    const std::string path = dir + "/history.csv";
    const std::vector<std::vector<double>> rows{
        {0.1, 1.0 / 3.0, -1e-300, 2.0 / 3.0},
        {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(), -0.0,
         123456789.12345678},
        {1.0, 0.5, 1e22, std::nextafter(1.0, 2.0)},
    };
    {
        ugks::CsvWriter w(path, {"step", "time", "rho res", "U,x"});
        EXPECT_TRUE(w.is_open());
        EXPECT_EQ(w.path(), path);
        for (const auto& r : rows) w.row(r);
    }
    const auto lines = split(read_text(path), '\n');
    ASSERT_EQ(lines.size(), rows.size() + 1);
    EXPECT_EQ(lines[0], "step,time,rho res,\"U,x\"");
    EXPECT_EQ(lines[1].substr(0, lines[1].find(',')), "0.10000000000000001");  // %.17g
    EXPECT_EQ(lines[3].substr(0, lines[3].find(',')), "1");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto fields = split(lines[i + 1], ',');
        ASSERT_EQ(fields.size(), rows[i].size());
        for (std::size_t k = 0; k < fields.size(); ++k)
            EXPECT_TRUE(same_bits(std::strtod(fields[k].c_str(), nullptr), rows[i][k]))
                << "row " << i << " col " << k << ": " << fields[k];
    }
    fs::remove_all(dir);
}

TEST(Reports, CsvNonFiniteAndTruncate) {
    const std::string dir = ugks::test::temp_dir("csv");
    const std::string path = dir + "/probes.csv";
    ugks::test::write_file(path, "old content that must disappear\n1,2,3\n");
    {
        ugks::CsvWriter w(path, {"a", "b"});
        w.row({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
    }
    EXPECT_EQ(read_text(path), "a,b\ninf,-inf\n");
    fs::remove_all(dir);
}

TEST(Reports, CsvOpenFailureNamesPath) {
    const std::string path = "/nonexistent_dir_ugks/history.csv";
    try {
        ugks::CsvWriter w(path, {"a"});
        FAIL() << "no exception";
    } catch (const ugks::InputError& e) {  // exit 2: an output the user's environment refuses
        EXPECT_EQ(std::string(e.what()).rfind(
                      "output file '" + path + "': cannot open it for writing: No such file", 0),
                  0u)
            << e.what();
    }
    const ugks::CsvWriter closed;
    EXPECT_FALSE(closed.is_open());
}

TEST(Reports, WriteJsonAtomicAndParseable) {
    const std::string dir = ugks::test::temp_dir("json");
    const std::string path = dir + "/summary.json";
    nlohmann::json j;
    j["case"] = "cavity";
    j["decomposition"] = {{"P_x", 4}, {"P_v", 2}, {"B_v", 64}};
    j["residuals"] = {1e-3, 0.1, 2.0 / 3.0};
    j["pups"] = 1.25e9;
    ugks::write_json(path, j);
    EXPECT_EQ(dir_entries(dir), std::vector<std::string>{"summary.json"});  // no temporary left
    const auto back = nlohmann::json::parse(read_text(path));
    EXPECT_EQ(back, j);
    EXPECT_EQ(back["residuals"][2].get<double>(), 2.0 / 3.0);  // doubles round-trip exactly

    // Overwriting replaces the whole file.
    ugks::write_json(path, nlohmann::json{{"steps", 7}, {"bad", std::nan("")}});
    EXPECT_EQ(dir_entries(dir), std::vector<std::string>{"summary.json"});
    const auto second = nlohmann::json::parse(read_text(path));
    EXPECT_EQ(second["steps"], 7);
    EXPECT_FALSE(second.contains("case"));
    EXPECT_TRUE(second["bad"].is_null());  // NaN is not JSON
    fs::remove_all(dir);
}

TEST(Reports, WriteJsonFailureNamesPath) {
    const std::string path = "/nonexistent_dir_ugks/summary.json";
    try {
        ugks::write_json(path, nlohmann::json{{"a", 1}});
        FAIL() << "no exception";
    } catch (const ugks::InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("output file '" + path + "': cannot create '", 0), 0u)
            << e.what();
    }
}

TEST(Reports, ProbePointsEndsAndSpacing) {
    const Vec3 a{0.5, 0.0, 0.0};
    const Vec3 b{0.5, 1.0, 0.0};
    const auto p = ugks::probe_points(a, b, 11);
    ASSERT_EQ(p.size(), 11u);
    EXPECT_EQ(p.front(), a);
    EXPECT_EQ(p.back(), b);
    for (std::size_t i = 0; i < p.size(); ++i) {
        EXPECT_EQ(p[i][0], 0.5);  // a constant coordinate stays exact
        EXPECT_EQ(p[i][2], 0.0);
        EXPECT_NEAR(p[i][1], 0.1 * static_cast<double>(i), 1e-15);
    }
    EXPECT_EQ(p[5][1], 0.5);  // the centre of the cavity line exactly

    // Oblique line with awkward ends: exact ends, equal steps.
    const Vec3 c{-1.0 / 3.0, 0.1, 7.0};
    const Vec3 d{2.0 / 3.0, -0.3, 7.7};
    const auto q = ugks::probe_points(c, d, 4);
    ASSERT_EQ(q.size(), 4u);
    EXPECT_EQ(q.front(), c);
    EXPECT_EQ(q.back(), d);
    for (std::size_t i = 1; i < q.size(); ++i)
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(q[i][k] - q[i - 1][k], (d[k] - c[k]) / 3.0, 1e-15);

    const auto two = ugks::probe_points(c, d, 2);
    EXPECT_EQ(two, (std::vector<Vec3>{c, d}));
}

TEST(Reports, ProbePointsNeedTwo) {
    for (int n : {1, 0, -3}) {
        try {
            ugks::probe_points({0, 0, 0}, {1, 0, 0}, n);
            FAIL() << "no exception for n = " << n;
        } catch (const ugks::InputError& e) {
            EXPECT_EQ(std::string(e.what()),
                      "a probe line needs at least 2 points, got " + std::to_string(n));
        }
    }
}

}  // namespace

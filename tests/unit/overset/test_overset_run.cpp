// Regression run of cases/overset_cylinder_box through run_case (mode: overset): exit 0, no
// orphans at any step, a full revolution returns the initial classification, the output files
// and datasets exist; bad input exits with 2.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.hpp"
#include "ugks/app/run_case.hpp"

using namespace ugks;

namespace {

std::vector<int> read_ints(const std::string& file, const std::string& ds) {
    std::vector<int> v;
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return v;
    hid_t d = H5Dopen2(f, ds.c_str(), H5P_DEFAULT);
    if (d >= 0) {
        hid_t s = H5Dget_space(d);
        v.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
        H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        H5Sclose(s);
        H5Dclose(d);
    }
    H5Fclose(f);
    return v;
}

}  // namespace

TEST(OversetRun, CylinderBoxFullRevolution) {
    const std::string dir = test::temp_dir("overset_run");
    CommandLine cl;
    cl.case_file =
        std::string(UGKS_SOURCE_DIR) + "/cases/overset_cylinder_box/overset_cylinder_box.yaml";
    cl.overrides = {"output.directory=" + dir, "output.every=4"};
    cl.quiet = true;
    ASSERT_EQ(run_case(cl), 0);
    std::ifstream in(dir + "/summary.json");
    ASSERT_TRUE(in.good());
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["mode"], "overset");
    EXPECT_EQ(j["max_orphans_over_steps"], 0);
    EXPECT_GT(j["counts"]["hole_cells"].get<long>(), 0);
    EXPECT_GT(j["counts"]["receptors"].get<long>(), 0);
    for (const char* k : {"wall_tree_build", "wall_query", "donor_tree_build", "donor_query",
                          "hole_cut", "classification", "donor_stencils"})
        EXPECT_TRUE(j["timings_seconds"].contains(k)) << k;
    EXPECT_GT(j["counts"]["hole_cut"].get<long>(), 0);  // background nodes inside the cylinder
    EXPECT_EQ(j["history"].size(), 9u);
    // step 0 and step 8 (a full revolution) have the same classification
    const std::string f0 = dir + "/overset_000000.h5", f8 = dir + "/overset_000008.h5";
    ASSERT_TRUE(std::filesystem::exists(f0));
    ASSERT_TRUE(std::filesystem::exists(f8));
    ASSERT_TRUE(std::filesystem::exists(dir + "/overset_000004.xdmf"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/overset_000003.h5"));
    for (const char* ds :
         {"/background/nodes/status", "/background/cells/status", "/cylinder/nodes/status",
          "/cylinder/cells/status", "/cylinder/fringe/donor_grid"}) {
        const auto a = read_ints(f0, ds), b = read_ints(f8, ds);
        EXPECT_FALSE(a.empty()) << ds;
        EXPECT_EQ(a, b) << ds;
    }
    EXPECT_NE(read_ints(f0, "/background/cells/status"),
              read_ints(dir + "/overset_000004.h5", "/background/cells/status"));
}

TEST(OversetRun, BadInputExitsWithTwo) {
    const std::string dir = test::temp_dir("overset_bad");
    CommandLine cl;
    cl.case_file =
        std::string(UGKS_SOURCE_DIR) + "/cases/overset_cylinder_box/overset_cylinder_box.yaml";
    cl.overrides = {"output.directory=" + dir, "overset.grids.1.walls=[hull]"};
    cl.quiet = true;
    EXPECT_EQ(run_case(cl), 2);
    cl.overrides = {"output.directory=" + dir, "overset.grids.1.motion.omega=abc"};
    EXPECT_EQ(run_case(cl), 2);
    cl.overrides = {"output.directory=" + dir};
    cl.check = true;
    EXPECT_EQ(run_case(cl), 0);
    EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
}

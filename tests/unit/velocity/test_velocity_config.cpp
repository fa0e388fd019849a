// The `velocity` section of the case file: defaults, per-axis values, errors naming key path and
// line.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <string>

#include "test_util.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

VelocityConfig parse(const std::string& yaml, int mesh_dim) {
    Config cfg = Config::from_string(yaml, "case.yaml");
    VelocityConfig vc = parse_velocity_config(cfg, mesh_dim);
    cfg.check_unused();
    return vc;
}

// The InputError message of parsing `yaml` ("" when it did not throw).
std::string parse_error(const std::string& yaml, int mesh_dim) {
    try {
        parse(yaml, mesh_dim);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE(std::string(msg).find(part), std::string::npos) << (msg)

TEST(VelocityConfig, DefaultsAndScalarCounts) {
    const VelocityConfig vc = parse("velocity:\n  counts: 16\n", 2);
    EXPECT_EQ(vc.type, "gauss_hermite");
    EXPECT_EQ(vc.dim, 2);
    EXPECT_EQ(vc.counts[0], 16);
    EXPECT_EQ(vc.counts[1], 16);
    EXPECT_EQ(vc.scale[0], 1.0);
    EXPECT_EQ(vc.scale[1], 1.0);
    EXPECT_EQ(vc.offset[1], 0.0);
    const VelocityGrid g = build_velocity_grid(vc);
    EXPECT_EQ(g.size(), 256);
    EXPECT_EQ(g.kind, "gauss_hermite");
}

TEST(VelocityConfig, PerAxisListsAndVelocityDimAboveMeshDim) {
    const VelocityConfig vc = parse(
        "velocity:\n  type: half_range_gauss_hermite\n  dim: 3\n  counts: [8, 6, 4]\n"
        "  scale: [1.0, 2.0, 0.5]\n  offset: [0.5, 0, 0]\n",
        1);
    EXPECT_EQ(vc.dim, 3);
    EXPECT_EQ(vc.counts, (std::array<int, 3>{8, 6, 4}));
    EXPECT_EQ(vc.scale, (std::array<double, 3>{1.0, 2.0, 0.5}));
    EXPECT_EQ(vc.offset[0], 0.5);
    EXPECT_EQ(build_velocity_grid(vc).size(), 8 * 6 * 4);
}

TEST(VelocityConfig, NewtonCotesAndRanges) {
    const VelocityConfig vc =
        parse("velocity:\n  type: newton_cotes\n  counts: [61, 29]\n  lo: -4\n  hi: [4, 3]\n", 2);
    EXPECT_EQ(vc.lo[0], -4.0);
    EXPECT_EQ(vc.lo[1], -4.0);
    EXPECT_EQ(vc.hi[1], 3.0);
    const VelocityGrid g = build_velocity_grid(vc);
    double s = 0;
    for (double w : g.w) s += w;
    EXPECT_NEAR(s, 8.0 * 7.0, 1e-12);
}

TEST(VelocityConfig, ErrorsNameKeyAndLine) {
    std::string msg;
    msg = parse_error("velocity:\n  dim: 2\n  counts: 8\n", 3);
    EXPECT_HAS(msg, "case.yaml:2: key 'velocity.dim'");
    EXPECT_HAS(msg, "smaller than the mesh dimension 3");

    msg = parse_error("velocity:\n  dim: 4\n  counts: 8\n", 1);
    EXPECT_HAS(msg, "case.yaml:2: key 'velocity.dim': value 4 is out of range [1, 3]");

    msg = parse_error("velocity:\n  type: half_range_gauss_hermite\n  counts: [28, 27]\n", 2);
    EXPECT_HAS(msg, "key 'velocity.counts.1'");
    EXPECT_HAS(msg, "even number of points per axis, got 27");
    EXPECT_HAS(msg, "case.yaml:3");

    msg = parse_error("velocity:\n  type: newton_cotes\n  counts: 30\n  lo: -4\n  hi: 4\n", 2);
    EXPECT_HAS(msg,
               "case.yaml:3: key 'velocity.counts': newton_cotes (composite Boole) needs 4m+1");

    msg = parse_error("velocity:\n  counts: [8, 8]\n", 3);
    EXPECT_HAS(msg, "case.yaml:2: key 'velocity.counts': expected 3 values");

    msg = parse_error("velocity:\n  counts: [8, 0]\n", 2);
    EXPECT_HAS(msg, "key 'velocity.counts.1': value 0 is out of range [1, 500]");

    msg = parse_error("velocity:\n  counts: 8\n  scale: [1, 0]\n", 2);
    EXPECT_HAS(msg, "case.yaml:3: key 'velocity.scale.1': value 0 is out of range (0, inf)");

    msg = parse_error("velocity:\n  type: newton_cotes\n  counts: 9\n  lo: [-4, 2]\n  hi: [4, 2]\n",
                      2);
    EXPECT_HAS(msg, "case.yaml:5: key 'velocity.hi.1'");
    EXPECT_HAS(msg, "must be > velocity.lo");

    msg = parse_error("velocity:\n  type: newton_cotes\n  counts: 9\n  hi: 4\n", 2);
    EXPECT_HAS(msg, "velocity.lo");

    msg = parse_error("velocity:\n  type: gaus_hermite\n  counts: 8\n", 2);
    EXPECT_HAS(msg, "velocity.type");
    EXPECT_HAS(msg, "gauss_hermite");

    msg = parse_error("velocity:\n  type: gauss_hermite\n", 2);
    EXPECT_HAS(msg, "velocity.counts");
}

TEST(VelocityConfig, KeysOfAnotherTypeAreUnused) {
    // newton_cotes does not read scale: check_unused reports it with its line.
    const std::string msg = parse_error(
        "velocity:\n  type: newton_cotes\n  counts: 9\n  lo: -4\n  hi: 4\n  scale: 2\n", 2);
    EXPECT_HAS(msg, "velocity.scale");
    EXPECT_HAS(msg, "case.yaml:6");
}

TEST(VelocityConfig, FileRelativeToTheCaseFolder) {
    const std::string dir = test::temp_dir("velcfg");
    test::write_file(dir + "/points.dat", "# u_x u_y w\n-1 0 0.5\n1 0 0.5\n0 2 1\n");
    test::write_file(dir + "/case.yaml", "velocity:\n  type: file\n  file: points.dat\n");
    Config cfg = Config::from_file(dir + "/case.yaml");
    const VelocityConfig vc = parse_velocity_config(cfg, 2);
    cfg.check_unused();
    EXPECT_EQ(vc.file, dir + "/points.dat");
    const VelocityGrid g = build_velocity_grid(vc);
    ASSERT_EQ(g.size(), 3);
    EXPECT_EQ(g.u[2], (Vec3{0, 2, 0}));

    test::write_file(dir + "/bad.yaml", "velocity:\n  type: file\n  file: missing.dat\n");
    Config bad = Config::from_file(dir + "/bad.yaml");
    try {
        parse_velocity_config(bad, 2);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_HAS(e.what(), dir + "/bad.yaml:3: key 'velocity.file': velocity file '" + dir +
                                 "/missing.dat' does not exist");
    }
}

TEST(VelocityConfig, Nonuniform) {
    const VelocityConfig vc = parse(
        "velocity:\n  type: nonuniform\n  dim: 3\n  lo: [-10.6, -10.6, -10.6]\n  hi: [14.5, 10.6, "
        "10.6]\n"
        "  refine:\n    centres: [[3.9, 0, 0], [0, 0, 0]]\n    width: 2.0\n  target_points: "
        "18800\n",
        3);
    ASSERT_EQ(vc.refine_centres.size(), 2u);
    EXPECT_EQ(vc.refine_centres[0], (Vec3{3.9, 0, 0}));
    EXPECT_EQ(vc.refine_width, 2.0);
    EXPECT_EQ(vc.refine_growth, 0.25);
    EXPECT_EQ(vc.target_points, 18800);
    const VelocityGrid g = build_velocity_grid(vc);
    EXPECT_LE(std::llabs(g.size() - 18800), 1880);

    std::string msg = parse_error(
        "velocity:\n  type: nonuniform\n  lo: -5\n  hi: 5\n  refine:\n    centres: [[1, 2, 3]]\n"
        "  target_points: 100\n",
        2);
    EXPECT_HAS(
        msg,
        "case.yaml:6: key 'velocity.refine.centres.0': a refinement centre needs 2 components");
    msg = parse_error(
        "velocity:\n  type: nonuniform\n  lo: -5\n  hi: 5\n  refine:\n    width: -1\n"
        "  target_points: 100\n",
        2);
    EXPECT_HAS(msg, "case.yaml:6: key 'velocity.refine.width'");
    msg = parse_error("velocity:\n  type: nonuniform\n  lo: -5\n  hi: 5\n  target_points: 0\n", 2);
    EXPECT_HAS(msg, "case.yaml:5: key 'velocity.target_points'");
}

// ---- type unstructured (src/velocity/unstructured_grid.cpp) -----------------------------------

const std::string kHead = "velocity:\n  type: unstructured\n  dim: 3\n  target_points: 2000\n";

TEST(UnstructuredConfig, ParsesAndBuilds) {
    const VelocityConfig vc = parse(kHead +
                                        "  maxwellians:\n"
                                        "    - {U: [7.302967433402214, 0, 0], T: 1}\n"
                                        "    - {U: [0, 0, 0], T: 5.4}\n"
                                        "  extent: 6\n",
                                    3);
    EXPECT_EQ(vc.type, "unstructured");
    ASSERT_EQ(vc.maxwellians.size(), 2u);
    EXPECT_EQ(vc.maxwellians[0].U, (Vec3{7.302967433402214, 0, 0}));
    EXPECT_EQ(vc.maxwellians[1].T, 5.4);
    EXPECT_EQ(vc.extent, 6.0);
    EXPECT_EQ(vc.growth, 0.5);
    EXPECT_EQ(vc.target_points, 2000);
    EXPECT_EQ(vc.counts, (std::array<int, 3>{2000, 1, 1}));  // the size estimate of --check
    const VelocityGrid g = build_velocity_grid(vc);
    EXPECT_EQ(g.kind, "unstructured");
    EXPECT_LE(std::llabs(g.size() - 2000), 200);
    EXPECT_EQ(g.u, make_unstructured_velocity_grid(3, vc.maxwellians, 2000, 6.0, 0.5).u);
}

TEST(UnstructuredConfig, ErrorsNameKeyAndLine) {
    const std::string M2 =
        "  maxwellians:\n    - {U: [7, 0, 0], T: 1}\n    - {U: [0, 0, 0], T: 5.4}\n";
    std::string msg;
    msg = parse_error(kHead, 3);
    EXPECT_HAS(msg, "key 'velocity.maxwellians' is required");

    msg = parse_error(kHead + "  maxwellians: {U: [0, 0, 0], T: 1}\n", 3);
    EXPECT_HAS(msg, "case.yaml:5: key 'velocity.maxwellians': expected a list of Maxwellians");

    msg = parse_error(kHead + "  maxwellians: []\n", 3);
    EXPECT_HAS(msg, "key 'velocity.maxwellians': expected 1 to 4 Maxwellians");

    msg = parse_error(kHead + "  maxwellians:\n    - 3\n", 3);
    EXPECT_HAS(msg, "case.yaml:6: key 'velocity.maxwellians.0': expected a map");

    msg = parse_error(kHead + "  maxwellians:\n    - {U: [7, 0], T: 1}\n", 3);
    EXPECT_HAS(msg, "case.yaml:6: key 'velocity.maxwellians.0.U': expected 3 components");

    msg = parse_error(kHead +
                          "  maxwellians:\n    - {U: [7, 0, 0], T: 1}\n    - {U: [0, 0, 0], "
                          "T: -2}\n",
                      3);
    EXPECT_HAS(msg,
               "case.yaml:7: key 'velocity.maxwellians.1.T': value -2 is out of range (0, inf)");

    msg = parse_error(kHead + "  maxwellians:\n    - {U: [7, 0, 0]}\n", 3);
    EXPECT_HAS(msg, "velocity.maxwellians.0.T");

    msg = parse_error(kHead +
                          "  maxwellians:\n    - {U: [7, 0, 0], T: 1}\n    - {U: [7, 0, 0], "
                          "T: 1}\n",
                      3);
    EXPECT_HAS(msg,
               "case.yaml:7: key 'velocity.maxwellians.1': the same Maxwellian as "
               "velocity.maxwellians.0");

    msg = parse_error(kHead + "  maxwellians:\n    - {U: [7, 0, 0], T: 1, rho: 2}\n", 3);
    EXPECT_HAS(msg, "velocity.maxwellians.0.rho");

    msg = parse_error(kHead + M2 + "  extent: 1.5\n", 3);
    EXPECT_HAS(msg, "case.yaml:8: key 'velocity.extent': value 1.5 is out of range [2, 20]");

    msg = parse_error(kHead + M2 + "  growth: 0\n", 3);
    EXPECT_HAS(msg, "case.yaml:8: key 'velocity.growth': value 0 is out of range (0, 10]");

    msg = parse_error("velocity:\n  type: unstructured\n  dim: 3\n  target_points: 50\n" + M2, 3);
    EXPECT_HAS(msg, "case.yaml:4: key 'velocity.target_points': value 50 is out of range");

    msg = parse_error("velocity:\n  type: unstructured\n  dim: 3\n" + M2, 3);
    EXPECT_HAS(msg, "velocity.target_points");

    // Keys of other types are not read: check_unused names them.
    msg = parse_error(kHead + M2 + "  lo: -5\n", 3);
    EXPECT_HAS(msg, "case.yaml:8");
    EXPECT_HAS(msg, "velocity.lo");

    msg = parse_error("velocity:\n  type: unstructred\n", 3);
    EXPECT_HAS(msg, "unstructured");
}

}  // namespace
}  // namespace ugks

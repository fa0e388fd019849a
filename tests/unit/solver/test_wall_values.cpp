// Boundary values that vary over a patch (issue 17): core/expression.hpp (muParser) and
// WallValues / check_boundaries (solver/boundary_config.hpp): parsing, constants, units, and the
// per-face checks that must stop a bad case with a message naming the key and the face.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "test_util.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/expression.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/solver/boundary_config.hpp"
#include "ugks/solver/case_config.hpp"

namespace ugks {
namespace {

std::string error_of(const std::function<void()>& f) { return test::input_error_of(f); }

TEST(Expression, EvaluatesAndDetectsConstants) {
    const Expression e("1 + 0.5 * x - y^2 + sin(_pi * z)", "key");
    EXPECT_FALSE(e.constant());
    EXPECT_DOUBLE_EQ(e.eval(2.0, 3.0, 0.5), 1.0 + 1.0 - 9.0 + 1.0);
    const Expression c("2 * (3 + 4)", "key");
    EXPECT_TRUE(c.constant());
    EXPECT_EQ(c.eval(0, 0, 0), 14.0);
    EXPECT_EQ(Expression("0.6666666666666666", "k").eval(0, 0, 0), 0.6666666666666666);
    EXPECT_EQ(Expression("1.0e-3", "k").eval(0, 0, 0), 1.0e-3);
    EXPECT_EQ(Expression("x > 0.5 ? 2 : 1", "k").eval(0.7, 0, 0), 2.0);
}

TEST(Expression, BadTextAndNonFiniteValuesAreInputErrors) {
    EXPECT_NE(error_of([] { Expression("1 + 2 * t", "boundaries.w.T"); }).find("boundaries.w.T"),
              std::string::npos);
    EXPECT_NE(error_of([] { Expression("1 + ", "k"); }).find("cannot use the expression"),
              std::string::npos);
    const Expression inv("1 / x", "k");
    EXPECT_NE(error_of([&] { inv.eval(0, 0, 0); }).find("not finite"), std::string::npos);
    EXPECT_EQ(inv.eval(2, 0, 0), 0.5);
}

/// Parse a case's sections, load its box mesh, parse boundaries, check them against the mesh.
struct Parsed {
    CaseSetup s;
    Mesh mesh;
};
Parsed parse(const std::string& text) {
    Parsed p;
    Config cfg = Config::from_string(text, "walls.yaml");
    parse_case_sections(cfg, p.s);
    p.mesh = load_mesh(p.s.mesh_config);
    parse_velocity_section(cfg, p.s, p.mesh.dim);
    check_boundaries(p.s.boundaries, p.mesh, cfg, "box mesh");
    return p;
}

const char* kBox = R"(gas: {Kn: 0.1}
mesh: {box: {cells: [4, 2], lo: [0, 0], hi: [2, 1]}}
velocity: {counts: [6, 6]}
boundaries:
  xmin: {type: diffuse_wall, T: 1.0}
  xmax: {type: diffuse_wall, T: 1.0}
  ymin: {type: diffuse_wall, T: "1 + 0.25 * x", U: ["0.1 * x", 0]}
  ymax: {type: diffuse_wall, T: 2.0, U: [0.3, 0]}
)";

TEST(WallValues, ConstantsAndExpressionsPerPoint) {
    const Parsed p = parse(kBox);
    const BoundaryCondition& ymin = p.s.boundaries[2];
    const BoundaryCondition& ymax = p.s.boundaries[3];
    EXPECT_TRUE(ymin.varies());
    EXPECT_FALSE(ymax.varies());
    const WallValues a(ymin), b(ymax);
    EXPECT_DOUBLE_EQ(a.T(Vec3{1.5, 0, 0}), 1.375);
    EXPECT_DOUBLE_EQ(a.U(Vec3{1.5, 0, 0})[0], 0.15);
    EXPECT_EQ(a.U(Vec3{1.5, 0, 0})[1], 0.0);
    EXPECT_EQ(b.T(Vec3{1.5, 1, 0}), 2.0);
    EXPECT_EQ(b.U(Vec3{0.2, 1, 0})[0], 0.3);
}

TEST(WallValues, SiExpressionsAreInTheCaseUnits) {
    // x in metres, T in K, U in m/s; the solver's values are divided by the reference
    const Parsed p = parse(R"(units: si
gas: {species: argon}
reference: {length: 0.01, temperature: 273, pressure: 101325}
mesh: {box: {cells: [4, 2], lo: [0, 0], hi: [0.02, 0.01]}}
velocity: {counts: [6, 6]}
boundaries:
  xmin: {type: diffuse_wall, T: 273}
  xmax: {type: diffuse_wall, T: 273}
  ymin: {type: diffuse_wall, T: "273 + 27300 * x", U: ["5000 * x", 0]}
  ymax: {type: diffuse_wall, T: 546}
)");
    const WallValues a(p.s.boundaries[2]);
    const ReferenceState& r = p.s.gas.ref;
    // x_hat = 1.5 is x = 0.015 m: T = 273 + 409.5 K, U = 75 m/s
    EXPECT_NEAR(a.T(Vec3{1.5, 0, 0}), (273.0 + 27300.0 * 0.015) / 273.0, 1e-14);
    EXPECT_NEAR(a.U(Vec3{1.5, 0, 0})[0], 75.0 / r.speed, 1e-14);
    EXPECT_EQ(p.s.boundaries[3].T, 2.0);
}

TEST(WallValues, BadValuesOnSomeFaceNameTheKeyAndTheFace) {
    const std::string base = kBox;
    auto with = [&](const std::string& from, const std::string& to) {
        std::string t = base;
        t.replace(t.find(from), from.size(), to);
        return t;
    };
    // negative on the faces with x > 1.5 only (centroids 1.75): named with the centroid
    std::string e = error_of([&] { parse(with("\"1 + 0.25 * x\"", "\"1.5 - x\"")); });
    EXPECT_NE(e.find("boundaries.ymin.T"), std::string::npos) << e;
    EXPECT_NE(e.find("not positive"), std::string::npos) << e;
    EXPECT_NE(e.find("1.75"), std::string::npos) << e;
    // a normal velocity component somewhere on the patch
    e = error_of([&] { parse(with("[\"0.1 * x\", 0]", "[0, \"0.1 * (x - 0.25)\"]")); });
    EXPECT_NE(e.find("boundaries.ymin.U"), std::string::npos) << e;
    EXPECT_NE(e.find("tangential"), std::string::npos) << e;
    // syntax and unknown variables at parse time, lists where a value is expected
    e = error_of([&] { parse(with("\"1 + 0.25 * x\"", "\"1 + 0.25 * q\"")); });
    EXPECT_NE(e.find("boundaries.ymin.T"), std::string::npos) << e;
    e = error_of([&] { parse(with("\"1 + 0.25 * x\"", "[1, 2]")); });
    EXPECT_NE(e.find("expected a number or an expression"), std::string::npos) << e;
    // 1/x is infinite on no face centroid here (x >= 0.25) but 1/(x - 0.25) is on the first
    e = error_of([&] { parse(with("\"1 + 0.25 * x\"", "\"1 / (x - 0.25)\"")); });
    EXPECT_NE(e.find("not finite"), std::string::npos) << e;
}

}  // namespace
}  // namespace ugks

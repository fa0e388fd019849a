// Patch patterns in `boundaries` (docs/usage.md "Patch patterns"): the matcher, and how
// check_boundaries resolves patterns against the mesh patches (exact names win, one pattern per
// patch, a pattern matching nothing is refused).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/solver/boundary_config.hpp"
#include "ugks/solver/case_config.hpp"

namespace ugks {
namespace {

TEST(PatchPattern, Matcher) {
    struct Case {
        const char* pattern;
        const char* name;
        bool match;
    };
    const Case cases[] = {
        {"y*", "ymin", true},
        {"y*", "ymax", true},
        {"y*", "y", true},
        {"y*", "xmin", false},
        {"y*", "aymin", false},  // the whole name
        {"*max", "xmax", true},
        {"*max", "xmaxx", false},
        {"*", "", true},
        {"WallViscous*", "WallViscous_1", true},
        {"WallViscous*", "WallInviscid", false},
        {"*a*b*", "xxaxxbxx", true},
        {"*a*b*", "xxbxxaxx", false},
        {"?min", "xmin", true},
        {"?min", "min", false},
        {"?min", "xymin", false},
        {"[xy]min", "xmin", true},
        {"[xy]min", "ymin", true},
        {"[xy]min", "zmin", false},
        {"[a-c]1", "b1", true},
        {"[a-c]1", "d1", false},
        {"[!xy]min", "zmin", true},
        {"[!xy]min", "xmin", false},
        {"[^xy]min", "xmin", false},
        {"[]x]", "]", true},  // a ']' first in the set is a member
        {"[]x]", "x", true},
        {"wall[1", "wall[1", true},  // no closing bracket: a literal '['
        {"wall[1", "wall1", false},
        {"a\\*", "a*", true},  // an escaped star is literal
        {"a\\*", "ab", false},
        {"inlet", "inlet", true},
        {"inlet", "inlet2", false},
    };
    for (const Case& c : cases)
        EXPECT_EQ(patch_pattern_match(c.pattern, c.name), c.match)
            << "'" << c.pattern << "' vs '" << c.name << "'";
    EXPECT_TRUE(is_patch_pattern("y*"));
    EXPECT_TRUE(is_patch_pattern("wall?"));
    EXPECT_TRUE(is_patch_pattern("[xy]min"));
    EXPECT_FALSE(is_patch_pattern("ymin"));
}

struct Parsed {
    CaseSetup s;
    Mesh mesh;
};

Parsed parse(const std::string& boundaries) {
    Parsed p;
    Config cfg = Config::from_string(R"(gas: {Kn: 0.1}
mesh: {box: {cells: [4, 2], lo: [0, 0], hi: [2, 1]}}
velocity: {counts: [6, 6]}
boundaries:
)" + boundaries,
                                     "patterns.yaml");
    parse_case_sections(cfg, p.s);
    p.mesh = load_mesh(p.s.mesh_config);
    parse_velocity_section(cfg, p.s, p.mesh.dim);
    check_boundaries(p.s.boundaries, p.mesh, cfg, "box mesh");
    return p;
}

const BoundaryCondition& bc_of(const Parsed& p, const std::string& patch) {
    for (const BoundaryCondition& bc : p.s.boundaries)
        if (bc.patch == patch) return bc;
    ADD_FAILURE() << "no condition for " << patch;
    return p.s.boundaries.front();
}

std::string input_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no InputError";
    return "";
}

TEST(PatchPattern, OnePatternTakesSeveralPatchesLikeListingThem) {
    const Parsed pat = parse(R"(  xmin: {type: outflow}
  xmax: {type: far_field, rho: 1, U: [0.1, 0], T: 1}
  "y*": {type: diffuse_wall, T: 1.5, U: [0.2, 0]}
)");
    const Parsed list = parse(R"(  xmin: {type: outflow}
  xmax: {type: far_field, rho: 1, U: [0.1, 0], T: 1}
  ymin: {type: diffuse_wall, T: 1.5, U: [0.2, 0]}
  ymax: {type: diffuse_wall, T: 1.5, U: [0.2, 0]}
)");
    ASSERT_EQ(pat.s.boundaries.size(), 4u);
    ASSERT_EQ(list.s.boundaries.size(), 4u);
    for (const std::string p : {"xmin", "xmax", "ymin", "ymax"}) {
        const BoundaryCondition &a = bc_of(pat, p), &b = bc_of(list, p);
        EXPECT_EQ(a.type, b.type) << p;
        EXPECT_EQ(a.T, b.T) << p;
        EXPECT_EQ(a.U, b.U) << p;
        EXPECT_EQ(a.rho, b.rho) << p;
    }
    EXPECT_EQ(bc_of(pat, "ymin").key, "y*");
    EXPECT_EQ(bc_of(pat, "ymax").key, "y*");
    EXPECT_EQ(bc_of(pat, "xmin").key, "xmin");
    EXPECT_EQ(bc_of(pat, "ymin").type, "diffuse_wall");
}

TEST(PatchPattern, ExactNameWinsOverPattern) {
    const Parsed p = parse(R"(  "*": {type: diffuse_wall, T: 1.0}
  ymax: {type: diffuse_wall, T: 3.0}
)");
    ASSERT_EQ(p.s.boundaries.size(), 4u);
    EXPECT_EQ(bc_of(p, "ymax").T, 3.0);
    EXPECT_EQ(bc_of(p, "ymax").key, "ymax");
    for (const std::string q : {"xmin", "xmax", "ymin"}) {
        EXPECT_EQ(bc_of(p, q).T, 1.0) << q;
        EXPECT_EQ(bc_of(p, q).key, "*") << q;
    }
}

TEST(PatchPattern, PatchOfTwoPatternsIsRefused) {
    const std::string msg = input_error([] {
        parse(R"(  xmax: {type: outflow}
  "y*": {type: diffuse_wall, T: 1.0}
  "*max": {type: diffuse_wall, T: 2.0}
  xmin: {type: outflow}
)");
    });
    EXPECT_NE(msg.find("patterns.yaml:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("mesh patch 'ymax' of box mesh matches the patterns 'y*', '*max'"),
              std::string::npos)
        << msg;
}

TEST(PatchPattern, PatternMatchingNoPatchIsRefusedLikeAnUnknownName) {
    const std::string base = R"(  xmin: {type: outflow}
  xmax: {type: outflow}
  ymin: {type: outflow}
  ymax: {type: outflow}
)";
    const std::string pat = input_error([&] { parse(base + "  \"z*\": {type: outflow}\n"); });
    EXPECT_NE(pat.find("patterns.yaml:9"), std::string::npos) << pat;
    EXPECT_NE(pat.find("pattern 'z*' matches no patch of the mesh box mesh (its patches: 'xmin', "
                       "'xmax', 'ymin', 'ymax')"),
              std::string::npos)
        << pat;
    const std::string name = input_error([&] { parse(base + "  zmin: {type: outflow}\n"); });
    EXPECT_NE(name.find("patterns.yaml:9"), std::string::npos) << name;
    EXPECT_NE(name.find("does not exist in the mesh box mesh (its patches: 'xmin', 'xmax', "
                        "'ymin', 'ymax')"),
              std::string::npos)
        << name;
    // a pattern whose patches all have entries of their own is no error (it takes none)
    const Parsed p = parse(base + "  \"?m*\": {type: diffuse_wall, T: 1}\n");
    EXPECT_EQ(p.s.boundaries.size(), 4u);
    // a patch that no entry and no pattern covers: the error of a missing entry
    const std::string missing = input_error([] {
        parse(R"(  "x*": {type: outflow}
  ymin: {type: outflow}
)");
    });
    EXPECT_NE(missing.find("mesh patch 'ymax' has no boundary condition"), std::string::npos)
        << missing;
}

TEST(PatchPattern, PeriodicPatternIsRefused) {
    const std::string msg = input_error([] {
        parse(R"(  "x*": {type: periodic, partner: xmax}
  ymin: {type: outflow}
  ymax: {type: outflow}
)");
    });
    EXPECT_NE(msg.find("boundaries.x*"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a periodic entry must name its patch, not a pattern"), std::string::npos)
        << msg;
}

}  // namespace
}  // namespace ugks

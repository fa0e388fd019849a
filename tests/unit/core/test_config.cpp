// Tests of the strict YAML case-file reader (ugks::Config): exact messages with key path and line,
// typed reads, defaults, overrides, unknown keys and copies.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"

namespace {

using ugks::Config;
using ugks::InputError;
using ugks::Vec3;

// Line numbers are referred to by the tests; keep them in sync.
const char* const kCase =
    "mode: ugks\n"                //  1
    "gas:\n"                      //  2
    "  Kn: 0.1\n"                 //  3
    "  Pr: 0.6666666666666666\n"  //  4
    "  omega: 0.81\n"             //  5
    "time:\n"                     //  6
    "  steps: abc\n"              //  7
    "numerics:\n"                 //  8
    "  cfl: 1.7\n"                //  9
    "  cfll: 0.5\n"               // 10
    "  limiter: vanleer\n"        // 11
    "output:\n"                   // 12
    "  probes:\n"                 // 13
    "    - name: vertical\n"      // 14
    "      a: [0.5, 0]\n"         // 15
    "      b: [0.5, 1]\n"         // 16
    "      n: 11\n"               // 17
    "    - name: horizontal\n"    // 18
    "      a: [0, 0.5, 0]\n"      // 19
    "      b: [1, 0.5]\n"         // 20
    "      n: 21\n";              // 21

Config case_config() { return Config::from_string(kCase, "case.yaml"); }

// The InputError message of `f`, or "<no error>".
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "<no error>";
}

// ---- typed reads and their errors ---------------------------------------------------------------

TEST(Config, TypeErrorNamesPathAndLine) {
    const Config c = case_config();
    EXPECT_EQ(error_of([&] { c.get<int>("time.steps"); }),
              "case.yaml:7: key 'time.steps': expected an integer, got 'abc'");
    EXPECT_EQ(error_of([&] { c.get<double>("gas"); }),
              "case.yaml:2: key 'gas': expected a number, got a map");
    EXPECT_EQ(error_of([&] { c.get<std::string>("output.probes"); }),
              "case.yaml:13: key 'output.probes': expected a string, got a list");
}

TEST(Config, IntegersAreStrict) {
    const Config c = Config::from_string(
        "a: 1.5\nb: -42\nc: 99999999999\nd: +7\ne: 1e3\nf:\ng: 0x10\n", "case.yaml");
    EXPECT_EQ(error_of([&] { c.get<int>("a"); }),
              "case.yaml:1: key 'a': expected an integer, got '1.5'");
    EXPECT_EQ(c.get<int>("b"), -42);
    EXPECT_EQ(error_of([&] { c.get<int>("c"); }),
              "case.yaml:3: key 'c': expected an integer between -2147483648 and 2147483647, got "
              "'99999999999'");
    EXPECT_EQ(c.get<long>("c"), 99999999999L);
    EXPECT_EQ(c.get<std::int64_t>("c"), std::int64_t{99999999999});
    EXPECT_EQ(c.get<long long>("c"), 99999999999LL);
    EXPECT_EQ(c.get<int>("d"), 7);
    EXPECT_EQ(error_of([&] { c.get<int>("e"); }),
              "case.yaml:5: key 'e': expected an integer, got '1e3'");
    EXPECT_EQ(error_of([&] { c.get<int>("f"); }),
              "case.yaml:6: key 'f': expected an integer, got an empty value");
    EXPECT_EQ(error_of([&] { c.get<int>("g"); }),
              "case.yaml:7: key 'g': expected an integer, got '0x10'");
}

TEST(Config, Doubles) {
    const Config c = Config::from_string(
        "a: 1e-3\nb: -2.5E+4\nc: .inf\nd: -.Inf\ne: 3\nf: abc\ng: .nan\nh: 1e999\ni: .5\nj: 0.1\n",
        "case.yaml");
    EXPECT_EQ(c.get<double>("a"), 1e-3);
    EXPECT_EQ(c.get<double>("b"), -2.5e4);
    EXPECT_EQ(c.get<double>("c"), std::numeric_limits<double>::infinity());
    EXPECT_EQ(c.get<double>("d"), -std::numeric_limits<double>::infinity());
    EXPECT_EQ(c.get<double>("e"), 3.0);
    EXPECT_EQ(c.get<double>("i"), 0.5);
    EXPECT_EQ(c.get<double>("j"), 0.1);  // correctly rounded, like the compiler's literal
    EXPECT_EQ(error_of([&] { c.get<double>("f"); }),
              "case.yaml:6: key 'f': expected a number, got 'abc'");
    EXPECT_EQ(error_of([&] { c.get<double>("g"); }),
              "case.yaml:7: key 'g': expected a number, got '.nan'");
    EXPECT_EQ(error_of([&] { c.get<double>("h"); }),
              "case.yaml:8: key 'h': number '1e999' is out of double range");
}

TEST(Config, BoolsAndStrings) {
    const Config c = Config::from_string(
        "a: true\nb: no\nc: On\nd: 1\ne: hello world\nf: {x: 1}\ng:\nh: \"42\"\n", "case.yaml");
    EXPECT_TRUE(c.get<bool>("a"));
    EXPECT_FALSE(c.get<bool>("b"));
    EXPECT_TRUE(c.get<bool>("c"));
    EXPECT_EQ(error_of([&] { c.get<bool>("d"); }),
              "case.yaml:4: key 'd': expected true or false, got '1'");
    EXPECT_EQ(c.get<std::string>("e"), "hello world");
    EXPECT_EQ(c.get<std::string>("h"), "42");
    EXPECT_EQ(error_of([&] { c.get<std::string>("f"); }),
              "case.yaml:6: key 'f': expected a string, got a map");
    EXPECT_EQ(error_of([&] { c.get<std::string>("g"); }),
              "case.yaml:7: key 'g': expected a string, got an empty value");
}

TEST(Config, Lists) {
    const Config c = Config::from_string(
        "d: [1, 2.5, -3e2]\n"
        "i:\n"
        "  - 4\n"
        "  - 2.5\n"
        "s: [rho, T, 'q x']\n"
        "e: []\n"
        "x: 5\n",
        "case.yaml");
    EXPECT_EQ(c.get<std::vector<double>>("d"), (std::vector<double>{1.0, 2.5, -300.0}));
    EXPECT_EQ(c.get<std::vector<std::string>>("s"), (std::vector<std::string>{"rho", "T", "q x"}));
    EXPECT_TRUE(c.get<std::vector<int>>("e").empty());
    // The element's own line and path.
    EXPECT_EQ(error_of([&] { c.get<std::vector<int>>("i"); }),
              "case.yaml:4: key 'i.1': expected an integer, got '2.5'");
    EXPECT_EQ(error_of([&] { c.get<std::vector<double>>("x"); }),
              "case.yaml:7: key 'x': expected a list of numbers, got '5'");
    EXPECT_EQ(c.get<std::vector<long>>("e"), std::vector<long>{});
    EXPECT_EQ(error_of([&] { c.get<std::vector<long>>("d"); }),
              "case.yaml:1: key 'd.1': expected an integer, got '2.5'");
}

TEST(Config, Vec3) {
    const Config c = Config::from_string(
        "a: [0.5]\nb: [1, 2]\nc: [1, 2, 3]\nd: [1, 2, 3, 4]\ne: 7\nf: [1, x]\ng: []\n",
        "case.yaml");
    EXPECT_EQ(c.get<Vec3>("a"), (Vec3{0.5, 0.0, 0.0}));
    EXPECT_EQ(c.get<Vec3>("b"), (Vec3{1.0, 2.0, 0.0}));
    EXPECT_EQ(c.get<Vec3>("c"), (Vec3{1.0, 2.0, 3.0}));
    EXPECT_EQ(error_of([&] { c.get<Vec3>("d"); }),
              "case.yaml:4: key 'd': expected a list of 1 to 3 numbers, got 4 entries");
    EXPECT_EQ(error_of([&] { c.get<Vec3>("e"); }),
              "case.yaml:5: key 'e': expected a list of 1 to 3 numbers, got '7'");
    EXPECT_EQ(error_of([&] { c.get<Vec3>("f"); }),
              "case.yaml:6: key 'f.1': expected a number, got 'x'");
    EXPECT_EQ(error_of([&] { c.get<Vec3>("g"); }),
              "case.yaml:7: key 'g': expected a list of 1 to 3 numbers, got 0 entries");
}

TEST(Config, SequenceIndexing) {
    const Config c = case_config();
    EXPECT_EQ(c.sequence_size("output.probes"), 2u);
    EXPECT_EQ(c.get<std::string>("output.probes.1.name"), "horizontal");
    EXPECT_EQ(c.get<int>("output.probes.0.n"), 11);
    EXPECT_EQ(c.get<Vec3>("output.probes.0.a"), (Vec3{0.5, 0.0, 0.0}));
    EXPECT_EQ(c.get<Vec3>("output.probes.1.b"), (Vec3{1.0, 0.5, 0.0}));
    EXPECT_EQ(c.get<double>("output.probes.1.a.1"), 0.5);
    EXPECT_EQ(c.location("output.probes.1.n"), "case.yaml:21");
    EXPECT_EQ(c.location("output.probes.1"), "case.yaml:18");
    EXPECT_EQ(error_of([&] { c.get<std::string>("output.probes.2.name"); }),
              "key 'output.probes.2.name' is required (list 'output.probes' at case.yaml:13 has 2 "
              "entries)");
    EXPECT_EQ(c.sequence_size("output.nothing"), 0u);
    EXPECT_EQ(error_of([&] { c.sequence_size("gas"); }),
              "case.yaml:2: key 'gas': expected a list, got a map");
}

TEST(Config, MissingKeyNamesSection) {
    const Config c = case_config();
    EXPECT_EQ(error_of([&] { c.get<double>("gas.K_int"); }),
              "key 'gas.K_int' is required (section 'gas' at case.yaml:2)");
    EXPECT_EQ(error_of([&] { c.get<double>("wall.T"); }),
              "key 'wall.T' is required (no section 'wall' in case.yaml)");
    EXPECT_EQ(error_of([&] { c.get<std::string>("name"); }),
              "key 'name' is required (not in case.yaml)");
    EXPECT_EQ(error_of([&] { c.get<double>("output.probes.0.x.y"); }),
              "key 'output.probes.0.x.y' is required (section 'output.probes.0' at case.yaml:14)");
    // Walking through a value: the value is the error.
    EXPECT_EQ(error_of([&] { c.get<double>("gas.Kn.x"); }),
              "case.yaml:3: key 'gas.Kn': expected a section (map) holding 'x', got '0.1'");
}

TEST(Config, FailUsesLocation) {
    const Config c = case_config();
    EXPECT_EQ(error_of([&] { c.fail("gas.Kn", "must be positive"); }),
              "case.yaml:3: key 'gas.Kn': must be positive");
}

// ---- ranges and enums ---------------------------------------------------------------------------

TEST(Config, CheckRange) {
    const Config c = case_config();
    const double cfl = c.get<double>("numerics.cfl");
    EXPECT_EQ(error_of([&] { c.check_range("numerics.cfl", cfl, 0.0, 1.0, true, false); }),
              "case.yaml:9: key 'numerics.cfl': value 1.7 is out of range (0, 1]");
    EXPECT_EQ(error_of([&] { c.check_range("gas.Kn", 0.1, 0.0, 1.0, true, false); }), "<no error>");
    EXPECT_EQ(error_of([&] { c.check_range("gas.Kn", 1.0, 0.0, 1.0, true, false); }), "<no error>");
    EXPECT_EQ(error_of([&] { c.check_range("gas.Kn", 0.0, 0.0, 1.0, false, true); }), "<no error>");
    EXPECT_EQ(error_of([&] { c.check_range("gas.Kn", 0.0, 0.0, 1.0, true, false); }),
              "case.yaml:3: key 'gas.Kn': value 0 is out of range (0, 1]");
    EXPECT_EQ(error_of([&] { c.check_range("gas.Kn", 1.0, 0.0, 1.0, false, true); }),
              "case.yaml:3: key 'gas.Kn': value 1 is out of range [0, 1)");
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(error_of([&] { c.check_range("gas.omega", -0.25, 0.0, inf); }),
              "case.yaml:5: key 'gas.omega': value -0.25 is out of range [0, inf)");
    EXPECT_EQ(error_of([&] { c.check_range("gas.omega", 1e300, 0.0, inf); }), "<no error>");
    EXPECT_EQ(error_of([&] { c.check_range("gas.omega", std::nan(""), -inf, inf); }),
              "case.yaml:5: key 'gas.omega': value nan is out of range (-inf, inf)");
}

TEST(Config, EnumWithHint) {
    Config c = case_config();
    const std::vector<std::string> limiters{"none", "minmod", "van_leer", "venkatakrishnan"};
    EXPECT_EQ(
        error_of([&] { c.get_enum("numerics.limiter", limiters); }),
        "case.yaml:11: key 'numerics.limiter': 'vanleer' is not one of: none, minmod, van_leer, "
        "venkatakrishnan (did you mean 'van_leer'?)");
    EXPECT_EQ(error_of([&] {
                  c.get_enum("mode", {"overset", "kinetic"});
              }),
              "case.yaml:1: key 'mode': 'ugks' is not one of: overset, kinetic");
    EXPECT_EQ(c.get_enum("mode", {"ugks", "overset"}), "ugks");
    EXPECT_EQ(c.get_enum_or("numerics.interface_state", {"exact", "linear"}, "linear"), "linear");
    EXPECT_EQ(c.location("numerics.interface_state"), "default");
    EXPECT_EQ(
        error_of([&] {
            c.get_enum_or("mode", {"UGKS", "overset"}, "UGKS");
        }),
        "case.yaml:1: key 'mode': 'ugks' is not one of: UGKS, overset (did you mean 'UGKS'?)");
}

// ---- unknown keys -------------------------------------------------------------------------------

// Reads every key of kCase except numerics.cfll.
void read_known(const Config& c) {
    c.get<std::string>("mode");
    for (const auto* k : {"gas.Kn", "gas.Pr", "gas.omega", "numerics.cfl"}) c.get<double>(k);
    c.get<std::string>("time.steps");
    c.get<std::string>("numerics.limiter");
    for (std::size_t i = 0; i < c.sequence_size("output.probes"); ++i) {
        const std::string p = "output.probes." + std::to_string(i);
        c.get<std::string>(p + ".name");
        c.get<Vec3>(p + ".a");
        c.get<Vec3>(p + ".b");
        c.get<int>(p + ".n");
    }
}

TEST(Config, UnknownKeyWithDidYouMean) {
    const Config c = case_config();
    read_known(c);
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:10: unknown key 'numerics.cfll' (did you mean 'numerics.cfl'?)");
    c.get<double>("numerics.cfll");
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "<no error>");
}

TEST(Config, UnknownKeysInFileOrder) {
    const Config c = Config::from_string("a: 1\nzz: 2\nb:\n  y: 3\n  x: 4\n", "case.yaml");
    c.get<int>("a");
    c.get<int>("b.x");
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:2: unknown key 'zz'");
    c.get<int>("zz");
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:4: unknown key 'b.y'");
}

TEST(Config, UnknownSectionReportedWhole) {
    Config c =
        Config::from_string("numerics:\n  cfl: 0.5\nnumerik:\n  order: 2\n  cfl: 1\n", "case.yaml");
    c.get<double>("numerics.cfl");
    c.get_or<int>("numerics.order", 2);
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:3: unknown key 'numerik' (did you mean 'numerics'?)");
}

TEST(Config, UnknownKeyInWrongSectionHint) {
    const Config c =
        Config::from_string("numerics:\n  cfl: 0.5\ntime:\n  steps: 3\n  cfl: 0.5\n", "case.yaml");
    c.get<double>("numerics.cfl");
    c.get<int>("time.steps");
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:5: unknown key 'time.cfl' (did you mean 'numerics.cfl'?)");
}

TEST(Config, HintRules) {
    // Siblings only, scaled to the name's length; never the key's own parent or child.
    const Config c = Config::from_string(
        "gas:\n  kn: 1\n  x: 2\n  omegaa: 3\n  K_inter: 4\n  Kn: 5\n  y: 6\n  omega: 7\n  K_int: "
        "8\n"
        "ab: 9\n",
        "case.yaml");
    for (const auto* k : {"gas.Kn", "gas.y", "gas.omega", "gas.K_int"}) c.get<double>(k);
    c.has("a");
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:2: unknown key 'gas.kn' (did you mean 'gas.Kn'?)");
    c.get<double>("gas.kn");
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:3: unknown key 'gas.x'");  // not 'gas.y'
    c.get<double>("gas.x");
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:4: unknown key 'gas.omegaa' (did you mean 'gas.omega'?)");
    c.get<double>("gas.omegaa");
    // 2 edits are too many for a 7-letter name only beyond the limit: K_inter -> K_int is 2.
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:5: unknown key 'gas.K_inter' (did you mean 'gas.K_int'?)");
    c.get<double>("gas.K_inter");
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:10: unknown key 'ab'");  // 'a': too short
}

TEST(Config, HasDoesNotMarkButHintsUseIt) {
    const Config c = Config::from_string("mesh:\n  fiel: a.msh\n  source: gmsh\n", "case.yaml");
    EXPECT_TRUE(c.has("mesh.fiel"));
    EXPECT_TRUE(c.has("mesh.source"));
    EXPECT_FALSE(c.has("mesh.file"));
    EXPECT_FALSE(c.has("mesh.source.x"));
    EXPECT_TRUE(c.has(""));
    // Nothing under 'mesh' was read: the whole section is unknown.
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:1: unknown key 'mesh'");
    c.get<std::string>("mesh.source");
    // The hint comes from the key asked for with has().
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:2: unknown key 'mesh.fiel' (did you mean 'mesh.file'?)");
    EXPECT_FALSE(c.is_map("mesh.fiel"));  // looking at a value's shape does not read it
    EXPECT_EQ(error_of([&] { c.check_unused(); }),
              "case.yaml:2: unknown key 'mesh.fiel' (did you mean 'mesh.file'?)");
}

TEST(Config, KeysMarksOnlyTheMap) {
    const Config c = Config::from_string(
        "boundaries:\n  wall:\n    type: diffuse_wall\n    T: 1.0\n  lid:\n    type: diffuse_wall\n"
        "empty: {}\nnothing:\nlist: []\n",
        "case.yaml");
    EXPECT_EQ(c.keys("boundaries"), (std::vector<std::string>{"wall", "lid"}));
    EXPECT_EQ(c.keys(""), (std::vector<std::string>{"boundaries", "empty", "nothing", "list"}));
    EXPECT_TRUE(c.keys("absent").empty());
    EXPECT_TRUE(c.keys("nothing").empty());
    EXPECT_EQ(error_of([&] { c.keys("boundaries.wall.T"); }),
              "case.yaml:4: key 'boundaries.wall.T': expected a section (map), got '1.0'");
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:2: unknown key 'boundaries.wall'");
    for (const auto& k : c.keys("boundaries")) c.get<std::string>("boundaries." + k + ".type");
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:4: unknown key 'boundaries.wall.T'");
    c.get<double>("boundaries.wall.T");
    // Empty maps, lists and null values: known once looked at.
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:7: unknown key 'empty'");
    EXPECT_TRUE(c.is_map("empty"));
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "case.yaml:9: unknown key 'list'");
    EXPECT_EQ(c.sequence_size("list"), 0u);
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "<no error>");
}

TEST(Config, IsMapIsSequence) {
    const Config c = case_config();
    EXPECT_TRUE(c.is_map("gas"));
    EXPECT_FALSE(c.is_sequence("gas"));
    EXPECT_TRUE(c.is_sequence("output.probes"));
    EXPECT_TRUE(c.is_map("output.probes.0"));
    EXPECT_FALSE(c.is_map("gas.Kn"));
    EXPECT_FALSE(c.is_map("absent"));
}

// ---- overrides
// ------------------------------------------------------------------------------------

TEST(Config, OverrideReplacesAndIsReportedWithSetLocation) {
    Config c = case_config();
    c.apply_override("time.steps=200");
    EXPECT_EQ(c.get<int>("time.steps"), 200);
    EXPECT_EQ(c.location("time.steps"), "--set time.steps=200");
    c.apply_override("numerics.cfl=abc");
    EXPECT_EQ(error_of([&] { c.get<double>("numerics.cfl"); }),
              "--set numerics.cfl=abc: key 'numerics.cfl': expected a number, got 'abc'");
    EXPECT_EQ(c.location("gas.Kn"), "case.yaml:3");  // untouched keys keep their line
}

// --set key=null (or ~) removes a key the case sets, so that its default applies again; removing
// a key the case does not set names the --set.
TEST(Config, OverrideNullRemovesAKey) {
    Config c = case_config();
    ASSERT_TRUE(c.has("gas.Kn"));
    c.apply_override("gas.Kn=null");
    EXPECT_FALSE(c.has("gas.Kn"));
    EXPECT_TRUE(c.has("gas"));
    EXPECT_EQ(c.get_or<double>("gas.Kn", 0.25), 0.25);
    c.apply_override("time.steps=~");
    EXPECT_FALSE(c.has("time.steps"));
    EXPECT_EQ(error_of([&] { c.apply_override("numerics.nothing=null"); }),
              "--set numerics.nothing=null: the case sets no key 'numerics.nothing' to remove (a "
              "list entry cannot be removed)");
    EXPECT_EQ(error_of([&] { c.apply_override("nosection.x=null"); }),
              "--set nosection.x=null: the case sets no key 'nosection.x' to remove");
}

TEST(Config, OverrideCreatesIntermediateMaps) {
    Config c = case_config();
    c.apply_override("velocity.grid.n=[16, 16,8]");
    EXPECT_EQ(c.get<std::vector<int>>("velocity.grid.n"), (std::vector<int>{16, 16, 8}));
    EXPECT_EQ(c.location("velocity"), "--set velocity.grid.n=[16, 16,8]");
    EXPECT_EQ(c.location("velocity.grid.n.2"), "--set velocity.grid.n=[16, 16,8]");
    EXPECT_EQ(
        error_of([&] { c.get<int>("velocity.grid.n"); }),
        "--set velocity.grid.n=[16, 16,8]: key 'velocity.grid.n': expected an integer, got a list");
    c.apply_override(" gas.K_int = 2 ");
    EXPECT_EQ(c.get<int>("gas.K_int"), 2);
    EXPECT_EQ(c.location("gas"), "case.yaml:2");
    c.apply_override("output.surface=");  // an empty value is null
    EXPECT_TRUE(c.has("output.surface"));
    EXPECT_TRUE(c.keys("output.surface").empty());
}

TEST(Config, OverrideInsideSequence) {
    Config c = case_config();
    c.apply_override("output.probes.0.n=5");
    EXPECT_EQ(c.get<int>("output.probes.0.n"), 5);
    EXPECT_EQ(c.location("output.probes.0.n"), "--set output.probes.0.n=5");
    EXPECT_EQ(c.location("output.probes.0.name"), "case.yaml:14");
    c.apply_override("output.probes.1.a.2=0.25");
    EXPECT_EQ(c.get<Vec3>("output.probes.1.a"), (Vec3{0.0, 0.5, 0.25}));
    // One past the end appends; further is an error.
    c.apply_override("output.probes.2.name=diagonal");
    EXPECT_EQ(c.sequence_size("output.probes"), 3u);
    EXPECT_EQ(c.get<std::string>("output.probes.2.name"), "diagonal");
    EXPECT_EQ(error_of([&] { c.apply_override("output.probes.7.n=5"); }),
              "--set output.probes.7.n=5: key 'output.probes': is a list of 3 entries; '7' is not "
              "an index "
              "from 0 to 3");
    EXPECT_EQ(
        error_of([&] { c.apply_override("output.probes.x=5"); }),
        "--set output.probes.x=5: key 'output.probes': is a list of 3 entries; 'x' is not an index "
        "from 0 to 3");
}

TEST(Config, OverrideThroughValueAndMalformed) {
    Config c = case_config();
    EXPECT_EQ(error_of([&] { c.apply_override("gas.Kn.x=1"); }),
              "--set gas.Kn.x=1: key 'gas.Kn': expected a section (map) holding 'x', got '0.1'");
    EXPECT_EQ(error_of([&] { c.apply_override("numerics.cfl"); }),
              "--set numerics.cfl: expected key.path=value");
    EXPECT_EQ(error_of([&] { c.apply_override("=5"); }),
              "--set =5: expected key.path=value with a key path like 'numerics.cfl', got ''");
    EXPECT_EQ(
        error_of([&] { c.apply_override("a..b=5"); }),
        "--set a..b=5: expected key.path=value with a key path like 'numerics.cfl', got 'a..b'");
    const std::string e = error_of([&] { c.apply_override("a=[1, 2"); });
    EXPECT_EQ(e.rfind("--set a=[1, 2: YAML syntax error in the value: ", 0), 0u) << e;
    EXPECT_EQ(error_of([&] { c.apply_override("a={x: 1, x: 2}"); }),
              "--set a={x: 1, x: 2}: duplicate key 'a.x'");
    EXPECT_FALSE(c.has("a"));
}

TEST(Config, LaterOverrideWins) {
    Config c = case_config();
    c.apply_override("gas.Kn=0.5");
    c.apply_override("gas={Kn: 1, Pr: 0.7}");
    EXPECT_EQ(c.get<double>("gas.Kn"), 1.0);
    EXPECT_EQ(c.location("gas.Kn"), "--set gas={Kn: 1, Pr: 0.7}");
    EXPECT_FALSE(c.has("gas.omega"));
    EXPECT_EQ(c.keys("gas"), (std::vector<std::string>{"Kn", "Pr"}));
}

TEST(Config, UnreadOverrideIsUnknownWithSetLocation) {
    Config c = case_config();
    c.apply_override("numerics.cfll=0.5");  // replaces the file's numerics.cfll
    c.apply_override("numerics.order=2");
    read_known(c);
    c.get<int>("numerics.order");
    EXPECT_EQ(
        error_of([&] { c.check_unused(); }),
        "--set numerics.cfll=0.5: unknown key 'numerics.cfll' (did you mean 'numerics.cfl'?)");
}

// ---- file-level errors
// ------------------------------------------------------------------------------

TEST(Config, DuplicateKeys) {
    EXPECT_EQ(error_of([] {
                  Config::from_string("gas:\n  Kn: 0.1\n  Pr: 0.7\n  Kn: 0.2\n", "case.yaml");
              }),
              "case.yaml:4: duplicate key 'gas.Kn' (first defined at line 2)");
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\nb: 2\n\na: 3\n", "case.yaml"); }),
              "case.yaml:4: duplicate key 'a' (first defined at line 1)");
    EXPECT_EQ(error_of([] { Config::from_string("p:\n  - {x: 1, y: 2, x: 3}\n", "case.yaml"); }),
              "case.yaml:2: duplicate key 'p.0.x' (first defined at line 2)");
}

TEST(Config, SyntaxErrorLineAndColumn) {
    EXPECT_EQ(error_of([] {
                  Config::from_string("gas:\n  Kn: 0.1\ntime:\n  steps: 3\n   bad: 1\n",
                                      "case.yaml");
              }),
              "case.yaml:5:7: YAML syntax error: illegal map value");
    EXPECT_EQ(error_of([] {
                  Config::from_string("gas:\n  Kn: 0.1\n  Pr: [0.7, 1\ntime: 3\n", "case.yaml");
              }),
              "case.yaml:4:5: YAML syntax error: end of sequence flow not found");
}

TEST(Config, BadKeysAndShapes) {
    EXPECT_EQ(
        error_of([] { Config::from_string("gas:\n  K.n: 1\n", "case.yaml"); }),
        "case.yaml:2: key 'gas.K.n': '.' is not allowed in key names (it separates key paths)");
    EXPECT_EQ(error_of([] { Config::from_string("gas:\n  [a, b]: 1\n", "case.yaml"); }),
              "case.yaml:2: a key under 'gas' must be a plain name, got a list");
    EXPECT_EQ(error_of([] { Config::from_string("- a\n- b\n", "case.yaml"); }),
              "case.yaml:1: a case file must be a map of sections (name: value), got a list");
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\n---\nb: 2\n", "case.yaml"); }),
              "case.yaml:3: a second YAML document starts here; a case file holds one");
    EXPECT_EQ(error_of([] { Config::from_string("a: 1\n---\n", "case.yaml"); }), "<no error>");
}

TEST(Config, EmptyText) {
    Config c = Config::from_string("", "case.yaml");
    EXPECT_TRUE(c.keys("").empty());
    EXPECT_EQ(c.get_or<int>("time.steps", 3), 3);
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "<no error>");
    Config d;
    EXPECT_EQ(error_of([&] { d.get<int>("x"); }), "key 'x' is required (not in <empty>)");
}

TEST(Config, FromFile) {
    const std::string dir = ugks::test::temp_dir("config");
    const std::string path = dir + "/case.yaml";
    ugks::test::write_file(path, kCase);
    const Config c = Config::from_file(path);
    EXPECT_EQ(c.file(), path);
    EXPECT_EQ(c.get<double>("gas.Kn"), 0.1);
    EXPECT_EQ(error_of([&] { c.get<int>("time.steps"); }),
              path + ":7: key 'time.steps': expected an integer, got 'abc'");
    EXPECT_EQ(error_of([&] { Config::from_file(dir + "/missing.yaml"); }),
              "case file '" + dir + "/missing.yaml' does not exist");
    EXPECT_EQ(error_of([&] { Config::from_file(dir); }), "case file '" + dir + "' is a directory");
    ugks::test::write_file(dir + "/bad.yaml", "a: [1,\n");
    const std::string e = error_of([&] { Config::from_file(dir + "/bad.yaml"); });
    EXPECT_EQ(e.rfind(dir + "/bad.yaml:", 0), 0u) << e;
    EXPECT_NE(e.find(": YAML syntax error: "), std::string::npos) << e;
    std::filesystem::remove_all(dir);
}

// ---- hostile input: encodings, aliases, limits (issue 23)
// ------------------------------------------------------

TEST(Config, CaseFileMustBeUtf8) {
    // "case.yaml:<line>:<column in characters>", the byte offset and the byte escaped
    EXPECT_EQ(error_of([] {
                  Config::from_string(
                      "gas:\n  Kn: 0.1\nname: ab\xff"
                      "cd\n",
                      "case.yaml");
              }),
              "case.yaml:3:9: not valid UTF-8: byte \\xff at byte offset 23; a case file is UTF-8 "
              "text");
    EXPECT_EQ(
        error_of([] { Config::from_string("name: \xc3\xa9t\xc3\xa9\xe2\x82\n", "case.yaml"); }),
        "case.yaml:1:10: not valid UTF-8: byte \\xe2 at byte offset 11; a case file is UTF-8 "
        "text");
    // yaml-cpp would read these as UTF-16: a byte-order mark, or NUL bytes
    EXPECT_EQ(error_of([] {
                  Config::from_string(std::string("\xff\xfe"
                                                  "a\0:\0 \0"
                                                  "1\0",
                                                  10),
                                      "case.yaml");
              }),
              "case.yaml:1:1: not valid UTF-8: byte \\xff at byte offset 0 (a UTF-16 or UTF-32 "
              "byte-order mark); a case file is UTF-8 text");
    EXPECT_EQ(error_of([] { Config::from_string(std::string("a: 1\n\0b", 7), "case.yaml"); }),
              "case.yaml:2:1: a NUL byte at byte offset 5 (a UTF-16 or UTF-32 file?); a case file "
              "is UTF-8 text");
    // overlong form, surrogate, above U+10FFFF, stray continuation byte
    for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80"}) {
        const std::string e =
            error_of([&] { Config::from_string(std::string("a: ") + bad, "c.yaml"); });
        EXPECT_EQ(e.rfind("c.yaml:1:4: not valid UTF-8: byte \\x", 0), 0u) << e;
    }
    // UTF-8 with and without a byte-order mark is read as it is
    const Config c =
        Config::from_string("\xef\xbb\xbfname: \xc3\xa9t\xc3\xa9 \xf0\x9f\x9a\x80\n", "case.yaml");
    EXPECT_EQ(c.get<std::string>("name"), "\xc3\xa9t\xc3\xa9 \xf0\x9f\x9a\x80");
}

TEST(Config, OverrideMustBeUtf8) {
    Config c = case_config();
    EXPECT_EQ(error_of([&] { c.apply_override("name=\xff\xfe"); }),
              "--set name=\\xff\\xfe: the value is not valid UTF-8 (byte \\xff at offset 5 of the "
              "argument)");
    EXPECT_EQ(error_of([&] { c.apply_override("output.probes.0.name=ab\xc3"); }),
              "--set output.probes.0.name=ab\\xc3: the value is not valid UTF-8 (byte \\xc3 at "
              "offset 23 of the argument)");
    EXPECT_EQ(error_of([&] { c.apply_override("gas.K\xe9n=1"); }),
              "--set gas.K\\xe9n=1: the key is not valid UTF-8 (byte \\xe9 at offset 5 of the "
              "argument)");
    EXPECT_EQ(c.get<double>("gas.Kn"), 0.1);
    c.apply_override("output.probes.0.name=\xc3\xa9t\xc3\xa9");
    EXPECT_EQ(c.get<std::string>("output.probes.0.name"), "\xc3\xa9t\xc3\xa9");
}

TEST(Config, NestingAndNodesAreBounded) {
    const std::string e = error_of([] {
        Config::from_string("a: " + std::string(64, '[') + std::string(64, ']') + "\n",
                            "case.yaml");
    });
    EXPECT_EQ(e, "<no error>");
    EXPECT_EQ(
        error_of([] {
            Config::from_string("a: " + std::string(65, '[') + std::string(65, ']') + "\n",
                                "case.yaml");
        }),
        "case.yaml:1: 'a" +
            [] {
                std::string p;
                for (int l = 0; l < 64; ++l) p += ".0";
                return p;
            }() +
            "': nested more than 64 levels deep (a YAML alias that refers to itself?)");
    std::string big = "a: [0";
    for (std::size_t n = 1; n < Config::kMaxNodes; ++n) big += ",0";
    // Counted in the text, before yaml-cpp builds a tree of them. (The scan counts them again with
    // aliases expanded, and the nodes of a --set value, with the message "the case expands to more
    // than 500000 YAML nodes": reaching it takes half a million real nodes, seconds in a test.)
    EXPECT_EQ(error_of([&] { Config::from_string(big + "]\n", "case.yaml"); }),
              "case.yaml:1: more than 500000 YAML nodes (a case file holds hundreds; meshes and "
              "velocity lists go in files of their own)");
}

TEST(Config, AliasInsideItselfIsRefusedAtOnce) {
    EXPECT_EQ(error_of([] { Config::from_string("# loop\nname: &l [*l]\n", "case.yaml"); }),
              "case.yaml:2: 'name.0': a YAML alias inside the node it refers to (the value would "
              "nest without end)");
    // Two aliases at each level: walking the expansion would take 2^64 steps.
    EXPECT_EQ(error_of([] { Config::from_string("a: &m {b: [*m, *m]}\n", "case.yaml"); }),
              "case.yaml:1: 'a.b.0': a YAML alias inside the node it refers to (the value would "
              "nest without end)");
    Config c = case_config();
    EXPECT_EQ(error_of([&] { c.apply_override("output.x=&l [*l]"); }),
              "--set output.x=&l [*l]: 'output.x.0': a YAML alias inside the node it refers to "
              "(the value would nest without end)");
    EXPECT_FALSE(c.has("output.x"));
}

// A flow list of `levels` anchored lists, each repeating the one before ten times ("billion
// laughs": 10^levels nodes when expanded).
std::string laughs(int levels) {
    std::string s = "[&l0 [x, x, x, x, x, x, x, x, x, x]";
    for (int l = 1; l < levels; ++l) {
        s += ", &l" + std::to_string(l) + " [";
        for (int r = 0; r < 10; ++r) s += (r ? ", *l" : "*l") + std::to_string(l - 1);
        s += "]";
    }
    return s + "]";
}

TEST(Config, AliasBombIsRefused) {
    // 1e20 nodes if expanded: each anchored list is walked once, so this returns at once.
    EXPECT_EQ(
        error_of([] { Config::from_string("name: x\nbomb: " + laughs(20) + "\n", "case.yaml"); }),
        "case.yaml:2: the case's aliases expand to more than 10000 YAML nodes (aliases that "
        "repeat aliases?); at 'bomb.3.7'");
    Config c = case_config();
    EXPECT_EQ(error_of([&] { c.apply_override("a=" + laughs(20)); }),
              "--set a=" + laughs(20) +
                  ": the case's aliases expand to more than 10000 YAML nodes "
                  "(aliases that repeat aliases?); at 'a.3.7'");
    EXPECT_FALSE(c.has("a"));
    // Within the limit the expansion is accepted.
    c.apply_override("a=" + laughs(3));
    EXPECT_EQ(c.sequence_size("a.2.9"), 10u);
    EXPECT_EQ(c.get<std::string>("a.2.9.9.9"), "x");
    c.apply_override("a.2.9.9.9=y");  // one place of 111: each has a copy of its own
    EXPECT_EQ(c.get<std::string>("a.2.9.9.9"), "y");
    EXPECT_EQ(c.get<std::string>("a.2.9.9.8"), "x");
    EXPECT_EQ(c.get<std::string>("a.2.0.9.9"), "x");
    EXPECT_EQ(c.get<std::string>("a.1.9.9"), "x");
}

TEST(Config, AliasesGetCopiesOfTheirOwn) {
    // An override or a default under one alias changes that place only.
    Config c = Config::from_string(
        "boundaries:\n"                            // 1
        "  xmin: &w {type: diffuse_wall, T: 1}\n"  // 2
        "  xmax: *w\n"                             // 3
        "  ymin: {a: &u [0.1, 0], b: *u}\n",       // 4
        "case.yaml");
    EXPECT_EQ(c.location("boundaries.xmax.T"), "case.yaml:3");  // the line of the alias
    EXPECT_EQ(c.location("boundaries.xmin.T"), "case.yaml:2");
    c.apply_override("boundaries.xmax.T=2");
    EXPECT_EQ(c.get<double>("boundaries.xmin.T"), 1.0);
    EXPECT_EQ(c.get<double>("boundaries.xmax.T"), 2.0);
    EXPECT_EQ(c.get_or<double>("boundaries.xmin.accommodation", 0.5), 0.5);
    EXPECT_FALSE(c.has("boundaries.xmax.accommodation"));
    c.apply_override("boundaries.ymin.b.0=0.3");
    EXPECT_EQ(c.get<Vec3>("boundaries.ymin.a"), (Vec3{0.1, 0.0, 0.0}));
    EXPECT_EQ(c.get<Vec3>("boundaries.ymin.b"), (Vec3{0.3, 0.0, 0.0}));
    // yaml-cpp has no merge keys: '<<' is a key like any other, and unknown.
    Config m =
        Config::from_string("gas: &g {Kn: 0.1}\nnumerics: {cfl: 0.5, <<: *g}\n", "case.yaml");
    m.get<double>("gas.Kn");
    m.get<double>("numerics.cfl");
    EXPECT_EQ(error_of([&] { m.check_unused(); }), "case.yaml:2: unknown key 'numerics.<<'");
}

TEST(Config, OverrideKeyPathLevelsAreBounded) {
    Config c = case_config();
    std::string key = "a";
    for (int l = 1; l < Config::kMaxDepth; ++l) key += ".a";
    c.apply_override(key + "=1");  // 64 levels
    EXPECT_EQ(c.get<int>(key), 1);
    EXPECT_EQ(error_of([&] { c.apply_override(key + ".a=1"); }),
              ("--set " + key).substr(0, 80) + "...: the key path has 65 levels; at most 64");
    // A value that nests the path deeper than 64 levels is refused like a file.
    EXPECT_EQ(error_of([&] { c.apply_override(key + "=[1]"); }),
              "--set " + key + "=[1]: '" + key +
                  ".0': nested more than 64 levels deep (a YAML alias that refers to itself?)");
}

TEST(Config, KeyPathBytesAreBounded) {
    // 64 levels of 250-character names over 1100 keys: 18 MB of key paths from 40 kB of text.
    std::string text, close;
    for (int l = 0; l < 63; ++l) {
        text += std::string(249, 'k') + std::to_string(l % 10) + ": {";
        close += "}";
    }
    for (int k = 0; k < 1100; ++k) text += (k ? ", x" : "x") + std::to_string(k) + ": 1";
    text += close + "\n";
    EXPECT_EQ(error_of([&] { Config::from_string(text, "case.yaml"); }),
              "case.yaml:1: the key paths of the case add up to more than 16777216 bytes (long key "
              "names nested deep?)");
}

// ---- defaults and the resolved tree
// --------------------------------------------------------------

TEST(Config, DefaultsAreWrittenAndRoundTrip) {
    Config c = Config::from_string("gas:\n  Kn: 0.1\ntime:\nnumerics: {cfl: 0.9}\n", "case.yaml");
    EXPECT_EQ(c.get_or<double>("gas.Kn", 1.0), 0.1);   // present: the file wins
    EXPECT_EQ(c.get_or<int>("time.steps", 100), 100);  // null section becomes a map
    EXPECT_EQ(c.get_or<double>("gas.Pr", 2.0 / 3.0), 2.0 / 3.0);
    EXPECT_EQ(c.get_or<bool>("numerics.steady", false), false);
    EXPECT_EQ(c.get_or("numerics.limiter", "van_leer"), "van_leer");
    EXPECT_EQ(c.get_or<Vec3>("initial.U", Vec3{0.1, -0.2, 0.0}), (Vec3{0.1, -0.2, 0.0}));
    EXPECT_EQ(c.get_or<std::vector<std::string>>("output.fields", {"rho", "T"}),
              (std::vector<std::string>{"rho", "T"}));
    EXPECT_EQ(c.get_or<long>("parallel.block_size", 1L << 40), 1L << 40);
    EXPECT_EQ(c.get_or<double>("time.end", std::numeric_limits<double>::infinity()),
              std::numeric_limits<double>::infinity());
    EXPECT_EQ(c.location("time.steps"), "default");
    EXPECT_EQ(c.location("initial"), "default");
    EXPECT_EQ(c.location("time"), "case.yaml:3");
    EXPECT_EQ(c.location("gas.Kn"), "case.yaml:2");
    EXPECT_EQ(c.get<int>("time.steps"), 100);
    EXPECT_EQ(c.get<double>("numerics.cfl"), 0.9);
    EXPECT_EQ(error_of([&] { c.check_unused(); }), "<no error>");

    const std::string text = c.resolved_yaml();
    EXPECT_NE(text.find("steps: 100"), std::string::npos) << text;
    EXPECT_NE(text.find("Pr: 0.6666666666666666\n"), std::string::npos)
        << text;  // shortest exact form
    const Config r = Config::from_string(text, "resolved");
    EXPECT_EQ(r.get<double>("gas.Kn"), 0.1);
    EXPECT_EQ(r.get<double>("gas.Pr"), 2.0 / 3.0);
    EXPECT_EQ(r.get<int>("time.steps"), 100);
    EXPECT_EQ(r.get<bool>("numerics.steady"), false);
    EXPECT_EQ(r.get<std::string>("numerics.limiter"), "van_leer");
    EXPECT_EQ(r.get<double>("numerics.cfl"), 0.9);
    EXPECT_EQ(r.get<Vec3>("initial.U"), (Vec3{0.1, -0.2, 0.0}));
    EXPECT_EQ(r.get<std::vector<std::string>>("output.fields"),
              (std::vector<std::string>{"rho", "T"}));
    EXPECT_EQ(r.get<long>("parallel.block_size"), 1L << 40);
    EXPECT_EQ(r.get<double>("time.end"), std::numeric_limits<double>::infinity());
    EXPECT_EQ(r.keys(""), (std::vector<std::string>{"gas", "time", "numerics", "initial", "output",
                                                    "parallel"}));
}

TEST(Config, DefaultThroughValueFails) {
    Config c = Config::from_string("gas: 3\n", "case.yaml");
    EXPECT_EQ(error_of([&] { c.get_or<double>("gas.Kn", 1.0); }),
              "case.yaml:1: key 'gas': expected a section (map) holding 'Kn', got '3'");
    // A present null leaf is not "absent": it is an error, not the default.
    Config d = Config::from_string("time:\n  steps:\n", "case.yaml");
    EXPECT_EQ(error_of([&] { d.get_or<int>("time.steps", 5); }),
              "case.yaml:2: key 'time.steps': expected an integer, got an empty value");
}

TEST(Config, OverrideOfDefaultedKey) {
    Config c;
    EXPECT_EQ(c.get_or<int>("a.b", 1), 1);
    c.apply_override("a.b=2");
    EXPECT_EQ(c.location("a.b"), "--set a.b=2");
    EXPECT_EQ(c.location("a"), "default");
    EXPECT_EQ(c.get_or<int>("a.b", 1), 2);
}

// ---- copies
// ---------------------------------------------------------------------------------------

TEST(Config, CopiesAreDeep) {
    Config a = case_config();
    Config b = a;
    EXPECT_EQ(b.get_or<int>("time.order", 2), 2);
    b.apply_override("gas.Kn=0.5");
    EXPECT_FALSE(a.has("time.order"));
    EXPECT_EQ(a.get<double>("gas.Kn"), 0.1);
    EXPECT_EQ(b.get<double>("gas.Kn"), 0.5);
    EXPECT_EQ(b.location("gas.Pr"), "case.yaml:4");  // lines survive the copy

    // Read records are separate too.
    Config fresh = case_config();
    Config copy = fresh;
    read_known(copy);
    copy.get<double>("numerics.cfll");
    EXPECT_EQ(error_of([&] { copy.check_unused(); }), "<no error>");
    EXPECT_EQ(error_of([&] { fresh.check_unused(); }), "case.yaml:1: unknown key 'mode'");

    // Assignment replaces without touching the source.
    Config assigned;
    assigned = a;
    assigned.apply_override("mode=overset");
    EXPECT_EQ(a.get<std::string>("mode"), "ugks");
    EXPECT_EQ(assigned.get<std::string>("mode"), "overset");
    Config moved = std::move(assigned);
    EXPECT_EQ(moved.get<std::string>("mode"), "overset");
    EXPECT_EQ(moved.location("gas.Kn"), "case.yaml:3");
}

}  // namespace

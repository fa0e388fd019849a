// The overset case section: a valid case, defaults, and errors naming key paths.
#include <gtest/gtest.h>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

const char* kCase = R"(mode: overset
name: t
overset:
  layer_spacing: 0.5
  grids:
    - name: background
      mesh: {source: box, box: {cells: [8, 8], lo: [-2, -2], hi: [2, 2]}}
    - name: body
      layer: 1
      mesh: {source: box, box: {cells: [4, 4], lo: [-0.5, -0.5], hi: [0.5, 0.5]}}
      walls: [ymin]
      motion: {type: rotation, axis: [0, 0, 1], point: [0, 0, 0], omega: 2.0}
time: {steps: 3, dt: 0.1}
output: {directory: out, every: 2}
)";

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
    try {
        Config cfg = Config::from_string(text, "case.yaml");
        for (const auto& o : overrides) cfg.apply_override(o);
        OversetCase c = parse_overset_case(cfg);
        std::vector<Mesh> meshes;
        for (const auto& g : c.grids) meshes.push_back(load_mesh(g.mesh));
        check_case_meshes(cfg, c, meshes);
        cfg.check_unused();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(OversetConfig, ValidCase) {
    Config cfg = Config::from_string(kCase, "case.yaml");
    const OversetCase c = parse_overset_case(cfg);
    cfg.check_unused();
    ASSERT_EQ(c.grids.size(), 2u);
    EXPECT_EQ(c.grids[1].name, "body");
    EXPECT_EQ(c.grids[1].layer, 1);
    EXPECT_EQ(c.grids[1].walls, std::vector<std::string>{"ymin"});
    EXPECT_EQ(c.grids[1].motion.type, Motion::Type::Rotation);
    EXPECT_DOUBLE_EQ(c.grids[1].motion.omega, 2.0);
    EXPECT_EQ(c.grids[0].motion.type, Motion::Type::Fixed);
    EXPECT_EQ(c.steps, 3);
    EXPECT_DOUBLE_EQ(c.dt, 0.1);
    EXPECT_EQ(c.output_every, 2);
    EXPECT_EQ(c.leaf_size, 3);
    EXPECT_EQ(c.hole_cut, "auto");
    EXPECT_EQ(error_of(kCase), "");
    cfg = Config::from_string(kCase, "case.yaml");
    cfg.apply_override("overset.hole_cut=off");
    EXPECT_EQ(parse_overset_case(cfg).hole_cut, "off");
}

TEST(OversetConfig, WallPatternsTakeTheirPatches) {
    // docs/usage.md "Patch patterns": a walls entry that is a pattern stands for every patch it
    // matches (each once); one that matches none is refused like an unknown name
    auto walls_of = [](const std::string& walls) {
        Config cfg = Config::from_string(kCase, "case.yaml");
        cfg.apply_override("overset.grids.1.walls=" + walls);
        OversetCase c = parse_overset_case(cfg);
        std::vector<Mesh> meshes;
        for (const auto& g : c.grids) meshes.push_back(load_mesh(g.mesh));
        check_case_meshes(cfg, c, meshes);
        return c.grids[1].walls;
    };
    EXPECT_EQ(walls_of("[\"y*\"]"), (std::vector<std::string>{"ymin", "ymax"}));
    EXPECT_EQ(walls_of("[xmax, \"*\"]"),
              (std::vector<std::string>{"xmax", "xmin", "ymin", "ymax"}));
    EXPECT_EQ(walls_of("[\"[xy]min\"]"), (std::vector<std::string>{"xmin", "ymin"}));
    const std::string e = error_of(kCase, {"overset.grids.1.walls=[ymin, \"z*\"]"});
    EXPECT_NE(e.find("overset.grids.1.walls.1"), std::string::npos) << e;
    EXPECT_NE(e.find("pattern 'z*' matches no patch of this grid's mesh (patches: xmin, xmax, "
                     "ymin, ymax)"),
              std::string::npos)
        << e;
}

TEST(OversetConfig, ErrorsNameTheKeyPath) {
    auto has = [](const std::string& e, const std::string& s) {
        return e.find(s) != std::string::npos;
    };
    std::string e = error_of(kCase, {"overset.layer_spacing=-1"});
    EXPECT_TRUE(has(e, "overset.layer_spacing")) << e;
    e = error_of(kCase, {"overset.grids.1.motion.type=spin"});
    EXPECT_TRUE(has(e, "overset.grids.1.motion.type")) << e;
    e = error_of(kCase, {"overset.grids.1.walls=[hull]"});
    EXPECT_TRUE(has(e, "overset.grids.1.walls.0") && has(e, "hull")) << e;
    e = error_of(kCase, {"overset.grids.1.name=background"});
    EXPECT_TRUE(has(e, "overset.grids.1.name") && has(e, "twice")) << e;
    e = error_of(kCase, {"overset.grids.1.motion.axis=[1, 0, 0]"});
    EXPECT_TRUE(has(e, "overset.grids.1.motion.axis")) << e;
    e = error_of(kCase, {"overset.grids.0.mesh.box.cells=[0, 8]"});
    EXPECT_TRUE(has(e, "overset.grids.0.mesh.box.cells.0")) << e;
    e = error_of(kCase, {"overset.grids.1.colour=red"});
    EXPECT_TRUE(has(e, "overset.grids.1.colour")) << e;
    e = error_of(kCase, {"overset.grids.1.walls=[]"});
    EXPECT_TRUE(has(e, "no grid has wall")) << e;
    e = error_of(kCase, {"time.dt=0"});
    EXPECT_TRUE(has(e, "time.dt")) << e;
    e = error_of(
        kCase, {"overset.grids.1.motion={type: poses, table: [[0, 0, 0, 0, 0], [0, 1, 0, 0, 0]]}"});
    EXPECT_TRUE(has(e, "overset.grids.1.motion.table.1")) << e;
    e = error_of(kCase, {"overset.grids.1.motion={type: translation}"});
    EXPECT_TRUE(has(e, "overset.grids.1.motion.velocity")) << e;
    e = error_of(kCase, {"overset.hole_cut=on"});
    EXPECT_TRUE(has(e, "overset.hole_cut") && has(e, "auto")) << e;
    e = error_of(kCase, {"overset.grids.0.mesh={source: gmsh, file: none.msh}"});
    EXPECT_TRUE(has(e, "overset.grids.0.mesh.file")) << e;
}

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/overset/overset.hpp"

namespace ugks::overset {

namespace {

bool valid_name(const std::string& s) {
    if (s.empty()) return false;
    for (const char ch : s)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) return false;
    return true;
}

Vec3 unit_axis(Config& cfg, const std::string& key) {
    const Vec3 a = cfg.get_or<Vec3>(key, Vec3{0, 0, 1});
    const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(n > 0) || !std::isfinite(n)) cfg.fail(key, "the rotation axis must be a nonzero vector");
    return {a[0] / n, a[1] / n, a[2] / n};
}

Motion parse_motion(Config& cfg, const std::string& b) {
    Motion m;
    if (!cfg.has(b)) {
        cfg.get_or(b + ".type", "fixed");
        return m;
    }
    const std::string type =
        cfg.get_enum_or(b + ".type", {"fixed", "translation", "rotation", "poses"}, "fixed");
    if (type == "translation") {
        m.type = Motion::Type::Translation;
        m.velocity = cfg.get<Vec3>(b + ".velocity");
    } else if (type == "rotation") {
        m.type = Motion::Type::Rotation;
        m.axis = unit_axis(cfg, b + ".axis");
        m.point = cfg.get_or<Vec3>(b + ".point", Vec3{0, 0, 0});
        m.omega = cfg.get<double>(b + ".omega");
        cfg.check_range(b + ".omega", m.omega, -kInf, kInf, true, true);
    } else if (type == "poses") {
        m.type = Motion::Type::Poses;
        m.axis = unit_axis(cfg, b + ".axis");
        m.point = cfg.get_or<Vec3>(b + ".point", Vec3{0, 0, 0});
        if (!cfg.is_sequence(b + ".table") || cfg.sequence_size(b + ".table") == 0)
            cfg.fail(b + ".table",
                     "expected a non-empty list of rows [time, shift_x, shift_y, shift_z, angle]");
        for (std::size_t r = 0; r < cfg.sequence_size(b + ".table"); ++r) {
            const std::string k = b + ".table." + std::to_string(r);
            const std::vector<double> row = cfg.get<std::vector<double>>(k);
            if (row.size() != 5)
                cfg.fail(k, "expected 5 numbers [time, shift_x, shift_y, shift_z, angle], got " +
                                std::to_string(row.size()));
            for (const double v : row)
                if (!std::isfinite(v)) cfg.fail(k, "values must be finite");
            if (!m.table.empty() && !(row[0] > m.table.back()[0]))
                cfg.fail(k, "times must increase strictly from row to row");
            m.table.push_back({row[0], row[1], row[2], row[3], row[4]});
        }
    }
    return m;
}

}  // namespace

OversetCase parse_overset_case(Config& cfg) {
    OversetCase c;
    const std::string stem =
        cfg.file().empty() ? "case" : std::filesystem::path(cfg.file()).stem().string();
    c.name = cfg.get_or<std::string>("name", stem);
    const std::string mode = cfg.get_enum_or("mode", {"ugks", "overset"}, "ugks");
    if (mode != "overset") cfg.fail("mode", "expected 'overset' for an overset case");

    c.layer_spacing = cfg.get<double>("overset.layer_spacing");
    cfg.check_range("overset.layer_spacing", c.layer_spacing, 0, kInf, true, true);
    c.leaf_size = cfg.get_or<int>("overset.leaf_size", 3);
    cfg.check_range("overset.leaf_size", c.leaf_size, 1, 16);
    c.advancing_front = cfg.get_or<bool>("overset.advancing_front", true);
    c.backend = cfg.get_enum_or("overset.backend", {"auto", "host", "device"}, "auto");
    c.hole_cut = cfg.get_enum_or("overset.hole_cut", {"auto", "off"}, "auto");
    if (c.backend == "device" && !device_available())
        cfg.fail("overset.backend",
                 "'device' needs a CUDA build (-DUGKS_BACKEND=cuda) and a visible CUDA device");

    if (!cfg.is_sequence("overset.grids") || cfg.sequence_size("overset.grids") == 0)
        cfg.fail("overset.grids",
                 "expected a non-empty list of grids {name, mesh, layer, walls, "
                 "motion}");
    std::set<std::string> names;
    for (std::size_t i = 0; i < cfg.sequence_size("overset.grids"); ++i) {
        const std::string b = "overset.grids." + std::to_string(i);
        if (!cfg.is_map(b)) cfg.fail(b, "expected a map {name, mesh, layer, walls, motion}");
        GridSpec g;
        g.name = cfg.get<std::string>(b + ".name");
        if (!valid_name(g.name))
            cfg.fail(b + ".name",
                     "grid names use letters, digits, '_' and '-' only, got '" + g.name + "'");
        if (!names.insert(g.name).second)
            cfg.fail(b + ".name", "grid name '" + g.name + "' is used twice");
        if (!cfg.is_map(b + ".mesh"))
            cfg.fail(b + ".mesh", "expected a mesh section {source: box | gmsh | cgns, ...}");
        g.mesh = parse_mesh_config(cfg, b + ".mesh");
        g.layer = cfg.get_or<int>(b + ".layer", 0);
        cfg.check_range(b + ".layer", g.layer, 0, 1000);
        g.walls = cfg.get_or<std::vector<std::string>>(b + ".walls", {});
        g.motion = parse_motion(cfg, b + ".motion");
        c.grids.push_back(std::move(g));
    }

    c.steps = cfg.get_or<long>("time.steps", 0L);
    cfg.check_range("time.steps", static_cast<double>(c.steps), 0, 1e12);
    c.dt = cfg.get_or<double>("time.dt", 0.0);
    if (c.steps > 0) cfg.check_range("time.dt", c.dt, 0, kInf, true, true);
    c.output_directory = cfg.get_or<std::string>("output.directory", "output");
    if (c.output_directory.empty()) cfg.fail("output.directory", "the directory name is empty");
    c.output_every = cfg.get_or<long>("output.every", 1L);
    cfg.check_range("output.every", static_cast<double>(c.output_every), 0, 1e12);
    return c;
}

void check_case_meshes(Config& cfg, OversetCase& c, const std::vector<Mesh>& meshes) {
    bool any_wall = false;
    for (std::size_t i = 0; i < c.grids.size(); ++i) {
        const std::string b = "overset.grids." + std::to_string(i);
        GridSpec& g = c.grids[i];
        const Mesh& m = meshes[i];
        if (m.dim != 2 && m.dim != 3)
            cfg.fail(b + ".mesh",
                     "overset grids must be 2D or 3D, this mesh is " + std::to_string(m.dim) + "D");
        if (m.dim != meshes[0].dim)
            cfg.fail(b + ".mesh", "all grids must have the same dimension (grid '" +
                                      c.grids[0].name + "' is " + std::to_string(meshes[0].dim) +
                                      "D, this one " + std::to_string(m.dim) + "D)");
        // A walls entry that is no patch name but a pattern (docs/usage.md "Patch patterns") stands
        // for every patch it matches; each patch once, in the order of the entries.
        std::vector<std::string> walls;
        std::string list;
        for (const auto& p : m.patch_names) list += (list.empty() ? "" : ", ") + p;
        for (std::size_t w = 0; w < g.walls.size(); ++w) {
            const std::string& name = g.walls[w];
            std::vector<std::string> take;
            if (m.patch_index(name) >= 0) {
                take.push_back(name);
            } else if (is_patch_pattern(name)) {
                for (const auto& p : m.patch_names)
                    if (patch_pattern_match(name, p)) take.push_back(p);
                if (take.empty())
                    cfg.fail(b + ".walls." + std::to_string(w),
                             "pattern '" + name +
                                 "' matches no patch of this grid's mesh (patches: " + list + ")");
                std::string taken;
                for (const auto& p : take) taken += (taken.empty() ? "'" : ", '") + p + "'";
                log::info("{}.walls.{}: pattern '{}' takes patches {}", b, w, name, taken);
            } else {
                cfg.fail(
                    b + ".walls." + std::to_string(w),
                    "'" + name + "' is not a patch of this grid's mesh (patches: " + list + ")");
            }
            for (const auto& p : take)
                if (std::find(walls.begin(), walls.end(), p) == walls.end()) walls.push_back(p);
        }
        g.walls = walls;
        any_wall = any_wall || !g.walls.empty();
        if (m.dim == 2) {
            const Motion& mo = g.motion;
            const bool planar_axis = std::fabs(mo.axis[0]) < 1e-12 && std::fabs(mo.axis[1]) < 1e-12;
            if ((mo.type == Motion::Type::Rotation || mo.type == Motion::Type::Poses) &&
                !planar_axis)
                cfg.fail(b + ".motion.axis", "a 2D grid rotates about the z axis only ([0, 0, 1])");
            if (mo.type == Motion::Type::Translation && mo.velocity[2] != 0)
                cfg.fail(b + ".motion.velocity", "a 2D grid cannot move in z");
            for (std::size_t r = 0; r < mo.table.size(); ++r)
                if (mo.table[r][3] != 0)
                    cfg.fail(b + ".motion.table." + std::to_string(r),
                             "a 2D grid cannot move in z (shift_z must be 0)");
        }
    }
    if (!any_wall)
        cfg.fail("overset.grids", "no grid has wall patches (set 'walls' on the body grids)");
}

}  // namespace ugks::overset

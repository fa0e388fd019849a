#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string num(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string axis_list(int dim) { return dim == 1 ? "[x]" : dim == 2 ? "[x, y]" : "[x, y, z]"; }

// A per-axis list of `dim` numbers; when absent, `def` for every axis.
std::vector<double> axis_values(Config& cfg, const std::string& key, int dim, double def) {
    const std::vector<double> v =
        cfg.get_or<std::vector<double>>(key, std::vector<double>(dim, def));
    if (static_cast<int>(v.size()) != dim) {
        cfg.fail(key, "expected " + std::to_string(dim) + " values " + axis_list(dim) +
                          " for dim " + std::to_string(dim) + ", got " + std::to_string(v.size()));
    }
    return v;
}

BoxSpec parse_box(Config& cfg, const std::string& pre) {
    BoxSpec b;
    // dim defaults to the number of cell counts given, so "cells: [64, 64]" alone is a 2D box.
    const std::size_t n_given = cfg.sequence_size(pre + "box.cells");
    b.dim = cfg.get_or<int>(pre + "box.dim",
                            n_given >= 1 && n_given <= 3 ? static_cast<int>(n_given) : 2);
    cfg.check_range(pre + "box.dim", b.dim, 1, 3);

    const std::vector<int> cells = cfg.get<std::vector<int>>(pre + "box.cells");
    if (static_cast<int>(cells.size()) != b.dim) {
        cfg.fail(pre + "box.cells", "expected " + std::to_string(b.dim) + " cell counts " +
                                        axis_list(b.dim) + " for dim " + std::to_string(b.dim) +
                                        ", got " + std::to_string(cells.size()));
    }
    for (int d = 0; d < b.dim; ++d) {
        cfg.check_range(pre + "box.cells." + std::to_string(d), cells[d], 1, kInf);
        b.n[d] = cells[d];
    }

    const std::vector<double> lo = axis_values(cfg, pre + "box.lo", b.dim, 0.0);
    const std::vector<double> hi = axis_values(cfg, pre + "box.hi", b.dim, 1.0);
    for (int d = 0; d < b.dim; ++d) {
        if (!(hi[d] > lo[d])) {
            cfg.fail(pre + "box.hi", "hi[" + std::to_string(d) + "] = " + num(hi[d]) +
                                         " must be greater than lo[" + std::to_string(d) +
                                         "] = " + num(lo[d]));
        }
        b.lo[d] = lo[d];
        b.hi[d] = hi[d];
    }

    const std::vector<double> stretch = axis_values(cfg, pre + "box.stretch", b.dim, 1.0);
    for (int d = 0; d < b.dim; ++d) {
        cfg.check_range(pre + "box.stretch." + std::to_string(d), stretch[d], 0, kInf, true, true);
        b.stretch[d] = stretch[d];
    }
    b.stretch_symmetric = cfg.get_or<bool>(pre + "box.stretch_symmetric", false);

    static const std::vector<std::string> kTypes[3] = {
        {"segment"}, {"quad", "triangle"}, {"hexa", "tetra", "prism", "pyramid"}};
    b.cell_type = cfg.get_enum_or(pre + "box.cell_type", kTypes[b.dim - 1], kTypes[b.dim - 1][0]);
    return b;
}

}  // namespace

MeshConfig parse_mesh_config(Config& cfg, const std::string& section) {
    const std::string pre = section + ".";
    MeshConfig mc;
    mc.source = cfg.get_enum_or(pre + "source", {"box", "gmsh", "cgns"}, "box");
    mc.scale = cfg.get_or<double>(pre + "scale", 1.0);
    cfg.check_range(pre + "scale", mc.scale, 0, kInf, true, true);
    if (mc.source == "box") {
        mc.box = parse_box(cfg, pre);
        return mc;
    }
    const std::string file = cfg.get<std::string>(pre + "file");
    if (file.empty()) cfg.fail(pre + "file", "the mesh file name is empty");
    std::filesystem::path p(file);
    if (p.is_relative() && !cfg.file().empty()) {
        p = std::filesystem::path(cfg.file()).parent_path() / p;
    }
    mc.file = p.lexically_normal().string();
    std::error_code ec;
    if (const std::string why = input_file_problem(mc.file); !why.empty()) {
        cfg.fail(pre + "file", "mesh file '" + mc.file + "' " + why);
    }
    return mc;
}

Mesh load_mesh(const MeshConfig& mc) {
    Mesh mesh;
    std::string source;
    if (mc.source == "box") {
        BoxSpec spec = mc.box;
        for (int d = 0; d < 3; ++d) {
            spec.lo[d] *= mc.scale;
            spec.hi[d] *= mc.scale;
        }
        mesh = make_box(spec);
        source = "mesh.box";
    } else if (mc.source == "gmsh") {
        mesh = read_gmsh(mc.file, mc.scale);
        source = mc.file;
    } else if (mc.source == "cgns") {
        mesh = read_cgns(mc.file, mc.scale);
        source = mc.file;
    } else {
        UGKS_INPUT_ERROR("mesh.source: unknown mesh source '" << mc.source
                                                              << "' (box, gmsh or cgns)");
    }
    validate_mesh(mesh, source);
    return mesh;
}

}  // namespace ugks

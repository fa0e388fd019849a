// The `velocity` section of the case file. Kept apart from the grid code so that users of the grids
// alone do not pull in Config.
#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Path of entry d of a per-axis key: "velocity.counts.1" for a list, the key itself for a scalar.
std::string entry(const std::string& key, int d, bool list) {
    return list ? key + "." + std::to_string(d) : key;
}

// Per-axis values: a list of exactly `dim` entries, or one scalar for every axis. `def` (if given)
// is used when the key is absent and written into the resolved configuration.
template <class T>
std::array<T, 3> per_axis(Config& cfg, const std::string& key, int dim, const T* def, bool& list) {
    std::array<T, 3> out{};
    list = cfg.has(key) && cfg.is_sequence(key);
    if (list) {
        const auto v = cfg.get<std::vector<T>>(key);
        if (static_cast<int>(v.size()) != dim)
            cfg.fail(key, "expected " + std::to_string(dim) +
                              " values (one per velocity axis, velocity.dim = " +
                              std::to_string(dim) + "), got " + std::to_string(v.size()));
        for (int d = 0; d < dim; ++d) out[d] = v[d];
        return out;
    }
    const T value = (def != nullptr && !cfg.has(key)) ? cfg.get_or<T>(key, *def) : cfg.get<T>(key);
    for (int d = 0; d < dim; ++d) out[d] = value;
    return out;
}

std::string folder_of(const std::string& file) {
    const auto slash = file.find_last_of('/');
    return slash == std::string::npos ? std::string() : file.substr(0, slash + 1);
}

}  // namespace

VelocityConfig parse_velocity_config(Config& cfg, int mesh_dim) {
    VelocityConfig vc;
    vc.type = cfg.get_enum_or("velocity.type",
                              {"gauss_hermite", "half_range_gauss_hermite", "newton_cotes", "file",
                               "nonuniform", "unstructured"},
                              "gauss_hermite");
    vc.dim = cfg.get_or<int>("velocity.dim", mesh_dim);
    cfg.check_range("velocity.dim", vc.dim, 1, 3);
    if (vc.dim < mesh_dim)
        cfg.fail("velocity.dim", "velocity.dim = " + std::to_string(vc.dim) +
                                     " is smaller than the mesh dimension " +
                                     std::to_string(mesh_dim) + " (a " + std::to_string(mesh_dim) +
                                     "D mesh needs at least " + std::to_string(mesh_dim) +
                                     " velocity components)");
    const int dim = vc.dim;
    const bool gauss = vc.type == "gauss_hermite" || vc.type == "half_range_gauss_hermite";
    bool list = false;

    if (gauss || vc.type == "newton_cotes") {
        vc.counts = per_axis<int>(cfg, "velocity.counts", dim, nullptr, list);
        for (int d = 0; d < dim; ++d) {
            const std::string path = entry("velocity.counts", d, list);
            const int n = vc.counts[d];
            if (vc.type == "gauss_hermite") {
                cfg.check_range(path, n, 1, 500);
            } else if (vc.type == "half_range_gauss_hermite") {
                cfg.check_range(path, n, 2, 400);
                if (n % 2 != 0)
                    cfg.fail(
                        path,
                        "half_range_gauss_hermite needs an even number of points per axis, got " +
                            std::to_string(n));
            } else if (n < 5 || (n - 1) % 4 != 0) {
                cfg.fail(path,
                         "newton_cotes (composite Boole) needs 4m+1 points per axis (5, 9, 13, "
                         "...), got " +
                             std::to_string(n));
            }
        }
    }
    if (gauss) {
        const double one = 1.0, zero = 0.0;
        vc.scale = per_axis<double>(cfg, "velocity.scale", dim, &one, list);
        for (int d = 0; d < dim; ++d)
            cfg.check_range(entry("velocity.scale", d, list), vc.scale[d], 0, kInf, true, true);
        vc.offset = per_axis<double>(cfg, "velocity.offset", dim, &zero, list);
        for (int d = 0; d < dim; ++d)
            cfg.check_range(entry("velocity.offset", d, list), vc.offset[d], -kInf, kInf, true,
                            true);
    }
    if (vc.type == "newton_cotes" || vc.type == "nonuniform") {
        bool lo_list = false, hi_list = false;
        vc.lo = per_axis<double>(cfg, "velocity.lo", dim, nullptr, lo_list);
        vc.hi = per_axis<double>(cfg, "velocity.hi", dim, nullptr, hi_list);
        for (int d = 0; d < dim; ++d) {
            cfg.check_range(entry("velocity.lo", d, lo_list), vc.lo[d], -kInf, kInf, true, true);
            cfg.check_range(entry("velocity.hi", d, hi_list), vc.hi[d], -kInf, kInf, true, true);
            if (!(vc.hi[d] > vc.lo[d]))
                cfg.fail(entry("velocity.hi", d, hi_list),
                         "velocity.hi must be > velocity.lo on every axis; axis " +
                             std::to_string(d) + " has lo = " + std::to_string(vc.lo[d]) +
                             ", hi = " + std::to_string(vc.hi[d]));
        }
    }
    if (vc.type == "file") {
        const std::string name = cfg.get<std::string>("velocity.file");
        if (name.empty()) cfg.fail("velocity.file", "empty file name");
        vc.file = name[0] == '/' ? name : folder_of(cfg.file()) + name;
        // One stat first: a FIFO would block the open, a directory would read as empty.
        if (const std::string why = input_file_problem(vc.file); !why.empty())
            cfg.fail("velocity.file", "velocity file '" + vc.file + "' " + why);
        if (!std::ifstream(vc.file))
            cfg.fail("velocity.file", "cannot open velocity file '" + vc.file + "'");
    }
    if (vc.type == "nonuniform") {
        const std::size_t nc =
            cfg.has("velocity.refine.centres") ? cfg.sequence_size("velocity.refine.centres") : 0;
        if (cfg.has("velocity.refine.centres") && !cfg.is_sequence("velocity.refine.centres"))
            cfg.fail("velocity.refine.centres", "expected a list of points [[u_x, u_y, u_z], ...]");
        for (std::size_t j = 0; j < nc; ++j) {
            const std::string path = "velocity.refine.centres." + std::to_string(j);
            const auto c = cfg.get<std::vector<double>>(path);
            if (static_cast<int>(c.size()) != dim)
                cfg.fail(path, "a refinement centre needs " + std::to_string(dim) +
                                   " components (velocity.dim), got " + std::to_string(c.size()));
            Vec3 p{0, 0, 0};
            for (int d = 0; d < dim; ++d) {
                if (!std::isfinite(c[d])) cfg.fail(path, "non-finite component");
                p[d] = c[d];
            }
            vc.refine_centres.push_back(p);
        }
        vc.refine_width = cfg.get_or<double>("velocity.refine.width", 1.0);
        cfg.check_range("velocity.refine.width", vc.refine_width, 0, kInf, true, true);
        vc.refine_growth = cfg.get_or<double>("velocity.refine.growth", 0.25);
        cfg.check_range("velocity.refine.growth", vc.refine_growth, 0, kInf, true, true);
        vc.target_points = cfg.get<std::int64_t>("velocity.target_points");
        cfg.check_range("velocity.target_points", static_cast<double>(vc.target_points), 1, 1e9);
    }
    if (vc.type == "unstructured") {
        const std::string key = "velocity.maxwellians";
        if (!cfg.has(key)) (void)cfg.get<std::string>(key);  // "key ... is required" with location
        if (!cfg.is_sequence(key))
            cfg.fail(key, "expected a list of Maxwellians [{U: [u_x, ...], T: T}, ...]");
        const std::size_t n = cfg.sequence_size(key);
        if (n < 1 || n > 4)
            cfg.fail(key, "expected 1 to 4 Maxwellians (free stream, wall, ...), got " +
                              std::to_string(n));
        for (std::size_t a = 0; a < n; ++a) {
            const std::string path = key + "." + std::to_string(a);
            if (!cfg.is_map(path))
                cfg.fail(path,
                         "expected a map {U: [u_x, ...], T: T} (velocity and temperature, "
                         "nondimensional like every velocity key)");
            VelocityMaxwellian M;
            const auto U = cfg.get<std::vector<double>>(path + ".U");
            if (static_cast<int>(U.size()) != dim)
                cfg.fail(path + ".U", "expected " + std::to_string(dim) +
                                          " components (velocity.dim), got " +
                                          std::to_string(U.size()));
            for (int d = 0; d < dim; ++d) {
                if (!std::isfinite(U[d])) cfg.fail(path + ".U", "non-finite component");
                M.U[d] = U[d];
            }
            M.T = cfg.get<double>(path + ".T");
            cfg.check_range(path + ".T", M.T, 0, kInf, true, true);
            for (std::size_t b = 0; b < a; ++b)
                if (vc.maxwellians[b].U == M.U && vc.maxwellians[b].T == M.T)
                    cfg.fail(path, "the same Maxwellian as " + key + "." + std::to_string(b));
            vc.maxwellians.push_back(M);
        }
        vc.extent = cfg.get_or<double>("velocity.extent", 5.0);
        cfg.check_range("velocity.extent", vc.extent, 2, 20);
        vc.growth = cfg.get_or<double>("velocity.growth", 0.5);
        cfg.check_range("velocity.growth", vc.growth, 0, 10, true);
        vc.target_points = cfg.get<std::int64_t>("velocity.target_points");
        cfg.check_range("velocity.target_points", static_cast<double>(vc.target_points), 100, 1e9);
        // The case check estimates the size from the counts before the grid is built.
        vc.counts = {static_cast<int>(vc.target_points), 1, 1};
    }
    return vc;
}

}  // namespace ugks

#include "ugks/solver/boundary_config.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/expression.hpp"
#include "ugks/core/log.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {

struct WallValues::Impl {
    const BoundaryCondition* bc = nullptr;
    std::optional<Expression> T;
    std::array<std::optional<Expression>, 3> U;
};

WallValues::WallValues(const BoundaryCondition& bc) : m(std::make_unique<Impl>()) {
    m->bc = &bc;
    const std::string base = "boundaries." + (bc.key.empty() ? bc.patch : bc.key);
    if (!bc.T_expr.empty()) m->T.emplace(bc.T_expr, base + ".T");
    for (int d = 0; d < 3; ++d)
        if (!bc.U_expr[d].empty()) m->U[d].emplace(bc.U_expr[d], base + ".U." + std::to_string(d));
}

WallValues::~WallValues() = default;

namespace {
/// A point in the case's units (metres with `units: si`).
Vec3 case_position(const ReferenceState& r, const Vec3& x) {
    return r.si_input ? Vec3{r.si_length(x[0]), r.si_length(x[1]), r.si_length(x[2])} : x;
}
}  // namespace

double WallValues::T(const Vec3& x) const {
    if (!m->T) return m->bc->T;
    const Vec3 xc = case_position(m->bc->units, x);
    return m->bc->units.input_temperature(m->T->eval(xc[0], xc[1], xc[2]));
}

Vec3 WallValues::U(const Vec3& x) const {
    Vec3 U = m->bc->U;
    const Vec3 xc = case_position(m->bc->units, x);
    for (int d = 0; d < 3; ++d)
        if (m->U[d]) U[d] = m->bc->units.input_speed(m->U[d]->eval(xc[0], xc[1], xc[2]));
    return U;
}

std::vector<BoundaryCondition> parse_boundaries(Config& cfg, int velocity_dim,
                                                const ReferenceState& ref) {
    std::vector<BoundaryCondition> out;
    if (!cfg.has("boundaries")) return out;
    if (!cfg.is_map("boundaries"))
        cfg.fail("boundaries", "expected a map from patch name to condition");
    for (const auto& name : cfg.keys("boundaries")) {
        const std::string base = "boundaries." + name;
        if (!cfg.is_map(base)) cfg.fail(base, "expected a map with at least 'type'");
        BoundaryCondition bc;
        bc.patch = name;
        bc.key = name;
        bc.type = cfg.get_enum(base + ".type",
                               {"diffuse_wall", "specular_wall", "far_field", "inflow", "outflow",
                                "pressure_inlet", "pressure_outlet", "symmetry", "periodic"});
        if (bc.type == "specular_wall") {
            // a wall that reflects every molecule specularly: the diffuse wall with
            // accommodation 0 (its temperature and velocity play no part: no keys)
            bc.type = "diffuse_wall";
            bc.accommodation = 0.0;
            out.push_back(bc);
            continue;
        }
        // A scalar that is a number or an expression of x, y, z: constant ones are returned as
        // numbers (expr stays empty), the others are checked to parse and kept as text.
        auto read_field = [&](const std::string& key, std::string& expr) {
            if (cfg.is_sequence(key) || cfg.is_map(key))
                cfg.fail(key, "expected a number or an expression of x, y, z");
            const std::string text = cfg.get<std::string>(key);
            try {
                const Expression e(text, key);
                if (e.constant()) return e.eval(0, 0, 0);
            } catch (const InputError& err) {
                cfg.fail(key, err.what());
            }
            expr = text;
            return 0.0;
        };
        auto read_velocity = [&](const std::string& key) {
            Vec3 U = cfg.get_or<Vec3>(key, Vec3{0, 0, 0});
            for (int d = velocity_dim; d < 3; ++d)
                if (U[d] != 0.0)
                    cfg.fail(key, "component " + std::to_string(d) + " must be 0 with a " +
                                      std::to_string(velocity_dim) +
                                      "D velocity grid (velocity.dim)");
            return ref.input_velocity(U);
        };
        if (bc.type == "diffuse_wall") {
            bc.units = ref;
            bc.T = read_field(base + ".T", bc.T_expr);
            if (bc.T_expr.empty()) {
                cfg.check_range(base + ".T", bc.T, 0.0, HUGE_VAL, true);
                bc.T = ref.input_temperature(bc.T);
            }
            const std::string ukey = base + ".U";
            if (cfg.has(ukey) && !cfg.is_sequence(ukey))
                cfg.fail(ukey, "expected a list of up to 3 numbers or expressions of x, y, z");
            for (std::size_t d = 0; d < cfg.sequence_size(ukey); ++d) {
                const std::string ck = ukey + "." + std::to_string(d);
                if (d >= 3) cfg.fail(ck, "U has at most 3 components");
                const double u = read_field(ck, bc.U_expr[d]);
                if (static_cast<int>(d) >= velocity_dim && (u != 0.0 || !bc.U_expr[d].empty()))
                    cfg.fail(ukey, "component " + std::to_string(d) + " must be 0 with a " +
                                       std::to_string(velocity_dim) +
                                       "D velocity grid (velocity.dim)");
                bc.U[d] = ref.input_speed(u);
            }
            bc.accommodation = cfg.get_or<double>(base + ".accommodation", 1.0);
            cfg.check_range(base + ".accommodation", bc.accommodation, 0.0, 1.0);
        } else if (bc.type == "far_field" || bc.type == "inflow") {
            bc.rho = cfg.get<double>(base + ".rho");
            cfg.check_range(base + ".rho", bc.rho, 0.0, HUGE_VAL, true);
            bc.rho = ref.input_density(bc.rho);
            bc.T = cfg.get<double>(base + ".T");
            cfg.check_range(base + ".T", bc.T, 0.0, HUGE_VAL, true);
            bc.T = ref.input_temperature(bc.T);
            bc.U = read_velocity(base + ".U");
        } else if (bc.type == "pressure_inlet" || bc.type == "pressure_outlet") {
            bc.p = cfg.get<double>(base + ".p");
            cfg.check_range(base + ".p", bc.p, 0.0, HUGE_VAL, true);
            bc.p = ref.input_pressure(bc.p);
            if (bc.type == "pressure_inlet") {
                bc.T = cfg.get<double>(base + ".T");
                cfg.check_range(base + ".T", bc.T, 0.0, HUGE_VAL, true);
                bc.T = ref.input_temperature(bc.T);
            }
        } else if (bc.type == "periodic") {
            bc.partner = cfg.get<std::string>(base + ".partner");
            bc.pressure_ratio = cfg.get_or<double>(base + ".pressure_ratio", 1.0);
            cfg.check_range(base + ".pressure_ratio", bc.pressure_ratio, 0.0, HUGE_VAL, true);
        }
        out.push_back(bc);
    }
    return out;
}

namespace {
std::string quoted_list(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "'" : ", '") + x + "'";
    return s;
}

// Replace the pattern entries by one copy per patch they take (docs/usage.md "Patch patterns").
void expand_patterns(std::vector<BoundaryCondition>& bcs, const Mesh& mesh, const Config& cfg,
                     const std::string& source) {
    std::set<std::string> exact;
    for (const auto& bc : bcs)
        if (mesh.patch_index(bc.key) >= 0) exact.insert(bc.key);
    // the patches each pattern entry takes, in mesh order
    std::vector<std::vector<std::string>> takes(bcs.size());
    for (const std::string& p : mesh.patch_names) {
        if (exact.count(p)) continue;
        std::vector<std::size_t> hits;
        for (std::size_t b = 0; b < bcs.size(); ++b)
            if (!exact.count(bcs[b].key) && is_patch_pattern(bcs[b].key) &&
                patch_pattern_match(bcs[b].key, p))
                hits.push_back(b);
        if (hits.size() > 1) {
            std::vector<std::string> keys;
            for (std::size_t b : hits) keys.push_back(bcs[b].key);
            cfg.fail("boundaries." + bcs[hits[1]].key,
                     "mesh patch '" + p + "' of " + source + " matches the patterns " +
                         quoted_list(keys) +
                         "; a patch may match only one pattern (give it an entry of its own "
                         "name, which wins over patterns, or narrow the patterns)");
        }
        if (hits.size() == 1) takes[hits[0]].push_back(p);
    }
    std::vector<BoundaryCondition> out;
    for (std::size_t b = 0; b < bcs.size(); ++b) {
        const BoundaryCondition& bc = bcs[b];
        if (exact.count(bc.key) || !is_patch_pattern(bc.key)) {
            out.push_back(bc);
            continue;
        }
        const std::string key = "boundaries." + bc.key;
        if (bc.type == "periodic")
            cfg.fail(key,
                     "a periodic entry must name its patch, not a pattern (each periodic "
                     "patch has its own partner)");
        std::vector<std::string> matched;
        for (const std::string& p : mesh.patch_names)
            if (patch_pattern_match(bc.key, p)) matched.push_back(p);
        if (matched.empty())
            cfg.fail(key, "pattern '" + bc.key + "' matches no patch of the mesh " + source +
                              " (its patches: " + quoted_list(mesh.patch_names) + ")");
        if (takes[b].empty()) {
            log::info(
                "boundaries.{}: takes no patch (the patches it matches, {}, have entries of "
                "their own)",
                bc.key, quoted_list(matched));
            continue;
        }
        log::info("boundaries.{}: takes patches {}", bc.key, quoted_list(takes[b]));
        for (const std::string& p : takes[b]) {
            BoundaryCondition copy = bc;
            copy.patch = p;
            out.push_back(copy);
        }
    }
    bcs = std::move(out);
}
}  // namespace

std::array<bool, 3> check_boundaries(std::vector<BoundaryCondition>& bcs, const Mesh& mesh,
                                     const Config& cfg, const std::string& source) {
    expand_patterns(bcs, mesh, cfg, source);
    std::array<bool, 3> mirrors{false, false, false};
    std::map<std::string, BoundaryCondition*> by_name;
    for (auto& bc : bcs) by_name[bc.patch] = &bc;
    std::vector<std::string> missing_in_case, missing_in_mesh;
    for (const auto& p : mesh.patch_names)
        if (!by_name.count(p)) missing_in_case.push_back(p);
    for (const auto& bc : bcs)
        if (mesh.patch_index(bc.patch) < 0) missing_in_mesh.push_back(bc.patch);
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "'" : ", '") + x + "'";
        return s;
    };
    std::string all_mesh = join(mesh.patch_names);
    if (!missing_in_mesh.empty())
        cfg.fail("boundaries." + by_name[missing_in_mesh.front()]->key,
                 "patch " + join(missing_in_mesh) + " does not exist in the mesh " + source +
                     " (its patches: " + all_mesh + ")");
    if (!missing_in_case.empty())
        UGKS_INPUT_ERROR(source << ": mesh patch " << join(missing_in_case)
                                << " has no boundary condition in section 'boundaries' of "
                                << cfg.file());

    // Geometry per patch: face count, area, normals.
    const int np = static_cast<int>(mesh.patch_names.size());
    std::vector<double> area(np, 0.0);
    std::vector<index_t> count(np, 0);
    std::vector<Vec3> n_first(np, Vec3{0, 0, 0});
    std::vector<bool> planar(np, true);
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        const int p = mesh.face_patch[f];
        if (p < 0) continue;
        const Vec3& n = mesh.face_normal[f];
        if (count[p] == 0)
            n_first[p] = n;
        else if (std::abs(n[0] * n_first[p][0] + n[1] * n_first[p][1] + n[2] * n_first[p][2] -
                          1.0) > 1e-8)
            planar[p] = false;
        ++count[p];
        area[p] += mesh.face_area[f];
    }
    for (auto& bc : bcs) {
        const int p = mesh.patch_index(bc.patch);
        const std::string key = "boundaries." + bc.key;
        if (bc.reflects()) {
            // a plane normal to an axis reflects onto the grid's own mirror velocities; any other
            // patch interpolates (docs/formulation.md section 8.2b)
            int axis = -1;
            for (int d = 0; d < 3 && planar[p]; ++d)
                if (std::abs(std::abs(n_first[p][d]) - 1.0) < 1e-8) axis = d;
            bc.symmetry_axis = axis;
            bc.interpolated_mirror = axis < 0;
            if (axis >= 0) mirrors[axis] = true;
        }
        if (bc.type == "diffuse_wall") {
            // per face: a positive temperature and a tangential velocity (expressions evaluated
            // at the face centroids, on every rank alike: the global mesh)
            const WallValues wv(bc);
            for (index_t f = 0; f < mesh.n_faces(); ++f) {
                if (mesh.face_patch[f] != p) continue;
                const Vec3& n = mesh.face_normal[f];
                const Vec3& xf = mesh.face_centroid[f];
                const auto at = [&] {
                    return " at the face centroid (" + std::to_string(xf[0]) + ", " +
                           std::to_string(xf[1]) + ", " + std::to_string(xf[2]) + ")";
                };
                double T = 0;
                Vec3 U{0, 0, 0};
                try {
                    T = wv.T(xf);
                    U = wv.U(xf);
                } catch (const InputError& e) {
                    cfg.fail(key, std::string(e.what()) + at());
                }
                if (!(T > 0.0))
                    cfg.fail(key + ".T",
                             "wall temperature " + std::to_string(T) + " is not positive" + at());
                const double un = U[0] * n[0] + U[1] * n[1] + U[2] * n[2];
                if (std::abs(un) >
                    1e-8 * (1.0 + std::sqrt(U[0] * U[0] + U[1] * U[1] + U[2] * U[2])))
                    cfg.fail(key + ".U", "wall velocity must be tangential to patch '" + bc.patch +
                                             "' (U.n = " + std::to_string(un) + at() + ")");
            }
        } else if (bc.type == "periodic") {
            auto it = by_name.find(bc.partner);
            if (it == by_name.end() || it->second->type != "periodic" ||
                it->second->partner != bc.patch)
                cfg.fail(key + ".partner", "partner '" + bc.partner +
                                               "' must be a periodic patch whose partner is '" +
                                               bc.patch + "'");
            const int q = mesh.patch_index(bc.partner);
            if (count[p] != count[q] || std::abs(area[p] - area[q]) > 1e-10 * (area[p] + area[q]))
                cfg.fail(key + ".partner", "periodic patches '" + bc.patch + "' and '" +
                                               bc.partner + "' differ in face count or area");
            if (bc.pressure_ratio != 1.0 && it->second->pressure_ratio != 1.0)
                cfg.fail(key + ".pressure_ratio",
                         "both '" + bc.patch + "' and its partner '" + bc.partner +
                             "' set a pressure_ratio; set it on one patch of the pair");
        }
    }
    return mirrors;
}

void resolve_reflections(std::vector<BoundaryCondition>& bcs, const VelocityGrid& grid,
                         std::array<bool, 3>& mirrors, const Config& cfg) {
    const char* names[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
        if (!mirrors[d] || !grid.is_tensor()) continue;
        // the tolerance of make_velocity_blocks' mirror matching
        const std::vector<double>& x = grid.axis_nodes[d];
        const std::vector<double>& w = grid.axis_weights[d];
        double umax = 1.0;
        for (double v : x) umax = std::max(umax, std::abs(v));
        bool symmetric = true;
        for (std::size_t i = 0, n = x.size(); i < n && symmetric; ++i)
            symmetric = std::abs(x[i] + x[n - 1 - i]) <= 1e-9 * umax &&
                        std::abs(w[i] - w[n - 1 - i]) <= 1e-9 * std::abs(w[i]);
        if (symmetric) continue;
        mirrors[d] = false;
        for (auto& bc : bcs)
            if (bc.reflects() && bc.symmetry_axis == d && !bc.interpolated_mirror) {
                bc.interpolated_mirror = true;
                log::info(
                    "boundaries.{}: the velocity grid is not symmetric about u_{} = 0; the "
                    "specular reflection interpolates in velocity space",
                    bc.patch, names[d]);
            }
    }
    for (const auto& bc : bcs)
        if (bc.reflects() && bc.interpolated_mirror && !grid.is_tensor())
            cfg.fail("boundaries." + bc.key + (bc.type == "symmetry" ? ".type" : ".accommodation"),
                     "patch '" + bc.patch +
                         "' reflects specularly about a plane that is not a mirror plane of the "
                         "velocity grid, which needs a tensor velocity grid to interpolate on "
                         "(velocity.type '" +
                         grid.kind + "' is a point list)");
}

std::vector<double> periodic_jump_scales(const std::vector<BoundaryCondition>& bcs) {
    std::map<std::string, const BoundaryCondition*> by_name;
    for (const auto& bc : bcs) by_name[bc.patch] = &bc;
    std::vector<double> out;
    for (const auto& [a, b] : periodic_pairs(bcs)) {
        const double ra = by_name.at(a)->pressure_ratio, rb = by_name.at(b)->pressure_ratio;
        out.push_back(ra != 1.0 ? ra : 1.0 / rb);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> periodic_pairs(
    const std::vector<BoundaryCondition>& bcs) {
    std::vector<std::pair<std::string, std::string>> out;
    std::set<std::string> seen;
    for (const auto& bc : bcs) {
        if (bc.type != "periodic" || seen.count(bc.patch)) continue;
        seen.insert(bc.patch);
        seen.insert(bc.partner);
        out.emplace_back(bc.patch, bc.partner);
    }
    return out;
}

}  // namespace ugks

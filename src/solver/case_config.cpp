#include "ugks/solver/case_config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/device/capabilities.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks {

namespace {

/// A key of the case that does not apply to this run (`what` says when it does): an input error,
/// unless the key that decides, `decider`, comes from --set (switching a case's mode on the command
/// line, e.g. --set time.mode=transient for a steady case): then it is ignored with a note.
void not_applicable(Config& cfg, const std::string& key, const std::string& decider,
                    const std::string& what) {
    if (!cfg.has(key)) return;
    const std::string from = cfg.location(decider);
    if (from.rfind("--set ", 0) != 0) cfg.fail(key, what);
    cfg.ignore(key);
    log::info("note: {} ({}) is ignored: it {}, and {} comes from {}", key, cfg.location(key), what,
              decider, from);
}

/// `output.surface` (SurfaceConfig): lengths, areas and the centre in the case's units.
void parse_surface_section(Config& cfg, const ReferenceState& ref, SurfaceConfig& sc) {
    const std::string b = "output.surface";
    const double L = ref.si_input ? ref.length : 1.0;
    sc.reference_area = cfg.get_or<double>(b + ".reference_area", L * L) / (L * L);
    cfg.check_range(b + ".reference_area", sc.reference_area, 1e-300, 1e300);
    sc.reference_length = cfg.get_or<double>(b + ".reference_length", L) / L;
    cfg.check_range(b + ".reference_length", sc.reference_length, 1e-300, 1e300);
    sc.moment_center = ref.input_position(cfg.get_or<Vec3>(b + ".moment_center", Vec3{0, 0, 0}));
    const bool angles = cfg.has(b + ".angle_of_attack") || cfg.has(b + ".sideslip");
    if (angles) {
        for (const char* k : {".drag_direction", ".lift_direction"})
            if (cfg.has(b + k))
                cfg.fail(b + k,
                         "give either the directions or angle_of_attack / sideslip, not both");
        const double kDeg = 3.14159265358979323846 / 180.0;
        const double a = cfg.get_or<double>(b + ".angle_of_attack", 0.0);
        const double s = cfg.get_or<double>(b + ".sideslip", 0.0);
        cfg.check_range(b + ".angle_of_attack", a, -180.0, 180.0);
        cfg.check_range(b + ".sideslip", s, -90.0, 90.0);
        // Body axes x (forward) and y (up): the wind along (cos a cos s, sin a cos s, sin s), the
        // lift normal to it in the x-y plane.
        sc.drag_direction = {std::cos(a * kDeg) * std::cos(s * kDeg),
                             std::sin(a * kDeg) * std::cos(s * kDeg), std::sin(s * kDeg)};
        sc.lift_direction = {-std::sin(a * kDeg), std::cos(a * kDeg), 0.0};
    } else {
        const bool drag_given = cfg.has(b + ".drag_direction");
        sc.drag_direction = cfg.get_or<Vec3>(b + ".drag_direction", Vec3{0, 0, 0});
        sc.lift_direction = cfg.get_or<Vec3>(b + ".lift_direction", Vec3{0, 1, 0});
        const Vec3& d = sc.drag_direction;
        const Vec3& l = sc.lift_direction;
        const double nd = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const double nl = std::sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        if (drag_given && !(nd > 0)) cfg.fail(b + ".drag_direction", "must not be zero");
        if (!(nl > 0)) cfg.fail(b + ".lift_direction", "must not be zero");
        if (nd > 0 && std::abs(d[0] * l[0] + d[1] * l[1] + d[2] * l[2]) > (1.0 - 1e-9) * nd * nl)
            cfg.fail(b + ".lift_direction", "must not be parallel to the drag direction");
    }
    sc.symmetry = cfg.get_enum_or(b + ".symmetry", {"auto", "none"}, "auto");
}

}  // namespace

void parse_case_sections(Config& cfg, CaseSetup& s) {
    const std::string stem =
        cfg.file().empty() ? "case" : std::filesystem::path(cfg.file()).stem().string();
    s.name = cfg.get_or<std::string>("name", stem);
    s.mode = cfg.get_enum_or("mode", {"ugks", "overset"}, "ugks");
    if (s.mode == "overset")
        cfg.fail("mode", "overset mode is not available in this version of ugks_solver");

    // Gas, `units` and `reference` first: every dimensional value below is converted once, here,
    // with s.gas.ref (identity unless `units: si`); defaults are the reference state, so in si
    // mode they appear as SI values in the resolved configuration.
    s.gas = parse_gas(cfg);
    const ReferenceState& ref = s.gas.ref;
    const double rho_default = ref.si_input ? ref.density : 1.0;
    const double T_default = ref.si_input ? ref.temperature : 1.0;

    const double rho0 = cfg.get_or<double>("initial.rho", rho_default);
    cfg.check_range("initial.rho", rho0, 0.0, HUGE_VAL, true);
    const double T0 = cfg.get_or<double>("initial.T", T_default);
    cfg.check_range("initial.T", T0, 0.0, HUGE_VAL, true);
    const Vec3 U0 = cfg.get_or<Vec3>("initial.U", Vec3{0, 0, 0});
    s.initial.rho = ref.input_density(rho0);
    s.initial.T = ref.input_temperature(T0);
    s.initial.U = ref.input_velocity(U0);
    if (cfg.has("initial.regions") && !cfg.is_sequence("initial.regions"))
        cfg.fail("initial.regions", "expected a list of {lo, hi, rho, U, T}");
    for (std::size_t i = 0; i < cfg.sequence_size("initial.regions"); ++i) {
        const std::string b = "initial.regions." + std::to_string(i);
        InitialRegion r;
        r.lo = ref.input_position(cfg.get_or<Vec3>(b + ".lo", r.lo));
        r.hi = ref.input_position(cfg.get_or<Vec3>(b + ".hi", r.hi));
        for (int d = 0; d < 3; ++d)
            if (r.lo[d] > r.hi[d])
                cfg.fail(b + ".hi", "component " + std::to_string(d) + " is below lo's (" +
                                        std::to_string(r.hi[d]) + " < " + std::to_string(r.lo[d]) +
                                        "): the region holds no point");
        const double rho = cfg.get_or<double>(b + ".rho", rho0);
        cfg.check_range(b + ".rho", rho, 0.0, HUGE_VAL, true);
        const double T = cfg.get_or<double>(b + ".T", T0);
        cfg.check_range(b + ".T", T, 0.0, HUGE_VAL, true);
        r.state.rho = ref.input_density(rho);
        r.state.T = ref.input_temperature(T);
        r.state.U = ref.input_velocity(cfg.get_or<Vec3>(b + ".U", U0));
        s.initial_regions.push_back(r);
    }

    s.numerics.order = cfg.get_or<int>("numerics.order", 2);
    cfg.check_range("numerics.order", s.numerics.order, 1, 2);
    s.numerics.cfl = cfg.get_or<double>("numerics.cfl", s.numerics.order == 1 ? 0.8 : 0.5);
    cfg.check_range("numerics.cfl", s.numerics.cfl, 0.0, 1.0, true, false);
    s.numerics.limiter = cfg.get_enum_or(
        "numerics.limiter", {"venkatakrishnan", "barth_jespersen", "none"}, "venkatakrishnan");
    if (s.numerics.limiter == "venkatakrishnan") {
        s.numerics.venkatakrishnan_k = cfg.get_or<double>("numerics.venkatakrishnan_k", 1.0);
        cfg.check_range("numerics.venkatakrishnan_k", s.numerics.venkatakrishnan_k, 0.0, 1e6);
    }
    s.numerics.fp32_storage =
        cfg.get_enum_or("numerics.storage", {"fp64", "fp32"}, "fp64") == "fp32";

    s.time.steps = cfg.get_or<long>("time.steps", 1000);
    cfg.check_range("time.steps", static_cast<double>(s.time.steps), 0, 1e15);
    s.time.end_time = cfg.get_or<double>("time.end_time", 0.0);
    cfg.check_range("time.end_time", s.time.end_time, 0.0, HUGE_VAL);
    s.time.end_time = ref.input_time(s.time.end_time);
    s.time.steady_tolerance = cfg.get_or<double>("time.steady_tolerance", 0.0);
    cfg.check_range("time.steady_tolerance", s.time.steady_tolerance, 0.0, HUGE_VAL);
    // Steady-state acceleration (issue 8, docs/steady.md): local time steps (both backends).
    s.time.mode = cfg.get_enum_or("time.mode", {"transient", "steady"}, "transient");
    if (s.time.steady() && s.time.end_time > 0)
        cfg.fail("time.end_time",
                 "has no meaning with time.mode: steady (local time steps, no "
                 "physical time); stop with time.steps or time.steady_tolerance");
    s.time.monitor_tolerance = cfg.get_or<double>("time.monitor_tolerance", 0.0);
    cfg.check_range("time.monitor_tolerance", s.time.monitor_tolerance, 0.0, HUGE_VAL);
    s.time.monitor_window = cfg.get_or<long>("time.monitor_window", 100);
    cfg.check_range("time.monitor_window", static_cast<double>(s.time.monitor_window), 1, 1e9);
    if (s.time.steady()) {
        s.time.divergence_factor = cfg.get_or<double>("time.divergence_factor", 1.0e4);
        if (s.time.divergence_factor != 0.0)
            cfg.check_range("time.divergence_factor", s.time.divergence_factor, 1.0, HUGE_VAL);
        s.time.stagnation_window = cfg.get_or<long>("time.stagnation_window", 1000);
        cfg.check_range("time.stagnation_window", static_cast<double>(s.time.stagnation_window), 0,
                        1e12);
    } else {
        for (const char* k : {"time.divergence_factor", "time.stagnation_window"})
            not_applicable(cfg, k, "time.mode", "applies only to time.mode: steady");
    }
    if (s.time.steady()) {
        s.time.steady_method =
            cfg.get_enum_or("time.steady_method", {"local", "implicit"}, "local");
        if (s.time.implicit()) {
            s.time.implicit_cfl = cfg.get_or<double>("time.implicit.cfl", 1.0e3);
            cfg.check_range("time.implicit.cfl", s.time.implicit_cfl, 1e-3, 1e12);
            s.time.macro_sweeps = cfg.get_or<int>("time.implicit.macro_sweeps", 2);
            cfg.check_range("time.implicit.macro_sweeps", s.time.macro_sweeps, 0, 1000);
            // The CUDA backend relaxes a colour's cells in parallel: only the colored ordering
            // (docs/steady.md section 7.5); natural is the CPU backend's sequential sweep.
            constexpr bool gpu = device::capabilities().gpu;
            s.time.implicit_ordering = cfg.get_enum_or(
                "time.implicit.ordering", {"natural", "colored"}, gpu ? "colored" : "natural");
            if (gpu && s.time.implicit_ordering == "natural")
                cfg.fail("time.implicit.ordering",
                         "'natural' (a sequential sweep) is implemented on the CPU backend only "
                         "(UGKS_BACKEND=cpu); the CUDA backend runs 'colored'");
            // a colored sweep carries information one colour at a time: twice the pairs
            // (docs/steady.md section 7.5, defaults measured in section 7.11)
            const bool colored = s.time.implicit_ordering == "colored";
            s.time.micro_sweeps = cfg.get_or<int>("time.implicit.micro_sweeps", colored ? 8 : 4);
            cfg.check_range("time.implicit.micro_sweeps", s.time.micro_sweeps, 1, 1000);
            s.time.macro_solver =
                cfg.get_enum_or("time.implicit.macro_solver", {"sgs", "gmres"}, "gmres");
            const bool gmres = s.time.macro_solver == "gmres";
            s.time.viscous_bound =
                cfg.get_or<double>("time.implicit.viscous_bound", gmres ? 10.0 : 1.0);
            cfg.check_range("time.implicit.viscous_bound", s.time.viscous_bound, 1e-6, 1e300);
            if (gmres) {
                s.time.gmres_restart = cfg.get_or<int>("time.implicit.gmres_restart", 30);
                cfg.check_range("time.implicit.gmres_restart", s.time.gmres_restart, 1, 1000);
                s.time.gmres_max_iterations =
                    cfg.get_or<int>("time.implicit.gmres_max_iterations", 60);
                cfg.check_range("time.implicit.gmres_max_iterations", s.time.gmres_max_iterations,
                                1, 100000);
                s.time.gmres_tolerance = cfg.get_or<double>("time.implicit.gmres_tolerance", 1e-3);
                cfg.check_range("time.implicit.gmres_tolerance", s.time.gmres_tolerance, 1e-14,
                                0.999);
            } else {
                for (const char* k :
                     {"time.implicit.gmres_restart", "time.implicit.gmres_max_iterations",
                      "time.implicit.gmres_tolerance"})
                    not_applicable(cfg, k, "time.implicit.macro_solver",
                                   "applies only to time.implicit.macro_solver: gmres");
            }
        }
    }
    if (!s.time.implicit())
        not_applicable(cfg, "time.implicit", s.time.steady() ? "time.steady_method" : "time.mode",
                       "applies only to time.mode: steady with time.steady_method: implicit");
    if (!s.time.steady())
        not_applicable(cfg, "time.steady_method", "time.mode", "applies only to time.mode: steady");
    // Limiter freezing (docs/steady.md section 7.10): steady runs of the limited second-order
    // scheme; on by default (auto) for the implicit iteration.
    const bool limited = s.numerics.order >= 2 && s.numerics.limiter != "none";
    if (s.time.steady()) {
        const std::string v = cfg.get_or<std::string>(
            "time.limiter_freeze", s.time.implicit() && limited ? "auto" : "off");
        if (v == "auto" || v == "off") {
            s.time.limiter_freeze = v;
        } else {
            std::size_t used = 0;
            long n = -1;
            try {
                n = std::stol(v, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != v.size() || n < 0)
                cfg.fail("time.limiter_freeze",
                         "expected auto, off or a step number (>= 0), got '" + v + "'");
            s.time.limiter_freeze = "step";
            s.time.limiter_freeze_step = n;
        }
        if (s.time.limiter_freeze != "off" && !limited && cfg.has("time.limiter_freeze"))
            cfg.fail("time.limiter_freeze",
                     "needs a limiter to freeze: numerics.order 2 and a numerics.limiter other "
                     "than none (this case has order " +
                         std::to_string(s.numerics.order) + ", limiter " + s.numerics.limiter +
                         ")");
        if (!limited) s.time.limiter_freeze = "off";
        s.time.limiter_freeze_window = cfg.get_or<long>("time.limiter_freeze_window", 20);
        cfg.check_range("time.limiter_freeze_window",
                        static_cast<double>(s.time.limiter_freeze_window), 1, 1e9);
    } else {
        for (const char* k : {"time.limiter_freeze", "time.limiter_freeze_window"})
            not_applicable(cfg, k, "time.mode", "applies only to time.mode: steady");
    }

    // an integer in [lo, hi] or auto (is_auto; the value is then fallback)
    auto int_or_auto = [&](const char* key, int fallback, int lo, int hi, bool& is_auto) {
        const std::string v = cfg.get_or<std::string>(key, std::to_string(fallback));
        is_auto = v == "auto";
        if (is_auto) return fallback;
        std::size_t used = 0;
        long n = 0;
        try {
            n = std::stol(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v.size() || v.empty())
            cfg.fail(key, "expected an integer or auto, got '" + v + "'");
        cfg.check_range(key, static_cast<double>(n), lo, hi);
        return static_cast<int>(n);
    };
    s.parallel.velocity_ranks =
        int_or_auto("parallel.velocity_ranks", 1, 1, 1 << 20, s.parallel.velocity_ranks_auto);
    s.parallel.block_size =
        int_or_auto("parallel.block_size", 64, 1, 1024, s.parallel.block_size_auto);
    s.parallel.halo =
        cfg.get_enum_or("parallel.halo", {"staged", "cuda_aware", "nccl", "auto"}, "auto");
    if (!device::capabilities().gpu &&
        (s.parallel.halo == "nccl" || s.parallel.halo == "cuda_aware"))
        cfg.fail("parallel.halo", "'" + s.parallel.halo +
                                      "' needs the CUDA backend (UGKS_BACKEND=cuda); the CPU "
                                      "backend accepts staged or auto");

    s.output.directory = cfg.get_or<std::string>("output.directory", "output");
    if (s.output.directory.empty()) cfg.fail("output.directory", "must not be empty");
    s.output.units = cfg.get_enum_or("output.units", {"si", "nondimensional"},
                                     ref.si_input ? "si" : "nondimensional");
    if (s.output.units == "si" && !s.gas.dimensional)
        cfg.fail("output.units",
                 "'si' needs the reference state: dimensional gas data (gas.species or "
                 "gas.molecular_mass with a 'reference' section); this case gives gas.Kn only");
    s.output.every = cfg.get_or<long>("output.every", 0);
    cfg.check_range("output.every", static_cast<double>(s.output.every), 0, 1e15);
    s.output.progress_seconds = cfg.get_or<double>("output.progress_seconds", 10.0);
    cfg.check_range("output.progress_seconds", s.output.progress_seconds, 0, 1e9);
    const std::size_t np = cfg.sequence_size("output.probes");
    if (cfg.has("output.probes") && !cfg.is_sequence("output.probes"))
        cfg.fail("output.probes", "expected a list of {name, from, to, points}");
    for (std::size_t i = 0; i < np; ++i) {
        const std::string b = "output.probes." + std::to_string(i);
        ProbeLine pl;
        pl.name = cfg.get<std::string>(b + ".name");
        if (pl.name.empty() || pl.name.find_first_of("/\\ ") != std::string::npos)
            cfg.fail(b + ".name", "must be a non-empty file-name-safe word");
        pl.from = ref.input_position(cfg.get<Vec3>(b + ".from"));
        pl.to = ref.input_position(cfg.get<Vec3>(b + ".to"));
        pl.points = cfg.get_or<int>(b + ".points", 101);
        cfg.check_range(b + ".points", pl.points, 2, 1e7);
        for (const auto& other : s.output.probes)
            if (other.name == pl.name)
                cfg.fail(b + ".name", "duplicate probe name '" + pl.name + "'");
        s.output.probes.push_back(pl);
    }

    parse_surface_section(cfg, ref, s.output.surface);

    s.checkpoint.every = cfg.get_or<long>("checkpoint.every", 0);
    cfg.check_range("checkpoint.every", static_cast<double>(s.checkpoint.every), 0, 1e15);
    s.checkpoint.every_minutes = cfg.get_or<double>("checkpoint.every_minutes", 0.0);
    cfg.check_range("checkpoint.every_minutes", s.checkpoint.every_minutes, 0.0, 1e9);
    s.checkpoint.keep = cfg.get_or<int>("checkpoint.keep", 2);
    cfg.check_range("checkpoint.keep", s.checkpoint.keep, 0, 1e6);

    s.mesh_config = parse_mesh_config(cfg);
    // Coordinates (box extents, mesh files after mesh.scale) are in metres: x_hat = x / L_ref.
    if (ref.si_input) s.mesh_config.scale /= ref.length;
}

void parse_velocity_section(Config& cfg, CaseSetup& s, int mesh_dim) {
    s.velocity_config = parse_velocity_config(cfg, mesh_dim);
    // Wall and inflow velocities may have components along every velocity axis (a 1D channel
    // with velocity.dim 2 carries a tangential wall speed: Couette flow); check_boundaries then
    // requires wall velocities tangential to their patch.
    s.boundaries = parse_boundaries(cfg, s.velocity_config.dim, s.gas.ref);
    // A body force along an axis the velocity grid resolves (a 1D channel with velocity.dim 2 can
    // be driven along the walls: force-driven Poiseuille flow).
    if (cfg.has("forces") && !cfg.is_map("forces"))
        cfg.fail("forces", "expected a map with 'acceleration: [a_x, a_y, a_z]'");
    if (cfg.has("forces")) {
        const Vec3 a = cfg.get_or<Vec3>("forces.acceleration", Vec3{0, 0, 0});
        for (int d = 0; d < 3; ++d) {
            cfg.check_range("forces.acceleration", a[d], -1e300, 1e300);
            if (d >= s.velocity_config.dim && a[d] != 0.0)
                cfg.fail("forces.acceleration", "component " + std::to_string(d) +
                                                    " must be 0 with a " +
                                                    std::to_string(s.velocity_config.dim) +
                                                    "D velocity grid (velocity.dim)");
            s.forces.acceleration[d] = s.gas.ref.input_acceleration(a[d]);
        }
    }
}

InitialState initial_state_at(const CaseSetup& s, const Vec3& x) {
    InitialState st = s.initial;
    for (const auto& r : s.initial_regions) {
        bool inside = true;
        for (int d = 0; d < 3; ++d) inside = inside && x[d] >= r.lo[d] && x[d] <= r.hi[d];
        if (inside) st = r.state;
    }
    return st;
}

}  // namespace ugks

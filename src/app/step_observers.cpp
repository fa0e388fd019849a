// The observers of the time loop (step_observers.hpp).
#include "ugks/app/step_observers.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ugks/app/output_units.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/io/fields_io.hpp"

namespace ugks {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
    if (g_stop_signal != 0 && sig == SIGINT) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    if (g_stop_signal == 0) g_stop_signal = sig;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The patches of the diffuse walls, in the order of the boundaries section.
std::vector<std::string> diffuse_wall_patches(const CaseSetup& s) {
    std::vector<std::string> out;
    for (const auto& bc : s.boundaries)
        if (bc.type == "diffuse_wall") out.push_back(bc.patch);
    return out;
}

/// The owned diffuse-wall faces with their time-averaged fluxes of the last step.
std::vector<SurfaceFace> wall_faces(const RunContext& ctx) {
    const LocalMesh& local = ctx.pb.local;
    std::vector<SurfaceFace> out;
    for (const auto& wd : ctx.solver.wall_data()) {
        const index_t f = wd.local_face;
        const int patch = local.mesh.face_patch[f];
        bool diffuse = false;
        for (const auto& bc : ctx.pb.setup.boundaries)
            if (bc.patch == local.mesh.patch_names[patch]) diffuse = bc.type == "diffuse_wall";
        if (!diffuse) continue;
        SurfaceFace sf;
        sf.global_face = local.global_face[f];
        sf.patch = patch;
        sf.centroid = local.mesh.face_centroid[f];
        sf.normal = local.mesh.face_normal[f];
        sf.area = local.mesh.face_area[f];
        sf.P = wd.P;
        sf.qw = wd.qw;
        out.push_back(sf);
    }
    return out;
}

/// Force on each of the diffuse-wall patches `walls` (3 per patch), summed over comm_x.
std::vector<double> patch_forces(const RunContext& ctx, const std::vector<std::string>& walls) {
    std::vector<double> pf(3 * walls.size(), 0.0);
    for (const auto& sf : wall_faces(ctx)) {
        const auto it =
            std::find(walls.begin(), walls.end(), ctx.pb.local.mesh.patch_names[sf.patch]);
        const std::size_t k = static_cast<std::size_t>(it - walls.begin());
        if (k < walls.size())
            for (int d = 0; d < 3; ++d) pf[3 * k + d] += sf.P[d] * sf.area;
    }
    MPI_Allreduce(MPI_IN_PLACE, pf.data(), static_cast<int>(pf.size()), MPI_DOUBLE, MPI_SUM,
                  ctx.pb.layout.comm_x);
    return pf;
}

/// Rows of an existing history.csv with step <= `step` (a restart continues the file).
std::vector<std::vector<double>> history_rows_until(const std::string& path, long step,
                                                    std::size_t ncol) {
    std::vector<std::vector<double>> rows;
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return rows;  // header
    while (std::getline(in, line)) {
        std::vector<double> row;
        std::istringstream ls(line);
        for (std::string cell; std::getline(ls, cell, ',');) {
            try {
                row.push_back(std::stod(cell));
            } catch (const std::exception&) {
                row.clear();
                break;
            }
        }
        if (row.size() == ncol && row[0] <= static_cast<double>(step)) rows.push_back(row);
    }
    return rows;
}

/// "1h02m", "3m05s", "12.3s".
std::string format_duration(double s) {
    if (!(s < 1e9)) return "?";
    if (s < 60) return fmt::format("{:.1f}s", s);
    const long t = static_cast<long>(s + 0.5);
    if (t < 3600) return fmt::format("{}m{:02d}s", t / 60, static_cast<int>(t % 60));
    return fmt::format("{}h{:02d}m", t / 3600, static_cast<int>((t % 3600) / 60));
}

/// Sample cell fields along probe lines: nearest owned cell centroid, then the global nearest over
/// comm. Every collective comes first, then rank 0 writes the files, so that a file it cannot
/// write (a directory in its place, a full disk) leaves no rank waiting (the caller agrees).
void write_probes(const OutputConfig& out, const std::string& dir, const LocalMesh& local,
                  const std::vector<CellField>& fields, double length_scale, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    struct Table {
        std::string path;
        std::vector<std::string> cols;
        std::vector<std::vector<double>> rows;
    };
    std::vector<Table> tables;
    for (const auto& probe : out.probes) {
        const auto pts = probe_points(probe.from, probe.to, probe.points);
        Table t{dir + "/probes_" + probe.name + ".csv", {"x", "y", "z", "cell"}, {}};
        // Components by axis: U_x U_y U_z, stress_xx stress_xy ... (the order of the fields).
        static const char* const kVector[3] = {"x", "y", "z"};
        static const char* const kTensor[6] = {"xx", "xy", "xz", "yy", "yz", "zz"};
        for (const auto& f : fields) {
            for (int k = 0; k < f.width; ++k)
                t.cols.push_back(f.width == 1   ? f.name
                                 : f.width == 3 ? f.name + "_" + kVector[k]
                                 : f.width == 6 ? f.name + "_" + kTensor[k]
                                                : f.name + "_" + std::to_string(k));
        }
        for (const auto& x : pts) {
            const NearestCell best = nearest_owned_cell(local, x, comm);
            const index_t cell = best.cell;
            std::vector<double> row{x[0] * length_scale, x[1] * length_scale, x[2] * length_scale};
            if (rank == best.rank) {
                row.push_back(static_cast<double>(local.global_cell[cell]));
                for (const auto& f : fields)
                    for (int k = 0; k < f.width; ++k) row.push_back(f.data[cell * f.width + k]);
            }
            int len = static_cast<int>(row.size());
            MPI_Bcast(&len, 1, MPI_INT, best.rank, comm);
            row.resize(len);
            MPI_Bcast(row.data(), len, MPI_DOUBLE, best.rank, comm);
            if (rank == 0) t.rows.push_back(std::move(row));
        }
        tables.push_back(std::move(t));
    }
    if (rank != 0) return;
    for (const Table& t : tables) {
        CsvWriter csv(t.path, t.cols);
        for (const auto& row : t.rows) csv.row(row);
    }
}

}  // namespace

SurfaceReference surface_reference(const CaseSetup& s, const Mesh& mesh) {
    // Reference state: the first far-field/inflow condition, else the initial state; when its
    // speed is zero the dynamic pressure uses the fastest wall (lid) speed.
    SurfaceReference ref;
    ref.rho_inf = s.initial.rho;
    ref.p_inf = s.initial.rho * s.initial.T / 2.0;
    ref.U_inf = s.initial.U;
    for (const auto& bc : s.boundaries)
        if (bc.type == "far_field" || bc.type == "inflow") {
            ref.rho_inf = bc.rho;
            ref.p_inf = bc.rho * bc.T / 2.0;
            ref.U_inf = bc.U;
            break;
        }
    double uw = 0.0;
    for (const auto& bc : s.boundaries)
        if (bc.type == "diffuse_wall")
            uw = std::max(uw, std::sqrt(bc.U[0] * bc.U[0] + bc.U[1] * bc.U[1] + bc.U[2] * bc.U[2]));
    ref.q_ref = 0.5 * ref.rho_inf * uw * uw;
    // Reference geometry (output.surface) and the symmetry planes of the body: one per symmetry
    // patch (an axis-aligned plane, checked with the mesh), at the position of its first face.
    const SurfaceConfig& sc = s.output.surface;
    ref.A_ref = sc.reference_area;
    ref.L_ref = sc.reference_length;
    ref.moment_center = sc.moment_center;
    ref.drag_dir = sc.drag_direction;
    ref.lift_dir = sc.lift_direction;
    if (sc.symmetry == "auto")
        for (const auto& bc : s.boundaries) {
            if (bc.type != "symmetry") continue;
            if (bc.symmetry_axis < 0) {
                log::info(
                    "output.surface.symmetry: symmetry patch '{}' is not a plane normal to an "
                    "axis and is not used as a mirror image of the body",
                    bc.patch);
                continue;
            }
            const int p = mesh.patch_index(bc.patch);
            bool seen = false;
            for (const SymmetryPlane& pl : ref.symmetry) seen = seen || pl.axis == bc.symmetry_axis;
            for (index_t f = 0; f < mesh.n_faces() && !seen; ++f)
                if (mesh.face_patch[f] == p) {
                    ref.symmetry.push_back(
                        {bc.symmetry_axis, mesh.face_centroid[f][bc.symmetry_axis]});
                    break;
                }
        }
    return ref;
}

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGTERM, SIGINT, SIGUSR1}) sigaction(sig, &sa, nullptr);
}

void block_stop_signals(bool block) {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGTERM, SIGINT, SIGUSR1}) sigaddset(&set, sig);
    pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

void restore_default_stop_handlers() {
    for (int sig : {SIGTERM, SIGINT, SIGUSR1}) std::signal(sig, SIG_DFL);
    if (const int sig = g_stop_signal) {
        g_stop_signal = 0;
        std::raise(sig);
    }
}

void check_stop_during_startup(const char* stage) {
    int sig = static_cast<int>(g_stop_signal);
    MPI_Allreduce(MPI_IN_PLACE, &sig, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (sig != 0) throw StoppedDuringStartup(sig, stage);
}

const char* signal_name(int sig) {
    switch (sig) {
        case SIGTERM:
            return "SIGTERM";
        case SIGINT:
            return "SIGINT";
        case SIGUSR1:
            return "SIGUSR1";
        default:
            return "a signal";
    }
}

// ---- history.csv ------------------------------------------------------------------------------

void HistoryObserver::on_start(const RunContext& ctx) {
    m_units = OutputUnits::of(ctx.pb.setup, ctx.pb.mesh.dim);
    m_ref = surface_reference(ctx.pb.setup, ctx.pb.mesh);
    m_units.convert(m_ref);
    const std::vector<std::string> cols{"step",      "time",      "dt",      "res_rho", "res_rhoU",
                                        "res_rhoE",  "wall_time", "wall_Fx", "wall_Fy", "wall_Fz",
                                        "wall_heat", "CD",        "CL",      "CS",      "Cm_x",
                                        "Cm_y",      "Cm_z"};
    const std::string path = ctx.dir + "/history.csv";
    // Rank 0 writes; every rank agrees on the outcome (an unwritable history.csv is exit 2 on all).
    run_collective(MPI_COMM_WORLD, [&] {
        if (ctx.pb.world_rank != 0) return;
        std::vector<std::vector<double>> kept;
        if (!ctx.restarted_from.empty())
            kept = history_rows_until(path, ctx.solver.step_count(), cols.size());
        m_csv = CsvWriter(path, cols);
        for (const auto& row : kept) m_csv.row(row);
    });
}

bool HistoryObserver::on_step(const RunContext& ctx, const StepResult& r) {
    const double wall_now = seconds_since(ctx.start.time);
    // force and heat load on the diffuse walls (the computed part), then the whole body's force
    // and moment (symmetry images included) for the coefficients
    double sums[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    BodyLoads body;
    std::vector<SurfaceFace> faces = wall_faces(ctx);
    m_units.convert(faces);
    for (const auto& sf : faces) {
        const Vec3 F{sf.P[0] * sf.area, sf.P[1] * sf.area, sf.P[2] * sf.area};
        for (int d = 0; d < 3; ++d) sums[d] += F[d];
        sums[3] += sf.qw * sf.area;
        add_body_loads(m_ref, sf.centroid, F, sf.qw * sf.area, sf.area, body);
    }
    for (int d = 0; d < 3; ++d) {
        sums[4 + d] = body.force[d];
        sums[7 + d] = body.moment[d];
    }
    sums[10] = body.heat;
    MPI_Allreduce(MPI_IN_PLACE, sums, 11, MPI_DOUBLE, MPI_SUM, ctx.pb.layout.comm_x);
    SurfaceTotals t;
    for (int d = 0; d < 3; ++d) {
        t.body.force[d] = sums[4 + d];
        t.body.moment[d] = sums[7 + d];
    }
    body_coefficients(m_ref, t);
    // A failed append (a full disk) is agreed on at once: one small reduction per step.
    run_collective(MPI_COMM_WORLD, [&] {
        if (ctx.pb.world_rank == 0)
            m_csv.row({static_cast<double>(ctx.solver.step_count()),
                       ctx.solver.time() * m_units.scale(Quantity::time),
                       r.dt * m_units.scale(Quantity::time), r.residual[0], r.residual[1],
                       r.residual[2], wall_now, sums[0], sums[1], sums[2], sums[3], t.CD, t.CL,
                       t.CS, t.Cm[0], t.Cm[1], t.Cm[2]});
    });
    return false;
}

// ---- progress line ----------------------------------------------------------------------------

void ProgressObserver::on_start(const RunContext& ctx) {
    m_first = ctx.solver.step_count();
    m_start = m_last = std::chrono::steady_clock::now();
}

bool ProgressObserver::on_step(const RunContext& ctx, const StepResult& r) {
    if (ctx.cl.quiet || ctx.pb.world_rank != 0) return false;
    const TimeConfig& tc = ctx.pb.setup.time;
    const long step = ctx.solver.step_count();
    const double time = ctx.solver.time();
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - m_last).count();
    const bool last = step >= tc.steps;
    if (step != m_first + 1 && !last && since < ctx.pb.setup.output.progress_seconds) return false;
    m_last = now;
    const double per_step =
        std::chrono::duration<double>(now - m_start).count() / static_cast<double>(step - m_first);
    double left_steps = static_cast<double>(tc.steps - step);
    if (tc.end_time > 0 && r.dt > 0)
        left_steps = std::min(left_steps, std::ceil((tc.end_time - time) / r.dt));
    const bool bound = tc.steady_tolerance > 0 || tc.monitor_tolerance > 0;
    log::info(
        "step {:8d}  t = {:.6e}  dt = {:.3e}  residuals rho {:.3e} rhoU {:.3e} rhoE {:.3e}  "
        "{:.3g} s/step  "
        "left {}{}",
        step, time, r.dt, r.residual[0], r.residual[1], r.residual[2], per_step,
        bound && left_steps > 0 ? "<= " : "", format_duration(left_steps * per_step));
    return false;
}

// ---- field output -----------------------------------------------------------------------------

namespace {
const char* const kMeshFile = "mesh.h5";
const char* const kSeriesFile = "fields.xdmf";

/// The numbered fields files of run `run_id` in `dir` with step <= `step`, ascending (rank 0).
std::vector<SeriesEntry> earlier_snapshots(const std::string& dir, const std::string& run_id,
                                           long step) {
    std::vector<SeriesEntry> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        long s = -1;
        if (name.size() != 16 || name.rfind("fields_", 0) != 0 || e.path().extension() != ".h5" ||
            std::sscanf(name.c_str(), "fields_%ld.h5", &s) != 1 || s > step)
            continue;
        try {
            if (read_string_attribute(e.path().string(), "run_id") != run_id) continue;
            out.push_back({name, s, read_double_attribute(e.path().string(), "time")});
        } catch (const InputError&) {
            // not one of this run's files (or damaged): not in the series
        }
    }
    std::sort(out.begin(), out.end(),
              [](const SeriesEntry& a, const SeriesEntry& b) { return a.step < b.step; });
    return out;
}
}  // namespace

void FieldOutputObserver::on_start(const RunContext& ctx) {
    ScopedTimer t("io");
    const Problem& pb = ctx.pb;
    const OutputUnits units = OutputUnits::of(pb.setup, pb.mesh.dim);
    FieldsMeta meta = units.file_meta(ctx.solver.fields());
    meta.run_id = ctx.run_id;
    run_collective(MPI_COMM_WORLD, [&] {
        if (pb.layout.q == 0)
            write_mesh_file(ctx.dir + "/" + kMeshFile, pb.layout.comm_x, pb.mesh, meta);
        if (pb.world_rank == 0 && !ctx.restarted_from.empty())
            m_series = earlier_snapshots(ctx.dir, ctx.run_id, ctx.solver.step_count());
    });
}

void FieldOutputObserver::write(const RunContext& ctx, const std::string& name) {
    ScopedTimer t("io");
    const Problem& pb = ctx.pb;
    const OutputUnits units = OutputUnits::of(pb.setup, pb.mesh.dim);
    const auto fields = units.convert(ctx.solver.fields());
    FieldsMeta meta = units.file_meta(fields);
    meta.config_yaml = pb.cfg.resolved_yaml();
    meta.step = ctx.solver.step_count();
    meta.time = ctx.solver.time() * units.scale(Quantity::time);
    meta.run_id = ctx.run_id;
    meta.mesh_file = kMeshFile;
    run_collective(MPI_COMM_WORLD, [&] {
        if (pb.layout.q == 0)
            write_fields(ctx.dir + "/" + name, pb.layout.comm_x, pb.mesh, pb.local, fields, meta);
    });
    // The series: numbered files in step order, the final state last unless a numbered file of
    // the same step is already there.
    if (pb.world_rank == 0 && (m_series.empty() || m_series.back().step < meta.step))
        m_series.push_back({name, meta.step, meta.time});
    run_collective(MPI_COMM_WORLD, [&] {
        if (pb.world_rank == 0)
            write_fields_series(ctx.dir + "/" + kSeriesFile, kMeshFile, pb.mesh, fields, m_series);
    });
}

bool FieldOutputObserver::on_step(const RunContext& ctx, const StepResult&) {
    const long every = ctx.pb.setup.output.every;
    if (every > 0 && ctx.solver.step_count() % every == 0)
        write(ctx, fmt::format("fields_{:06d}.h5", ctx.solver.step_count()));
    return false;
}

void FieldOutputObserver::on_end(const RunContext& ctx, const LoopEnd&) {
    write(ctx, "fields_final.h5");
}

// ---- checkpoints and the stop on a signal -----------------------------------------------------

void CheckpointObserver::on_start(const RunContext& ctx) {
    m_last_step = ctx.restarted_from.empty() ? -1 : ctx.solver.step_count();
    m_last_wall = std::chrono::steady_clock::now();
}

bool CheckpointObserver::on_step(const RunContext& ctx, const StepResult&) {
    const CheckpointConfig& cc = ctx.pb.setup.checkpoint;
    // Signals and the wall-clock checkpoint interval are agreed on collectively (rank 0's clock
    // decides), so every rank checkpoints and stops after the same step.
    int flags[2] = {static_cast<int>(g_stop_signal), 0};
    if (ctx.pb.world_rank == 0 && cc.every_minutes > 0 &&
        seconds_since(m_last_wall) >= 60.0 * cc.every_minutes)
        flags[1] = 1;
    MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if ((cc.every > 0 && ctx.solver.step_count() % cc.every == 0) || flags[1] || flags[0])
        write(ctx);
    if (!flags[0]) return false;
    m_signal = flags[0];
    log::info("{} received: stopped after step {}, checkpoint {} written", signal_name(m_signal),
              ctx.solver.step_count(), m_last_path);
    return true;
}

void CheckpointObserver::on_end(const RunContext& ctx, const LoopEnd& end) {
    if (end.failure.empty() && ctx.pb.setup.checkpoint.enabled() &&
        m_last_step != ctx.solver.step_count())
        write(ctx);
}

void CheckpointObserver::summarize(nlohmann::json& j) const {
    j["last_checkpoint"] = m_last_path;
    j["stopped_by_signal"] = m_signal ? signal_name(m_signal) : "";
}

void CheckpointObserver::write(const RunContext& ctx) {
    ScopedTimer t("io");
    const Problem& pb = ctx.pb;
    const std::string path = ctx.dir + "/" + checkpoint_file_name(ctx.solver.step_count());
    const SolverState st = ctx.solver.state_export();
    const CheckpointLayout ckl = pb.checkpoint_layout();
    run_collective(MPI_COMM_WORLD, [&] {
        write_checkpoint(path, ckl, pb.cfg.resolved_yaml(), ctx.run_id, st);
        // only this run's files (docs/decisions.md "Checkpoints belong to their run")
        if (pb.world_rank == 0) prune_checkpoints(ctx.dir, pb.setup.checkpoint.keep, ctx.run_id);
    });
    m_last_step = ctx.solver.step_count();
    m_last_wall = std::chrono::steady_clock::now();
    m_last_path = path;
    if (!ctx.cl.quiet) log::info("checkpoint written: {}", path);
}

// ---- steady state -----------------------------------------------------------------------------

SteadyStateObserver::SteadyStateObserver(const CaseSetup& setup)
    : m_monitor(setup.time.monitor_tolerance, setup.time.monitor_window),
      m_walls(diffuse_wall_patches(setup)) {}

void SteadyStateObserver::on_start(const RunContext& ctx) {
    const CaseSetup& setup = ctx.pb.setup;
    // Convergence monitor (issue 8): wall force and probe values, time.monitor_* keys.
    m_probes.emplace(m_monitor.active() ? setup.output : OutputConfig{}, ctx.pb.local,
                     ctx.pb.layout.comm_x);
    if (setup.time.implicit())
        log::info(
            "time.mode steady, steady_method implicit: implicit macroscopic prediction ({}) "
            "and microscopic relaxation, pseudo-time CFL {} (docs/steady.md section 7)",
            setup.time.macro_solver, setup.time.implicit_cfl);
    else if (setup.time.steady())
        log::info("time.mode steady: local time steps (CFL {}), docs/steady.md",
                  setup.numerics.cfl);
    const TimeConfig& tc = setup.time;
    m_frozen_step = ctx.solver.limiter_frozen_step();
    if (m_frozen_step >= 0)
        log::info(
            "limiter frozen (restart) since step {}: stored factors continue (docs/steady.md "
            "section 7.10)",
            m_frozen_step);
    else if (tc.limiter_freeze == "auto")
        log::info(
            "limiter freezing: auto (once the smallest residual falls by less than 10 % "
            "over {} steps; time.limiter_freeze, docs/steady.md section 7.10)",
            tc.limiter_freeze_window);
    else if (tc.limiter_freeze == "step")
        log::info("limiter freezing: after step {} (time.limiter_freeze)", tc.limiter_freeze_step);
    if (m_frozen_step < 0 && tc.limiter_freeze == "step") freeze_rule(ctx);  // N <= this step
    if (m_monitor.active())
        log::info("monitor: {}{} must change by < {} (relative) over {} steps",
                  m_walls.empty() ? "" : "force on each wall patch",
                  m_probes->empty() ? "" : " + probes (rho, U, T)", m_monitor.tolerance(),
                  m_monitor.window());
}

bool SteadyStateObserver::on_step(const RunContext& ctx, const StepResult& r) {
    const double tol = ctx.pb.setup.time.steady_tolerance;
    const bool res_rule = tol > 0;
    const bool res_ok = std::max({r.residual[0], r.residual[1], r.residual[2]}) < tol;
    const bool mon = m_monitor.active();
    if (ctx.pb.setup.time.steady() && blown_up(ctx, r)) return true;
    if (mon) {
        std::vector<MonitorGroup> groups;
        // force on each diffuse-wall patch, judged together (the total over all walls of a closed
        // box is zero at the steady state)
        if (!m_walls.empty()) groups.push_back({"wall forces", patch_forces(ctx, m_walls)});
        if (!m_probes->empty())
            for (auto& g : m_probes->sample(ctx.solver.fields())) groups.push_back(std::move(g));
        m_monitor.record(std::move(groups));
        m_change = m_monitor.change();
    }
    m_rule = res_rule || mon;
    m_last = r;
    if (ctx.pb.setup.time.steady() && !(res_rule && res_ok) && diverging(ctx, r)) return true;
    const bool steady =
        (res_rule || mon) && (!res_rule || res_ok) && (!mon || m_monitor.converged());
    if (!steady) {
        if (ctx.pb.setup.time.steady()) freeze_rule(ctx);
        return false;
    }
    m_reached = true;
    if (!mon)
        log::info("steady state reached at step {} (residuals below {})", ctx.solver.step_count(),
                  tol);
    else
        log::info(
            "steady state reached at step {} (residuals below {}; monitored quantities changed "
            "by {:.3e} < {} over the last {} steps, most: {})",
            ctx.solver.step_count(), tol, m_change, m_monitor.tolerance(), m_monitor.window(),
            m_monitor.worst());
    return true;
}

void SteadyStateObserver::freeze_rule(const RunContext& ctx) {
    const TimeConfig& tc = ctx.pb.setup.time;
    if (tc.limiter_freeze == "off" || m_freeze_tried || m_frozen_step >= 0) return;
    const long step = ctx.solver.step_count();
    std::string why;
    if (tc.limiter_freeze == "step") {
        if (step < tc.limiter_freeze_step) return;
        why = fmt::format("time.limiter_freeze: {}", tc.limiter_freeze_step);
    } else {
        if (m_steps < kWarmup) return;  // m_min: the smallest residual from step kWarmup on
        m_freeze_hist.push_back(m_min);
        if (static_cast<long>(m_freeze_hist.size()) <= tc.limiter_freeze_window) return;
        const double before = m_freeze_hist.front();
        m_freeze_hist.pop_front();
        // a stall at round-off (1e-13 and below) is convergence, not a limit cycle
        if (!(m_min > kFreezeFall * before) || m_min < 1e-13) return;
        why = fmt::format(
            "auto: the smallest residual fell only from {:.3e} to {:.3e} over the last {} steps",
            before, m_min, tc.limiter_freeze_window);
    }
    m_freeze_tried = true;
    if (!ctx.solver.freeze_limiter()) return;
    m_frozen_step = step;
    log::info(
        "limiter frozen after step {} ({}): from now on no limiter factor rises above its "
        "value in this or a later step (docs/steady.md section 7.10)",
        step, why);
}

bool SteadyStateObserver::blown_up(const RunContext& ctx, const StepResult& r) {
    const StepResult prev = m_prev;
    m_prev = r;
    if (++m_seen <= kWarmup) return false;
    const double res = std::max({r.residual[0], r.residual[1], r.residual[2]});
    const double res0 = std::max({prev.residual[0], prev.residual[1], prev.residual[2]});
    static const char* const names[3] = {"mean |rho|", "momentum scale", "mean |rho E|"};
    for (int k = 0; k < 3; ++k) {
        if (!(r.scale[k] > kBlowUp * prev.scale[k] && res * kBlowUp < res0)) continue;
        m_failure = fmt::format(
            "steady iteration diverging: in step {} the {} of the state grew from {:.3e} to {:.3e} "
            "while the residual, normalized by it, fell from {:.3e} to {:.3e}: the state blew up "
            "(fields_final.h5 holds it)",
            ctx.solver.step_count(), names[k], prev.scale[k], r.scale[k], res0, res);
        m_stop = "divergence";
        return true;
    }
    return false;
}

bool SteadyStateObserver::diverging(const RunContext& ctx, const StepResult& r) {
    constexpr double kStagnation = 0.9;  // the smallest residual must fall by 10 % per window
    const TimeConfig& tc = ctx.pb.setup.time;
    const long step = ctx.solver.step_count();
    const double res = std::max({r.residual[0], r.residual[1], r.residual[2]});
    ++m_steps;
    if (!std::isfinite(res)) {
        m_failure = fmt::format("steady iteration diverging: residual {} at step {}", res, step);
    } else if (m_steps >= kWarmup) {
        if (res < m_min) {
            m_min = res;
            m_min_step = step;
        }
        // (a residual at round-off, 1e-13 and below, is no reference for growth)
        if (tc.divergence_factor > 0 && res > tc.divergence_factor * std::max(m_min, 1e-13))
            m_failure = fmt::format(
                "steady iteration diverging: residual {:.3e} at step {} is more than "
                "time.divergence_factor = {:g} times its smallest value {:.3e} (step {}); "
                "fields_final.h5 holds the state of step {}",
                res, step, tc.divergence_factor, m_min, m_min_step, step);
        if (tc.stagnation_window > 0 && tc.steady_tolerance > 0) {
            m_min_hist.push_back(m_min);
            if (static_cast<long>(m_min_hist.size()) > tc.stagnation_window) {
                const double before = m_min_hist.front();
                m_min_hist.pop_front();
                if (m_failure.empty() && m_min > kStagnation * before)
                    m_failure = fmt::format(
                        "steady iteration stagnating: the smallest residual fell from {:.3e} to "
                        "only {:.3e} over the last {} steps (time.stagnation_window; less than 10 "
                        "%), residual {:.3e} at step {} (time.steady_tolerance {})",
                        before, m_min, tc.stagnation_window, res, step, tc.steady_tolerance);
            }
        }
    }
    if (m_failure.empty()) return false;
    m_stop = m_failure.rfind("steady iteration stagnating", 0) == 0 ? "stagnation" : "divergence";
    return true;
}

void SteadyStateObserver::on_end(const RunContext& ctx, const LoopEnd& end) {
    if (!m_rule || m_reached || !end.failure.empty()) return;
    const TimeConfig& tc = ctx.pb.setup.time;
    const long step = ctx.solver.step_count();
    if (step < tc.steps && !(tc.end_time > 0 && ctx.solver.time() >= tc.end_time * (1 - 1e-14)))
        return;  // stopped early by a signal (CheckpointObserver says so)
    m_stop = step >= tc.steps ? "time.steps" : "time.end_time";
    // A transient run's tolerance is an optional early stop; a steady run is there to converge.
    if (!tc.steady()) return;
    m_unconverged = true;
    log::error(
        "ugks_solver: WARNING: steady state NOT reached: {} ended the run after step {} with "
        "residuals {:.3e} {:.3e} {:.3e} (time.steady_tolerance {}{}); summary.json "
        "steady.converged is false, exit code 5",
        m_stop, step, m_last.residual[0], m_last.residual[1], m_last.residual[2],
        tc.steady_tolerance,
        m_monitor.active()
            ? fmt::format(", monitor change {:.3e} > {}", m_change, m_monitor.tolerance())
            : std::string());
}

void SteadyStateObserver::summarize(nlohmann::json& j) const {
    if (m_rule)
        j["steady"] = {
            {"converged", m_reached},
            {"stopped_by", m_reached ? "steady_tolerance" : m_stop},
            {"final_residuals", {m_last.residual[0], m_last.residual[1], m_last.residual[2]}},
            {"limiter_frozen_after_step",
             m_frozen_step >= 0 ? nlohmann::json(m_frozen_step) : nlohmann::json()}};
    if (m_monitor.active())
        j["monitor"] = {{"change", m_change < 1e300 ? m_change : -1.0},
                        {"tolerance", m_monitor.tolerance()},
                        {"window", m_monitor.window()}};
}

// ---- probes and wall surface ------------------------------------------------------------------

void ProbeOutputObserver::on_end(const RunContext& ctx, const LoopEnd&) {
    const Problem& pb = ctx.pb;
    const OutputUnits units = OutputUnits::of(pb.setup, pb.mesh.dim);
    const auto fields = units.convert(ctx.solver.fields());
    run_collective(MPI_COMM_WORLD, [&] {
        if (pb.layout.q == 0)
            write_probes(pb.setup.output, ctx.dir, pb.local, fields, units.scale(Quantity::length),
                         pb.layout.comm_x);
    });
}

void SurfaceOutputObserver::on_end(const RunContext& ctx, const LoopEnd&) {
    const Problem& pb = ctx.pb;
    const OutputUnits units = OutputUnits::of(pb.setup, pb.mesh.dim);
    m_ref = surface_reference(pb.setup, pb.mesh);
    std::vector<SurfaceFace> faces = wall_faces(ctx);
    units.convert(faces);
    units.convert(m_ref);
    const std::vector<std::string> walls = diffuse_wall_patches(pb.setup);
    if (walls.empty() || ctx.solver.step_count() == 0) return;
    FieldsMeta extra = units.surface_meta();
    extra.run_id = ctx.run_id;
    run_collective(MPI_COMM_WORLD, [&] {
        ScopedTimer t("io");
        if (pb.layout.q == 0)
            m_totals = write_surface(ctx.dir + "/surface_final.h5", ctx.dir + "/surface_final.csv",
                                     pb.layout.comm_x, pb.mesh, faces, walls, m_ref,
                                     pb.cfg.resolved_yaml(), ctx.solver.step_count(),
                                     ctx.solver.time() * units.scale(Quantity::time), extra);
    });
}

void SurfaceOutputObserver::summarize(nlohmann::json& j) const {
    const SurfaceTotals& t = m_totals;
    const SurfaceAxes a = surface_axes(m_ref);
    auto v3 = [](const Vec3& v) { return nlohmann::json::array({v[0], v[1], v[2]}); };
    j["walls"] = {{"force", v3(t.force)},
                  {"heat", t.heat},
                  {"area", t.area},
                  {"body",
                   {{"force", v3(t.body.force)},
                    {"moment", v3(t.body.moment)},
                    {"heat", t.body.heat},
                    {"area", t.body.area},
                    {"images", t.images}}},
                  {"CD", t.CD},
                  {"CL", t.CL},
                  {"CS", t.CS},
                  {"Cm", v3(t.Cm)},
                  {"reference",
                   {{"area", m_ref.A_ref},
                    {"length", m_ref.L_ref},
                    {"moment_center", v3(m_ref.moment_center)},
                    {"drag_direction", v3(a.drag)},
                    {"lift_direction", v3(a.lift)},
                    {"side_direction", v3(a.side)},
                    {"dynamic_pressure", surface_dynamic_pressure(m_ref)}}}};
    // JSON has no NaN: undefined coefficients are null, and this says why.
    if (std::isnan(t.CD) || std::isnan(t.CL)) {
        const double q = surface_dynamic_pressure(m_ref);
        j["walls"]["coefficients_undefined"] =
            !(q > 0) ? "no reference dynamic pressure: no free stream and no moving wall"
            : std::isnan(a.drag[0])
                ? "no flow direction: the free stream is at rest (give "
                  "output.surface.drag_direction for C_D, C_L, C_S, C_m)"
                : "the lift direction is parallel to the drag direction (output.surface."
                  "lift_direction)";
    }
}

}  // namespace ugks

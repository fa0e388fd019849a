#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ugks/app/case_setup.hpp"
#include "ugks/app/overset_driver.hpp"
#include "ugks/app/run_case.hpp"
#include "ugks/app/steady_monitor.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/core/version.hpp"
#include "ugks/device/array.hpp"
#include "ugks/device/device.hpp"
#include "ugks/io/checkpoint_io.hpp"
#include "ugks/io/config.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/io/reports.hpp"
#include "ugks/io/surface_io.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/solver/ugks_solver.hpp"
#if defined(UGKS_USE_CUDA)
#include "ugks/solver/ugks_solver_device.hpp"
#endif

namespace ugks {

int exit_code(RunOutcome outcome) {
    switch (outcome) {
        case RunOutcome::Success:
            return kExitSuccess;
        case RunOutcome::BadInput:
            return kExitInput;
        case RunOutcome::NumericalFailure:
            return kExitNumerical;
        case RunOutcome::StoppedBySignal:
            return kExitSignal;
        case RunOutcome::Failure:
            break;
    }
    return kExitFailure;
}

namespace {

/// What the run measured before it read anything: wall-clock start and resident set.
struct RunStart {
    std::chrono::steady_clock::time_point time;
    ProcessMemory rss;
};

/// The outcome of body(); an exception it throws is reported (once, by rank 0, on stderr) and
/// becomes the outcome of its class: InputError bad input, NumericalError numerical failure,
/// anything else failure.
template <class Body>
RunOutcome guarded(Body&& body) {
    try {
        return body();
    } catch (const InputError& e) {
        log::error("ugks_solver: input error: {}", e.what());
        return RunOutcome::BadInput;
    } catch (const NumericalError& e) {
        log::error("ugks_solver: numerical failure: {}", e.what());
        return RunOutcome::NumericalFailure;
    } catch (const std::exception& e) {
        log::error("ugks_solver: error: {}", e.what());
        return RunOutcome::Failure;
    }
}

/// The start of a run: wall clock and resident set before anything is read, the "total" and
/// "setup" timers (build_problem stops "setup").
RunStart begin_run() {
    RunStart start{std::chrono::steady_clock::now(), process_memory()};
    timers().start("total");
    timers().start("setup");
    return start;
}

/// The case file with the --set overrides, read once for both modes (every rank reads it; errors
/// agree).
Config load_case(const CommandLine& cl) {
    Config cfg;
    run_collective(MPI_COMM_WORLD, [&] {
        cfg = Config::from_file(cl.case_file);
        for (const auto& o : cl.overrides) cfg.apply_override(o);
    });
    return cfg;
}

/// The solver of the time loop: the device solver in CUDA builds, the CPU solver otherwise.
#if defined(UGKS_USE_CUDA)
using StepSolver = UgksSolverDevice;
#else
using StepSolver = UgksSolver;
#endif

/// Device memory per rank for summary.json (maximum over the ranks of `world`; collective). None
/// on the CPU backend.
[[maybe_unused]] nlohmann::json device_memory_json(const UgksSolver&, MPI_Comm) {
    return nlohmann::json::object();
}
/// parallel.halo as resolved (summary.json decomposition.halo): host MPI on the CPU backend.
[[maybe_unused]] const char* halo_mode_of(const UgksSolver&) { return "host"; }
#if defined(UGKS_USE_CUDA)
const char* halo_mode_of(const UgksSolverDevice& solver) { return solver.halo_mode(); }
#endif
#if defined(UGKS_USE_CUDA)
nlohmann::json device_memory_json(const UgksSolverDevice& solver, MPI_Comm world) {
    const DeviceMemoryReport r = solver.memory_report();
    double v[4] = {static_cast<double>(r.persistent), static_cast<double>(r.working_set),
                   static_cast<double>(r.peak), static_cast<double>(r.conventional)};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, world);
    return {{"device_persistent", v[0]},
            {"device_block_working_set", v[1]},
            {"device_peak", v[2]},
            {"conventional_full_velocity", v[3]}};
}
#endif

/// Stop request of SIGTERM, SIGINT or SIGUSR1 (Slurm's --signal warning): the handler only sets
/// the flag; the time loop agrees on it collectively after every step, writes a checkpoint and
/// stops with exit code 4. Repeated SIGTERM/SIGUSR1 (launchers may deliver one signal twice) are
/// absorbed; a second SIGINT (Ctrl-C) takes the default action, so an interactive run can still be
/// killed at once.
volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
    if (g_stop_signal != 0 && sig == SIGINT) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    if (g_stop_signal == 0) g_stop_signal = sig;
}

void install_stop_handlers() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGTERM, SIGINT, SIGUSR1}) sigaction(sig, &sa, nullptr);
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

/// Broadcast a list of strings from rank 0 of comm.
std::vector<std::string> bcast_lines(const std::vector<std::string>& lines, MPI_Comm comm) {
    std::string joined;
    for (const auto& l : lines) joined += l + '\n';
    unsigned long long len = joined.size();
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    joined.resize(len);
    MPI_Bcast(joined.data(), static_cast<int>(len), MPI_CHAR, 0, comm);
    std::vector<std::string> out;
    std::istringstream in(joined);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
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

std::string human_bytes(double b) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        ++u;
    }
    return fmt::format("{:.2f} {}", b, unit[u]);
}

/// Sample cell fields along probe lines: nearest owned cell centroid, then the global nearest over
/// comm.
void write_probes(const OutputConfig& out, const std::string& dir, const LocalMesh& local,
                  const std::vector<CellField>& fields, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (const auto& probe : out.probes) {
        const auto pts = probe_points(probe.from, probe.to, probe.points);
        std::vector<std::string> cols{"x", "y", "z", "cell"};
        for (const auto& f : fields) {
            if (f.width == 1)
                cols.push_back(f.name);
            else
                for (int k = 0; k < f.width; ++k) cols.push_back(f.name + "_" + std::to_string(k));
        }
        CsvWriter csv;
        if (rank == 0) csv = CsvWriter(dir + "/probes_" + probe.name + ".csv", cols);
        for (const auto& x : pts) {
            const NearestCell best = nearest_owned_cell(local, x, comm);
            const index_t cell = best.cell;
            std::vector<double> row{x[0], x[1], x[2]};
            if (rank == best.rank) {
                row.push_back(static_cast<double>(local.global_cell[cell]));
                for (const auto& f : fields)
                    for (int k = 0; k < f.width; ++k) row.push_back(f.data[cell * f.width + k]);
            }
            int len = static_cast<int>(row.size());
            MPI_Bcast(&len, 1, MPI_INT, best.rank, comm);
            row.resize(len);
            MPI_Bcast(row.data(), len, MPI_DOUBLE, best.rank, comm);
            if (rank == 0) csv.row(row);
        }
    }
}

/// Reference state of the surface coefficients: the first far-field/inflow condition, else the
/// initial state; when its speed is zero the dynamic pressure uses the fastest wall (lid) speed.
SurfaceReference surface_reference(const CaseSetup& s) {
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
    return ref;
}

/// "1h02m", "3m05s", "12.3s".
std::string format_duration(double s) {
    if (!(s < 1e9)) return "?";
    if (s < 60) return fmt::format("{:.1f}s", s);
    const long t = static_cast<long>(s + 0.5);
    if (t < 3600) return fmt::format("{}m{:02d}s", t / 60, static_cast<int>(t % 60));
    return fmt::format("{}h{:02d}m", t / 3600, static_cast<int>((t % 3600) / 60));
}

/// The progress line of the time loop (rank 0): at the first step, then at most every
/// output.progress_seconds of wall time, and at the last step of time.steps. Shows the wall time
/// per step since the loop began and the time left, bounded by time.steps and time.end_time
/// ("<=" when a steady tolerance may stop the run earlier).
class ProgressLine {
public:
    ProgressLine(const CaseSetup& s, long first_step)
        : m_s(s), m_first(first_step), m_start(std::chrono::steady_clock::now()), m_last(m_start) {}
    void line(long step, double time, const StepResult& r) {
        const auto now = std::chrono::steady_clock::now();
        const double since = std::chrono::duration<double>(now - m_last).count();
        const bool last = step >= m_s.time.steps;
        if (step != m_first + 1 && !last && since < m_s.output.progress_seconds) return;
        m_last = now;
        const double per_step = std::chrono::duration<double>(now - m_start).count() /
                                static_cast<double>(step - m_first);
        double left_steps = static_cast<double>(m_s.time.steps - step);
        if (m_s.time.end_time > 0 && r.dt > 0)
            left_steps = std::min(left_steps, std::ceil((m_s.time.end_time - time) / r.dt));
        const bool bound = m_s.time.steady_tolerance > 0 || m_s.time.monitor_tolerance > 0;
        log::info(
            "step {:8d}  t = {:.6e}  dt = {:.3e}  residuals {:.3e} {:.3e} {:.3e}  {:.3g} s/step  "
            "left {}{}",
            step, time, r.dt, r.residual[0], r.residual[1], r.residual[2], per_step,
            bound && left_steps > 0 ? "<= " : "", format_duration(left_steps * per_step));
    }

private:
    const CaseSetup& m_s;
    long m_first;
    std::chrono::steady_clock::time_point m_start, m_last;
};

/// The owned diffuse-wall faces with their time-averaged fluxes of the last step.
template <class Solver>
std::vector<SurfaceFace> wall_faces(const Solver& solver, const LocalMesh& local,
                                    const CaseSetup& s) {
    std::vector<SurfaceFace> out;
    for (const auto& wd : solver.wall_data()) {
        const index_t f = wd.local_face;
        const int patch = local.mesh.face_patch[f];
        bool diffuse = false;
        for (const auto& bc : s.boundaries)
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

/// Mode ugks: case sections, mesh, velocity space, decomposition, estimates, (without --check) the
/// time loop and the outputs.
RunOutcome run_ugks_case(const CommandLine& cl, Config cfg, const RunStart& start) {
    const auto t_start = start.time;
    const ProcessMemory rss_start = start.rss;  // before the mesh is read
    MPI_Comm world = MPI_COMM_WORLD;
    int world_rank = 0, world_size = 1;
    MPI_Comm_rank(world, &world_rank);
    MPI_Comm_size(world, &world_size);

    CaseSetup setup;
    Mesh mesh;
    VelocityGrid vel;
    VelocityBlocks blocks;
    PhaseSpaceLayout layout;
    std::vector<int> part;
    LocalMesh local;
    RunOutcome outcome = RunOutcome::Success;
    if (!cl.check) install_stop_handlers();
    {
        // Phase 1: case file, mesh, velocity space. Every rank reads the same inputs, so errors
        // agree; the collective check below also covers errors seen by only some ranks (e.g. a file
        // system hiccup).
        run_collective(world, [&] {
            parse_case_sections(cfg, setup);
            mesh = load_mesh(setup.mesh_config);
            parse_velocity_section(cfg, setup, mesh.dim);
            vel = build_velocity_grid(setup.velocity_config);
            const std::string mesh_source = setup.mesh_config.source == "box"
                                                ? std::string("box mesh")
                                                : setup.mesh_config.file;
            const auto mirrors = check_boundaries(setup.boundaries, mesh, cfg, mesh_source);
            connect_periodic(mesh, periodic_pairs(setup.boundaries));
            cfg.check_unused();
            if (world_size % setup.parallel.velocity_ranks != 0)
                cfg.fail("parallel.velocity_ranks",
                         fmt::format("{} does not divide the number of MPI ranks ({})",
                                     setup.parallel.velocity_ranks, world_size));
            const int P_x = world_size / setup.parallel.velocity_ranks;
            if (P_x > mesh.n_cells())
                UGKS_INPUT_ERROR(
                    fmt::format("{} physical-space ranks (MPI ranks / parallel.velocity_ranks) "
                                "exceed the {} cells of the mesh",
                                P_x, mesh.n_cells()));
            blocks = make_velocity_blocks(vel, setup.parallel.block_size,
                                          setup.parallel.velocity_ranks, mirrors);
        });

        // Phase 2: decomposition, device binding, partition and local meshes.
        run_collective(world, [&] {
            layout = make_layout(world, setup.parallel.velocity_ranks);
            bind_device(layout);
            part = partition_cells(mesh, layout.P_x, world);
            local = build_local_mesh(mesh, part, layout.p);
        });
        timers().stop("setup");

        log::info("ugks_solver {} (commit {}, backend {}, {} build)", version_string, git_commit,
                  backend_name, build_type);
        log::info("case '{}' from {}", setup.name, cl.case_file);
        log::info("---- resolved configuration ----\n{}\n--------------------------------",
                  cfg.resolved_yaml());
        const std::string map = rank_map(layout);
        log::info("rank map (world rank, host, local rank, device, p, q):\n{}", map);

        // Decomposition and estimates.
        int first = 0, count = 0;
        blocks.range(layout.q, first, count);
        const index_t local_vel = static_cast<index_t>(count) * blocks.block_size;
        const bool store_b = vel.dim < 3 || setup.gas.K_int > 0;
        const MemoryEstimate mem = estimate_memory(
            local.n_owned + local.n_ghost, local.n_owned, local.mesh.n_faces(), local_vel,
            blocks.block_size, mesh.dim, store_b, mesh_bytes(mesh), setup.time.implicit());
        double mem_max = mem.total(), mem_sum = mem.total();
        MPI_Allreduce(MPI_IN_PLACE, &mem_max, 1, MPI_DOUBLE, MPI_MAX, world);
        MPI_Allreduce(MPI_IN_PLACE, &mem_sum, 1, MPI_DOUBLE, MPI_SUM, world);
        long n_owned = local.n_owned, n_ghost = local.n_ghost;
        long owned_min = n_owned, owned_max = n_owned, ghost_max = n_ghost;
        MPI_Allreduce(MPI_IN_PLACE, &owned_min, 1, MPI_LONG, MPI_MIN, world);
        MPI_Allreduce(MPI_IN_PLACE, &owned_max, 1, MPI_LONG, MPI_MAX, world);
        MPI_Allreduce(MPI_IN_PLACE, &ghost_max, 1, MPI_LONG, MPI_MAX, world);
        const double dt =
            estimate_time_step(mesh, vel, setup.gas, setup.initial, setup.numerics.cfl);
        std::size_t dev_free = 0, dev_total = 0;
        device::memory_info(dev_free, dev_total);
        double mem_limit = 0;  // UGKS_TEST_MEMORY_LIMIT_BYTES (tests), else the device's/host's
        run_collective(world, [&] { mem_limit = memory_limit_override(); });
        if (mem_limit > 0) dev_total = static_cast<std::size_t>(mem_limit);
        log::info("mesh: {}D, {} cells, {} faces, {} nodes, patches: {}", mesh.dim, mesh.n_cells(),
                  mesh.n_faces(), mesh.n_nodes(), fmt::join(mesh.patch_names, ", "));
        log::info(
            "velocity space: {} ({}D), {} points, block size B_v = {}, {} blocks ({} padded slots)",
            vel.kind, vel.dim, vel.size(), blocks.block_size, blocks.n_blocks,
            static_cast<index_t>(blocks.n_blocks) * blocks.block_size - vel.size());
        log::info(
            "decomposition: {} ranks = P_x {} x P_v {}; owned cells per rank {}..{}, ghosts up to "
            "{}; "
            "velocity blocks per rank {}..{}",
            world_size, layout.P_x, layout.P_v, owned_min, owned_max, ghost_max,
            blocks.n_blocks / layout.P_v, (blocks.n_blocks + layout.P_v - 1) / layout.P_v);
        const std::string mem_parts = fmt::format(
            "distributions {}, macroscopic {}, block working set {}{}, global mesh {} (+ {} to "
            "build it), local mesh {}, checkpoint buffers {} on rank 0",
            human_bytes(mem.distributions), human_bytes(mem.macroscopic),
            human_bytes(mem.block_working_set),
            mem.implicit > 0 ? ", implicit iteration " + human_bytes(mem.implicit) : std::string(),
            human_bytes(mem.global_mesh), human_bytes(mem.mesh_setup), human_bytes(mem.local_mesh),
            human_bytes(mem.io_buffers));
        log::info("memory estimate per rank: max {} ({}); all ranks {}; memory of {}: {}{}",
                  human_bytes(mem_max), mem_parts, human_bytes(mem_sum), device::device_name(),
                  human_bytes(static_cast<double>(dev_total)),
                  mem_limit > 0 ? " (UGKS_TEST_MEMORY_LIMIT_BYTES)" : "");
        log::info(
            "gas: Kn = {} ({}), mu_ref = {:.6g}, omega = {}, Pr = {:.6g}, K_int = {}, gamma = "
            "{:.6g}",
            setup.gas.Kn, setup.gas.kn_definition, setup.gas.mu_ref, setup.gas.omega, setup.gas.Pr,
            setup.gas.K_int, setup.gas.gamma());
        log::info("{}", describe_reference(setup.gas));
        log::info("time step estimate (initial state, CFL {}): dt = {:.6e}", setup.numerics.cfl,
                  dt);
        {
            // Refuse at start what cannot fit (issue 7). CPU backend: everything per node (the
            // node's ranks together) against the host's memory. GPU builds: the solver's arrays
            // per rank against its device's memory, and the meshes and checkpoint buffers per
            // node against the host's memory. The smallest memory of any rank decides.
            double avail = static_cast<double>(dev_total);
            MPI_Allreduce(MPI_IN_PLACE, &avail, 1, MPI_DOUBLE, MPI_MIN, world);
#if defined(UGKS_USE_CUDA)
            double need = mem.device_part();
            MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_DOUBLE, MPI_MAX, world);
            const char* scope = "per rank (device arrays)";
            {
                double host_node = mem.host_part();
                MPI_Allreduce(MPI_IN_PLACE, &host_node, 1, MPI_DOUBLE, MPI_SUM, layout.comm_node);
                MPI_Allreduce(MPI_IN_PLACE, &host_node, 1, MPI_DOUBLE, MPI_MAX, world);
                double host_avail = mem_limit > 0 ? mem_limit : host_physical_memory();
                MPI_Allreduce(MPI_IN_PLACE, &host_avail, 1, MPI_DOUBLE, MPI_MIN, world);
                if (host_avail > 0 && host_node > host_avail)
                    UGKS_INPUT_ERROR(fmt::format(
                        "the memory estimate per node (host part of all ranks of a node: meshes "
                        "and checkpoint buffers) {} ({} on rank 0) exceeds the memory of the host "
                        "({}{}): use more nodes or fewer cells or velocities",
                        human_bytes(host_node), mem_parts, human_bytes(host_avail),
                        mem_limit > 0 ? ", UGKS_TEST_MEMORY_LIMIT_BYTES" : ""));
            }
#else
            double need = mem.total();
            MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_DOUBLE, MPI_SUM, layout.comm_node);
            MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_DOUBLE, MPI_MAX, world);
            const char* scope = "per node (all ranks of a node)";
#endif
            if (avail > 0 && need > avail)
                UGKS_INPUT_ERROR(fmt::format(
                    "the memory estimate {} ({}; per rank max {}: {}) exceeds the memory of {} "
                    "({}{}): use more ranks (MPI ranks, parallel.velocity_ranks) or fewer cells or "
                    "velocities",
                    scope, human_bytes(need), human_bytes(mem_max), mem_parts,
                    device::device_name(), human_bytes(avail),
                    mem_limit > 0 ? ", UGKS_TEST_MEMORY_LIMIT_BYTES" : ""));
        }
        if (cl.check) {
            log::info("check passed: nothing written");
            free_layout(layout);
            return RunOutcome::Success;
        }

        // Phase 3: outputs. Only the velocity group q = 0 writes fields (W is replicated over
        // comm_v).
        const std::string dir = setup.output.directory;
        run_collective(world, [&] {
            if (world_rank == 0) {
                std::error_code ec;
                std::filesystem::create_directories(dir, ec);
                if (ec || !std::filesystem::is_directory(dir))
                    cfg.fail("output.directory",
                             "cannot create directory '" + dir + "': " + ec.message());
            }
        });
        // Phase 4: the time loop.
        StepSolver solver(setup, local, layout, vel, blocks);
        run_collective(world, [&] { solver.initialize(); });
        const CheckpointLayout ckl{&layout, &mesh, &local, &vel, &blocks, store_b, setup.gas.K_int};
        std::string restarted_from;
        if (!cl.restart.empty()) {
            // --restart FILE, or the newest checkpoint of output.directory that passes every check
            // (a damaged newest file is skipped with a warning). read_checkpoint agrees on errors.
            ScopedTimer t("io");
            std::vector<std::string> candidates{cl.restart};
            if (cl.restart == "latest") {
                candidates = bcast_lines(
                    world_rank == 0 ? list_checkpoints(dir) : std::vector<std::string>{}, world);
                if (candidates.empty())
                    UGKS_INPUT_ERROR("--restart latest: no checkpoint_*.h5 in output.directory '"
                                     << dir << "'");
            }
            std::string skipped;
            for (const auto& c : candidates) {
                try {
                    CheckpointInfo info;
                    solver.state_import(read_checkpoint(c, ckl, &info));
                    restarted_from = c;
                    log::info(
                        "restarted from {} at step {}, t = {:.6e} (written by ugks_solver {})", c,
                        info.step, info.time, info.version);
                    break;
                } catch (const InputError& e) {
                    if (cl.restart != "latest") throw;
                    log::error("warning: skipping {}", e.what());
                    skipped += std::string("; ") + e.what();
                }
            }
            if (restarted_from.empty())
                UGKS_INPUT_ERROR("--restart latest: no valid checkpoint in output.directory '"
                                 << dir << "'" << skipped);
        }
        long last_checkpoint_step = restarted_from.empty() ? -1 : solver.step_count();
        auto last_checkpoint_wall = std::chrono::steady_clock::now();
        std::string last_checkpoint;
        auto write_checkpoint_file = [&] {
            ScopedTimer t("io");
            const std::string path = dir + "/" + checkpoint_file_name(solver.step_count());
            const SolverState st = solver.state_export();
            run_collective(world, [&] { write_checkpoint(path, ckl, cfg.resolved_yaml(), st); });
            if (world_rank == 0) prune_checkpoints(dir, setup.checkpoint.keep);
            last_checkpoint_step = solver.step_count();
            last_checkpoint_wall = std::chrono::steady_clock::now();
            last_checkpoint = path;
            if (!cl.quiet) log::info("checkpoint written: {}", path);
        };
        auto write_fields_file = [&](const std::string& name) {
            ScopedTimer t("io");
            const auto fields = solver.fields();
            run_collective(world, [&] {
                if (layout.q == 0)
                    write_fields(dir + "/" + name, layout.comm_x, mesh, local, fields,
                                 cfg.resolved_yaml(), solver.step_count(), solver.time());
            });
        };
        CsvWriter hist;
        if (world_rank == 0) {
            const std::vector<std::string> cols{"step",     "time",     "dt",        "res_rho",
                                                "res_rhoU", "res_rhoE", "wall_time", "wall_Fx",
                                                "wall_Fy",  "wall_Fz",  "wall_heat"};
            std::vector<std::vector<double>> kept;
            if (!restarted_from.empty())
                kept = history_rows_until(dir + "/history.csv", solver.step_count(), cols.size());
            hist = CsvWriter(dir + "/history.csv", cols);
            for (const auto& row : kept) hist.row(row);
        }
        std::vector<std::string> wall_patches;
        for (const auto& bc : setup.boundaries)
            if (bc.type == "diffuse_wall") wall_patches.push_back(bc.patch);
        const SurfaceReference sref = surface_reference(setup);
        StepResult last;
        std::string failure;
        int stop_signal = 0;
        const auto t_loop = std::chrono::steady_clock::now();
        long steps_done = 0;
        ProgressLine progress(setup, solver.step_count());
        // Convergence monitor (issue 8): wall force and probe values, time.monitor_* keys.
        SteadyMonitor monitor(setup.time.monitor_tolerance, setup.time.monitor_window);
        const ProbeSampler probe_sampler(monitor.active() ? setup.output : OutputConfig{}, local,
                                         layout.comm_x);
        if (setup.time.steady())
            log::info("time.mode steady: local time steps (CFL {}), docs/steady.md",
                      setup.numerics.cfl);
        if (monitor.active())
            log::info("monitor: {}{} must change by < {} (relative) over {} steps",
                      wall_patches.empty() ? "" : "force on each wall patch",
                      probe_sampler.empty() ? "" : " + probes (rho, U, T)", monitor.tolerance(),
                      monitor.window());
        double monitor_change = HUGE_VAL;
        while (solver.step_count() < setup.time.steps &&
               (setup.time.end_time <= 0 || solver.time() < setup.time.end_time * (1 - 1e-14))) {
            StepResult r = solver.step();
            if (r.failed) {
                failure = r.failure;
                break;
            }
            last = r;
            ++steps_done;
            const double wall_now =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
            double wall_sum[4] = {0, 0, 0, 0};  // force on the diffuse walls and heat load
            for (const auto& sf : wall_faces(solver, local, setup)) {
                for (int d = 0; d < 3; ++d) wall_sum[d] += sf.P[d] * sf.area;
                wall_sum[3] += sf.qw * sf.area;
            }
            MPI_Allreduce(MPI_IN_PLACE, wall_sum, 4, MPI_DOUBLE, MPI_SUM, layout.comm_x);
            if (world_rank == 0)
                hist.row({static_cast<double>(solver.step_count()), solver.time(), r.dt,
                          r.residual[0], r.residual[1], r.residual[2], wall_now, wall_sum[0],
                          wall_sum[1], wall_sum[2], wall_sum[3]});
            if (!cl.quiet && world_rank == 0) progress.line(solver.step_count(), solver.time(), r);
            if (setup.output.every > 0 && solver.step_count() % setup.output.every == 0)
                write_fields_file(fmt::format("fields_{:06d}.h5", solver.step_count()));
            // Signals and the wall-clock checkpoint interval are agreed on collectively (rank 0's
            // clock decides), so every rank checkpoints and stops after the same step.
            int flags[2] = {static_cast<int>(g_stop_signal), 0};
            if (world_rank == 0 && setup.checkpoint.every_minutes > 0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              last_checkpoint_wall)
                        .count() >= 60.0 * setup.checkpoint.every_minutes)
                flags[1] = 1;
            MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, world);
            if ((setup.checkpoint.every > 0 && solver.step_count() % setup.checkpoint.every == 0) ||
                flags[1] || flags[0])
                write_checkpoint_file();
            if (flags[0]) {
                stop_signal = flags[0];
                log::info("{} received: stopped after step {}, checkpoint {} written",
                          signal_name(stop_signal), solver.step_count(), last_checkpoint);
                break;
            }
            const bool res_rule = setup.time.steady_tolerance > 0;
            const bool res_ok = std::max({r.residual[0], r.residual[1], r.residual[2]}) <
                                setup.time.steady_tolerance;
            if (monitor.active()) {
                std::vector<MonitorGroup> groups;
                if (!wall_patches.empty()) {
                    // force on each diffuse-wall patch, judged together (the total over all walls
                    // of a closed box is zero at the steady state)
                    std::vector<double> pf(3 * wall_patches.size(), 0.0);
                    for (const auto& sf : wall_faces(solver, local, setup)) {
                        const auto it = std::find(wall_patches.begin(), wall_patches.end(),
                                                  local.mesh.patch_names[sf.patch]);
                        const std::size_t k = static_cast<std::size_t>(it - wall_patches.begin());
                        if (k < wall_patches.size())
                            for (int d = 0; d < 3; ++d) pf[3 * k + d] += sf.P[d] * sf.area;
                    }
                    MPI_Allreduce(MPI_IN_PLACE, pf.data(), static_cast<int>(pf.size()), MPI_DOUBLE,
                                  MPI_SUM, layout.comm_x);
                    groups.push_back({"wall forces", std::move(pf)});
                }
                if (!probe_sampler.empty())
                    for (auto& g : probe_sampler.sample(solver.fields()))
                        groups.push_back(std::move(g));
                monitor.record(std::move(groups));
                monitor_change = monitor.change();
            }
            if ((res_rule || monitor.active()) && (!res_rule || res_ok) &&
                (!monitor.active() || monitor.converged())) {
                if (!monitor.active())
                    log::info("steady state reached at step {} (residuals below {})",
                              solver.step_count(), setup.time.steady_tolerance);
                else
                    log::info(
                        "steady state reached at step {} (residuals below {}; monitored "
                        "quantities changed by {:.3e} < {} over the last {} steps, most: {})",
                        solver.step_count(), setup.time.steady_tolerance, monitor_change,
                        monitor.tolerance(), monitor.window(), monitor.worst());
                break;
            }
        }
        const double loop_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t_loop).count();
        if (failure.empty() && setup.checkpoint.enabled() &&
            last_checkpoint_step != solver.step_count())
            write_checkpoint_file();
        write_fields_file("fields_final.h5");
        {
            const auto fields = solver.fields();
            run_collective(world, [&] {
                if (layout.q == 0) write_probes(setup.output, dir, local, fields, layout.comm_x);
            });
        }
        SurfaceTotals stot;
        if (!wall_patches.empty() && solver.step_count() > 0) {
            const auto faces = wall_faces(solver, local, setup);
            run_collective(world, [&] {
                ScopedTimer t("io");
                if (layout.q == 0)
                    stot = write_surface(dir + "/surface_final.h5", dir + "/surface_final.csv",
                                         layout.comm_x, mesh, faces, wall_patches, sref,
                                         cfg.resolved_yaml(), solver.step_count(), solver.time());
            });
        }
        if (!failure.empty())
            throw NumericalError(failure + " (fields_final.h5 holds the last good state)");
        timers().stop("total");
        const auto stats = timers().reduce(world);
        const nlohmann::json device_memory = device_memory_json(solver, world);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        if (world_rank == 0) {
            nlohmann::json j;
            j["case"] = setup.name;
            j["case_file"] = cl.case_file;
            j["build"] = {{"version", version_string},
                          {"commit", git_commit},
                          {"backend", backend_name},
                          {"precision", "double"},
                          {"build_type", build_type}};
            j["decomposition"] = {{"ranks", world_size},
                                  {"P_x", layout.P_x},
                                  {"P_v", layout.P_v},
                                  {"B_v", blocks.block_size},
                                  {"velocity_blocks", blocks.n_blocks},
                                  {"halo", halo_mode_of(solver)}};
            j["mesh"] = {{"dim", mesh.dim}, {"cells", mesh.n_cells()}, {"faces", mesh.n_faces()}};
            j["velocity"] = {{"type", vel.kind}, {"dim", vel.dim}, {"points", vel.size()}};
            j["steps"] = solver.step_count();
            j["restarted_from"] = restarted_from;
            j["last_checkpoint"] = last_checkpoint;
            j["stopped_by_signal"] = stop_signal ? signal_name(stop_signal) : "";
            j["time"] = solver.time();
            j["dt_estimate"] = dt;
            j["time_mode"] = setup.time.mode;
            if (monitor.active())
                j["monitor"] = {{"change", monitor_change < 1e300 ? monitor_change : -1.0},
                                {"tolerance", monitor.tolerance()},
                                {"window", monitor.window()}};
            j["final_residuals"] = {
                {"rho", last.residual[0]}, {"rhoU", last.residual[1]}, {"rhoE", last.residual[2]}};
            // The estimate (max over ranks, and rank 0's parts), the memory it was checked
            // against, and rank 0's measured resident set: at the start of the run (MPI and the
            // libraries loaded, no mesh yet) and its peak (VmHWM).
            const ProcessMemory rss_end = process_memory();
            j["memory_per_rank_bytes"] = {
                {"estimate_max", mem_max},
                {"estimate_rank0",
                 {{"total", mem.total()},
                  {"distributions", mem.distributions},
                  {"macroscopic", mem.macroscopic},
                  {"block_working_set", mem.block_working_set},
                  {"global_mesh", mem.global_mesh},
                  {"mesh_setup", mem.mesh_setup},
                  {"local_mesh", mem.local_mesh},
                  {"checkpoint_buffers", mem.io_buffers},
                  {"implicit", mem.implicit}}},
                {"available", static_cast<double>(dev_total)},
                {"available_source",
                 mem_limit > 0 ? "UGKS_TEST_MEMORY_LIMIT_BYTES" : device::device_name()},
                {"host_rss_start_rank0", rss_start.rss},
                {"host_rss_peak_rank0", rss_end.peak},
                {"device_arrays_peak", static_cast<double>(memory_tally().peak)}};
            j["memory_per_rank_bytes"].update(device_memory);
            nlohmann::json tj = nlohmann::json::object();
            for (const auto& s : stats)
                tj[s.category] = {{"min", s.min}, {"mean", s.mean}, {"max", s.max}};
            j["wall_time_s"] = tj;
            j["wall_time_total_s"] = wall;
            j["walls"] = {{"force", {stot.force[0], stot.force[1], stot.force[2]}},
                          {"heat", stot.heat},
                          {"CD", stot.CD},
                          {"CL", stot.CL}};
            j["phase_space_point_updates_per_s"] =
                loop_s > 0 ? static_cast<double>(mesh.n_cells()) * static_cast<double>(vel.size()) *
                                 steps_done / loop_s
                           : 0.0;
            write_json(dir + "/summary.json", j);
        }
        if (world_rank == 0 && !cl.quiet) {
            log::info("timers (seconds, min / mean / max over ranks):");
            for (const auto& s : stats)
                log::info("  {:<16} {:10.4f} {:10.4f} {:10.4f}", s.category, s.min, s.mean, s.max);
            log::info("results in {}/ (fields_final.h5 + .xdmf, summary.json, history.csv{})", dir,
                      setup.output.probes.empty() ? "" : ", probes_*.csv");
        }
        if (stop_signal) {
            log::error("ugks_solver: stopped by {} after step {}; continue with --restart latest",
                       signal_name(stop_signal), solver.step_count());
            outcome = RunOutcome::StoppedBySignal;
        }
        free_layout(layout);
    }
    return outcome;
}

}  // namespace

int run_case(const CommandLine& cl) {
    const RunOutcome outcome = guarded([&] {
        const RunStart start = begin_run();
        Config cfg = load_case(cl);
        if (is_overset_case(cfg)) return run_overset_case(cl, cfg);  // overset_driver.cpp
        return run_ugks_case(cl, std::move(cfg), start);
    });
    // Every rank leaves together, after rank 0 has written summary.json (callers may read it at
    // once).
    MPI_Barrier(MPI_COMM_WORLD);
    return exit_code(outcome);
}

}  // namespace ugks

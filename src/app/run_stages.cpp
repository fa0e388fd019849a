// The stages of a UGKS-mode run (run_stages.hpp).
#include "ugks/app/run_stages.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "ugks/app/output_units.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/version.hpp"
#include "ugks/core/yaml_diff.hpp"
#include "ugks/device/array.hpp"
#include "ugks/device/device.hpp"
#include "ugks/io/reports.hpp"

namespace ugks {
namespace {

/// Device memory per rank for summary.json (maximum over the ranks of `world`; collective). None
/// on the CPU backend.
template <class Solver>
nlohmann::json device_memory_json(const Solver& solver, MPI_Comm world) {
    if constexpr (std::is_same_v<Solver, UgksSolver>) {
        return nlohmann::json::object();
    } else {
        const DeviceMemoryReport r = solver.memory_report();
        double v[4] = {static_cast<double>(r.persistent), static_cast<double>(r.working_set),
                       static_cast<double>(r.peak), static_cast<double>(r.conventional)};
        MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, world);
        return {{"device_persistent", v[0]},
                {"device_block_working_set", v[1]},
                {"device_peak", v[2]},
                {"conventional_full_velocity", v[3]}};
    }
}
/// parallel.halo as resolved (summary.json decomposition.halo): host MPI on the CPU backend.
template <class Solver>
const char* halo_mode_of(const Solver& solver) {
    if constexpr (std::is_same_v<Solver, UgksSolver>)
        return "host";
    else
        return solver.halo_mode();
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

double allreduce(double v, MPI_Op op, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, op, comm);
    return v;
}
long allreduce(long v, MPI_Op op, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG, op, comm);
    return v;
}

/// Stage 1: the case sections, the mesh and the velocity space, and their checks.
/// The number of velocity points a configuration asks for, before the grid is built (tensor
/// grids: the product of the counts; nonuniform, unstructured: about target_points; file: 0, not
/// known).
double requested_velocities(const VelocityConfig& vc) {
    if (vc.type == "file") return 0.0;
    if (vc.type == "nonuniform" || vc.type == "unstructured")
        return static_cast<double>(vc.target_points);
    double n = 1.0;
    for (int d = 0; d < vc.dim; ++d) n *= static_cast<double>(vc.counts[d]);
    return n;
}

void read_case(Problem& pb) {
    Config& cfg = pb.cfg;
    CaseSetup& setup = pb.setup;
    parse_case_sections(cfg, setup);
    if (setup.mesh_config.source == "box") {
        refuse_impossible_size(box_cells(setup.mesh_config.box), 0.0, "the mesh of mesh.box.cells");
    }
    pb.mesh = load_mesh(setup.mesh_config);
    parse_velocity_section(cfg, setup, pb.mesh.dim);
    refuse_impossible_size(static_cast<double>(pb.mesh.n_cells()),
                           requested_velocities(setup.velocity_config),
                           "the case (mesh and velocity grid)");
    pb.vel = build_velocity_grid(setup.velocity_config);
    const std::string mesh_source =
        setup.mesh_config.source == "box" ? std::string("box mesh") : setup.mesh_config.file;
    pb.mirrors = check_boundaries(setup.boundaries, pb.mesh, cfg, mesh_source);
    resolve_reflections(setup.boundaries, pb.vel, pb.mirrors, cfg);
    connect_periodic(pb.mesh, periodic_pairs(setup.boundaries));
    cfg.check_unused();
    const int P_v = setup.parallel.velocity_ranks;
    if (pb.world_size % P_v != 0)
        cfg.fail(
            "parallel.velocity_ranks",
            fmt::format("{} does not divide the number of MPI ranks ({})", P_v, pb.world_size));
    const int P_x = pb.world_size / P_v;
    if (P_x > pb.mesh.n_cells())
        UGKS_INPUT_ERROR(
            fmt::format("{} physical-space ranks (MPI ranks / parallel.velocity_ranks) "
                        "exceed the {} cells of the mesh",
                        P_x, pb.mesh.n_cells()));
    pb.blocks = make_velocity_blocks(pb.vel, setup.parallel.block_size, P_v, pb.mirrors);
}

/// Stage 2: decomposition, device binding, partition and local meshes.
void decompose(Problem& pb) {
    pb.layout = make_layout(MPI_COMM_WORLD, pb.setup.parallel.velocity_ranks);
    bind_device(pb.layout);
    const std::vector<int> part = partition_cells(pb.mesh, pb.layout.P_x, MPI_COMM_WORLD);
    pb.local = build_local_mesh(pb.mesh, part, pb.layout.p);
    const std::vector<double> scales = periodic_jump_scales(pb.setup.boundaries);
    add_jump_images(pb.local, scales);
    const auto pairs = periodic_pairs(pb.setup.boundaries);
    for (std::size_t k = 0; k < pairs.size(); ++k)
        if (scales[k] != 1.0)
            log::info(
                "boundaries.{}/{}: periodic pair with a pressure jump, p({} side) / p({} side) = "
                "{:.6g} (docs/formulation.md section 8.6)",
                pairs[k].first, pairs[k].second, pairs[k].first, pairs[k].second, scales[k]);
}

/// The estimates of stage 3 (collective).
Resources estimate_resources(const Problem& pb) {
    const CaseSetup& setup = pb.setup;
    const LocalMesh& local = pb.local;
    Resources res;
    int first = 0, count = 0;
    pb.blocks.range(pb.layout.q, first, count);
    const index_t local_vel = static_cast<index_t>(count) * pb.blocks.block_size;
    res.mem =
        estimate_memory(local.n_owned + local.n_ghost, local.n_owned, local.mesh.n_faces(),
                        local_vel, pb.blocks.block_size, pb.mesh.dim, pb.store_b(),
                        mesh_bytes(pb.mesh), setup.time.implicit(), setup.numerics.fp32_storage);
    res.mem_max = allreduce(res.mem.total(), MPI_MAX, MPI_COMM_WORLD);
    res.mem_sum = allreduce(res.mem.total(), MPI_SUM, MPI_COMM_WORLD);
    res.dt = estimate_time_step(pb.mesh, pb.vel, setup.gas, setup.initial, setup.numerics.cfl);
    std::size_t dev_free = 0;
    device::memory_info(dev_free, res.available);
    // UGKS_TEST_MEMORY_LIMIT_BYTES (tests), else the device's/host's memory
    run_collective(MPI_COMM_WORLD, [&] { res.memory_override = memory_limit_override(); });
    if (res.memory_override > 0) res.available = static_cast<std::size_t>(res.memory_override);
    const MemoryEstimate& mem = res.mem;
    res.mem_parts = fmt::format(
        "distributions {}, macroscopic {}, block working set {}{}, global mesh {} (+ {} to "
        "build it), local mesh {}, checkpoint buffers {} on rank 0",
        human_bytes(mem.distributions), human_bytes(mem.macroscopic),
        human_bytes(mem.block_working_set),
        mem.implicit > 0 ? ", implicit iteration " + human_bytes(mem.implicit) : std::string(),
        human_bytes(mem.global_mesh), human_bytes(mem.mesh_setup), human_bytes(mem.local_mesh),
        human_bytes(mem.io_buffers));
    return res;
}

/// The decomposition line: ranks, owned cells and ghosts per rank, velocity blocks per rank.
void log_decomposition(const Problem& pb) {
    const long owned = pb.local.n_owned, ghosts = pb.local.n_ghost;
    const long owned_min = allreduce(owned, MPI_MIN, MPI_COMM_WORLD);
    const long owned_max = allreduce(owned, MPI_MAX, MPI_COMM_WORLD);
    const long ghost_max = allreduce(ghosts, MPI_MAX, MPI_COMM_WORLD);
    const int P_v = pb.layout.P_v, n_blocks = pb.blocks.n_blocks;
    log::info(
        "decomposition: {} ranks = P_x {} x P_v {}; owned cells per rank {}..{}, ghosts up to "
        "{}; "
        "velocity blocks per rank {}..{}",
        pb.world_size, pb.layout.P_x, P_v, owned_min, owned_max, ghost_max, n_blocks / P_v,
        (n_blocks + P_v - 1) / P_v);
}

void log_estimates(const Problem& pb, const Resources& res) {
    const Mesh& mesh = pb.mesh;
    const VelocityGrid& vel = pb.vel;
    const GasModel& gas = pb.setup.gas;
    log::info("mesh: {}D, {} cells, {} faces, {} nodes, patches: {}", mesh.dim, mesh.n_cells(),
              mesh.n_faces(), mesh.n_nodes(), fmt::join(mesh.patch_names, ", "));
    {
        // What a user checks first against the mesh generator: the extent (in the case's length
        // unit after mesh.scale), the cell types and the boundary faces of every patch.
        Vec3 lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        for (const Vec3& x : mesh.nodes)
            for (int d = 0; d < 3; ++d) {
                lo[d] = std::min(lo[d], x[d]);
                hi[d] = std::max(hi[d], x[d]);
            }
        std::map<std::string, index_t> types;
        for (const CellType t : mesh.cell_type) ++types[cell_type_name(t)];
        std::vector<index_t> per_patch(mesh.patch_names.size(), 0);
        for (index_t f = 0; f < mesh.n_faces(); ++f)
            if (mesh.face_patch[f] >= 0 && mesh.face_patch[f] < static_cast<int>(per_patch.size()))
                ++per_patch[static_cast<std::size_t>(mesh.face_patch[f])];
        std::vector<std::string> box, type_text, patch_text;
        for (int d = 0; d < mesh.dim; ++d)
            box.push_back(fmt::format("[{:.6g}, {:.6g}]", lo[d], hi[d]));
        for (const auto& [name, n] : types) type_text.push_back(fmt::format("{} {}", n, name));
        for (std::size_t k = 0; k < per_patch.size(); ++k)
            patch_text.push_back(fmt::format("{} {}", mesh.patch_names[k], per_patch[k]));
        log::info("mesh bounding box {}; cells: {}; boundary faces per patch: {}",
                  fmt::join(box, " x "), fmt::join(type_text, ", "), fmt::join(patch_text, ", "));
    }
    log::info(
        "velocity space: {} ({}D), {} points, block size B_v = {}, {} blocks ({} padded slots); "
        "distributions stored in {}",
        vel.kind, vel.dim, vel.size(), pb.blocks.block_size, pb.blocks.n_blocks,
        static_cast<index_t>(pb.blocks.n_blocks) * pb.blocks.block_size - vel.size(),
        pb.setup.numerics.fp32_storage ? "single precision (numerics.storage fp32)"
                                       : "double precision (numerics.storage fp64)");
    if (pb.setup.numerics.fp32_storage && pb.setup.time.steady_tolerance > 0 &&
        pb.setup.time.steady_tolerance < 1e-7)
        log::info(
            "numerics.storage fp32: the rounding of the stored distributions leaves a residual "
            "floor near 1e-7; time.steady_tolerance {} may not be reached (docs/decisions.md "
            "\"Single-precision storage\")",
            pb.setup.time.steady_tolerance);
    log_decomposition(pb);
    log::info("memory estimate per rank: max {} ({}); all ranks {}; memory of {}: {}{}",
              human_bytes(res.mem_max), res.mem_parts, human_bytes(res.mem_sum),
              device::device_name(), human_bytes(static_cast<double>(res.available)),
              res.memory_override > 0 ? " (UGKS_TEST_MEMORY_LIMIT_BYTES)" : "");
    log::info(
        "gas: Kn = {} ({}), mu_ref = {:.6g}, omega = {}, Pr = {:.6g}, K_int = {}, gamma = "
        "{:.6g}",
        gas.Kn, gas.kn_definition, gas.mu_ref, gas.omega, gas.Pr, gas.K_int, gas.gamma());
    log::info("{}", describe_reference(gas));
    log::info("time step estimate (initial state, CFL {}): dt = {:.6e}", pb.setup.numerics.cfl,
              res.dt);
}

/// Refuse at start what cannot fit (issue 7). CPU backend: everything per node (the node's ranks
/// together) against the host's memory. GPU builds: the solver's arrays per rank against its
/// device's memory, and the meshes and checkpoint buffers per node against the host's memory. The
/// smallest memory of any rank decides.
/// The memory the estimate needs and the memory it is checked against (smallest of any rank; 0:
/// unknown). GPU builds: the solver's arrays per rank against the device; CPU builds: everything
/// of all ranks of a node against the host. Collective.
struct MemoryNeed {
    double need = 0, avail = 0;
};
MemoryNeed memory_need(const Problem& pb, const Resources& res) {
    const MPI_Comm world = MPI_COMM_WORLD, node = pb.layout.comm_node;
    constexpr bool gpu = device::capabilities().gpu;
    MemoryNeed m;
    m.avail = allreduce(static_cast<double>(res.available), MPI_MIN, world);
    m.need = gpu ? allreduce(res.mem.device_part(), MPI_MAX, world)
                 : allreduce(allreduce(res.mem.total(), MPI_SUM, node), MPI_MAX, world);
    return m;
}

void refuse_oversize(const Problem& pb, const Resources& res) {
    const MPI_Comm world = MPI_COMM_WORLD, node = pb.layout.comm_node;
    const MemoryEstimate& mem = res.mem;
    const double limit = res.memory_override;
    const auto [need, avail] = memory_need(pb, res);
    constexpr bool gpu = device::capabilities().gpu;
    const char* scope = gpu ? "per rank (device arrays)" : "per node (all ranks of a node)";
    if (gpu) {
        const double host_node =
            allreduce(allreduce(mem.host_part(), MPI_SUM, node), MPI_MAX, world);
        const double host_avail =
            allreduce(limit > 0 ? limit : host_physical_memory(), MPI_MIN, world);
        if (host_avail > 0 && host_node > host_avail)
            UGKS_INPUT_ERROR(fmt::format(
                "the memory estimate per node (host part of all ranks of a node: meshes "
                "and checkpoint buffers) {} ({} on rank 0) exceeds the memory of the host "
                "({}{}): use more nodes or fewer cells or velocities",
                human_bytes(host_node), res.mem_parts, human_bytes(host_avail),
                limit > 0 ? ", UGKS_TEST_MEMORY_LIMIT_BYTES" : ""));
    }
    if (avail > 0 && need > avail)
        UGKS_INPUT_ERROR(fmt::format(
            "the memory estimate {} ({}; per rank max {}: {}) exceeds the memory of {} "
            "({}{}): use more ranks (MPI ranks, parallel.velocity_ranks) or fewer cells or "
            "velocities",
            scope, human_bytes(need), human_bytes(res.mem_max), res.mem_parts,
            device::device_name(), human_bytes(avail),
            limit > 0 ? ", UGKS_TEST_MEMORY_LIMIT_BYTES" : ""));
}

/// summary.json's memory_per_rank_bytes: the estimate (max over ranks, and rank 0's parts), the
/// memory it was checked against, and rank 0's measured resident set: at the start of the run
/// (MPI and the libraries loaded, no mesh yet) and its peak (VmHWM).
nlohmann::json memory_json(const RunContext& ctx, const Resources& res) {
    const MemoryEstimate& mem = res.mem;
    const ProcessMemory rss_end = process_memory();
    return {{"estimate_max", res.mem_max},
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
            {"available", static_cast<double>(res.available)},
            {"available_source",
             res.memory_override > 0 ? "UGKS_TEST_MEMORY_LIMIT_BYTES" : device::device_name()},
            {"host_rss_start_rank0", ctx.start.rss.rss},
            {"host_rss_peak_rank0", rss_end.peak},
            {"device_arrays_peak", static_cast<double>(memory_tally().peak)}};
}

/// summary.json's description of the run: case, build, decomposition, mesh, velocity space, steps.
nlohmann::json run_json(const RunContext& ctx, const Resources& res, const LoopEnd& end) {
    const Problem& pb = ctx.pb;
    nlohmann::json j;
    j["case"] = pb.setup.name;
    j["case_file"] = ctx.cl.case_file;
    j["build"] = {{"version", version_string},
                  {"commit", git_commit},
                  {"backend", backend_name},
                  {"precision", "double"},
                  {"storage", pb.setup.numerics.fp32_storage ? "fp32" : "fp64"},
                  {"build_type", build_type}};
    j["decomposition"] = {{"ranks", pb.world_size},
                          {"P_x", pb.layout.P_x},
                          {"P_v", pb.layout.P_v},
                          {"B_v", pb.blocks.block_size},
                          {"velocity_blocks", pb.blocks.n_blocks},
                          {"halo", halo_mode_of(ctx.solver)}};
    if (!pb.tuning.is_null()) j["decomposition"]["auto"] = pb.tuning;
    j["mesh"] = {{"dim", pb.mesh.dim}, {"cells", pb.mesh.n_cells()}, {"faces", pb.mesh.n_faces()}};
    j["velocity"] = {{"type", pb.vel.kind}, {"dim", pb.vel.dim}, {"points", pb.vel.size()}};
    j["steps"] = ctx.solver.step_count();
    j["restarted_from"] = ctx.restarted_from;
    j["run_id"] = ctx.run_id;
    const OutputUnits units = OutputUnits::of(pb.setup, pb.mesh.dim);
    units.summarize(j);
    j["time"] = ctx.solver.time() * units.scale(Quantity::time);
    j["dt_estimate"] = res.dt * units.scale(Quantity::time);
    j["time_mode"] = pb.setup.time.mode;
    j["final_residuals"] = {{"rho", end.last.residual[0]},
                            {"rhoU", end.last.residual[1]},
                            {"rhoE", end.last.residual[2]}};
    j["phase_space_point_updates_per_s"] =
        end.seconds > 0 ? static_cast<double>(pb.mesh.n_cells()) *
                              static_cast<double>(pb.vel.size()) * end.steps / end.seconds
                        : 0.0;
    return j;
}

}  // namespace

Problem build_problem(Config cfg) {
    timers().start("setup");
    Problem pb;
    pb.cfg = std::move(cfg);
    MPI_Comm_rank(MPI_COMM_WORLD, &pb.world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pb.world_size);
    // Every rank reads the same inputs, so errors agree; the collective check also covers errors
    // seen by only some ranks (e.g. a file system hiccup).
    run_collective(MPI_COMM_WORLD, [&] { read_case(pb); });
    run_collective(MPI_COMM_WORLD, [&] { decompose(pb); });
    timers().stop("setup");
    return pb;
}

bool fits_memory(const Problem& pb) {
    const MemoryNeed m = memory_need(pb, estimate_resources(pb));
    return m.avail <= 0 || m.need <= m.avail;
}

void redecompose(Problem& pb, int block_size, int velocity_ranks) {
    run_collective(MPI_COMM_WORLD, [&] {
        const bool same_split = velocity_ranks == pb.layout.P_v;
        pb.setup.parallel.block_size = block_size;
        pb.setup.parallel.velocity_ranks = velocity_ranks;
        pb.blocks = make_velocity_blocks(pb.vel, block_size, velocity_ranks, pb.mirrors);
        if (same_split) return;  // the layout and the local meshes do not depend on B_v
        free_layout(pb.layout);
        decompose(pb);
    });
}

void log_start(const Problem& pb, const CommandLine& cl) {
    log::info("ugks_solver {} (commit {}, backend {}, {} build)", version_string, git_commit,
              backend_name, build_type);
    log::info("case '{}' from {}", pb.setup.name, cl.case_file);
    log::info("---- resolved configuration ----\n{}\n--------------------------------",
              pb.cfg.resolved_yaml());
    const std::string map = rank_map(pb.layout);
    log::info("rank map (world rank, host, local rank, device, visible devices, p, q):\n{}", map);
}

Resources check_resources(const Problem& pb) {
    const Resources res = estimate_resources(pb);
    log_estimates(pb, res);
    refuse_oversize(pb, res);
    return res;
}

void prepare_output_directory(const Problem& pb) {
    // Only the velocity group q = 0 writes fields (W is replicated over comm_v).
    const std::string& dir = pb.setup.output.directory;
    run_collective(MPI_COMM_WORLD, [&] {
        if (pb.world_rank != 0) return;
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec || !std::filesystem::is_directory(dir))
            pb.cfg.fail("output.directory",
                        "cannot create directory '" + dir + "': " + ec.message());
    });
}

namespace {

/// Keys a restart may change without changing the case it continues: how long and how far to
/// run, the outputs and checkpoints, the decomposition, the name, the initial state (which the
/// checkpoint's replaces) and the storage precision of the distributions (a restart across
/// storage kinds is supported: docs/decisions.md "Single-precision storage"). Every other key (gas,
/// mesh, velocity, boundaries, numerics, the time mode and method, units) defines the case
/// (docs/decisions.md "Checkpoints belong to their run").
bool run_control_key(const std::string& path) {
    static const char* const keys[] = {"name",
                                       "time.steps",
                                       "time.end_time",
                                       "time.steady_tolerance",
                                       "time.monitor_tolerance",
                                       "time.monitor_window",
                                       "time.divergence_factor",
                                       "time.stagnation_window",
                                       "time.limiter_freeze",
                                       "time.limiter_freeze_window",
                                       "checkpoint",
                                       "output",
                                       "parallel",
                                       "initial",
                                       "numerics.storage"};
    for (const char* k : keys) {
        const std::size_t n = std::char_traits<char>::length(k);
        if (path.compare(0, n, k) == 0 && (path.size() == n || path[n] == '.')) return true;
    }
    return false;
}

/// The settings of the case that differ from those a checkpoint was written with, as
/// "key: before -> after" (at most 8, then a count).
std::string changed_case_settings(const CheckpointInfo& info, const Problem& pb,
                                  const std::string& path) {
    std::vector<std::string> parts;
    std::size_t n = 0;
    for (const YamlChange& c : yaml_changes(info.config, pb.cfg.resolved_yaml(),
                                            "checkpoint '" + path + "': attribute 'config'")) {
        if (run_control_key(c.path)) continue;
        if (++n <= 8) parts.push_back(c.path + ": " + c.before + " -> " + c.after);
    }
    if (n > 8) parts.push_back(fmt::format("and {} more", n - 8));
    return fmt::format("{}", fmt::join(parts, ", "));
}

/// A checkpoint file of output.directory and what its header says ("" problem: readable).
struct FoundCheckpoint {
    std::string path, problem;
    CheckpointInfo info;
};

/// The checkpoints of `dir`, highest step first, with their headers (serial: rank 0).
std::vector<FoundCheckpoint> examine_checkpoints(const std::string& dir) {
    std::vector<FoundCheckpoint> out;
    for (const std::string& f : list_checkpoints(dir)) {
        FoundCheckpoint c{f, "", {}};
        try {
            c.info = read_checkpoint_header(f);
        } catch (const InputError& e) {
            c.problem = e.what();
        }
        out.push_back(std::move(c));
    }
    return out;
}

std::string run_name(const std::string& id) {
    return id.empty() ? std::string("of no run (format version 1)") : "of run " + id;
}

/// A new run id, made on rank 0 and the same on every rank.
std::string agreed_new_run_id(const Problem& pb) {
    return bcast_lines({pb.world_rank == 0 ? make_run_id() : std::string()}, MPI_COMM_WORLD).at(0);
}

/// The candidates of --restart latest, in the order to try them: the checkpoints of the run that
/// wrote the newest one (written_at), highest step first. Rank 0 examines the directory and warns
/// about unreadable files and other runs' files; the list is broadcast.
std::vector<std::string> latest_candidates(const Problem& pb, const std::string& dir) {
    std::vector<std::string> lines;
    if (pb.world_rank == 0) {
        const std::vector<FoundCheckpoint> found = examine_checkpoints(dir);
        const FoundCheckpoint* newest = nullptr;
        for (const auto& c : found) {
            if (!c.problem.empty())
                log::error("warning: skipping {}", c.problem);
            else if (!newest || c.info.written_at > newest->info.written_at)
                newest = &c;
        }
        std::vector<std::string> others;
        for (const auto& c : found) {
            if (!c.problem.empty()) continue;
            if (c.info.run_id == newest->info.run_id)
                lines.push_back(c.path);
            else
                others.push_back(
                    fmt::format("{} ({}, step {})", c.path, run_name(c.info.run_id), c.info.step));
        }
        if (!others.empty())
            log::error(
                "warning: --restart latest continues the run that wrote the newest checkpoint "
                "({}, {}); output.directory also holds checkpoints of other runs, not "
                "considered: {} (name one with --restart FILE to continue it)",
                newest->path, run_name(newest->info.run_id), fmt::join(others, ", "));
        if (found.empty()) lines.push_back("");  // no checkpoint at all
    }
    return bcast_lines(lines, MPI_COMM_WORLD);
}

/// The run id of a run continued from checkpoint `path` (header `info`): the checkpoint's own,
/// unless --new-run, a version-1 file (no id), or output.directory holds a later checkpoint of
/// that run (a restart from an earlier step starts a branch, so that pruning never removes the
/// later files).
std::string continued_run_id(const Problem& pb, const CommandLine& cl, const std::string& path,
                             const CheckpointInfo& info) {
    std::string why;
    if (cl.new_run)
        why = "--new-run";
    else if (info.run_id.empty())
        why = "the checkpoint has no run id (format version 1)";
    else if (pb.world_rank == 0)
        for (const auto& c : examine_checkpoints(pb.setup.output.directory))
            if (c.problem.empty() && c.info.run_id == info.run_id && c.info.step > info.step) {
                why = fmt::format(
                    "output.directory holds a later checkpoint of run {} ({}, step "
                    "{}), which is kept",
                    info.run_id, c.path, c.info.step);
                break;
            }
    why = bcast_lines({why}, MPI_COMM_WORLD).at(0);
    if (why.empty()) {
        log::info("run id {} (continued from {})", info.run_id, path);
        return info.run_id;
    }
    const std::string id = agreed_new_run_id(pb);
    log::info("run id {}: a new run from {} ({}) because {}", id, path, run_name(info.run_id), why);
    return id;
}

}  // namespace

RunOrigin restart_solver(StepSolver& solver, const Problem& pb, const CommandLine& cl) {
    const std::string& dir = pb.setup.output.directory;
    if (cl.restart.empty()) {
        // A fresh run: another run's checkpoints in output.directory would be mixed with this
        // run's (and --restart latest could later pick them): refused unless --new-run.
        const std::vector<std::string> existing =
            bcast_lines(pb.world_rank == 0 ? list_checkpoints(dir) : std::vector<std::string>{},
                        MPI_COMM_WORLD);
        if (!existing.empty() && !cl.new_run) {
            std::vector<std::string> names;
            for (std::size_t k = 0; k < existing.size() && k < 3; ++k)
                names.push_back(std::filesystem::path(existing[k]).filename().string());
            if (existing.size() > 3) names.push_back(fmt::format("{} more", existing.size() - 3));
            UGKS_INPUT_ERROR("output.directory '"
                             << dir << "' holds checkpoints of an earlier run ("
                             << fmt::format("{}", fmt::join(names, ", "))
                             << "): continue it with --restart latest, choose another "
                                "output.directory, or pass --new-run to start a new run there "
                                "(the earlier run's checkpoints are then kept)");
        }
        const std::string id = agreed_new_run_id(pb);
        if (existing.empty())
            log::info("run id {} (a new run)", id);
        else
            log::info("run id {} (a new run, --new-run: the {} checkpoints already in {} are kept)",
                      id, existing.size(), dir);
        return {"", id};
    }
    // --restart FILE, or the newest checkpoint of the run of output.directory that wrote last and
    // passes every check (a damaged newest file is skipped with a warning). read_checkpoint agrees
    // on errors.
    ScopedTimer t("io");
    const bool latest = cl.restart == "latest";
    std::vector<std::string> candidates{cl.restart};
    if (latest) {
        candidates = latest_candidates(pb, dir);
        if (candidates.size() == 1 && candidates[0].empty())
            UGKS_INPUT_ERROR("--restart latest: no checkpoint_*.h5 in output.directory '" << dir
                                                                                          << "'");
    }
    const CheckpointLayout ckl = pb.checkpoint_layout();
    std::string skipped;
    for (const auto& c : candidates) {
        CheckpointInfo info;
        try {
            SolverState st = read_checkpoint(c, ckl, &info);
            if (st.limiter.step >= 0 && pb.setup.time.limiter_freeze == "off") {
                log::info(
                    "note: {} holds limiter factors frozen after step {}; time.limiter_freeze is "
                    "off, so this run uses the live limiter (docs/steady.md section 7.10)",
                    c, st.limiter.step);
                st.limiter = FrozenLimiter{};
            }
            solver.state_import(st);
        } catch (const InputError& e) {
            if (!latest) throw;
            log::error("warning: skipping {}", e.what());
            skipped += std::string("; ") + e.what();
            continue;
        }
        if (const std::string changed = changed_case_settings(info, pb, c); !changed.empty()) {
            if (latest)
                UGKS_INPUT_ERROR("--restart latest: checkpoint '"
                                 << c << "' (step " << info.step << ", " << run_name(info.run_id)
                                 << ") was written with other settings of the case: " << changed
                                 << "; to continue it with this case's settings name it: "
                                    "--restart "
                                 << c);
            log::error(
                "warning: checkpoint '{}' was written with other settings of the case: {}; "
                "the run continues it with this case's settings",
                c, changed);
        }
        log::info("restarted from {} at step {}, t = {:.6e} (written by ugks_solver {})", c,
                  info.step, info.time, info.version);
        return {c, continued_run_id(pb, cl, c, info)};
    }
    UGKS_INPUT_ERROR("--restart latest: no valid checkpoint in output.directory '" << dir << "'"
                                                                                   << skipped);
}

namespace {

/// {min, mean, max, rank0} of one counter, divided by `div`.
nlohmann::json traffic_stat_json(const TrafficStat& s, double div) {
    return {{"min", s.min / div},
            {"mean", s.mean / div},
            {"max", s.max / div},
            {"rank0", s.rank0 / div}};
}

/// summary.json `traffic` (docs/usage.md): per counter the bytes moved inside the time steps of
/// this run (total and per step, min/mean/max over ranks and rank 0's value) and the rest of the
/// run's counted bytes (set-up, initial upload, outputs). Collective.
struct TrafficReport {
    nlohmann::json json;
    std::vector<TrafficStat> per_step;  ///< the step totals over the ranks
};
TrafficReport traffic_report(const LoopEnd& end, MPI_Comm world) {
    const std::vector<TrafficStat> steps = reduce_traffic(end.step_traffic, world);
    const std::vector<TrafficStat> other =
        reduce_traffic(traffic_snapshot() - end.step_traffic, world);
    TrafficReport r;
    const double n = end.steps > 0 ? static_cast<double>(end.steps) : 1.0;
    nlohmann::json total = nlohmann::json::object(), per = nlohmann::json::object(),
                   outside = nlohmann::json::object();
    for (std::size_t k = 0; k < steps.size(); ++k) {
        total[steps[k].name] = traffic_stat_json(steps[k], 1.0);
        per[steps[k].name] = traffic_stat_json(steps[k], n);
        outside[other[k].name] = traffic_stat_json(other[k], 1.0);
    }
    r.json = {{"unit", "bytes"},
              {"steps", end.steps},
              {"total", total},
              {"per_step", end.steps > 0 ? per : nlohmann::json(nullptr)},
              {"outside_steps", outside}};
    r.per_step = steps;
    for (auto& s : r.per_step) {
        s.min /= n;
        s.mean /= n;
        s.max /= n;
        s.rank0 /= n;
    }
    return r;
}

/// The end-of-run log line of rank 0's bytes per step.
std::string traffic_line(const std::vector<TrafficStat>& per_step) {
    auto at = [&](Traffic c) { return format_bytes(per_step[static_cast<int>(c)].rank0); };
    return fmt::format(
        "H2D {}, D2H {}, MPI sent {} / received {}, NCCL sent {}, reductions C_v {}, C_x {}, "
        "world {}",
        at(Traffic::H2D), at(Traffic::D2H), at(Traffic::MpiSent), at(Traffic::MpiRecv),
        at(Traffic::NcclSent), at(Traffic::ReduceV), at(Traffic::ReduceX),
        at(Traffic::ReduceWorld));
}

}  // namespace

void write_summary(const RunContext& ctx, const Resources& res, const LoopEnd& end,
                   const nlohmann::json& entries) {
    const MPI_Comm world = MPI_COMM_WORLD;
    timers().stop("total");
    const auto stats = timers().reduce(world);
    const TrafficReport traffic = traffic_report(end, world);
    const nlohmann::json device_memory = device_memory_json(ctx.solver, world);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.start.time).count();
    // Rank 0 writes; every rank agrees on the outcome (summary.json unwritable: exit 2 on all).
    run_collective(world, [&] {
        if (ctx.pb.world_rank != 0) return;
        nlohmann::json j = run_json(ctx, res, end);
        j.update(entries);
        j["memory_per_rank_bytes"] = memory_json(ctx, res);
        j["memory_per_rank_bytes"].update(device_memory);
        nlohmann::json tj = nlohmann::json::object();
        for (const auto& s : stats)
            tj[s.category] = {{"min", s.min}, {"mean", s.mean}, {"max", s.max}};
        j["wall_time_s"] = tj;
        j["wall_time_total_s"] = wall;
        j["traffic"] = traffic.json;
        write_json(ctx.dir + "/summary.json", j);
    });
    if (ctx.pb.world_rank == 0 && !ctx.cl.quiet) {
        log::info("timers (seconds, min / mean / max over ranks):");
        for (const auto& s : stats)
            log::info("  {:<16} {:10.4f} {:10.4f} {:10.4f}", s.category, s.min, s.mean, s.max);
        if (end.steps > 0)
            log::info("traffic per step (rank 0): {}", traffic_line(traffic.per_step));
        log::info("results in {}/ (fields_final.h5 + .xdmf, summary.json, history.csv{})", ctx.dir,
                  ctx.pb.setup.output.probes.empty() ? "" : ", probes_*.csv");
    }
}

}  // namespace ugks

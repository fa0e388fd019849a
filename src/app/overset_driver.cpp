// Overset mode driver (issue 6): case -> grids -> assembly per moving step -> outputs.
#include "ugks/app/overset_driver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ugks/app/case_setup.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/version.hpp"
#include "ugks/io/reports.hpp"
#include "ugks/overset/distributed.hpp"
#include "ugks/overset/overset.hpp"
#include "ugks/parallel/layout.hpp"

namespace ugks::overset {
// summary.json: the counts and the phase times of an assembly under their member names
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AssemblyCounts, nodes, active_nodes, inactive_nodes, cells,
                                   active_cells, fringe_cells, hole_cells, receptors, orphans,
                                   islands_removed, hole_cut)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AssemblyTimes, motion, wall_tree_build, wall_query,
                                   donor_tree_build, donor_query, hole_cut, classification,
                                   donor_stencils, transfers, mpi)
}  // namespace ugks::overset

namespace ugks {

bool is_overset_case(const Config& cfg) {
    const YAML::Node m = cfg.root()["mode"];
    return m && m.IsScalar() && m.Scalar() == "overset";
}

namespace {

using overset::AssemblyCounts;
using overset::AssemblyTimes;

const char* motion_name(const overset::Motion& m) {
    switch (m.type) {
        case overset::Motion::Type::Translation:
            return "translation";
        case overset::Motion::Type::Rotation:
            return "rotation";
        case overset::Motion::Type::Poses:
            return "poses";
        default:
            return "fixed";
    }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The run's MPI ranks and its grids (every rank holds the whole system: the meshes are read on
/// every rank; with more than one rank each assembles its part (distributed.hpp) and rank 0
/// gathers the output steps).
struct OversetRun {
    OversetRun(const CommandLine& c, const Config& f, const overset::OversetCase& o)
        : cl(c), cfg(f), oc(o) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    const CommandLine& cl;
    const Config& cfg;
    const overset::OversetCase& oc;
    int rank = 0, size = 1;
    overset::OversetSystem sys;
    overset::DistributedSystem dsys;
};

/// What the steps leave for summary.json.
struct OversetRecord {
    AssemblyTimes total;
    AssemblyCounts last;
    index_t max_orphans = 0;
    double io_s = 0;
    nlohmann::json history = nlohmann::json::array();
    std::vector<std::string> written;
};

/// The case sections and the meshes of the grids, with their checks (collective).
std::vector<Mesh> load_grids(const CommandLine& cl, Config& cfg, overset::OversetCase& oc) {
    std::vector<Mesh> meshes;
    run_collective(MPI_COMM_WORLD, [&] {
        oc = overset::parse_overset_case(cfg);
        for (std::size_t i = 0; i < oc.grids.size(); ++i) {
            try {
                if (oc.grids[i].mesh.source == "box")
                    refuse_impossible_size(box_cells(oc.grids[i].mesh.box), 0.0, "the box mesh");
                meshes.push_back(load_mesh(oc.grids[i].mesh));
            } catch (const InputError& e) {
                UGKS_INPUT_ERROR("overset.grids." << i << ".mesh (grid '" << oc.grids[i].name
                                                  << "'): " << e.what());
            }
        }
        overset::check_case_meshes(cfg, oc, meshes);
        cfg.check_unused();
        if (!cl.restart.empty())
            UGKS_INPUT_ERROR(
                "--restart: overset mode has no checkpoints (each step is "
                "assembled from the prescribed motion)");
    });
    return meshes;
}

void log_grids(const overset::OversetCase& oc, const std::vector<Mesh>& meshes, int size) {
    log::info("ugks_solver {} ({}), overset mode: case '{}', {} grids, {} steps", version_string,
              backend_name, oc.name, oc.grids.size(), oc.steps);
    for (std::size_t i = 0; i < oc.grids.size(); ++i)
        log::info("  grid {:<16} layer {}  {}D  {} nodes  {} cells  walls [{}]  motion {}",
                  oc.grids[i].name, oc.grids[i].layer, meshes[i].dim, meshes[i].n_nodes(),
                  meshes[i].n_cells(), fmt::join(oc.grids[i].walls, ", "),
                  motion_name(oc.grids[i].motion));
    if (size > 1)
        log::info(
            "  assembly distributed over {} ranks (cells split by coordinate bisection; "
            "host backend on every rank)",
            size);
}

/// output.directory (rank 0; collective).
void create_output_directory(const std::string& dir, int rank) {
    run_collective(MPI_COMM_WORLD, [&] {
        if (rank != 0) return;
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) UGKS_INPUT_ERROR("output.directory: cannot create '" << dir << "'");
    });
}

/// The system of the grids, distributed over the ranks when there are several.
void make_system(OversetRun& run, std::vector<Mesh> meshes) {
    run_collective(MPI_COMM_WORLD, [&] {
        run.sys = overset::make_system(run.oc, std::move(meshes));
        if (run.size > 1) {
            run.sys.backend = overset::Backend::Host;
            run.dsys = overset::distribute(run.sys, MPI_COMM_WORLD);
        }
    });
    std::string where = run.sys.backend == overset::Backend::Device ? "CUDA device" : "host";
    if (run.size > 1) where = "host of every rank";
    log::info("  assembly on the {} (overset.backend {}{})", where, run.oc.backend,
              run.size > 1 ? ", which applies to one rank only" : "");
}

/// The assembly of step s, its output when due, and its record.
void assembly_step(OversetRun& run, long s, OversetRecord& rec) {
    const overset::OversetCase& oc = run.oc;
    const double t = static_cast<double>(s) * oc.dt;
    AssemblyTimes tm;
    rec.last = run.size > 1 ? overset::assemble_distributed(run.dsys, t, &tm)
                            : overset::assemble(run.sys, t, &tm);
    rec.max_orphans = std::max(rec.max_orphans, rec.last.orphans);
    if (s == oc.steps || (oc.output_every > 0 && s % oc.output_every == 0) || s == 0) {
        if (run.size > 1) overset::gather_state(run.dsys, run.sys, &tm.mpi);
        const auto t0 = std::chrono::steady_clock::now();
        run_collective(MPI_COMM_WORLD, [&] {
            if (run.rank == 0)
                rec.written.push_back(overset::write_overset_step(
                    oc.output_directory, s, t, run.sys, run.cfg.resolved_yaml()));
        });
        rec.io_s += seconds_since(t0);
    }
    rec.total += tm;
    nlohmann::json js = rec.last;
    js["step"] = s;
    js["time"] = t;
    js["assembly_seconds"] = tm.total();
    rec.history.push_back(js);
    log::info(
        "step {:>6}  t {:<10.4g} active {} fringe {} hole cells {}  receptors "
        "{}  orphans {}  {:.3f} s",
        s, t, rec.last.active_cells, rec.last.fringe_cells, rec.last.hole_cells, rec.last.receptors,
        rec.last.orphans, tm.total());
}

/// The first 100 orphan receptors (grid, node, coordinates).
nlohmann::json orphans_json(const overset::OversetSystem& sys) {
    nlohmann::json orphans = nlohmann::json::array();
    for (const auto& g : sys.grids)
        for (std::size_t r = 0; r < g.fringe_node.size() && orphans.size() < 100; ++r)
            if (g.fringe_donor_cell[r] < 0) {
                const index_t v = g.fringe_node[r];
                orphans.push_back({{"grid", g.name},
                                   {"node", v},
                                   {"xyz", {g.xyz[3 * v], g.xyz[3 * v + 1], g.xyz[3 * v + 2]}}});
            }
    return orphans;
}

/// Per grid: name, layer, motion, sizes and the final classification.
nlohmann::json grids_json(const overset::OversetSystem& sys) {
    nlohmann::json grids = nlohmann::json::array();
    for (const auto& g : sys.grids) {
        index_t act = 0, fr = 0, hole = 0;
        for (const auto c : g.cell_status) (c == 1 ? act : c == 0 ? hole : fr)++;
        grids.push_back({{"name", g.name},
                         {"layer", g.layer},
                         {"motion", motion_name(g.motion)},
                         {"nodes", g.mesh.n_nodes()},
                         {"cells", g.mesh.n_cells()},
                         {"wall_nodes", g.wall_nodes.size()},
                         {"active_cells", act},
                         {"fringe_cells", fr},
                         {"hole_cells", hole},
                         {"receptors", g.fringe_node.size()},
                         {"orphans", g.n_orphans}});
    }
    return grids;
}

/// summary.json of the run (rank 0; collective) and the orphan warning.
void write_overset_summary(const OversetRun& run, const OversetRecord& rec,
                           std::chrono::steady_clock::time_point t_start) {
    run_collective(MPI_COMM_WORLD, [&] {
        if (run.rank != 0) return;
        const overset::OversetCase& oc = run.oc;
        nlohmann::json j;
        j["case"] = oc.name;
        j["case_file"] = run.cl.case_file;
        j["mode"] = "overset";
        j["build"] = {
            {"version", version_string},
            {"commit", git_commit},
            {"backend", backend_name},
            {"build_type", build_type},
            {"overset_backend", run.sys.backend == overset::Backend::Device ? "cuda" : "cpu"}};
        j["ranks"] = run.size;
        j["dim"] = run.sys.dim;
        j["layer_spacing"] = oc.layer_spacing;
        j["steps"] = oc.steps;
        j["dt"] = oc.dt;
        j["final_time"] = static_cast<double>(oc.steps) * oc.dt;
        j["grids"] = grids_json(run.sys);
        j["counts"] = rec.last;
        j["max_orphans_over_steps"] = rec.max_orphans;
        j["orphans"] = orphans_json(run.sys);
        nlohmann::json tj = rec.total;
        tj["assembly_total"] = rec.total.total();
        tj["io"] = rec.io_s;
        tj["per_step_mean"] = rec.total.total() / static_cast<double>(oc.steps + 1);
        tj["total"] = seconds_since(t_start);
        j["timings_seconds"] = tj;
        j["history"] = rec.history;
        j["outputs"] = rec.written;
        write_json(oc.output_directory + "/summary.json", j);
        if (rec.max_orphans > 0)
            log::error("ugks_solver: warning: {} orphan receptor(s) (see summary.json)",
                       rec.max_orphans);
    });
}

}  // namespace

RunOutcome run_overset_case(const CommandLine& cl, Config& cfg) {
    const auto t_start = std::chrono::steady_clock::now();
    overset::OversetCase oc;
    std::vector<Mesh> meshes = load_grids(cl, cfg, oc);
    OversetRun run(cl, cfg, oc);
    log_grids(oc, meshes, run.size);
    if (cl.check) {
        log::info("check: case and meshes are valid; nothing written");
        return RunOutcome::Success;
    }
    create_output_directory(oc.output_directory, run.rank);
    make_system(run, std::move(meshes));
    OversetRecord rec;
    for (long s = 0; s <= oc.steps; ++s) assembly_step(run, s, rec);
    write_overset_summary(run, rec, t_start);
    return RunOutcome::Success;
}

}  // namespace ugks

// Overset mode driver (issue 6): case file -> grids -> assembly per moving step -> outputs.
#include "ugks/app/overset_driver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/version.hpp"
#include "ugks/io/config.hpp"
#include "ugks/io/reports.hpp"
#include "ugks/overset/distributed.hpp"
#include "ugks/overset/overset.hpp"
#include "ugks/parallel/layout.hpp"

namespace ugks {

bool is_overset_case(const CommandLine& cl) {
    try {
        Config cfg = Config::from_file(cl.case_file);
        for (const auto& o : cl.overrides) cfg.apply_override(o);
        const YAML::Node m = cfg.root()["mode"];
        return m && m.IsScalar() && m.Scalar() == "overset";
    } catch (const std::exception&) {
        return false;
    }
}

namespace {

nlohmann::json counts_json(const overset::AssemblyCounts& c) {
    return {{"nodes", c.nodes},
            {"active_nodes", c.active_nodes},
            {"inactive_nodes", c.inactive_nodes},
            {"cells", c.cells},
            {"active_cells", c.active_cells},
            {"fringe_cells", c.fringe_cells},
            {"hole_cells", c.hole_cells},
            {"receptors", c.receptors},
            {"orphans", c.orphans},
            {"islands_removed", c.islands_removed},
            {"hole_cut", c.hole_cut}};
}

nlohmann::json times_json(const overset::AssemblyTimes& t) {
    return {{"motion", t.motion},
            {"wall_tree_build", t.wall_tree_build},
            {"wall_query", t.wall_query},
            {"donor_tree_build", t.donor_tree_build},
            {"donor_query", t.donor_query},
            {"hole_cut", t.hole_cut},
            {"classification", t.classification},
            {"donor_stencils", t.donor_stencils},
            {"transfers", t.transfers},
            {"mpi", t.mpi},
            {"assembly_total", t.total()}};
}

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

}  // namespace

int run_overset_case(const CommandLine& cl) {
    const auto t_start = std::chrono::steady_clock::now();
    MPI_Comm world = MPI_COMM_WORLD;
    int rank = 0, size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    Config cfg;
    overset::OversetCase oc;
    std::vector<Mesh> meshes;
    int code = kExitSuccess;
    try {
        run_collective(world, [&] {
            cfg = Config::from_file(cl.case_file);
            for (const auto& o : cl.overrides) cfg.apply_override(o);
            oc = overset::parse_overset_case(cfg);
            for (std::size_t i = 0; i < oc.grids.size(); ++i) {
                try {
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
        log::info("ugks_solver {} ({}), overset mode: case '{}', {} grids, {} steps",
                  version_string, backend_name, oc.name, oc.grids.size(), oc.steps);
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
        if (cl.check) {
            log::info("check: case and meshes are valid; nothing written");
            MPI_Barrier(world);
            return kExitSuccess;
        }

        const std::string dir = oc.output_directory;
        run_collective(world, [&] {
            if (rank != 0) return;
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec) UGKS_INPUT_ERROR("output.directory: cannot create '" << dir << "'");
        });
        // Every rank holds the whole system (the meshes are read on every rank); with more than
        // one rank each assembles its part (distributed.hpp) and rank 0 gathers the output steps.
        overset::OversetSystem sys;
        overset::DistributedSystem dsys;
        run_collective(world, [&] {
            sys = overset::make_system(oc, std::move(meshes));
            if (size > 1) {
                sys.backend = overset::Backend::Host;
                dsys = overset::distribute(sys, world);
            }
        });
        std::string where = sys.backend == overset::Backend::Device ? "CUDA device" : "host";
        if (size > 1) where = "host of every rank";
        log::info("  assembly on the {} (overset.backend {}{})", where, oc.backend,
                  size > 1 ? ", which applies to one rank only" : "");
        overset::AssemblyTimes total_t;
        nlohmann::json steps = nlohmann::json::array();
        overset::AssemblyCounts last;
        index_t max_orphans = 0;
        double io_s = 0;
        std::vector<std::string> written;
        for (long s = 0; s <= oc.steps; ++s) {
            const double t = static_cast<double>(s) * oc.dt;
            overset::AssemblyTimes tm;
            last = size > 1 ? overset::assemble_distributed(dsys, t, &tm)
                            : overset::assemble(sys, t, &tm);
            max_orphans = std::max(max_orphans, last.orphans);
            const bool out =
                s == oc.steps || (oc.output_every > 0 && s % oc.output_every == 0) || s == 0;
            if (out) {
                if (size > 1) overset::gather_state(dsys, sys, &tm.mpi);
                const auto t0 = std::chrono::steady_clock::now();
                run_collective(world, [&] {
                    if (rank == 0)
                        written.push_back(
                            overset::write_overset_step(dir, s, t, sys, cfg.resolved_yaml()));
                });
                io_s +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            total_t.motion += tm.motion;
            total_t.wall_tree_build += tm.wall_tree_build;
            total_t.wall_query += tm.wall_query;
            total_t.donor_tree_build += tm.donor_tree_build;
            total_t.donor_query += tm.donor_query;
            total_t.hole_cut += tm.hole_cut;
            total_t.classification += tm.classification;
            total_t.donor_stencils += tm.donor_stencils;
            total_t.transfers += tm.transfers;
            total_t.mpi += tm.mpi;
            nlohmann::json js = counts_json(last);
            js["step"] = s;
            js["time"] = t;
            js["assembly_seconds"] = tm.total();
            steps.push_back(js);
            log::info(
                "step {:>6}  t {:<10.4g} active {} fringe {} hole cells {}  receptors "
                "{}  orphans {}  {:.3f} s",
                s, t, last.active_cells, last.fringe_cells, last.hole_cells, last.receptors,
                last.orphans, tm.total());
        }
        run_collective(world, [&] {
            if (rank != 0) return;
            nlohmann::json orphans = nlohmann::json::array();
            for (std::size_t gi = 0; gi < sys.grids.size(); ++gi) {
                const auto& g = sys.grids[gi];
                for (std::size_t r = 0; r < g.fringe_node.size() && orphans.size() < 100; ++r)
                    if (g.fringe_donor_cell[r] < 0) {
                        const index_t v = g.fringe_node[r];
                        orphans.push_back(
                            {{"grid", g.name},
                             {"node", v},
                             {"xyz", {g.xyz[3 * v], g.xyz[3 * v + 1], g.xyz[3 * v + 2]}}});
                    }
            }
            nlohmann::json grids = nlohmann::json::array();
            for (std::size_t gi = 0; gi < sys.grids.size(); ++gi) {
                const auto& g = sys.grids[gi];
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
            nlohmann::json j;
            j["case"] = oc.name;
            j["case_file"] = cl.case_file;
            j["mode"] = "overset";
            j["build"] = {
                {"version", version_string},
                {"commit", git_commit},
                {"backend", backend_name},
                {"build_type", build_type},
                {"overset_backend", sys.backend == overset::Backend::Device ? "cuda" : "cpu"}};
            j["ranks"] = size;
            j["dim"] = sys.dim;
            j["layer_spacing"] = oc.layer_spacing;
            j["steps"] = oc.steps;
            j["dt"] = oc.dt;
            j["final_time"] = static_cast<double>(oc.steps) * oc.dt;
            j["grids"] = grids;
            j["counts"] = counts_json(last);
            j["max_orphans_over_steps"] = max_orphans;
            j["orphans"] = orphans;
            nlohmann::json tj = times_json(total_t);
            tj["io"] = io_s;
            tj["per_step_mean"] = total_t.total() / static_cast<double>(oc.steps + 1);
            tj["total"] =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
            j["timings_seconds"] = tj;
            j["history"] = steps;
            j["outputs"] = written;
            write_json(dir + "/summary.json", j);
            if (max_orphans > 0)
                log::error("ugks_solver: warning: {} orphan receptor(s) (see summary.json)",
                           max_orphans);
        });
    } catch (const InputError& e) {
        log::error("ugks_solver: input error: {}", e.what());
        code = kExitInput;
    } catch (const std::exception& e) {
        log::error("ugks_solver: error: {}", e.what());
        code = kExitFailure;
    }
    MPI_Barrier(world);
    return code;
}

}  // namespace ugks

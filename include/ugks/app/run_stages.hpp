#pragma once
// The stages of a run in UGKS mode (run_case_driver.cpp holds the pipeline): build the problem
// (case sections, mesh, velocity space, decomposition), check the resources (memory and time-step
// estimates, the refusal of what cannot fit), prepare the output directory, start the solver
// (fresh or from a checkpoint), and, after the time loop, the summary. Every stage is collective
// over MPI_COMM_WORLD; errors agree over the ranks (run_collective).
#include <mpi.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "ugks/app/case_setup.hpp"
#include "ugks/app/run_case.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/core/traffic.hpp"
#include "ugks/device/capabilities.hpp"
#include "ugks/io/checkpoint_io.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/solver/ugks_solver.hpp"
#include "ugks/solver/ugks_solver_device.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {

/// The solver of the time loop: the device solver in CUDA builds, the CPU solver otherwise.
using StepSolver = std::conditional_t<device::kGpuBuild, UgksSolverDevice, UgksSolver>;

/// What the run measured before it read anything: the wall-clock start (history.csv's wall_time,
/// summary.json's wall_time_total_s) and the resident set (summary.json).
struct RunStart {
    std::chrono::steady_clock::time_point time;
    ProcessMemory rss;
};

/// A case of mode ugks, ready to run: the case, the global mesh, the velocity space and its blocks,
/// the decomposition and this rank's part of the mesh.
struct Problem {
    Config cfg;
    CaseSetup setup;
    Mesh mesh;
    VelocityGrid vel;
    VelocityBlocks blocks;
    PhaseSpaceLayout layout;
    LocalMesh local;
    int world_rank = 0, world_size = 1;
    /// Velocity axes whose mirror pairs stay on one velocity rank (check_boundaries): the blocks'
    /// constraint, kept for a rebuild of the blocks (auto_tune.hpp)
    std::array<bool, 3> mirrors{false, false, false};
    /// parallel.block_size / velocity_ranks auto: the measurements and the choice (summary.json
    /// decomposition.auto; empty without auto)
    nlohmann::json tuning;
    /// The second distribution b is stored (velocity space below 3D or internal degrees of
    /// freedom).
    bool store_b() const { return vel.dim < 3 || setup.gas.K_int > 0; }
    CheckpointLayout checkpoint_layout() const {
        return {&layout, &mesh, &local, &vel, &blocks, store_b(), setup.gas.K_int};
    }
};

/// The estimates of the resource check (summary.json's memory_per_rank_bytes, dt_estimate).
struct Resources {
    MemoryEstimate mem;          ///< this rank's memory estimate
    double mem_max = 0;          ///< the largest estimate of any rank
    double mem_sum = 0;          ///< the estimates of all ranks together
    std::string mem_parts;       ///< mem's parts as the messages list them
    double dt = 0;               ///< time step of the initial state
    std::size_t available = 0;   ///< memory of the device (the host's on the CPU backend)
    double memory_override = 0;  ///< UGKS_TEST_MEMORY_LIMIT_BYTES (0: not set)
};

/// What the observers of the time loop and the summary work on.
struct RunContext {
    const CommandLine& cl;
    const Problem& pb;
    StepSolver& solver;
    std::string dir;             ///< output.directory
    std::string restarted_from;  ///< the checkpoint the run continues ("" for a fresh start)
    std::string run_id;          ///< the run's id, written into its checkpoints
    RunStart start;
};

/// How the time loop ended.
struct LoopEnd {
    std::string failure;  ///< message of the step that failed ("" when none failed)
    StepResult last;      ///< the last successful step
    long steps = 0;       ///< successful steps of this run
    double seconds = 0;   ///< wall time of the loop
    /// The bytes this rank moved inside the solver's steps of this run (the failed one included;
    /// summary.json `traffic`).
    TrafficCounts step_traffic;
};

/// Stages 1 and 2: the case sections, the mesh and the velocity space with their checks, then the
/// decomposition, the device binding, the partition and the local mesh ("setup" timer).
Problem build_problem(Config cfg);
/// The memory estimate of pb's decomposition fits (the rule of check_resources, without its log
/// and error); collective.
bool fits_memory(const Problem& pb);
/// The blocks for block_size and, when velocity_ranks differs from the layout's P_v, the
/// decomposition again (layout, device binding, partition, local mesh); collective.
void redecompose(Problem& pb, int block_size, int velocity_ranks);
/// The start of the log: version, case, resolved configuration, rank map.
void log_start(const Problem& pb, const CommandLine& cl);
/// Stage 3: memory and time-step estimates, their log, and an InputError when the estimate
/// exceeds the memory (issue 7).
Resources check_resources(const Problem& pb);
/// Stage 4: create output.directory (rank 0; an InputError naming the key when it cannot).
void prepare_output_directory(const Problem& pb);
/// Where a run starts (restart_solver).
struct RunOrigin {
    std::string checkpoint;  ///< the checkpoint the run continues ("" for a fresh start)
    std::string run_id;      ///< the run's id (the same on every rank)
};

/// The solver's state from --restart (FILE, or for 'latest' the newest valid checkpoint of the run
/// of output.directory that wrote the newest one), and the run id: a fresh run gets a new one
/// (refused with InputError when output.directory already holds checkpoints, unless --new-run); a
/// restart keeps the checkpoint's, unless --new-run or the directory holds a later checkpoint of
/// that run. A restart whose case settings differ from the checkpoint's (other than run-control
/// keys) is refused for 'latest' and warned about for a named FILE. Collective.
RunOrigin restart_solver(StepSolver& solver, const Problem& pb, const CommandLine& cl);
/// The last stage: timers over the ranks, summary.json (rank 0; with `entries`, the observers'
/// part), the timer table and where the results are.
void write_summary(const RunContext& ctx, const Resources& res, const LoopEnd& end,
                   const nlohmann::json& entries);

}  // namespace ugks

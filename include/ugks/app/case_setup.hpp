#pragma once
#include <array>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/physics/gas.hpp"
#include "ugks/solver/boundary_config.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
class Config;

/// Uniform initial state (`initial` section), nondimensional.
struct InitialState {
    double rho = 1.0, T = 1.0;
    Vec3 U{0, 0, 0};
};

/// A box-shaped region of the `initial.regions` list: cells whose centroid lies in [lo, hi] take
/// this state (later regions win).
struct InitialRegion {
    Vec3 lo{-1e300, -1e300, -1e300}, hi{1e300, 1e300, 1e300};
    InitialState state;
};

/// `numerics` section.
struct NumericsConfig {
    int order = 2;        ///< 1 or 2
    double cfl = 0.5;     ///< default 0.8 (order 1) / 0.5 (order 2), decision U8
    std::string limiter;  ///< venkatakrishnan | barth_jespersen | none
    double venkatakrishnan_k =
        1.0;  ///< K in eps^2 = (K dh)^3 (local scale)^2 (section 4.3, scaled form)
};

/// `time` section.
struct TimeConfig {
    long steps = 1000;              ///< maximum number of steps
    double end_time = 0.0;          ///< 0 = no end time (steady or step-limited run)
    double steady_tolerance = 0.0;  ///< stop when the W residual drops below; 0 = off
    /// transient (global time step, time-accurate) | steady (local time steps, docs/steady.md)
    std::string mode = "transient";
    double monitor_tolerance = 0.0;  ///< stop rule on the monitored quantities; 0 = off
    long monitor_window = 100;       ///< steps over which they must change less than it
    /// steady-mode iteration (docs/steady.md): local (explicit with local time steps) | implicit
    /// (implicit macroscopic prediction + implicit microscopic relaxation, docs/steady.md section
    /// 7)
    std::string steady_method = "local";
    double implicit_cfl = 1.0e3;  ///< pseudo-time CFL number of the implicit iteration
    int macro_sweeps = 2;         ///< symmetric Gauss-Seidel sweep pairs, macroscopic prediction
    int micro_sweeps = 2;         ///< symmetric Gauss-Seidel sweep pairs, microscopic update
    std::string implicit_ordering = "natural";  ///< sweep order: natural | colored
    /// macroscopic prediction: sgs (symmetric Gauss-Seidel sweeps) | gmres (block CSR + GMRES
    /// preconditioned by macro_sweeps block SGS pairs)
    std::string macro_solver = "sgs";
    int gmres_restart = 30;         ///< Krylov vectors before a restart
    int gmres_max_iterations = 60;  ///< matrix applications per iteration
    double gmres_tolerance = 1e-3;  ///< relative residual reduction per iteration
    bool steady() const { return mode == "steady"; }
    bool implicit() const { return steady() && steady_method == "implicit"; }
};

/// `parallel` section.
struct ParallelConfig {
    int velocity_ranks = 1;     ///< P_v
    int block_size = 64;        ///< B_v
    std::string halo = "auto";  ///< staged | cuda_aware | nccl | auto
};

/// A probe line of the `output.probes` list.
struct ProbeLine {
    std::string name;
    Vec3 from{0, 0, 0}, to{0, 0, 0};
    int points = 2;
};

/// `output` section.
struct OutputConfig {
    std::string directory = "output";
    long every = 0;  ///< 0 = final fields only
    double progress_seconds =
        10;  ///< progress line at most this often (wall seconds; 0: every step)
    std::vector<ProbeLine> probes;
};

/// `checkpoint` section: when to write checkpoint_NNNNNN.h5 and how many to keep.
struct CheckpointConfig {
    long every = 0;            ///< every N steps (0: not by step count)
    double every_minutes = 0;  ///< every M minutes of wall-clock time (0: not by time)
    int keep = 2;              ///< newest checkpoints kept in output.directory (0: all)
    bool enabled() const { return every > 0 || every_minutes > 0; }
};

/// Everything parsed from a case file (each module parses its own section).
struct CaseSetup {
    std::string name;
    std::string mode;  ///< ugks | overset
    GasModel gas;
    MeshConfig mesh_config;
    VelocityConfig velocity_config;
    std::vector<BoundaryCondition> boundaries;
    InitialState initial;
    std::vector<InitialRegion> initial_regions;
    NumericsConfig numerics;
    TimeConfig time;
    ParallelConfig parallel;
    OutputConfig output;
    CheckpointConfig checkpoint;
};

/// Parse every section except `mesh`/`velocity` geometry-dependent checks; `mesh_dim` is known
/// after loading.
void parse_case_sections(Config& cfg, CaseSetup& setup);
void parse_velocity_section(Config& cfg, CaseSetup& setup, int mesh_dim);

/// Initial state of a cell with centroid x (uniform state, then the regions in order).
InitialState initial_state_at(const CaseSetup& setup, const Vec3& x);

/// Time step of docs/formulation.md section 7 for a uniform state W (rho, U, T) on the given cells:
/// dt = CFL * min_i 2 V_i / sum_f S_f s_f,i, s_f,i = max(max_k |u_k . n_f|, |U . n_f| + c), c =
/// sqrt(gamma T / 2).
double estimate_time_step(const Mesh& mesh, const VelocityGrid& vel, const GasModel& gas,
                          const InitialState& state, double cfl);

/// Memory estimate per rank (bytes) for the single-sweep UGKS step (docs/architecture.md section
/// 6), refused at start when it exceeds the memory (issue 7). Every term is what one rank holds at
/// the same time at its peak (the checkpoint write of a time step).
struct MemoryEstimate {
    double distributions = 0;      ///< persistent h (and b) for local cells x local velocities
    double macroscopic = 0;        ///< W, gradients, face states, accumulators
    double block_working_set = 0;  ///< per-block gradients, face flux cache, halo buffers
    double global_mesh = 0;  ///< the whole mesh, read by every rank and kept (checkpoint layout)
    /// building it (face matching, partition graph): freed, but the heap stays resident; about
    /// the global mesh again
    double mesh_setup = 0;
    double local_mesh = 0;  ///< this rank's part with ghosts, partition, solver geometry tables
    double io_buffers =
        0;  ///< checkpoint gather: distribution rows moved to contiguous cell blocks
    /// implicit steady iteration (time.steady_method: implicit): the steady residual of every
    /// distribution value and the increment of the owned ones
    double implicit = 0;
    double total() const {
        return distributions + macroscopic + block_working_set + global_mesh + mesh_setup +
               local_mesh + io_buffers + implicit;
    }
    /// What a CUDA build holds in device memory: the solver's arrays.
    double device_part() const {
        return distributions + macroscopic + block_working_set + implicit;
    }
    /// What a CUDA build holds in host memory: the meshes and the checkpoint's state copy and
    /// transfer buffers.
    double host_part() const { return global_mesh + mesh_setup + local_mesh + io_buffers; }
};
/// `local_cells` = owned + ghost cells, `owned_cells` the owned ones, `global_mesh_bytes` from
/// mesh_bytes() of the global mesh.
MemoryEstimate estimate_memory(index_t local_cells, index_t owned_cells, index_t local_faces,
                               index_t local_velocities, int block_size, int mesh_dim, bool store_b,
                               double global_mesh_bytes, bool implicit = false);

/// Bytes held by the arrays of a mesh (sizes, not capacities).
double mesh_bytes(const Mesh& mesh);

/// Test override of the memory the estimate is checked against (docs/errors.md): the environment
/// variable UGKS_TEST_MEMORY_LIMIT_BYTES, when set to a positive integer, replaces the device's or
/// host's memory; 0 otherwise. Malformed values are an input error.
double memory_limit_override();

/// The host's physical memory (bytes; 0 when unknown).
double host_physical_memory();

/// This process's resident set (VmRSS) and its peak (VmHWM) from /proc/self/status, bytes; 0 when
/// unavailable.
struct ProcessMemory {
    double rss = 0;
    double peak = 0;
};
ProcessMemory process_memory();

}  // namespace ugks

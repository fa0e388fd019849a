#pragma once
/// The solver's configuration: what a case file says, section by section (each layer parses its
/// own section: gas in physics, mesh in mesh, velocity in velocity, boundaries here), and the
/// parser of the sections that belong to the solver (numerics, time, parallel, output,
/// checkpoint, initial state). The app layer reads the case file and calls these.
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
    /// numerics.storage: the precision h and b are kept in between steps (fp64 | fp32); all
    /// arithmetic is in double either way (docs/decisions.md "Single-precision storage")
    bool fp32_storage = false;
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
    /// time.mode steady: stop with exit 3 when the residual exceeds this factor times its smallest
    /// value (0: off), or when its smallest value fell by less than 10 % over the last
    /// stagnation_window steps (0: off); docs/steady.md section 5
    double divergence_factor = 1.0e4;
    long stagnation_window = 1000;
    /// time.mode steady, second order with a limiter: limiter freezing (docs/steady.md section
    /// 7.10): off | auto (once the smallest residual fell by less than 10 % over
    /// limiter_freeze_window steps; the default of the implicit iteration) | step (after step
    /// limiter_freeze_step)
    std::string limiter_freeze = "off";
    long limiter_freeze_step = 0;
    long limiter_freeze_window = 20;
    /// steady-mode iteration (docs/steady.md): local (explicit with local time steps) | implicit
    /// (implicit macroscopic prediction + implicit microscopic relaxation, docs/steady.md section
    /// 7)
    std::string steady_method = "local";
    double implicit_cfl = 1.0e3;  ///< pseudo-time CFL number of the implicit iteration
    int macro_sweeps = 2;         ///< symmetric Gauss-Seidel sweep pairs, macroscopic prediction
    /// symmetric Gauss-Seidel sweep pairs, microscopic update (case files: 4 with the natural
    /// ordering, 8 with colored)
    int micro_sweeps = 4;
    std::string implicit_ordering = "natural";  ///< sweep order: natural | colored
    /// macroscopic prediction: gmres (block CSR + GMRES preconditioned by macro_sweeps block SGS
    /// pairs) | sgs (symmetric Gauss-Seidel sweeps)
    std::string macro_solver = "gmres";
    /// K of the viscous rate of the macroscopic operator, nu_f = RT min(tau, K dt_f)
    /// (docs/steady.md section 7.2; case files: 10 with gmres, 1 with sgs)
    double viscous_bound = 10.0;
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
    /// `auto`: chosen by measurement at the start of the run (docs/decisions.md "Automatic B_v
    /// and P_v"); until then (and under --check) velocity_ranks 1 and block_size 64
    bool velocity_ranks_auto = false, block_size_auto = false;
};

/// A probe line of the `output.probes` list.
struct ProbeLine {
    std::string name;
    Vec3 from{0, 0, 0}, to{0, 0, 0};
    int points = 2;
};

/// `output.surface`: the reference geometry of the wall coefficients (docs/usage.md, "Surface
/// output"), nondimensional after parsing.
struct SurfaceConfig {
    double reference_area = 1.0;    ///< A_ref of C_D, C_L, C_S
    double reference_length = 1.0;  ///< L_ref of the moment coefficients
    Vec3 moment_center{0, 0, 0};
    /// Drag direction; zero: the free stream's (first far_field / inflow condition). Set from
    /// angle_of_attack / sideslip when they are given.
    Vec3 drag_direction{0, 0, 0};
    Vec3 lift_direction{0, 1, 0};  ///< made normal to the drag direction
    /// auto: the whole body is the computed part and its mirror images in the symmetry patches;
    /// none: the computed part only.
    std::string symmetry = "auto";
};

/// `output` section.
struct OutputConfig {
    std::string directory = "output";
    /// `output.units`: "si" or "nondimensional" (default: "si" with `units: si`, else
    /// "nondimensional"); si needs a dimensional reference state.
    std::string units = "nondimensional";
    long every = 0;  ///< 0 = final fields only
    double progress_seconds =
        10;  ///< progress line at most this often (wall seconds; 0: every step)
    std::vector<ProbeLine> probes;
    SurfaceConfig surface;
};

/// `checkpoint` section: when to write checkpoint_NNNNNN.h5 and how many to keep.
struct CheckpointConfig {
    long every = 0;            ///< every N steps (0: not by step count)
    double every_minutes = 0;  ///< every M minutes of wall-clock time (0: not by time)
    int keep = 2;              ///< newest checkpoints kept in output.directory (0: all)
    bool enabled() const { return every > 0 || every_minutes > 0; }
};

/// Everything parsed from a case file (each module parses its own section).
/// `forces`: a uniform body force on the gas (docs/formulation.md section 6.7).
struct ForcesConfig {
    /// `forces.acceleration` (nondimensional, or m/s^2 with `units: si`); components along axes
    /// beyond velocity.dim must be 0.
    Vec3 acceleration{0, 0, 0};
    bool active() const {
        return acceleration[0] != 0.0 || acceleration[1] != 0.0 || acceleration[2] != 0.0;
    }
};

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
    ForcesConfig forces;
};

/// Parse every section except `mesh`/`velocity` geometry-dependent checks; `mesh_dim` is known
/// after loading.
void parse_case_sections(Config& cfg, CaseSetup& setup);
void parse_velocity_section(Config& cfg, CaseSetup& setup, int mesh_dim);

/// Initial state of a cell with centroid x (uniform state, then the regions in order).
InitialState initial_state_at(const CaseSetup& setup, const Vec3& x);

}  // namespace ugks

#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ugks/core/timer.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/case_config.hpp"
#include "ugks/solver/dist_store.hpp"
#include "ugks/solver/macro_krylov.hpp"
#include "ugks/solver/solver_state.hpp"
#include "ugks/solver/solver_static.hpp"

namespace ugks::cpu {
struct BlockVel;
}  // namespace ugks::cpu
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {

/// Result of one time step.
struct StepResult {
    double dt = 0;
    std::array<double, 3> residual{0, 0, 0};  ///< rho, rho U (vector norm), rho E
    /// the residuals' normalizations: mean |rho|, momentum scale, mean |rho E| over the cells
    std::array<double, 3> scale{0, 0, 0};
    bool failed = false;  ///< non-finite or non-positive rho/T somewhere (all ranks agree)
    std::string failure;  ///< message naming step, cell global id and centroid
};

/// Wall data of one owned diffuse-wall / symmetry face, time-averaged over the last step (section
/// 9).
struct WallFaceData {
    index_t local_face = 0;
    Vec3 P{0, 0, 0};  ///< momentum flux into the wall per unit area
    double qw = 0;    ///< heat flux into the body
};

/// The UGKS single-sweep step (docs/formulation.md section 10) on the CPU backend, for one rank of
/// the full phase-space decomposition. Owns h (and b) for the local cells (owned + ghost) and the
/// local velocity blocks, stored per block as [cell][B_v] (docs/architecture.md section 6), and the
/// macroscopic state W (replicated over the velocity communicator).
class UgksSolver {
public:
    UgksSolver(const CaseSetup& setup, const LocalMesh& local, const PhaseSpaceLayout& layout,
               const VelocityGrid& grid, const VelocityBlocks& blocks);
    ~UgksSolver();

    /// W from the initial state; h, b = reduced Maxwellians; q from the discrete moments.
    void initialize();
    /// Advance one step of global size dt = CFL rule (global minimum), or, with time.mode: steady,
    /// one iteration with local time steps (docs/steady.md; StepResult::dt is then the smallest
    /// local step). Collective over the world.
    StepResult step();
    /// time.mode: steady (per-cell time steps, conservative face rates, closed-domain mass fix).
    bool local_time_stepping() const { return m_local_dt; }

    /// Output fields on the owned cells: rho, U, T, p, q, stress (xx xy xz yy yz zz; P_ij - p
    /// delta_ij over the resolved velocity components), Mach, Kn_local.
    std::vector<CellField> fields() const;
    /// Wall data of the owned wall faces from the last step.
    const std::vector<WallFaceData>& wall_data() const { return m_wall; }
    /// Global sums over owned cells of (rho, rho U, rho E) * volume (collective over comm_x).
    std::array<double, 5> totals() const;

    long step_count() const { return m_step; }
    double time() const { return m_time; }
    const phys::GasParams& gas() const { return m_gas; }

    /// Limiter freezing (time.limiter_freeze, docs/steady.md section 7.10): from the next step on
    /// every limiter factor (of W and of each distribution, per cell and velocity) is the smallest
    /// it has been since this call. False (and nothing changes) when the scheme has no limiter
    /// (first order, numerics.limiter: none) or the limiter is already frozen.
    bool freeze_limiter();
    /// The step after which the limiter was frozen (-1: live limiter).
    long limiter_frozen_step() const { return m_lim_mode == 0 ? -1 : m_lim_step; }

    /// Copy of the resumable state (step, time, W, q, stress, h, b; the frozen limiter factors)
    /// for a checkpoint.
    SolverState state_export() const;
    /// Replace the state by `s` (sizes as state_export gives for this decomposition; checked);
    /// the next step() continues from it exactly as from the exported solver.
    void state_import(const SolverState& s);

private:
    // The phases of run_step / run_implicit_micro (ugks/solver/step_phases.hpp).
    template <class B>
    friend StepResult run_step(B& b);
    template <class B>
    friend void run_implicit_micro(B& b);
    ScopedTimer phase(const char* name) const { return ScopedTimer(name); }
    void exchange_macro();
    void cell_states();  ///< compute_prims, then cell_tables
    bool local_steps() const { return m_local_dt; }
    bool implicit_steps() const { return m_implicit; }
    bool closed_domain() const { return m_closed; }
    void end_of_step() {}
    void advance(double dt);
    /// Implicit: per block, the rhs R_flux + (f+* - f)/tau*, micro_sweeps SGS pairs, f += df and
    /// the conserved moments of the new residual into m_Qm (blocks summed in a fixed order).
    void micro_relax();
    void sum_micro_moments();  ///< m_Qm summed over comm_v
    void rescale_mass_f();     ///< closed domain: f^{n+1} scaled to a zero total mass residual
    void scale_distributions(double alpha);  ///< h and b of the owned cells times alpha
    void moment_correction();                ///< W += theta tau (Rm - Q) per owned cell
    void rescale_mass_W();  ///< W scaled back to the mass of m_Wold (closed domain)

    void compute_prims();
    /// The ghost states of the pressure inlet/outlet faces from their owners' prims.
    void ghost_states();
    /// 2 V_i / sum_f S_f s_f,i: the CFL bound of owned cell i per unit CFL number (section 7), the
    /// rule of both the global and the local (steady mode) time step.
    double cfl_ratio(index_t i) const;
    double compute_dt() const;
    /// Steady mode: per-cell steps dt_i = CFL x local bound (owned, then halo), per-face steps
    /// dt_f = min of its cells' steps; returns the global minimum of dt_i.
    double compute_local_dt();
    /// Steady mode, closed domain: total mass of W^n (m_Wold) and of W^{n+1} (m_W) over the owned
    /// cells (sums over comm_x, identical on every velocity rank).
    void total_mass(double& before, double& after) const;
    void gradients_W();
    void face_precompute(double dt);
    void wall_densities();
    /// Interpolated reflections (docs/formulation.md section 8.2b): the full rows of owner values
    /// at t^n (gathered over comm_v), then the scaled reflected values into m_sym_h (m_sym_b).
    void specular_rows();
    /// Halo exchange of an array [cell][width], then its image cells (periodic pairs with a
    /// pressure jump, kern periodic_jump.hpp): scaled for quantities linear in the density;
    /// fp32_values: distributions of fp32 storage (the image values rounded to float, as stored).
    void exchange(double* data, int width, bool scaled = true, bool fp32_values = false);
    /// The partner faces of jump faces (kern::jump_partner_F): their macroscopic flux.
    void jump_face_coeffs(double dt);
    void sweep(double dt);
    void macro_update(double dt, StepResult& r);
    void stage2_and_moments(double dt);
    /// Implicit steady iteration (docs/steady.md section 7): macroscopic prediction dW from the
    /// steady residual rate Rm = -(1/V) sum sigma S F_f/dt_f of the owned cells (5 per cell) by
    /// symmetric Gauss-Seidel sweeps of the linearized (Euler flux + spectral radius) equations.
    void implicit_macro(const std::vector<double>& Rm, std::vector<double>& dW);
    /// Sweep order of the implicit iteration (time.implicit.ordering) into m_order.
    void implicit_ordering();
    /// Pseudo-time step of owned cell i in the implicit iteration.
    double implicit_dtau(index_t i) const;
    /// f [nc][B] -> grad [nc][3][B] (owned); code: this block's stored limiter factors [nc][B]
    /// (used unless the limiter is live).
    /// Limited gradients of one block of f (into grad; code: frozen limiter factors or null) and,
    /// when f2 is given, of f2 too in the same parallel loop.
    void gradient_block(const double* f, double* grad, std::uint16_t* code,
                        const double* f2 = nullptr, double* grad2 = nullptr,
                        std::uint16_t* code2 = nullptr) const;
    void cell_tables();  ///< per owned cell: equilibrium constants (prims and q at this time)
    cpu::BlockVel block_vel(int m) const;

    // set-up data
    const CaseSetup& m_setup;
    const LocalMesh& m_local;
    const Mesh& m_mesh;
    const PhaseSpaceLayout& m_layout;
    const VelocityBlocks& m_blocks;
    phys::GasParams m_gas;
    SolverStatic m_s;  ///< velocity tables, face kinds, LSQ data, geometric vectors
    std::vector<phys::EqConst> m_cell_eq;   ///< per owned cell: equilibrium constants
    std::vector<double> m_ghost_W;          ///< per ghost slot (S.ghost_face): W of its state
    std::vector<phys::EqConst> m_ghost_eq;  ///< per ghost slot: its state's Maxwellian
    bool m_pressure_faces = false;          ///< a pressure inlet/outlet face on this rank

    // state
    std::vector<double> m_W, m_Wold, m_gradW, m_q, m_tau;  ///< per local cell: 5, 5, 15, 3, 1
    std::vector<phys::Prim> m_prim;
    std::vector<double> m_stress;  ///< per owned cell: 6
    DistStore m_h, m_b;            ///< [block][cell][B] (numerics.storage)
    /// fp32 storage: the block being swept (h, b of every local cell in double; sweep)
    std::vector<double> m_hw, m_bw;
    std::vector<phys::FaceCoeffs> m_fc;  ///< per local face (equilibrium faces)
    std::vector<double> m_Facc;  ///< per local face: 5 (velocity-sum part of the macroscopic flux)
    std::vector<double> m_rho_wall;  ///< per local face (diffuse walls)
    std::vector<double> m_sym_h,
        m_sym_b;  ///< per symmetry face, per local slot: incident cell value at t^n
    std::vector<index_t> m_sym_index;  ///< local face -> row in m_sym_h (-1)
    /// per interpolated-reflection face (SolverStatic::spec_rows), per global slot: owner values
    std::vector<double> m_spec_h, m_spec_b, m_spec_gh, m_spec_gb;  ///< values and their logs
    std::vector<WallFaceData> m_wall;
    // per-step work arrays, allocated once (block working set)
    std::vector<double> m_gh, m_gb, m_phi_h, m_phi_b, m_Fsum, m_mom;
    HaloExchange m_halo;
    // steady mode (docs/steady.md)
    bool m_local_dt = false;          ///< time.mode: steady
    bool m_closed = false;            ///< no far-field / inflow / outflow face anywhere
    std::vector<double> m_dtc;        ///< per local cell: local time step dt_i
    std::vector<double> m_dtf;        ///< per local face: face time step dt_f
    bool m_implicit = false;          ///< time.steady_method: implicit
    bool m_force = false;             ///< a body force (forces.acceleration)
    std::vector<index_t> m_order;     ///< implicit: owned cells in sweep order
    implicit::BlockCsr5 m_macro_csr;  ///< implicit, macro_solver gmres: the macroscopic matrix
    std::vector<double> m_Rm;  ///< implicit: steady macroscopic residual rate of the step (5/cell)
    std::vector<double> m_Qm;  ///< implicit: moments of the new residual and f (kern::kQm/cell)
    /// implicit: -(1/V) sum sigma S Phi_f/dt_f [block][cell][B], in the storage precision
    DistStore m_res_h, m_res_b;
    std::vector<std::vector<double>> m_relax_ws;  ///< implicit: per OpenMP thread, micro_relax
    // limiter freezing (docs/steady.md section 7.10)
    int m_lim_mode = 0;                           ///< kern::LimiterMode
    long m_lim_step = -1;                         ///< the step whose state gave the frozen factors
    std::vector<double> m_psi_W;                  ///< per local cell: 5 (owned rows used)
    std::vector<std::uint16_t> m_psi_h, m_psi_b;  ///< [block][cell][B] (owned rows used)
    long m_step = 0;
    double m_time = 0;
};

}  // namespace ugks

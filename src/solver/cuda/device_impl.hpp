#pragma once
// Private to the CUDA backend of the UGKS step: the state and the phase methods of
// UgksSolverDevice, defined in ugks_solver_device.cpp (set-up, interface), device_step.cpp (the
// explicit step) and device_implicit.cpp (the implicit steady iteration).
#include <cuda_runtime.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "device_ctx.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/core/traffic.hpp"
#include "ugks/device/array.hpp"
#include "ugks/device/cuda/nccl.hpp"
#include "ugks/device/cuda/stream_timers.hpp"
#include "ugks/parallel/device_halo.hpp"
#include "ugks/solver/kernels/implicit.hpp"
#include "ugks/solver/solver_static.hpp"
#include "ugks/solver/ugks_solver_device.hpp"

namespace ugks {

using cudastep::BcDev;
using cudastep::Ctx;

struct UgksSolverDevice::Impl {
    const CaseSetup& setup;
    const LocalMesh& local;
    const Mesh& mesh;
    const PhaseSpaceLayout& layout;
    const VelocityBlocks& blocks;
    SolverStatic S;
    phys::GasParams gas;
    Ctx C;
    int group = 32;  ///< thread-group size of the per-(face|cell, block) kernels
    std::string last_kernel = "(none)";

    // device arrays (persistent)
    DeviceArray<index_t> d_owner, d_neigh, d_cf_off, d_cf, d_lsq_off, d_sym_index, d_mirror, d_nbr;
    DeviceArray<double> d_cf_sarea, d_kd3;
    DeviceArray<double> d_normal, d_area, d_fcent, d_ccent, d_vol, d_lsq, d_slot_dx, d_dxL, d_dxR;
    DeviceArray<int> d_kind, d_bc, d_slot_idx;
    DeviceArray<double> d_u, d_w, d_axis_x;
    DeviceArray<BcDev> d_bcs;
    DeviceArray<index_t> d_ghost_index, d_ghost_face;
    DeviceArray<double> d_ghost_W;
    DeviceArray<phys::EqConst> d_ghost_eq;
    DeviceArray<double> d_wall_T, d_wall_U;
    DeviceArray<index_t> d_img_src, d_img_dst, d_jump_f, d_jump_fp;
    DeviceArray<double> d_img_scale, d_jump_d;
    index_t nghost = 0;
    bool pressure_faces = false;  ///< a pressure inlet/outlet face on this rank
    DeviceArray<double> d_W, d_Wold, d_gradW, d_q, d_tau, d_stress, d_h, d_b, d_Facc, d_rho_wall,
        d_sym_h, d_sym_b, d_cellE, d_faceE, d_mom;
    /// numerics.storage fp32: h, b in single precision (d_h32, d_b32; d_h, d_b then empty)
    bool fp32 = false;
    DeviceArray<float> d_h32, d_b32;
    /// The distributions' size (values of h) and the device pointers of h, b (C.h, C.b).
    index_t dist_size() const { return fp32 ? d_h32.size() : d_h.size(); }
    DeviceArray<phys::Prim> d_prim;
    DeviceArray<phys::EqConst> d_cell_eq;
    DeviceArray<phys::FaceCoeffs> d_fc;
    DeviceArray<index_t> d_wall_faces, d_sym_faces;
    /// interpolated reflections (SolverStatic::spec_*): full rows [face][global slot], the grid
    DeviceArray<index_t> d_spec_rows, d_spec_faces, d_spec_slot;
    DeviceArray<double> d_spec_w, d_spec_h, d_spec_b, d_spec_gh, d_spec_gb;
    DeviceArray<double> d_spec_part;  ///< per face and velocity chunk: the mass-balance sums
    static constexpr index_t kSpecChunk = 1024;  ///< velocities per thread group of those kernels
    std::vector<double> spec_host;               ///< staging of the full rows over comm_v
    DeviceArray<double> d_wall_vals, d_cell_parts, d_bad, d_red;
    // block working set
    DeviceArray<double> d_gh, d_gb, d_phi_h, d_phi_b;
    DeviceArray<double> d_gh2, d_gb2;  ///< second gradient buffer (pipelined gradient halo)
    // time.mode: steady (docs/steady.md)
    bool local_dt = false;  ///< per-cell time steps
    bool closed = false;    ///< no far-field / inflow / outflow face anywhere (mass rescale)
    DeviceArray<double> d_dtc, d_dtf;  ///< per local cell dt_i, per local face dt_f
    DeviceArray<double> d_wall_dt;     ///< per wall entry: dt_f (gathered for the wall data)
    DeviceArray<double> d_mass_parts;  ///< per owned cell: mass before and after the update
    std::vector<double> wall_dtf;      ///< host copy of d_wall_dt
    // time.steady_method: implicit (docs/steady.md section 7), always the colored ordering
    bool implicit = false;
    DeviceArray<double> d_res_h, d_res_b, d_dh, d_db, d_dW, d_Rm, d_Qm, d_rf, d_diag, d_a0;
    DeviceArray<float> d_res_h32, d_res_b32;  ///< the residual with numerics.storage fp32
    int relax_chunk =
        1;  ///< implicit: velocity blocks per microscopic relaxation (d_dh holds them)
    /// implicit, macro_solver gmres: block pattern (macro_pattern), values, Krylov work vectors
    DeviceArray<index_t> d_kr_rp, d_kr_col, d_kr_dg;
    DeviceArray<double> d_kr_val, d_kr_V, d_kr_r, d_kr_w, d_kr_z, d_kr_part;
    std::vector<double> h_kr_part;
    // limiter freezing (docs/steady.md section 7.10): allocated by freeze_limiter
    long lim_step = -1;  ///< the step after which the limiter was frozen (mode: C.lim_mode)
    DeviceArray<double> d_psi_W;
    DeviceArray<std::uint16_t> d_psi_h, d_psi_b;
    DeviceArray<index_t> d_color_cells;  ///< owned cells sorted by colour (local order inside)
    std::vector<index_t> color_off;      ///< colour c: entries color_off[c] .. color_off[c+1]

    DeviceHalo halo_f, halo_g;
    HaloMode halo_mode = HaloMode::staged;
    /// __launch_bounds__ variant of the monatomic 3D k_flux (1, 3, 4; UGKS_FLUX_MINB overrides):
    /// 4 = at most 64 registers, 1.36x faster steps on the 80^3 x 21^3 cavity (docs/performance.md)
    int flux_minb = 4;
    int flux_fpg =
        8;  ///< faces per thread group of the flux kernel (1: k_flux, one face per group)
    device::EventTimers et;
    device::NcclComm nccl_x, nccl_v;  ///< nccl: over comm_x (halos), comm_v (sums)
    cudaStream_t compute = nullptr, comm = nullptr;
    cudaEvent_t ev_state = nullptr, ev_f = nullptr, ev_g = nullptr, ev_gh = nullptr;

    std::vector<WallFaceData> wall;
    std::vector<index_t> wall_faces_host;
    std::vector<double> rho_wall_w;  ///< per wall entry (diffuse walls; kept when den = 0)
    long step_no = 0;
    double time = 0;
    std::size_t bytes_persistent = 0, bytes_work = 0;

    Impl(const CaseSetup& s, const LocalMesh& l, const PhaseSpaceLayout& lay,
         const VelocityGrid& grid, const VelocityBlocks& blk)
        : setup(s),
          local(l),
          mesh(l.mesh),
          layout(lay),
          blocks(blk),
          S(make_solver_static(s, l, lay, grid, blk)) {}

    ~Impl() {
        if (compute) cudaStreamDestroy(compute);
        if (comm) cudaStreamDestroy(comm);
        for (cudaEvent_t e : {ev_state, ev_f, ev_g, ev_gh})
            if (e) cudaEventDestroy(e);
    }

    template <class T>
    DeviceArray<T> upload(const std::string& label, const std::vector<T>& v) {
        DeviceArray<T> a(label, static_cast<index_t>(v.size()));
        a.copy_from(v);
        return a;
    }
    static std::vector<double> flat(const std::vector<Vec3>& v) {
        std::vector<double> out(3 * v.size());
        for (std::size_t i = 0; i < v.size(); ++i)
            for (int d = 0; d < 3; ++d) out[3 * i + d] = v[i][d];
        return out;
    }
    template <class T>
    DeviceArray<T> alloc(const std::string& label, index_t n) {
        DeviceArray<T> a(label, n);
        if (n > 0) UGKS_CUDA_CHECK(cudaMemset(a.data(), 0, sizeof(T) * n));
        return a;
    }

    void launched(const char* name) { device::check_launch(name, last_kernel); }
    void sync(cudaStream_t st, const char* what) {
        ScopedTimer t("device_wait");
        const cudaError_t e = cudaStreamSynchronize(st);
        if (e != cudaSuccess) device::fault(e, what, last_kernel);
    }

    // The phases of run_step / run_implicit_micro (ugks/solver/step_phases.hpp).
    device::NvtxRange phase(const char* name) const { return device::NvtxRange(name); }
    void exchange_macro() {
        macro_halo(d_W.data(), 5);
        macro_halo(d_q.data(), 3);
    }
    void cell_states();  ///< compute_prims, then the pressure faces' ghost states
    bool local_steps() const { return local_dt; }
    bool implicit_steps() const { return implicit; }
    bool closed_domain() const { return closed; }
    /// The step's queued work done (a fault names the last kernel), the event timers read.
    void end_of_step() {
        sync(compute, "end of step");
        sync(comm, "end of step");
        et.flush();
    }
    void advance(double dt) {
        ++step_no;
        time += dt;
    }
    /// Implicit: a0, the rhs res + (f+* - f)/tau*, micro_sweeps SGS pairs over the colours for
    /// every local velocity at once, f += df and the moments of the new residual and of f into
    /// d_Qm (kern::kQm per cell).
    void micro_relax();
    void sum_micro_moments() { allreduce_v(d_Qm, kern::kQm * S.no); }
    /// Closed domain: f^{n+1} scaled to a zero total mass residual (UgksSolver::rescale_mass_f).
    void rescale_mass_f();
    void moment_correction();  ///< k_imp_correct (kern::moment_correction)
    void rescale_mass_W() { mass_rescale(false); }

    void setup_all();
    void compute_prims();
    double compute_dt();
    /// Steady mode: dt_i (owned, then halo), dt_f = min of the face's cells' steps; returns the
    /// global minimum of dt_i (UgksSolver::compute_local_dt).
    double compute_local_dt();
    /// Steady mode, closed domain: W, q and f* of the owned cells (W only: whole_state false)
    /// scaled back to the mass before the macroscopic update (docs/steady.md section 2).
    void mass_rescale(bool whole_state = true);
    /// The column sums of d_mass_parts over the owned cells and comm_x (fixed order; the same
    /// bits on every velocity rank).
    void sum_mass_parts(double (&m)[2], const char* what);
    /// h and b of the owned cells times alpha (k_scale_dist).
    void scale_distributions(double alpha);
    /// Implicit: the greedy colouring of UgksSolver::implicit_ordering (host, once).
    void implicit_coloring();
    /// Implicit: the macroscopic prediction dW (UgksSolver::implicit_macro), W* = W^n + dW and
    /// the residual parts into d_cell_parts / d_bad.
    void implicit_macro();
    /// Implicit, macro_solver gmres: the macroscopic prediction by GMRES on the device.
    void implicit_macro_gmres();
    void gradients_W();
    void face_precompute(double dt);
    void wall_densities();
    /// Interpolated reflections (docs/formulation.md section 8.2b): full rows of the owner values
    /// at t^n (staged over comm_v with velocity ranks), then the scaled reflected values into
    /// d_sym_h (d_sym_b).
    void specular_rows();
    void sweep(double dt);
    void macro_update(double dt, StepResult& r);
    void stage2_and_moments(double dt);
    /// h, b = the Shakhov equilibria of the initial state (zero heat flux), every local cell.
    void init_distributions();
    void allreduce_v(DeviceArray<double>& a, index_t n);
    /// Halo exchange of an array [cell][width] (halo_g), then its image cells (scaled: linear in
    /// the density).
    void macro_halo(double* a, int width, bool scaled = true);
    /// The image cells of an array [cell][width] of T (double, or float: distributions with
    /// fp32 storage) on the compute stream (k_images).
    template <class T>
    void fill_images(T* a, int width, bool scaled = true);
    /// The partner faces' velocity sums after the velocity reduction (k_jump_facc).
    void jump_sums();
};

}  // namespace ugks

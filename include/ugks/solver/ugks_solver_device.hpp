#pragma once
/// The UGKS single-sweep step on the CUDA backend (issue 4). Declared in every build (the app
/// chooses its solver with device::kGpuBuild), defined only in CUDA builds (UGKS_BACKEND=cuda,
/// src/solver/cuda/); the CPU solver UgksSolver stays available there for comparison.

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "ugks/solver/ugks_solver.hpp"

namespace ugks {

/// Device memory of one rank's device solver, in bytes (summary.json).
struct DeviceMemoryReport {
    std::size_t persistent = 0;   ///< distributions, macroscopic and static arrays
    std::size_t working_set = 0;  ///< one velocity block's gradients, face-flux cache, halo buffers
    std::size_t peak = 0;         ///< peak of all device arrays of the process (memory_tally)
    /// What a conventional full-velocity implementation would hold for the distributions (seed 000
    /// section 3.4): two distribution states, three gradient components and a face-flux cache over
    /// all local velocities, for h (and b).
    std::size_t conventional = 0;
};

/// The same discrete scheme as UgksSolver (which is its specification; fields agree to round-off),
/// with every per-step array resident on the bound GPU: h (and b) per block [block][cell][B], W,
/// gradients, primitive states, face coefficients and accumulators. The velocity-block sweep runs
/// on a compute stream; halos of f_m and grad f_m go over a communication stream (parallel.halo:
/// staged through pinned host buffers, device pointers to a CUDA-aware MPI, or NCCL send/recv),
/// the halo of block m+1's distributions overlapping block m's flux and update kernels. Velocity
/// sums are reduced on the GPU in a fixed order, then over the velocity communicator (MPI_Allreduce
/// or ncclAllReduce; deterministic: identical bytes run to run).
/// Same public interface as UgksSolver. A device fault reports the kernel and aborts every rank.
class UgksSolverDevice {
public:
    UgksSolverDevice(const CaseSetup& setup, const LocalMesh& local, const PhaseSpaceLayout& layout,
                     const VelocityGrid& grid, const VelocityBlocks& blocks);
    ~UgksSolverDevice();
    UgksSolverDevice(const UgksSolverDevice&) = delete;
    UgksSolverDevice& operator=(const UgksSolverDevice&) = delete;

    /// W from the initial state; h, b = reduced Maxwellians; q from the discrete moments.
    void initialize();
    /// Advance one step (dt from the CFL rule, global minimum), or, with time.mode: steady, one
    /// iteration with local time steps (docs/steady.md; StepResult::dt is then the smallest local
    /// step), as UgksSolver::step. Collective over the world.
    StepResult step();
    /// time.mode: steady (per-cell time steps, conservative face rates, closed-domain mass fix).
    bool local_time_stepping() const;

    /// Output fields on the owned cells (copied from the device), as UgksSolver::fields.
    std::vector<CellField> fields() const;
    /// Wall data of the owned wall faces from the last step (host copy, updated every step).
    const std::vector<WallFaceData>& wall_data() const;
    /// Global sums over owned cells of (rho, rho U, rho E) * volume (collective over comm_x).
    std::array<double, 5> totals() const;

    long step_count() const;
    double time() const;
    const phys::GasParams& gas() const;
    /// The halo and velocity-sum transport in use (parallel.halo resolved): staged, cuda_aware or
    /// nccl.
    const char* halo_mode() const;

    /// Limiter freezing, as UgksSolver::freeze_limiter (docs/steady.md section 7.10).
    bool freeze_limiter();
    /// The step after which the limiter was frozen (-1: live limiter).
    long limiter_frozen_step() const;

    /// Host copy of the resumable state for a checkpoint, as UgksSolver::state_export.
    SolverState state_export() const;
    /// Upload `s` (as UgksSolver::state_import).
    void state_import(const SolverState& s);

    /// Device bytes of this rank.
    DeviceMemoryReport memory_report() const;

    struct Impl;

private:
    std::unique_ptr<Impl> m;
};

}  // namespace ugks

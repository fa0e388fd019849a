#pragma once
/// Resource estimates of a case (time step, memory) and the process-memory queries the app layer
/// checks them with. The configuration types themselves live in the solver layer
/// (ugks/solver/case_config.hpp).
#include "ugks/solver/case_config.hpp"

namespace ugks {

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
/// mesh_bytes() of the global mesh, `fp32`: numerics.storage fp32 (4-byte distribution values).
MemoryEstimate estimate_memory(index_t local_cells, index_t owned_cells, index_t local_faces,
                               index_t local_velocities, int block_size, int mesh_dim, bool store_b,
                               double global_mesh_bytes, bool implicit = false, bool fp32 = false);

/// Bytes held by the arrays of a mesh (sizes, not capacities).
double mesh_bytes(const Mesh& mesh);

/// Test override of the memory the estimate is checked against (docs/errors.md): the environment
/// variable UGKS_TEST_MEMORY_LIMIT_BYTES, when set to a positive integer, replaces the device's or
/// host's memory; 0 otherwise. Malformed values are an input error.
double memory_limit_override();

/// The host's physical memory (bytes; 0 when unknown).
double host_physical_memory();

/// Refuse (InputError) a mesh or velocity grid that cannot fit, from its counts, before it is
/// allocated: every rank builds the whole mesh (at least 128 B per cell, twice while it is built)
/// and the whole velocity grid (32 B per point), against the host's memory
/// (UGKS_TEST_MEMORY_LIMIT_BYTES when set). `velocities` 0: not known yet (the mesh alone is
/// checked). `what` starts the message. Without it a huge mesh.box.cells or velocity count ends in
/// std::bad_alloc; everything allocated later is checked by the estimate after the decomposition
/// (refuse_oversize).
void refuse_impossible_size(double cells, double velocities, const std::string& what);

/// "12.90 MiB": bytes with a binary unit, two decimals.
std::string human_bytes(double bytes);

/// Cells of a box mesh before splitting into simplices (a lower bound of its cell count).
double box_cells(const BoxSpec& b);

/// This process's resident set (VmRSS) and its peak (VmHWM) from /proc/self/status, bytes; 0 when
/// unavailable.
struct ProcessMemory {
    double rss = 0;
    double peak = 0;
};
ProcessMemory process_memory();

}  // namespace ugks

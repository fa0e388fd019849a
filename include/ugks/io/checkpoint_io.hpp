#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {

/// Format version written into checkpoints. Version 2 added the run id, the write time and the
/// checksum over the root attributes; version 3 the frozen limiter factors (root attribute
/// limiter_frozen_step, -1 without them, and /state/limiter_*); a restart reads versions 1 to 3 (a
/// version-1 file belongs to no run: pruning never removes it, `--restart latest` takes it only
/// when no run's file is newer).
inline constexpr int kCheckpointFormatVersion = 3;
/// The oldest format version read_checkpoint accepts.
inline constexpr int kCheckpointOldestFormatVersion = 1;

/// Bytes of one transfer buffer of write_checkpoint / read_checkpoint: the distributions move
/// between the solver's layout and the file's contiguous blocks of global cells in chunks of
/// velocity columns, as many columns per chunk as fit rows x columns doubles into this (at least
/// one). Tests may set another value with the environment variable
/// UGKS_TEST_CHECKPOINT_CHUNK_BYTES (docs/usage.md); the file is the same for any chunk size.
inline constexpr std::size_t kCheckpointChunkBytes = std::size_t{256} << 20;

/// The resumable state of one rank's solver (the solver layer calls it SolverState,
/// ugks/solver/solver_state.hpp). Host memory; local numbering of the rank's LocalMesh and velocity
/// blocks.
struct FrozenLimiter {
    long step = -1;  ///< the step whose state gave the factors; -1: live limiter, nothing stored
    /// The factors: W 5 per local cell, h and b as the distributions ([local block][local cell]
    /// [B_v]); b empty when no b is stored. Owned rows matter (the rest are written, not used).
    std::vector<double> W, h, b;
};

struct CheckpointState {
    long step = 0;               ///< steps done
    double time = 0;             ///< simulated (nondimensional) time
    std::vector<double> W;       ///< conservative state, 5 per local cell (owned, then ghost)
    std::vector<double> q;       ///< heat flux, 3 per local cell
    std::vector<double> stress;  ///< 6 per owned cell (xx xy xz yy yz zz)
    /// Distributions as the solvers store them: [local block][local cell][B_v] (padded slots
    /// included); b is empty when the solver stores no b.
    std::vector<double> h, b;
    /// The frozen limiter factors of a steady run (time.limiter_freeze; docs/steady.md section
    /// 7.10): /state/limiter_W, limiter_h (and limiter_b) and the root attribute
    /// limiter_frozen_step when limiter.step >= 0.
    FrozenLimiter limiter;
    /// h and b are written as single-precision datasets (numerics.storage: fp32; their values
    /// are floats held in double). Reading gives doubles whatever the datasets' precision.
    bool fp32 = false;
};

/// Where a rank's state lives in the global phase space: everything a checkpoint needs to map local
/// rows and velocity slots to global cell and velocity indices. All pointers must outlive the call.
struct CheckpointLayout {
    const PhaseSpaceLayout* layout = nullptr;
    const Mesh* global_mesh = nullptr;  ///< the whole mesh (after periodic joining)
    const LocalMesh* local = nullptr;
    const VelocityGrid* grid = nullptr;
    const VelocityBlocks* blocks = nullptr;
    bool store_b = false;
    int K_int = 0;
};

/// What a checkpoint file says about itself (read_checkpoint, read_checkpoint_header).
struct CheckpointInfo {
    long step = 0;
    double time = 0;
    std::string config;      ///< the resolved YAML of the run that wrote it
    std::string version;     ///< ugks_version attribute
    std::string run_id;      ///< the run that wrote it ("" for a format-version-1 file)
    double written_at = 0;   ///< when it was written (seconds since 1970; file time for version 1)
    int format_version = 0;  ///< the file's format version
};

/// Write `path` collectively over layout.world with parallel HDF5 (every rank calls it):
/// /state/W (n x 5), /state/q (n x 3), /state/stress (n x 6), /state/h (n x n_v) and, when stored,
/// /state/b (n x n_v), in global cell order and global (VelocityGrid) velocity order;
/// /mesh/centroid (n x 3), /mesh/volume (n), /velocity/u (n_v x 3), /velocity/w (n_v) for
/// compatibility checks; every /state dataset carries a uint64 attribute `checksum`
/// (checkpoint_checksum). Root attributes: format "ugks_checkpoint", format_version, step, time,
/// config, ugks_version, velocity_dim, K_int, store_b, run_id, written_at and attribute_checksum
/// (checkpoint_attribute_checksum: the other root attributes and the datasets' checksums).
/// `run_id` names the run (make_run_id; the same on every rank). The file is written as
/// `path`.tmp, closed, fsync'ed and renamed, so an interrupted write never replaces or damages an
/// earlier checkpoint. Write failures throw InputError naming the path on every rank.
void write_checkpoint(const std::string& path, const CheckpointLayout& where,
                      const std::string& config_yaml, const std::string& run_id,
                      const CheckpointState& state);

/// Read and validate `path` for this rank's decomposition (any P_x x P_v and block size; collective
/// over where.layout->world). Checks, in order: the file opens (a truncated file does not), format
/// and format_version, the mesh (cell count, centroids and volumes), the velocity grid (count,
/// points, weights), velocity dimension, K_int and b, dataset shapes, then every dataset's
/// checksum. Any failure throws the same InputError on every rank: "checkpoint 'path': <problem>".
/// Before the mesh: the root attributes (ranges of step and time, then attribute_checksum), as
/// read_checkpoint_header.
CheckpointState read_checkpoint(const std::string& path, const CheckpointLayout& where,
                                CheckpointInfo* info = nullptr);

/// Order-independent checksum of a dataset: the sum modulo 2^64 of a 64-bit mix of each element's
/// linear index (row-major, global) and its bit pattern. Decomposition-independent, so a file
/// written with one P_x x P_v can be verified with another; any changed element changes it.
std::uint64_t checkpoint_element_hash(std::uint64_t linear_index, double value);

/// The root attributes of checkpoint `path` (serial, one rank; no mesh, velocity grid or data):
/// format, format version, step and time ranges and, from version 2, the attribute checksum.
/// Problems throw InputError "checkpoint 'path': <problem>" (also for a file that HDF5's metadata
/// checksums find damaged).
CheckpointInfo read_checkpoint_header(const std::string& path);

/// The checksum stored as attribute_checksum: a 64-bit hash of the format version, step, time,
/// run_id, written_at, config, ugks_version, velocity_dim, K_int, store_b and the five dataset
/// checksums (b's 0 when absent), so that a changed attribute is found like a changed element;
/// from version 3 also limiter_frozen_step and the checksums of limiter_W, limiter_h and
/// limiter_b (limiter: those four numbers; 0 for an absent dataset).
std::uint64_t checkpoint_attribute_checksum(const CheckpointInfo& info, std::int64_t velocity_dim,
                                            std::int64_t K_int, std::int64_t store_b,
                                            const std::uint64_t dataset_checksums[5],
                                            const std::uint64_t limiter[4]);

/// A new run id: 16 hexadecimal digits from the clock, the process id and std::random_device.
/// Call on one rank and broadcast.
std::string make_run_id();

/// "checkpoint_000123.h5".
std::string checkpoint_file_name(long step);
/// Checkpoint files `checkpoint_<digits>.h5` in `dir` (no .tmp files), newest (highest step) first.
/// Local file-system listing (call on one rank and broadcast when ranks may disagree).
std::vector<std::string> list_checkpoints(const std::string& dir);
/// Remove all but the `keep` newest checkpoints of run `run_id` in `dir` (keep <= 0: remove
/// nothing). Files of other runs, of format version 1 and files whose header cannot be read are
/// never removed. Serial; never throws for a file it cannot examine or remove.
void prune_checkpoints(const std::string& dir, int keep, const std::string& run_id);

}  // namespace ugks

#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace ugks {

/// Full phase-space decomposition (docs/architecture.md section 5): world = P_x x P_v, velocity
/// index fastest: q = rank mod P_v, p = rank div P_v. comm_v(p) joins the P_v ranks of one physical
/// part (reductions of macroscopic arrays), comm_x(q) the P_x ranks of one velocity part (halo
/// exchange of distributions).
struct PhaseSpaceLayout {
    MPI_Comm world = MPI_COMM_NULL;
    int world_rank = 0, world_size = 1;
    int P_x = 1, P_v = 1;
    int p = 0, q = 0;
    MPI_Comm comm_x = MPI_COMM_NULL;  ///< rank in comm_x == p
    MPI_Comm comm_v = MPI_COMM_NULL;  ///< rank in comm_v == q
    MPI_Comm comm_node = MPI_COMM_NULL;
    int local_rank = 0, local_size = 1;
    std::string host;
    int device = -1;  ///< bound device, -1 on the CPU backend
};

/// Split `world` for P_v velocity ranks. Collective over `world`. InputError (same message on every
/// rank) when P_v < 1 or size % P_v != 0. The layout owns new communicators: layout.world is a
/// duplicate of `world`; comm_x, comm_v and comm_node are split from it; all carry
/// MPI_ERRORS_RETURN. Release them with free_layout. layout.device stays -1 until bind_device.
PhaseSpaceLayout make_layout(MPI_Comm world, int velocity_ranks);
/// Free the communicators owned by `layout` (collective); they become MPI_COMM_NULL.
void free_layout(PhaseSpaceLayout& layout);

/// Bind this rank to a device by node-local rank (seed 002) and fill layout.device. Collective over
/// layout.world: when binding fails on any rank, every rank throws (run_collective).
void bind_device(PhaseSpaceLayout& layout);

/// One row of the rank map.
struct RankInfo {
    int world_rank = 0;
    std::string host;
    int local_rank = 0;
    int device = -1;
    int visible_devices = 0;  ///< the GPUs this rank can see (0 on the CPU backend)
    int p = 0, q = 0;
};
/// The rows of every world rank, in world-rank order, gathered on rank 0 of layout.world (empty
/// elsewhere). Collective over layout.world.
std::vector<RankInfo> gather_rank_info(const PhaseSpaceLayout& layout);

/// The start-up rank map, one line per world rank (world rank, host, local rank, device, p, q),
/// gathered on rank 0. Collective over layout.world; returns the text on rank 0, "" elsewhere.
std::string rank_map(const PhaseSpaceLayout& layout);

/// Run `body` on every rank of `comm` and agree on failure: if any rank throws, every rank throws
/// the same exception type (InputError -> exit 2, NumericalError -> 3, other -> 1) with the message
/// of the lowest failing rank (highest exit class first). Nothing hangs as long as every rank calls
/// run_collective.
template <class F>
void run_collective(MPI_Comm comm, F&& body);
/// The agreement step used by run_collective. Collective over `comm`. code: 0 = ok, else the exit
/// class of this rank's failure (2 input, 3 numerical, other positive values internal). When any
/// code is nonzero, every rank throws InputError / NumericalError / std::runtime_error for the
/// highest code, with the message of the lowest rank holding that code; otherwise returns.
void agree_or_throw(MPI_Comm comm, int code, const std::string& message);

}  // namespace ugks

#include "ugks/core/error.hpp"

namespace ugks {
template <class F>
void run_collective(MPI_Comm comm, F&& body) {
    int code = 0;
    std::string msg;
    try {
        body();
    } catch (const InputError& e) {
        code = 2;
        msg = e.what();
    } catch (const NumericalError& e) {
        code = 3;
        msg = e.what();
    } catch (const std::exception& e) {
        code = 1;
        msg = e.what();
    }
    agree_or_throw(comm, code, msg);
}
}  // namespace ugks

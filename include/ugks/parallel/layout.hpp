#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace ugks {

/// Full phase-space decomposition (architecture.md section 5): world = P_x x P_v, velocity index fastest:
/// q = rank mod P_v, p = rank div P_v. comm_v(p) joins the P_v ranks of one physical part (reductions of
/// macroscopic arrays), comm_x(q) the P_x ranks of one velocity part (halo exchange of distributions).
struct PhaseSpaceLayout {
    MPI_Comm world = MPI_COMM_NULL;
    int world_rank = 0, world_size = 1;
    int P_x = 1, P_v = 1;
    int p = 0, q = 0;
    MPI_Comm comm_x = MPI_COMM_NULL;   ///< rank in comm_x == p
    MPI_Comm comm_v = MPI_COMM_NULL;   ///< rank in comm_v == q
    MPI_Comm comm_node = MPI_COMM_NULL;
    int local_rank = 0, local_size = 1;
    std::string host;
    int device = -1;                   ///< bound device, -1 on the CPU backend
};

/// Split `world` for P_v velocity ranks. InputError (same on every rank) when P_v < 1 or size % P_v != 0.
PhaseSpaceLayout make_layout(MPI_Comm world, int velocity_ranks);
void free_layout(PhaseSpaceLayout& layout);

/// Bind this rank to a device by node-local rank (seed 002) and fill layout.device.
void bind_device(PhaseSpaceLayout& layout);

/// The start-up rank map, one line per world rank (world rank, host, local rank, device, p, q), gathered
/// on rank 0. Collective over layout.world; returns the text on rank 0, "" elsewhere.
std::string rank_map(const PhaseSpaceLayout& layout);

/// Run `body` on every rank of `comm` and agree on failure: if any rank throws, every rank throws the same
/// exception type (InputError -> exit 2, NumericalError -> 3, other -> 1) with the message of the lowest
/// failing rank (highest exit class first). Nothing hangs as long as every rank calls run_collective.
template <class F>
void run_collective(MPI_Comm comm, F&& body);
/// The agreement step used by run_collective: code 0 = ok; rethrows on every rank when any code != 0.
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

#pragma once
/// parallel.block_size: auto and parallel.velocity_ranks: auto (docs/decisions.md "Automatic B_v
/// and P_v"): the choice is made by measuring the step itself at the start of the run. For every
/// candidate that fits the memory, a solver of the run's case is built on the candidate's
/// decomposition, initialised, stepped once to warm up and then timed over at least two steps and
/// 0.25 s (at most 20 steps); the candidate with the smallest step time (the slower rank's, the
/// fastest timed step) is kept. With both keys
/// auto, P_v is chosen first (over the divisors of the rank count, at B_v 64 or the fixed B_v),
/// then B_v at that P_v. The trial solvers are discarded: the run starts from its initial state or
/// checkpoint as without auto.
#include "ugks/app/run_stages.hpp"

namespace ugks {

/// The candidates of parallel.block_size: auto on this backend (CPU: 16 to 256; CUDA: 32 to 256).
std::vector<int> block_size_candidates();

/// Choose B_v and/or P_v for pb as described above, leave pb decomposed for the choice, record the
/// measurements in pb.tuning and log them. Nothing to do (and nothing logged) without auto.
/// Collective over MPI_COMM_WORLD.
void tune_decomposition(Problem& pb);

}  // namespace ugks

#pragma once
#include "ugks/app/run_case.hpp"

namespace ugks {

/// Does the case file (with the --set overrides) select `mode: overset`? False when the file cannot
/// be read (run_case then reports the error).
bool is_overset_case(const CommandLine& cl);

/// Run an overset assembly case (docs/usage.md, "Overset mode") on MPI_COMM_WORLD: every rank
/// reads and checks the case; rank 0 assembles and writes (distribution over ranks is a later
/// increment). Exit codes as run_case: 0, 2 (input), 1 (other), the same on every rank.
int run_overset_case(const CommandLine& cl);

}  // namespace ugks

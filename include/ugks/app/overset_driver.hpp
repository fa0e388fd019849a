#pragma once
#include "ugks/app/run_case.hpp"

namespace ugks {

class Config;

/// Does the case (the case file with the --set overrides) select `mode: overset`?
bool is_overset_case(const Config& cfg);

/// Run an overset assembly case (docs/usage.md, "Overset mode") on MPI_COMM_WORLD, from the case
/// that run_case has read: every rank reads and checks the meshes; with several ranks each
/// assembles its part (distributed.hpp) and rank 0 writes. Errors are exceptions (InputError for
/// bad input), which run_case turns into the exit code, the same on every rank.
RunOutcome run_overset_case(const CommandLine& cl, Config& cfg);

}  // namespace ugks

#pragma once
/// The resumable state of one rank's solver (UgksSolver and UgksSolverDevice::state_export /
/// state_import): the checkpoint layer's CheckpointState, which the io layer writes and reads
/// without knowing the solver (docs/architecture.md, "Layers").
#include "ugks/io/checkpoint_io.hpp"

namespace ugks {
using SolverState = CheckpointState;
}  // namespace ugks

#pragma once
/// The rule of parallel.halo (docs/decisions.md "Halo transport"), as a function of what the build
/// and the machine have shown, so that every answer can be tested without the hardware: the CUDA
/// backend gathers the facts (device_halo.hpp resolve_halo), this decides.
#include <string>

namespace ugks {

/// The halo transport (parallel.halo).
enum class HaloMode { staged, cuda_aware, nccl };

/// "staged", "cuda_aware" or "nccl".
const char* halo_name(HaloMode m);

/// What decides the transport (the same on every rank: each entry agreed over the ranks).
struct HaloFacts {
    bool mpi_reports_cuda = false;  ///< MPIX_Query_cuda_support() on every rank
    bool self_test_ran = false;     ///< the device-buffer send/receive test was run
    bool self_test_passed = false;  ///< ... and every rank received the expected bytes
    bool nccl_built = false;        ///< this build has NCCL
    bool distinct_gpus = false;     ///< no two ranks share a GPU
};

/// The transport chosen and why (one line for the log).
struct HaloChoice {
    HaloMode mode = HaloMode::staged;
    std::string reason;
};

/// `requested` (staged | cuda_aware | nccl | auto) with the facts: auto takes cuda_aware when the
/// MPI library reports CUDA support and the self-test passed, else nccl when built with NCCL and
/// every rank has its own GPU, else staged. An explicit choice that cannot work is an InputError
/// naming parallel.halo (exit 2).
HaloChoice choose_halo(const std::string& requested, const HaloFacts& facts);

}  // namespace ugks

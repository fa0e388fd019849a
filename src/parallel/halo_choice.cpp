// The rule of parallel.halo (include/ugks/parallel/halo_choice.hpp).
#include "ugks/parallel/halo_choice.hpp"

#include "ugks/core/error.hpp"

namespace ugks {

const char* halo_name(HaloMode m) {
    return m == HaloMode::staged ? "staged" : m == HaloMode::cuda_aware ? "cuda_aware" : "nccl";
}

namespace {

std::string aware_text(const HaloFacts& f) {
    if (!f.mpi_reports_cuda) return "the MPI library does not report CUDA support";
    if (!f.self_test_ran) return "the MPI library reports CUDA support (not tested)";
    return f.self_test_passed
               ? "the MPI library reports CUDA support and its device-buffer self-test passed"
               : "the MPI library reports CUDA support but its device-buffer self-test failed";
}

std::string nccl_text(const HaloFacts& f) {
    if (!f.nccl_built) return "this build has no NCCL";
    return f.distinct_gpus ? "NCCL is built and every rank has its own GPU"
                           : "NCCL is built but two ranks share a GPU";
}

}  // namespace

HaloChoice choose_halo(const std::string& requested, const HaloFacts& f) {
    const bool aware = f.mpi_reports_cuda && f.self_test_passed;
    const bool nccl = f.nccl_built && f.distinct_gpus;
    if (requested == "staged") return {HaloMode::staged, "requested"};
    if (requested == "cuda_aware") {
        if (!aware)
            throw InputError("parallel.halo: cuda_aware, but " + aware_text(f) +
                             "; use nccl, staged or auto");
        return {HaloMode::cuda_aware, "requested; " + aware_text(f)};
    }
    if (requested == "nccl") {
        if (!f.nccl_built)
            throw InputError(
                "parallel.halo: nccl, but this build has no NCCL (nccl.h and libnccl were not "
                "found when configuring; set NCCL_HOME and reconfigure); use staged or auto");
        if (!f.distinct_gpus)
            throw InputError(
                "parallel.halo: nccl needs one GPU per rank (two ranks share a GPU here); use "
                "staged or auto");
        return {HaloMode::nccl, "requested; " + nccl_text(f)};
    }
    if (requested != "auto")
        throw InputError("parallel.halo: '" + requested +
                         "' is not one of: staged, cuda_aware, nccl, auto");
    if (aware) return {HaloMode::cuda_aware, "auto: " + aware_text(f)};
    if (nccl) return {HaloMode::nccl, "auto: " + aware_text(f) + "; " + nccl_text(f)};
    return {HaloMode::staged, "auto: " + aware_text(f) + "; " + nccl_text(f)};
}

}  // namespace ugks

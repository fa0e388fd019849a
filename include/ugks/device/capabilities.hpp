#pragma once
/// What this build of the device layer can do, as constants the other layers test with `if
/// constexpr` or a plain `if` (docs/architecture.md, "Layers"): the only place outside the device
/// layer's own files where the backend of the build is known. No other layer tests UGKS_USE_CUDA,
/// UGKS_HAVE_NCCL or __CUDACC__ (scripts/check_layers.sh).
namespace ugks::device {

#if defined(UGKS_USE_CUDA)
inline constexpr bool kGpuBuild = true;  ///< UGKS_BACKEND=cuda: the solver's arrays live on a GPU
#else
inline constexpr bool kGpuBuild = false;
#endif
#if defined(UGKS_HAVE_NCCL)
inline constexpr bool kNcclBuild = true;  ///< NCCL found at configure time (parallel.halo: nccl)
#else
inline constexpr bool kNcclBuild = false;
#endif

/// The same answers as one value (summary.json, messages).
struct Capabilities {
    bool gpu;             ///< kGpuBuild
    bool nccl;            ///< kNcclBuild
    const char* backend;  ///< "CUDA" or "OpenMP" (backend_name())
};
constexpr Capabilities capabilities() {
    return {kGpuBuild, kNcclBuild, kGpuBuild ? "CUDA" : "OpenMP"};
}

}  // namespace ugks::device

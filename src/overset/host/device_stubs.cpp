// The overset device backend in a CPU build (UGKS_BACKEND=cpu): device_available() is false and
// every device entry point is an input error naming the build option. CUDA builds compile
// src/overset/cuda/device_kernels.cpp instead.
#include "ugks/core/error.hpp"
#include "ugks/overset/overset.hpp"

namespace ugks::overset {

namespace detail {
struct DeviceState {};
}  // namespace detail

namespace {
[[noreturn]] void no_device() {
    UGKS_INPUT_ERROR("overset: the device backend needs a CUDA build (-DUGKS_BACKEND=cuda)");
}
}  // namespace

bool device_available() { return false; }
AssemblyCounts assemble_device(OversetSystem&, double, AssemblyTimes*, const Pose&) { no_device(); }
KdTree build_kdtree_device(const double*, index_t, int, int) { no_device(); }
std::vector<double> nearest_distances_device(const double*, index_t, const double*, index_t, int,
                                             std::vector<index_t>*, index_t) {
    no_device();
}
std::vector<index_t> find_donors_device(const OversetGrid&, int, const double*, index_t, bool,
                                        std::vector<double>*) {
    no_device();
}
KdBenchTimes bench_kdtree_device(const double*, index_t, const double*, index_t, int, int,
                                 std::vector<double>*, std::vector<index_t>*, index_t) {
    no_device();
}

}  // namespace ugks::overset

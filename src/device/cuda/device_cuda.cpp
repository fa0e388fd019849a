#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ugks/device/cuda_check.hpp"
#include "ugks/device/device.hpp"

namespace ugks::device {

namespace {
int g_device = -1;
}

const char* backend_name() { return "CUDA"; }

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

int bind(int local_rank) {
    const int n = device_count();
    if (n == 0) throw std::runtime_error("CUDA backend: no CUDA device is visible to this process");
    int dev = local_rank % n;
    // ctest resource allocation: CTEST_RESOURCE_GROUP_0_GPUS="id:3,slots:1"
    if (const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS")) {
        std::string s(spec);
        auto p = s.find("id:");
        if (p != std::string::npos) dev = std::atoi(s.c_str() + p + 3) % n;
    }
    UGKS_CUDA_CHECK(cudaSetDevice(dev));
    g_device = dev;
    return dev;
}

std::string device_name() {
    if (g_device < 0) return "unbound";
    cudaDeviceProp prop{};
    UGKS_CUDA_CHECK(cudaGetDeviceProperties(&prop, g_device));
    return std::string(prop.name) + " (device " + std::to_string(g_device) + ")";
}

void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) {
    UGKS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void fence(const char*) { UGKS_CUDA_CHECK(cudaDeviceSynchronize()); }

bool profiler_start() {
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    UGKS_CUDA_CHECK(cudaProfilerStart());
    return true;
}

void profiler_stop() {
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    UGKS_CUDA_CHECK(cudaProfilerStop());
}

namespace detail {
[[noreturn]] void cuda_fail(int err, const char* expr, const char* file, int line) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "CUDA call %s failed: %s", expr,
                  cudaGetErrorString(static_cast<cudaError_t>(err)));
    ::ugks::detail::internal_fail(buf, file, line);
}
}  // namespace detail

}  // namespace ugks::device

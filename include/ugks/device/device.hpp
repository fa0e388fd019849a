#pragma once
#include <cstddef>
#include <string>

namespace ugks::device {

/// Name of the compiled backend: "OpenMP" or "CUDA".
const char* backend_name();

/// Number of visible accelerator devices (0 on the CPU backend or when none is visible).
int device_count();

/// Bind this process to a device: node-local rank modulo visible devices (seed 002). Returns the
/// device index, or -1 on the CPU backend. CTEST_RESOURCE_GROUP_0_GPUS ("id:N,slots:1") overrides
/// the choice. Throws std::runtime_error on a CUDA backend without a usable device.
int bind(int local_rank);

/// Human-readable name of the bound device ("host (N OpenMP threads)" on the CPU backend).
std::string device_name();

/// Free and total memory of the bound device in bytes (host physical memory on the CPU backend).
void memory_info(std::size_t& free_bytes, std::size_t& total_bytes);

/// Wait for all outstanding device work (no-op on the CPU backend).
void fence(const char* reason = nullptr);

/// Open the profiler's capture range: waits for the device, then cudaProfilerStart, so that
/// `nsys profile --capture-range=cudaProfilerApi` records from here (--profile-steps). Returns
/// false on the CPU backend, where there is no capture range and nothing happens.
bool profiler_start();
/// Close the capture range: waits for the device's queued work, then cudaProfilerStop (no-op on
/// the CPU backend).
void profiler_stop();

}  // namespace ugks::device

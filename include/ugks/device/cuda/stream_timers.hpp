#pragma once
/// Stream-side helpers of the CUDA backend (CUDA builds only): device-time timers from CUDA events
/// (summary.json wall_time_s "gpu:<name>"), NVTX ranges for Nsight Systems, and the one error path
/// for kernel launches and asynchronous faults (the message names the last kernel launched).
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/device/cuda_check.hpp"

namespace ugks::device {

/// Device time of named intervals on streams, from pooled CUDA events; UGKS_GPU_TIMERS=0 turns
/// them off. flush() adds the accumulated seconds to the process timers under "gpu:<name>".
class EventTimers {
public:
    EventTimers() {
        const char* env = std::getenv("UGKS_GPU_TIMERS");
        m_on = !(env && std::strcmp(env, "0") == 0);
    }
    ~EventTimers() {
        for (cudaEvent_t e : m_pool) cudaEventDestroy(e);
    }
    EventTimers(const EventTimers&) = delete;
    EventTimers& operator=(const EventTimers&) = delete;

    /// Record a start event on st; returns its slot (-1 when off).
    int begin(cudaStream_t st) {
        if (!m_on) return -1;
        const int k = next();
        UGKS_CUDA_CHECK(cudaEventRecord(m_pool[k], st));
        return k;
    }
    /// Record the matching stop event on st under category name (a string literal).
    void end(int k, const char* name, cudaStream_t st) {
        if (k < 0) return;
        const int e = next();
        UGKS_CUDA_CHECK(cudaEventRecord(m_pool[e], st));
        m_recs.push_back({name, k, e});
    }
    /// Add the recorded intervals to timers() (waits for the last stop events) and reset.
    void flush() {
        for (const Rec& r : m_recs) {
            UGKS_CUDA_CHECK(cudaEventSynchronize(m_pool[r.stop]));
            float ms = 0.0f;
            UGKS_CUDA_CHECK(cudaEventElapsedTime(&ms, m_pool[r.start], m_pool[r.stop]));
            m_acc[r.name] += 1e-3 * ms;
        }
        for (const auto& [name, sec] : m_acc) timers().add(std::string("gpu:") + name, sec);
        m_acc.clear();
        m_recs.clear();
        m_used = 0;
    }

private:
    struct Rec {
        const char* name;
        int start, stop;
    };
    int next() {
        if (m_used == m_pool.size()) {
            cudaEvent_t e;
            UGKS_CUDA_CHECK(cudaEventCreate(&e));
            m_pool.push_back(e);
        }
        return static_cast<int>(m_used++);
    }
    bool m_on = true;
    std::vector<cudaEvent_t> m_pool;
    std::size_t m_used = 0;
    std::vector<Rec> m_recs;
    std::map<const char*, double> m_acc;
};

/// NVTX range for the Nsight timeline (scope-bound).
struct NvtxRange {
    explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
    ~NvtxRange() { nvtxRangePop(); }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

/// An asynchronous CUDA fault: internal error naming what was waited for and the last kernel.
[[noreturn]] inline void fault(cudaError_t e, const char* what, const std::string& last) {
    ::ugks::detail::internal_fail(fmt::format("CUDA fault at {} (last kernel launched: {}): {}",
                                              what, last, cudaGetErrorString(e)),
                                  __FILE__, __LINE__);
}

/// Check the launch of kernel `name` (recorded in last); with the CMake option UGKS_SYNC_CHECK
/// also wait for it, so that a fault names the kernel that caused it.
inline void check_launch(const char* name, std::string& last) {
    last = name;
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) fault(e, "launch", last);
#ifdef UGKS_SYNC_CHECK
    const cudaError_t s = cudaDeviceSynchronize();
    if (s != cudaSuccess) fault(s, "kernel", last);
#endif
}

}  // namespace ugks::device

#pragma once
#include <cstddef>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ugks/core/traffic.hpp"
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"

#if defined(UGKS_USE_CUDA)
#include <cuda_runtime.h>

#include "ugks/device/cuda_check.hpp"
#endif

namespace ugks {

/// Non-owning view (pointer + size) that kernels capture by value. Host or device pointer as its
/// owner.
template <class T>
struct Span {
    T* data = nullptr;
    index_t size = 0;
    UGKS_HOST_DEVICE T& operator[](index_t i) const { return data[i]; }
};

/// Byte tally per label of live DeviceArrays, and the peak of the total (printed in summary.json).
struct MemoryTally {
    std::map<std::string, std::size_t> live;
    std::size_t current = 0;
    std::size_t peak = 0;
    void add(const std::string& label, std::size_t bytes) {
        live[label] += bytes;
        current += bytes;
        if (current > peak) peak = current;
    }
    void remove(const std::string& label, std::size_t bytes) {
        live[label] -= bytes;
        current -= bytes;
    }
};
MemoryTally& memory_tally();

/// Labelled, move-only array in device memory (host memory on the CPU backend). Data is copied
/// explicitly with copy_from / copy_to; there is no implicit coherence.
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    DeviceArray(std::string label, index_t n) : m_label(std::move(label)), m_size(n) {
        const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n);
#if defined(UGKS_USE_CUDA)
        if (bytes) UGKS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_data), bytes));
#else
        if (bytes) m_data = static_cast<T*>(::operator new(bytes, std::align_val_t(64)));
#endif
        memory_tally().add(m_label, bytes);
    }
    ~DeviceArray() { release(); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    DeviceArray(DeviceArray&& o) noexcept { swap(o); }
    DeviceArray& operator=(DeviceArray&& o) noexcept {
        if (this != &o) {
            release();
            swap(o);
        }
        return *this;
    }

    index_t size() const { return m_size; }
    const std::string& label() const { return m_label; }
    Span<T> view() { return {m_data, m_size}; }
    Span<const T> view() const { return {m_data, m_size}; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }

    void copy_from(const std::vector<T>& host) {
        copy_from(host.data(), static_cast<index_t>(host.size()));
    }
    void copy_from(const T* host, index_t n) {
        const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n < m_size ? n : m_size);
#if defined(UGKS_USE_CUDA)
        UGKS_CUDA_CHECK(cudaMemcpy(m_data, host, bytes, cudaMemcpyHostToDevice));
        traffic_add(Traffic::H2D, bytes);
#else
        if (bytes) std::memcpy(m_data, host, bytes);
#endif
    }
    void copy_to(std::vector<T>& host) const {
        host.resize(static_cast<std::size_t>(m_size));
        const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(m_size);
#if defined(UGKS_USE_CUDA)
        UGKS_CUDA_CHECK(cudaMemcpy(host.data(), m_data, bytes, cudaMemcpyDeviceToHost));
        traffic_add(Traffic::D2H, bytes);
#else
        if (bytes) std::memcpy(host.data(), m_data, bytes);
#endif
    }

private:
    void release() {
        if (!m_data) return;
#if defined(UGKS_USE_CUDA)
        cudaDeviceSynchronize();  // never free memory a kernel may still use
        cudaFree(m_data);
#else
        ::operator delete(m_data, std::align_val_t(64));
#endif
        memory_tally().remove(m_label, sizeof(T) * static_cast<std::size_t>(m_size));
        m_data = nullptr;
        m_size = 0;
    }
    void swap(DeviceArray& o) noexcept {
        std::swap(m_label, o.m_label);
        std::swap(m_size, o.m_size);
        std::swap(m_data, o.m_data);
    }
    std::string m_label;
    index_t m_size = 0;
    T* m_data = nullptr;
};

}  // namespace ugks

#pragma once
/// NCCL through the device layer (CUDA builds only): an owning communicator and the few calls the
/// halo exchange and the velocity reductions need. Builds without NCCL get the same interface;
/// nccl_built() is false there and a communicator is never created.
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstddef>

namespace ugks::device {

/// True when this build links NCCL.
bool nccl_built();

/// An NCCL communicator over the ranks of an MPI communicator (rank numbers as there), destroyed
/// with the object (after the device is idle). Empty (no NCCL calls) for a single rank.
class NcclComm {
public:
    NcclComm() = default;
    /// Collective over comm. Throws (internal error) when NCCL fails or is not built.
    explicit NcclComm(MPI_Comm comm);
    ~NcclComm();
    NcclComm(const NcclComm&) = delete;
    NcclComm& operator=(const NcclComm&) = delete;
    NcclComm(NcclComm&& o) noexcept { swap(o); }
    NcclComm& operator=(NcclComm&& o) noexcept {
        swap(o);
        return *this;
    }

    explicit operator bool() const { return m_comm != nullptr; }
    /// Sum of n doubles over the ranks, in place, on stream st.
    void allreduce_sum(double* buf, std::size_t n, cudaStream_t st) const;
    /// Point-to-point calls between group_start and group_end, on stream st.
    void group_start() const;
    void group_end() const;
    void send(const double* buf, std::size_t n, int peer, cudaStream_t st) const;
    void recv(double* buf, std::size_t n, int peer, cudaStream_t st) const;

private:
    void swap(NcclComm& o) noexcept {
        void* t = m_comm;
        m_comm = o.m_comm;
        o.m_comm = t;
    }
    void* m_comm = nullptr;  ///< ncclComm_t
};

}  // namespace ugks::device

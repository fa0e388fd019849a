// NCCL through the device layer (include/ugks/device/cuda/nccl.hpp).
#include "ugks/device/cuda/nccl.hpp"

#include <fmt/format.h>

#include "ugks/core/error.hpp"
#include "ugks/core/traffic.hpp"

#if defined(UGKS_HAVE_NCCL)
#include <nccl.h>

#define UGKS_NCCL_CHECK(call)                                                                      \
    do {                                                                                           \
        const ncclResult_t ugks_r_ = (call);                                                       \
        if (ugks_r_ != ncclSuccess)                                                                \
            ::ugks::detail::internal_fail(                                                         \
                fmt::format("NCCL error in {}: {}", #call, ncclGetErrorString(ugks_r_)), __FILE__, \
                __LINE__);                                                                         \
    } while (0)

namespace ugks::device {
namespace {
ncclComm_t raw(void* c) { return static_cast<ncclComm_t>(c); }
}  // namespace

bool nccl_built() { return true; }

NcclComm::NcclComm(MPI_Comm comm) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (size <= 1) return;
    ncclUniqueId id;
    if (rank == 0) UGKS_NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
    ncclComm_t c = nullptr;
    UGKS_NCCL_CHECK(ncclCommInitRank(&c, size, id, rank));
    m_comm = c;
}

NcclComm::~NcclComm() {
    if (!m_comm) return;
    cudaDeviceSynchronize();
    ncclCommDestroy(raw(m_comm));
}

void NcclComm::allreduce_sum(double* buf, std::size_t n, cudaStream_t st) const {
    UGKS_NCCL_CHECK(ncclAllReduce(buf, buf, n, ncclDouble, ncclSum, raw(m_comm), st));
}
void NcclComm::group_start() const { UGKS_NCCL_CHECK(ncclGroupStart()); }
void NcclComm::group_end() const { UGKS_NCCL_CHECK(ncclGroupEnd()); }
void NcclComm::send(const double* buf, std::size_t n, int peer, cudaStream_t st) const {
    UGKS_NCCL_CHECK(ncclSend(buf, n, ncclDouble, peer, raw(m_comm), st));
    traffic_add(Traffic::NcclSent, sizeof(double) * n);
}
void NcclComm::recv(double* buf, std::size_t n, int peer, cudaStream_t st) const {
    UGKS_NCCL_CHECK(ncclRecv(buf, n, ncclDouble, peer, raw(m_comm), st));
    traffic_add(Traffic::NcclRecv, sizeof(double) * n);
}

}  // namespace ugks::device

#else  // no NCCL in this build: the interface exists, a communicator cannot be made

namespace ugks::device {
namespace {
[[noreturn]] void no_nccl() {
    ::ugks::detail::internal_fail("NCCL call in a build without NCCL", __FILE__, __LINE__);
}
}  // namespace

bool nccl_built() { return false; }
NcclComm::NcclComm(MPI_Comm) { no_nccl(); }
NcclComm::~NcclComm() = default;
void NcclComm::allreduce_sum(double*, std::size_t, cudaStream_t) const { no_nccl(); }
void NcclComm::group_start() const { no_nccl(); }
void NcclComm::group_end() const { no_nccl(); }
void NcclComm::send(const double*, std::size_t, int, cudaStream_t) const { no_nccl(); }
void NcclComm::recv(double*, std::size_t, int, cudaStream_t) const { no_nccl(); }

}  // namespace ugks::device

#endif

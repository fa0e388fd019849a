#pragma once
/// Halo exchange of device cell arrays (CUDA builds), next to the host HaloExchange: the transport
/// of parallel.halo (staged through pinned host memory, CUDA-aware MPI, or NCCL), chosen once by
/// resolve_halo.
#include <cuda_runtime.h>
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/core/types.hpp"
#include "ugks/device/array.hpp"
#include "ugks/device/cuda/nccl.hpp"
#include "ugks/device/cuda/stream_timers.hpp"
#include "ugks/parallel/halo_choice.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"

namespace ugks {

/// parallel.halo resolved (the same on every rank of world; collective): the facts of HaloFacts
/// gathered and agreed over world (the device-buffer self-test runs when every rank's MPI reports
/// CUDA support), then choose_halo (halo_choice.hpp) decides.
HaloChoice resolve_halo(const std::string& req, MPI_Comm world);

/// The CUDA-aware self-test (collective over comm): every rank sends 1024 doubles from device
/// memory to the next rank (MPI_Sendrecv of device pointers), and reduces 1024 doubles in device
/// memory over comm (MPI_Allreduce, the velocity sums' path); true when every rank received and
/// reduced the expected values. Call it only when the MPI library reports CUDA support (a library
/// without it may crash on a device pointer).
bool cuda_aware_self_test(MPI_Comm comm);

/// Halo exchange of device cell arrays (parallel.halo). The owned rows to send are packed on the
/// device into one buffer (per neighbour in pattern order), moved to the neighbours and scattered
/// from the receive buffer into the ghost rows:
///   staged      pack, D2H into pinned memory, HaloExchange (MPI over a compact pattern: send rows
///               first, then receive rows), H2D, unpack; the host waits for the pack;
///   cuda_aware  pack, the host waits for it, MPI_Isend/Irecv of the device buffers, unpack;
///   nccl        pack, ncclSend/ncclRecv per neighbour in one ncclGroupStart/End, unpack: all on
///   the
///               stream, no host wait.
class DeviceHalo {
public:
    DeviceHalo() = default;
    /// Collective over comm (staged: the compact host pattern; cuda_aware: a private duplicate
    /// of comm). max_width: the widest row exchanged (doubles).
    DeviceHalo(MPI_Comm comm, const HaloPattern& pat, int max_width, const std::string& label,
               HaloMode mode, const device::NcclComm* nccl);
    ~DeviceHalo();
    DeviceHalo(const DeviceHalo&) = delete;
    DeviceHalo& operator=(const DeviceHalo&) = delete;
    DeviceHalo& operator=(DeviceHalo&& o) noexcept {
        std::swap(m_mode, o.m_mode);
        std::swap(m_nccl, o.m_nccl);
        std::swap(m_comm, o.m_comm);
        std::swap(m_halo, o.m_halo);
        std::swap(m_nbr, o.m_nbr);
        std::swap(m_seg, o.m_seg);
        std::swap(m_send_cells, o.m_send_cells);
        std::swap(m_recv_cells, o.m_recv_cells);
        std::swap(m_dsend, o.m_dsend);
        std::swap(m_drecv, o.m_drecv);
        std::swap(m_host, o.m_host);
        std::swap(m_packed, o.m_packed);
        std::swap(m_nsend, o.m_nsend);
        std::swap(m_nrecv, o.m_nrecv);
        std::swap(m_max_width, o.m_max_width);
        std::swap(m_active, o.m_active);
        std::swap(m_et, o.m_et);
        return *this;
    }
    /// Device timers of the pack, copies and unpack (null: untimed).
    void set_timers(device::EventTimers* et) { m_et = et; }

    bool active() const { return m_active; }
    std::size_t working_bytes() const {
        return sizeof(double) * static_cast<std::size_t>(m_nsend + m_nrecv) * m_max_width;
    }

    /// Pack the owned rows of a (and b), width wa each, on stream (staged: and copy them to pinned
    /// memory). T: double, or float (distributions with numerics.storage fp32: a packed row of
    /// floats is moved as the doubles that hold its bytes, rounded up).
    template <class T>
    void start(cudaStream_t st, const T* a, const T* b, int wa, std::string& last);
    /// Exchange the packed rows and scatter the received rows into the ghost rows of a (and b),
    /// on stream (staged, cuda_aware: the host waits for the pack and does the MPI part; nccl:
    /// enqueued only).
    template <class T>
    void finish(cudaStream_t st, T* a, T* b, int wa, std::string& last);
    void exchange(cudaStream_t st, double* a, double* b, int wa, std::string& last) {
        start(st, a, b, wa, last);
        finish(st, a, b, wa, last);
    }

private:
    struct Segment {
        index_t so, ns, ro, nr;  ///< send/receive row offset and count of one neighbour
    };
    HaloMode m_mode = HaloMode::staged;
    const device::NcclComm* m_nccl = nullptr;  ///< nccl: the communicator over the halo ranks
    MPI_Comm m_comm = MPI_COMM_NULL;  ///< cuda_aware: private duplicate of the halo communicator
    HaloExchange m_halo;              ///< staged
    std::vector<int> m_nbr;
    std::vector<Segment> m_seg;
    DeviceArray<index_t> m_send_cells, m_recv_cells;
    DeviceArray<double> m_dsend, m_drecv;
    double* m_host = nullptr;
    cudaEvent_t m_packed = nullptr;
    index_t m_nsend = 0, m_nrecv = 0;
    int m_max_width = 0, m_width = 0;
    bool m_active = false;
    device::EventTimers* m_et = nullptr;
};

}  // namespace ugks

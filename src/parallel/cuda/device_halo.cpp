// Halo exchange of device cell arrays (include/ugks/parallel/device_halo.hpp).
#include "ugks/parallel/device_halo.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support (OpenMPI)
#endif

#include <algorithm>
#include <string>
#include <vector>

namespace ugks {

namespace {

/// Doubles that hold a packed row of wa values of T (2 wa with b), rounded up.
template <class T>
int row_words(int wa, bool with_b) {
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(with_b ? 2 * wa : wa);
    return static_cast<int>((bytes + sizeof(double) - 1) / sizeof(double));
}

/// Halo rows: pack owned rows of a (and b) into row r of out, row_words<T>(wa, b) doubles per row
/// holding the row's values of T (wa of a, then wa of b), or unpack the reverse. threadIdx.x runs
/// over a row's columns (coalesced reads and writes), threadIdx.y over rows; each row's cell
/// index is read once (no index division).
template <class T>
__global__ void k_pack(const T* __restrict__ a, const T* __restrict__ b, int wa, int words,
                       const index_t* __restrict__ cells, index_t n, double* __restrict__ out) {
    const index_t r = blockIdx.x * static_cast<index_t>(blockDim.y) + threadIdx.y;
    if (r >= n) return;
    const index_t cell = cells[r];
    T* o = reinterpret_cast<T*>(out + r * words);
    const T* sa = a + cell * wa;
    for (int c = threadIdx.x; c < wa; c += blockDim.x) o[c] = sa[c];
    if (b) {
        const T* sb = b + cell * wa;
        for (int c = threadIdx.x; c < wa; c += blockDim.x) o[wa + c] = sb[c];
    }
}
template <class T>
__global__ void k_unpack(T* __restrict__ a, T* __restrict__ b, int wa, int words,
                         const index_t* __restrict__ cells, index_t n,
                         const double* __restrict__ in) {
    const index_t r = blockIdx.x * static_cast<index_t>(blockDim.y) + threadIdx.y;
    if (r >= n) return;
    const index_t cell = cells[r];
    const T* s = reinterpret_cast<const T*>(in + r * words);
    T* da = a + cell * wa;
    for (int c = threadIdx.x; c < wa; c += blockDim.x) da[c] = s[c];
    if (b) {
        T* db = b + cell * wa;
        for (int c = threadIdx.x; c < wa; c += blockDim.x) db[c] = s[wa + c];
    }
}
/// Thread block of the row kernels for row width wa: x covers the row (a multiple of 32, at most
/// 256), y = rows per block (256 threads in all).
dim3 row_block(int wa) {
    int x = 32;
    while (x < wa && x < 256) x *= 2;
    return dim3(static_cast<unsigned>(x), static_cast<unsigned>(std::max(1, 256 / x)));
}
unsigned grid_rows(index_t n, dim3 tb) {
    return static_cast<unsigned>(std::max<index_t>(1, (n + tb.y - 1) / tb.y));
}

}  // namespace

const char* halo_name(HaloMode m) {
    return m == HaloMode::staged ? "staged" : m == HaloMode::cuda_aware ? "cuda_aware" : "nccl";
}

namespace {

/// True when the MPI library reports CUDA support at run time (MPIX_Query_cuda_support).
bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

/// True when no two ranks of comm share a GPU (host name + PCI bus id; collective).
bool distinct_gpus(MPI_Comm comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size <= 1) return true;
    constexpr int kLen = MPI_MAX_PROCESSOR_NAME + 64;
    std::vector<char> key(kLen, 0), all(static_cast<std::size_t>(kLen) * size, 0);
    int dev = 0, len = 0;
    UGKS_CUDA_CHECK(cudaGetDevice(&dev));
    MPI_Get_processor_name(key.data(), &len);
    key[len] = '/';
    UGKS_CUDA_CHECK(cudaDeviceGetPCIBusId(key.data() + len + 1, 60, dev));
    MPI_Allgather(key.data(), kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, comm);
    std::vector<std::string> ids;
    for (int r = 0; r < size; ++r)
        ids.emplace_back(all.data() + static_cast<std::size_t>(r) * kLen);
    std::sort(ids.begin(), ids.end());
    return std::adjacent_find(ids.begin(), ids.end()) == ids.end();
}

}  // namespace

/// parallel.halo resolved (the same on every rank of world; collective): auto takes cuda_aware when
/// the MPI library reports CUDA support, else nccl when built with NCCL and every rank has its own
/// GPU, else staged. An explicit choice that cannot work is an input error (exit 2).
HaloMode resolve_halo(const std::string& req, MPI_Comm world) {
    const bool aware = mpi_cuda_aware();
    const bool built = device::nccl_built();
    const bool distinct = distinct_gpus(world);
    if (req == "staged") return HaloMode::staged;
    if (req == "cuda_aware") {
        if (!aware)
            throw InputError(
                "parallel.halo: cuda_aware, but the MPI library does not report CUDA support "
                "(MPIX_Query_cuda_support); use nccl, staged or auto");
        return HaloMode::cuda_aware;
    }
    if (req == "nccl") {
        if (!built)
            throw InputError(
                "parallel.halo: nccl, but this build has no NCCL (nccl.h and libnccl were not "
                "found "
                "when configuring; set NCCL_HOME and reconfigure); use staged or auto");
        if (!distinct)
            throw InputError(
                "parallel.halo: nccl needs one GPU per rank (two ranks share a GPU here); use "
                "staged or auto");
        return HaloMode::nccl;
    }
    if (aware) return HaloMode::cuda_aware;
    if (built && distinct) return HaloMode::nccl;
    return HaloMode::staged;
}

DeviceHalo::DeviceHalo(MPI_Comm comm, const HaloPattern& pat, int max_width,
                       const std::string& label, HaloMode mode, const device::NcclComm* nccl)
    : m_mode(mode), m_nccl(nccl) {
    std::vector<index_t> send, recv;
    for (const auto& l : pat.send_cells) send.insert(send.end(), l.begin(), l.end());
    for (const auto& l : pat.recv_cells) recv.insert(recv.end(), l.begin(), l.end());
    m_nsend = static_cast<index_t>(send.size());
    m_nrecv = static_cast<index_t>(recv.size());
    m_nbr = pat.neighbours;
    index_t so = 0, ro = 0;
    for (std::size_t k = 0; k < pat.neighbours.size(); ++k) {
        const index_t ns = static_cast<index_t>(pat.send_cells[k].size());
        const index_t nr = static_cast<index_t>(pat.recv_cells[k].size());
        m_seg.push_back({so, ns, ro, nr});
        so += ns;
        ro += nr;
    }
    if (mode == HaloMode::staged) {
        HaloPattern compact;
        compact.neighbours = pat.neighbours;
        index_t r = 0;
        for (const auto& l : pat.send_cells) {
            compact.send_cells.emplace_back();
            for (std::size_t k = 0; k < l.size(); ++k) compact.send_cells.back().push_back(r++);
        }
        for (const auto& l : pat.recv_cells) {
            compact.recv_cells.emplace_back();
            for (std::size_t k = 0; k < l.size(); ++k) compact.recv_cells.back().push_back(r++);
        }
        m_halo = HaloExchange(comm, compact);  // collective over comm
    } else if (mode == HaloMode::cuda_aware) {
        MPI_Comm_dup(comm, &m_comm);  // collective over comm
    }
    m_active = m_nsend + m_nrecv > 0;
    if (!m_active) return;
    m_send_cells = DeviceArray<index_t>(label + ":send_cells", m_nsend);
    m_send_cells.copy_from(send);
    m_recv_cells = DeviceArray<index_t>(label + ":recv_cells", m_nrecv);
    m_recv_cells.copy_from(recv);
    m_dsend = DeviceArray<double>("work:" + label + ":send", m_nsend * max_width);
    m_drecv = DeviceArray<double>("work:" + label + ":recv", m_nrecv * max_width);
    m_max_width = max_width;
    if (mode == HaloMode::staged)
        UGKS_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&m_host),
                                       sizeof(double) * (m_nsend + m_nrecv) * max_width));
    UGKS_CUDA_CHECK(cudaEventCreateWithFlags(&m_packed, cudaEventDisableTiming));
}
DeviceHalo::~DeviceHalo() {
    if (m_host) cudaFreeHost(m_host);
    if (m_packed) cudaEventDestroy(m_packed);
    if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);
}
template <class T>
void DeviceHalo::start(cudaStream_t st, const T* a, const T* b, int wa, std::string& last) {
    if (!m_active) return;
    const int w = row_words<T>(wa, b != nullptr);
    UGKS_REQUIRE(w <= m_max_width, "halo row width " << w << " > " << m_max_width);
    m_width = w;
    if (m_nsend > 0) {
        const int t0 = m_et ? m_et->begin(st) : -1;
        const dim3 tb = row_block(wa);
        k_pack<T><<<grid_rows(m_nsend, tb), tb, 0, st>>>(a, b, wa, w, m_send_cells.data(), m_nsend,
                                                         m_dsend.data());
        device::check_launch("k_pack", last);
        if (m_et) m_et->end(t0, "k_pack", st);
        if (m_mode == HaloMode::staged) {
            const int t1 = m_et ? m_et->begin(st) : -1;
            UGKS_CUDA_CHECK(cudaMemcpyAsync(m_host, m_dsend.data(), sizeof(double) * m_nsend * w,
                                            cudaMemcpyDeviceToHost, st));
            if (m_et) m_et->end(t1, "d2h", st);
        }
    }
    if (m_mode != HaloMode::nccl) UGKS_CUDA_CHECK(cudaEventRecord(m_packed, st));
}
template <class T>
void DeviceHalo::finish(cudaStream_t st, T* a, T* b, int wa, std::string& last) {
    if (!m_active) return;
    const int w = m_width;
    if (m_mode != HaloMode::nccl) {
        ScopedTimer t("halo_pack_wait");
        const cudaError_t e = cudaEventSynchronize(m_packed);
        if (e != cudaSuccess) device::fault(e, "halo pack", last);
    }
    if (m_mode == HaloMode::staged) {
        {
            ScopedTimer t("mpi_halo");
            m_halo.begin(m_host, w);
            m_halo.end(m_host);
        }
        if (m_nrecv > 0) {
            const int t0 = m_et ? m_et->begin(st) : -1;
            UGKS_CUDA_CHECK(cudaMemcpyAsync(m_drecv.data(), m_host + m_nsend * w,
                                            sizeof(double) * m_nrecv * w, cudaMemcpyHostToDevice,
                                            st));
            if (m_et) m_et->end(t0, "h2d", st);
        }
    } else if (m_mode == HaloMode::cuda_aware) {
        ScopedTimer t("mpi_halo");
        std::vector<MPI_Request> req;
        for (std::size_t k = 0; k < m_nbr.size(); ++k) {
            req.emplace_back();
            MPI_Irecv(m_drecv.data() + m_seg[k].ro * w, static_cast<int>(m_seg[k].nr * w),
                      MPI_DOUBLE, m_nbr[k], 0, m_comm, &req.back());
        }
        for (std::size_t k = 0; k < m_nbr.size(); ++k) {
            req.emplace_back();
            MPI_Isend(m_dsend.data() + m_seg[k].so * w, static_cast<int>(m_seg[k].ns * w),
                      MPI_DOUBLE, m_nbr[k], 0, m_comm, &req.back());
        }
        MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    } else {
        const int t0 = m_et ? m_et->begin(st) : -1;
        m_nccl->group_start();
        for (std::size_t k = 0; k < m_nbr.size(); ++k) {
            if (m_seg[k].nr > 0)
                m_nccl->recv(m_drecv.data() + m_seg[k].ro * w,
                             static_cast<std::size_t>(m_seg[k].nr * w), m_nbr[k], st);
            if (m_seg[k].ns > 0)
                m_nccl->send(m_dsend.data() + m_seg[k].so * w,
                             static_cast<std::size_t>(m_seg[k].ns * w), m_nbr[k], st);
        }
        m_nccl->group_end();
        if (m_et) m_et->end(t0, "nccl_halo", st);
    }
    if (m_nrecv > 0) {
        const int t1 = m_et ? m_et->begin(st) : -1;
        const dim3 tb = row_block(wa);
        k_unpack<T><<<grid_rows(m_nrecv, tb), tb, 0, st>>>(a, b, wa, w, m_recv_cells.data(),
                                                           m_nrecv, m_drecv.data());
        device::check_launch("k_unpack", last);
        if (m_et) m_et->end(t1, "k_unpack", st);
    }
}
template void DeviceHalo::start<double>(cudaStream_t, const double*, const double*, int,
                                        std::string&);
template void DeviceHalo::start<float>(cudaStream_t, const float*, const float*, int, std::string&);
template void DeviceHalo::finish<double>(cudaStream_t, double*, double*, int, std::string&);
template void DeviceHalo::finish<float>(cudaStream_t, float*, float*, int, std::string&);
}  // namespace ugks

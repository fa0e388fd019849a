// Halo exchange of device cell arrays (include/ugks/parallel/device_halo.hpp).
#include "ugks/parallel/device_halo.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support (OpenMPI)
#endif

#include <algorithm>
#include <string>
#include <vector>

#include "ugks/core/traffic.hpp"

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

bool cuda_aware_self_test(MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    constexpr int n = 1024;
    std::vector<double> mine(n), got(n, 0.0), sum(n, 0.0);
    auto value = [](int r, int i) { return 1000.0 * r + i + 0.25; };
    for (int i = 0; i < n; ++i) mine[i] = value(rank, i);
    double *d_send = nullptr, *d_recv = nullptr, *d_sum = nullptr;
    bool ok = cudaMalloc(reinterpret_cast<void**>(&d_send), sizeof(double) * n) == cudaSuccess &&
              cudaMalloc(reinterpret_cast<void**>(&d_recv), sizeof(double) * n) == cudaSuccess &&
              cudaMalloc(reinterpret_cast<void**>(&d_sum), sizeof(double) * n) == cudaSuccess;
    ok = ok &&
         cudaMemcpy(d_send, mine.data(), sizeof(double) * n, cudaMemcpyHostToDevice) == cudaSuccess;
    ok = ok && cudaMemset(d_recv, 0, sizeof(double) * n) == cudaSuccess;
    // a private communicator whose errors return (the test must not abort the run)
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int flag = ok ? 1 : 0;  // every rank takes part in the collectives below, or none
    MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MIN, c);
    ok = flag != 0;
    if (ok) {
        const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        ok = MPI_Sendrecv(d_send, n, MPI_DOUBLE, next, 17, d_recv, n, MPI_DOUBLE, prev, 17, c,
                          MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok = MPI_Allreduce(d_send, d_sum, n, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS && ok;
        ok = ok && cudaMemcpy(got.data(), d_recv, sizeof(double) * n, cudaMemcpyDeviceToHost) ==
                       cudaSuccess;
        ok = ok && cudaMemcpy(sum.data(), d_sum, sizeof(double) * n, cudaMemcpyDeviceToHost) ==
                       cudaSuccess;
        for (int i = 0; ok && i < n; ++i) {
            double want = 0.0;
            for (int r = 0; r < size; ++r) want += value(r, i);
            ok = got[i] == value(prev, i) && sum[i] == want;
        }
    }
    cudaFree(d_send);
    cudaFree(d_recv);
    cudaFree(d_sum);
    int all = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
    MPI_Comm_free(&c);
    return all != 0;
}

HaloChoice resolve_halo(const std::string& req, MPI_Comm world) {
    HaloFacts f;
    int reports = mpi_cuda_aware() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &reports, 1, MPI_INT, MPI_MIN, world);
    f.mpi_reports_cuda = reports != 0;
    // the self-test only where it can matter: auto or an explicit cuda_aware
    if (f.mpi_reports_cuda && (req == "auto" || req == "cuda_aware")) {
        f.self_test_ran = true;
        f.self_test_passed = cuda_aware_self_test(world);
    }
    f.nccl_built = device::nccl_built();
    f.distinct_gpus = distinct_gpus(world);
    return choose_halo(req, f);
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
            traffic_add(Traffic::D2H, sizeof(double) * m_nsend * w);
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
            traffic_add(Traffic::H2D, sizeof(double) * m_nrecv * w);
            if (m_et) m_et->end(t0, "h2d", st);
        }
    } else if (m_mode == HaloMode::cuda_aware) {
        ScopedTimer t("mpi_halo");
        std::vector<MPI_Request> req;
        for (std::size_t k = 0; k < m_nbr.size(); ++k) {
            req.emplace_back();
            MPI_Irecv(m_drecv.data() + m_seg[k].ro * w, static_cast<int>(m_seg[k].nr * w),
                      MPI_DOUBLE, m_nbr[k], 0, m_comm, &req.back());
            traffic_add(Traffic::MpiRecv, sizeof(double) * m_seg[k].nr * w);
        }
        for (std::size_t k = 0; k < m_nbr.size(); ++k) {
            req.emplace_back();
            MPI_Isend(m_dsend.data() + m_seg[k].so * w, static_cast<int>(m_seg[k].ns * w),
                      MPI_DOUBLE, m_nbr[k], 0, m_comm, &req.back());
            traffic_add(Traffic::MpiSent, sizeof(double) * m_seg[k].ns * w);
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

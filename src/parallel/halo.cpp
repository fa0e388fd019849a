#include <cstring>
#include <limits>
#include <utility>

#include "ugks/core/error.hpp"
#include "ugks/core/traffic.hpp"
#include "ugks/parallel/mpi_check.hpp"
#include "ugks/parallel/partition.hpp"

namespace ugks {

namespace {
// The communicator is private to this object, so any fixed tag is collision-free; a distinctive
// value makes the traffic recognisable in MPI traces.
constexpr int kHaloTag = 4207;

int message_bytes(std::size_t cells, std::size_t row_bytes) {
    const std::size_t bytes = cells * row_bytes;
    UGKS_REQUIRE(bytes <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
                 "halo message of " << bytes << " bytes exceeds the MPI count limit");
    return static_cast<int>(bytes);
}
}  // namespace

HaloExchange::HaloExchange(MPI_Comm comm, const HaloPattern& pattern) : m_pattern(pattern) {
    UGKS_REQUIRE(pattern.send_cells.size() == pattern.neighbours.size() &&
                     pattern.recv_cells.size() == pattern.neighbours.size(),
                 "halo pattern: " << pattern.neighbours.size() << " neighbours but "
                                  << pattern.send_cells.size() << " send and "
                                  << pattern.recv_cells.size() << " receive lists");
    UGKS_MPI_CHECK(MPI_Comm_dup(comm, &m_comm));
    UGKS_MPI_CHECK(MPI_Comm_set_errhandler(m_comm, MPI_ERRORS_RETURN));
    m_send.resize(pattern.neighbours.size());
    m_recv.resize(pattern.neighbours.size());
}

HaloExchange::~HaloExchange() { release(); }

HaloExchange::HaloExchange(HaloExchange&& other) noexcept
    : m_comm(std::exchange(other.m_comm, MPI_COMM_NULL)),
      m_pattern(std::move(other.m_pattern)),
      m_width(other.m_width),
      m_elem_bytes(other.m_elem_bytes),
      m_send(std::move(other.m_send)),
      m_recv(std::move(other.m_recv)),
      m_requests(std::move(other.m_requests)),
      m_in_flight(std::exchange(other.m_in_flight, false)) {
    other.m_requests.clear();
}

HaloExchange& HaloExchange::operator=(HaloExchange&& other) noexcept {
    if (this != &other) {
        release();
        m_comm = std::exchange(other.m_comm, MPI_COMM_NULL);
        m_pattern = std::move(other.m_pattern);
        m_width = other.m_width;
        m_elem_bytes = other.m_elem_bytes;
        m_send = std::move(other.m_send);
        m_recv = std::move(other.m_recv);
        m_requests = std::move(other.m_requests);
        m_in_flight = std::exchange(other.m_in_flight, false);
        other.m_requests.clear();
    }
    return *this;
}

void HaloExchange::release() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && m_in_flight) {
        // Abandoned mid-exchange (an exception between begin and end). Cancelled receives complete
        // in MPI_Waitall whatever the peers do, so this cannot hang. Sends cannot be cancelled
        // portably: they are released to finish on their own, and their buffers must outlive them.
        // The communicator is leaked too: messages still in transit must not reach a communicator
        // that reuses its context id (Open MPI crashes then).
        const std::size_t nn = m_requests.size() / 2;
        for (std::size_t i = 0; i < nn; ++i)
            if (m_requests[i] != MPI_REQUEST_NULL) MPI_Cancel(&m_requests[i]);
        MPI_Waitall(static_cast<int>(nn), m_requests.data(), MPI_STATUSES_IGNORE);
        for (std::size_t i = nn; i < m_requests.size(); ++i)
            if (m_requests[i] != MPI_REQUEST_NULL) MPI_Request_free(&m_requests[i]);
        static std::vector<std::vector<unsigned char>> abandoned_send_buffers;
        for (auto& b : m_send) abandoned_send_buffers.push_back(std::move(b));
    } else if (!finalized && m_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&m_comm);
    }
    m_requests.clear();
    m_in_flight = false;
    m_comm = MPI_COMM_NULL;
}

void HaloExchange::begin_bytes(const unsigned char* data, std::size_t elem_bytes, int width) {
    UGKS_REQUIRE(m_comm != MPI_COMM_NULL, "HaloExchange used without a communicator");
    UGKS_REQUIRE(!in_flight(), "HaloExchange::begin while an exchange is in flight");
    UGKS_REQUIRE(width >= 1, "halo width " << width);
    m_in_flight = true;
    m_width = width;
    m_elem_bytes = elem_bytes;
    const std::size_t row = elem_bytes * static_cast<std::size_t>(width);
    const std::size_t nn = m_pattern.neighbours.size();
    m_requests.assign(2 * nn, MPI_REQUEST_NULL);

    for (std::size_t i = 0; i < nn; ++i) {
        const int bytes = message_bytes(m_pattern.recv_cells[i].size(), row);
        m_recv[i].resize(static_cast<std::size_t>(bytes));
        UGKS_MPI_CHECK(MPI_Irecv(m_recv[i].data(), bytes, MPI_BYTE, m_pattern.neighbours[i],
                                 kHaloTag, m_comm, &m_requests[i]));
        traffic_add(Traffic::MpiRecv, static_cast<std::uint64_t>(bytes));
    }
    for (std::size_t i = 0; i < nn; ++i) {
        const auto& cells = m_pattern.send_cells[i];
        const int bytes = message_bytes(cells.size(), row);
        std::vector<unsigned char>& buf = m_send[i];
        buf.resize(static_cast<std::size_t>(bytes));
        for (std::size_t k = 0; k < cells.size(); ++k)
            std::memcpy(buf.data() + k * row, data + static_cast<std::size_t>(cells[k]) * row, row);
        UGKS_MPI_CHECK(MPI_Isend(buf.data(), bytes, MPI_BYTE, m_pattern.neighbours[i], kHaloTag,
                                 m_comm, &m_requests[nn + i]));
        traffic_add(Traffic::MpiSent, static_cast<std::uint64_t>(bytes));
    }
}

void HaloExchange::end_bytes(unsigned char* data, std::size_t elem_bytes) {
    UGKS_REQUIRE(in_flight(), "HaloExchange::end without begin");
    UGKS_REQUIRE(elem_bytes == m_elem_bytes,
                 "HaloExchange::end with another element type than begin");
    UGKS_MPI_CHECK(
        MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE));
    m_requests.clear();
    m_in_flight = false;
    const std::size_t row = elem_bytes * static_cast<std::size_t>(m_width);
    for (std::size_t i = 0; i < m_pattern.neighbours.size(); ++i) {
        const auto& cells = m_pattern.recv_cells[i];
        for (std::size_t k = 0; k < cells.size(); ++k)
            std::memcpy(data + static_cast<std::size_t>(cells[k]) * row, m_recv[i].data() + k * row,
                        row);
    }
}

void HaloExchange::begin(const double* data, int width) {
    begin_bytes(reinterpret_cast<const unsigned char*>(data), sizeof(double), width);
}
void HaloExchange::begin(const std::int64_t* data, int width) {
    begin_bytes(reinterpret_cast<const unsigned char*>(data), sizeof(std::int64_t), width);
}
void HaloExchange::end(double* data) {
    end_bytes(reinterpret_cast<unsigned char*>(data), sizeof(double));
}
void HaloExchange::end(std::int64_t* data) {
    end_bytes(reinterpret_cast<unsigned char*>(data), sizeof(std::int64_t));
}
void HaloExchange::exchange(double* data, int width) {
    begin(data, width);
    end(data);
}
void HaloExchange::exchange(std::int64_t* data, int width) {
    begin(data, width);
    end(data);
}

}  // namespace ugks

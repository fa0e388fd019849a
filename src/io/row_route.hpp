#pragma once
// Internal: how rows (one per global id) travel between the ranks of a communicator and the
// contiguous blocks of global ids the parallel HDF5 files are written and read in (fields and
// checkpoints). Not installed.
#include <mpi.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "hdf5_common.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/types.hpp"

namespace ugks::io_detail {

inline std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> d(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r) d[r] = d[r - 1] + counts[r - 1];
    return d;
}

/// One side of an all-to-all of rows: per-rank row counts and displacements of the buffer, and
/// this rank's row of each buffer entry.
struct RouteSide {
    std::vector<int> counts, displs;
    std::vector<index_t> rows;
};

/// How rows travel between the ranks of `comm` (built once, used for any number of row widths):
/// this rank sends its rows `send.rows[i]`, in the order of the send buffer (grouped by
/// destination rank), and stores the i-th row it receives as its row `recv.rows[i]`.
struct Route {
    MPI_Comm comm = MPI_COMM_NULL;
    RouteSide send, recv;

    index_t n_send() const { return static_cast<index_t>(send.rows.size()); }
    index_t n_recv() const { return static_cast<index_t>(recv.rows.size()); }

    /// Move `width` doubles per row: pack(row, out) fills the `width` doubles sent for a row of
    /// this rank, unpack(row, in) stores a received one. `send` and `recv` are transfer buffers
    /// the caller may keep from call to call (resized here, so they are allocated once).
    template <class Pack, class Unpack>
    void move(index_t width, std::vector<double>& send_buf, std::vector<double>& recv_buf,
              Pack&& pack, Unpack&& unpack) const {
        if (width <= 0) return;
        const std::size_t w = static_cast<std::size_t>(width);
        send_buf.resize(send.rows.size() * w);
        recv_buf.resize(recv.rows.size() * w);
        for (std::size_t i = 0; i < send.rows.size(); ++i)
            pack(send.rows[i], send_buf.data() + i * w);
        MPI_Datatype t;
        MPI_Type_contiguous(static_cast<int>(width), MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        MPI_Alltoallv(send_buf.data(), send.counts.data(), send.displs.data(), t, recv_buf.data(),
                      recv.counts.data(), recv.displs.data(), t, comm);
        MPI_Type_free(&t);
        for (std::size_t i = 0; i < recv.rows.size(); ++i)
            unpack(recv.rows[i], recv_buf.data() + i * w);
    }
};

/// Global ids sent to the ranks whose blocks of `bl` hold them: `out`, this rank's ids grouped by
/// that rank (rows: the position in `ids` of each id sent); `in`, the ids it receives (rows: their
/// positions in this rank's block).
struct IdExchange {
    RouteSide out, in;
};

inline IdExchange exchange_ids(MPI_Comm comm, const BlockLayout& bl,
                               const std::vector<index_t>& ids) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    IdExchange x;
    RouteSide &out = x.out, &in = x.in;
    const index_t n = static_cast<index_t>(ids.size());
    out.counts.assign(size, 0);
    in.counts.assign(size, 0);
    for (index_t g : ids) ++out.counts[bl.owner(g)];
    out.displs = displacements(out.counts);
    std::vector<int> pos = out.displs;
    std::vector<index_t> out_ids(static_cast<std::size_t>(n));
    out.rows.resize(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
        const int p = pos[bl.owner(ids[i])]++;
        out_ids[p] = ids[i];
        out.rows[p] = i;
    }
    MPI_Alltoall(out.counts.data(), 1, MPI_INT, in.counts.data(), 1, MPI_INT, comm);
    in.displs = displacements(in.counts);
    in.rows.resize(static_cast<std::size_t>(in.displs[size - 1] + in.counts[size - 1]));
    MPI_Alltoallv(out_ids.data(), out.counts.data(), out.displs.data(), MPI_INT64_T, in.rows.data(),
                  in.counts.data(), in.displs.data(), MPI_INT64_T, comm);
    const index_t b0 = bl.begin(rank), nb = bl.end(rank) - b0;
    for (index_t& p : in.rows) {
        const index_t g = p;
        p -= b0;
        UGKS_REQUIRE(p >= 0 && p < nb, "row " << g << " sent to rank " << rank
                                              << ", whose block is [" << b0 << ", " << b0 + nb
                                              << ")");
    }
    return x;
}

/// Rows of global ids `ids` (this rank's rows 0..n-1, each id held by exactly one rank of `comm`)
/// to the rank of `comm` whose block of `bl` holds them; received rows are numbered by their
/// position in that block (global order).
inline Route push_route(MPI_Comm comm, const BlockLayout& bl, const std::vector<index_t>& ids) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    IdExchange x = exchange_ids(comm, bl, ids);
    const index_t nb = bl.end(rank) - bl.begin(rank);
    UGKS_REQUIRE(static_cast<index_t>(x.in.rows.size()) == nb,
                 "rank " << rank << " receives " << x.in.rows.size() << " rows for a block of "
                         << nb << ": the ids do not partition the rows");
    std::vector<char> seen(static_cast<std::size_t>(nb), 0);
    for (index_t p : x.in.rows) {
        UGKS_REQUIRE(!seen[p], "row " << bl.begin(rank) + p << " sent twice");
        seen[p] = 1;
    }
    return Route{comm, std::move(x.out), std::move(x.in)};
}

/// The inverse direction: every rank asks for the rows `wanted` (global ids, any order, repeats
/// allowed; received rows are numbered by their position in `wanted`) from the ranks of `comm`
/// whose blocks of `bl` hold them (sent rows: positions in the sender's block).
inline Route pull_route(MPI_Comm comm, const BlockLayout& bl, const std::vector<index_t>& wanted) {
    IdExchange x = exchange_ids(comm, bl, wanted);
    return Route{comm, std::move(x.in), std::move(x.out)};
}

}  // namespace ugks::io_detail

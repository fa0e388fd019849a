#pragma once
#include <mpi.h>

#include <vector>

#include "ugks/mesh/mesh.hpp"

namespace ugks {

/// METIS k-way partition of the dual graph (cells sharing a face). Deterministic: every rank computing it
/// from the same mesh gets the same answer, so every C_x(q) uses the same partition. nparts == 1 -> zeros.
/// nparts > n_cells -> InputError.
std::vector<int> partition_cells(const Mesh& mesh, int nparts);

/// Send/receive lists for one rank's ghost cells (local cell indices).
struct HaloPattern {
    std::vector<int> neighbours;                   ///< ranks in comm_x, ascending
    std::vector<std::vector<index_t>> send_cells;  ///< per neighbour: owned local cells to send
    std::vector<std::vector<index_t>> recv_cells;  ///< per neighbour: ghost local cells to fill
};

/// One rank's part of the mesh: owned cells first (ascending global id), then ghost cells (face neighbours
/// owned by other parts, ascending global id). Faces: every face with at least one owned cell, orientation
/// and geometry as in the global mesh, owner/neighbour in local numbering (ghost faces keep their global
/// patch). Nodes: those used by the local cells.
struct LocalMesh {
    Mesh mesh;                        ///< local numbering; n_cells() == n_owned + n_ghost
    index_t n_owned = 0;
    index_t n_ghost = 0;
    index_t n_global_cells = 0;
    std::vector<index_t> global_cell;  ///< local cell -> global cell
    std::vector<index_t> global_node;  ///< local node -> global node
    HaloPattern halo;
    int part = 0;
};
LocalMesh build_local_mesh(const Mesh& global, const std::vector<int>& part, int my_part);

/// Halo exchange over comm_x of cell arrays laid out [cell][width] (width doubles per cell).
class HaloExchange {
public:
    HaloExchange() = default;
    HaloExchange(MPI_Comm comm, const HaloPattern& pattern);
    /// Blocking exchange: fills ghost rows of `data` from their owners.
    void exchange(double* data, int width);
    /// Split-phase exchange (post receives and sends / wait), for overlap with computation.
    void begin(const double* data, int width);
    void end(double* data);

private:
    MPI_Comm m_comm = MPI_COMM_NULL;
    HaloPattern m_pattern;
    int m_width = 0;
    std::vector<std::vector<double>> m_send, m_recv;
    std::vector<MPI_Request> m_requests;
};

}  // namespace ugks

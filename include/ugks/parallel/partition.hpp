#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "ugks/mesh/mesh.hpp"

namespace ugks {

/// METIS k-way partition of the dual graph (cells sharing a face). Deterministic: every rank
/// computing it from the same mesh gets the same answer, so every C_x(q) uses the same partition.
/// nparts == 1 -> zeros. nparts > n_cells -> InputError. Details: METIS_PartGraphKway with default
/// options, METIS_OPTION_SEED = 0 and contiguous parts when the dual graph is connected. Every part
/// is non-empty (METIS can leave a part empty on tiny graphs; such a part then receives one
/// boundary cell of the largest part, deterministically). InputError when the mesh is too large for
/// METIS's 32-bit idx_t. Returns part[c] in [0, nparts) for every cell c.
std::vector<int> partition_cells(const Mesh& mesh, int nparts);

/// Collective variant: rank 0 of `comm` runs METIS and broadcasts the result, so all ranks are
/// guaranteed the same partition and METIS runs once. Errors are thrown on every rank (same
/// message).
std::vector<int> partition_cells(const Mesh& mesh, int nparts, MPI_Comm comm);

/// Send/receive lists for one rank's ghost cells (local cell indices).
/// For neighbour ranks A and B, A's send_cells for B and B's recv_cells for A list the same cells
/// in the same order (ascending global id), so the buffers match element by element.
struct HaloPattern {
    std::vector<int> neighbours;                   ///< ranks in comm_x, ascending
    std::vector<std::vector<index_t>> send_cells;  ///< per neighbour: owned local cells to send
    std::vector<std::vector<index_t>> recv_cells;  ///< per neighbour: ghost local cells to fill
};

/// Image cells of a rank (periodic pairs with a pressure jump, docs/formulation.md section 8.6):
/// local cell dst[k] holds scale[k] times local cell src[k] (owned or ghost) for the quantities
/// that are linear in the density (W, q, gradients, h, b) and an unscaled copy otherwise.
struct CellImages {
    std::vector<index_t> src, dst;
    std::vector<double> scale;
    bool empty() const { return dst.empty(); }
};

/// A periodic face with a pressure jump: `face` joins the owner L to the image of the
/// neighbour R scaled by s; `partner` (-1 when R is not owned here) is R's own face: owner R,
/// neighbour the image of L scaled by 1/s, normal reversed; its flux is taken from `face`.
struct JumpFace {
    index_t face = -1;
    index_t partner = -1;
    double scale = 1.0;
};

/// One rank's part of the mesh: owned cells first (ascending global id), then ghost cells (face
/// neighbours owned by other parts, ascending global id). Faces: every face with at least one owned
/// cell, in ascending global face id, orientation and geometry as in the global mesh,
/// owner/neighbour in local numbering (a face owned by a ghost keeps the ghost as its owner; ghost
/// faces keep their global patch). Nodes: those used by the local cells, ascending global id.
/// cell_face lists are complete for owned cells and hold only the present faces for ghost cells.
/// patch_names are copied; face_shift (periodic faces) is copied per local face when the global
/// mesh has it (the orientation is global, so the shift keeps its sign). Ghosts include the
/// neighbours across periodic faces (they are ordinary interior faces of the global mesh).
struct LocalMesh {
    Mesh mesh;  ///< local numbering; n_cells() == n_owned + n_ghost
    index_t n_owned = 0;
    index_t n_ghost = 0;
    index_t n_global_cells = 0;
    std::vector<index_t> global_cell;  ///< local cell -> global cell
    std::vector<index_t> global_node;  ///< local node -> global node
    std::vector<index_t> global_face;  ///< local face -> global face
    std::vector<int> ghost_part;  ///< per ghost (local cell n_owned + i): the part that owns it
    HaloPattern halo;
    int part = 0;
    CellImages images;            ///< image cells (add_jump_images), counted in n_ghost
    std::vector<JumpFace> jumps;  ///< periodic faces with a pressure jump (add_jump_images)
};
/// Extract part `my_part` of `global` (part[c] = part of global cell c, as from partition_cells).
LocalMesh build_local_mesh(const Mesh& global, const std::vector<int>& part, int my_part);

/// Periodic pairs with a pressure jump (docs/formulation.md section 8.6). pair_scale[p]: the factor
/// s of pair p (Mesh::face_pair) by which the neighbour R of a joined face is seen from its owner L
/// (1: a plain periodic pair, left as it is). For every local face of such a pair: an image cell of
/// R (s times R, at R's centroid + face_shift) becomes the face's neighbour; when R is owned, a new
/// face of R (owner R, neighbour an image of L scaled by 1/s at L's centroid - face_shift, normal
/// reversed, centroid shifted back) replaces the joined face in R's face list; a ghost R drops the
/// joined face from its list. One image per (cell, scale); images are appended after the ghosts and
/// counted in n_ghost (global_cell: their source's id, ghost_part: this part; the halo pattern is
/// unchanged, the images are filled locally from their sources). face_shift of the touched faces
/// becomes zero (the images carry the shift).
void add_jump_images(LocalMesh& local, const std::vector<double>& pair_scale);

/// Halo exchange over comm_x of cell arrays laid out [cell][width] (width values per cell; width
/// may be 1 .. several hundred). Values travel through host buffers owned by this object (the
/// caller stages device data). The constructor is collective over `comm`: it duplicates the
/// communicator, so the halo traffic cannot match any other message. Move-only. At most one
/// exchange in flight per object. Destroying it between begin and end (an exception) cancels the
/// receives without waiting for peers; the communicator and send buffers are then deliberately
/// leaked (the program is about to stop).
class HaloExchange {
public:
    HaloExchange() = default;
    /// Collective over `comm` (every rank of comm constructs its own, with its own pattern).
    HaloExchange(MPI_Comm comm, const HaloPattern& pattern);
    ~HaloExchange();
    HaloExchange(const HaloExchange&) = delete;
    HaloExchange& operator=(const HaloExchange&) = delete;
    HaloExchange(HaloExchange&& other) noexcept;
    HaloExchange& operator=(HaloExchange&& other) noexcept;

    /// Blocking exchange: fills ghost rows of `data` (host memory, [n_cells][width]) from their
    /// owners.
    void exchange(double* data, int width);
    void exchange(std::int64_t* data, int width);
    /// Split-phase exchange (post receives and sends / wait), for overlap with computation. begin
    /// packs the owned rows at once, so `data` may change between begin and end; end writes only
    /// ghost rows and must get the same element type as begin.
    void begin(const double* data, int width);
    void begin(const std::int64_t* data, int width);
    void end(double* data);
    void end(std::int64_t* data);

    /// True between begin and end.
    bool in_flight() const { return m_in_flight; }
    const HaloPattern& pattern() const { return m_pattern; }
    /// The private (duplicated) communicator used for the halo traffic.
    MPI_Comm comm() const { return m_comm; }

private:
    void begin_bytes(const unsigned char* data, std::size_t elem_bytes, int width);
    void end_bytes(unsigned char* data, std::size_t elem_bytes);
    void release() noexcept;

    MPI_Comm m_comm = MPI_COMM_NULL;
    HaloPattern m_pattern;
    int m_width = 0;
    std::size_t m_elem_bytes = 0;
    std::vector<std::vector<unsigned char>> m_send, m_recv;
    std::vector<MPI_Request> m_requests;
    bool m_in_flight = false;
};

}  // namespace ugks

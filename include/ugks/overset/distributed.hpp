#pragma once
/// Overset assembly distributed over the ranks of a communicator (issue 6, "Distributed"):
/// every grid's cells are split over the ranks by recursive coordinate bisection of their
/// reference centroids, each rank keeps its cells and their nodes, and every query whose host or
/// donor may lie on another rank goes through MPI. The results equal the serial assemble() bit for
/// bit (docs/decisions.md, "Overset assembly over MPI ranks"): every result is a minimum or a
/// smallest-global-index choice made from the same floating-point operations on the same data.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "ugks/overset/overset.hpp"

namespace ugks::overset {

/// Owner rank of every cell of `mesh` (reference coordinates): recursive coordinate bisection of
/// the cell centroids into `nparts` parts (split along the longest extent, at the cell count
/// proportional to the parts on each side; ties by cell index). Deterministic: every rank computes
/// the same partition. Part sizes differ by at most one cell per bisection level.
std::vector<int> partition_cells(const Mesh& mesh, int nparts);

/// One rank's part of a grid: its cells (ascending global index) and their nodes (ascending global
/// index), so that a smallest local index is a smallest global index.
struct LocalGrid {
    index_t n_global_nodes = 0, n_global_cells = 0;
    std::vector<index_t> node_gid, cell_gid;  ///< local -> global
    std::vector<std::int8_t> node_owned;      ///< 1: the lowest rank holding the node is this rank
    std::vector<double> ref_xyz;              ///< reference coordinates [n * 3]
    std::vector<index_t> cell_node_offsets{0}, cell_nodes;  ///< local node indices
    std::vector<std::int8_t> cell_type;
    std::vector<index_t> node_cell_offsets, node_cells;  ///< local node -> local cells
    std::vector<index_t> boundary_nodes;                 ///< local nodes on the grid's boundary
    std::vector<index_t> owned_wall_nodes;               ///< local wall nodes this rank owns
    /// their positions in the serial list of all grids' wall nodes (grid order, ascending)
    std::vector<index_t> owned_wall_index;
    bool has_walls = false;
    int layer = 0;
    Motion motion;
    /// Nodes shared with rank r: shared[r] (local indices, ascending global index on both sides).
    std::vector<std::vector<index_t>> shared;

    // current state
    std::vector<double> xyz, wall_distance, cell_box;
    /// per local node: nearest wall node in the serial list of all grids' wall nodes (-1: none)
    std::vector<index_t> nearest_wall;
    std::vector<std::int8_t> node_status, cell_status;
    KdTree donor_tree;
    // receptors owned by this rank (ascending global node index)
    std::vector<index_t> fringe_node;  ///< local node index
    std::vector<int> fringe_donor_grid;
    std::vector<index_t> fringe_donor_cell;  ///< global cell index of the donor grid, -1 orphan
    std::vector<double> fringe_weights;      ///< [n * kMaxCellNodes]
    index_t n_orphans = 0;

    index_t n_nodes() const { return static_cast<index_t>(node_gid.size()); }
    index_t n_cells() const { return static_cast<index_t>(cell_gid.size()); }
};

/// The grids of an OversetSystem split over the ranks of `comm`.
struct DistributedSystem {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1;
    int dim = 0;
    double layer_spacing = 1.0;
    int leaf_size = 3;
    int wall_layer = 0;        ///< smallest layer of the grids with walls
    index_t n_wall_nodes = 0;  ///< wall nodes of all grids
    std::vector<LocalGrid> grids;
    std::vector<std::vector<int>> cell_rank;  ///< per grid: owner rank of every global cell
    /// Per-rank, per-grid bounding boxes of the local cell boxes of the current step:
    /// [(r * n_grids + g) * 6]: min (3), max (3); empty parts have min > max.
    std::vector<double> part_box;
    // Explicit hole cut (hole_cut.hpp), as assemble(): every rank holds the closed walls of all
    // grids (faces over the grid's node ids) and their current wall-node coordinates (from the
    // gathered wall points, the serial values), and cuts its own nodes.
    bool hole_cut = true;
    std::vector<index_t> wall_offset;  ///< [n_grids + 1]: first index of each grid's wall nodes
    std::vector<WallSurface> walls;    ///< per grid (used where closed)
    std::vector<std::vector<index_t>> wall_nodes;  ///< per grid: its wall nodes (global, sorted)
    std::vector<std::vector<double>> wall_xyz;     ///< per closed-wall grid: [n_global_nodes * 3]
};

/// Split `sys` (the same full system on every rank, e.g. from make_system) over `comm`: every rank
/// must call it with the same system (no communication). cell_rank: the owner rank of every cell
/// per grid (tests: any partition; empty = partition_cells of every grid).
DistributedSystem distribute(const OversetSystem& sys, MPI_Comm comm,
                             std::vector<std::vector<int>> cell_rank = {});

/// assemble() over the ranks: the same phases, the same results. Collective over ds.comm. Returns
/// the global counts (identical on every rank). times: this rank's seconds per phase, the time in
/// MPI calls in times->mpi (and not in the phases).
AssemblyCounts assemble_distributed(DistributedSystem& ds, double time,
                                    AssemblyTimes* times = nullptr, const Pose& common = Pose{});

/// Result of a distributed donor query: smallest global cell index of the grid that contains the
/// point (-1: none), its weights and the grid's wall distance interpolated there.
struct DonorHit {
    index_t cell = -1;
    double d = 0;
    double w[kMaxCellNodes] = {0, 0, 0, 0, 0, 0, 0, 0};
};

/// Donor search of points x (3 per point) in grids `grid` (one per point) over all ranks, as
/// find_donor() on the whole grid (skipping holes when skip_holes). Collective over ds.comm (after
/// assemble_distributed, which builds the local trees and part boxes); *mpi_s receives the seconds
/// in MPI calls when non-null.
std::vector<DonorHit> query_donors(const DistributedSystem& ds, const std::vector<double>& x,
                                   const std::vector<int>& grid, bool skip_holes,
                                   double* mpi_s = nullptr);

/// Gather the current state into `sys` (global numbering) on rank 0 of ds.comm: xyz, wall
/// distances, node and cell status, receptors with donor stencils, orphans, as assemble() leaves
/// them. Collective; sys is unchanged on the other ranks.
void gather_state(const DistributedSystem& ds, OversetSystem& sys, double* mpi_s = nullptr);

}  // namespace ugks::overset

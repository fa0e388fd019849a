#pragma once
/// Raw-pointer view of one overset grid and the per-point operations of the assembly that the CPU
/// loops (src/overset/assembly.cpp) and the CUDA kernels (src/overset/device_kernels.cpp) share, so
/// that both backends do the same floating-point operations in the same order (the device code is
/// compiled without FMA contraction): rigid-pose application, cell bounding boxes, donor search,
/// interpolation.
#include <cstdint>
#include <limits>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/overset/kdtree.hpp"

namespace ugks::overset {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// One grid as kernels see it (host or device pointers).
struct GridView {
    int dim = 0;
    index_t n_nodes = 0, n_cells = 0;
    const double* xyz = nullptr;                 ///< current coordinates [n_nodes * 3]
    const index_t* cell_node_offsets = nullptr;  ///< [n_cells + 1]
    const index_t* cell_nodes = nullptr;
    const std::int8_t* cell_type = nullptr;    ///< CellType codes
    const std::int8_t* cell_status = nullptr;  ///< 1 active, 0 hole, -1 fringe (may be null)
    const double* wall_distance = nullptr;     ///< per node
    KdView tree;                               ///< donor tree over the cell boxes
};

/// The node -> cells -> nodes adjacency of a grid (host or device pointers): the cells around each
/// node (CSR node_cell_offsets, node_cells) and the nodes of each cell (CSR cell_node_offsets,
/// cell_nodes). The advancing fronts of the assembly (wall distance, island removal) walk it.
struct NodeAdjacency {
    const index_t* node_cell_offsets = nullptr;
    const index_t* node_cells = nullptr;
    const index_t* cell_node_offsets = nullptr;
    const index_t* cell_nodes = nullptr;
};

/// The adjacency of host arrays: node -> cells of `nc`, cell -> nodes of `cn` (the members of
/// those names: an OversetGrid and its mesh, or one LocalGrid for both).
template <class NodeCells, class CellNodes>
NodeAdjacency node_adjacency(const NodeCells& nc, const CellNodes& cn) {
    return {nc.node_cell_offsets.data(), nc.node_cells.data(), cn.cell_node_offsets.data(),
            cn.cell_nodes.data()};
}

/// f(v) for the nodes v of every cell around node i, cell by cell in the order of node_cells (a
/// node of several of those cells comes once per cell; i itself too).
template <class F>
UGKS_HOST_DEVICE void for_each_neighbour(const NodeAdjacency& a, index_t i, F&& f) {
    for (index_t k = a.node_cell_offsets[i]; k < a.node_cell_offsets[i + 1]; ++k) {
        const index_t c = a.node_cells[k];
        for (index_t b = a.cell_node_offsets[c]; b < a.cell_node_offsets[c + 1]; ++b)
            f(a.cell_nodes[b]);
    }
}

/// A pose as plain arrays: x = R (x0 - p) + p + s.
struct PoseArrays {
    double R[3][3];
    double p[3];
    double s[3];
};

/// x = R (x0 - p) + p + s, component by component in the order of Pose::apply; components a >= dim
/// are set to 0.
UGKS_HOST_DEVICE inline void pose_apply(const PoseArrays& P, const double* x0, int dim, double* x) {
    const double d[3] = {x0[0] - P.p[0], x0[1] - P.p[1], x0[2] - P.p[2]};
    for (int a = 0; a < 3; ++a) {
        const double v = P.R[a][0] * d[0] + P.R[a][1] * d[1] + P.R[a][2] * d[2] + P.p[a] + P.s[a];
        x[a] = a < dim ? v : 0.0;
    }
}

/// Bounding box of cell c, widened by 1e-9 of its largest extent: box[0..dim) min, [dim..2dim) max.
UGKS_HOST_DEVICE inline void cell_box_of(int dim, const index_t* off, const index_t* cn,
                                         const double* xyz, index_t c, double* box) {
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (index_t j = off[c]; j < off[c + 1]; ++j)
        for (int a = 0; a < dim; ++a) {
            const double x = xyz[cn[j] * 3 + a];
            if (j == off[c] || x < lo[a]) lo[a] = x;
            if (j == off[c] || x > hi[a]) hi[a] = x;
        }
    double h = 0;
    for (int a = 0; a < dim; ++a) h = hi[a] - lo[a] > h ? hi[a] - lo[a] : h;
    for (int a = 0; a < dim; ++a) {
        box[a] = lo[a] - 1e-9 * h;
        box[dim + a] = hi[a] + 1e-9 * h;
    }
}

/// Gather the coordinates of cell c's nodes (3 per node) into xn; returns the cell type code.
UGKS_HOST_DEVICE inline int cell_nodes_xyz(const GridView& g, index_t c, double* xn) {
    const index_t a = g.cell_node_offsets[c], b = g.cell_node_offsets[c + 1];
    for (index_t j = a; j < b; ++j)
        for (int d = 0; d < 3; ++d) xn[(j - a) * 3 + d] = g.xyz[g.cell_nodes[j] * 3 + d];
    return static_cast<int>(g.cell_type[c]);
}

/// Field f (per node) interpolated in cell c with weights w.
UGKS_HOST_DEVICE inline double interpolate_in_cell(const GridView& g, index_t c, const double* w,
                                                   const double* f) {
    double s = 0;
    for (index_t j = g.cell_node_offsets[c]; j < g.cell_node_offsets[c + 1]; ++j)
        s += w[j - g.cell_node_offsets[c]] * f[g.cell_nodes[j]];
    return s;
}

/// Donor cell of x in g: the smallest cell index whose box contains x and that contains x
/// (locate_in_cell), skipping hole cells when `skip_holes`; -1 when none. Writes the weights
/// (kMaxCellNodes, zero-padded) when found.
UGKS_HOST_DEVICE inline index_t find_donor_in(const GridView& g, const double* x, bool skip_holes,
                                              double* w) {
    index_t best = -1;
    double xn[kMaxCellNodes * 3], xi[3], wc[kMaxCellNodes];
    kd_boxes_containing(g.tree, x, [&](index_t c) {
        if (best >= 0 && c > best) return;
        if (skip_holes && g.cell_status[c] == 0) return;
        const int type = cell_nodes_xyz(g, c, xn);
        if (locate_in_cell(type, g.dim, xn, x, xi, wc)) {
            best = c;
            for (int i = 0; i < kMaxCellNodes; ++i) w[i] = i < shape_count(type) ? wc[i] : 0.0;
        }
    });
    return best;
}

/// A receptor's donor: grid and cell (-1, -1: an orphan).
struct Donor {
    int grid = -1;
    index_t cell = -1;
};

/// The donor stencil of receptor x of grid g among the other grids of views[0..ng): of their
/// non-hole cells that contain x, the one with the smallest interpolated wall distance (ties: the
/// lower grid, then the lower cell index); its weights in w (kMaxCellNodes, all 0 for an orphan).
UGKS_HOST_DEVICE inline Donor best_donor(const GridView* views, int ng, int g, const double* x,
                                         double* w) {
    Donor best;
    double best_d = kInf, wc[kMaxCellNodes];
    for (int k = 0; k < kMaxCellNodes; ++k) w[k] = 0.0;
    for (int h = 0; h < ng; ++h) {
        if (h == g) continue;
        const index_t c = find_donor_in(views[h], x, true, wc);
        if (c < 0) continue;
        const double d = interpolate_in_cell(views[h], c, wc, views[h].wall_distance);
        if (d < best_d) {
            best_d = d;
            best.grid = h;
            best.cell = c;
            for (int k = 0; k < kMaxCellNodes; ++k) w[k] = wc[k];
        }
    }
    return best;
}

}  // namespace ugks::overset

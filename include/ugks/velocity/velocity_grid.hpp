#pragma once
#include <array>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {
class Config;

/// Discrete velocity set: points u_k (D components used, others 0) and quadrature weights w_k such
/// that sum_k w_k phi(u_k) ~ integral phi(u) du over R^D (docs/formulation.md section 3). Host
/// memory, owned by value. Velocities are in the solver's units (sqrt(2 R T_ref)); w_k has units of
/// velocity^D.
struct VelocityGrid {
    int dim = 0;  ///< D = 1, 2 or 3
    std::vector<Vec3> u;
    std::vector<double> w;
    /// For tensor grids: points per axis and the 1D nodes; ordering is k = (i*ny + j)*nz + l (last
    /// axis fastest), w_k = product of the 1D weights. Axes d >= dim have count 1, node 0 and
    /// weight 1. For a point list (types file and unstructured): counts = {size, 1, 1},
    /// axis_nodes/weights empty.
    std::array<int, 3> counts{1, 1, 1};
    std::array<std::vector<double>, 3> axis_nodes;
    std::array<std::vector<double>, 3> axis_weights;
    /// gauss_hermite | half_range_gauss_hermite | newton_cotes | file | nonuniform | unstructured
    std::string kind;
    index_t size() const { return static_cast<index_t>(u.size()); }
    /// True when the grid is a tensor product of the axis rules (every kind except `file` and
    /// `unstructured`).
    bool is_tensor() const { return !axis_nodes[0].empty(); }
};

/// 1D rules (nodes and *effective* weights for integrating an arbitrary f, not e^{-x^2} f).
///
/// Gauss-Hermite by Golub-Welsch: nodes are the eigenvalues of the Jacobi matrix of the Hermite
/// recurrence (Sturm bisection in long double, then a Newton polish on the orthonormal
/// polynomial), ascending and exactly antisymmetric. u_i = offset + scale x_i and
/// w_i = scale * w_i^GH * exp(x_i^2), the effective weight being formed directly as
/// 1 / sum_{k<n} psi_k(x_i)^2 with the Hermite functions psi_k = p_k e^{-x^2/2} (Christoffel
/// numbers), so nothing underflows for n up to 500. n outside [1, 500] -> InputError.
void gauss_hermite_1d(int n, double scale, double offset, std::vector<double>& x,
                      std::vector<double>& w);

/// Half-range Gauss-Hermite (Shizgal 1981) mirrored about the offset: n must be even. The n/2
/// nodes are the Gauss nodes of the weight exp(-x^2) on [0, inf); the recurrence coefficients come
/// from a discretized Stieltjes procedure (full reorthogonalization) on a composite 32-point
/// Gauss-Legendre rule, all in long double. The nodes are mirrored to -x_i, giving n nodes
/// ascending; u = offset +- scale x_i, effective weight scale * w_i * exp(x_i^2) for both images.
/// n = 28 gives nodes +-0.023957 ... +-5.238431: the 28-point set of the public UGKS/DUGKS codes
/// (which agrees to ~4e-4, its tabulated values being less accurate). n odd or outside [2, 400]
/// -> InputError.
void half_range_gauss_hermite_1d(int n, double scale, double offset, std::vector<double>& x,
                                 std::vector<double>& w);

/// Composite Newton-Cotes (Boole), n = 4m+1 nodes (m >= 1) on [lo, hi] *including both ends*:
/// x_i = lo + i h, h = (hi - lo)/(n - 1), weights h/45 * (14, 64, 24, 64, 28, 64, ..., 24, 64, 14).
/// Exact for polynomials of degree <= 5; error O(h^6). n not of the form 4m+1 (>= 5), or
/// hi <= lo -> InputError (the case-file parser checks first and names the key).
void newton_cotes_1d(int n, double lo, double hi, std::vector<double>& x, std::vector<double>& w);

/// Tensor-product grid of D = dim axis rules (`nodes[d]`, `weights[d]` for d < dim; the others
/// are ignored). Ordering last axis fastest; weights are products.
VelocityGrid make_tensor_velocity_grid(int dim, const std::array<std::vector<double>, 3>& nodes,
                                       const std::array<std::vector<double>, 3>& weights,
                                       const std::string& kind);

/// A Maxwellian that an unstructured velocity set is refined around and integrates exactly:
/// velocity U and temperature T, nondimensional (U in C_ref = sqrt(2 R T_ref), T in T_ref; the
/// Maxwellian is (pi T)^{-D/2} exp(-|u - U|^2 / T), docs/formulation.md (2.2a)). Components
/// d >= dim of U must be 0.
struct VelocityMaxwellian {
    Vec3 U{0, 0, 0};
    double T = 1.0;
};

/// The `velocity` section of the case file (per-axis values for the axes d < dim):
///
///   type:   gauss_hermite (default) | half_range_gauss_hermite | newton_cotes | file | nonuniform
///           | unstructured
///   dim:    1..3, default = mesh dimension; smaller than the mesh dimension is an error (a 1D
///           mesh with 2D/3D velocities is fine, a 3D mesh needs dim 3)
///   counts: [n_x, n_y, n_z] or one integer for all axes (gauss types and newton_cotes; required);
///           gauss_hermite 1..500; half_range_gauss_hermite even, 2..400; newton_cotes 4m+1 >= 5
///   scale:  > 0, default 1; offset: default 0 (gauss types; list or one value)
///   lo, hi: ranges, hi > lo (newton_cotes and nonuniform; required; list or one value)
///   file:   velocity point file (type file), relative to the case file's folder
///   refine: (nonuniform; see make_nonuniform_velocity_grid)
///     centres: [[u_x, u_y, u_z], ...], dim components each (default: none, uniform grid)
///     width:   half-width of the uniformly fine zone around each centre (> 0, default 1)
///     growth:  relative spacing growth per unit velocity beyond it (> 0, default 0.25)
///   target_points: total number of points (>= 1; required for nonuniform; >= 100, required for
///           unstructured)
///   maxwellians: (unstructured; required) 1 to 4 entries {U: [u_x, u_y, u_z], T: T}, dim
///           components of U, T > 0, no two alike
///   extent: (unstructured) half-width of the velocity box around each Maxwellian in units of its
///           sqrt(T), in [2, 20], default 5
///   growth: (unstructured) growth of the desired spacing per sqrt(T) of distance from a
///           Maxwellian's centre, in (0, 10], default 0.5
///
/// For unstructured, counts is set to {target_points, 1, 1} (the size estimate of the case check).
///
/// Keys that do not belong to the chosen type are not read, so Config::check_unused rejects them.
/// Every error is an InputError naming the key path and line (through Config::fail/check_range).
struct VelocityConfig {
    std::string type = "gauss_hermite";
    int dim = 2;
    std::array<int, 3> counts{28, 28, 28};
    std::array<double, 3> lo{-4, -4, -4}, hi{4, 4, 4};
    std::array<double, 3> scale{1, 1, 1}, offset{0, 0, 0};
    std::string file;  ///< resolved path (case folder + relative path)
    std::vector<Vec3> refine_centres;
    double refine_width = 1.0;
    double refine_growth = 0.25;
    index_t target_points = 0;
    std::vector<VelocityMaxwellian> maxwellians;  ///< unstructured
    double extent = 5.0;                          ///< unstructured
    double growth = 0.5;                          ///< unstructured
};
/// Parse and validate the `velocity` section (see VelocityConfig). Needs the Config implementation.
VelocityConfig parse_velocity_config(Config& cfg, int mesh_dim);
/// Build the grid described by a validated VelocityConfig (reads the file for type `file`).
VelocityGrid build_velocity_grid(const VelocityConfig& vc);

/// Read "u_x [u_y [u_z]] w" lines (dim + 1 numbers per line; '#' starts a comment; blank lines
/// are skipped). InputError "<path>:<line>: <what>" for an unreadable file, a malformed number, a
/// wrong number of columns, a non-finite value, a weight <= 0, a duplicate point (naming both
/// lines), or a file without points. counts = {size, 1, 1}; kind "file".
VelocityGrid read_velocity_file(const std::string& path, int dim);

/// Nonuniform tensor velocity mesh refined around `centres`, covering [lo, hi] per axis d < dim,
/// with about `target_points` points in total.
///
/// Construction, per axis: with t(v) = min_j |v - c_j,d| the distance to the nearest centre
/// coordinate on that axis, the desired spacing is s(v) = h0 (1 + growth * max(0, t(v) - width)):
/// uniform (= h0) within `width` of every centre, then growing linearly with the distance (cell to
/// cell by a factor ~ 1 + growth h0). Without centres s = h0 (uniform). The faces are placed where
/// the stretched coordinate xi(v) = int_lo^v dv'/s(v') (in closed form) is an integer; the n cells
/// give nodes at the cell midpoints and weights = cell widths (midpoint rule), so the weights of
/// each axis sum to hi - lo exactly and the total weight is the box volume. An axis with lo = -hi
/// and centre coordinates symmetric about 0 gets an exactly antisymmetric node set (mirror pairs).
///
/// The shape of s is fixed and h0 only scales it, so a larger target refines every cell alike and
/// the quadrature error of smooth integrands falls as h0^2 (docs/formulation.md section 3.3).
/// Example, the sphere case ([-10.6, 14.5] x [-10.6, 10.6]^2, centres (3.9, 0, 0) and 0, width 2,
/// growth 0.25, 18,800 points, h0 = 0.55): density of the free-stream Maxwellian (T = 1) to 4e-4,
/// of the stagnation one (T = 7) to 5e-3. Choose width >= 2 sqrt(T_inf) so that the free-stream
/// Maxwellian lies on the uniform part.
///
/// Counts: one common h0 for all axes is chosen so that the product of the per-axis counts
/// n_d = round(xi_d(hi)) is closest to target_points, then single counts are moved by +-1 while
/// that brings the product closer; finally h0 is re-solved per axis for its integer n_d. For
/// targets of a few hundred points or more the result is within a few percent of the target.
/// Invalid arguments (dim, hi <= lo, width or growth <= 0, target < 1) -> InputError.
VelocityGrid make_nonuniform_velocity_grid(int dim, const std::array<double, 3>& lo,
                                           const std::array<double, 3>& hi,
                                           const std::vector<Vec3>& centres, double width,
                                           index_t target_points, double growth = 0.25);

/// What make_unstructured_velocity_grid built (for logs and tests).
struct UnstructuredGridInfo {
    std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};  ///< the background box (axes d < dim)
    std::array<int, 3> root_cells{1, 1, 1};          ///< background cells per axis
    int max_level = 0;                               ///< deepest subdivision level
    int constraints = 0;          ///< moment constraints imposed (odd ones of mirror axes dropped)
    int newton_iterations = 0;    ///< iterations of the weight correction
    double max_residual = 0;      ///< largest |sum w M phi - exact| / sum w M |phi| at the end
    double min_weight_ratio = 0;  ///< min over points of w_k / (cell volume)
    double max_weight_ratio = 0;  ///< max over points of w_k / (cell volume)
    /// min over points of w_k / V_k for the linear minimal-norm correction alone (the first
    /// Newton step, min sum (w - V)^2 / V): what that correction would have given (< 0: negative)
    double least_squares_min_ratio = 1;
    std::array<bool, 3> mirror{false, false, false};  ///< axes the set is mirror-symmetric about
};

/// Non-tensor (unstructured) velocity set refined around the given Maxwellians, with about
/// `target_points` points and weights that integrate the moments 1, u_i, u_i u_j, |u|^2 u_i and
/// |u|^4 of every Maxwellian exactly (to ~1e-13 relative). Point list: counts = {size, 1, 1},
/// axis tables empty, kind "unstructured".
///
/// Construction (docs/decisions.md "Unstructured velocity space"):
/// 1. Background box: the bounding box of the boxes U_a +- extent sqrt(T_a), cut into a few
///    near-cubic cells (about 4 across the widest Maxwellian's box).
/// 2. Quadtree/octree subdivision: the desired spacing is s(u) = min_a sqrt(T_a) (1 + growth r_a)
///    with r_a the distance of the cell from U_a in units of sqrt(T_a); the leaf with the largest
///    edge / s (ties: lowest level, then lowest integer position) is halved along every axis,
///    repeated while the count gets closer to the target (each split adds 2^D - 1 points).
///    Points are the leaf centres, ordered lexicographically (u_x slowest); the initial weights are
///    the leaf volumes (midpoint rule, summing to the box volume).
/// 3. Weights w_k = V_k exp(g_k), g a combination of the constraint functions, found by Newton's
///    method so that the moments are exact: the minimum relative-entropy correction of the
///    volumes, positive by construction; its first step is the least-squares correction that
///    minimizes sum (w_k - V_k)^2 / V_k.
/// An axis d with U_a,d = 0 for every Maxwellian is a mirror axis: points and weights are exactly
/// symmetric about u_d = 0 (cells split in mirror orbits), so symmetry planes normal to it work.
/// Deterministic: no threads, fixed summation order, the same bits on every rank and run.
///
/// InputError: dim outside 1..3, no or more than 4 Maxwellians, T <= 0 or non-finite values,
/// U_d != 0 for d >= dim, two equal Maxwellians, extent outside [2, 20], growth outside (0, 10],
/// a target below the background cell count or below 100, or moment constraints that cannot be met
/// (too few points; the message asks for more), or only with weights outside [0.25, 4] times the
/// cell volumes (the cells do not resolve a Maxwellian; the message asks for more points).
VelocityGrid make_unstructured_velocity_grid(int dim,
                                             const std::vector<VelocityMaxwellian>& maxwellians,
                                             index_t target_points, double extent = 5.0,
                                             double growth = 0.5,
                                             UnstructuredGridInfo* info = nullptr);

/// Velocities cut into blocks of B_v (zero-weight padding) and assigned to P_v velocity ranks.
///
/// Slots are numbered 0 .. n_blocks*block_size - 1; block m holds slots [m B_v, (m+1) B_v).
/// Padding slots have order = -1, u = (0, 0, 0), w = 0 and mirror = -1. Blocks are assigned
/// contiguously: rank q owns [first_q, first_q + count_q) with count_q differing by at most one
/// between ranks (the first ranks get the extra block).
///
/// Without required mirrors the velocities keep their grid order and only the last block is
/// padded. With required mirrors (keep_mirrors[d] for some d), the velocities are ordered by orbit
/// under the group generated by the required reflections u_d -> -u_d: orbits in the order of their
/// smallest grid index, the members of an orbit (up to 8) consecutive in ascending grid index.
/// Ranks are then cut only at orbit boundaries: rank q takes whole orbits, in order, while that
/// brings its cumulative count closer to its proportional share N * (blocks of ranks 0..q) /
/// n_blocks and fits its blocks; the last rank takes the rest. A rank's last block may therefore
/// be padded (padding per rank). When the orbits do not fit, one more block is added and the cut
/// is repeated (a few extra blocks at most: each rank leaves < 8 slots unused).
struct VelocityBlocks {
    int block_size = 0;
    int n_blocks = 0;              ///< global number of blocks
    int velocity_ranks = 0;        ///< P_v
    std::vector<index_t> order;    ///< padded slot -> original velocity index (-1 for padding)
    std::vector<Vec3> u;           ///< padded velocities, n_blocks * block_size
    std::vector<double> w;         ///< padded weights (0 for padding)
    std::vector<int> block_owner;  ///< velocity rank q of each block (non-decreasing)
    /// mirror[d][slot]: slot of the mirror image about the plane u_d = 0, filled for the required
    /// axes (keep_mirrors[d]); -1 for padding and for axes that were not required. For a required
    /// axis d >= grid.dim the image is the slot itself (u_d = 0).
    std::array<std::vector<index_t>, 3> mirror;
    /// Contiguous block range of velocity rank q: [first, first + count).
    void range(int q, int& first, int& count) const;
    index_t n_slots() const { return static_cast<index_t>(order.size()); }
};
/// `keep_mirrors[d]`: mirror pairs about u_d = 0 must stay on one velocity rank (symmetry planes).
/// block_size <= 0 or velocity_ranks <= 0 -> InputError. Too many velocity ranks for the blocks
/// -> InputError "parallel.velocity_ranks = 8 exceeds the number of velocity blocks (5) for
/// parallel.block_size = 64". A grid not closed under a required reflection -> InputError naming
/// the axis and the first velocity without an image (same weight required). Matching uses a
/// tolerance of 1e-9 max(1, max |u|).
VelocityBlocks make_velocity_blocks(const VelocityGrid& grid, int block_size, int velocity_ranks,
                                    const std::array<bool, 3>& keep_mirrors);

}  // namespace ugks

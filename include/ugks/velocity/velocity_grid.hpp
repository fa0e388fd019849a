#pragma once
#include <array>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {
class Config;

/// Discrete velocity set: points u_k (D components used, others 0) and quadrature weights w_k such that
/// sum_k w_k phi(u_k) ~ integral phi(u) du over R^D (ugks-formulation.md section 3).
struct VelocityGrid {
    int dim = 0;                 ///< D = 1, 2 or 3
    std::vector<Vec3> u;
    std::vector<double> w;
    /// For tensor grids: points per axis and the 1D nodes; ordering is k = (i*ny + j)*nz + l (last axis fastest).
    std::array<int, 3> counts{1, 1, 1};
    std::array<std::vector<double>, 3> axis_nodes;
    std::array<std::vector<double>, 3> axis_weights;
    std::string kind;           ///< gauss_hermite | half_range_gauss_hermite | newton_cotes | file | nonuniform
    index_t size() const { return static_cast<index_t>(u.size()); }
};

/// 1D rules (nodes and *effective* weights for integrating an arbitrary f, not e^{-x^2} f).
/// Gauss-Hermite by Golub-Welsch: u_i = offset + scale x_i, w_i = scale * w_i^GH * exp(x_i^2).
void gauss_hermite_1d(int n, double scale, double offset, std::vector<double>& x, std::vector<double>& w);
/// Half-range Gauss-Hermite (Shizgal) mirrored about the offset: n must be even; n/2 half-range nodes on
/// [0, inf) with weight exp(-x^2), mirrored. n = 28 reproduces the set of the public UGKS codes.
void half_range_gauss_hermite_1d(int n, double scale, double offset, std::vector<double>& x,
                                 std::vector<double>& w);
/// Composite Newton-Cotes (Boole), n = 4m+1 nodes on [lo, hi] including the ends.
void newton_cotes_1d(int n, double lo, double hi, std::vector<double>& x, std::vector<double>& w);

/// The `velocity` section: type gauss_hermite | half_range_gauss_hermite | newton_cotes | file |
/// nonuniform; dim; per-axis counts, ranges (newton_cotes), scale and offset (gauss_hermite), file path,
/// refinement centres and target point count (nonuniform).
struct VelocityConfig {
    std::string type = "gauss_hermite";
    int dim = 2;
    std::array<int, 3> counts{28, 28, 28};
    std::array<double, 3> lo{-4, -4, -4}, hi{4, 4, 4};
    std::array<double, 3> scale{1, 1, 1}, offset{0, 0, 0};
    std::string file;
    std::vector<Vec3> refine_centres;
    double refine_width = 1.0;
    index_t target_points = 0;
};
VelocityConfig parse_velocity_config(Config& cfg, int mesh_dim);
VelocityGrid build_velocity_grid(const VelocityConfig& vc);

/// Read "u_x [u_y [u_z]] w" lines ('#' comments); InputError naming the file and line.
VelocityGrid read_velocity_file(const std::string& path, int dim);

/// Nonuniform 3D tensor velocity mesh refined around `centres` (per-axis stretched spacing, midpoint weights),
/// covering [lo, hi] per axis, with about `target_points` points in total.
VelocityGrid make_nonuniform_velocity_grid(int dim, const std::array<double, 3>& lo,
                                           const std::array<double, 3>& hi, const std::vector<Vec3>& centres,
                                           double width, index_t target_points);

/// Velocities cut into blocks of B_v (zero-weight padding) and assigned to P_v velocity ranks.
struct VelocityBlocks {
    int block_size = 0;
    int n_blocks = 0;                   ///< global number of blocks
    std::vector<index_t> order;         ///< padded slot -> original velocity index (-1 for padding)
    std::vector<Vec3> u;                ///< padded velocities, n_blocks * block_size
    std::vector<double> w;              ///< padded weights (0 for padding)
    std::vector<int> block_owner;       ///< velocity rank q of each block
    std::array<std::vector<index_t>, 3> mirror;  ///< slot of the mirror image about plane u_d = 0 (-1: none)
    /// Contiguous block range of velocity rank q: [first, first + count).
    void range(int q, int& first, int& count) const;
};
/// `keep_mirrors[d]`: mirror pairs about u_d = 0 must stay on one velocity rank (symmetry planes).
/// Too many velocity ranks for the blocks, or a grid not closed under a required reflection -> InputError.
VelocityBlocks make_velocity_blocks(const VelocityGrid& grid, int block_size, int velocity_ranks,
                                    const std::array<bool, 3>& keep_mirrors);

}  // namespace ugks

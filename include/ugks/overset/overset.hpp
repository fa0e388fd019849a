#pragma once
/// Overset (chimera) grid assembly (docs/overset.md, "Method"): wall distance, donor
/// search, node/cell classification, donor stencils and orphans for overlapping component grids
/// in prescribed rigid motion. First version: CPU, one rank; all per-node/per-cell data are flat
/// arrays (Span-friendly) so the phases can move to device kernels.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/overset/grid_view.hpp"
#include "ugks/overset/hole_cut.hpp"
#include "ugks/overset/kdtree.hpp"

namespace ugks {
class Config;
}

namespace ugks::overset {

/// Prescribed rigid motion of a grid. A pose maps reference coordinates x0 to
/// x = R (x0 - point) + point + shift.
struct Motion {
    enum class Type { Fixed, Translation, Rotation, Poses };
    Type type = Type::Fixed;
    Vec3 velocity{0, 0, 0};  ///< translation: shift = velocity t
    Vec3 axis{0, 0, 1};      ///< rotation / poses: unit axis
    Vec3 point{0, 0, 0};     ///< rotation / poses: a point on the axis (reference frame)
    double omega = 0;        ///< rotation: angle = omega t (rad/time, right-hand rule about axis)
    /// poses: rows (time, shift_x, shift_y, shift_z, angle), times increasing; linear
    /// interpolation, held constant outside the table.
    std::vector<std::array<double, 5>> table;
};

struct Pose {
    double R[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    Vec3 point{0, 0, 0};
    Vec3 shift{0, 0, 0};
    Vec3 apply(const Vec3& x0) const;
    PoseArrays arrays() const;  ///< the same pose for pose_apply (kernels)
};
/// Rotation by `angle` about the unit `axis` (Rodrigues).
Pose rotation_pose(const Vec3& axis, const Vec3& point, double angle);
Pose pose_at(const Motion& m, double time);
/// a then b: x -> b(a(x)).
Pose compose(const Pose& a, const Pose& b);

/// One component grid of the case file.
struct GridSpec {
    std::string name;
    MeshConfig mesh;
    int layer = 0;                   ///< 0 = outermost (background); larger = embedded deeper
    std::vector<std::string> walls;  ///< wall patches (may be empty)
    Motion motion;
};

/// The overset case: `overset`, `time` and `output` sections.
struct OversetCase {
    std::string name;
    std::vector<GridSpec> grids;
    double layer_spacing = 1.0;   ///< Δs of the layer distances
    int leaf_size = 3;            ///< k-d tree leaf size (1..16)
    bool advancing_front = true;  ///< initial radius from the neighbour's wall point
    /// overset.backend: "auto" (the device in CUDA builds with a visible device), "host", "device"
    std::string backend = "auto";
    /// overset.hole_cut: "auto" (nodes inside another grid's closed wall become inactive), "off"
    std::string hole_cut = "auto";
    long steps = 1;  ///< number of moving steps after the initial assembly
    double dt = 0.0;
    std::string output_directory = "output";
    long output_every = 1;  ///< write every N steps (0: only step 0 and the last)
};

/// Parse and check `mode`, `name`, `overset`, `time`, `output` (InputError with key paths). Does
/// not call check_unused().
OversetCase parse_overset_case(Config& cfg);
/// Checks that need the meshes (InputError with key paths): same dimension (2 or 3) for all
/// grids, wall patches exist (a walls entry that is a patch pattern is replaced by the patches it
/// matches; one that matches none is refused), at least one grid has walls, 2D motions stay in the
/// xy-plane.
void check_case_meshes(Config& cfg, OversetCase& c, const std::vector<Mesh>& meshes);

/// The wall surface of a grid for the explicit hole cut (hole_cut.hpp): 2D segments or 3D triangles
/// (quads and polygons split into a fan) oriented with their normal into the grid's fluid, edge
/// adjacency and node -> faces CSR; the face boxes and their tree follow the current coordinates.
struct WallSurface {
    int dim = 0;
    std::vector<index_t> face;  ///< [n_faces * 3]; 2D: (a, b, -1)
    std::vector<index_t> adj;   ///< [n_faces * 3]; 3D: face across edge e, -1 if none
    std::vector<index_t> node_face_offsets, node_faces;  ///< over all nodes of the grid
    /// every vertex (2D) / edge (3D) shared by exactly two consistently oriented faces: only closed
    /// walls bound a solid, so only they cut
    bool closed = false;
    std::vector<double> box;  ///< current face boxes [n_faces * 2 dim]
    KdTree tree;              ///< over box
    index_t n_faces() const { return static_cast<index_t>(face.size() / 3); }
};

/// Wall surface from faces oriented with wall_face_normal into the fluid (face: 3 node ids per
/// face, -1 third in 2D) over a grid of n_nodes nodes: adjacency, node -> faces, closedness.
WallSurface make_wall_surface(int dim, index_t n_nodes, std::vector<index_t> face);
/// Face boxes and their k-d tree at the coordinates xyz (3 per node).
void update_wall_surface(WallSurface& s, const double* xyz, int leaf_size = 3);
/// Host view of s at coordinates xyz (after update_wall_surface with the same xyz).
WallView wall_view(const WallSurface& s, const double* xyz);
/// Inside flags of n points x (3 per point) against the closed walls `walls` of the grids
/// `wall_grid` (same order): out[i] = 1 + the first of those grids whose wall contains x_i, else 0
/// (host threads; the serial and the distributed assembly).
void inside_flags(const std::vector<WallView>& walls, const std::vector<int>& wall_grid,
                  const double* x, index_t n, std::int8_t* out);

/// A grid during the assembly. Node coordinates and per-node/per-cell results are flat arrays.
struct OversetGrid {
    std::string name;
    int layer = 0;
    Motion motion;
    Mesh mesh;                                           ///< reference mesh (nodes at t = 0)
    std::vector<index_t> wall_nodes;                     ///< nodes on wall patches (sorted, unique)
    std::vector<index_t> node_cell_offsets, node_cells;  ///< node -> cells (CSR)
    std::vector<index_t> boundary_nodes;  ///< nodes of boundary faces (seeds of island removal)
    WallSurface wall;                     ///< wall faces for the explicit hole cut

    // current state
    std::vector<double> xyz;               ///< current node coordinates [n_nodes * 3]
    std::vector<double> wall_distance;     ///< per node
    std::vector<std::int8_t> node_status;  ///< 1 active, 0 inactive
    std::vector<std::int8_t> in_body;      ///< 1 + the grid whose closed wall contains the node; 0
    /// per node: its nearest wall node in the list of all grids' wall nodes (grid order; -1 for
    /// grids without walls)
    std::vector<index_t> nearest_wall;
    std::vector<std::int8_t> cell_status;  ///< 1 active, 0 hole, -1 fringe
    std::vector<double> cell_box;          ///< [n_cells * 2 dim] (min.., max..)
    KdTree donor_tree;                     ///< over cell_box

    // receptors: inactive nodes of fringe cells, with their donor stencils
    std::vector<index_t> fringe_node;
    std::vector<int> fringe_donor_grid;      ///< -1: orphan
    std::vector<index_t> fringe_donor_cell;  ///< -1: orphan
    std::vector<double> fringe_weights;      ///< [n_receptors * 8], zero-padded
    index_t n_orphans = 0;
};

/// Counts of one assembly.
struct AssemblyCounts {
    index_t nodes = 0, active_nodes = 0, inactive_nodes = 0;
    index_t cells = 0, active_cells = 0, fringe_cells = 0, hole_cells = 0;
    index_t receptors = 0, orphans = 0, islands_removed = 0;
    index_t hole_cut = 0;  ///< nodes inside another grid's closed wall (explicit hole cut)
};

/// Seconds per phase of one assembly (summary.json timings_seconds, docs/usage.md "Overset mode";
/// transfers and MPI are 0 on one rank).
struct AssemblyTimes {
    double motion = 0, wall_tree_build = 0, wall_query = 0, donor_tree_build = 0, donor_query = 0,
           hole_cut = 0, classification = 0, donor_stencils = 0;
    double transfers = 0;  ///< device backend: uploads of the reference grids, results to the host
    double mpi = 0;        ///< distributed assembly (distributed.hpp): time in MPI calls
    double total() const {
        return motion + wall_tree_build + wall_query + donor_tree_build + donor_query + hole_cut +
               classification + donor_stencils + transfers + mpi;
    }
    /// Phase by phase (the times of several assemblies).
    AssemblyTimes& operator+=(const AssemblyTimes& o) {
        motion += o.motion;
        wall_tree_build += o.wall_tree_build;
        wall_query += o.wall_query;
        donor_tree_build += o.donor_tree_build;
        donor_query += o.donor_query;
        hole_cut += o.hole_cut;
        classification += o.classification;
        donor_stencils += o.donor_stencils;
        transfers += o.transfers;
        mpi += o.mpi;
        return *this;
    }
};

/// Where assemble() runs. Device: the CUDA kernels of src/overset/device_kernels.cpp (CUDA builds
/// with a visible device; results identical to Host, docs/decisions.md), copied back into the
/// grids' host arrays after every assembly (the host donor_tree and cell_box stay empty).
enum class Backend { Host, Device };

namespace detail {
struct DeviceState;  // device copies of the grids (device_kernels.cpp)
}

/// The grids and parameters of one assembly.
struct OversetSystem {
    int dim = 0;
    double layer_spacing = 1.0;
    int leaf_size = 3;
    bool advancing_front = true;
    bool hole_cut = true;  ///< explicit hole cut by the closed walls (overset.hole_cut)
    std::vector<OversetGrid> grids;
    Backend backend = Backend::Host;
    /// Device backend: reference grids uploaded at the first assembly (shared by copies of the
    /// system; reset it after changing the grids).
    std::shared_ptr<detail::DeviceState> device;
};

/// Build the system from meshes: wall nodes (patch names checked: InputError naming the grid),
/// node->cell maps; the state is empty until assemble(). All meshes must have the same dim.
OversetSystem make_system(const OversetCase& c, std::vector<Mesh> meshes);
/// Add one grid to a system (tests): checks as make_system.
void add_grid(OversetSystem& sys, const std::string& name, Mesh mesh, int layer,
              const std::vector<std::string>& walls, const Motion& motion = {});

/// Adds the node/cell/receptor/orphan counts of the grids' current classification to cnt (both
/// backends, after an assembly).
void add_status_counts(const OversetSystem& sys, AssemblyCounts& cnt);

/// One complete assembly at `time`: reset the status, move every grid to its pose (composed with
/// `common`, a motion applied to all grids, identity by default), wall distances, donor trees,
/// host search, explicit hole cut (nodes inside another grid's closed wall: inactive),
/// classification, island removal, donor stencils, orphans.
AssemblyCounts assemble(OversetSystem& sys, double time, AssemblyTimes* times = nullptr,
                        const Pose& common = Pose{});

// ---- building blocks (also used by the tests)
// ----------------------------------------------------

/// Distance from every query point (xyz, 3 per point) to the nearest of the tree's points (3-D
/// tree), optionally with per-query squared initial radii (r2_init, may be null). Returns the
/// distances; nearest[i] receives the point index when non-null.
std::vector<double> nearest_distances(const KdTree& tree, const double* xyz, index_t n,
                                      const double* r2_init = nullptr,
                                      std::vector<index_t>* nearest = nullptr);

/// The same by brute force (tests, benchmarks).
std::vector<double> nearest_distances_brute(const double* pts, index_t n_pts, const double* xyz,
                                            index_t n);

/// Cell bounding boxes [n_cells * 2 dim] of a mesh at coordinates xyz, widened by 1e-9 of the cell
/// size so that the tolerant inside test never misses a candidate.
std::vector<double> cell_boxes(const Mesh& mesh, const double* xyz);

/// Donor cell of point x in grid g: the smallest cell index whose box contains x and that contains
/// x (locate_in_cell), skipping cells with cell_status 0 when `skip_holes`. -1 when none. Writes
/// the weights (shape_count of the cell's type) when found.
index_t find_donor(const OversetGrid& g, int dim, const double* x, bool skip_holes, double* w);
/// The same by testing every cell (tests).
index_t find_donor_brute(const OversetGrid& g, int dim, const double* x, bool skip_holes,
                         double* w);

/// Wall distances of every node of every grid (the wall-distance phases of assemble()).
void compute_wall_distances(OversetSystem& sys, AssemblyTimes* times = nullptr);

/// Host view of grid g (its current xyz, status, wall distance and donor tree).
GridView grid_view(const OversetGrid& g, int dim);

// ---- device backend (device_kernels.cpp; CPU builds: device_available() is false and the other
// functions throw)
// ----------------------------------------------------------------------------------

/// A CUDA build with a visible device.
bool device_available();
/// Device 1-NN queries of at least this many points run in spatial order: Morton codes of the
/// queries in the tree's bounding box, a CUB radix sort of (code, index), the traversal in that
/// order, results scattered back (docs/decisions.md, "Query order"; the sort counts in the query
/// time).
/// Below it the sort does not pay (measured on the H200 with the 63-bit codes: 10^5 queries ran
/// 0.8-1.6 ns/query slower sorted, 10^6 queries 1.5 ns faster; the threshold lies between, where
/// the traversal's incoherence starts to dominate; docs/performance.md); results never depend on
/// the order.
constexpr index_t kDeviceQuerySortMin = 262144;
/// assemble() on the device (assemble() calls it for Backend::Device).
AssemblyCounts assemble_device(OversetSystem& sys, double time, AssemblyTimes* times,
                               const Pose& common);
/// Build the tree on the device from host points and download it (tests: equal to build_kdtree).
KdTree build_kdtree_device(const double* pts, index_t n, int k, int leaf_size = 3);
/// nearest_distances on the device: tree built there from `pts`, queries from host xyz.
/// Queries in Morton order when n >= sort_min (0: always, a huge value: never).
std::vector<double> nearest_distances_device(const double* pts, index_t n_pts, const double* xyz,
                                             index_t n, int leaf_size = 3,
                                             std::vector<index_t>* nearest = nullptr,
                                             index_t sort_min = kDeviceQuerySortMin);
/// Donor search on the device for host points x (3 per point) in grid g (a host grid with xyz and
/// cell_status set): donor cells (-1: none) and weights [n * kMaxCellNodes].
std::vector<index_t> find_donors_device(const OversetGrid& g, int dim, const double* x, index_t n,
                                        bool skip_holes, std::vector<double>* weights);

/// Timings of the device k-d tree (benchmark): build (after the points are on the device) and
/// 1-NN queries (queries on the device; the Morton sort of the queries included when
/// nq >= sort_min), best of `reps`; distances and nearest point indices of the last run.
struct KdBenchTimes {
    double build_s = 0, query_s = 0;
};
KdBenchTimes bench_kdtree_device(const double* pts, index_t n, const double* q, index_t nq,
                                 int leaf_size, int reps, std::vector<double>* dist,
                                 std::vector<index_t>* nearest = nullptr,
                                 index_t sort_min = kDeviceQuerySortMin);

}  // namespace ugks::overset

namespace ugks::overset {

/// Write `<dir>/overset_NNNNNN.h5` and `.xdmf` (serial HDF5; call on one rank). Per grid <name>:
/// nodes/{xyz, wall_distance, status}, cells/{status, nodes (-1-padded), type, topology},
/// fringe/{node, donor_grid, donor_cell, weights (8 per receptor, zero-padded)}; root attributes
/// step, time, config. Failure -> InputError naming the file. Returns the .h5 path.
std::string write_overset_step(const std::string& dir, long step, double time,
                               const OversetSystem& sys, const std::string& config_yaml);

}  // namespace ugks::overset

#pragma once
/// Set-up of an in-process solver problem from inline YAML (the phases of run_case), for the
/// device-solver tests, and field comparison helpers.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ugks/app/case_setup.hpp"
#include "ugks/core/config.hpp"
#include "ugks/device/device.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/solver/boundary_config.hpp"
#include "ugks/solver/ugks_solver.hpp"
#include "ugks/solver/ugks_solver_device.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks::test {

// Cases shared by the device tests (the decomposition test varies steps, limiter and B_v by
// overrides).

// Lid-driven box with a hot wall and a hot, dense block: diffuse walls incl. a moving lid, second
// order with the Venkatakrishnan limiter, 144 velocities (half-range Gauss-Hermite).
inline const char* const kCavityCase = R"(
name: gpu_cavity
gas: {Kn: 0.1, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 2, cells: [12, 10], lo: [0, 0], hi: [1.2, 1.0]}
velocity: {type: half_range_gauss_hermite, counts: [12, 12]}
boundaries:
  xmin: {type: diffuse_wall, T: 1.0}
  xmax: {type: diffuse_wall, T: 1.5}
  ymin: {type: diffuse_wall, T: 1.0}
  ymax: {type: diffuse_wall, T: 1.0, U: [0.3, 0.0]}
initial:
  rho: 1.0
  U: [0.0, 0.0]
  T: 1.0
  regions:
    - {lo: [0.2, 0.3], hi: [0.6, 0.8], rho: 1.5, T: 1.4, U: [0.1, -0.05]}
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 20}
parallel: {velocity_ranks: 1, block_size: 16}
output: {directory: out_unused, every: 0}
)";

// Quarter domain with two symmetry planes, a far field and an outflow boundary.
inline const char* const kSymmetryCase = R"(
name: gpu_symmetry
gas: {Kn: 0.05, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 2, cells: [10, 8], lo: [0, 0], hi: [1.0, 0.8]}
velocity: {type: gauss_hermite, counts: [10, 10]}
boundaries:
  xmin: {type: symmetry}
  ymin: {type: symmetry}
  xmax: {type: far_field, rho: 1.0, U: [-0.2, 0.05], T: 1.1}
  ymax: {type: outflow}
initial:
  rho: 1.0
  U: [0.0, 0.0]
  T: 1.0
  regions:
    - {lo: [-1, -1], hi: [0.4, 0.3], rho: 1.6, T: 1.3, U: [0.05, 0.02]}
numerics: {order: 2, limiter: barth_jespersen}
time: {steps: 20}
parallel: {block_size: 32}
output: {directory: out_unused, every: 0}
)";

// Couette-like channel, periodic in x (shifted geometric vectors), walls in y.
inline const char* const kPeriodicCase = R"(
name: gpu_periodic
gas: {Kn: 0.1, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 2, cells: [12, 6], lo: [0, 0], hi: [1.2, 0.6]}
velocity: {type: gauss_hermite, counts: [10, 10]}
boundaries:
  xmin: {type: periodic, partner: xmax}
  xmax: {type: periodic, partner: xmin}
  ymin: {type: diffuse_wall, T: 1.0}
  ymax: {type: diffuse_wall, T: 1.2, U: [0.25, 0.0]}
initial:
  rho: 1.0
  U: [0.0, 0.0]
  T: 1.0
  regions:
    - {lo: [0.0, 0.1], hi: [0.3, 0.4], rho: 1.4, T: 1.2, U: [0.1, 0.05]}
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 20}
parallel: {block_size: 32}
output: {directory: out_unused, every: 0}
)";

// A channel between two walls driven by a pressure inlet and outlet (issue 17), with a denser
// block.
inline const char* const kPressureChannel = R"(
name: gpu_pressure_channel
gas: {Kn: 0.1, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 2, cells: [12, 8], lo: [0, 0], hi: [2.4, 1.0]}
velocity: {type: half_range_gauss_hermite, counts: [12, 10]}
boundaries:
  xmin: {type: pressure_inlet, p: 0.6, T: 1.2}
  xmax: {type: pressure_outlet, p: 0.45}
  ymin: {type: diffuse_wall, T: 1.0}
  ymax: {type: diffuse_wall, T: 1.0}
initial:
  rho: 1.0
  U: [0.0, 0.0]
  T: 1.0
  regions:
    - {lo: [0.4, 0.2], hi: [0.8, 0.6], rho: 1.3, T: 1.1, U: [0.1, 0.05]}
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 20}
parallel: {block_size: 16}
output: {directory: out_unused, every: 0}
)";

/// Everything a solver refers to, built as run_case does (collective over `comm`).
struct Problem {
    Config cfg;
    CaseSetup setup;
    Mesh mesh;
    VelocityGrid vel;
    VelocityBlocks blocks;
    PhaseSpaceLayout layout;
    LocalMesh local;
    ~Problem() {
        if (layout.world != MPI_COMM_NULL) free_layout(layout);
    }
};

inline std::unique_ptr<Problem> make_problem(const std::string& yaml,
                                             const std::vector<std::string>& overrides,
                                             MPI_Comm comm) {
    auto P = std::make_unique<Problem>();
    P->cfg = Config::from_string(yaml, "test case");
    for (const auto& o : overrides) P->cfg.apply_override(o);
    parse_case_sections(P->cfg, P->setup);
    P->mesh = load_mesh(P->setup.mesh_config);
    parse_velocity_section(P->cfg, P->setup, P->mesh.dim);
    P->vel = build_velocity_grid(P->setup.velocity_config);
    auto mirrors = check_boundaries(P->setup.boundaries, P->mesh, P->cfg, "box mesh");
    resolve_reflections(P->setup.boundaries, P->vel, mirrors, P->cfg);
    connect_periodic(P->mesh, periodic_pairs(P->setup.boundaries));
    P->cfg.check_unused();
    P->blocks = make_velocity_blocks(P->vel, P->setup.parallel.block_size,
                                     P->setup.parallel.velocity_ranks, mirrors);
    P->layout = make_layout(comm, P->setup.parallel.velocity_ranks);
    bind_device(P->layout);
    const auto part = partition_cells(P->mesh, P->layout.P_x, comm);
    P->local = build_local_mesh(P->mesh, part, P->layout.p);
    add_jump_images(P->local, periodic_jump_scales(P->setup.boundaries));
    return P;
}

/// Largest deviation of field b from field a per field, relative to the field's largest magnitude
/// but at least `min_scale` (per owned cell arrays in the same order); reports the worst over all
/// fields in `worst`. min_scale > 0 serves fields that are pure round-off, such as q and the
/// stress of the initial Maxwellians (~1e-17).
inline void compare_fields(const std::vector<CellField>& a, const std::vector<CellField>& b,
                           double tol, const std::string& what, double* worst = nullptr,
                           double min_scale = 0.0) {
    ASSERT_EQ(a.size(), b.size());
    double all = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        ASSERT_EQ(a[k].data.size(), b[k].data.size()) << a[k].name;
        double scale = 0.0, diff = 0.0;
        for (std::size_t i = 0; i < a[k].data.size(); ++i) {
            scale = std::max(scale, std::abs(a[k].data[i]));
            diff = std::max(diff, std::abs(a[k].data[i] - b[k].data[i]));
        }
        scale = std::max(scale, min_scale);
        const double rel = scale > 0 ? diff / scale : diff;
        all = std::max(all, rel);
        EXPECT_LE(rel, tol) << what << ": field " << a[k].name << " (scale " << scale << ")";
    }
    if (worst) *worst = all;
}

/// True when every field of a and b has identical bytes (run-to-run determinism); reports the
/// first differing field as a test failure.
inline void expect_identical(const std::vector<CellField>& a, const std::vector<CellField>& b,
                             const std::string& what) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
        ASSERT_EQ(a[k].data.size(), b[k].data.size());
        EXPECT_EQ(
            0, std::memcmp(a[k].data.data(), b[k].data.data(), a[k].data.size() * sizeof(double)))
            << what << ": field " << a[k].name << " differs between two identical runs";
    }
}

/// True when a CUDA device is visible.
inline bool have_device() { return device::device_count() > 0; }

/// Wall data (momentum and heat flux per wall face, relative to their largest value) and the
/// conserved totals of a CPU and a device solver on the same decomposition agree to 1e-10 / 1e-11.
template <class Cpu, class Gpu>
void expect_same_wall_data_and_totals(const Cpu& cpu, const Gpu& gpu, const std::string& what) {
    ASSERT_EQ(cpu.wall_data().size(), gpu.wall_data().size());
    double wscale = 0.0, wdiff = 0.0;
    for (std::size_t k = 0; k < cpu.wall_data().size(); ++k) {
        const auto &x = cpu.wall_data()[k], &y = gpu.wall_data()[k];
        EXPECT_EQ(x.local_face, y.local_face);
        for (int d = 0; d < 3; ++d) {
            wscale = std::max(wscale, std::abs(x.P[d]));
            wdiff = std::max(wdiff, std::abs(x.P[d] - y.P[d]));
        }
        wscale = std::max(wscale, std::abs(x.qw));
        wdiff = std::max(wdiff, std::abs(x.qw - y.qw));
    }
    if (wscale > 0) EXPECT_LE(wdiff / wscale, 1e-10) << what << ": wall data";
    const auto ta = cpu.totals(), tb = gpu.totals();
    for (int e = 0; e < 5; ++e) EXPECT_NEAR(ta[e], tb[e], 1e-11 * (std::abs(ta[0]) + 1.0));
}

/// v followed by more (case-file overrides).
inline std::vector<std::string> with(std::vector<std::string> v,
                                     const std::vector<std::string>& more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
}

/// Determinism and restart of the device solver on MPI_COMM_SELF: two runs of `steps` steps give
/// identical field bytes and residuals, and a run exported after `split` steps and imported into a
/// fresh solver continues with the same bits as the uninterrupted run.
inline void expect_deterministic_restart(const char* yaml,
                                         const std::vector<std::string>& overrides,
                                         const std::string& what, long steps, long split) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(yaml, overrides, MPI_COMM_SELF);
    std::vector<std::vector<CellField>> out;
    std::vector<std::array<double, 3>> res;
    for (int run = 0; run < 2; ++run) {
        UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
        gpu.initialize();
        StepResult r;
        for (long n = 0; n < steps; ++n) ASSERT_FALSE((r = gpu.step()).failed) << r.failure;
        out.push_back(gpu.fields());
        res.push_back(r.residual);
    }
    expect_identical(out[0], out[1], what + " run twice");
    for (int k = 0; k < 3; ++k) EXPECT_EQ(res[0][k], res[1][k]) << what << " residual " << k;
    SolverState mid;
    {
        UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
        gpu.initialize();
        for (long n = 0; n < split; ++n) ASSERT_FALSE(gpu.step().failed);
        mid = gpu.state_export();
    }
    UgksSolverDevice cont(P->setup, P->local, P->layout, P->vel, P->blocks);
    cont.initialize();
    cont.state_import(mid);
    EXPECT_EQ(cont.step_count(), split);
    StepResult r;
    for (long n = split; n < steps; ++n) ASSERT_FALSE((r = cont.step()).failed) << r.failure;
    expect_identical(out[0], cont.fields(), what + " restart");
    for (int k = 0; k < 3; ++k) EXPECT_EQ(res[0][k], r.residual[k]) << what << " residual " << k;
}

}  // namespace ugks::test

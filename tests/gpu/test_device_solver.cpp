// Device solver vs CPU solver (issue 4): the same case on the same decomposition gives the same
// fields to <= 1e-10 relative after N steps, and the device solver is deterministic (two runs give
// identical bytes). Skips without a visible CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_problem.hpp"

namespace {

using namespace ugks;
using namespace ugks::test;

// Sod-like shock tube, 1D velocity space (h and b), outflow ends.
const char* kSod = R"(
name: gpu_sod
gas: {Kn: 1.0e-4, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 1, cells: [60], lo: [0.0], hi: [1.0]}
velocity: {type: gauss_hermite, dim: 1, counts: [28]}
boundaries:
  xmin: {type: outflow}
  xmax: {type: outflow}
initial:
  rho: 0.125
  U: [0.0]
  T: 0.8
  regions:
    - {lo: [-1.0], hi: [0.5], rho: 1.0, T: 1.0, U: [0.0]}
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 30}
parallel: {block_size: 8}
output: {directory: out_unused, every: 0}
)";

// Supersonic inflow through a far field into an outflow, first order, Newton-Cotes velocities.
const char* kFarField = R"(
name: gpu_far_field
gas: {Kn: 0.01, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 1, cells: [40], lo: [0.0], hi: [1.0]}
velocity: {type: newton_cotes, dim: 1, counts: [41], lo: [-8.0], hi: [10.0]}
boundaries:
  xmin: {type: far_field, rho: 1.0, U: [1.5], T: 1.0}
  xmax: {type: outflow}
initial: {rho: 1.0, U: [0.0], T: 1.0}
numerics: {order: 1}
time: {steps: 30}
parallel: {block_size: 16}
output: {directory: out_unused, every: 0}
)";

// 3D box, monatomic (b not stored), diffuse walls with a moving lid, padded last block.
const char* kBox3d = R"(
name: gpu_box3d
gas: {Kn: 0.1, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 3, cells: [4, 4, 3], lo: [0, 0, 0], hi: [1, 1, 0.75]}
velocity: {type: gauss_hermite, counts: [6, 6, 6]}
boundaries:
  xmin: {type: diffuse_wall, T: 1.0}
  xmax: {type: diffuse_wall, T: 1.2}
  ymin: {type: diffuse_wall, T: 1.0}
  ymax: {type: diffuse_wall, T: 1.0, U: [0.2, 0.0, 0.0]}
  zmin: {type: diffuse_wall, T: 1.0}
  zmax: {type: diffuse_wall, T: 1.0}
initial: {rho: 1.0, U: [0.0, 0.0, 0.0], T: 1.0}
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 10}
parallel: {block_size: 64}
output: {directory: out_unused, every: 0}
)";

/// True when every value of v is a float (widened to double exactly).
bool all_floats(const std::vector<double>& v) {
    for (const double x : v)
        if (static_cast<double>(static_cast<float>(x)) != x) return false;
    return true;
}

/// N steps of the CPU and the device solver on MPI_COMM_SELF; fields compared after every step
/// (to <= tol relative).
void cpu_vs_device(const char* yaml, const std::vector<std::string>& overrides, const char* what,
                   double tol = 1e-10) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(yaml, overrides, MPI_COMM_SELF);
    UgksSolver cpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    cpu.initialize();
    gpu.initialize();
    double worst = 0.0;
    // Initial q and stress are round-off (discrete moments of Maxwellians): compared on the scale
    // of the O(1) state.
    compare_fields(cpu.fields(), gpu.fields(), 1e-12, std::string(what) + " initial", &worst, 1e-2);
    const long steps = P->setup.time.steps;
    double worst_all = 0.0;
    for (long n = 0; n < steps; ++n) {
        const StepResult a = cpu.step();
        const StepResult b = gpu.step();
        ASSERT_FALSE(a.failed) << a.failure;
        ASSERT_FALSE(b.failed) << b.failure;
        EXPECT_NEAR(a.dt, b.dt, 1e-13 * a.dt) << what << " step " << n + 1;
        compare_fields(cpu.fields(), gpu.fields(), tol,
                       std::string(what) + " step " + std::to_string(n + 1), &worst);
        worst_all = std::max(worst_all, worst);
        if (::testing::Test::HasFailure()) break;
    }
    expect_same_wall_data_and_totals(cpu, gpu, what);
    if (P->setup.numerics.fp32_storage) {  // the state is stored as floats on both backends
        const SolverState sc = cpu.state_export(), sg = gpu.state_export();
        EXPECT_TRUE(all_floats(sc.h) && all_floats(sc.b)) << what << ": CPU state";
        EXPECT_TRUE(all_floats(sg.h) && all_floats(sg.b)) << what << ": GPU state";
        EXPECT_TRUE(sc.fp32 && sg.fp32) << what;
    }
    std::printf("[ %s ] %ld steps: max relative field difference CPU vs GPU %.3e\n", what, steps,
                worst_all);
}

TEST(DeviceSolver, CavityMatchesCpu) { cpu_vs_device(kCavityCase, {}, "cavity"); }
TEST(DeviceSolver, CavityPaddedBlocksMatchesCpu) {
    cpu_vs_device(kCavityCase, {"parallel.block_size=7", "time.steps=8"}, "cavity B_v=7");
}
TEST(DeviceSolver, CavityBarthJespersenMatchesCpu) {
    cpu_vs_device(kCavityCase, {"numerics.limiter=barth_jespersen", "parallel.block_size=64"},
                  "cavity barth_jespersen");
}
TEST(DeviceSolver, CavityPartlySpecularWallsMatchesCpu) {
    // Maxwell accommodation 0.3 and 0.7 (issue 17), and a padded block (mirrored slots of the
    // specular part across blocks)
    cpu_vs_device(kCavityCase,
                  {"boundaries.xmax.accommodation=0.3", "boundaries.ymax.accommodation=0.7",
                   "parallel.block_size=20", "time.steps=12"},
                  "cavity accommodation");
}
TEST(DeviceSolver, PeriodicChannelWithBodyForceMatchesCpu) {
    // forces.acceleration (issue 17): the force source of both stages, the macroscopic trapezoid
    // and the interface solution's force slope
    cpu_vs_device(kPeriodicCase, {"forces.acceleration=[0.2, -0.1]"}, "periodic body force");
}
TEST(DeviceSolver, PeriodicPressureJumpMatchesCpu) {
    // a pressure jump on the x pair (docs/formulation.md section 8.6): image cells of W, q,
    // gradients, h, b and their gradients; the partner faces' fluxes from the jump faces; padded
    // block
    cpu_vs_device(kPeriodicCase, {"boundaries.xmin.pressure_ratio=1.15", "parallel.block_size=13"},
                  "periodic pressure jump");
}
TEST(DeviceSolver, PressureChannelMatchesCpu) {
    // pressure inlet/outlet ghost states from the owners (issue 17), padded block
    cpu_vs_device(kPressureChannel, {"parallel.block_size=13"}, "pressure channel");
}
TEST(DeviceSolver, CavityWithWallExpressionsMatchesCpu) {
    // wall T and U varying over the patches (issue 17): per-face values on both backends
    cpu_vs_device(
        kCavityCase,
        {"boundaries.xmax.T=1.2 + 0.6 * y", "boundaries.ymax.U=[0.3 * sin(_pi * x / 1.2), 0]",
         "boundaries.ymin.T=1 + 0.2 * x"},
        "cavity wall expressions");
}
TEST(DeviceSolver, SymmetryOnOffsetGridInterpolatesAsCpu) {
    // a velocity grid not symmetric about u_x, u_y = 0: both symmetry planes reflect by the
    // interpolation of docs/formulation.md section 8.2b (h and b), padded blocks
    cpu_vs_device(kSymmetryCase, {"velocity.offset=[0.15, -0.1]", "parallel.block_size=13"},
                  "symmetry, offset grid");
}
TEST(DeviceSolver, Box3dPartlySpecularOnOffsetGridMatchesCpu) {
    // 3D monatomic (b not stored): accommodation 0.4 on a face whose axis the grid is not
    // symmetric about (interpolated) and 0.6 on one it is (mirror slots)
    cpu_vs_device(kBox3d,
                  {"velocity.offset=[0.2, 0.0, 0.0]", "boundaries.xmin.accommodation=0.4",
                   "boundaries.ymin.accommodation=0.6"},
                  "box3d accommodation, offset grid");
}
TEST(DeviceSolver, ObliqueSymmetryAndPartlySpecularWallMatchesCpu) {
    // the rotated strip (planes at 30 degrees to the grid axes): an oblique partly specular wall
    // and an oblique symmetry plane, periodic sides
    const char* e = std::getenv("UGKS_SOURCE_DIR");
    const std::string mesh = (e && *e ? std::string(e) : std::string(UGKS_SOURCE_DIR)) +
                             "/tests/data/mesh/rotated_strip.msh";
    const std::string yaml = std::string(R"(
name: gpu_oblique
gas: {Kn: 0.05, omega: 0.81, Pr: 0.6666666666666666}
mesh: {source: gmsh, file: ")") +
                             mesh + R"("}
velocity: {type: newton_cotes, dim: 2, counts: [13, 13], lo: [-5, -5], hi: [5, 5]}
boundaries:
  wall: {type: diffuse_wall, T: 1.0, U: [-0.1, 0.17320508075688773], accommodation: 0.5}
  far: {type: symmetry}
  side_a: {type: periodic, partner: side_b}
  side_b: {type: periodic, partner: side_a}
initial: {rho: 1.0, U: [0.2, 0.1], T: 1.3}
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 15}
parallel: {block_size: 24}
output: {directory: out_unused, every: 0}
)";
    cpu_vs_device(yaml.c_str(), {}, "oblique symmetry and wall");
}
TEST(DeviceSolver, SodMatchesCpu) { cpu_vs_device(kSod, {}, "sod"); }
TEST(DeviceSolver, SymmetryFarFieldOutflowMatchesCpu) {
    cpu_vs_device(kSymmetryCase, {}, "symmetry");
}
TEST(DeviceSolver, FarFieldFirstOrderMatchesCpu) { cpu_vs_device(kFarField, {}, "far field"); }
TEST(DeviceSolver, PeriodicMatchesCpu) { cpu_vs_device(kPeriodicCase, {}, "periodic"); }
TEST(DeviceSolver, Box3dMatchesCpu) { cpu_vs_device(kBox3d, {}, "box3d"); }

// numerics.storage fp32 (docs/decisions.md "Single-precision storage"): both backends round the
// same double values to float, so they agree as in fp64 except where a last-bit difference of the
// arithmetic (1e-16) moves a value across a float rounding boundary (one float ulp, 6e-8): 1e-6.
TEST(DeviceSolver, CavityFp32StorageMatchesCpu) {
    cpu_vs_device(kCavityCase, {"numerics.storage=fp32"}, "cavity fp32", 1e-6);
}
TEST(DeviceSolver, Box3dFp32StorageMatchesCpu) {
    cpu_vs_device(kBox3d, {"numerics.storage=fp32", "boundaries.ymin.accommodation=0.6"},
                  "box3d fp32", 1e-6);
}
TEST(DeviceSolver, PeriodicPressureJumpFp32StorageMatchesCpu) {
    // the image cells of h and b rounded as stored; body force (both stages' sources)
    cpu_vs_device(kPeriodicCase,
                  {"numerics.storage=fp32", "boundaries.xmin.pressure_ratio=1.15",
                   "parallel.block_size=13", "forces.acceleration=[0.2, -0.1]"},
                  "periodic pressure jump fp32", 1e-6);
}
TEST(DeviceSolver, SodFp32StorageMatchesCpu) {
    cpu_vs_device(kSod, {"numerics.storage=fp32"}, "sod fp32", 1e-6);
}

TEST(DeviceSolver, RunTwiceGivesIdenticalBytes) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(kCavityCase, {}, MPI_COMM_SELF);
    std::vector<std::vector<CellField>> out;
    for (int run = 0; run < 2; ++run) {
        UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
        gpu.initialize();
        for (int n = 0; n < 15; ++n) ASSERT_FALSE(gpu.step().failed);
        out.push_back(gpu.fields());
    }
    expect_identical(out[0], out[1], "cavity");
}

TEST(DeviceSolver, MemoryReport) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(kBox3d, {}, MPI_COMM_SELF);
    UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    const DeviceMemoryReport r = gpu.memory_report();
    const double dist = 8.0 * static_cast<double>(P->local.mesh.n_cells()) * 256;  // h only (3D)
    EXPECT_GE(static_cast<double>(r.persistent), dist);
    EXPECT_GT(r.working_set, 0u);
    EXPECT_GE(r.peak, r.persistent + r.working_set);
    EXPECT_GT(r.conventional, r.persistent);
    // fp32 storage: the persistent arrays lose 4 bytes per distribution value
    auto P32 = make_problem(kBox3d, {"numerics.storage=fp32"}, MPI_COMM_SELF);
    UgksSolverDevice g32(P32->setup, P32->local, P32->layout, P32->vel, P32->blocks);
    const DeviceMemoryReport r32 = g32.memory_report();
    const double nv = static_cast<double>(P->blocks.n_blocks) * P->blocks.block_size;
    EXPECT_NEAR(static_cast<double>(r.persistent - r32.persistent),
                4.0 * static_cast<double>(P->local.mesh.n_cells()) * nv, 1024.0);
}

}  // namespace

// Device solver in time.mode: steady (issue 8, docs/steady.md) vs the CPU solver: per-cell time
// steps, face rates with dt_f = min(dt_L, dt_R) and, in closed domains, the mass rescale. The
// same case on the same decomposition gives the same fields to <= 1e-10 relative after every
// iteration, the device runs are deterministic (identical bytes twice) and continue bit-for-bit
// from an exported state. Skips without a visible CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "device_problem.hpp"

namespace {

using namespace ugks;
using namespace ugks::test;

// Supersonic inflow through a far field into an outflow on a stretched 1D mesh (open domain).
const char* kFarFieldStretched = R"(
name: gpu_steady_far_field
gas: {Kn: 0.01, omega: 0.81, Pr: 0.6666666666666666}
mesh:
  source: box
  box: {dim: 1, cells: [40], lo: [0.0], hi: [1.0], stretch: [1.1], stretch_symmetric: true}
velocity: {type: newton_cotes, dim: 1, counts: [41], lo: [-8.0], hi: [10.0]}
boundaries:
  xmin: {type: far_field, rho: 1.0, U: [1.5], T: 1.0}
  xmax: {type: outflow}
initial: {rho: 1.0, U: [0.0], T: 1.0}
numerics: {order: 2, limiter: venkatakrishnan}
time: {mode: steady, steps: 30}
parallel: {block_size: 16}
output: {directory: out_unused, every: 0}
)";

/// Steady mode on a mesh stretched towards the walls (local steps differing by ~3x).
const std::vector<std::string> kStretched = {"time.mode=steady", "mesh.box.stretch=[1.4, 1.4]",
                                             "mesh.box.stretch_symmetric=true"};

/// N steady iterations of the CPU and the device solver on MPI_COMM_SELF; dt (smallest local
/// step), residuals and fields compared after every iteration, wall data and totals at the end.
/// closed: the domain has no open boundary, so both keep their initial mass (the rescale).
void steady_cpu_vs_device(const char* yaml, const std::vector<std::string>& overrides,
                          const char* what, bool closed) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(yaml, overrides, MPI_COMM_SELF);
    ASSERT_TRUE(P->setup.time.steady());
    UgksSolver cpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    ASSERT_TRUE(gpu.local_time_stepping());
    cpu.initialize();
    gpu.initialize();
    const double mass0 = gpu.totals()[0];
    double worst = 0.0, worst_all = 0.0, worst_res = 0.0;
    const long steps = P->setup.time.steps;
    for (long n = 0; n < steps; ++n) {
        const StepResult a = cpu.step();
        const StepResult b = gpu.step();
        ASSERT_FALSE(a.failed) << a.failure;
        ASSERT_FALSE(b.failed) << b.failure;
        EXPECT_NEAR(a.dt, b.dt, 1e-13 * a.dt) << what << " step " << n + 1;
        for (int k = 0; k < 3; ++k) {
            const double rel = std::abs(a.residual[k] - b.residual[k]) / a.residual[k];
            worst_res = std::max(worst_res, rel);
            EXPECT_LE(rel, 1e-9) << what << " step " << n + 1 << " residual " << k;
        }
        compare_fields(cpu.fields(), gpu.fields(), 1e-10,
                       std::string(what) + " step " + std::to_string(n + 1), &worst);
        worst_all = std::max(worst_all, worst);
        if (::testing::Test::HasFailure()) break;
    }
    EXPECT_DOUBLE_EQ(cpu.time(), gpu.time());
    expect_same_wall_data_and_totals(cpu, gpu, what);
    const auto tb = gpu.totals();
    const double drift = tb[0] / mass0 - 1.0;
    if (closed)
        EXPECT_NEAR(drift, 0.0, 1e-13) << what << ": the closed domain keeps its mass";
    else
        EXPECT_GT(std::abs(drift), 1e-8) << what << ": the open domain's mass changes";
    std::printf(
        "[ %s ] %ld steady steps: max relative field difference CPU vs GPU %.3e, residuals "
        "%.3e, mass change %.2e\n",
        what, steps, worst_all, worst_res, drift);
}

TEST(DeviceSteady, ClosedCavityMatchesCpu) {
    steady_cpu_vs_device(kCavityCase, with(kStretched, {"time.steps=30"}), "steady cavity", true);
}
TEST(DeviceSteady, ClosedCavityPaddedBlocksMatchesCpu) {
    steady_cpu_vs_device(kCavityCase,
                         with(kStretched, {"time.steps=12", "parallel.block_size=7",
                                           "numerics.limiter=barth_jespersen"}),
                         "steady cavity B_v=7", true);
}
TEST(DeviceSteady, ClosedPeriodicChannelMatchesCpu) {
    steady_cpu_vs_device(kPeriodicCase,
                         {"time.mode=steady", "mesh.box.stretch=[1.0, 1.5]",
                          "mesh.box.stretch_symmetric=true", "time.steps=25"},
                         "steady periodic", true);
}
TEST(DeviceSteady, ClosedPeriodicChannelWithBodyForceMatchesCpu) {
    steady_cpu_vs_device(
        kPeriodicCase,
        {"time.mode=steady", "mesh.box.stretch=[1.0, 1.5]", "mesh.box.stretch_symmetric=true",
         "time.steps=25", "forces.acceleration=[0.2, -0.1]"},
        "steady periodic body force", true);
}
TEST(DeviceSteady, OpenSymmetryFarFieldOutflowMatchesCpu) {
    steady_cpu_vs_device(kSymmetryCase, with(kStretched, {"time.steps=30"}), "steady symmetry",
                         false);
}
TEST(DeviceSteady, OpenFarFieldOutflow1dMatchesCpu) {
    steady_cpu_vs_device(kFarFieldStretched, {}, "steady far field 1D", false);
}

/// Identical bytes in two runs, and a run exported after k iterations and imported into a fresh
/// solver continues with the same bits as the uninterrupted run (no steady-mode state outside
/// SolverState: the mass reference is the previous state's).
TEST(DeviceSteady, ClosedCavityRunTwiceAndRestartGiveIdenticalBytes) {
    expect_deterministic_restart(kCavityCase, kStretched, "steady cavity", 16, 7);
}
TEST(DeviceSteady, OpenSymmetryRunTwiceAndRestartGiveIdenticalBytes) {
    expect_deterministic_restart(kSymmetryCase, kStretched, "steady symmetry", 16, 7);
}

}  // namespace

// Device solver with the implicit steady iteration (time.steady_method: implicit, docs/steady.md
// section 7) vs the CPU solver with time.implicit.ordering: colored (the only ordering of the CUDA
// backend): the cells of a colour share no face, so the device's one launch per colour gives the
// CPU's sequential sweep over that colour. The same case on the same decomposition gives the same
// fields to <= 1e-10 relative after every iteration and at convergence; the device runs are
// deterministic (identical bytes twice) and continue bit-for-bit from an exported state. Skips
// without a visible CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_problem.hpp"

namespace {

using namespace ugks;
using namespace ugks::test;

/// Implicit steady iteration on a mesh stretched towards the boundaries.
const std::vector<std::string> kImplicit = {
    "time.mode=steady", "time.steady_method=implicit", "time.implicit.ordering=colored",
    "mesh.box.stretch=[1.4, 1.4]", "mesh.box.stretch_symmetric=true"};

double max_res(const StepResult& r) {
    return std::max({r.residual[0], r.residual[1], r.residual[2]});
}

/// Implicit iterations of the CPU and the device solver on MPI_COMM_SELF, compared after every
/// iteration (fields, residuals), until time.steps or, with tol > 0, until the CPU's residuals are
/// below tol (the device must stop at the same iteration). closed: both keep their mass.
void implicit_cpu_vs_device(const char* yaml, const std::vector<std::string>& overrides,
                            const char* what, bool closed, double tol = 0.0) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(yaml, overrides, MPI_COMM_SELF);
    ASSERT_TRUE(P->setup.time.implicit());
    ASSERT_EQ(P->setup.time.implicit_ordering, "colored");
    UgksSolver cpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    cpu.initialize();
    gpu.initialize();
    const double mass0 = gpu.totals()[0];
    double worst = 0.0, worst_all = 0.0, worst_res = 0.0, tcpu = 0.0, tgpu = 0.0;
    long n = 0;
    StepResult a, b;
    for (; n < P->setup.time.steps; ++n) {
        const auto t0 = std::chrono::steady_clock::now();
        a = cpu.step();
        const auto t1 = std::chrono::steady_clock::now();
        b = gpu.step();
        const auto t2 = std::chrono::steady_clock::now();
        tcpu += std::chrono::duration<double>(t1 - t0).count();
        tgpu += std::chrono::duration<double>(t2 - t1).count();
        ASSERT_FALSE(a.failed) << a.failure;
        ASSERT_FALSE(b.failed) << b.failure;
        EXPECT_NEAR(a.dt, b.dt, 1e-13 * a.dt) << what << " step " << n + 1;
        for (int k = 0; k < 3; ++k) {
            const double rel = std::abs(a.residual[k] - b.residual[k]) / a.residual[k];
            worst_res = std::max(worst_res, rel);
            // The residual norms are differences of O(1) face fluxes: their round-off difference
            // is ~1e-15 absolute, so relative to a residual r it is ~1e-15 / r (measured on the
            // H200: 1.05e-9 at r ~ 1e-6 in the open case, 1.9e-7 at r ~ 1e-8 in the cavity).
            const double tol_res = std::max(1e-9, 1e-13 / a.residual[k]);
            EXPECT_LE(rel, tol_res) << what << " step " << n + 1 << " residual " << k;
        }
        compare_fields(cpu.fields(), gpu.fields(), 1e-10,
                       std::string(what) + " step " + std::to_string(n + 1), &worst);
        worst_all = std::max(worst_all, worst);
        if (::testing::Test::HasFailure()) return;
        if (tol > 0 && max_res(a) < tol) {
            EXPECT_LT(max_res(b), tol) << what << ": the device converges at the same iteration";
            ++n;
            break;
        }
    }
    if (tol > 0) EXPECT_LT(max_res(a), tol) << what << ": not converged in " << n << " iterations";
    EXPECT_DOUBLE_EQ(cpu.time(), gpu.time());
    expect_same_wall_data_and_totals(cpu, gpu, what);
    const auto tb = gpu.totals();
    const double drift = tb[0] / mass0 - 1.0;
    if (closed) EXPECT_NEAR(drift, 0.0, 1e-13) << what << ": the closed domain keeps its mass";
    std::printf(
        "[ %s ] %ld implicit iterations (residual %.2e): max relative field difference CPU vs GPU "
        "%.3e, residuals %.3e, mass change %.2e; wall time CPU %.3f s, GPU %.3f s\n",
        what, n, max_res(b), worst_all, worst_res, drift, tcpu, tgpu);
}

TEST(DeviceImplicit, ClosedCavityMatchesCpu) {
    implicit_cpu_vs_device(kCavityCase, with(kImplicit, {"time.steps=8"}), "implicit cavity", true);
}
TEST(DeviceImplicit, ClosedCavityConvergedMatchesCpu) {
    implicit_cpu_vs_device(kCavityCase,
                           with(kImplicit, {"time.steps=400", "time.implicit.micro_sweeps=4",
                                            "time.implicit.macro_sweeps=4"}),
                           "implicit cavity to 1e-8", true, 1e-8);
}
TEST(DeviceImplicit, ClosedCavityPaddedBlocksPointImplicitMatchesCpu) {
    // B_v = 7 (padded last block), Barth-Jespersen, point-implicit macroscopic prediction, one
    // microscopic sweep pair, a small pseudo-time CFL number
    implicit_cpu_vs_device(
        kCavityCase,
        with(kImplicit, {"time.steps=8", "parallel.block_size=7",
                         "numerics.limiter=barth_jespersen", "time.implicit.macro_sweeps=0",
                         "time.implicit.micro_sweeps=1", "time.implicit.cfl=5"}),
        "implicit cavity B_v=7 point-implicit", true);
}
TEST(DeviceImplicit, ChunkedMicroRelaxationMatchesCpu) {
    // the microscopic relaxation chunk by chunk of velocity blocks (2 of the cavity's blocks at a
    // time, the last chunk shorter), as large cases run it to keep the increments small
    setenv("UGKS_RELAX_CHUNK", "2", 1);
    implicit_cpu_vs_device(kCavityCase, with(kImplicit, {"time.steps=8", "parallel.block_size=16"}),
                           "implicit cavity chunked relaxation", true);
    unsetenv("UGKS_RELAX_CHUNK");
}

TEST(DeviceImplicit, Fp32StorageMatchesCpu) {
    // numerics.storage fp32: h, b and the flux residual / right-hand side in single precision on
    // both backends (rounded at the same points), the closed-domain mass scaling of f on floats,
    // chunked relaxation
    setenv("UGKS_RELAX_CHUNK", "2", 1);
    implicit_cpu_vs_device(
        kCavityCase,
        with(kImplicit, {"time.steps=8", "parallel.block_size=16", "numerics.storage=fp32"}),
        "implicit cavity fp32 storage", true);
    unsetenv("UGKS_RELAX_CHUNK");
}

TEST(DeviceImplicit, ClosedPeriodicChannelMatchesCpu) {
    implicit_cpu_vs_device(
        kPeriodicCase,
        {"time.mode=steady", "time.steady_method=implicit", "mesh.box.stretch=[1.0, 1.5]",
         "mesh.box.stretch_symmetric=true", "time.steps=8"},
        "implicit periodic", true);
}
TEST(DeviceImplicit, ClosedPeriodicChannelWithBodyForceMatchesCpu) {
    // the force rate in the macroscopic residual and in the microscopic right-hand side
    implicit_cpu_vs_device(
        kPeriodicCase,
        {"time.mode=steady", "time.steady_method=implicit", "mesh.box.stretch=[1.0, 1.5]",
         "mesh.box.stretch_symmetric=true", "time.steps=8", "forces.acceleration=[0.2, -0.1]"},
        "implicit periodic body force", true);
}
TEST(DeviceImplicit, PeriodicPressureJumpMatchesCpu) {
    // the jump in the local steps (images of dt_i copied, not scaled) and the implicit residual
    implicit_cpu_vs_device(
        kPeriodicCase,
        {"time.mode=steady", "time.steady_method=implicit", "mesh.box.stretch=[1.0, 1.5]",
         "mesh.box.stretch_symmetric=true", "time.steps=8", "boundaries.xmax.pressure_ratio=0.9"},
        "implicit periodic pressure jump", true);
}
TEST(DeviceImplicit, PressureChannelMatchesCpu) {
    implicit_cpu_vs_device(kPressureChannel, with(kImplicit, {"time.steps=10"}),
                           "implicit pressure channel", false);
}
TEST(DeviceImplicit, OpenSymmetryFarFieldOutflowMatchesCpu) {
    implicit_cpu_vs_device(kSymmetryCase, with(kImplicit, {"time.steps=10"}), "implicit symmetry",
                           false);
}
TEST(DeviceImplicit, OpenSymmetryFarFieldOutflowConvergedMatchesCpu) {
    implicit_cpu_vs_device(kSymmetryCase,
                           with(kImplicit, {"time.steps=1000", "time.implicit.micro_sweeps=4",
                                            "time.implicit.macro_sweeps=4"}),
                           "implicit symmetry to 1e-6", false, 1e-6);
}

/// time.implicit.macro_solver: gmres (docs/steady.md section 7.2): the block matrix filled on the
/// device, GMRES on device vectors. A fixed number of Krylov steps per iteration (tolerance 1e-14,
/// 12 matrix applications) keeps the two backends on the same path: with a tolerance the step
/// count could differ by one where the round-off of the inner products (fixed-chunk sums on the
/// device, a sequential sum on the CPU) meets the threshold.
const std::vector<std::string> kGmres = {
    "time.implicit.macro_solver=gmres", "time.implicit.gmres_tolerance=1e-14",
    "time.implicit.gmres_max_iterations=12", "time.implicit.gmres_restart=8"};
TEST(DeviceImplicit, GmresClosedCavityMatchesCpu) {
    implicit_cpu_vs_device(kCavityCase, with(with(kImplicit, kGmres), {"time.steps=8"}),
                           "implicit gmres cavity", true);
}
TEST(DeviceImplicit, GmresClosedCavityConvergedMatchesCpu) {
    implicit_cpu_vs_device(
        kCavityCase,
        with(with(kImplicit, kGmres),
             {"time.steps=400", "time.implicit.micro_sweeps=4", "time.implicit.macro_sweeps=2"}),
        "implicit gmres cavity to 1e-8", true, 1e-8);
}
TEST(DeviceImplicit, GmresOpenSymmetryFarFieldOutflowMatchesCpu) {
    implicit_cpu_vs_device(kSymmetryCase, with(with(kImplicit, kGmres), {"time.steps=10"}),
                           "implicit gmres symmetry", false);
}
TEST(DeviceImplicit, GmresRunTwiceAndRestartGiveIdenticalBytes) {
    expect_deterministic_restart(kCavityCase, with(kImplicit, {"time.implicit.macro_solver=gmres"}),
                                 "implicit gmres cavity", 12, 5);
}

/// Identical bytes in two runs, and a run exported after k iterations and imported into a fresh
/// solver continues with the same bits as the uninterrupted run (the implicit iteration keeps no
/// state outside W, q, h, b).
TEST(DeviceImplicit, ClosedCavityRunTwiceAndRestartGiveIdenticalBytes) {
    expect_deterministic_restart(kCavityCase, kImplicit, "implicit cavity", 12, 5);
}
TEST(DeviceImplicit, OpenSymmetryRunTwiceAndRestartGiveIdenticalBytes) {
    expect_deterministic_restart(kSymmetryCase, kImplicit, "implicit symmetry", 12, 5);
}

}  // namespace

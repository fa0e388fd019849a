// Decomposition invariance of the device solver (issue 4): the cavity case on 2 ranks with
// (P_x, P_v) = (1, 2) and (2, 1) against the same case on one rank (each rank computes the 1-rank
// reference itself on MPI_COMM_SELF, on the same device), owned cells matched by global id, fields
// equal to <= 1e-11 relative; the same for time.mode: steady (issue 8), whose device fields also
// match the CPU solver's on the same 2-rank decomposition. Skips without a visible CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "device_problem.hpp"
#include "ugks/device/cuda/nccl.hpp"
#include "ugks/parallel/device_halo.hpp"

namespace {

using namespace ugks;
using namespace ugks::test;

// The shared symmetry and periodic cases as this test has always run them.
const std::vector<std::string> kSymmetryDecomp = {"numerics.limiter=venkatakrishnan",
                                                  "time.steps=15", "parallel.block_size=8"};
const std::vector<std::string> kPeriodicDecomp = {"time.steps=15", "parallel.block_size=16"};
// time.mode: steady on meshes stretched towards the boundaries (local steps differing by ~3x).
const std::vector<std::string> kSteady = {"time.mode=steady", "mesh.box.stretch=[1.4, 1.4]",
                                          "mesh.box.stretch_symmetric=true"};

/// True when parallel.halo: nccl can run: built with NCCL and one GPU per rank of each host.
bool nccl_usable() {
    if (!device::nccl_built()) return false;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n = 1;
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    int ok = have_device() && device::device_count() >= n ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok != 0;
}

int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

/// Device run on the world with velocity_ranks = pv vs the 1-rank device run (fields to <= tol).
void invariance(const char* yaml, int pv, const std::vector<std::string>& extra, const char* what,
                double tol = 1e-11) {
    int local_has = have_device() ? 1 : 0, all_have = 0;
    MPI_Allreduce(&local_has, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) GTEST_SKIP() << "no CUDA device visible";
    std::vector<std::string> ov = extra;
    ov.push_back("parallel.velocity_ranks=" + std::to_string(pv));
    auto R = make_problem(yaml, extra, MPI_COMM_SELF);
    auto P = make_problem(yaml, ov, MPI_COMM_WORLD);
    UgksSolverDevice ref(R->setup, R->local, R->layout, R->vel, R->blocks);
    UgksSolverDevice par(P->setup, P->local, P->layout, P->vel, P->blocks);
    ref.initialize();
    par.initialize();
    for (long n = 0; n < P->setup.time.steps; ++n) {
        const StepResult a = ref.step();
        const StepResult b = par.step();
        ASSERT_FALSE(a.failed) << a.failure;
        ASSERT_FALSE(b.failed) << b.failure;
        EXPECT_NEAR(a.dt, b.dt, 1e-14 * a.dt);
    }
    // Reference fields at the parallel run's owned cells (the 1-rank local numbering is global).
    const auto fr = ref.fields();
    const auto fp = par.fields();
    std::vector<CellField> sub = fp;
    for (std::size_t k = 0; k < fr.size(); ++k) {
        const int w = fr[k].width;
        for (index_t i = 0; i < P->local.n_owned; ++i)
            for (int c = 0; c < w; ++c)
                sub[k].data[i * w + c] = fr[k].data[P->local.global_cell[i] * w + c];
    }
    double worst = 0.0;
    compare_fields(sub, fp, tol, what, &worst);
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        std::printf("[ %s ] %d ranks, P_v = %d: max relative field difference vs 1 rank %.3e\n",
                    what, world_size(), pv, worst);
}

TEST(DeviceDecomposition, VelocityRanks) {
    invariance(kCavityCase, world_size(), {}, "cavity P_v = np");
}
TEST(DeviceDecomposition, PhysicalRanks) { invariance(kCavityCase, 1, {}, "cavity P_x = np"); }
TEST(DeviceDecomposition, SymmetryVelocityRanks) {
    invariance(kSymmetryCase, world_size(), kSymmetryDecomp, "symmetry P_v = np");
}
TEST(DeviceDecomposition, SymmetryPhysicalRanks) {
    invariance(kSymmetryCase, 1, kSymmetryDecomp, "symmetry P_x = np");
}

TEST(DeviceDecomposition, InterpolatedSymmetryVelocityRanks) {
    // a grid not symmetric about the planes: the interpolated reflection reads the full rows
    // gathered over the velocity ranks (docs/formulation.md section 8.2b)
    std::vector<std::string> ov = kSymmetryDecomp;
    ov.push_back("velocity.offset=[0.15, -0.1]");
    invariance(kSymmetryCase, world_size(), ov, "interpolated symmetry P_v = np");
}
TEST(DeviceDecomposition, InterpolatedSymmetryPhysicalRanks) {
    std::vector<std::string> ov = kSymmetryDecomp;
    ov.push_back("velocity.offset=[0.15, -0.1]");
    invariance(kSymmetryCase, 1, ov, "interpolated symmetry P_x = np");
}

// numerics.storage fp32: the halos move packed floats (DeviceHalo::start/finish<float>), the image
// cells of a pressure jump are rounded as stored; a decomposition changes a sum's last bit only,
// so a field moves by a float ulp (6e-8) where that crosses a rounding boundary: 2e-6.
TEST(DeviceDecomposition, Fp32PhysicalRanks) {
    invariance(kCavityCase, 1, {"numerics.storage=fp32"}, "fp32 cavity P_x = np", 2e-6);
}
TEST(DeviceDecomposition, Fp32OddBlockPhysicalRanks) {
    invariance(kCavityCase, 1, {"numerics.storage=fp32", "parallel.block_size=7"},
               "fp32 cavity B_v 7 P_x = np", 2e-6);
}
TEST(DeviceDecomposition, Fp32VelocityRanks) {
    invariance(kCavityCase, world_size(), {"numerics.storage=fp32"}, "fp32 cavity P_v = np", 2e-6);
}
TEST(DeviceDecomposition, Fp32PressureJumpPhysicalRanks) {
    std::vector<std::string> ov = kPeriodicDecomp;
    ov.push_back("boundaries.xmin.pressure_ratio=1.15");
    ov.push_back("numerics.storage=fp32");
    invariance(kPeriodicCase, 1, ov, "fp32 periodic pressure jump P_x = np", 2e-6);
}

// parallel.halo: cuda_aware (issue 20) against staged on the same decomposition: the halos copy
// the same bytes and the velocity sums go through the same MPI_Allreduce (device buffers instead
// of host copies), so the fields are bitwise equal. Skipped where the MPI library is not
// CUDA-aware or fails the device-buffer self-test (resolve_halo: auto does not pick cuda_aware).
void cuda_aware_same_as_staged(const char* yaml, int pv, std::vector<std::string> extra,
                               const char* what) {
    int local_has = have_device() ? 1 : 0, all_have = 0;
    MPI_Allreduce(&local_has, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) GTEST_SKIP() << "no CUDA device visible";
    // auto picks cuda_aware exactly when the library reports support and the self-test passes
    if (resolve_halo("auto", MPI_COMM_WORLD).mode != HaloMode::cuda_aware)
        GTEST_SKIP() << "the MPI library is not CUDA-aware here";
    extra.push_back("parallel.velocity_ranks=" + std::to_string(pv));
    std::vector<std::string> a = extra, b = extra;
    a.push_back("parallel.halo=staged");
    b.push_back("parallel.halo=cuda_aware");
    auto Pa = make_problem(yaml, a, MPI_COMM_WORLD);
    auto Pb = make_problem(yaml, b, MPI_COMM_WORLD);
    UgksSolverDevice sa(Pa->setup, Pa->local, Pa->layout, Pa->vel, Pa->blocks);
    UgksSolverDevice sb(Pb->setup, Pb->local, Pb->layout, Pb->vel, Pb->blocks);
    EXPECT_STREQ(sb.halo_mode(), "cuda_aware");
    sa.initialize();
    sb.initialize();
    for (long n = 0; n < Pa->setup.time.steps; ++n) {
        ASSERT_FALSE(sa.step().failed);
        ASSERT_FALSE(sb.step().failed);
    }
    expect_identical(sa.fields(), sb.fields(), what);
}
TEST(DeviceDecomposition, CudaAwareVelocityRanksSameAsStaged) {
    cuda_aware_same_as_staged(kCavityCase, world_size(), {}, "cuda_aware cavity P_v = np");
}
TEST(DeviceDecomposition, CudaAwarePhysicalRanksSameAsStaged) {
    cuda_aware_same_as_staged(kPeriodicCase, 1, kPeriodicDecomp, "cuda_aware periodic P_x = np");
}
TEST(DeviceDecomposition, CudaAwareFp32PhysicalRanksSameAsStaged) {
    cuda_aware_same_as_staged(kCavityCase, 1, {"numerics.storage=fp32", "parallel.block_size=7"},
                              "cuda_aware fp32 cavity P_x = np");
}

TEST(DeviceDecomposition, PeriodicPhysicalRanks) {
    invariance(kPeriodicCase, 1, kPeriodicDecomp, "periodic P_x = np");
}

TEST(DeviceDecomposition, PeriodicPressureJumpPhysicalRanks) {
    // images filled from halo ghosts after the pipelined halos of h and the gradients
    std::vector<std::string> ov = kPeriodicDecomp;
    ov.push_back("boundaries.xmin.pressure_ratio=1.15");
    invariance(kPeriodicCase, 1, ov, "periodic pressure jump P_x = np");
}

// parallel.halo explicitly: staged (host MPI) and nccl (device to device, NCCL allreduce for the
// velocity sums; skipped unless every rank has its own GPU).
TEST(DeviceDecomposition, StagedVelocityRanks) {
    invariance(kCavityCase, world_size(), {"parallel.halo=staged"}, "staged cavity P_v = np");
}
TEST(DeviceDecomposition, StagedPhysicalRanks) {
    invariance(kPeriodicCase, 1, {"parallel.halo=staged", "time.steps=15"},
               "staged periodic P_x = np");
}
TEST(DeviceDecomposition, NcclVelocityRanks) {
    if (!nccl_usable()) GTEST_SKIP() << "NCCL needs a build with NCCL and one GPU per rank";
    invariance(kCavityCase, world_size(), {"parallel.halo=nccl"}, "nccl cavity P_v = np");
}
TEST(DeviceDecomposition, NcclPhysicalRanks) {
    if (!nccl_usable()) GTEST_SKIP() << "NCCL needs a build with NCCL and one GPU per rank";
    invariance(kPeriodicCase, 1, {"parallel.halo=nccl", "time.steps=15"}, "nccl periodic P_x = np");
}
TEST(DeviceDecomposition, NcclSymmetryPhysicalRanks) {
    if (!nccl_usable()) GTEST_SKIP() << "NCCL needs a build with NCCL and one GPU per rank";
    std::vector<std::string> ov = kSymmetryDecomp;
    ov.push_back("parallel.halo=nccl");
    invariance(kSymmetryCase, 1, ov, "nccl symmetry P_x = np");
}

// time.mode: steady: the local steps' halo, the face steps, and in the closed cavity the mass
// rescale (sums over comm_x, broadcast over comm_v); the symmetry case is open.
TEST(DeviceDecomposition, SteadyCavityVelocityRanks) {
    invariance(kCavityCase, world_size(), with(kSteady, {"time.steps=15"}),
               "steady cavity P_v = np");
}
TEST(DeviceDecomposition, SteadyCavityPhysicalRanks) {
    invariance(kCavityCase, 1, with(kSteady, {"time.steps=15"}), "steady cavity P_x = np");
}
TEST(DeviceDecomposition, SteadySymmetryPhysicalRanks) {
    invariance(kSymmetryCase, 1, with(kSteady, kSymmetryDecomp), "steady symmetry P_x = np");
}
TEST(DeviceDecomposition, SteadyPeriodicVelocityRanks) {
    invariance(kPeriodicCase, world_size(),
               with(kPeriodicDecomp, {"time.mode=steady", "mesh.box.stretch=[1.0, 1.5]",
                                      "mesh.box.stretch_symmetric=true"}),
               "steady periodic P_v = np");
}

/// CPU and device solver in steady mode on the same world decomposition (velocity_ranks = pv):
/// fields to <= 1e-10 relative after every iteration.
void steady_cpu_vs_device(const char* yaml, int pv, const std::vector<std::string>& extra,
                          const char* what) {
    int local_has = have_device() ? 1 : 0, all_have = 0;
    MPI_Allreduce(&local_has, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) GTEST_SKIP() << "no CUDA device visible";
    std::vector<std::string> ov = with(kSteady, extra);
    ov.push_back("parallel.velocity_ranks=" + std::to_string(pv));
    auto P = make_problem(yaml, ov, MPI_COMM_WORLD);
    UgksSolver cpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    cpu.initialize();
    gpu.initialize();
    double worst = 0.0, step_worst = 0.0;
    for (long n = 0; n < P->setup.time.steps; ++n) {
        const StepResult a = cpu.step();
        const StepResult b = gpu.step();
        ASSERT_FALSE(a.failed) << a.failure;
        ASSERT_FALSE(b.failed) << b.failure;
        EXPECT_NEAR(a.dt, b.dt, 1e-13 * a.dt);
        compare_fields(cpu.fields(), gpu.fields(), 1e-10,
                       std::string(what) + " step " + std::to_string(n + 1), &step_worst);
        worst = std::max(worst, step_worst);
        if (::testing::Test::HasFailure()) break;
    }
    const auto ta = cpu.totals(), tb = gpu.totals();
    for (int e = 0; e < 5; ++e) EXPECT_NEAR(ta[e], tb[e], 1e-11 * (std::abs(ta[0]) + 1.0));
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        std::printf("[ %s ] %d ranks, P_v = %d: max relative field difference CPU vs GPU %.3e\n",
                    what, world_size(), pv, worst);
}

TEST(DeviceDecomposition, SteadyCavityPhysicalRanksMatchesCpu) {
    steady_cpu_vs_device(kCavityCase, 1, {"time.steps=15"}, "steady cavity CPU vs GPU P_x = np");
}
TEST(DeviceDecomposition, SteadySymmetryVelocityRanksMatchesCpu) {
    steady_cpu_vs_device(kSymmetryCase, world_size(), kSymmetryDecomp,
                         "steady symmetry CPU vs GPU P_v = np");
}

/// Identical bytes in two runs on the same decomposition with NCCL halos and allreduce (P_v = np
/// and P_x = np): NCCL's ring reduction has a fixed order for a fixed communicator and size.
TEST(DeviceDecomposition, NcclRunTwiceGivesIdenticalBytes) {
    if (!nccl_usable()) GTEST_SKIP() << "NCCL needs a build with NCCL and one GPU per rank";
    for (int pv : {world_size(), 1}) {
        auto P = make_problem(
            kCavityCase, {"parallel.halo=nccl", "parallel.velocity_ranks=" + std::to_string(pv)},
            MPI_COMM_WORLD);
        std::vector<std::vector<CellField>> out;
        for (int run = 0; run < 2; ++run) {
            UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
            EXPECT_STREQ(gpu.halo_mode(), "nccl");
            gpu.initialize();
            for (int n = 0; n < 10; ++n) ASSERT_FALSE(gpu.step().failed);
            out.push_back(gpu.fields());
        }
        expect_identical(out[0], out[1], "nccl P_v = " + std::to_string(pv));
    }
}

}  // namespace

// The implicit steady iteration (docs/steady.md section 7) of the device solver on 2 ranks:
//  - P_v = 2: the macroscopic prediction is replicated, the microscopic update is per velocity and
//    Q is summed over comm_v, so the iterates are the serial ones (vs the 1-rank device run and
//    the 1-rank CPU run, colored ordering);
//  - P_x = 2: the sweeps run over each rank's owned cells (block Jacobi across ranks), so the
//    iterates depend on P_x; they match the CPU solver on the same 2-rank decomposition.
// Skips without a visible CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "device_problem.hpp"

namespace {

using namespace ugks;
using namespace ugks::test;

const std::vector<std::string> kImplicit = {"time.mode=steady",
                                            "time.steady_method=implicit",
                                            "time.implicit.ordering=colored",
                                            "mesh.box.stretch=[1.4, 1.4]",
                                            "mesh.box.stretch_symmetric=true",
                                            "time.steps=10"};

int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}
int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

bool all_have_device() {
    int local_has = have_device() ? 1 : 0, all_have = 0;
    MPI_Allreduce(&local_has, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_have != 0;
}

/// Fields of a 1-rank run at the owned cells of the decomposed problem P (global ids).
std::vector<CellField> at_owned(const std::vector<CellField>& ref,
                                const std::vector<CellField>& like, const Problem& P) {
    std::vector<CellField> sub = like;
    for (std::size_t k = 0; k < ref.size(); ++k) {
        const int w = ref[k].width;
        for (index_t i = 0; i < P.local.n_owned; ++i)
            for (int c = 0; c < w; ++c)
                sub[k].data[i * w + c] = ref[k].data[P.local.global_cell[i] * w + c];
    }
    return sub;
}

/// P_v = np: the device run on the world against the 1-rank device and CPU runs (each rank
/// computes them on MPI_COMM_SELF), after every iteration.
void velocity_ranks_serial(const char* yaml, const std::vector<std::string>& extra,
                           const char* what) {
    if (!all_have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto R = make_problem(yaml, extra, MPI_COMM_SELF);
    auto P =
        make_problem(yaml, with(extra, {"parallel.velocity_ranks=" + std::to_string(world_size())}),
                     MPI_COMM_WORLD);
    ASSERT_EQ(P->layout.P_v, world_size());
    UgksSolver cpu(R->setup, R->local, R->layout, R->vel, R->blocks);
    UgksSolverDevice ref(R->setup, R->local, R->layout, R->vel, R->blocks);
    UgksSolverDevice par(P->setup, P->local, P->layout, P->vel, P->blocks);
    cpu.initialize();
    ref.initialize();
    par.initialize();
    double worst_ref = 0.0, worst_cpu = 0.0, w = 0.0;
    for (long n = 0; n < P->setup.time.steps; ++n) {
        const StepResult a = cpu.step(), b = ref.step(), c = par.step();
        ASSERT_FALSE(a.failed || b.failed || c.failed) << a.failure << b.failure << c.failure;
        const auto fp = par.fields();
        const std::string step = std::string(what) + " step " + std::to_string(n + 1);
        compare_fields(at_owned(ref.fields(), fp, *P), fp, 1e-11, step + " vs 1-rank device", &w);
        worst_ref = std::max(worst_ref, w);
        compare_fields(at_owned(cpu.fields(), fp, *P), fp, 1e-10, step + " vs 1-rank CPU", &w);
        worst_cpu = std::max(worst_cpu, w);
        for (int k = 0; k < 3; ++k)
            EXPECT_NEAR(b.residual[k], c.residual[k], 1e-9 * b.residual[k]) << step;
        if (::testing::Test::HasFailure()) break;
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst_ref, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &worst_cpu, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank() == 0)
        std::printf(
            "[ %s ] %d ranks, P_v = %d: max relative field difference vs the 1-rank device run "
            "%.3e, vs the 1-rank CPU run %.3e\n",
            what, world_size(), P->layout.P_v, worst_ref, worst_cpu);
}

/// P_x = np: CPU and device solver on the same decomposition of the world, after every iteration.
void physical_ranks_cpu(const char* yaml, const std::vector<std::string>& extra, const char* what) {
    if (!all_have_device()) GTEST_SKIP() << "no CUDA device visible";
    auto P = make_problem(yaml, with(extra, {"parallel.velocity_ranks=1"}), MPI_COMM_WORLD);
    ASSERT_EQ(P->layout.P_x, world_size());
    UgksSolver cpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    UgksSolverDevice gpu(P->setup, P->local, P->layout, P->vel, P->blocks);
    cpu.initialize();
    gpu.initialize();
    double worst = 0.0, w = 0.0;
    for (long n = 0; n < P->setup.time.steps; ++n) {
        const StepResult a = cpu.step(), b = gpu.step();
        ASSERT_FALSE(a.failed || b.failed) << a.failure << b.failure;
        EXPECT_NEAR(a.dt, b.dt, 1e-13 * a.dt);
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.residual[k], b.residual[k], 1e-9 * a.residual[k]);
        compare_fields(cpu.fields(), gpu.fields(), 1e-10,
                       std::string(what) + " step " + std::to_string(n + 1), &w);
        worst = std::max(worst, w);
        if (::testing::Test::HasFailure()) break;
    }
    const auto ta = cpu.totals(), tb = gpu.totals();
    for (int e = 0; e < 5; ++e) EXPECT_NEAR(ta[e], tb[e], 1e-11 * (std::abs(ta[0]) + 1.0));
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank() == 0)
        std::printf("[ %s ] %d ranks, P_x = %d: max relative field difference CPU vs GPU %.3e\n",
                    what, world_size(), P->layout.P_x, worst);
}

TEST(DeviceImplicitDecomposition, CavityVelocityRanksGiveSerialValues) {
    velocity_ranks_serial(kCavityCase, kImplicit, "implicit cavity");
}
TEST(DeviceImplicitDecomposition, SymmetryVelocityRanksGiveSerialValues) {
    velocity_ranks_serial(kSymmetryCase, with(kImplicit, {"parallel.block_size=8"}),
                          "implicit symmetry");
}
TEST(DeviceImplicitDecomposition, CavityPhysicalRanksMatchCpu) {
    physical_ranks_cpu(kCavityCase, kImplicit, "implicit cavity");
}
// macro_solver gmres with a fixed number of Krylov steps (see test_device_implicit.cpp): inner
// products summed over comm_x on both backends.
const std::vector<std::string> kGmres = {
    "time.implicit.macro_solver=gmres", "time.implicit.gmres_tolerance=1e-14",
    "time.implicit.gmres_max_iterations=12", "time.implicit.gmres_restart=8"};
TEST(DeviceImplicitDecomposition, GmresCavityPhysicalRanksMatchCpu) {
    physical_ranks_cpu(kCavityCase, with(kImplicit, kGmres), "implicit gmres cavity");
}
TEST(DeviceImplicitDecomposition, GmresCavityVelocityRanksGiveSerialValues) {
    velocity_ranks_serial(kCavityCase, with(kImplicit, kGmres), "implicit gmres cavity");
}
TEST(DeviceImplicitDecomposition, SymmetryPhysicalRanksMatchCpu) {
    physical_ranks_cpu(kSymmetryCase, kImplicit, "implicit symmetry");
}
TEST(DeviceImplicitDecomposition, PeriodicPhysicalRanksMatchCpu) {
    physical_ranks_cpu(
        kPeriodicCase,
        {"time.mode=steady", "time.steady_method=implicit", "mesh.box.stretch=[1.0, 1.5]",
         "mesh.box.stretch_symmetric=true", "time.steps=10"},
        "implicit periodic");
}

}  // namespace

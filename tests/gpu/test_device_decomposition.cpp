// Decomposition invariance of the device solver (issue 4): the cavity case on 2 ranks with
// (P_x, P_v) = (1, 2) and (2, 1) against the same case on one rank (each rank computes the 1-rank
// reference itself on MPI_COMM_SELF, on the same device), owned cells matched by global id, fields
// equal to <= 1e-11 relative. Skips without a visible CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "device_problem.hpp"

namespace {

using namespace ugks;
using namespace ugks::test;

const char* kCase = R"(
name: gpu_decomposition
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

// A second case with symmetry planes, a far field and an outflow (mirror pairs across P_v).
const char* kSymmetry = R"(
name: gpu_decomposition_symmetry
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
numerics: {order: 2, limiter: venkatakrishnan}
time: {steps: 15}
parallel: {block_size: 8}
output: {directory: out_unused, every: 0}
)";

// Periodic in x: ghosts across the periodic faces and the shifted geometric vectors.
const char* kPeriodic = R"(
name: gpu_decomposition_periodic
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
time: {steps: 15}
parallel: {block_size: 16}
output: {directory: out_unused, every: 0}
)";

int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

/// Device run on the world with velocity_ranks = pv vs the 1-rank device run.
void invariance(const char* yaml, int pv, const std::vector<std::string>& extra, const char* what) {
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
    compare_fields(sub, fp, 1e-11, what, &worst);
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        std::printf("[ %s ] %d ranks, P_v = %d: max relative field difference vs 1 rank %.3e\n",
                    what, world_size(), pv, worst);
}

TEST(DeviceDecomposition, VelocityRanks) { invariance(kCase, world_size(), {}, "cavity P_v = np"); }
TEST(DeviceDecomposition, PhysicalRanks) { invariance(kCase, 1, {}, "cavity P_x = np"); }
TEST(DeviceDecomposition, SymmetryVelocityRanks) {
    invariance(kSymmetry, world_size(), {}, "symmetry P_v = np");
}
TEST(DeviceDecomposition, SymmetryPhysicalRanks) {
    invariance(kSymmetry, 1, {}, "symmetry P_x = np");
}

TEST(DeviceDecomposition, PeriodicPhysicalRanks) {
    invariance(kPeriodic, 1, {}, "periodic P_x = np");
}

}  // namespace

// Decomposition invariance of a periodic case (issue 3): the fully periodic box of
// tests/regression/periodic/case.yaml (moving block, mean flow, and a body force
// forces.acceleration, issue 17) for 30 steps under 1 rank, then
// (P_x, P_v) = (2, 1), (1, 2) on 2 ranks and (4, 1), (2, 2) on 4 ranks, fields equal to <= 1e-11
// relative. With P_x > 1 some periodic faces join cells of different ranks: their neighbours are
// ghosts filled by the halo exchange, seen at the shifted image on the owning rank.
//
// Why 1e-11: as in test_decomposition.cpp, only the order of floating-point sums changes with the
// decomposition (velocity sums over ranks); halo copies are exact. A ghost missing across a
// periodic face or a local shift with the wrong sign shows up at 1e-3 or more (the seam cells'
// gradients change by O(1)).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

/// The periodic box with the overrides `common`: on 1 rank the serial reference into the build
/// tree's folder `ref_name`, on 2 and 4 ranks every (P_x, P_v) against it.
void periodic_split(const std::vector<std::string>& common, const std::string& ref_name);

TEST(DecompositionPeriodic, FieldsIndependentOfPartition) {
    periodic_split({"time.steps=30", "forces.acceleration=[0.1, -0.05]"},
                   "decomposition_periodic_reference");
}

// Both pairs with a pressure jump (docs/formulation.md section 8.6): the seam cells see image
// cells filled from local cells (owned or ghosts), the corner cells images of two pairs, and a
// jump face's partner face takes its flux from the jump face on the rank that owns the partner.
TEST(DecompositionPeriodic, PressureJumpIndependentOfPartition) {
    periodic_split({"time.steps=30", "boundaries.xmin.pressure_ratio=1.1",
                    "boundaries.ymax.pressure_ratio=0.95"},
                   "decomposition_periodic_jump_reference");
}

void periodic_split(const std::vector<std::string>& common, const std::string& ref_name) {
    int np = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ASSERT_TRUE(np == 1 || np == 2 || np == 4) << "run under mpiexec -n 1, 2 or 4";
    const std::string case_path = case_file("periodic");
    const std::string ref_dir = std::string(UGKS_REGRESSION_BINARY_DIR) + "/" + ref_name;
    if (np == 1) {
        fresh_reference_dir(ref_dir);
        const SolverRun ref = run_solver(case_path, common, "decomposition_periodic_ref", ref_dir);
        ASSERT_TRUE(run_completed(ref, 30)) << "serial reference";
        return;
    }
    ASSERT_TRUE(std::filesystem::exists(ref_dir + "/fields_final.h5"))
        << "no serial reference in " << ref_dir
        << ": run ugks_test_regression_decomposition_np1 first";
    const Fields ref = read_fields(ref_dir);
    ASSERT_EQ(ref.n, 120u);
    double worst = 0;
    for (int Pv = 1; Pv <= 2; ++Pv) {
        const std::string what = "P_x " + std::to_string(np / Pv) + " x P_v " + std::to_string(Pv);
        SCOPED_TRACE(what);
        std::vector<std::string> ov = common;
        ov.push_back("parallel.velocity_ranks=" + std::to_string(Pv));
        const SolverRun run = run_solver(case_path, ov, "decomposition_periodic");
        ASSERT_TRUE(run_completed(run, 30));
        const Fields f = read_fields(run.dir);
        ASSERT_EQ(f.n, ref.n);
        EXPECT_EQ(f.centroid, ref.centroid) << "global cell order";
        const std::pair<const char*, std::vector<double> Fields::*> fields[] = {
            {"rho", &Fields::rho}, {"U", &Fields::U}, {"T", &Fields::T}, {"q", &Fields::q}};
        for (const auto& [name, member] : fields) {
            const int width = (f.*member).size() == f.n ? 1 : 3;
            for (int c = 0; c < (width == 3 ? 2 : 1); ++c) {
                const double d =
                    max_rel_diff(component(f.*member, width, c), component(ref.*member, width, c));
                EXPECT_LE(d, 1e-11) << what << ": field " << name << " component " << c;
                worst = std::max(worst, d);
            }
        }
        if (!::testing::Test::HasFailure()) remove_output(run.dir);
    }
    if (world_rank() == 0)
        std::printf(
            "periodic decomposition (%s): %d ranks, largest relative field deviation from the "
            "serial reference %.2e\n",
            ref_name.c_str(), np, worst);
}

}  // namespace

// The X-38-like lifting body of cases/x38_like (issue 19) at CI size: the committed coarse mesh
// (2 865 tetrahedra, half model), 500 points of the unstructured velocity set, first order, the
// implicit steady iteration to the case's tolerance. The bounds on C_D and C_L come from the
// converged runs of docs/production.md "First runs" (the same mesh with 500, 1 000, 3 000
// unstructured points and 19 440 tensor points: C_D 0.4485-0.4515, C_L 0.2180-0.2197); a wrong wall
// force, reference area, angle of attack or free stream moves them by far more than the 1.5 % band.
#include <gtest/gtest.h>

#include <string>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

TEST(ProductionCases, X38LikeCoarseConvergesToTheRecordedCoefficients) {
    const std::string case_path =
        std::string(UGKS_REGRESSION_SOURCE_DIR) + "/../../cases/x38_like/x38_like.yaml";
    const SolverRun run = run_solver(case_path,
                                     {"mesh.file=x38_like_coarse.msh", "velocity.target_points=500",
                                      "numerics.order=1", "time.steps=200"},
                                     "x38_like_coarse");
    ASSERT_EQ(run.code, 0) << "the steady run did not converge (exit 5) or failed";
    const auto j = read_summary(run.dir);
    EXPECT_TRUE(j["steady"]["converged"].get<bool>());
    EXPECT_LE(j["steps"].get<long>(), 150);
    const double cd = j["walls"]["CD"].get<double>(), cl = j["walls"]["CL"].get<double>();
    EXPECT_GT(cd, 0.445);
    EXPECT_LT(cd, 0.457);
    EXPECT_GT(cl, 0.215);
    EXPECT_LT(cl, 0.223);
    EXPECT_GT(cl / cd, 0.47);  // L/D of the converged runs: 0.484-0.490
    EXPECT_LT(cl / cd, 0.50);
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

}  // namespace

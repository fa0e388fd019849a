// Symmetry planes on a velocity grid with padding slots (CPU sweep).
//
// The conservation box (tests/regression/conservation/case.yaml) with all four walls symmetry
// planes: 12 x 12 Gauss-Hermite velocities = 144 points in blocks of B_v = 32, so the last block
// ends with 16 padding slots (velocity 0, weight 0) that have no mirror image (mirror slot -1). At
// a symmetry face the incoming half of the distribution is the mirror image of the outgoing half; a
// padding slot has no such image and must take no incident value. Reading one anyway (the mirror
// slot -1 taken as an offset into the row of stored outgoing values) reads just before the row: for
// the first symmetry face, before the whole array.
//
// In a plain build such a read returns whatever lies there and the padding slot multiplies it by
// u_n = 0 and weight 0, so the totals do not show it. This executable therefore links
// guarded_new.cpp: every heap block is fenced by bytes that read as NaN, which a read outside the
// array returns and which survives the multiplication by 0 (0 * NaN = NaN), so the run fails as a
// numerical failure or its fields are not finite. Under AddressSanitizer ASan reports the read.
//
// Two steps: the first sweep already reads every symmetry face.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

constexpr int kN = 3;  // N = 3 + K_int, monatomic

const std::vector<std::string> kOverrides = {
    "boundaries.xmin={type: symmetry}", "boundaries.xmax={type: symmetry}",
    "boundaries.ymin={type: symmetry}", "boundaries.ymax={type: symmetry}", "time.steps=2"};

bool all_finite(const std::vector<double>& v) {
    for (double x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

TEST(SymmetryPadding, PaddingSlotsTakeNoIncidentValue) {
    const SolverRun run = run_solver(case_file("conservation"), kOverrides, "symmetry_padding");
    ASSERT_TRUE(run_completed(run, 2));

    // The case must leave padding slots, or it tests nothing.
    const auto s = read_summary(run.dir);
    const long points = s["velocity"]["points"].get<long>();
    const long slots =
        s["decomposition"]["velocity_blocks"].get<long>() * s["decomposition"]["B_v"].get<long>();
    ASSERT_EQ(points, 144);
    ASSERT_GT(slots, points) << "no padding slots in the last velocity block";

    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, 120u);
    for (const auto& nf : kComparedFields)
        EXPECT_TRUE(all_finite(f.*nf.member)) << "field " << nf.name << " is not finite";

    // Mass and energy through four symmetry planes: zero to round-off (test_conservation.cpp). The
    // initial totals: (rho, T) = (2, 1.5) in [0.2, 0.6] x [0.3, 0.8], (1, 1) elsewhere, at rest.
    double m0 = 0, e0 = 0;
    for (std::size_t i = 0; i < f.n; ++i) {
        const bool in =
            f.x(i, 0) >= 0.2 && f.x(i, 0) <= 0.6 && f.x(i, 1) >= 0.3 && f.x(i, 1) <= 0.8;
        const double rho = in ? 2.0 : 1.0, T = in ? 1.5 : 1.0;
        m0 += f.volume[i] * rho;
        e0 += f.volume[i] * 0.25 * kN * rho * T;
    }
    const auto t1 = totals(f, kN);
    EXPECT_NEAR(t1[0] / m0, 1.0, 1e-13) << "total mass";
    EXPECT_NEAR(t1[4] / e0, 1.0, 1e-13) << "total energy";
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

}  // namespace

// Steady-state acceleration by local time steps (issue 8, docs/steady.md).
//
// LocalStepsReachTheTransientSteadyState: the stretched cavity of case.yaml (12 x 12 cells refined
// towards the walls, local CFL bounds differing by 4.8x) run to residuals < 1e-8 with
// time.mode: transient (global step) and time.mode: steady (local steps). Local stepping only
// changes the time step inside the face's UGKS coefficients (the rates F_f/dt_f, Phi_f/dt_f), so
// the two steady states differ by the dt dependence of the UGKS flux, a (dt_f - dt)/2 multiple of
// the discrete kinetic residual at the faces (docs/steady.md). Measured (commit of this test):
// centre-line velocities differ by 1.50e-3 U_w (u on x = 0.5) and 6.3e-4 U_w (v on y = 0.5);
// for comparison the transient steady state itself moves by 1.20e-3 U_w when its global step is
// halved (CFL 0.25), and the local-step one by 1.9e-3 U_w. Bound 2.5e-3 U_w (0.25 %; the issue
// asks 0.5 %). Steps: 2217 steady vs 5578 transient (ratio 2.5); asserted >= 2.
//
// The implicit iteration (time.steady_method: implicit) is checked in the first test against the
// local-step steady state (same discrete steady residual), and by the two parameterized tests
// (mass of a closed box, restart) with both methods.
//
// ClosedCavityKeepsMass: local steps do not conserve mass step by step (a face's flux rate is
// multiplied by two different cell steps); the closed-domain correction scales the state back to
// the initial mass, so the total mass of a closed box stays at its initial value to round-off
// while the gas moves (the hot dense block of the decomposition case, stretched mesh). Measured:
// relative change 1.1e-14 (rounding of the per-step scaling); with the correction switched off the
// box loses 2.8 % of its mass in these 200 iterations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

constexpr double kLid = 0.148322;

// Centre-line velocity: component `comp` averaged over the two cell columns (axis) next to the
// centre 0.5 (a cell face on this symmetric mesh), per position along the other axis.
std::vector<double> centreline(const Fields& f, int axis, int comp) {
    std::vector<double> c;
    for (std::size_t i = 0; i < f.n; ++i) c.push_back(f.x(i, axis));
    std::sort(c.begin(), c.end());
    c.erase(
        std::unique(c.begin(), c.end(), [](double a, double b) { return std::abs(a - b) < 1e-12; }),
        c.end());
    const std::size_t m = c.size() / 2;
    std::map<long long, std::pair<double, int>> acc;
    for (std::size_t i = 0; i < f.n; ++i) {
        const double a = f.x(i, axis);
        if (std::abs(a - c[m - 1]) > 1e-12 && std::abs(a - c[m]) > 1e-12) continue;
        auto& e = acc[std::llround(f.x(i, 1 - axis) * 1e9)];
        e.first += f.U[3 * i + comp];
        e.second += 1;
    }
    std::vector<double> v;
    for (const auto& kv : acc) v.push_back(kv.second.first / kv.second.second);
    return v;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double d = a.size() == b.size() ? 0.0 : HUGE_VAL;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        d = std::max(d, std::abs(a[i] - b[i]));
    return d;
}

TEST(Steady, LocalStepsReachTheTransientSteadyState) {
    const SolverRun tr =
        run_solver(case_file("steady"), {"time.mode=transient"}, "steady_transient");
    ASSERT_TRUE(run_completed(tr));
    const SolverRun st = run_solver(case_file("steady"), {}, "steady_local");
    ASSERT_TRUE(run_completed(st));
    const SolverRun im =
        run_solver(case_file("steady"), {"time.steady_method=implicit"}, "steady_implicit");
    ASSERT_TRUE(run_completed(im));
    const long n_tr = summary_steps(tr.dir), n_st = summary_steps(st.dir);
    ASSERT_LT(n_tr, 40000) << "transient run did not reach the tolerance";
    ASSERT_LT(n_st, 40000) << "steady run did not reach the tolerance";
    EXPECT_EQ(read_summary(st.dir).value("time_mode", ""), "steady");
    // summary.json says that the tolerance ended the runs (issue 25)
    for (const SolverRun* r : {&tr, &st, &im}) {
        const auto s = read_summary(r->dir);
        ASSERT_TRUE(s.contains("steady")) << r->dir;
        EXPECT_EQ(s["steady"].value("converged", false), true) << r->dir;
        EXPECT_EQ(s["steady"].value("stopped_by", ""), "steady_tolerance") << r->dir;
    }
    const Fields a = read_fields(tr.dir), b = read_fields(st.dir);
    ASSERT_EQ(a.n, 144u);
    const double du = max_diff(centreline(a, 0, 0), centreline(b, 0, 0)) / kLid;
    const double dv = max_diff(centreline(a, 1, 1), centreline(b, 1, 1)) / kLid;
    double mass_a = 0, mass_b = 0;
    for (std::size_t i = 0; i < a.n; ++i) mass_a += a.rho[i] * a.volume[i];
    for (std::size_t i = 0; i < b.n; ++i) mass_b += b.rho[i] * b.volume[i];
    std::printf(
        "steady cavity: %ld transient steps, %ld local-step iterations (ratio %.2f); centre lines "
        "max |du|/U_w %.3e, |dv|/U_w %.3e; mass %.15f / %.15f\n",
        n_tr, n_st, static_cast<double>(n_tr) / n_st, du, dv, mass_a, mass_b);
    EXPECT_LE(du, 2.5e-3) << "u on x = 0.5";
    EXPECT_LE(dv, 2.5e-3) << "v on y = 0.5";
    EXPECT_GE(static_cast<double>(n_tr) / static_cast<double>(n_st), 2.0);
    EXPECT_NEAR(mass_b, 1.0, 1e-12);
    // The implicit iteration drives the same steady residual (the local-step face rates) to zero,
    // so it must reach the local-step steady state itself, up to the residual tolerance, in far
    // fewer iterations (docs/steady.md section 7).
    const long n_im = summary_steps(im.dir);
    const Fields c = read_fields(im.dir);
    double mass_c = 0;
    for (std::size_t i = 0; i < c.n; ++i) mass_c += c.rho[i] * c.volume[i];
    const double iu = max_diff(centreline(c, 0, 0), centreline(b, 0, 0)) / kLid;
    const double iv = max_diff(centreline(c, 1, 1), centreline(b, 1, 1)) / kLid;
    const double irho = max_rel_diff(c.rho, b.rho), iT = max_rel_diff(c.T, b.T);
    std::printf(
        "implicit: %ld iterations (local steps / implicit %.1f); against the local-step steady "
        "state: centre lines max |du|/U_w %.3e, |dv|/U_w %.3e, rho %.2e, T %.2e relative; mass "
        "%.15f\n",
        n_im, static_cast<double>(n_st) / n_im, iu, iv, irho, iT, mass_c);
    EXPECT_LE(iu, 1e-5) << "u on x = 0.5";
    EXPECT_LE(iv, 1e-5) << "v on y = 0.5";
    EXPECT_LE(irho, 1e-6);
    EXPECT_LE(iT, 1e-6);
    EXPECT_GE(static_cast<double>(n_st) / static_cast<double>(n_im), 10.0);
    EXPECT_NEAR(mass_c, 1.0, 1e-12);
    if (!::testing::Test::HasFailure()) {
        remove_output(tr.dir);
        remove_output(st.dir);
        remove_output(im.dir);
    }
}

// ImplicitSphereConverges: the Ma 4.25 sphere of cases/sphere_ma4.25_kn0.121 on the committed
// coarse mesh (1282 cells, 972 velocities), first order (sphere.yaml). docs/steady.md section 7.9:
// with the second-order limited scheme and the live limiter the residual of every method
// (transient, local steps, implicit) ends in a limit cycle at ~1e-2 on this mesh while the drag
// converges (a frozen limiter: ImplicitSphereFrozenLimiter); without the
// limiter the implicit iteration with the default keys (pseudo CFL 1000, 2 + 2 natural sweep pairs)
// reaches residuals < 1e-6 from the impulsive start (free stream everywhere, hot wall) in 49
// iterations (54 with the colored order of the CUDA backend; bound 70), and its drag (wall force
// along x, summary.json walls.force: 2.525616) matches the one of the local-step iteration from the
// same start (time.steady_method: local: 2.5256157 after 5241 steps at residual 8.9e-5) within
// 0.5 %. A different steady state (e.g. the quadrature of 392 velocities:
// 2.6436) misses by far more.
TEST(Steady, ImplicitSphereConverges) {
    const SolverRun run = run_solver(case_file("steady", "sphere.yaml"), {}, "steady_sphere");
    ASSERT_TRUE(run_completed(run));
    const auto s = read_summary(run.dir);
    const long n = summary_steps(run.dir);
    const double fx = s["walls"]["force"][0].get<double>();
    const double rmax = std::max({s["final_residuals"]["rho"].get<double>(),
                                  s["final_residuals"]["rhoU"].get<double>(),
                                  s["final_residuals"]["rhoE"].get<double>()});
    constexpr double kLocalFx = 2.52562;  // local steps, sphere.yaml
    std::printf(
        "implicit sphere: %ld iterations, residual %.2e, F_x %.8f (local steps %.8f, "
        "relative difference %.2e)\n",
        n, rmax, fx, kLocalFx, fx / kLocalFx - 1.0);
    EXPECT_LT(rmax, 1e-6) << "did not converge";
    EXPECT_LE(n, 70);
    EXPECT_NEAR(fx / kLocalFx, 1.0, 5e-3) << "drag against the local-step steady state";
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

// ImplicitSphereFrozenLimiter: the same sphere with the second-order limited scheme and the
// default keys (time.limiter_freeze: auto, docs/steady.md section 7.10). With the live limiter the
// residual of the implicit iteration stays in a limit cycle at ~1e-2 from iteration ~20 on
// (--set time.limiter_freeze=off). The auto rule freezes the limiter once the smallest residual
// stalls (after iteration 44); measured: residual 9.9e-3, 1.4e-3, 3.7e-4 after 50, 150, 200
// iterations, stalling at 1.7e-4 from 300 on. The drag after 200: 2.32577 (the local-step
// iteration with a frozen limiter, 4000 steps to residual 6.3e-5: 2.32724).
TEST(Steady, ImplicitSphereFrozenLimiter) {
    const SolverRun run = run_solver(case_file("steady", "sphere.yaml"),
                                     {"numerics.order=2", "time.steps=200"}, "steady_sphere2");
    ASSERT_TRUE(run_completed(run, 200));
    const auto s = read_summary(run.dir);
    ASSERT_TRUE(s.contains("steady"));
    const auto& st = s["steady"];
    ASSERT_TRUE(st["limiter_frozen_after_step"].is_number()) << "the auto rule did not freeze";
    const long at = st["limiter_frozen_after_step"].get<long>();
    const double fx = s["walls"]["force"][0].get<double>();
    const double rmax = std::max({s["final_residuals"]["rho"].get<double>(),
                                  s["final_residuals"]["rhoU"].get<double>(),
                                  s["final_residuals"]["rhoE"].get<double>()});
    constexpr double kLocalFx = 2.32724;  // local steps, frozen limiter, residual 6.3e-5
    std::printf(
        "second-order sphere: limiter frozen after %ld, residual %.2e, F_x %.6f (local "
        "steps %.5f)\n",
        at, rmax, fx, kLocalFx);
    EXPECT_GE(at, 10);
    EXPECT_LE(at, 80);
    EXPECT_LT(rmax, 1e-3) << "the live limiter's limit cycle stays at ~1e-2";
    EXPECT_NEAR(fx / kLocalFx, 1.0, 2e-3) << "drag against the local-step steady state";
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

class SteadyMethod : public ::testing::TestWithParam<std::string> {};

TEST_P(SteadyMethod, ClosedCavityKeepsMass) {
    // The decomposition case (dense hot block, lid, one hot wall) on a stretched mesh.
    const SolverRun run =
        run_solver(case_file("decomposition"),
                   {"time.mode=steady", "time.steady_method=" + GetParam(), "time.steps=200",
                    "mesh.box.stretch=[1.4, 1.4]", "mesh.box.stretch_symmetric=true"},
                   "steady_mass");
    ASSERT_TRUE(run_completed(run, 200));
    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, 120u);
    // initial mass: rho = 1.5 in the block [0.2, 0.6] x [0.3, 0.8] (cell centroids), 1 elsewhere
    double m0 = 0, m1 = 0, mom = 0;
    for (std::size_t i = 0; i < f.n; ++i) {
        const bool in =
            f.x(i, 0) >= 0.2 && f.x(i, 0) <= 0.6 && f.x(i, 1) >= 0.3 && f.x(i, 1) <= 0.8;
        m0 += f.volume[i] * (in ? 1.5 : 1.0);
        m1 += f.volume[i] * f.rho[i];
        mom += f.volume[i] * f.rho[i] * std::hypot(f.U[3 * i], f.U[3 * i + 1]);
    }
    std::printf("steady closed box: mass %.16f, initial %.16f, relative change %.2e\n", m1, m0,
                m1 / m0 - 1.0);
    EXPECT_NEAR(m1 / m0, 1.0, 1e-12) << "total mass";
    EXPECT_GT(mom, 1e-3 * m0) << "the gas moves";
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

// A steady run interrupted by a checkpoint and continued with --restart latest ends with the same
// bits as the uninterrupted run (the closed-domain correction keeps no state outside the
// checkpoint).
TEST_P(SteadyMethod, RestartContinuesBitForBit) {
    const std::vector<std::string> ov = {"time.mode=steady", "time.steady_method=" + GetParam(),
                                         "mesh.box.stretch=[1.3, 1.3]",
                                         "mesh.box.stretch_symmetric=true"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), ov.begin(), ov.end());
        return more;
    };
    const SolverRun full =
        run_solver(case_file("decomposition"), with({"time.steps=40"}), "steady_full");
    ASSERT_TRUE(run_completed(full, 40));
    const SolverRun part = run_solver(
        case_file("decomposition"), with({"time.steps=20", "checkpoint.every=20"}), "steady_part");
    ASSERT_TRUE(run_completed(part, 20));
    ugks::CommandLine cl;
    cl.case_file = case_file("decomposition");
    cl.overrides = with({"output.directory=" + part.dir, "time.steps=40"});
    cl.restart = "latest";
    cl.quiet = true;
    ASSERT_EQ(ugks::run_case(cl), 0);
    ASSERT_EQ(summary_steps(part.dir), 40);
    const Fields a = read_fields(full.dir), b = read_fields(part.dir);
    EXPECT_EQ(a.rho, b.rho);
    EXPECT_EQ(a.U, b.U);
    EXPECT_EQ(a.T, b.T);
    EXPECT_EQ(a.q, b.q);
    if (!::testing::Test::HasFailure()) {
        remove_output(full.dir);
        remove_output(part.dir);
    }
}

// The frozen limiter factors (time.limiter_freeze, docs/steady.md section 7.10) are part of the
// resumable state: frozen after step 5, checkpointed after step 20 and continued to 40, the run
// ends with the same bits as the uninterrupted one; continued with the factors dropped
// (time.limiter_freeze: off) it does not (so the stored factors are what makes the two agree).
TEST_P(SteadyMethod, FrozenLimiterRestartsBitForBit) {
    // steady_tolerance (not reached: exit 5) so that summary.json has its "steady" record
    const std::vector<std::string> ov = {"time.mode=steady", "time.steady_method=" + GetParam(),
                                         "time.limiter_freeze=5", "time.steady_tolerance=1e-14"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), ov.begin(), ov.end());
        return more;
    };
    const SolverRun full =
        run_solver(case_file("decomposition"), with({"time.steps=40"}), "freeze_full");
    ASSERT_TRUE(run_completed(full, 40));
    EXPECT_EQ(read_summary(full.dir)["steady"]["limiter_frozen_after_step"], 5);
    const SolverRun part = run_solver(
        case_file("decomposition"), with({"time.steps=20", "checkpoint.every=20"}), "freeze_part");
    ASSERT_TRUE(run_completed(part, 20));
    auto resume = [&](const std::string& dir, const std::string& freeze) {
        ugks::CommandLine cl;
        cl.case_file = case_file("decomposition");
        cl.overrides = with({"output.directory=" + dir, "time.steps=40"});
        cl.overrides.push_back("time.limiter_freeze=" + freeze);
        cl.restart = part.dir + "/checkpoint_000020.h5";
        cl.new_run = true;
        cl.quiet = true;
        return ugks::run_case(cl);
    };
    const std::string live = ugks::test::temp_dir("freeze_live");
    ASSERT_EQ(resume(part.dir, "5"), ugks::kExitNotConverged);
    ASSERT_EQ(resume(live, "off"), ugks::kExitNotConverged);
    EXPECT_EQ(read_summary(part.dir)["steady"]["limiter_frozen_after_step"], 5);
    EXPECT_TRUE(read_summary(live)["steady"]["limiter_frozen_after_step"].is_null());
    const Fields a = read_fields(full.dir), b = read_fields(part.dir), c = read_fields(live);
    EXPECT_EQ(a.rho, b.rho);
    EXPECT_EQ(a.U, b.U);
    EXPECT_EQ(a.T, b.T);
    EXPECT_EQ(a.q, b.q);
    EXPECT_NE(a.rho, c.rho) << "the stored factors made no difference";
    if (!::testing::Test::HasFailure()) {
        remove_output(full.dir);
        remove_output(part.dir);
        remove_output(live);
    }
}

INSTANTIATE_TEST_SUITE_P(Steady, SteadyMethod, ::testing::Values("local", "implicit"));

}  // namespace

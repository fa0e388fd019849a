// Decomposition invariance of time.mode: steady (issue 8, docs/steady.md): local time steps (per
// cell, halo-exchanged, min over a face's two cells), the rate form of the face fluxes and the
// closed-domain mass correction (a sum over comm_x, broadcast over comm_v) give the same fields
// under every phase-space decomposition (P_x, P_v) and block size to <= 1e-11 relative.
// The decomposition case on a mesh stretched towards the walls (local steps differing by ~3x),
// 30 iterations. np = 1 writes the serial reference (ctest fixture, as test_decomposition.cpp).
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

const std::vector<std::string> kSteady = {"time.mode=steady", "time.steps=30",
                                          "mesh.box.stretch=[1.3, 1.3]",
                                          "mesh.box.stretch_symmetric=true"};

std::vector<std::string> with(std::vector<std::string> v, const std::vector<std::string>& more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
}

TEST(SteadyDecomposition, FieldsIndependentOfPartitionAndBlockSize) {
    int np = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ASSERT_TRUE(np == 1 || np == 2 || np == 4) << "run under mpiexec -n 1, 2 or 4";
    const std::string ref_dir =
        std::string(UGKS_REGRESSION_BINARY_DIR) + "/steady_decomposition_reference";
    if (np == 1) {
        fresh_reference_dir(ref_dir);
        const SolverRun ref =
            run_solver(case_file("decomposition"), kSteady, "steady_ref", ref_dir);
        ASSERT_TRUE(run_completed(ref, 30)) << "serial reference";
    }
    ASSERT_TRUE(std::filesystem::exists(ref_dir + "/fields_final.h5"))
        << "no serial reference in " << ref_dir
        << ": run ugks_test_regression_decomposition_np1 first";
    const Fields ref = read_fields(ref_dir);
    ASSERT_EQ(ref.n, 120u);
    int runs = 0;
    double worst = 0;
    for (int Pv = 1; Pv <= np; ++Pv) {
        if (np % Pv != 0) continue;
        for (int B : {7, 32}) {
            const std::string what = "steady: P_x " + std::to_string(np / Pv) + " x P_v " +
                                     std::to_string(Pv) + ", B_v " + std::to_string(B);
            SCOPED_TRACE(what);
            const SolverRun run =
                run_solver(case_file("decomposition"),
                           with(kSteady, {"parallel.velocity_ranks=" + std::to_string(Pv),
                                          "parallel.block_size=" + std::to_string(B)}),
                           "steady_decomposition");
            ASSERT_TRUE(run_completed(run, 30));
            expect_same_fields(ref, read_fields(run.dir), what, worst);
            ++runs;
            if (!::testing::Test::HasFailure()) remove_output(run.dir);
        }
    }
    EXPECT_EQ(runs, np == 1 ? 2 : np == 2 ? 4 : 6);
    if (world_rank() == 0)
        std::printf(
            "steady decomposition: %d runs on %d ranks, largest relative field deviation from the "
            "serial reference %.2e\n",
            runs, np, worst);
}

// Periodic faces in steady mode: the fully periodic box of tests/regression/periodic (moving gas,
// a dense region) on a stretched mesh, P_x = np, 30 iterations, against np = 1.
TEST(SteadyDecomposition, PeriodicBoxIndependentOfPartition) {
    int np = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const std::string ref_dir =
        std::string(UGKS_REGRESSION_BINARY_DIR) + "/steady_periodic_decomposition_reference";
    const std::vector<std::string> ov = with(kSteady, {});
    if (np == 1) {
        fresh_reference_dir(ref_dir);
        const SolverRun ref = run_solver(case_file("periodic"), ov, "steady_periodic_ref", ref_dir);
        ASSERT_TRUE(run_completed(ref, 30)) << "serial reference";
        return;
    }
    ASSERT_TRUE(std::filesystem::exists(ref_dir + "/fields_final.h5")) << "no serial reference";
    const Fields ref = read_fields(ref_dir);
    const SolverRun run = run_solver(case_file("periodic"), ov, "steady_periodic");
    ASSERT_TRUE(run_completed(run, 30));
    const Fields f = read_fields(run.dir);
    ASSERT_EQ(f.n, ref.n);
    double worst = 0;
    using Member = std::vector<double> Fields::*;
    for (const Member m : {&Fields::rho, &Fields::U, &Fields::T, &Fields::q}) {
        const double d = max_rel_diff(f.*m, ref.*m);
        EXPECT_LE(d, 1e-11);
        worst = std::max(worst, d);
    }
    if (world_rank() == 0)
        std::printf("steady periodic decomposition: %d ranks, largest relative deviation %.2e\n",
                    np, worst);
    if (!::testing::Test::HasFailure()) remove_output(run.dir);
}

// time.steady_method: implicit. Its Gauss-Seidel sweeps run over the owned cells of each rank
// (increments of other ranks' cells are not coupled: block Jacobi across ranks), so the iterates
// depend on P_x; the converged state does not, because the residual it drives to zero is the
// decomposition-invariant steady residual. Converged to 1e-10 on every partition, the fields agree
// with the serial ones to 1e-7 relative. Velocity ranks do not change the sweeps: P_v alone gives
// the serial iterates (1e-11 relative after 30 iterations).
TEST(SteadyDecomposition, ImplicitConvergesToTheSameStateOnEveryPartition) {
    int np = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const std::string ref_dir =
        std::string(UGKS_REGRESSION_BINARY_DIR) + "/steady_implicit_decomposition_reference";
    const std::vector<std::string> conv = {"time.mode=steady", "time.steady_method=implicit",
                                           "time.steps=2000", "time.steady_tolerance=1e-10"};
    const std::vector<std::string> iters = {"time.mode=steady", "time.steady_method=implicit",
                                            "time.steps=30"};
    if (np == 1) {
        fresh_reference_dir(ref_dir);
        const SolverRun a = run_solver(case_file("decomposition"), conv, "implicit_ref", ref_dir);
        ASSERT_TRUE(run_completed(a)) << "serial reference (converged)";
        const SolverRun b =
            run_solver(case_file("decomposition"), iters, "implicit_ref30", ref_dir + "/it30");
        ASSERT_TRUE(run_completed(b, 30)) << "serial reference (30 iterations)";
        return;
    }
    ASSERT_TRUE(std::filesystem::exists(ref_dir + "/fields_final.h5")) << "no serial reference";
    const Fields ref = read_fields(ref_dir), ref30 = read_fields(ref_dir + "/it30");
    ASSERT_LT(summary_steps(ref_dir), 2000) << "serial reference did not converge";
    double worst = 0, worst_v = 0;
    long n_px = 0;
    // P_x = np: converged state
    {
        const SolverRun run = run_solver(case_file("decomposition"), conv, "implicit_px");
        ASSERT_TRUE(run_completed(run));
        n_px = summary_steps(run.dir);
        ASSERT_LT(n_px, 2000) << "did not converge";
        const Fields f = read_fields(run.dir);
        ASSERT_EQ(f.n, ref.n);
        for (const auto& nf : kComparedFields) {
            if (std::string(nf.name) == "stress" || std::string(nf.name) == "q") continue;
            for (int c = 0; c < nf.width; ++c) {
                const double d = max_rel_diff(component(f.*nf.member, nf.width, c),
                                              component(ref.*nf.member, nf.width, c));
                EXPECT_LE(d, 1e-7) << "P_x " << np << ": field " << nf.name << " component " << c;
                worst = std::max(worst, d);
            }
        }
        if (!::testing::Test::HasFailure()) remove_output(run.dir);
    }
    // P_v = np: the serial iterates
    {
        const SolverRun run = run_solver(
            case_file("decomposition"),
            with(iters, {"parallel.velocity_ranks=" + std::to_string(np)}), "implicit_pv");
        ASSERT_TRUE(run_completed(run, 30));
        expect_same_fields(ref30, read_fields(run.dir), "implicit, P_v " + std::to_string(np),
                           worst_v);
        if (!::testing::Test::HasFailure()) remove_output(run.dir);
    }
    if (world_rank() == 0)
        std::printf(
            "implicit steady decomposition: %d ranks; converged P_x = %d vs serial: largest "
            "relative deviation %.2e (%ld vs %ld iterations); P_v = %d after 30 iterations: %.2e\n",
            np, np, worst, n_px, summary_steps(ref_dir), np, worst_v);
}

}  // namespace

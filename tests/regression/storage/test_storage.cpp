// numerics.storage: fp32 (docs/decisions.md "Single-precision storage"): h and b kept in single
// precision between the phases of a step, every formula in double.
//  - the lid-driven box (tests/regression/decomposition/case.yaml, 20 steps) with fp32 storage
//    stays within 1e-5 of the fp64 run in every field (relative to the field's scale) and differs
//    from it (so the storage is in effect), and keeps the total mass of the closed box to 1e-13;
//  - a checkpoint of an fp32 run holds 4-byte datasets /state/h and /state/b (8-byte ones for
//    fp64), and the run continued from it ends with the same bits as the uninterrupted fp32 run;
//  - restarts across storage kinds: an fp64 checkpoint continued with fp32 storage, and an fp32
//    checkpoint continued with fp64, both end within 1e-5 of the fp64 run.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <string>
#include <vector>

#include "regression_util.hpp"

namespace {

using namespace ugks::regression;

/// The largest difference of any compared field, relative to that field's largest magnitude.
double field_scaled_diff(const Fields& a, const Fields& b) {
    double worst = 0.0;
    for (const auto& nf : kComparedFields) {
        const std::vector<double>& x = a.*nf.member;
        const std::vector<double>& y = b.*nf.member;
        double scale = 0.0, d = 0.0;
        for (std::size_t k = 0; k < x.size(); ++k) {
            scale = std::max(scale, std::abs(x[k]));
            d = std::max(d, std::abs(x[k] - y[k]));
        }
        if (scale > 0) worst = std::max(worst, d / scale);
    }
    return worst;
}

/// Bytes per value of a dataset's stored type (0 when it cannot be opened).
std::size_t dataset_value_bytes(const std::string& file, const char* name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    std::size_t n = 0;
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d >= 0) {
        const hid_t t = H5Dget_type(d);
        if (H5Tget_class(t) == H5T_FLOAT) n = H5Tget_size(t);
        H5Tclose(t);
        H5Dclose(d);
    }
    H5Fclose(f);
    return n;
}

/// Continue the run checkpointed in `from` (checkpoint_000010.h5) to 20 steps into `dir`.
int resume(const std::string& from, const std::string& dir, const std::string& storage) {
    ugks::CommandLine cl;
    cl.case_file = case_file("decomposition");
    cl.overrides = {"output.directory=" + dir, "time.steps=20", "numerics.storage=" + storage};
    cl.restart = from + "/checkpoint_000010.h5";
    cl.new_run = true;
    cl.quiet = true;
    const int code = ugks::run_case(cl);
    MPI_Barrier(MPI_COMM_WORLD);
    return code;
}

TEST(Storage, Fp32CloseToFp64AndConservative) {
    const SolverRun d = run_solver(case_file("decomposition"), {}, "storage_fp64");
    const SolverRun s =
        run_solver(case_file("decomposition"), {"numerics.storage=fp32"}, "storage_fp32");
    ASSERT_TRUE(run_completed(d, 20));
    ASSERT_TRUE(run_completed(s, 20));
    EXPECT_EQ(read_summary(s.dir)["build"]["storage"], "fp32");
    EXPECT_EQ(read_summary(d.dir)["build"]["storage"], "fp64");
    const Fields a = read_fields(d.dir), b = read_fields(s.dir);
    const double diff = field_scaled_diff(a, b);
    EXPECT_LE(diff, 1e-5);
    EXPECT_GT(diff, 1e-9) << "fp32 storage gave the fp64 fields: not in effect";
    // closed box: the mass of W is updated by face fluxes in double, whatever the storage
    const auto ta = totals(a, 3), tb = totals(b, 3);  // the mass (entry 0) does not use N
    EXPECT_NEAR(tb[0], ta[0], 1e-13 * std::abs(ta[0]));
    std::printf("storage fp32 vs fp64, 20 steps: largest scaled field difference %.3e\n", diff);
    if (!::testing::Test::HasFailure()) {
        remove_output(d.dir);
        remove_output(s.dir);
    }
}

TEST(Storage, CheckpointsKeepThePrecisionAndRestartAcrossKinds) {
    const SolverRun full =
        run_solver(case_file("decomposition"), {"numerics.storage=fp32"}, "storage_full");
    const SolverRun full64 = run_solver(case_file("decomposition"), {}, "storage_full64");
    ASSERT_TRUE(run_completed(full, 20));
    ASSERT_TRUE(run_completed(full64, 20));
    const SolverRun p32 = run_solver(
        case_file("decomposition"),
        {"numerics.storage=fp32", "time.steps=10", "checkpoint.every=10"}, "storage_p32");
    const SolverRun p64 = run_solver(case_file("decomposition"),
                                     {"time.steps=10", "checkpoint.every=10"}, "storage_p64");
    ASSERT_TRUE(run_completed(p32, 10));
    ASSERT_TRUE(run_completed(p64, 10));
    EXPECT_EQ(dataset_value_bytes(p32.dir + "/checkpoint_000010.h5", "/state/h"), 4u);
    EXPECT_EQ(dataset_value_bytes(p32.dir + "/checkpoint_000010.h5", "/state/b"), 4u);
    EXPECT_EQ(dataset_value_bytes(p64.dir + "/checkpoint_000010.h5", "/state/h"), 8u);
    EXPECT_EQ(dataset_value_bytes(p64.dir + "/checkpoint_000010.h5", "/state/b"), 8u);

    // fp32 -> fp32: the uninterrupted run's bits
    ASSERT_EQ(resume(p32.dir, p32.dir, "fp32"), 0);
    const Fields a = read_fields(full.dir), b = read_fields(p32.dir);
    EXPECT_EQ(a.rho, b.rho);
    EXPECT_EQ(a.U, b.U);
    EXPECT_EQ(a.T, b.T);
    EXPECT_EQ(a.q, b.q);
    // across kinds: fp64 checkpoint with fp32 storage, fp32 checkpoint with fp64 storage
    const std::string x = ugks::test::temp_dir("storage_64to32");
    const std::string y = ugks::test::temp_dir("storage_32to64");
    ASSERT_EQ(resume(p64.dir, x, "fp32"), 0);
    ASSERT_EQ(resume(p32.dir, y, "fp64"), 0);
    const Fields ref = read_fields(full64.dir);
    const double dx = field_scaled_diff(ref, read_fields(x));
    const double dy = field_scaled_diff(ref, read_fields(y));
    EXPECT_LE(dx, 1e-5);
    EXPECT_LE(dy, 1e-5);
    EXPECT_GT(dx, 0.0);
    EXPECT_GT(dy, 0.0);
    if (!::testing::Test::HasFailure())
        for (const std::string& dir : {full.dir, full64.dir, p32.dir, p64.dir, x, y})
            remove_output(dir);
}

}  // namespace

// The rule of parallel.halo with every answer of the machine mocked (issue 20): auto takes
// cuda_aware only when the MPI library reports CUDA support AND the device-buffer self-test
// passed, nccl next (built, one GPU per rank), staged last; explicit choices that cannot work are
// input errors naming the key; the reason names what decided.
#include <gtest/gtest.h>

#include "ugks/core/error.hpp"
#include "ugks/parallel/halo_choice.hpp"

namespace {

using ugks::HaloFacts;
using ugks::HaloMode;

HaloFacts facts(bool reports, bool test_ran, bool test_ok, bool nccl, bool distinct) {
    HaloFacts f;
    f.mpi_reports_cuda = reports;
    f.self_test_ran = test_ran;
    f.self_test_passed = test_ok;
    f.nccl_built = nccl;
    f.distinct_gpus = distinct;
    return f;
}

TEST(HaloChoice, AutoOverEveryCombination) {
    for (int bits = 0; bits < 16; ++bits) {
        const bool reports = bits & 1, ok = bits & 2, nccl = bits & 4, distinct = bits & 8;
        const HaloFacts f = facts(reports, reports, reports && ok, nccl, distinct);
        const ugks::HaloChoice c = ugks::choose_halo("auto", f);
        const HaloMode want = reports && ok      ? HaloMode::cuda_aware
                              : nccl && distinct ? HaloMode::nccl
                                                 : HaloMode::staged;
        EXPECT_EQ(c.mode, want) << "facts " << bits;
        EXPECT_EQ(c.reason.rfind("auto: ", 0), 0u) << c.reason;
    }
}

TEST(HaloChoice, ReportedSupportAloneIsNotEnough) {
    // an MPI that says it is CUDA-aware but fails the device-buffer send/receive test
    const ugks::HaloChoice c = ugks::choose_halo("auto", facts(true, true, false, true, false));
    EXPECT_EQ(c.mode, HaloMode::staged);
    EXPECT_NE(c.reason.find("self-test failed"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find("two ranks share a GPU"), std::string::npos) << c.reason;
    EXPECT_THROW(ugks::choose_halo("cuda_aware", facts(true, true, false, true, true)),
                 ugks::InputError);
    EXPECT_EQ(ugks::choose_halo("auto", facts(true, true, false, true, true)).mode, HaloMode::nccl);
}

TEST(HaloChoice, ExplicitChoices) {
    EXPECT_EQ(ugks::choose_halo("staged", facts(true, true, true, true, true)).mode,
              HaloMode::staged);
    EXPECT_EQ(ugks::choose_halo("cuda_aware", facts(true, true, true, false, false)).mode,
              HaloMode::cuda_aware);
    EXPECT_EQ(ugks::choose_halo("nccl", facts(true, true, true, true, true)).mode, HaloMode::nccl);
    try {
        ugks::choose_halo("cuda_aware", facts(false, false, false, true, true));
        FAIL() << "no error";
    } catch (const ugks::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("parallel.halo: cuda_aware"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("does not report CUDA support"), std::string::npos);
    }
    EXPECT_THROW(ugks::choose_halo("nccl", facts(true, true, true, false, true)), ugks::InputError);
    EXPECT_THROW(ugks::choose_halo("nccl", facts(true, true, true, true, false)), ugks::InputError);
    EXPECT_THROW(ugks::choose_halo("fast", facts(true, true, true, true, true)), ugks::InputError);
}

}  // namespace

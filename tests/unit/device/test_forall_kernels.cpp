// Device-layer tests written once for both backends (docs/style.md b4): compiled as CUDA in cuda
// builds.
#include <gtest/gtest.h>

#include <vector>

#include "ugks/device/array.hpp"
#include "ugks/device/device.hpp"
#include "ugks/device/forall.hpp"

namespace {

// Kernels live in free functions: nvcc forbids extended lambdas inside the private TestBody() of a
// gtest.
void fill_affine(ugks::DeviceArray<double>& a) {
    auto v = a.view();
    ugks::forall(
        a.size(), UGKS_LAMBDA(ugks::index_t i) { v[i] = 0.0; });
    ugks::forall(
        a.size(), UGKS_LAMBDA(ugks::index_t i) { v[i] += 2.0 * static_cast<double>(i) + 1.0; });
}

void fill_cell_velocity(ugks::DeviceArray<double>& a, ugks::index_t nc, int nv) {
    auto v = a.view();
    ugks::forall_2d(
        nc, nv, UGKS_LAMBDA(ugks::index_t c, int k) { v[c * nv + k] = 1000.0 * c + k; });
}

double sum_of(ugks::DeviceArray<double>& a) {
    auto v = a.view();
    return ugks::reduce_sum(
        a.size(), UGKS_LAMBDA(ugks::index_t i) { return v[i]; });
}

double max_of_shifted(ugks::DeviceArray<double>& a) {
    auto v = a.view();
    return ugks::reduce_max(
        a.size(), UGKS_LAMBDA(ugks::index_t i) { return v[i] - 0.5 * (i == 777); });
}

class DeviceTest : public ::testing::Test {
protected:
    void SetUp() override {
#if defined(UGKS_USE_CUDA)
        if (ugks::device::device_count() == 0) GTEST_SKIP() << "no CUDA device";
        ugks::device::bind(0);
#endif
    }
};

TEST_F(DeviceTest, ForallCoversRangeOnce) {
    const ugks::index_t n = 100003;
    ugks::DeviceArray<double> a("test.a", n);
    fill_affine(a);
    std::vector<double> h;
    a.copy_to(h);
    ASSERT_EQ(static_cast<ugks::index_t>(h.size()), n);
    for (ugks::index_t i = 0; i < n; ++i) ASSERT_EQ(h[i], 2.0 * static_cast<double>(i) + 1.0) << i;
}

TEST_F(DeviceTest, Forall2dVelocityFastest) {
    const ugks::index_t nc = 1001;
    const int nv = 37;
    ugks::DeviceArray<double> a("test.f", nc * nv);
    fill_cell_velocity(a, nc, nv);
    std::vector<double> h;
    a.copy_to(h);
    for (ugks::index_t c = 0; c < nc; ++c)
        for (int k = 0; k < nv; ++k) ASSERT_EQ(h[c * nv + k], 1000.0 * c + k);
}

TEST_F(DeviceTest, ReductionsMatchClosedForms) {
    const ugks::index_t n = 250000;
    ugks::DeviceArray<double> a("test.r", n);
    std::vector<double> h(n);
    for (ugks::index_t i = 0; i < n; ++i) h[i] = static_cast<double>(i % 1000);
    a.copy_from(h);
    const double s = sum_of(a);
    const double m = max_of_shifted(a);
    EXPECT_EQ(s, 250.0 * 999.0 * 1000.0 / 2.0);  // 250 repetitions of 0..999, exact in double
    EXPECT_EQ(m, 999.0);
}

TEST_F(DeviceTest, MemoryTallyTracksLabels) {
    const std::size_t before = ugks::memory_tally().current;
    {
        ugks::DeviceArray<double> a("test.tally", 1000);
        EXPECT_EQ(ugks::memory_tally().current, before + 8000);
        EXPECT_EQ(ugks::memory_tally().live["test.tally"], 8000u);
        ugks::DeviceArray<double> b = std::move(a);
        EXPECT_EQ(ugks::memory_tally().current, before + 8000);
        EXPECT_EQ(b.size(), 1000);
        EXPECT_EQ(a.size(), 0);
    }
    EXPECT_EQ(ugks::memory_tally().current, before);
    EXPECT_GE(ugks::memory_tally().peak, before + 8000);
}

}  // namespace

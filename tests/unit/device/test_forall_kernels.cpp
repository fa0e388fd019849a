// Device-layer tests written once for both backends (style.md b4): compiled as CUDA in cuda builds.
#include <gtest/gtest.h>

#include <vector>

#include "ugks/device/array.hpp"
#include "ugks/device/device.hpp"
#include "ugks/device/forall.hpp"

namespace {

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
    auto v = a.view();
    ugks::forall(n, UGKS_LAMBDA(ugks::index_t i) { v[i] = 0.0; });
    ugks::forall(n, UGKS_LAMBDA(ugks::index_t i) { v[i] += 2.0 * static_cast<double>(i) + 1.0; });
    std::vector<double> h;
    a.copy_to(h);
    ASSERT_EQ(static_cast<ugks::index_t>(h.size()), n);
    for (ugks::index_t i = 0; i < n; ++i) ASSERT_EQ(h[i], 2.0 * static_cast<double>(i) + 1.0) << i;
}

TEST_F(DeviceTest, Forall2dVelocityFastest) {
    const ugks::index_t nc = 1001;
    const int nv = 37;
    ugks::DeviceArray<double> a("test.f", nc * nv);
    auto v = a.view();
    ugks::forall_2d(nc, nv, UGKS_LAMBDA(ugks::index_t c, int k) { v[c * nv + k] = 1000.0 * c + k; });
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
    auto v = a.view();
    const double s = ugks::reduce_sum(n, UGKS_LAMBDA(ugks::index_t i) { return v[i]; });
    const double m = ugks::reduce_max(n, UGKS_LAMBDA(ugks::index_t i) { return v[i] - 0.5 * (i == 777); });
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

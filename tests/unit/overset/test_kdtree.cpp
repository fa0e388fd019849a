// k-d tree: structure, nearest neighbour against brute force (random, duplicate, stretched 100:1
// clouds; initial radii), analytic sphere/circle distances, box containment against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "ugks/overset/kdtree.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

std::vector<double> cloud(index_t n, unsigned seed, Vec3 scale = {1, 1, 1}) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> p(static_cast<std::size_t>(n) * 3);
    for (index_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) p[i * 3 + a] = scale[a] * u(rng);
    return p;
}

void expect_brute(const std::vector<double>& pts, const std::vector<double>& q, int leaf = 3) {
    const index_t n = static_cast<index_t>(pts.size() / 3), nq = static_cast<index_t>(q.size() / 3);
    const KdTree t = build_kdtree(pts.data(), n, 3, leaf);
    std::vector<index_t> idx;
    const auto d = nearest_distances(t, q.data(), nq, nullptr, &idx);
    const auto b = nearest_distances_brute(pts.data(), n, q.data(), nq);
    for (index_t i = 0; i < nq; ++i) {
        ASSERT_EQ(d[i], b[i]) << "query " << i;
        double s = 0;  // the returned index is a point at that distance
        for (int a = 0; a < 3; ++a) s += std::pow(pts[idx[i] * 3 + a] - q[i * 3 + a], 2);
        ASSERT_NEAR(std::sqrt(s), d[i], 1e-15 * (1 + d[i]));  // FMA may differ in the last bit
    }
}

}  // namespace

TEST(KdTree, StructureLeavesAndBoxes) {
    const auto p = cloud(5000, 1);
    const KdTree t = build_kdtree(p.data(), 5000, 3, 3);
    std::vector<int> count(5000, 0);
    for (index_t c = 0; c < t.n_nodes(); ++c) {
        if (t.child[2 * c] < 0) {
            EXPECT_LE(t.end[c] - t.begin[c], 3);
            EXPECT_GE(t.end[c] - t.begin[c], 1);
            for (index_t j = t.begin[c]; j < t.end[c]; ++j) {
                ++count[t.perm[j]];
                for (int a = 0; a < 3; ++a) {
                    EXPECT_GE(t.coords[j * 3 + a], t.box_lo[c * 3 + a]);
                    EXPECT_LE(t.coords[j * 3 + a], t.box_hi[c * 3 + a]);
                }
            }
        } else {
            for (int s = 0; s < 2; ++s) {
                const index_t ch = t.child[2 * c + s];
                for (int a = 0; a < 3; ++a) {
                    EXPECT_GE(t.box_lo[ch * 3 + a], t.box_lo[c * 3 + a]);
                    EXPECT_LE(t.box_hi[ch * 3 + a], t.box_hi[c * 3 + a]);
                }
            }
        }
    }
    for (int i = 0; i < 5000; ++i) ASSERT_EQ(count[i], 1);
    EXPECT_LE(t.depth, 14);
    EXPECT_TRUE(build_kdtree(p.data(), 0, 3).n_nodes() == 0);
}

TEST(KdTree, NearestEqualsBruteForceRandomCloud) {
    expect_brute(cloud(20000, 2), cloud(3000, 3, {1.2, 1.2, 1.2}));
    expect_brute(cloud(777, 4), cloud(500, 5), 1);
    expect_brute(cloud(1, 6), cloud(10, 7));
}

TEST(KdTree, NearestEqualsBruteForceStretchedAndDuplicates) {
    // 100:1 stretched cloud (a thin body) and queries around it
    expect_brute(cloud(20000, 8, {100, 1, 1}), cloud(3000, 9, {120, 3, 3}));
    // points on a thin 100:1 ellipsoid surface
    {
        std::mt19937 rng(10);
        std::normal_distribution<double> g;
        std::vector<double> p;
        for (int i = 0; i < 10000; ++i) {
            double v[3] = {g(rng), g(rng), g(rng)};
            const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            p.insert(p.end(), {100 * v[0] / n, v[1] / n, v[2] / n});
        }
        expect_brute(p, cloud(2000, 11, {110, 2, 2}));
    }
    // many duplicate coordinates (grid points, each repeated)
    std::vector<double> p;
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 10; ++i)
            for (int j = 0; j < 10; ++j) p.insert(p.end(), {i * 0.1, j * 0.1, 0.0});
    expect_brute(p, cloud(1000, 12));
}

TEST(KdTree, InitialRadiusGivesTheSameResult) {
    const auto p = cloud(10000, 13), q = cloud(2000, 14);
    const KdTree t = build_kdtree(p.data(), 10000, 3, 3);
    const auto b = nearest_distances_brute(p.data(), 10000, q.data(), 2000);
    std::vector<double> r2(2000);
    for (int i = 0; i < 2000; ++i) r2[i] = std::pow(b[i] * (1 + 0.5 * (i % 3)), 2);  // >= true
    const auto d = nearest_distances(t, q.data(), 2000, r2.data());
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(d[i], b[i]);
    // too small a radius: the query falls back to a full search
    std::vector<double> small(2000, 1e-12);
    const auto e = nearest_distances(t, q.data(), 2000, small.data());
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(e[i], b[i]);
}

TEST(KdTree, AnalyticSphereAndCircleDistance) {
    // Points on a sphere of radius R; a query on the ray through wall point i at radius s R has
    // wall point i as its nearest wall point, at distance (s - 1) R.
    const double R = 1.7, pi = std::acos(-1.0);
    for (int dim : {3, 2}) {
        std::vector<double> p;
        const int n = dim == 3 ? 20000 : 4000;
        for (int i = 0; i < n; ++i) {
            if (dim == 3) {  // Fibonacci sphere
                const double z = 1 - 2 * (i + 0.5) / n, r = std::sqrt(1 - z * z),
                             t = pi * (3 - std::sqrt(5.0)) * i;
                p.insert(p.end(), {R * r * std::cos(t), R * r * std::sin(t), R * z});
            } else {
                const double t = 2 * pi * i / n;
                p.insert(p.end(), {R * std::cos(t), R * std::sin(t), 0.0});
            }
        }
        const KdTree t = build_kdtree(p.data(), n, 3, 3);
        std::mt19937 rng(15);
        std::uniform_real_distribution<double> u(1.01, 4.0);
        std::vector<double> q, s;
        for (int i = 0; i < n; i += 7) {
            s.push_back(u(rng));
            for (int a = 0; a < 3; ++a) q.push_back(s.back() * p[i * 3 + a]);
        }
        const auto d = nearest_distances(t, q.data(), static_cast<index_t>(s.size()));
        for (std::size_t i = 0; i < s.size(); ++i)
            ASSERT_NEAR(d[i], (s[i] - 1) * R, 1e-13 * s[i] * R) << "dim " << dim;
    }
}

TEST(KdTree, BoxContainmentEqualsBruteForce) {
    for (int m : {2, 3}) {
        std::mt19937 rng(16 + m);
        std::uniform_real_distribution<double> u(0, 1), w(0, 0.08);
        const int n = 8000;
        std::vector<double> boxes(static_cast<std::size_t>(n) * 2 * m);
        for (int i = 0; i < n; ++i)
            for (int a = 0; a < m; ++a) {
                const double c = u(rng), h = i % 50 == 0 ? 0.0 : w(rng) * (a == 0 ? 10 : 1);
                boxes[i * 2 * m + a] = c - h;
                boxes[i * 2 * m + m + a] = c + h;
            }
        const KdTree t = build_kdtree(boxes.data(), n, 2 * m, 3);
        const KdView v = view(t);
        for (int q = 0; q < 2000; ++q) {
            double x[3] = {u(rng), u(rng), u(rng)};
            if (q % 100 == 0)
                for (int a = 0; a < m; ++a) x[a] = boxes[q * 2 * m + a];  // on a box corner
            std::vector<index_t> got, want;
            kd_boxes_containing(v, x, [&](index_t i) { got.push_back(i); });
            for (int i = 0; i < n; ++i) {
                bool in = true;
                for (int a = 0; a < m; ++a)
                    in = in && boxes[i * 2 * m + a] <= x[a] && x[a] <= boxes[i * 2 * m + m + a];
                if (in) want.push_back(i);
            }
            std::sort(got.begin(), got.end());
            ASSERT_EQ(got, want) << "m " << m << " query " << q;
        }
    }
}

// Inside test of the explicit hole cut (hole_cut.hpp): a point is inside a body when it lies in the
// closed region bounded by the body's wall. Analytic checks (a polygonal circle and a triangulated
// sphere: points just inside and just outside their vertices, edges and faces), an airfoil polygon
// with a sharp trailing edge (points in the trailing-edge vertex's region, where the nearest face's
// own normal gives the wrong sign), a concave star polygon and a non-convex star-shaped polyhedron
// against independent even-odd / ray tests, walls taken from meshes (orientation from the mesh's
// face normals, quads split), and open walls (not closed: no cut).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "overset_test_meshes.hpp"
#include "ugks/overset/overset.hpp"

using namespace ugks;
using namespace ugks::overset;

namespace {

const double kPi = std::acos(-1.0);

/// A closed polygon (counter-clockwise points in xy): nodes and segments oriented with their
/// normal into the fluid (the outside). Counter-clockwise (a, b): (b - a) turned by -90 degrees
/// points outward.
struct Body {
    std::vector<double> xyz;
    WallSurface s;
    WallView view() const { return wall_view(s, xyz.data()); }
    bool inside(const double* x) const { return wall_inside(view(), x); }
};

Body polygon(const std::vector<std::array<double, 2>>& p) {
    Body b;
    const index_t n = static_cast<index_t>(p.size());
    std::vector<index_t> f;
    for (index_t i = 0; i < n; ++i) {
        b.xyz.insert(b.xyz.end(), {p[i][0], p[i][1], 0.0});
        f.insert(f.end(), {i, (i + 1) % n, -1});
    }
    b.s = make_wall_surface(2, n, f);
    update_wall_surface(b.s, b.xyz.data());
    return b;
}

/// Even-odd test (independent of the hole cut).
bool even_odd(const std::vector<std::array<double, 2>>& p, const double* x) {
    bool in = false;
    for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++)
        if ((p[i][1] > x[1]) != (p[j][1] > x[1]) &&
            x[0] < (p[j][0] - p[i][0]) * (x[1] - p[i][1]) / (p[j][1] - p[i][1]) + p[i][0])
            in = !in;
    return in;
}

/// Distance from x to the polygon's boundary.
double boundary_distance(const std::vector<std::array<double, 2>>& p, const double* x) {
    double best = 1e300;
    for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) {
        const double ax = p[j][0], ay = p[j][1], dx = p[i][0] - ax, dy = p[i][1] - ay;
        double t = ((x[0] - ax) * dx + (x[1] - ay) * dy) / (dx * dx + dy * dy);
        t = std::max(0.0, std::min(1.0, t));
        best = std::min(best, std::hypot(x[0] - ax - t * dx, x[1] - ay - t * dy));
    }
    return best;
}

/// NACA 0012 (closed, sharp trailing edge at (1, 0)), counter-clockwise: from the trailing edge
/// along the upper side to the leading edge, back along the lower side.
std::vector<std::array<double, 2>> naca0012(int n) {
    auto yt = [](double x) {
        return 0.6 * (0.2969 * std::sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x -
                      0.1036 * x * x * x * x);
    };
    std::vector<std::array<double, 2>> p;
    for (int i = 0; i < n; ++i) {  // upper: x from 1 to 0
        const double x = 0.5 * (1 + std::cos(kPi * i / n));
        p.push_back({x, i == 0 ? 0.0 : yt(x)});
    }
    for (int i = 0; i < n; ++i) {  // lower: x from 0 to 1 (trailing edge excluded)
        const double x = 0.5 * (1 - std::cos(kPi * i / n));
        p.push_back({x, -yt(x)});
    }
    return p;
}

/// Icosphere of radius 1 (triangles counter-clockwise seen from outside, so that wall_face_normal
/// points outward, into the fluid), `levels` subdivisions; vertices then scaled by r(x).
template <class R>
Body icosphere(int levels, R radius) {
    const double t = (1 + std::sqrt(5.0)) / 2;
    std::vector<std::array<double, 3>> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                            {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                            {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    std::vector<std::array<index_t, 3>> f = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    auto unit = [](std::array<double, 3> a) {
        const double l = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        return std::array<double, 3>{a[0] / l, a[1] / l, a[2] / l};
    };
    for (auto& a : v) a = unit(a);
    for (int l = 0; l < levels; ++l) {
        std::vector<std::array<index_t, 3>> g;
        std::map<std::pair<index_t, index_t>, index_t> mid;
        auto m = [&](index_t a, index_t b) {
            const auto k = std::minmax(a, b);
            const auto it = mid.find(k);
            if (it != mid.end()) return it->second;
            v.push_back(unit({v[a][0] + v[b][0], v[a][1] + v[b][1], v[a][2] + v[b][2]}));
            return mid[k] = static_cast<index_t>(v.size() - 1);
        };
        for (const auto& q : f) {
            const index_t a = m(q[0], q[1]), b = m(q[1], q[2]), c = m(q[2], q[0]);
            g.push_back({q[0], a, c});
            g.push_back({q[1], b, a});
            g.push_back({q[2], c, b});
            g.push_back({a, b, c});
        }
        f.swap(g);
    }
    Body b;
    for (const auto& a : v) {
        const double r = radius(a.data());
        b.xyz.insert(b.xyz.end(), {r * a[0], r * a[1], r * a[2]});
    }
    std::vector<index_t> ff;
    for (const auto& q : f) ff.insert(ff.end(), {q[0], q[1], q[2]});
    b.s = make_wall_surface(3, static_cast<index_t>(v.size()), ff);
    update_wall_surface(b.s, b.xyz.data());
    return b;
}

/// Independent inside test for a surface star-shaped about the origin: the ray from the origin
/// through x crosses exactly one triangle, at distance t; inside when |x| < t. Returns
/// |x| - t (negative inside).
double star_margin(const Body& b, const double* x) {
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    const double d[3] = {x[0] / r, x[1] / r, x[2] / r};
    double best = 1e300;
    for (index_t f = 0; f < b.s.n_faces(); ++f) {  // Moeller-Trumbore, origin o = 0
        const double* p0 = b.xyz.data() + 3 * b.s.face[3 * f];
        const double* p1 = b.xyz.data() + 3 * b.s.face[3 * f + 1];
        const double* p2 = b.xyz.data() + 3 * b.s.face[3 * f + 2];
        const double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        const double e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        const double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                             d[0] * e2[1] - d[1] * e2[0]};
        const double a = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
        if (std::abs(a) < 1e-300) continue;
        const double s[3] = {-p0[0], -p0[1], -p0[2]};
        const double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / a;
        if (u < -1e-12 || u > 1 + 1e-12) continue;
        const double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2],
                             s[0] * e1[1] - s[1] * e1[0]};
        const double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / a;
        if (v < -1e-12 || u + v > 1 + 1e-12) continue;
        const double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / a;
        if (t > 0) best = std::min(best, t);
    }
    return r - best;
}

}  // namespace

TEST(OversetHoleCut, CirclePolygonVerticesEdgesAndInterior) {
    const int n = 48;
    const double R = 0.7, c[2] = {0.3, -0.2};
    std::vector<std::array<double, 2>> p;
    for (int i = 0; i < n; ++i)
        p.push_back({c[0] + R * std::cos(2 * kPi * i / n), c[1] + R * std::sin(2 * kPi * i / n)});
    const Body b = polygon(p);
    ASSERT_TRUE(b.s.closed);
    const double apothem = R * std::cos(kPi / n);
    for (int i = 0; i < n; ++i) {
        const std::array<double, 2> mid = {(p[i][0] + p[(i + 1) % n][0]) / 2,
                                           (p[i][1] + p[(i + 1) % n][1]) / 2};
        for (const auto& q : {p[i], mid})
            for (const double s : {1 - 1e-9, 1 + 1e-9, 0.5, 1.5}) {
                const double x[3] = {c[0] + s * (q[0] - c[0]), c[1] + s * (q[1] - c[1]), 0};
                EXPECT_EQ(b.inside(x), s < 1) << "segment " << i << " scale " << s;
            }
        // radial points by the circle: inside the apothem, outside the radius
        const double t = 2 * kPi * (i + 0.37) / n;
        for (const double r : {0.0, 0.3 * R, 0.999 * apothem, 1.001 * R, 2.0 * R}) {
            const double x[3] = {c[0] + r * std::cos(t), c[1] + r * std::sin(t), 0};
            EXPECT_EQ(b.inside(x), r < apothem) << "r " << r;
        }
    }
    const double far[3] = {10, 10, 0};
    EXPECT_FALSE(b.inside(far));
}

TEST(OversetHoleCut, AirfoilTrailingEdgeAndRandomPointsMatchEvenOdd) {
    const std::vector<std::array<double, 2>> p = naca0012(60);
    const Body b = polygon(p);
    ASSERT_TRUE(b.s.closed);
    // Around the sharp trailing edge (1, 0): outside in every direction. Between the two sides'
    // normals (+-81.7 degrees from the chord) the trailing-edge vertex is the nearest wall point of
    // both sides' first segments (a tie, won by segment 0 on the upper side); the upper side's own
    // normal would say "inside" for every direction below -8.3 degrees.
    for (const double deg : {-82.0, -75.0, -45.0, 0.0, 45.0, 75.0, 82.0})
        for (const double r : {1e-6, 1e-3, 0.02}) {
            const double a = deg * kPi / 180;
            const double x[3] = {1 + r * std::cos(a), r * std::sin(a), 0};
            EXPECT_FALSE(b.inside(x)) << deg << " deg, r " << r;
        }
    for (const double r : {1e-6, 1e-3, 0.05}) {  // on the chord line ahead of the trailing edge
        const double x[3] = {1 - r, 0, 0};
        EXPECT_TRUE(b.inside(x)) << "chord, r " << r;
    }
    // vertices and segment midpoints, pushed 1e-9 along +-(the pseudo-normal direction)
    for (std::size_t i = 0; i < p.size(); ++i) {
        const auto& a = p[i];
        const auto& q = p[(i + 1) % p.size()];
        const double mx = (a[0] + q[0]) / 2, my = (a[1] + q[1]) / 2;
        const double nx = q[1] - a[1], ny = a[0] - q[0], l = std::hypot(nx, ny);
        for (const double s : {-1e-9, 1e-9}) {
            const double x[3] = {mx + s * nx / l, my + s * ny / l, 0};
            EXPECT_EQ(b.inside(x), s < 0) << "segment " << i;
        }
    }
    // random points in and around the box: equal to the even-odd test away from the wall
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> ux(-0.2, 1.2), uy(-0.1, 0.1);
    int in = 0, tested = 0;
    for (int k = 0; k < 20000; ++k) {
        const double x[3] = {ux(rng), uy(rng), 0};
        if (boundary_distance(p, x) < 1e-12) continue;
        ++tested;
        const bool ref = even_odd(p, x);
        in += ref;
        ASSERT_EQ(b.inside(x), ref) << x[0] << " " << x[1];
    }
    EXPECT_GT(in, 2000);
    EXPECT_GT(tested - in, 2000);
}

TEST(OversetHoleCut, ConcaveStarPolygonMatchesEvenOdd) {
    // 7-pointed star: 7 reflex vertices; points next to every vertex and random points
    std::vector<std::array<double, 2>> p;
    for (int i = 0; i < 14; ++i) {
        const double r = i % 2 ? 0.35 : 1.0, t = 2 * kPi * i / 14 + 0.1;
        p.push_back({r * std::cos(t), r * std::sin(t)});
    }
    const Body b = polygon(p);
    ASSERT_TRUE(b.s.closed);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> u(-1.1, 1.1), a(0, 2 * kPi);
    for (const auto& v : p)
        for (int k = 0; k < 200; ++k) {
            const double r = 1e-4 * (k + 1) / 200, t = a(rng);
            const double x[3] = {v[0] + r * std::cos(t), v[1] + r * std::sin(t), 0};
            if (boundary_distance(p, x) < 1e-12) continue;
            ASSERT_EQ(b.inside(x), even_odd(p, x)) << x[0] << " " << x[1];
        }
    for (int k = 0; k < 20000; ++k) {
        const double x[3] = {u(rng), u(rng), 0};
        if (boundary_distance(p, x) < 1e-12) continue;
        ASSERT_EQ(b.inside(x), even_odd(p, x)) << x[0] << " " << x[1];
    }
}

TEST(OversetHoleCut, SphereVerticesEdgesFacesAndRadii) {
    const Body b = icosphere(3, [](const double*) { return 1.0; });  // 1280 triangles
    ASSERT_TRUE(b.s.closed);
    ASSERT_EQ(b.s.n_faces(), 1280);
    double inradius = 1e300;  // smallest distance from the centre to a face's plane
    for (index_t f = 0; f < b.s.n_faces(); ++f) {
        double n[3];
        wall_face_normal(b.view(), f, n);
        const double* a = b.xyz.data() + 3 * b.s.face[3 * f];
        const double d = a[0] * n[0] + a[1] * n[1] + a[2] * n[2];
        ASSERT_GT(d, 0) << "face " << f << " normal points outward";
        inradius = std::min(inradius, d);
    }
    for (index_t f = 0; f < b.s.n_faces(); ++f) {
        const double* a = b.xyz.data() + 3 * b.s.face[3 * f];
        const double* c = b.xyz.data() + 3 * b.s.face[3 * f + 1];
        const double* e = b.xyz.data() + 3 * b.s.face[3 * f + 2];
        double pts[3][3];
        for (int k = 0; k < 3; ++k) {
            pts[0][k] = a[k];                      // vertex
            pts[1][k] = (a[k] + c[k]) / 2;         // edge midpoint
            pts[2][k] = (a[k] + c[k] + e[k]) / 3;  // face centroid
        }
        for (const auto& q : pts)
            for (const double s : {1 - 1e-9, 1 + 1e-9}) {  // radially: the surface is convex
                const double x[3] = {s * q[0], s * q[1], s * q[2]};
                EXPECT_EQ(b.inside(x), s < 1) << "face " << f << " scale " << s;
            }
    }
    std::mt19937_64 rng(3);
    std::normal_distribution<double> g(0, 1);
    std::uniform_real_distribution<double> u(0, 2);
    for (int k = 0; k < 5000; ++k) {
        double x[3] = {g(rng), g(rng), g(rng)};
        const double l = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), r = u(rng);
        for (double& c : x) c *= r / l;
        if (r > 0.999 * inradius && r < 1.0) continue;  // between the faces and the sphere
        EXPECT_EQ(b.inside(x), r < inradius) << "r " << r;
    }
}

TEST(OversetHoleCut, NonConvexStarShapedPolyhedronMatchesRayTest) {
    // radially modulated icosphere: saddle and concave vertices and edges
    const Body b = icosphere(3, [](const double* a) {
        return 1.0 + 0.35 * std::sin(3 * a[0] + 1) * std::cos(2 * a[1]) + 0.2 * a[2] * a[2];
    });
    ASSERT_TRUE(b.s.closed);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-1.6, 1.6);
    int in = 0, out = 0;
    for (int k = 0; k < 6000; ++k) {
        const double x[3] = {u(rng), u(rng), u(rng)};
        const double m = star_margin(b, x);
        if (std::abs(m) < 1e-9) continue;
        ASSERT_EQ(b.inside(x), m < 0) << x[0] << " " << x[1] << " " << x[2];
        (m < 0 ? in : out)++;
    }
    // points near every vertex (within 1e-3): where the vertex and edge pseudo-normals decide
    for (index_t v = 0; v < static_cast<index_t>(b.xyz.size() / 3); ++v) {
        std::normal_distribution<double> g(0, 1);
        for (int k = 0; k < 4; ++k) {
            double x[3];
            for (int a = 0; a < 3; ++a) x[a] = b.xyz[3 * v + a] + 1e-3 * g(rng);
            const double m = star_margin(b, x);
            if (std::abs(m) < 1e-9) continue;
            ASSERT_EQ(b.inside(x), m < 0) << "near vertex " << v;
        }
    }
    EXPECT_GT(in, 700);  // of about 6000
    EXPECT_GT(out, 3000);
}

TEST(OversetHoleCut, WallsFromMeshesAndOpenWalls) {
    // annulus: the mesh's face normals orient the wall; the disc r < 0.5 is the solid
    OversetSystem sys;
    add_grid(sys, "ring", test::make_annulus(0.5, 1.5, 4, 64, {0.2, 0.1, 0}), 1, {"wall"});
    OversetGrid& g = sys.grids[0];
    g.xyz.resize(static_cast<std::size_t>(g.mesh.n_nodes()) * 3);
    for (index_t i = 0; i < g.mesh.n_nodes(); ++i)
        for (int a = 0; a < 3; ++a) g.xyz[3 * i + a] = g.mesh.nodes[i][a];
    ASSERT_TRUE(g.wall.closed);
    EXPECT_EQ(g.wall.n_faces(), 64);
    update_wall_surface(g.wall, g.xyz.data());
    const WallView w = wall_view(g.wall, g.xyz.data());
    const double in[3] = {0.2 + 0.45, 0.1, 0}, out[3] = {0.2 + 0.55, 0.1, 0},
                 centre[3] = {0.2, 0.1, 0};
    EXPECT_TRUE(wall_inside(w, in));
    EXPECT_TRUE(wall_inside(w, centre));
    EXPECT_FALSE(wall_inside(w, out));

    // a hexahedral box with every side a wall: quads split in two; the fluid is inside the box,
    // so the "solid" is outside it (within the walls' bounding box: nothing; the cheap reject)
    OversetSystem s3;
    add_grid(s3, "box", test::perturbed_box(3, "hexa", 4, 0.2, 1, {0, 0, 0}, {1, 1, 1}), 0,
             {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"});
    OversetGrid& h = s3.grids[0];
    ASSERT_TRUE(h.wall.closed);
    EXPECT_EQ(h.wall.n_faces(), 6 * 16 * 2);
    h.xyz.resize(static_cast<std::size_t>(h.mesh.n_nodes()) * 3);
    for (index_t i = 0; i < h.mesh.n_nodes(); ++i)
        for (int a = 0; a < 3; ++a) h.xyz[3 * i + a] = h.mesh.nodes[i][a];
    update_wall_surface(h.wall, h.xyz.data());
    const WallView hw = wall_view(h.wall, h.xyz.data());
    const double c3[3] = {0.5, 0.5, 0.5}, near[3] = {0.5, 0.5, 1e-9}, o3[3] = {0.5, 0.5, -1e-9};
    EXPECT_FALSE(wall_inside(hw, c3));
    EXPECT_FALSE(wall_inside(hw, near));
    EXPECT_FALSE(wall_inside(hw, o3));  // outside the walls' box: rejected
    // ... but with part of the box's walls missing the surface is open: no hole cut by it
    OversetSystem s4;
    add_grid(s4, "box", test::perturbed_box(3, "hexa", 4, 0.0, 1), 0, {"xmin", "xmax", "ymin"});
    EXPECT_FALSE(s4.grids[0].wall.closed);
    // an open polyline in 2D
    const WallSurface open = make_wall_surface(2, 3, {0, 1, -1, 1, 2, -1});
    EXPECT_FALSE(open.closed);
}

// Whole-body loads and coefficients of the wall output (include/ugks/io/surface_io.hpp):
// symmetry images, moments and the drag/lift/side axes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "ugks/io/surface_io.hpp"

namespace {

using ugks::BodyLoads;
using ugks::SurfaceReference;
using ugks::SurfaceTotals;
using ugks::Vec3;

struct Face {
    Vec3 x, F;
    double Q, area;
};

/// A full body's loads summed plainly (no symmetry), as a 3x3 reflection matrix would give them.
BodyLoads plain_sum(const std::vector<Face>& faces, const Vec3& c) {
    BodyLoads b;
    for (const Face& f : faces) {
        const Vec3 r{f.x[0] - c[0], f.x[1] - c[1], f.x[2] - c[2]};
        for (int d = 0; d < 3; ++d) b.force[d] += f.F[d];
        b.moment[0] += r[1] * f.F[2] - r[2] * f.F[1];
        b.moment[1] += r[2] * f.F[0] - r[0] * f.F[2];
        b.moment[2] += r[0] * f.F[1] - r[1] * f.F[0];
        b.heat += f.Q;
        b.area += f.area;
    }
    return b;
}

/// Face f reflected in the plane x[axis] = pos, written with a reflection matrix
/// R = I - 2 e e^T applied about a point of the plane.
Face reflect(const Face& f, int axis, double pos) {
    double R[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    R[axis][axis] = -1;
    Vec3 p{0, 0, 0};
    p[axis] = pos;
    Face g = f;
    for (int i = 0; i < 3; ++i) {
        g.x[i] = p[i];
        g.F[i] = 0;
        for (int j = 0; j < 3; ++j) {
            g.x[i] += R[i][j] * (f.x[j] - p[j]);
            g.F[i] += R[i][j] * f.F[j];
        }
    }
    return g;
}

TEST(SurfaceLoads, MirrorImagesGiveTheWholeBody) {
    // random faces of the "computed part", planes y = 0.3 and z = -0.2, an off-plane moment centre
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    std::vector<Face> part;
    for (int i = 0; i < 40; ++i)
        part.push_back({{U(gen), 0.3 + std::abs(U(gen)), -0.2 - std::abs(U(gen))},
                        {U(gen), U(gen), U(gen)},
                        U(gen),
                        0.5 + 0.5 * std::abs(U(gen))});
    SurfaceReference ref;
    ref.moment_center = {0.4, -0.7, 1.1};
    ref.symmetry = {{1, 0.3}, {2, -0.2}};
    BodyLoads got;
    for (const Face& f : part) ugks::add_body_loads(ref, f.x, f.F, f.Q, f.area, got);
    std::vector<Face> whole;
    for (const Face& f : part) {
        const Face fy = reflect(f, 1, 0.3);
        whole.insert(whole.end(), {f, fy, reflect(f, 2, -0.2), reflect(fy, 2, -0.2)});
    }
    const BodyLoads want = plain_sum(whole, ref.moment_center);
    for (int d = 0; d < 3; ++d) {
        EXPECT_NEAR(got.force[d], want.force[d], 1e-12) << d;
        EXPECT_NEAR(got.moment[d], want.moment[d], 1e-12) << d;
    }
    EXPECT_NEAR(got.heat, want.heat, 1e-12);
    EXPECT_NEAR(got.area, want.area, 1e-12);
    // the components normal to a plane cancel exactly; the others are 4x the part's
    EXPECT_EQ(got.force[1], 0.0);
    EXPECT_EQ(got.force[2], 0.0);
    double fx = 0;
    for (const Face& f : part) fx += f.F[0];
    EXPECT_NEAR(got.force[0], 4 * fx, 1e-12);
    // without symmetry planes: the part itself
    BodyLoads alone;
    ref.symmetry.clear();
    for (const Face& f : part) ugks::add_body_loads(ref, f.x, f.F, f.Q, f.area, alone);
    const BodyLoads p = plain_sum(part, ref.moment_center);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(alone.moment[d], p.moment[d], 1e-13);
}

TEST(SurfaceLoads, AxesFromAnglesAndDirections) {
    SurfaceReference ref;
    ref.rho_inf = 2.0;
    ref.U_inf = {3.0, 0.0, 0.0};  // q_dyn = 9
    ref.A_ref = 0.5;
    ref.L_ref = 4.0;
    const double a = 10.0 * 3.14159265358979323846 / 180.0;
    ref.drag_dir = {std::cos(a), std::sin(a), 0.0};
    ref.lift_dir = {0.0, 1.0, 0.0};  // not normal to the drag direction: made so
    const ugks::SurfaceAxes ax = ugks::surface_axes(ref);
    EXPECT_NEAR(ax.lift[0], -std::sin(a), 1e-15);
    EXPECT_NEAR(ax.lift[1], std::cos(a), 1e-15);
    EXPECT_NEAR(ax.side[2], 1.0, 1e-15);
    SurfaceTotals t;
    t.body.force = {1.0, 0.0, 0.0};
    t.body.moment = {0.0, 0.0, 2.0};
    ugks::body_coefficients(ref, t);
    const double qA = 9.0 * 0.5;
    EXPECT_NEAR(t.CD, std::cos(a) / qA, 1e-15);
    EXPECT_NEAR(t.CL, -std::sin(a) / qA, 1e-15);
    EXPECT_NEAR(t.CS, 0.0, 1e-15);
    EXPECT_NEAR(t.Cm[2], 2.0 / (qA * 4.0), 1e-15);
    // one force at x = (2, 0, 0) about the origin: moment (0, 0, 2 Fy)
    BodyLoads b;
    ref.moment_center = {0, 0, 0};
    ugks::add_body_loads(ref, {2, 0, 0}, {0, 1.5, 0}, 0.0, 1.0, b);
    EXPECT_EQ(b.moment[2], 3.0);
    // no free stream and no drag direction: C_D undefined, the lift direction used as given
    ref.U_inf = {0, 0, 0};
    ref.drag_dir = {0, 0, 0};
    ref.q_ref = 0.25;
    ref.lift_dir = {0, 2, 0};
    ugks::body_coefficients(ref, t);
    EXPECT_TRUE(std::isnan(t.CD));
    EXPECT_NEAR(t.CL, 0.0, 1e-15);
    t.body.force = {0, 1.0, 0};
    ugks::body_coefficients(ref, t);
    EXPECT_NEAR(t.CL, 1.0 / (0.25 * 0.5), 1e-15);
}

}  // namespace

#include <algorithm>
#include <cmath>

#include "ugks/overset/overset.hpp"

namespace ugks::overset {

Vec3 Pose::apply(const Vec3& x0) const {
    const double d[3] = {x0[0] - point[0], x0[1] - point[1], x0[2] - point[2]};
    Vec3 x;
    for (int a = 0; a < 3; ++a)
        x[a] = R[a][0] * d[0] + R[a][1] * d[1] + R[a][2] * d[2] + point[a] + shift[a];
    return x;
}

PoseArrays Pose::arrays() const {
    PoseArrays a;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) a.R[i][j] = R[i][j];
        a.p[i] = point[i];
        a.s[i] = shift[i];
    }
    return a;
}

Pose rotation_pose(const Vec3& axis, const Vec3& point, double angle) {
    Pose p;
    p.point = point;
    const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    const double u[3] = {axis[0] / n, axis[1] / n, axis[2] / n};
    const double c = std::cos(angle), s = std::sin(angle), C = 1 - c;
    p.R[0][0] = c + u[0] * u[0] * C;
    p.R[0][1] = u[0] * u[1] * C - u[2] * s;
    p.R[0][2] = u[0] * u[2] * C + u[1] * s;
    p.R[1][0] = u[1] * u[0] * C + u[2] * s;
    p.R[1][1] = c + u[1] * u[1] * C;
    p.R[1][2] = u[1] * u[2] * C - u[0] * s;
    p.R[2][0] = u[2] * u[0] * C - u[1] * s;
    p.R[2][1] = u[2] * u[1] * C + u[0] * s;
    p.R[2][2] = c + u[2] * u[2] * C;
    return p;
}

Pose pose_at(const Motion& m, double t) {
    switch (m.type) {
        case Motion::Type::Fixed:
            return Pose{};
        case Motion::Type::Translation: {
            Pose p;
            for (int a = 0; a < 3; ++a) p.shift[a] = m.velocity[a] * t;
            return p;
        }
        case Motion::Type::Rotation:
            return rotation_pose(m.axis, m.point, m.omega * t);
        case Motion::Type::Poses: {
            const auto& tb = m.table;
            std::array<double, 5> row = tb.front();
            if (t >= tb.back()[0]) {
                row = tb.back();
            } else if (t > tb.front()[0]) {
                const auto it = std::upper_bound(
                    tb.begin(), tb.end(), t,
                    [](double v, const std::array<double, 5>& r) { return v < r[0]; });
                const auto& b = *it;
                const auto& a = *(it - 1);
                const double f = (t - a[0]) / (b[0] - a[0]);
                for (int j = 0; j < 5; ++j) row[j] = a[j] + f * (b[j] - a[j]);
            }
            Pose p = rotation_pose(m.axis, m.point, row[4]);
            p.shift = {row[1], row[2], row[3]};
            return p;
        }
    }
    return Pose{};
}

Pose compose(const Pose& a, const Pose& b) {
    // b(a(x)) = Rb (Ra (x - pa) + pa + sa - pb) + pb + sb  =  R (x - pa) + pa + shift
    Pose p;
    p.point = a.point;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            p.R[i][j] = 0;
            for (int k = 0; k < 3; ++k) p.R[i][j] += b.R[i][k] * a.R[k][j];
        }
    const Vec3 q =
        b.apply(Vec3{a.point[0] + a.shift[0], a.point[1] + a.shift[1], a.point[2] + a.shift[2]});
    for (int i = 0; i < 3; ++i) p.shift[i] = q[i] - a.point[i];
    return p;
}

}  // namespace ugks::overset

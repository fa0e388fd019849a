#pragma once
/// Specular reflection about a plane that is not a mirror plane of the velocity grid
/// (docs/formulation.md section 8.2b): symmetry planes and partly specular walls of any
/// orientation, and axis-aligned ones on a grid that is not symmetric about that axis. The
/// reflected half at an incoming velocity u is the owner's distribution at t^n (all velocities)
/// interpolated at the mirror image u' = u - 2 (u.n) n: quadratic in log f on the tensor grid
/// (exact for every Maxwellian), limited to the stencil's range where the stencil crosses u.n = 0;
/// then scaled per face so that the reflected mass flux equals the incident one. The flux kernels
/// read the result through the identity mirror row kern::kInterpolatedMirror (bc_symmetry.hpp).
/// Kernel functions written once for both backends.
#include <cmath>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"

namespace ugks::kern {

/// Row of SolverStatic::mirror that the faces with an interpolated reflection use: the identity
/// (their stored row already holds the reflected values at each slot); rows 0-2 are the mirror
/// images about u_x, u_y, u_z = 0.
inline constexpr int kInterpolatedMirror = 3;

/// The tensor velocity grid as the interpolation reads it: per axis n[d] ascending nodes x[d] and
/// their weights w[d] (axes beyond the velocity dimension: one node 0 of weight 1) and, per tensor
/// index k (last axis fastest), the slot of the stored full rows.
struct SpecularGrid {
    int n[3] = {1, 1, 1};
    const double* x[3] = {nullptr, nullptr, nullptr};
    const double* w[3] = {nullptr, nullptr, nullptr};
    const index_t* slot = nullptr;
    UGKS_HOST_DEVICE index_t size() const { return static_cast<index_t>(n[0]) * n[1] * n[2]; }
};

/// Velocity and weight of tensor index k (the weight as the grid forms it, section 3.1).
UGKS_HOST_DEVICE inline void specular_grid_point(const SpecularGrid& G, index_t k, double u[3],
                                                 double& w) {
    const index_t l = k % G.n[2], j = (k / G.n[2]) % G.n[1], i = k / (G.n[2] * G.n[1]);
    u[0] = G.x[0][i];
    u[1] = G.x[1][j];
    u[2] = G.x[2][l];
    w = G.w[0][i] * G.w[1][j] * G.w[2][l];
}

/// The mirror image of u about the plane of unit normal n.
UGKS_HOST_DEVICE inline void reflect_velocity(const double u[3], const double n[3], double ur[3]) {
    const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    for (int d = 0; d < 3; ++d) ur[d] = u[d] - 2.0 * un * n[d];
}

/// Interpolation weights on one axis at c (clamped to the axis' node range): the quadratic
/// Lagrange stencil q0, nq (3 nodes through the nearest one and its neighbours, fewer on axes with
/// fewer nodes) and the linear one l0, nl (the bracketing pair).
struct AxisStencil {
    int q0 = 0, nq = 1, l0 = 0, nl = 1;
    double q[3] = {1, 0, 0}, l[2] = {1, 0};
};

UGKS_HOST_DEVICE inline void axis_stencil(const double* x, int n, double c, AxisStencil& s) {
    s = AxisStencil{};
    if (n < 2) return;
    c = c < x[0] ? x[0] : (c > x[n - 1] ? x[n - 1] : c);
    int lo = 0, hi = n - 1;  // bracketing pair x[lo] <= c <= x[lo + 1]
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (x[mid] <= c)
            lo = mid;
        else
            hi = mid;
    }
    const double t = (c - x[lo]) / (x[lo + 1] - x[lo]);
    s.l0 = lo;
    s.nl = 2;
    s.l[0] = 1.0 - t;
    s.l[1] = t;
    if (n == 2) {
        s.q0 = 0;
        s.nq = 2;
        s.q[0] = s.l[0];
        s.q[1] = s.l[1];
        return;
    }
    int i0 = (t < 0.5 ? lo : lo + 1) - 1;
    i0 = i0 < 0 ? 0 : (i0 > n - 3 ? n - 3 : i0);
    const double a = x[i0], b = x[i0 + 1], e = x[i0 + 2];
    s.q0 = i0;
    s.nq = 3;
    s.q[0] = (c - b) * (c - e) / ((a - b) * (a - e));
    s.q[1] = (c - a) * (c - e) / ((b - a) * (b - e));
    s.q[2] = (c - a) * (c - b) / ((e - a) * (e - b));
}

/// The log row entry of a value: log v, or -HUGE_VAL where v is not positive (filled once per
/// step next to each full row, so that an interpolation reads logs instead of taking them).
UGKS_HOST_DEVICE inline double specular_log(double v) { return v > 0.0 ? log(v) : -HUGE_VAL; }

/// The rows h (and b) of values per slot, with their log rows gh (gb, specular_log),
/// interpolated at velocity c for a face of normal n: exp of the tensor quadratic of the log
/// values (exact for every Maxwellian, whose log is a quadratic); where the 3^D stencil reaches
/// nodes with u.n <= 0 (across the jump that the owner's distribution may have at u.n = 0,
/// between the incident and the re-emitted halves) the result is limited to the range of the
/// stencil values. Where a stencil value is not positive (round-off noise in the tails), the
/// multilinear interpolation of the logs of the 2^D bracketing values, and where one of those is
/// not positive either, that of the values (convex combinations).
template <bool HB>
UGKS_HOST_DEVICE inline void interpolate_rows(const SpecularGrid& G, const double* row_h,
                                              const double* row_b, const double* gh,
                                              const double* gb, const double n[3],
                                              const double c[3], double& h, double& b) {
    AxisStencil S[3];
    for (int d = 0; d < 3; ++d) axis_stencil(G.x[d], G.n[d], c[d], S[d]);
    double lh = 0.0, lb = 0.0, hmin = HUGE_VAL, hmax = -HUGE_VAL, bmin = HUGE_VAL, bmax = -HUGE_VAL;
    bool qh = true, qb = HB, incident = true;
    for (int i = 0; i < S[0].nq; ++i)
        for (int j = 0; j < S[1].nq; ++j)
            for (int l = 0; l < S[2].nq; ++l) {
                const index_t k =
                    (static_cast<index_t>(S[0].q0 + i) * G.n[1] + S[1].q0 + j) * G.n[2] + S[2].q0 +
                    l;
                const index_t s = G.slot[k];
                const double wq = S[0].q[i] * S[1].q[j] * S[2].q[l];
                incident = incident && G.x[0][S[0].q0 + i] * n[0] + G.x[1][S[1].q0 + j] * n[1] +
                                               G.x[2][S[2].q0 + l] * n[2] >
                                           0.0;
                const double vh = row_h[s];
                qh = qh && gh[s] > -HUGE_VAL;
                if (qh) lh += wq * gh[s];
                hmin = fmin(hmin, vh);
                hmax = fmax(hmax, vh);
                if (HB) {
                    const double vb = row_b[s];
                    qb = qb && gb[s] > -HUGE_VAL;
                    if (qb) lb += wq * gb[s];
                    bmin = fmin(bmin, vb);
                    bmax = fmax(bmax, vb);
                }
            }
    // fallbacks on the 2^D bracketing nodes: multilinear in log (positive values), else in the
    // values
    double mh = 0.0, mb = 0.0, ah = 0.0, ab = 0.0;
    bool ph = true, pb = HB;
    if (!qh || (HB && !qb))
        for (int i = 0; i < S[0].nl; ++i)
            for (int j = 0; j < S[1].nl; ++j)
                for (int l = 0; l < S[2].nl; ++l) {
                    const index_t k =
                        (static_cast<index_t>(S[0].l0 + i) * G.n[1] + S[1].l0 + j) * G.n[2] +
                        S[2].l0 + l;
                    const index_t s = G.slot[k];
                    const double wl = S[0].l[i] * S[1].l[j] * S[2].l[l];
                    mh += wl * row_h[s];
                    ph = ph && gh[s] > -HUGE_VAL;
                    if (ph) ah += wl * gh[s];
                    if (HB) {
                        mb += wl * row_b[s];
                        pb = pb && gb[s] > -HUGE_VAL;
                        if (pb) ab += wl * gb[s];
                    }
                }
    const auto limit = [incident](double v, double lo, double hi) {
        return incident ? v : fmin(fmax(v, lo), hi);
    };
    h = qh ? limit(exp(lh), hmin, hmax) : (ph ? exp(ah) : mh);
    b = HB ? (qb ? limit(exp(lb), bmin, bmax) : (pb ? exp(ab) : mb)) : 0.0;
}

/// The unscaled reflected values at incoming velocity u (u.n < 0) of a face of normal n: the
/// rows (with their log rows) interpolated at the mirror image of u.
template <bool HB>
UGKS_HOST_DEVICE inline void specular_raw(const SpecularGrid& G, const double* row_h,
                                          const double* row_b, const double* gh, const double* gb,
                                          const double n[3], const double u[3], double& h,
                                          double& b) {
    double ur[3];
    reflect_velocity(u, n, ur);
    interpolate_rows<HB>(G, row_h, row_b, gh, gb, n, ur, h, b);
}

/// One velocity's terms of the face's mass balance: out += w un h_k (incident, un > 0) and
/// in -= w un h_raw (reflected, un < 0; the unscaled interpolated value).
UGKS_HOST_DEVICE inline void specular_mass_terms(const SpecularGrid& G, const double* row_h,
                                                 const double* gh, const double n[3], double w,
                                                 const double u[3], index_t s, double& out,
                                                 double& in) {
    const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    if (un > 0.0) {
        out += w * un * row_h[s];
    } else if (un < 0.0) {
        double h, b;
        specular_raw<false>(G, row_h, nullptr, gh, nullptr, n, u, h, b);
        in -= w * un * h;
    }
}

/// The face's scale of the reflected half: the incident mass flux over the reflected one of the
/// unscaled values (0 when nothing is reflected).
UGKS_HOST_DEVICE inline double specular_scale(double out, double in) {
    return in > 0.0 ? out / in : 0.0;
}

}  // namespace ugks::kern

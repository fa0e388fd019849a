#pragma once
// Per-velocity loops of the UGKS step on the CPU backend, written so that the compiler vectorizes
// them: the velocity dimension, the tensor-table Maxwellian, the stored b and the order are
// template parameters, the upwind choice is a per-lane select, and velocities are read from
// one array per component. The formulas are those of physics/detail/kinetic_impl.hpp
// (equilibrium_parts_given_H, micro_flux_H), regrouped: sum_j u_j A[a^(j); H] = S1 H + S2 B with
// S1 = sum_j u_j poly_j, S2 = sum_j u_j aE_j / 2.
#include <cmath>

#include "ugks/physics/kinetic.hpp"

namespace ugks::cpu {

/// Velocity tables of the local slots of one block (pointers already offset to the block).
struct BlockVel {
    const double* ux;
    const double* uy;
    const double* uz;
    const double* w;
    const int* i0;  ///< table index per axis (padding slots point at a zero entry)
    const int* i1;
    const int* i2;
};

/// Equilibrium constants of one state (cell or interface): H = rhonorm prod_d E_d, and the Shakhov
/// factors.
struct EqConst {
    double rhonorm = 0;  ///< rho (lambda / pi)^(D/2)
    double U[3] = {0, 0, 0};
    double lambda = 1;
    double q[3] = {0, 0, 0};
    double pre = 0;   ///< 4 (1 - Pr) lambda^2 / ((5 + K_int) rho)
    double Bfac = 0;  ///< K / (2 lambda)
};

inline EqConst eq_const(const phys::Prim& p, const double q[3], const phys::GasParams& g) {
    EqConst c;
    const double kPi = 3.14159265358979323846;
    const double r = p.lambda / kPi;
    const double norm = g.D == 1 ? std::sqrt(r) : (g.D == 2 ? r : r * std::sqrt(r));
    c.rhonorm = p.rho * norm;
    for (int d = 0; d < 3; ++d) {
        c.U[d] = p.U[d];
        c.q[d] = q[d];
    }
    c.lambda = p.lambda;
    const double k_int = g.N - 3;
    c.pre = 4.0 * (1.0 - g.Pr) * p.lambda * p.lambda / ((5.0 + k_int) * p.rho);
    c.Bfac = g.K / (2.0 * p.lambda);
    return c;
}

/// H at lane v: from the per-axis table E (TENSOR) or directly.
template <int D, bool TENSOR>
inline double eq_H(const EqConst& C, const BlockVel& V, const double* E, int v, double c0,
                   double c1, double c2) {
    if (TENSOR) {
        double H = C.rhonorm * E[V.i0[v]];
        if (D > 1) H *= E[V.i1[v]];
        if (D > 2) H *= E[V.i2[v]];
        return H;
    } else {
        double s = c0 * c0;
        if (D > 1) s += c1 * c1;
        if (D > 2) s += c2 * c2;
        return C.rhonorm * std::exp(-C.lambda * s);
    }
}

/// Shakhov equilibrium (h+, b+) at lane v.
template <int D, bool TENSOR>
inline void shakhov_lane(const EqConst& C, const BlockVel& V, const double* E, int v, double& hp,
                         double& bp) {
    const double c0 = V.ux[v] - C.U[0];
    const double c1 = D > 1 ? V.uy[v] - C.U[1] : 0.0;
    const double c2 = D > 2 ? V.uz[v] - C.U[2] : 0.0;
    const double H = eq_H<D, TENSOR>(C, V, E, v, c0, c1, c2);
    double cc = c0 * c0, cq = c0 * C.q[0];
    if (D > 1) cc += c1 * c1, cq += c1 * C.q[1];
    if (D > 2) cc += c2 * c2, cq += c2 * C.q[2];
    const double Bm = C.Bfac * H;
    const double pre = C.pre * cq;
    const double t = 2.0 * C.lambda * cc;
    hp = H + pre * (t - D - 2) * H;
    bp = Bm + pre * (t - D) * Bm;
}

/// Interface constants of an interior face (from FaceCoeffs) for flux_interior.
struct FluxConst {
    EqConst eq;
    double n[3];
    double dxL[3], dxR[3];
    double aL[3][5], aR[3][5];  ///< per direction j < D: a0, aU[0..2], aE
    double A[5];
    double xi4;
    double q1, q2, q3, q4, q5;
};

inline FluxConst flux_const(const phys::FaceCoeffs& fc, const phys::GasParams& g, const double* n,
                            const double* dxL, const double* dxR) {
    FluxConst F;
    F.eq = eq_const(fc.p0, fc.qf, g);
    for (int d = 0; d < 3; ++d) {
        F.n[d] = n[d];
        F.dxL[d] = dxL[d];
        F.dxR[d] = dxR[d];
    }
    auto pack = [](const phys::Slope& s, double* a) {
        a[0] = s.a0;
        a[1] = s.aU[0];
        a[2] = s.aU[1];
        a[3] = s.aU[2];
        a[4] = s.aE;
    };
    for (int j = 0; j < 3; ++j) {
        pack(fc.aL[j], F.aL[j]);
        pack(fc.aR[j], F.aR[j]);
    }
    pack(fc.A, F.A);
    F.xi4 = g.K * (g.K + 2.0) / (4.0 * fc.p0.lambda * fc.p0.lambda);
    F.q1 = fc.tc.q1;
    F.q2 = fc.tc.q2;
    F.q3 = fc.tc.q3;
    F.q4 = fc.tc.q4;
    F.q5 = fc.tc.q5;
    return F;
}

template <int D>
inline double slope_poly(const double* a, double u0, double u1, double u2, double usq) {
    double p = a[0] + 0.5 * a[4] * usq + a[1] * u0;
    if (D > 1) p += a[2] * u1;
    if (D > 2) p += a[3] * u2;
    return p;
}

/// Microscopic flux of one block through an interior face (section 5.10) with the upwind values
/// of the owner (L) or neighbour (R) side: phi_h, phi_b per lane, and the block's share of the
/// free-transport macroscopic flux added to acc (weights included).
/// hL/hR, bL/bR: the block's distributions of the two cells; ghL/ghR, gbL/gbR: their limited
/// gradients laid out [3][B].
template <int D, bool TENSOR, bool SB, bool SECOND>
inline void flux_interior(int B, const FluxConst& F, const BlockVel& V, const double* E,
                          const double* __restrict hL, const double* __restrict hR,
                          const double* __restrict bL, const double* __restrict bR,
                          const double* __restrict ghL, const double* __restrict ghR,
                          const double* __restrict gbL, const double* __restrict gbR,
                          double* __restrict phi_h, double* __restrict phi_b, double acc[5]) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    const EqConst& C = F.eq;
    // lane-invariant geometry in registers (conditional loads from memory block vectorization)
    const double xL0 = F.dxL[0], xL1 = F.dxL[1], xL2 = F.dxL[2];
    const double xR0 = F.dxR[0], xR1 = F.dxR[1], xR2 = F.dxR[2];
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4)
    for (int v = 0; v < B; ++v) {
        const double u0 = V.ux[v], u1 = V.uy[v], u2 = V.uz[v];
        const double un = u0 * F.n[0] + u1 * F.n[1] + u2 * F.n[2];
        const bool pos = un > 0.0;
        // Both sides are loaded and the upwind one selected per lane (branch-free).
        const double hLv = hL[v], hRv = hR[v];
        double hf = pos ? hLv : hRv;
        double bf = 0.0;
        if (SB) {
            const double bLv = bL[v], bRv = bR[v];
            bf = pos ? bLv : bRv;
        }
        double ugh = 0.0, ugb = 0.0;
        if (SECOND) {
            const double l0 = ghL[v], l1 = ghL[B + v], l2 = ghL[2 * B + v];
            const double r0 = ghR[v], r1 = ghR[B + v], r2 = ghR[2 * B + v];
            const double g0 = pos ? l0 : r0, g1 = pos ? l1 : r1, g2 = pos ? l2 : r2;
            const double d0 = pos ? xL0 : xR0;
            const double d1 = pos ? xL1 : xR1;
            const double d2 = pos ? xL2 : xR2;
            hf += g0 * d0 + g1 * d1 + g2 * d2;
            ugh = u0 * g0 + u1 * g1 + u2 * g2;
            if (SB) {
                const double p0 = gbL[v], p1 = gbL[B + v], p2 = gbL[2 * B + v];
                const double m0 = gbR[v], m1 = gbR[B + v], m2 = gbR[2 * B + v];
                const double e0 = pos ? p0 : m0, e1 = pos ? p1 : m1, e2 = pos ? p2 : m2;
                bf += e0 * d0 + e1 * d1 + e2 * d2;
                ugb = u0 * e0 + u1 * e1 + u2 * e2;
            }
        }
        // Interface equilibrium and its Shakhov parts.
        const double c0 = u0 - C.U[0];
        const double c1 = D > 1 ? u1 - C.U[1] : 0.0;
        const double c2 = D > 2 ? u2 - C.U[2] : 0.0;
        const double H0 = eq_H<D, TENSOR>(C, V, E, v, c0, c1, c2);
        double cc = c0 * c0, cq = c0 * C.q[0];
        if (D > 1) cc += c1 * c1, cq += c1 * C.q[1];
        if (D > 2) cc += c2 * c2, cq += c2 * C.q[2];
        const double B0 = C.Bfac * H0;
        const double pre = C.pre * cq;
        const double t = 2.0 * C.lambda * cc;
        const double Hp = pre * (t - D - 2) * H0;
        const double Bp = pre * (t - D) * B0;
        // Spatial slopes (upwind side) and the time slope.
        double usq = u0 * u0;
        if (D > 1) usq += u1 * u1;
        if (D > 2) usq += u2 * u2;
        double S1L = u0 * slope_poly<D>(F.aL[0], u0, u1, u2, usq);
        double S1R = u0 * slope_poly<D>(F.aR[0], u0, u1, u2, usq);
        double S2L = u0 * F.aL[0][4], S2R = u0 * F.aR[0][4];
        if (D > 1) {
            S1L += u1 * slope_poly<D>(F.aL[1], u0, u1, u2, usq);
            S1R += u1 * slope_poly<D>(F.aR[1], u0, u1, u2, usq);
            S2L += u1 * F.aL[1][4];
            S2R += u1 * F.aR[1][4];
        }
        if (D > 2) {
            S1L += u2 * slope_poly<D>(F.aL[2], u0, u1, u2, usq);
            S1R += u2 * slope_poly<D>(F.aR[2], u0, u1, u2, usq);
            S2L += u2 * F.aL[2][4];
            S2R += u2 * F.aR[2][4];
        }
        const double S1 = pos ? S1L : S1R;
        const double S2 = 0.5 * (pos ? S2L : S2R);
        const double polyA = slope_poly<D>(F.A, u0, u1, u2, usq);
        const double hA = 0.5 * F.A[4];
        const double fm_h = un * (F.q4 * hf - F.q5 * ugh);
        const double ph =
            un * (F.q1 * (H0 + Hp) + F.q2 * (S1 * H0 + S2 * B0) + F.q3 * (polyA * H0 + hA * B0)) +
            fm_h;
        phi_h[v] = ph;
        double fm_b = 0.0;
        if (SB) {
            fm_b = un * (F.q4 * bf - F.q5 * ugb);
            phi_b[v] = un * (F.q1 * (B0 + Bp) + F.q2 * (S1 * B0 + S2 * F.xi4 * H0) +
                             F.q3 * (polyA * B0 + hA * F.xi4 * H0)) +
                       fm_b;
        }
        const double wf = V.w[v] * fm_h;
        s0 += wf;
        s1 += wf * u0;
        s2 += wf * u1;
        s3 += wf * u2;
        s4 += 0.5 * V.w[v] * ((u0 * u0 + u1 * u1 + u2 * u2) * fm_h + fm_b);
    }
    acc[0] += s0;
    acc[1] += s1;
    acc[2] += s2;
    acc[3] += s3;
    acc[4] += s4;
}

/// Stage 1 (section 6.3) of one cell and block, in place:
/// f* = f - invV rf + c (f+ - f), c = dt / (2 tau), rf = sum over faces of sigma S Phi.
template <int D, bool TENSOR, bool SB>
inline void stage1_cell(int B, const EqConst& C, const BlockVel& V, const double* E,
                        double* __restrict h, double* __restrict b, const double* __restrict rh,
                        const double* __restrict rb, double invV, double c) {
#pragma omp simd
    for (int v = 0; v < B; ++v) {
        double hp, bp;
        shakhov_lane<D, TENSOR>(C, V, E, v, hp, bp);
        h[v] = h[v] - invV * rh[v] + c * (hp - h[v]);
        if (SB) b[v] = b[v] - invV * rb[v] + c * (bp - b[v]);
    }
}

/// Stage 2 (section 6.3) of one cell and block, f = (f* + c f+) / (1 + c) (skipped when
/// UPDATE is false), and the 17 raw moments of the result added to M: sum w h (1, u, u u^T
/// (6: xx xy xz yy yz zz), u |u|^2) and sum w b (1, u).
template <int D, bool TENSOR, bool SB, bool UPDATE>
inline void stage2_cell(int B, const EqConst& C, const BlockVel& V, const double* E,
                        double* __restrict h, double* __restrict b, double c, double M[17]) {
    double m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, m9 = 0, m10 = 0,
           m11 = 0, m12 = 0, m13 = 0, m14 = 0, m15 = 0, m16 = 0;
    const double inv = 1.0 / (1.0 + c);
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, \
                               m15, m16)
    for (int v = 0; v < B; ++v) {
        double hv = h[v], bv = SB ? b[v] : 0.0;
        if (UPDATE) {
            double hp, bp;
            shakhov_lane<D, TENSOR>(C, V, E, v, hp, bp);
            hv = (hv + c * hp) * inv;
            h[v] = hv;
            if (SB) {
                bv = (bv + c * bp) * inv;
                b[v] = bv;
            }
        }
        const double u0 = V.ux[v], u1 = V.uy[v], u2 = V.uz[v];
        const double w = V.w[v];
        const double wh = w * hv, wb = w * bv;
        const double u2s = u0 * u0 + u1 * u1 + u2 * u2;
        m0 += wh;
        m1 += wh * u0;
        m2 += wh * u1;
        m3 += wh * u2;
        m4 += wh * u0 * u0;
        m5 += wh * u0 * u1;
        m6 += wh * u0 * u2;
        m7 += wh * u1 * u1;
        m8 += wh * u1 * u2;
        m9 += wh * u2 * u2;
        m10 += wh * u0 * u2s;
        m11 += wh * u1 * u2s;
        m12 += wh * u2 * u2s;
        m13 += wb;
        m14 += wb * u0;
        m15 += wb * u1;
        m16 += wb * u2;
    }
    const double m[17] = {m0, m1,  m2,  m3,  m4,  m5,  m6,  m7, m8,
                          m9, m10, m11, m12, m13, m14, m15, m16};
    for (int k = 0; k < 17; ++k) M[k] += m[k];
}

}  // namespace ugks::cpu

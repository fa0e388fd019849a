#pragma once
// Per-velocity loops of the UGKS step on the CPU backend, written so that the compiler vectorizes
// them: the velocity dimension, the stored b and the order are template parameters, the
// Maxwellian comes from an inline exponential, the upwind choice is a per-lane select, and
// velocities are read from one array per component. The formulas are those of
// physics/detail/kinetic_impl.hpp (equilibrium_parts_given_H, micro_flux_H), regrouped: sum_j u_j
// A[a^(j); H] = S1 H + S2 B with S1 = sum_j u_j poly_j, S2 = sum_j u_j aE_j / 2.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ugks/core/types.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks::cpu {

/// exp(x) for x <= 0, written so that it vectorizes (no libm call): Cody-Waite reduction
/// x = n ln2 + r, |r| <= ln2/2, Taylor polynomial of degree 13 (truncation < 5e-18 relative),
/// scaling by 2^n through the exponent bits. Within 2 ulp of exp; 0 for x < -708 (where exp is
/// below 3e-308).
inline double exp_nonpositive(double x) {
    const double xc = x < -708.0 ? -708.0 : x;
    const double shifter = 6755399441055744.0;  // 1.5 * 2^52: t - shifter rounds to an integer
    const double t = xc * 1.4426950408889634074 + shifter;
    const double n = t - shifter;
    // ln2_hi has 32 significant bits, so n ln2_hi is exact for |n| <= 1022
    const double r = (xc - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
    double p = 1.0 / 6227020800.0;  // 1/13!
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    std::int64_t ti;
    std::memcpy(&ti, &t, sizeof ti);
    const std::int64_t e = (ti - 0x4338000000000000LL + 1023) << 52;  // biased exponent of 2^n
    double scale;
    std::memcpy(&scale, &e, sizeof scale);
    return x < -708.0 ? 0.0 : p * scale;
}

/// Velocity tables of the local slots of one block (pointers already offset to the block).
struct BlockVel {
    const double* ux;
    const double* uy;
    const double* uz;
    const double* w;
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

/// H at a lane with peculiar velocity c.
template <int D>
inline double eq_H(const EqConst& C, double c0, double c1, double c2) {
    double s = c0 * c0;
    if (D > 1) s += c1 * c1;
    if (D > 2) s += c2 * c2;
    return C.rhonorm * exp_nonpositive(-C.lambda * s);
}

/// Equilibrium H, B and the Shakhov parts H+, B+ (section 2.4) at the lane velocity u.
template <int D>
inline void shakhov_parts(const EqConst& C, double u0, double u1, double u2, double& H, double& Bm,
                          double& Hp, double& Bp) {
    const double c0 = u0 - C.U[0];
    const double c1 = D > 1 ? u1 - C.U[1] : 0.0;
    const double c2 = D > 2 ? u2 - C.U[2] : 0.0;
    H = eq_H<D>(C, c0, c1, c2);
    double cc = c0 * c0, cq = c0 * C.q[0];
    if (D > 1) cc += c1 * c1, cq += c1 * C.q[1];
    if (D > 2) cc += c2 * c2, cq += c2 * C.q[2];
    Bm = C.Bfac * H;
    const double pre = C.pre * cq;
    const double t = 2.0 * C.lambda * cc;
    Hp = pre * (t - D - 2) * H;
    Bp = pre * (t - D) * Bm;
}

/// Shakhov equilibrium (h+, b+) at the lane velocity u.
template <int D>
inline void shakhov_lane(const EqConst& C, double u0, double u1, double u2, double& hp,
                         double& bp) {
    double H, Bm, Hp, Bp;
    shakhov_parts<D>(C, u0, u1, u2, H, Bm, Hp, Bp);
    hp = H + Hp;
    bp = Bm + Bp;
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
template <int D, bool SB, bool SECOND>
inline void flux_interior(int B, const FluxConst& Fin, const BlockVel& V,
                          const double* __restrict hL, const double* __restrict hR,
                          const double* __restrict bL, const double* __restrict bR,
                          const double* __restrict ghL, const double* __restrict ghR,
                          const double* __restrict gbL, const double* __restrict gbR,
                          double* __restrict phi_h, double* __restrict phi_b, double acc[5]) {
    // Local copies: pointers and constants read through references inside the loop are not
    // hoisted reliably (GCC then gathers through a vector of identical base pointers).
    const FluxConst F = Fin;
    const EqConst& C = F.eq;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
    const double* __restrict wt = V.w;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    // lane-invariant geometry in registers (conditional loads from memory block vectorization)
    const double xL0 = F.dxL[0], xL1 = F.dxL[1], xL2 = F.dxL[2];
    const double xR0 = F.dxR[0], xR1 = F.dxR[1], xR2 = F.dxR[2];
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4)
    for (int v = 0; v < B; ++v) {
        const double u0 = ux[v], u1 = uy[v], u2 = uz[v];
        const double un = u0 * F.n[0] + u1 * F.n[1] + u2 * F.n[2];
        // Both sides are loaded and the upwind one selected per lane by weights 1 and 0 (exact
        // for finite values; a conditional expression is compiled into gathers, which are slow).
        // At un = 0 either side may be taken: every term carries the factor un.
        const double wl = 0.5 + 0.5 * std::copysign(1.0, un), wr = 1.0 - wl;
        double hf = wl * hL[v] + wr * hR[v];
        double bf = SB ? wl * bL[v] + wr * bR[v] : 0.0;
        double ugh = 0.0, ugb = 0.0;
        if (SECOND) {
            const double g0 = wl * ghL[v] + wr * ghR[v];
            const double g1 = wl * ghL[B + v] + wr * ghR[B + v];
            const double g2 = wl * ghL[2 * B + v] + wr * ghR[2 * B + v];
            const double d0 = wl * xL0 + wr * xR0;
            const double d1 = wl * xL1 + wr * xR1;
            const double d2 = wl * xL2 + wr * xR2;
            hf += g0 * d0 + g1 * d1 + g2 * d2;
            ugh = u0 * g0 + u1 * g1 + u2 * g2;
            if (SB) {
                const double e0 = wl * gbL[v] + wr * gbR[v];
                const double e1 = wl * gbL[B + v] + wr * gbR[B + v];
                const double e2 = wl * gbL[2 * B + v] + wr * gbR[2 * B + v];
                bf += e0 * d0 + e1 * d1 + e2 * d2;
                ugb = u0 * e0 + u1 * e1 + u2 * e2;
            }
        }
        // Interface equilibrium and its Shakhov parts.
        double H0, B0, Hp, Bp;
        shakhov_parts<D>(C, u0, u1, u2, H0, B0, Hp, Bp);
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
        const double S1 = wl * S1L + wr * S1R;
        const double S2 = 0.5 * (wl * S2L + wr * S2R);
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
        const double wf = wt[v] * fm_h;
        s0 += wf;
        s1 += wf * u0;
        s2 += wf * u1;
        s3 += wf * u2;
        s4 += 0.5 * wt[v] * ((u0 * u0 + u1 * u1 + u2 * u2) * fm_h + fm_b);
    }
    acc[0] += s0;
    acc[1] += s1;
    acc[2] += s2;
    acc[3] += s3;
    acc[4] += s4;
}

/// Stage 1 (section 6.3) of one cell and block, in place:
/// f* = f - invV rf + c (f+ - f), c = dt / (2 tau), rf = sum over faces of sigma S Phi.
template <int D, bool SB>
inline void stage1_cell(int B, const EqConst& Cin, const BlockVel& V, double* __restrict h,
                        double* __restrict b, const double* __restrict rh,
                        const double* __restrict rb, double invV, double c) {
    const EqConst C = Cin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
#pragma omp simd
    for (int v = 0; v < B; ++v) {
        double hp, bp;
        shakhov_lane<D>(C, ux[v], uy[v], uz[v], hp, bp);
        h[v] = h[v] - invV * rh[v] + c * (hp - h[v]);
        if (SB) b[v] = b[v] - invV * rb[v] + c * (bp - b[v]);
    }
}

/// Stage 2 (section 6.3) of one cell and block, f = (f* + c f+) / (1 + c) (skipped when
/// UPDATE is false), and the 17 raw moments of the result added to M: sum w h (1, u, u u^T
/// (6: xx xy xz yy yz zz), u |u|^2) and sum w b (1, u).
template <int D, bool SB, bool UPDATE>
inline void stage2_cell(int B, const EqConst& Cin, const BlockVel& V, double* __restrict h,
                        double* __restrict b, double c, double M[17]) {
    double m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, m9 = 0, m10 = 0,
           m11 = 0, m12 = 0, m13 = 0, m14 = 0, m15 = 0, m16 = 0;
    const double inv = 1.0 / (1.0 + c);
    const EqConst C = Cin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
    const double* __restrict wt = V.w;
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, \
                               m15, m16)
    for (int v = 0; v < B; ++v) {
        double hv = h[v], bv = SB ? b[v] : 0.0;
        if (UPDATE) {
            double hp, bp;
            shakhov_lane<D>(C, ux[v], uy[v], uz[v], hp, bp);
            hv = (hv + c * hp) * inv;
            h[v] = hv;
            if (SB) {
                bv = (bv + c * bp) * inv;
                b[v] = bv;
            }
        }
        const double u0 = ux[v], u1 = uy[v], u2 = uz[v];
        const double w = wt[v];
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

/// Limited least-squares gradient of one block at owned cell i (sections 4.2-4.3): g [3][B] =
/// psi sum_j c_ij (f_j - f_i), psi = min over the faces of the limiter factor (KIND 0
/// Venkatakrishnan with eps^2 = (K dh)^3 max|f|^2, 1 Barth-Jespersen, 2 none). nbr: the neighbour
/// of each cell face (-1 at a boundary), c: LSQ vectors, dx: x_f - x_i per cell face.
template <int KIND>
inline void gradient_limited_cell(int B, const double* f, index_t i, const index_t* nbr, int nf,
                                  const double* c, const double* dx, double kd3,
                                  double* __restrict g) {
    double buf[4 * 1024];  // block_size <= 1024 (checked by the case parser)
    double* __restrict vmax = buf;
    double* __restrict vmin = vmax + B;
    double* __restrict scale = vmin + B;
    double* __restrict psi = scale + B;
    const double* __restrict fi = f + static_cast<std::size_t>(B) * i;
    double* __restrict g0 = g;
    double* __restrict g1 = g + B;
    double* __restrict g2 = g + 2 * B;
#pragma omp simd
    for (int v = 0; v < B; ++v) {
        g0[v] = g1[v] = g2[v] = 0.0;
        vmax[v] = vmin[v] = fi[v];
        scale[v] = std::abs(fi[v]);
        psi[v] = 1.0;
    }
    for (int k = 0; k < nf; ++k) {
        if (nbr[k] < 0) continue;
        const double* __restrict fj = f + static_cast<std::size_t>(B) * nbr[k];
        const double c0 = c[3 * k], c1 = c[3 * k + 1], c2 = c[3 * k + 2];
#pragma omp simd
        for (int v = 0; v < B; ++v) {
            const double fv = fj[v];
            const double d = fv - fi[v];
            g0[v] += c0 * d;
            g1[v] += c1 * d;
            g2[v] += c2 * d;
            vmax[v] = vmax[v] > fv ? vmax[v] : fv;
            vmin[v] = vmin[v] < fv ? vmin[v] : fv;
            const double a = std::abs(fv);
            scale[v] = scale[v] > a ? scale[v] : a;
        }
    }
    if (KIND == 2) return;
    for (int k = 0; k < nf; ++k) {
        const double x0 = dx[3 * k], x1 = dx[3 * k + 1], x2 = dx[3 * k + 2];
#pragma omp simd
        for (int v = 0; v < B; ++v) {
            const double d2 = g0[v] * x0 + g1[v] * x1 + g2[v] * x2;
            const double up = vmax[v] - fi[v], dn = vmin[v] - fi[v];
            const double d1 = d2 > 0 ? up : dn;
            double r;
            if (KIND == 0) {
                const double eps2 = kd3 * (scale[v] * scale[v]) + 1e-300;
                const double num = (d1 * d1 + eps2) + 2.0 * d1 * d2;
                const double den = d1 * d1 + 2.0 * d2 * d2 + d1 * d2 + eps2;
                r = num / den;  // den > 0 always (eps2 > 0)
            } else {
                r = d1 / (d2 == 0.0 ? 1.0 : d2);
            }
            r = d2 == 0.0 ? 1.0 : r;
            r = r < 1.0 ? r : 1.0;
            psi[v] = r < psi[v] ? r : psi[v];
        }
    }
#pragma omp simd
    for (int v = 0; v < B; ++v) {
        g0[v] *= psi[v];
        g1[v] *= psi[v];
        g2[v] *= psi[v];
    }
}

}  // namespace ugks::cpu

#pragma once
// CPU schedules of the UGKS kernel functions: per cell or face, a SIMD loop over the velocities of
// one block that calls the per-velocity kernel functions (include/ugks/solver/kernels/,
// physics/kinetic.hpp), written so that the compiler vectorizes it: the velocity dimension, the
// stored b and the order are template parameters, the upwind choice is a per-lane blend with
// weights 1 and 0, and velocities are read from one array per component. The CUDA schedules
// (src/solver/cuda/) call the same kernel functions with one thread per velocity.
#include <cmath>

#include "ugks/core/types.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/flux.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"
#include "ugks/solver/kernels/update.hpp"

namespace ugks::cpu {

/// Velocity tables of the local slots of one block (pointers already offset to the block).
struct BlockVel {
    const double* ux;
    const double* uy;
    const double* uz;
    const double* w;
};

// The per-velocity bodies of the SIMD loops below are inline functions of scalar arguments
// (*_lane) that add to scalar reduction variables: GCC 12 turns an array declared inside an `omp
// simd` loop body (a velocity u[3], a slope set, moment sums) into a per-lane "simd array" in
// memory, which stops vectorization or costs stores and reloads per lane (stage 1 stayed scalar,
// stage 2 ran 2.3x slower, docs/performance.md). Arrays local to the inlined lane function are
// kept in registers.

/// Flux of one velocity through an interior face: the upwind value (weights wl = 1, wr = 0 on the
/// owner side: kern::owner_weight), phi_h, phi_b and the free-transport moments (weight included)
/// added to m0..m4. gL, gR (eL, eR): the two cells' gradients of h (b) at this velocity, stride B.
/// DM: the mesh dimension (normal, x_f - x_c and gradient components d >= DM are zero and not
/// read); velocity components d >= D are zero (the callers pass 0): the same sums as with all
/// three components, so the result does not depend on these template parameters.
template <int D, int DM, bool SB, bool SECOND>
inline void flux_interior_lane(const phys::FaceCoeffs& F, double u0, double u1, double u2, double w,
                               double n0, double n1, double n2, const double* xL, const double* xR,
                               double hL, double hR, double bL, double bR, const double* gL,
                               const double* gR, const double* eL, const double* eR, int B,
                               double& phi_h, double& phi_b, double& m0, double& m1, double& m2,
                               double& m3, double& m4) {
    const double u[3] = {u0, u1, u2};
    double un = u0 * n0;
    if (DM > 1) un += u1 * n1;
    if (DM > 2) un += u2 * n2;
    // Both sides are loaded and the upwind one selected by weights 1 and 0 (a conditional
    // expression is compiled into gathers, which are slow).
    const double wl = kern::owner_weight(un), wr = 1.0 - wl;
    double hf = wl * hL + wr * hR;
    double bf = SB ? wl * bL + wr * bR : 0.0;
    double ugh = 0.0, ugb = 0.0;
    if (SECOND) {
        const double d0 = wl * xL[0] + wr * xR[0];
        const double d1 = DM > 1 ? wl * xL[1] + wr * xR[1] : 0.0;
        const double d2 = DM > 2 ? wl * xL[2] + wr * xR[2] : 0.0;
        kern::upwind_value<DM>(hf, wl * gL[0] + wr * gR[0], DM > 1 ? wl * gL[B] + wr * gR[B] : 0.0,
                               DM > 2 ? wl * gL[2 * B] + wr * gR[2 * B] : 0.0, d0, d1, d2, u0, u1,
                               u2, hf, ugh);
        if (SB)
            kern::upwind_value<DM>(
                bf, wl * eL[0] + wr * eR[0], DM > 1 ? wl * eL[B] + wr * eR[B] : 0.0,
                DM > 2 ? wl * eL[2 * B] + wr * eR[2 * B] : 0.0, d0, d1, d2, u0, u1, u2, bf, ugb);
    }
    double u2s = u0 * u0;
    if (D > 1) u2s += u1 * u1;
    if (D > 2) u2s += u2 * u2;
    // The upwind side's slope coefficients selected per lane (a blend of two broadcasts), then
    // one slope sum over the DM directions of the mesh (the slopes of the others are zero).
    phys::Slope a[DM];
    for (int j = 0; j < DM; ++j) {
        const bool own = un > 0;
        a[j].a0 = own ? F.aL[j].a0 : F.aR[j].a0;
        for (int d = 0; d < D; ++d) a[j].aU[d] = own ? F.aL[j].aU[d] : F.aR[j].aU[d];
        a[j].aE = own ? F.aL[j].aE : F.aR[j].aE;
    }
    const double H0 = phys::maxwellian_H<D>(F.eq, u);
    double B0, Hp, Bp, sh, sb;
    phys::shakhov_parts<D, SB>(F.eq, u, H0, B0, Hp, Bp);
    phys::slope_sums<D, SB, DM>(a, u, u2s, H0, B0, F.eq.xi4, sh, sb);
    double fmh, fmb;
    phys::micro_flux_given_slopes<D, SB>(F.eq, sh, sb, F.A, F.tc, u, u2s, un, H0, B0, Hp, Bp, hf,
                                         bf, ugh, ugb, phi_h, phi_b, fmh, fmb);
    kern::add_flux_moments<D, SB>(w, u, u2s, fmh, fmb, m0, m1, m2, m3, m4);
}

/// Microscopic flux of one block through an interior face (section 5.10) with the upwind values
/// of the owner (L) or neighbour (R) side: phi_h, phi_b per lane, and the block's share of the
/// free-transport macroscopic flux added to acc (weights included).
/// hL/hR, bL/bR: the block's distributions of the two cells; ghL/ghR, gbL/gbR: their limited
/// gradients laid out [3][B]; n the face normal, dxL/dxR = x_f - x_L, x_f - x_R. DM: the mesh
/// dimension (flux_interior_lane).
template <int D, int DM, bool SB, bool SECOND>
inline void flux_interior(int B, const phys::FaceCoeffs& Fin, const double* n, const double* dxL,
                          const double* dxR, const BlockVel& V, const double* __restrict hL,
                          const double* __restrict hR, const double* __restrict bL,
                          const double* __restrict bR, const double* __restrict ghL,
                          const double* __restrict ghR, const double* __restrict gbL,
                          const double* __restrict gbR, double* __restrict phi_h,
                          double* __restrict phi_b, double acc[5]) {
    // Local copies: pointers and constants read through references inside the loop are not
    // hoisted reliably (GCC then gathers through a vector of identical base pointers).
    const phys::FaceCoeffs F = Fin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
    const double* __restrict wt = V.w;
    const double n0 = n[0], n1 = n[1], n2 = n[2];
    double m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0;
    if constexpr (SB) {
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4)
        for (int v = 0; v < B; ++v)
            flux_interior_lane<D, DM, true, SECOND>(
                F, ux[v], D > 1 ? uy[v] : 0.0, D > 2 ? uz[v] : 0.0, wt[v], n0, n1, n2, dxL, dxR,
                hL[v], hR[v], bL[v], bR[v], SECOND ? ghL + v : nullptr, SECOND ? ghR + v : nullptr,
                SECOND ? gbL + v : nullptr, SECOND ? gbR + v : nullptr, B, phi_h[v], phi_b[v], m0,
                m1, m2, m3, m4);
    } else {
        double unused = 0.0;
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4)
        for (int v = 0; v < B; ++v)
            flux_interior_lane<D, DM, false, SECOND>(
                F, ux[v], D > 1 ? uy[v] : 0.0, D > 2 ? uz[v] : 0.0, wt[v], n0, n1, n2, dxL, dxR,
                hL[v], hR[v], 0.0, 0.0, SECOND ? ghL + v : nullptr, SECOND ? ghR + v : nullptr,
                nullptr, nullptr, B, phi_h[v], unused, m0, m1, m2, m3, m4);
    }
    acc[0] += m0;
    acc[1] += m1;
    acc[2] += m2;
    acc[3] += m3;
    acc[4] += m4;
}

/// Stage 1 of one velocity (kern::stage1_value with the cell's Shakhov equilibrium of step n and,
/// FORCE, the body-force source over span = dt/2, kern::force_factor of the cell's slope aF).
/// The velocity array lives in this function, not in the SIMD loop that calls it: GCC 12 turns an
/// array declared inside an `omp simd` loop body and passed by pointer into a per-lane "simd
/// array" that it then cannot vectorize here (the loop stayed scalar: stage 1 2x slower).
template <int D, bool SB, bool FORCE>
inline void stage1_lane(const phys::EqConst& C, double u0, double u1, double u2, double& h,
                        double& b, double rh, double rb, double invV, double c,
                        const phys::Slope& aF, double span) {
    const double u[3] = {u0, u1, u2};
    const double H = phys::maxwellian_H<D>(C, u);
    double B, Hp, Bp;
    phys::shakhov_parts<D, SB>(C, u, H, B, Hp, Bp);
    if constexpr (FORCE) {
        const double s = kern::force_factor<D>(aF, span, u);
        h = kern::stage1_value(h, rh, invV, c, H + Hp, s * H);
        if (SB) b = kern::stage1_value(b, rb, invV, c, B + Bp, s * B);
    } else {
        h = kern::stage1_value(h, rh, invV, c, H + Hp);
        if (SB) b = kern::stage1_value(b, rb, invV, c, B + Bp);
    }
}

/// Stage 1 (section 6.3) of one cell and block, in place (stage1_lane per velocity); rh, rb: sum
/// over the faces of sigma S Phi; FORCE: the body-force source of the cell's slope aF over span =
/// dt/2. (The loops are written per FORCE, not in a lambda: GCC 12 does not vectorize an
/// `omp simd` reduction over variables a lambda captures by reference.)
template <int D, bool SB, bool FORCE>
inline void stage1_cell_loop(int B, const phys::EqConst& Cin, const BlockVel& V,
                             double* __restrict h, double* __restrict b,
                             const double* __restrict rh, const double* __restrict rb, double invV,
                             double c, const phys::Slope& aFin, double span) {
    const phys::EqConst C = Cin;
    const phys::Slope aF = aFin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
    if constexpr (SB) {
#pragma omp simd
        for (int v = 0; v < B; ++v)
            stage1_lane<D, true, FORCE>(C, ux[v], uy[v], uz[v], h[v], b[v], rh[v], rb[v], invV, c,
                                        aF, span);
    } else {
        double unused = 0.0;
#pragma omp simd
        for (int v = 0; v < B; ++v)
            stage1_lane<D, false, FORCE>(C, ux[v], uy[v], uz[v], h[v], unused, rh[v], 0.0, invV, c,
                                         aF, span);
    }
}

/// Stage 1 of one cell and block; aF: the cell's body-force slope (null without a force).
template <int D, bool SB>
inline void stage1_cell(int B, const phys::EqConst& C, const BlockVel& V, double* __restrict h,
                        double* __restrict b, const double* __restrict rh,
                        const double* __restrict rb, double invV, double c, const phys::Slope* aF,
                        double span) {
    if (aF)
        stage1_cell_loop<D, SB, true>(B, C, V, h, b, rh, rb, invV, c, *aF, span);
    else
        stage1_cell_loop<D, SB, false>(B, C, V, h, b, rh, rb, invV, c, phys::Slope{}, span);
}

/// Stage 2 of one velocity (kern::stage2_value, with the body-force source of the new state when
/// FORCE; skipped when UPDATE is false) and its raw moments (kern::add_raw_moments) added to
/// m0..m16, the reduction variables of the caller's SIMD loop.
template <int D, bool SB, bool UPDATE, bool FORCE>
inline void stage2_lane(const phys::EqConst& C, double u0, double u1, double u2, double w,
                        double& h, double& b, double c, double inv, const phys::Slope& aF,
                        double span, double& m0, double& m1, double& m2, double& m3, double& m4,
                        double& m5, double& m6, double& m7, double& m8, double& m9, double& m10,
                        double& m11, double& m12, double& m13, double& m14, double& m15,
                        double& m16) {
    const double u[3] = {u0, u1, u2};
    double hv = h, bv = SB ? b : 0.0;
    if (UPDATE) {
        const double H = phys::maxwellian_H<D>(C, u);
        double B, Hp, Bp;
        phys::shakhov_parts<D, SB>(C, u, H, B, Hp, Bp);
        const double s = FORCE ? kern::force_factor<D>(aF, span, u) : 0.0;
        hv = FORCE ? kern::stage2_value(hv, c, inv, H + Hp, s * H)
                   : kern::stage2_value(hv, c, inv, H + Hp);
        h = hv;
        if (SB) {
            bv = FORCE ? kern::stage2_value(bv, c, inv, B + Bp, s * B)
                       : kern::stage2_value(bv, c, inv, B + Bp);
            b = bv;
        }
    }
    kern::add_raw_moments<SB ? 17 : 13>(w, u, hv, bv, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10,
                                        m11, m12, m13, m14, m15, m16);
}

/// Stage 2 (section 6.3) of one cell and block (stage2_lane per velocity) and the raw moments of
/// the result added to M[17]; FORCE: the body-force source of the new state's slope aF over span =
/// dt/2 (loops per FORCE: see stage1_cell_loop).
template <int D, bool SB, bool UPDATE, bool FORCE>
inline void stage2_cell_loop(int B, const phys::EqConst& Cin, const BlockVel& V,
                             double* __restrict h, double* __restrict b, double c,
                             const phys::Slope& aFin, double span, double M[17]) {
    const double inv = 1.0 / (1.0 + c);
    const phys::EqConst C = Cin;
    const phys::Slope aF = aFin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
    const double* __restrict wt = V.w;
    double m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, m9 = 0, m10 = 0,
           m11 = 0, m12 = 0, m13 = 0, m14 = 0, m15 = 0, m16 = 0;
    if constexpr (SB) {
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, \
                               m15, m16)
        for (int v = 0; v < B; ++v)
            stage2_lane<D, true, UPDATE, FORCE>(C, ux[v], uy[v], uz[v], wt[v], h[v], b[v], c, inv,
                                                aF, span, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9,
                                                m10, m11, m12, m13, m14, m15, m16);
    } else {
        double unused = 0.0;
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12)
        for (int v = 0; v < B; ++v)
            stage2_lane<D, false, UPDATE, FORCE>(C, ux[v], uy[v], uz[v], wt[v], h[v], unused, c,
                                                 inv, aF, span, m0, m1, m2, m3, m4, m5, m6, m7, m8,
                                                 m9, m10, m11, m12, m13, m14, m15, m16);
    }
    const double sums[17] = {m0, m1,  m2,  m3,  m4,  m5,  m6,  m7, m8,
                             m9, m10, m11, m12, m13, m14, m15, m16};
    for (int k = 0; k < 17; ++k) M[k] += sums[k];
}

/// Stage 2 of one cell and block and its raw moments; aF: the new state's body-force slope (null
/// without a force).
template <int D, bool SB, bool UPDATE>
inline void stage2_cell(int B, const phys::EqConst& C, const BlockVel& V, double* __restrict h,
                        double* __restrict b, double c, const phys::Slope* aF, double span,
                        double M[17]) {
    if (UPDATE && aF)
        stage2_cell_loop<D, SB, UPDATE, true>(B, C, V, h, b, c, *aF, span, M);
    else
        stage2_cell_loop<D, SB, UPDATE, false>(B, C, V, h, b, c, phys::Slope{}, span, M);
}

/// gradient_limited_cell on the W velocities v0 .. v0 + W - 1 of the block: the sums, bounds and
/// factors of those velocities stay in registers across the cell's faces. DM: the mesh dimension;
/// the gradient components d >= DM are zero (the LSQ vectors and x_f - x_i have no such
/// component), so they are neither formed nor stored: the rows d >= DM of g keep the zeros they
/// were allocated with (the same values and sums as with all three components: bit-identical).
template <int KIND, int W, int DM>
inline void gradient_limited_lanes(int B, int v0, const double* f, index_t i, const index_t* nbr,
                                   int nf, const double* c, const double* dx, double kd3,
                                   double* __restrict g, int mode, std::uint16_t* __restrict code) {
    const double* __restrict fi = f + static_cast<std::size_t>(B) * i + v0;
    double a0[W], a1[W], a2[W], vmax[W], vmin[W], scale[W], psi[W];
#pragma omp simd
    for (int l = 0; l < W; ++l) {
        a0[l] = a1[l] = a2[l] = 0.0;
        vmax[l] = vmin[l] = fi[l];
        scale[l] = std::abs(fi[l]);
        psi[l] = 1.0;
    }
    for (int k = 0; k < nf; ++k) {
        if (nbr[k] < 0) continue;
        const double* __restrict fj = f + static_cast<std::size_t>(B) * nbr[k] + v0;
        const double c0 = c[3 * k], c1 = DM > 1 ? c[3 * k + 1] : 0.0,
                     c2 = DM > 2 ? c[3 * k + 2] : 0.0;
#pragma omp simd
        for (int l = 0; l < W; ++l)
            kern::lsq_add<DM>(c0, c1, c2, fj[l], fi[l], a0[l], a1[l], a2[l], vmax[l], vmin[l],
                              scale[l]);
    }
    if (KIND != kern::kNoLimiter) {
        // kern::limiter_psi's calls, with the faces outside the lanes: scaled values, the smallest
        // fraction num / den per lane, one division
        double sn[W], up[W], dn[W], sc[W], N[W], Dn[W];
#pragma omp simd
        for (int l = 0; l < W; ++l) {
            sn[l] = kern::limiter_norm(scale[l]);
            up[l] = (vmax[l] - fi[l]) * sn[l];
            dn[l] = (vmin[l] - fi[l]) * sn[l];
            sc[l] = scale[l] * sn[l];
            N[l] = Dn[l] = 1.0;
        }
        for (int k = 0; k < nf; ++k) {
            const double x0 = dx[3 * k], x1 = dx[3 * k + 1], x2 = dx[3 * k + 2];
#pragma omp simd
            for (int l = 0; l < W; ++l) {
                double d2 = a0[l] * x0;
                if (DM > 1) d2 += a1[l] * x1;
                if (DM > 2) d2 += a2[l] * x2;
                double num, den;
                kern::limiter_fraction(KIND, up[l], dn[l], d2 * sn[l], kd3, sc[l], num, den);
                kern::limiter_keep_smaller(num, den, N[l], Dn[l]);
            }
        }
#pragma omp simd
        for (int l = 0; l < W; ++l) psi[l] = N[l] / Dn[l];
        if (mode == kern::kLimiterFrozen)
            for (int l = 0; l < W; ++l) psi[l] = kern::limiter_frozen(psi[l], code[v0 + l]);
    }
#pragma omp simd
    for (int l = 0; l < W; ++l) {
        g[v0 + l] = a0[l] * psi[l];
        if (DM > 1) g[B + v0 + l] = a1[l] * psi[l];
        if (DM > 2) g[2 * B + v0 + l] = a2[l] * psi[l];
    }
}

/// Limited least-squares gradient of one block at owned cell i (sections 4.2-4.3): g [3][B] =
/// psi sum_j c_ij (f_j - f_i) (kern::lsq_add, kern::limiter_psi's steps; KIND a kern::LimiterKind).
/// nbr: the neighbour of each of the cell's nf LSQ slots (-1 at a boundary), c: LSQ vectors,
/// dx: x_f - x_i per slot. mode (kern::LimiterMode) with code, the cell's B stored factors of this
/// block when frozen (kern::limiter_frozen; docs/steady.md section 7.10). The velocities go 16 at a
/// time through gradient_limited_lanes, then 8, then one by one (16 was the fastest of 8, 16, 32 on
/// the 45^2 x 28^2 cavity, docs/performance.md); each velocity sees the same operations in the
/// same order whatever its chunk, so the result does not depend on the block size. DM: the mesh
/// dimension (rows d >= DM of g are left as they are: zeros).
template <int KIND, int DM>
inline void gradient_limited_cell(int B, const double* f, index_t i, const index_t* nbr, int nf,
                                  const double* c, const double* dx, double kd3,
                                  double* __restrict g, int mode, std::uint16_t* __restrict code) {
    int v0 = 0;
    for (; v0 + 16 <= B; v0 += 16)
        gradient_limited_lanes<KIND, 16, DM>(B, v0, f, i, nbr, nf, c, dx, kd3, g, mode, code);
    for (; v0 + 8 <= B; v0 += 8)
        gradient_limited_lanes<KIND, 8, DM>(B, v0, f, i, nbr, nf, c, dx, kd3, g, mode, code);
    for (; v0 < B; ++v0)
        gradient_limited_lanes<KIND, 1, DM>(B, v0, f, i, nbr, nf, c, dx, kd3, g, mode, code);
}

}  // namespace ugks::cpu

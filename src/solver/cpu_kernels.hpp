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

/// Microscopic flux of one block through an interior face (section 5.10) with the upwind values
/// of the owner (L) or neighbour (R) side: phi_h, phi_b per lane, and the block's share of the
/// free-transport macroscopic flux added to acc (weights included).
/// hL/hR, bL/bR: the block's distributions of the two cells; ghL/ghR, gbL/gbR: their limited
/// gradients laid out [3][B]; n the face normal, dxL/dxR = x_f - x_L, x_f - x_R.
template <int D, bool SB, bool SECOND>
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
    const double xL0 = dxL[0], xL1 = dxL[1], xL2 = dxL[2];
    const double xR0 = dxR[0], xR1 = dxR[1], xR2 = dxR[2];
    double M[5] = {0, 0, 0, 0, 0};
#pragma omp simd reduction(+ : M[:5])
    for (int v = 0; v < B; ++v) {
        const double u[3] = {ux[v], uy[v], uz[v]};
        const double un = u[0] * n0 + u[1] * n1 + u[2] * n2;
        // Both sides are loaded and the upwind one selected per lane by weights 1 and 0 (a
        // conditional expression is compiled into gathers, which are slow).
        const double wl = kern::owner_weight(un), wr = 1.0 - wl;
        double hf = wl * hL[v] + wr * hR[v];
        double bf = SB ? wl * bL[v] + wr * bR[v] : 0.0;
        double ugh = 0.0, ugb = 0.0;
        if (SECOND) {
            const double d0 = wl * xL0 + wr * xR0;
            const double d1 = wl * xL1 + wr * xR1;
            const double d2 = wl * xL2 + wr * xR2;
            kern::upwind_value(hf, wl * ghL[v] + wr * ghR[v], wl * ghL[B + v] + wr * ghR[B + v],
                               wl * ghL[2 * B + v] + wr * ghR[2 * B + v], d0, d1, d2, u[0], u[1],
                               u[2], hf, ugh);
            if (SB)
                kern::upwind_value(bf, wl * gbL[v] + wr * gbR[v], wl * gbL[B + v] + wr * gbR[B + v],
                                   wl * gbL[2 * B + v] + wr * gbR[2 * B + v], d0, d1, d2, u[0],
                                   u[1], u[2], bf, ugb);
        }
        double u2 = u[0] * u[0];
        if (D > 1) u2 += u[1] * u[1];
        if (D > 2) u2 += u[2] * u[2];
        phys::Slope a[3];
        kern::upwind_slopes<D>(wl, F.aL, F.aR, a);
        const double H0 = phys::maxwellian_H<D>(F.eq, u);
        double ph, pb, fmh, fmb;
        phys::micro_flux_lane<D, SB>(F.eq, a, F.A, F.tc, u, u2, un, H0, hf, bf, ugh, ugb, ph, pb,
                                     fmh, fmb);
        phi_h[v] = ph;
        if (SB) phi_b[v] = pb;
        kern::add_flux_moments<D, SB>(wt[v], u, u2, fmh, fmb, M);
    }
    for (int e = 0; e < 5; ++e) acc[e] += M[e];
}

/// Stage 1 (section 6.3) of one cell and block, in place (kern::stage1_value with the cell's
/// Shakhov equilibrium of step n); rh, rb: sum over the faces of sigma S Phi.
template <int D, bool SB>
inline void stage1_cell(int B, const phys::EqConst& Cin, const BlockVel& V, double* __restrict h,
                        double* __restrict b, const double* __restrict rh,
                        const double* __restrict rb, double invV, double c) {
    const phys::EqConst C = Cin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
#pragma omp simd
    for (int v = 0; v < B; ++v) {
        const double u[3] = {ux[v], uy[v], uz[v]};
        double hp, bp;
        phys::shakhov_given_H<D, SB>(C, u, phys::maxwellian_H<D>(C, u), hp, bp);
        h[v] = kern::stage1_value(h[v], rh[v], invV, c, hp);
        if (SB) b[v] = kern::stage1_value(b[v], rb[v], invV, c, bp);
    }
}

/// Stage 2 (section 6.3) of one cell and block (kern::stage2_value; skipped when UPDATE is
/// false) and the raw moments of the result added to M[17] (kern::add_raw_moments).
template <int D, bool SB, bool UPDATE>
inline void stage2_cell(int B, const phys::EqConst& Cin, const BlockVel& V, double* __restrict h,
                        double* __restrict b, double c, double M[17]) {
    constexpr int NM = SB ? 17 : 13;
    double Ml[NM];
    for (int k = 0; k < NM; ++k) Ml[k] = 0.0;
    const double inv = 1.0 / (1.0 + c);
    const phys::EqConst C = Cin;
    const double* __restrict ux = V.ux;
    const double* __restrict uy = V.uy;
    const double* __restrict uz = V.uz;
    const double* __restrict wt = V.w;
#pragma omp simd reduction(+ : Ml[:NM])
    for (int v = 0; v < B; ++v) {
        const double u[3] = {ux[v], uy[v], uz[v]};
        double hv = h[v], bv = SB ? b[v] : 0.0;
        if (UPDATE) {
            double hp, bp;
            phys::shakhov_given_H<D, SB>(C, u, phys::maxwellian_H<D>(C, u), hp, bp);
            hv = kern::stage2_value(hv, c, inv, hp);
            h[v] = hv;
            if (SB) {
                bv = kern::stage2_value(bv, c, inv, bp);
                b[v] = bv;
            }
        }
        kern::add_raw_moments<NM>(wt[v], u, hv, bv, Ml);
    }
    for (int k = 0; k < NM; ++k) M[k] += Ml[k];
}

/// Limited least-squares gradient of one block at owned cell i (sections 4.2-4.3): g [3][B] =
/// psi sum_j c_ij (f_j - f_i) (kern::lsq_add, kern::limiter_ratio; KIND a kern::LimiterKind).
/// nbr: the neighbour of each of the cell's nf LSQ slots (-1 at a boundary), c: LSQ vectors,
/// dx: x_f - x_i per slot.
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
        for (int v = 0; v < B; ++v)
            kern::lsq_add(c0, c1, c2, fj[v], fi[v], g0[v], g1[v], g2[v], vmax[v], vmin[v],
                          scale[v]);
    }
    if (KIND == kern::kNoLimiter) return;
    for (int k = 0; k < nf; ++k) {
        const double x0 = dx[3 * k], x1 = dx[3 * k + 1], x2 = dx[3 * k + 2];
#pragma omp simd
        for (int v = 0; v < B; ++v) {
            const double d2 = g0[v] * x0 + g1[v] * x1 + g2[v] * x2;
            const double r =
                kern::limiter_ratio(KIND, vmax[v] - fi[v], vmin[v] - fi[v], d2, kd3, scale[v]);
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

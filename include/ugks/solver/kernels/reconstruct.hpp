#pragma once
/// Reconstruction kernel functions (docs/formulation.md sections 4.2-4.4), written once for both
/// backends: least-squares gradient accumulation, the limiter factor of one face, the limited
/// gradient of the five conservative variables of a cell, and the upwind interface value.
/// The CPU schedule calls the per-velocity pieces inside SIMD loops over the velocities of a block
/// (cells outside), the CUDA schedule with one thread per (cell, velocity).
#include <cstdint>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/device/math.hpp"

namespace ugks::kern {

/// Limiters of section 4.3 (numerics.limiter).
enum LimiterKind : int { kVenkatakrishnan = 0, kBarthJespersen = 1, kNoLimiter = 2 };

/// Limiter freezing of steady runs (time.limiter_freeze, docs/steady.md section 7.10): live (the
/// factor of the current state, the default) or frozen (the smaller of the stored factor and the
/// live one, which is stored: from the freezing step on a factor can fall, never rise again).
enum LimiterMode : int { kLimiterLive = 0, kLimiterFrozen = 1 };

/// A stored limiter factor of a distribution: psi in [0, 1] in 16 bits (resolution 1.5e-5),
/// rounded up (limiter_value(limiter_code(psi)) >= psi up to 1.5e-11, so a factor that does not
/// change is applied unchanged), and the value a code stands for. limiter_code(limiter_value(c))
/// == c for every code.
UGKS_HOST_DEVICE inline std::uint16_t limiter_code(double psi) {
    const double x = psi * 65535.0 - 1e-6;  // (absorbs the rounding of c / 65535 * 65535)
    if (!(x > 0.0)) return 0;
    if (x >= 65534.0) return 65535;
    const auto c = static_cast<std::uint16_t>(x);  // floor
    return static_cast<std::uint16_t>(c + (x > c ? 1 : 0));
}
UGKS_HOST_DEVICE inline double limiter_value(std::uint16_t code) { return code / 65535.0; }

/// The factor a distribution's gradient is multiplied by when the limiter is frozen: the smaller
/// of the live factor psi and the value of the stored code, which becomes the smaller of itself
/// and the live factor's code. Depends only on (psi, stored code), so a restart from a checkpoint
/// of the codes continues bit for bit.
UGKS_HOST_DEVICE inline double limiter_frozen(double psi, std::uint16_t& code) {
    const std::uint16_t c = limiter_code(psi);
    const double v = limiter_value(code);
    code = c < code ? c : code;
    return psi < v ? psi : v;
}

/// One neighbour's contribution to the least-squares gradient and to the limiter bounds of a
/// value f_i (4.2a): g += c_ij (f_j - f_i); vmax, vmin over the neighbours' values; scale =
/// max |f| (for the Venkatakrishnan threshold). DM < 3: the components d >= DM are known to be zero
/// (the mesh dimension: the LSQ vectors have no such component) and are left alone.
template <int DM = 3>
UGKS_HOST_DEVICE inline void lsq_add(double c0, double c1, double c2, double fj, double fi,
                                     double& g0, double& g1, double& g2, double& vmax, double& vmin,
                                     double& scale) {
    const double d = fj - fi;
    g0 += c0 * d;
    if (DM > 1) g1 += c1 * d;
    if (DM > 2) g2 += c2 * d;
    vmax = vmax > fj ? vmax : fj;
    vmin = vmin < fj ? vmin : fj;
    const double a = fj < 0 ? -fj : fj;
    scale = scale > a ? scale : a;
}

/// The limiter ratio of one face (4.3a, 4.3b) as a fraction num / den with den > 0 and num >= 0
/// (the ratio is num / den, capped at 1 by the caller): d2 = g.(x_f - x_i) the unlimited increment
/// to the face, up = vmax - f_i, dn = vmin - f_i; Venkatakrishnan with eps^2 = (K dh)^3 scale^2,
/// Barth-Jespersen |d1| / |d2| (d1 and d2 have the same sign or d1 = 0). 1 / 1 where d2 = 0.
UGKS_HOST_DEVICE inline void limiter_fraction(int kind, double up, double dn, double d2, double kd3,
                                              double scale, double& num, double& den) {
    const double d1 = d2 > 0 ? up : dn;
    if (kind == kVenkatakrishnan) {
        const double eps2 = kd3 * (scale * scale) + 1e-300;
        num = (d1 * d1 + eps2) + 2.0 * d1 * d2;
        den = d1 * d1 + 2.0 * d2 * d2 + d1 * d2 + eps2;  // > 0 always (eps2 > 0)
    } else {
        num = d1 < 0 ? -d1 : d1;
        den = d2 < 0 ? -d2 : d2;
    }
    num = d2 == 0.0 ? 1.0 : num;
    den = d2 == 0.0 ? 1.0 : den;
}

/// The limiter factor of one face: limiter_fraction divided out, capped at 1.
UGKS_HOST_DEVICE inline double limiter_ratio(int kind, double up, double dn, double d2, double kd3,
                                             double scale) {
    double num, den;
    limiter_fraction(kind, up, dn, d2, kd3, scale, num, den);
    const double r = num / den;
    return r < 1.0 ? r : 1.0;
}

/// The smaller of two limiter fractions without a division (den, D > 0): N / D becomes num / den
/// when num / den < N / D. Started at 1 / 1, N / D ends as the minimum over the faces capped at
/// 1, the limiter factor, for one division per velocity instead of one per face
/// (docs/formulation.md section 4.3).
UGKS_HOST_DEVICE inline void limiter_keep_smaller(double num, double den, double& N, double& D) {
    const bool smaller = num * D < N * den;
    N = smaller ? num : N;
    D = smaller ? den : D;
}

/// The power of two 2^-e that brings scale (the largest |f| of the stencil, >= 0) into [1, 2);
/// 1 where scale is 0, subnormal or beyond 2^1022. Multiplying up, dn, d2 and scale by it changes
/// no rounding (an exact scaling) and keeps the cross products of limiter_keep_smaller away from
/// underflow for distributions far in a Maxwellian's tail (values near 1e-100 would otherwise give
/// products below the smallest double).
UGKS_HOST_DEVICE inline double limiter_norm(double scale) {
    const std::int64_t e = (dev::double_bits(scale) >> 52) & 0x7ff;  // biased exponent
    return dev::bits_double((e >= 1 && e <= 2045 ? 2046 - e : 1023) << 52);
}

/// Limited least-squares gradient of the five conservative variables of owned cell i (sections
/// 4.2-4.3) into g[15] ([component][x, y, z]). Cell-face entries k of cell i are
/// cf_off[i]..cf_off[i+1] with LSQ slots lsq_off[i] + (k - cf_off[i]); nbr: the neighbour cell of
/// each slot (-1 at a boundary, whose ghost is folded into the LSQ matrix); lsq, slot_dx: 3 per
/// slot; kd3 = (K dh)^3 of the cell. mode (LimiterMode) with psi_store, the cell's five stored
/// factors (full precision) when frozen.
UGKS_HOST_DEVICE inline void gradient_W_cell(index_t i, const double* W, const index_t* lsq_off,
                                             const index_t* nbr, const double* lsq,
                                             const double* slot_dx, int kind, double kd3, double* g,
                                             int mode, double* psi_store) {
    double vmax[5], vmin[5], scale[5];
    for (int e = 0; e < 15; ++e) g[e] = 0.0;
    for (int e = 0; e < 5; ++e) {
        const double wi = W[5 * i + e];
        vmax[e] = vmin[e] = wi;
        scale[e] = wi < 0 ? -wi : wi;
    }
    const index_t s0 = lsq_off[i], s1 = lsq_off[i + 1];
    for (index_t slot = s0; slot < s1; ++slot) {
        const index_t j = nbr[slot];
        if (j < 0) continue;
        const double* c = &lsq[3 * slot];
        for (int e = 0; e < 5; ++e)
            lsq_add(c[0], c[1], c[2], W[5 * j + e], W[5 * i + e], g[3 * e], g[3 * e + 1],
                    g[3 * e + 2], vmax[e], vmin[e], scale[e]);
    }
    if (kind == kNoLimiter) return;
    for (int e = 0; e < 5; ++e) {
        const double wi = W[5 * i + e];
        double psi = 1.0;
        for (index_t slot = s0; slot < s1; ++slot) {
            const double* dx = &slot_dx[3 * slot];
            const double d2 = g[3 * e] * dx[0] + g[3 * e + 1] * dx[1] + g[3 * e + 2] * dx[2];
            const double r = limiter_ratio(kind, vmax[e] - wi, vmin[e] - wi, d2, kd3, scale[e]);
            psi = r < psi ? r : psi;
        }
        if (mode == kLimiterFrozen) {
            psi = psi < psi_store[e] ? psi : psi_store[e];
            psi_store[e] = psi;
        }
        for (int d = 0; d < 3; ++d) g[3 * e + d] *= psi;
    }
}

/// The limiter factor psi of one velocity of cell i (the minimum of the face ratios over the cell's
/// LSQ slots s0..s1, capped at 1) for the unlimited gradient (g0, g1, g2) of the value fi: the
/// values scaled by limiter_norm(scale), the smallest fraction kept by limiter_keep_smaller, one
/// division. The CPU's lane loop (src/solver/cpu_kernels.hpp) makes the same calls in the same
/// order.
UGKS_HOST_DEVICE inline double limiter_psi(int kind, index_t s0, index_t s1, const double* slot_dx,
                                           double g0, double g1, double g2, double fi, double vmax,
                                           double vmin, double scale, double kd3) {
    const double s = limiter_norm(scale);
    const double up = (vmax - fi) * s, dn = (vmin - fi) * s, sc = scale * s;
    double N = 1.0, D = 1.0;
    for (index_t k = s0; k < s1; ++k) {
        const double* dx = &slot_dx[3 * k];
        const double d2 = (g0 * dx[0] + g1 * dx[1] + g2 * dx[2]) * s;
        double num, den;
        limiter_fraction(kind, up, dn, d2, kd3, sc, num, den);
        limiter_keep_smaller(num, den, N, D);
    }
    return N / D;
}

/// Upwind interface value of one distribution at one velocity (4.4a): the upwind cell's value f
/// plus its limited gradient g times x_f - x_c (dx); also u.g, the free-transport slope term of
/// section 5.9. First order: g = 0. DM < 3: the gradient components d >= DM are zero (the mesh
/// dimension) and are not added (the same value).
template <int DM = 3>
UGKS_HOST_DEVICE inline void upwind_value(double f, double g0, double g1, double g2, double dx0,
                                          double dx1, double dx2, double u0, double u1, double u2,
                                          double& ff, double& ug) {
    ff = f + g0 * dx0;
    ug = u0 * g0;
    if (DM > 1) {
        ff += g1 * dx1;
        ug += u1 * g1;
    }
    if (DM > 2) {
        ff += g2 * dx2;
        ug += u2 * g2;
    }
}

}  // namespace ugks::kern

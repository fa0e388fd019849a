#pragma once
/// Math functions whose best form differs between the backends, behind one name so that the
/// physics that calls them is written once.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ugks/device/macros.hpp"

namespace ugks::dev {

/// The bits of a double as a 64-bit integer and back (device code: the CUDA intrinsics; host code:
/// memcpy, which the compiler turns into a register move and vectorizes).
UGKS_HOST_DEVICE inline std::int64_t double_bits(double x) {
#if defined(__CUDA_ARCH__)
    return __double_as_longlong(x);
#else
    std::int64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
#endif
}
UGKS_HOST_DEVICE inline double bits_double(std::int64_t b) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(b);
#else
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/// exp(x) for x <= 0.
/// Device code: the CUDA math library's exp.
/// Host code: written so that the compiler vectorizes it (no libm call): Cody-Waite reduction
/// x = n ln2 + r, |r| <= ln2/2, Taylor polynomial of degree 13 (truncation < 5e-18 relative),
/// scaling by 2^n through the exponent bits. Within 2 ulp of exp; 0 for x < -708 (where exp is
/// below 3e-308).
UGKS_HOST_DEVICE inline double exp_neg(double x) {
#if defined(__CUDA_ARCH__)
    return exp(x);
#else
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
#endif
}

}  // namespace ugks::dev

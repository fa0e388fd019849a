#pragma once
// Definitions of the pointwise UGKS physics declared in ugks/physics/kinetic.hpp. Included at the
// end of that header; do not include directly. Everything is inline, allocation-free and callable
// from device code (plain <cmath> functions, which nvcc maps to its device math library).
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "ugks/physics/kinetic.hpp"

namespace ugks::phys {
namespace detail {

constexpr double kPi = 3.14159265358979323846;

/// False for +-inf and NaN (avoids the std::isfinite / ::isfinite host-device ambiguity).
UGKS_HOST_DEVICE inline bool is_finite(double x) { return fabs(x) <= DBL_MAX; }

/// (lambda/pi)^(D/2) for D = 1, 2, 3.
UGKS_HOST_DEVICE inline double gauss_norm(double lambda, int D) {
    const double r = lambda / kPi;
    return D == 1 ? sqrt(r) : (D == 2 ? r : r * sqrt(r));
}

/// S_n(x) = n! sum_{k>=0} (-x)^k / (n+k)!, i.e. e^{-x} minus its first n Taylor terms divided by
/// (-x)^n/n!. For 0 <= x < 1 the terms shrink at least by x/(n+k+1) <= 1/2 each; 20 terms leave a
/// truncation below 1/21! ~ 2e-20, so the series is exact to round-off there (Horner form).
UGKS_HOST_DEVICE inline double exp_tail_ratio(int n, double x) {
    double s = 1.0;
    for (int k = 20; k >= 1; --k) s = 1.0 - x / (n + k) * s;
    return s;
}

/// Orthonormal face frame: rows e[0] = n (normalized), e[1] = t1, e[2] = t2. For D < 3 the frame is
/// block diagonal so that velocity components >= D stay in the slots >= D (where they are zero).
struct FaceFrame {
    double e[3][3];
};

UGKS_HOST_DEVICE inline FaceFrame face_frame(const double n[3], int D) {
    FaceFrame R{};
    if (D == 1) {
        R.e[0][0] = n[0] >= 0 ? 1.0 : -1.0;
        R.e[1][1] = 1.0;
        R.e[2][2] = 1.0;
    } else if (D == 2) {
        const double len = sqrt(n[0] * n[0] + n[1] * n[1]);
        const double nx = n[0] / len, ny = n[1] / len;
        R.e[0][0] = nx;
        R.e[0][1] = ny;
        R.e[1][0] = -ny;
        R.e[1][1] = nx;
        R.e[2][2] = 1.0;
    } else {
        const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double nn[3] = {n[0] / len, n[1] / len, n[2] / len};
        // t1: the coordinate axis least aligned with n, made orthogonal to n (well conditioned).
        int a = 0;
        if (fabs(nn[1]) < fabs(nn[a])) a = 1;
        if (fabs(nn[2]) < fabs(nn[a])) a = 2;
        double t[3] = {-nn[a] * nn[0], -nn[a] * nn[1], -nn[a] * nn[2]};
        t[a] += 1.0;
        const double tl = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int d = 0; d < 3; ++d) {
            R.e[0][d] = nn[d];
            R.e[1][d] = t[d] / tl;
        }
        R.e[2][0] = nn[1] * R.e[1][2] - nn[2] * R.e[1][1];
        R.e[2][1] = nn[2] * R.e[1][0] - nn[0] * R.e[1][2];
        R.e[2][2] = nn[0] * R.e[1][1] - nn[1] * R.e[1][0];
    }
    return R;
}

/// v' = R v (global -> face frame).
UGKS_HOST_DEVICE inline void to_face(const FaceFrame& R, const double v[3], double out[3]) {
    for (int a = 0; a < 3; ++a) out[a] = R.e[a][0] * v[0] + R.e[a][1] * v[1] + R.e[a][2] * v[2];
}

/// v = R^T v' (face -> global frame).
UGKS_HOST_DEVICE inline void to_global(const FaceFrame& R, const double v[3], double out[3]) {
    for (int d = 0; d < 3; ++d) out[d] = R.e[0][d] * v[0] + R.e[1][d] * v[1] + R.e[2][d] * v[2];
}

/// Rotates the momentum entries of a 5-vector from the face frame back to the global frame.
UGKS_HOST_DEVICE inline void psi_to_global(const FaceFrame& R, const double in[5], double out[5]) {
    out[0] = in[0];
    to_global(R, in + 1, out + 1);
    out[4] = in[4];
}

constexpr int kMom = 8;  // 1D moment orders 0..7 (the fluxes need up to 6 normal, 5 tangential)

/// Normalized moments of one Maxwellian in the face frame: normal component (full and both halves),
/// the two tangential components (full; a component that does not exist for this D is identically
/// zero, i.e. <v^0> = 1 and <v^k> = 0) and xi: xi[m] = <xi^{2m}>.
struct FrameMoments {
    double n_full[kMom], n_pos[kMom], n_neg[kMom];
    double t1[kMom], t2[kMom];
    double xi[4];
};

UGKS_HOST_DEVICE inline void frame_moments(const Prim& p, const FaceFrame& R, int D, int K,
                                           FrameMoments& M) {
    double Uf[3];
    to_face(R, p.U, Uf);
    const double lam = p.lambda;
    maxwellian_moments_1d(Uf[0], lam, kMom - 1, M.n_full, M.n_pos, M.n_neg);
    for (int k = 0; k < kMom; ++k) M.t1[k] = M.t2[k] = (k == 0 ? 1.0 : 0.0);
    if (D >= 2) maxwellian_moments_1d(Uf[1], lam, kMom - 1, M.t1, nullptr, nullptr);
    if (D >= 3) maxwellian_moments_1d(Uf[2], lam, kMom - 1, M.t2, nullptr, nullptr);
    M.xi[0] = 1.0;
    M.xi[1] = K / (2.0 * lam);
    M.xi[2] = K * (K + 2.0) / (4.0 * lam * lam);
    M.xi[3] = K * (K + 2.0) * (K + 4.0) / (8.0 * lam * lam * lam);
}

/// c u'^a v'^b w'^g (xi^2)^x in face-frame velocity components.
struct PolyTerm {
    double c;
    int a, b, g, x;
};

/// A small polynomial in (u', v', w', xi^2); 32 terms cover every polynomial built below (<= 24).
struct Poly {
    static constexpr int kMaxTerms = 32;
    PolyTerm t[kMaxTerms];
    int n = 0;
    UGKS_HOST_DEVICE void add(double c, int a, int b, int g, int x) {
        if (c != 0.0 && n < kMaxTerms) t[n++] = PolyTerm{c, a, b, g, x};
    }
    /// c u'_i u'_j ... : exponents given as counts per face-frame component.
    UGKS_HOST_DEVICE void add_exp(double c, const int e[3], int x) { add(c, e[0], e[1], e[2], x); }
};

/// <u'^a v'^b w'^g xi^{2x}> with the normal factor restricted to the half u' > 0 (half > 0),
/// u' < 0 (half < 0) or the full line (half == 0).
UGKS_HOST_DEVICE inline double mono(const FrameMoments& M, int half, int a, int b, int g, int x) {
    const double* nm = half > 0 ? M.n_pos : (half < 0 ? M.n_neg : M.n_full);
    return nm[a] * M.t1[b] * M.t2[g] * M.xi[x];
}

/// out = <u'^extra P psi> (normalized, face frame), psi = (1, u', v', w', (|u'|^2 + xi^2)/2).
UGKS_HOST_DEVICE inline void psi_moments(const Poly& P, int extra, const FrameMoments& M, int half,
                                         double out[5]) {
    for (int i = 0; i < 5; ++i) out[i] = 0.0;
    for (int i = 0; i < P.n; ++i) {
        const PolyTerm& t = P.t[i];
        const int a = t.a + extra;
        out[0] += t.c * mono(M, half, a, t.b, t.g, t.x);
        out[1] += t.c * mono(M, half, a + 1, t.b, t.g, t.x);
        out[2] += t.c * mono(M, half, a, t.b + 1, t.g, t.x);
        out[3] += t.c * mono(M, half, a, t.b, t.g + 1, t.x);
        out[4] += 0.5 * t.c *
                  (mono(M, half, a + 2, t.b, t.g, t.x) + mono(M, half, a, t.b + 2, t.g, t.x) +
                   mono(M, half, a, t.b, t.g + 2, t.x) + mono(M, half, a, t.b, t.g, t.x + 1));
    }
}

/// P(u) = sum_{j<D} u_j a^{(j)}(u) written in face-frame components: with u = R^T u',
/// sum_j u_j a0_j = (R a0).u', sum_j u_j aU_j.u = u'^T (R M R^T) u' (M_jk = aU_j[k]) and
/// sum_j u_j aE_j (|u|^2 + xi^2)/2 = (R aE).u' (|u'|^2 + xi^2)/2.
UGKS_HOST_DEVICE inline void combined_slope_poly(const Slope a[3], const FaceFrame& R, int D,
                                                 Poly& P) {
    P.n = 0;
    double c0[3] = {0, 0, 0}, cE[3] = {0, 0, 0}, M[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int j = 0; j < D; ++j) {
        double aUf[3];
        to_face(R, a[j].aU, aUf);
        for (int al = 0; al < 3; ++al) {
            c0[al] += R.e[al][j] * a[j].a0;
            cE[al] += R.e[al][j] * a[j].aE;
            for (int be = 0; be < 3; ++be) M[al][be] += R.e[al][j] * aUf[be];
        }
    }
    for (int al = 0; al < 3; ++al) {
        int e[3] = {0, 0, 0};
        e[al] = 1;
        P.add_exp(c0[al], e, 0);
        for (int be = 0; be < 3; ++be) {
            int e2[3] = {e[0], e[1], e[2]};
            e2[be] += 1;
            P.add_exp(M[al][be], e2, 0);
        }
        for (int ga = 0; ga < 3; ++ga) {
            int e3[3] = {e[0], e[1], e[2]};
            e3[ga] += 2;
            P.add_exp(0.5 * cE[al], e3, 0);
        }
        P.add_exp(0.5 * cE[al], e, 1);
    }
}

/// One slope a(u) = a0 + aU.u + aE (|u|^2 + xi^2)/2 in face-frame components.
UGKS_HOST_DEVICE inline void slope_poly(const Slope& s, const FaceFrame& R, Poly& P) {
    P.n = 0;
    P.add(s.a0, 0, 0, 0, 0);
    double aUf[3];
    to_face(R, s.aU, aUf);
    P.add(aUf[0], 1, 0, 0, 0);
    P.add(aUf[1], 0, 1, 0, 0);
    P.add(aUf[2], 0, 0, 1, 0);
    P.add(0.5 * s.aE, 2, 0, 0, 0);
    P.add(0.5 * s.aE, 0, 2, 0, 0);
    P.add(0.5 * s.aE, 0, 0, 2, 0);
    P.add(0.5 * s.aE, 0, 0, 0, 1);
}

/// W + grad W . (x_f - x_c); the cell average itself when the result is not a physical state.
UGKS_HOST_DEVICE inline void reconstruct_side(const double W[5], const double grad[5][3],
                                              const double xc[3], const double xf[3],
                                              double out[5]) {
    const double dx[3] = {xf[0] - xc[0], xf[1] - xc[1], xf[2] - xc[2]};
    bool ok = true;
    for (int c = 0; c < 5; ++c) {
        out[c] = W[c] + grad[c][0] * dx[0] + grad[c][1] * dx[1] + grad[c][2] * dx[2];
        ok = ok && is_finite(out[c]);
    }
    if (ok) {
        const double m2 = out[1] * out[1] + out[2] * out[2] + out[3] * out[3];
        const double e_int = out[4] - 0.5 * m2 / out[0];
        ok = out[0] > 0.0 && e_int > 0.0 && is_finite(e_int);
    }
    if (!ok)
        for (int c = 0; c < 5; ++c) out[c] = W[c];
}

/// Call fn(std::integral_constant<int, D>) for the runtime velocity dimension D = 1, 2, 3.
template <class Fn>
UGKS_HOST_DEVICE inline void with_dim(int D, Fn&& fn) {
    if (D == 1)
        fn(std::integral_constant<int, 1>{});
    else if (D == 2)
        fn(std::integral_constant<int, 2>{});
    else
        fn(std::integral_constant<int, 3>{});
}

}  // namespace detail

UGKS_HOST_DEVICE inline EqConst eq_const(const Prim& p, const double q[3], const GasParams& g) {
    EqConst c;
    c.rhonorm = p.rho * detail::gauss_norm(p.lambda, g.D);
    for (int d = 0; d < 3; ++d) {
        c.U[d] = p.U[d];
        c.q[d] = q[d];
    }
    c.lambda = p.lambda;
    const double k_int = g.N - 3;
    c.pre = 4.0 * (1.0 - g.Pr) * p.lambda * p.lambda / ((5.0 + k_int) * p.rho);
    c.Bfac = g.K / (2.0 * p.lambda);
    c.xi4 = g.K * (g.K + 2.0) / (4.0 * p.lambda * p.lambda);
    return c;
}

template <int D>
UGKS_HOST_DEVICE inline double maxwellian_H(const EqConst& C, const double u[3]) {
    double c2 = 0.0;
    for (int d = 0; d < D; ++d) c2 += (u[d] - C.U[d]) * (u[d] - C.U[d]);
    return C.rhonorm * dev::exp_neg(-C.lambda * c2);
}

template <int D>
UGKS_HOST_DEVICE inline double maxwellian_H_tables(const EqConst& C, const double* E,
                                                   const int ix[3]) {
    if (ix[0] < 0) return 0.0;
    double H = C.rhonorm * E[ix[0]];
    if (D > 1) H *= E[ix[1]];
    if (D > 2) H *= E[ix[2]];
    return H;
}

template <int D, bool HB>
UGKS_HOST_DEVICE inline void maxwellian_pair(const EqConst& C, const double u[3], double& H,
                                             double& B) {
    H = maxwellian_H<D>(C, u);
    B = HB ? C.Bfac * H : 0.0;
}

template <int D, bool HB>
UGKS_HOST_DEVICE inline void shakhov_parts(const EqConst& C, const double u[3], double H, double& B,
                                           double& Hp, double& Bp) {
    double c2 = 0.0, cq = 0.0;
    for (int d = 0; d < D; ++d) {
        const double c = u[d] - C.U[d];
        c2 += c * c;
        cq += c * C.q[d];
    }
    const double pre = C.pre * cq;
    const double t = 2.0 * C.lambda * c2;
    Hp = pre * (t - D - 2.0) * H;
    B = HB ? C.Bfac * H : 0.0;
    Bp = HB ? pre * (t - D) * B : 0.0;
}

template <int D, bool HB>
UGKS_HOST_DEVICE inline void shakhov_given_H(const EqConst& C, const double u[3], double H,
                                             double& hplus, double& bplus) {
    double B, Hp, Bp;
    shakhov_parts<D, HB>(C, u, H, B, Hp, Bp);
    hplus = H + Hp;
    bplus = B + Bp;
}

template <int D, bool HB, int NJ>
UGKS_HOST_DEVICE inline void slope_sums(const Slope* a, const double u[3], double u2, double H0,
                                        double B0, double xi4, double& sh, double& sb) {
    sh = 0.0;
    sb = 0.0;
    for (int j = 0; j < NJ; ++j) {
        double poly = a[j].a0 + 0.5 * a[j].aE * u2;
        for (int d = 0; d < D; ++d) poly += a[j].aU[d] * u[d];
        if (HB) {
            sh += u[j] * (poly * H0 + 0.5 * a[j].aE * B0);
            sb += u[j] * (poly * B0 + 0.5 * a[j].aE * xi4 * H0);
        } else {
            sh += u[j] * (poly * H0);
        }
    }
}

template <int D, bool HB>
UGKS_HOST_DEVICE inline void micro_flux_given_slopes(
    const EqConst& E0, double sh, double sb, const Slope& A, const TimeCoeffs& tc,
    const double u[3], double u2, double un, double H0, double B0, double Hp, double Bp, double hf,
    double bf, double ugh, double ugb, double& phi_h, double& phi_b, double& fm_h, double& fm_b) {
    const double xi4 = E0.xi4;
    double polyA = A.a0 + 0.5 * A.aE * u2;
    for (int d = 0; d < D; ++d) polyA += A.aU[d] * u[d];
    const double ah = HB ? polyA * H0 + 0.5 * A.aE * B0 : polyA * H0;
    fm_h = un * (tc.q4 * hf - tc.q5 * ugh);
    phi_h = un * (tc.q1 * (H0 + Hp) + tc.q2 * sh + tc.q3 * ah) + fm_h;
    fm_b = 0.0;
    phi_b = 0.0;
    if (HB) {
        const double ab = polyA * B0 + 0.5 * A.aE * xi4 * H0;
        fm_b = un * (tc.q4 * bf - tc.q5 * ugb);
        phi_b = un * (tc.q1 * (B0 + Bp) + tc.q2 * sb + tc.q3 * ab) + fm_b;
    }
}

template <int D, bool HB>
UGKS_HOST_DEVICE inline void micro_flux_lane(const EqConst& E0, const Slope* a, const Slope& A,
                                             const TimeCoeffs& tc, const double u[3], double u2,
                                             double un, double H0, double hf, double bf, double ugh,
                                             double ugb, double& phi_h, double& phi_b, double& fm_h,
                                             double& fm_b) {
    double B0, Hp, Bp, sh, sb;
    shakhov_parts<D, HB>(E0, u, H0, B0, Hp, Bp);
    slope_sums<D, HB>(a, u, u2, H0, B0, E0.xi4, sh, sb);
    micro_flux_given_slopes<D, HB>(E0, sh, sb, A, tc, u, u2, un, H0, B0, Hp, Bp, hf, bf, ugh, ugb,
                                   phi_h, phi_b, fm_h, fm_b);
}

UGKS_HOST_DEVICE inline Prim cons_to_prim(const double W[5], int N) {
    Prim p;
    p.rho = W[0];
    for (int d = 0; d < 3; ++d) p.U[d] = W[1 + d] / W[0];
    const double m2 = W[1] * W[1] + W[2] * W[2] + W[3] * W[3];
    p.lambda = N * W[0] / (4.0 * (W[4] - 0.5 * m2 / W[0]));
    return p;
}

UGKS_HOST_DEVICE inline void prim_to_cons(const Prim& p, int N, double W[5]) {
    W[0] = p.rho;
    for (int d = 0; d < 3; ++d) W[1 + d] = p.rho * p.U[d];
    const double U2 = p.U[0] * p.U[0] + p.U[1] * p.U[1] + p.U[2] * p.U[2];
    W[4] = 0.5 * p.rho * U2 + N * p.rho / (4.0 * p.lambda);
}

UGKS_HOST_DEVICE inline double relaxation_time(const Prim& p, const GasParams& g) {
    return 2.0 * g.mu_ref * pow(p.lambda, 1.0 - g.omega) / p.rho;
}

UGKS_HOST_DEVICE inline void maxwellian(const Prim& p, const GasParams& g, const double u[3],
                                        double& H, double& B) {
    const double zero[3] = {0, 0, 0};
    const EqConst C = eq_const(p, zero, g);
    detail::with_dim(g.D, [&](auto Dc) { H = maxwellian_H<decltype(Dc)::value>(C, u); });
    B = C.Bfac * H;
}

UGKS_HOST_DEVICE inline void shakhov_equilibrium_H(const Prim& p, const double q[3],
                                                   const GasParams& g, const double u[3], double H,
                                                   double& hplus, double& bplus) {
    const EqConst C = eq_const(p, q, g);
    detail::with_dim(
        g.D, [&](auto Dc) { shakhov_given_H<decltype(Dc)::value, true>(C, u, H, hplus, bplus); });
}

UGKS_HOST_DEVICE inline void shakhov_equilibrium(const Prim& p, const double q[3],
                                                 const GasParams& g, const double u[3],
                                                 double& hplus, double& bplus) {
    const EqConst C = eq_const(p, q, g);
    detail::with_dim(g.D, [&](auto Dc) {
        constexpr int D = decltype(Dc)::value;
        shakhov_given_H<D, true>(C, u, maxwellian_H<D>(C, u), hplus, bplus);
    });
}

UGKS_HOST_DEVICE inline TimeCoeffs time_coefficients(double dt, double tau) {
    TimeCoeffs c;
    if (tau > 1e300 || dt == 0.0) {  // free molecular (exactly), or an empty interval
        c.q1 = c.q2 = c.q3 = 0.0;
        c.q4 = dt;
        c.q5 = 0.5 * dt * dt;
        return c;
    }
    const double x = dt / tau;  // +inf for tau = 0: handled by the closed forms below
    if (x < 1.0) {
        // With S_n = n! (-x)^{-n} (e^{-x} - sum_{k<n} (-x)^k/k!):
        //   q4 = dt S1, q1 = dt x S2/2, q3 = dt^2 x S3/6, q5 = dt^2 (S1 - S2/2),
        //   q2 = dt^2 x ((2 + x) S3/6 - 1/2).
        // The remaining differences cancel at most a factor ~3, unlike the closed forms, whose
        // relative error grows like eps/x (q1, q5) and eps/x^2 (q2, q3).
        const double s1 = detail::exp_tail_ratio(1, x);
        const double s2 = detail::exp_tail_ratio(2, x);
        const double s3 = detail::exp_tail_ratio(3, x);
        const double dt2 = dt * dt;
        c.q4 = dt * s1;
        c.q1 = 0.5 * dt * x * s2;
        c.q3 = dt2 * x * s3 / 6.0;
        c.q5 = dt2 * (s1 - 0.5 * s2);
        c.q2 = dt2 * x * ((2.0 + x) * s3 / 6.0 - 0.5);
        return c;
    }
    // x >= 1: closed forms; the cancellations cost at most ~10 eps at x = 1 and vanish as x grows.
    // No product with x appears, so tau = 0 (x = inf, e = 0) gives (dt, 0, dt^2/2, 0, 0).
    const double e = exp(-x);
    const double om = -expm1(-x);  // 1 - e
    c.q4 = tau * om;
    c.q5 = tau * (tau * om - dt * e);
    c.q1 = dt - c.q4;
    c.q2 = tau * (2.0 * tau * om - dt * (1.0 + e));
    c.q3 = 0.5 * dt * dt - tau * dt + tau * tau * om;
    return c;
}

UGKS_HOST_DEVICE inline Slope micro_slope(const Prim& p, int N, const double dW[5]) {
    Slope s;
    const double rho = p.rho, lam = p.lambda;
    const double* U = p.U;
    const double U2 = U[0] * U[0] + U[1] * U[1] + U[2] * U[2];
    const double UdM = U[0] * dW[1] + U[1] * dW[2] + U[2] * dW[3];
    s.aE = 4.0 * lam * lam / (N * rho) * (2.0 * dW[4] - 2.0 * UdM + (U2 - N / (2.0 * lam)) * dW[0]);
    double UaU = 0.0;
    for (int d = 0; d < 3; ++d) {
        s.aU[d] = 2.0 * lam / rho * (dW[1 + d] - U[d] * dW[0]) - U[d] * s.aE;
        UaU += U[d] * s.aU[d];
    }
    s.a0 = dW[0] / rho - UaU - 0.5 * (U2 + N / (2.0 * lam)) * s.aE;
    return s;
}

UGKS_HOST_DEVICE inline Slope force_slope(const double U[3], double lambda, const double acc[3]) {
    Slope a;
    a.a0 = 2.0 * lambda * (acc[0] * U[0] + acc[1] * U[1] + acc[2] * U[2]);
    for (int d = 0; d < 3; ++d) a.aU[d] = -2.0 * lambda * acc[d];
    return a;
}

UGKS_HOST_DEVICE inline void heat_flux_from_raw(const double U[3], double M0, const double M1[3],
                                                const double M2[9], const double M3[3], double B0,
                                                const double B1[3], double q[3]) {
    const double U2 = U[0] * U[0] + U[1] * U[1] + U[2] * U[2];
    const double S2 = M2[0] + M2[4] + M2[8];
    const double UM1 = U[0] * M1[0] + U[1] * M1[1] + U[2] * M1[2];
    for (int i = 0; i < 3; ++i) {
        const double UM2 = M2[3 * i] * U[0] + M2[3 * i + 1] * U[1] + M2[3 * i + 2] * U[2];
        q[i] = 0.5 * (M3[i] - 2.0 * UM2 + U2 * M1[i] - U[i] * S2 + 2.0 * U[i] * UM1 -
                      U[i] * U2 * M0 + B1[i] - U[i] * B0);
    }
}

UGKS_HOST_DEVICE inline void maxwellian_moments_1d(double U, double lambda, int kmax, double* full,
                                                   double* pos, double* neg) {
    const double h = 0.5 / lambda;
    const double z = sqrt(lambda) * U;
    const double bump = exp(-z * z) / (2.0 * sqrt(detail::kPi * lambda));
    double* out[3] = {full, pos, neg};
    const double m0[3] = {1.0, 0.5 * erfc(-z), 0.5 * erfc(z)};
    const double m1b[3] = {0.0, bump, -bump};
    for (int s = 0; s < 3; ++s) {
        double* m = out[s];
        if (m == nullptr) continue;
        m[0] = m0[s];
        if (kmax >= 1) m[1] = U * m[0] + m1b[s];
        // <u^{k}> = U <u^{k-1}> + (k-1)/(2 lambda) <u^{k-2}>, on each half line as well (the
        // boundary term at u = 0 vanishes for k >= 2).
        for (int k = 2; k <= kmax; ++k) m[k] = U * m[k - 1] + (k - 1) * h * m[k - 2];
    }
}

UGKS_HOST_DEVICE inline void face_equilibrium(const FaceInput& in, const GasParams& g, double dt,
                                              FaceCoeffs& out) {
    using namespace detail;
    const int D = g.D, K = g.K, N = g.N;
    const FaceFrame R = face_frame(in.n, D);

    // Reconstructed side states and the interface state W0 (variant B).
    double WLf[5], WRf[5];
    reconstruct_side(in.WL, in.gradWL, in.xL, in.xf, WLf);
    reconstruct_side(in.WR, in.gradWR, in.xR, in.xf, WRf);
    const Prim pL = cons_to_prim(WLf, N), pR = cons_to_prim(WRf, N);
    Poly one;
    one.add(1.0, 0, 0, 0, 0);
    FrameMoments M;
    double mL[5], mR[5], W0f[5], W0[5];
    frame_moments(pL, R, D, K, M);
    psi_moments(one, 0, M, +1, mL);
    frame_moments(pR, R, D, K, M);
    psi_moments(one, 0, M, -1, mR);
    for (int i = 0; i < 5; ++i) W0f[i] = pL.rho * mL[i] + pR.rho * mR[i];
    psi_to_global(R, W0f, W0);
    out.p0 = cons_to_prim(W0, N);
    const Prim& p0 = out.p0;
    out.tau0 = relaxation_time(p0, g);
    out.tc = time_coefficients(dt, out.tau0);

    // Spatial micro slopes per global direction, about the interface state.
    for (int j = 0; j < 3; ++j) {
        double dL[5], dR[5];
        for (int c = 0; c < 5; ++c) {
            dL[c] = in.gradWL[c][j];
            dR[c] = in.gradWR[c][j];
        }
        out.aL[j] = j < D ? micro_slope(p0, N, dL) : Slope{};
        out.aR[j] = j < D ? micro_slope(p0, N, dR) : Slope{};
    }

    // Time slope from compatibility with the L/R split (moments about g0).
    frame_moments(p0, R, D, K, M);
    Poly PL, PR, PA;
    combined_slope_poly(out.aL, R, D, PL);
    combined_slope_poly(out.aR, R, D, PR);
    double tL[5], tR[5], dWdt_f[5], dWdt[5];
    psi_moments(PL, 0, M, +1, tL);
    psi_moments(PR, 0, M, -1, tR);
    for (int i = 0; i < 5; ++i) dWdt_f[i] = -p0.rho * (tL[i] + tR[i]);
    Slope aF{};
    const bool force = has_force(g);
    if (force) {  // body force (section 6.7): a_F joins both sides' slope sums, full space
        aF = force_slope(p0.U, p0.lambda, g.acc);
        Poly PF;
        slope_poly(aF, R, PF);
        double tF[5];
        psi_moments(PF, 0, M, 0, tF);
        for (int i = 0; i < 5; ++i) dWdt_f[i] -= p0.rho * tF[i];
    }
    psi_to_global(R, dWdt_f, dWdt);
    out.A = micro_slope(p0, N, dWdt);
    if (force) {
        // a_F carries the time weight q2 of the spatial slopes; it is stored folded into the time
        // slope (weight q3), A + (q2/q3) a_F, so that the per-velocity flux is unchanged. q3 = 0
        // only in the limits tau = inf or dt = 0, where q2 = 0 as well.
        const double r = out.tc.q3 != 0.0 ? out.tc.q2 / out.tc.q3 : 0.0;
        out.A.a0 += r * aF.a0;
        for (int d = 0; d < 3; ++d) out.A.aU[d] += r * aF.aU[d];
    }
    slope_poly(out.A, R, PA);

    // Equilibrium flux F_eq (face frame, then rotated) plus the analytic Shakhov part (U4).
    double f1[5], fL[5], fR[5], f3[5], Ff[5];
    psi_moments(one, 1, M, 0, f1);
    psi_moments(PL, 1, M, +1, fL);
    psi_moments(PR, 1, M, -1, fR);
    psi_moments(PA, 1, M, 0, f3);
    const TimeCoeffs& tc = out.tc;
    for (int i = 0; i < 5; ++i)
        Ff[i] = p0.rho * (tc.q1 * f1[i] + tc.q2 * (fL[i] + fR[i]) + tc.q3 * f3[i]);
    psi_to_global(R, Ff, out.F);
    double qn = 0.0;
    for (int d = 0; d < 3; ++d) {
        out.qf[d] = 0.5 * (in.qL[d] + in.qR[d]);
        qn += out.qf[d] * R.e[0][d];
    }
    out.F[4] += tc.q1 * (1.0 - g.Pr) * qn;
    out.eq = eq_const(p0, out.qf, g);
}

UGKS_HOST_DEVICE inline void micro_flux(const FaceCoeffs& fc, const GasParams& g, const double u[3],
                                        double un, double hf, double bf, const double gh[3],
                                        const double gb[3], double& phi_h, double& phi_b,
                                        double& fm_h, double& fm_b) {
    double H0 = 0.0;
    detail::with_dim(g.D, [&](auto Dc) { H0 = maxwellian_H<decltype(Dc)::value>(fc.eq, u); });
    micro_flux_H(fc, g, u, un, H0, hf, bf, gh, gb, phi_h, phi_b, fm_h, fm_b);
}

UGKS_HOST_DEVICE inline void micro_flux_H(const FaceCoeffs& fc, const GasParams& g,
                                          const double u[3], double un, double H0, double hf,
                                          double bf, const double gh[3], const double gb[3],
                                          double& phi_h, double& phi_b, double& fm_h,
                                          double& fm_b) {
    const double ugh = u[0] * gh[0] + u[1] * gh[1] + u[2] * gh[2];
    const double ugb = u[0] * gb[0] + u[1] * gb[1] + u[2] * gb[2];
    detail::with_dim(g.D, [&](auto Dc) {
        constexpr int D = decltype(Dc)::value;
        double u2 = 0.0;
        for (int d = 0; d < D; ++d) u2 += u[d] * u[d];
        micro_flux_lane<D, true>(fc.eq, un > 0.0 ? fc.aL : fc.aR, fc.A, fc.tc, u, u2, un, H0, hf,
                                 bf, ugh, ugb, phi_h, phi_b, fm_h, fm_b);
    });
}

}  // namespace ugks::phys

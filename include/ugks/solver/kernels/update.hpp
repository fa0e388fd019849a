#pragma once
/// Update kernel functions of the UGKS step (docs/formulation.md sections 6.1-6.3, 10), written
/// once for both backends: the two stages of the distribution update at one (cell, velocity),
/// the raw velocity moments, the macroscopic update of a cell and its validity check.
#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/face_kind.hpp"

namespace ugks::kern {

/// Stage 1 (6.3a) in place: f* = f - r / V + c (f+ - f) + src, r = sum over the cell's faces of
/// sigma S Phi (invV = 1/V), c = dt / (2 tau), f+ the Shakhov equilibrium of step n, src the
/// body-force source over dt/2 (section 6.7; 0 without a force).
UGKS_HOST_DEVICE inline double stage1_value(double f, double r, double invV, double c,
                                            double fplus) {
    return f - invV * r + c * (fplus - f);
}
/// A source added to a distribution value (the body force, section 6.7): f + src. Stage 1 adds
/// it after, stage 2 before the relaxation (a backend may apply it in a separate pass).
UGKS_HOST_DEVICE inline double with_source(double f, double src) { return f + src; }
UGKS_HOST_DEVICE inline double stage1_value(double f, double r, double invV, double c, double fplus,
                                            double src) {
    return with_source(stage1_value(f, r, invV, c, fplus), src);
}

/// The body-force source factor at velocity u (docs/formulation.md section 6.7): the source of
/// the kinetic equation -a.grad_u g over the time `span` is s g with s = -span (a_F.a0 +
/// a_F.aU.u), a_F = phys::force_slope of the cell's state; g the Maxwellian part (H, or B for b).
template <int D>
UGKS_HOST_DEVICE inline double force_factor(const phys::Slope& aF, double span, const double u[3]) {
    double p = aF.a0;
    for (int d = 0; d < D; ++d) p += aF.aU[d] * u[d];
    return -span * p;
}

/// The body-force rate S(W) = (0, rho a, (rho U).a) added to R (a steady residual rate in the
/// implicit iteration, docs/steady.md section 7; the trapezoid below).
UGKS_HOST_DEVICE inline void add_force_rate(const double W[5], const double acc[3], double R[5]) {
    for (int d = 0; d < 3; ++d) {
        R[1 + d] += acc[d] * W[0];
        R[4] += acc[d] * W[1 + d];
    }
}

/// The body-force change of W over dt, added to the flux change dW of a cell whose state before
/// the step is Wn (section 6.7): trapezoidal, dW += (dt/2) (S(W^n) + S(W^{n+1})); the momentum
/// part of S(W^{n+1}) needs rho^{n+1} = rho^n + dW_rho only, its energy part the new momentum.
/// Mass is untouched; momentum and energy change exactly as the force prescribes (a uniform gas
/// keeps its temperature to round-off).
UGKS_HOST_DEVICE inline void add_force_increment(const double Wn[5], const double acc[3], double dt,
                                                 double dW[5]) {
    double S0[5] = {0, 0, 0, 0, 0}, S1[5] = {0, 0, 0, 0, 0}, W1[5];
    add_force_rate(Wn, acc, S0);
    for (int e = 0; e < 5; ++e) W1[e] = Wn[e] + dW[e];
    add_force_rate(W1, acc, S1);
    for (int d = 1; d <= 3; ++d) dW[d] += 0.5 * dt * (S0[d] + S1[d]);
    for (int d = 1; d <= 3; ++d) W1[d] = Wn[d] + dW[d];
    S1[4] = 0.0;
    add_force_rate(W1, acc, S1);
    dW[4] += 0.5 * dt * (S0[4] + S1[4]);
}

/// The face sum of stage 1 at one velocity v of owned cell i: r = sum_f sigma S_f Phi_f (6.3a),
/// sarea the signed areas of the cell's face entries cf_off[i]..cf_off[i+1], phi [face][B] (b:
/// phi_b, null without b). Local time steps (dtf not null): each face's flux is a rate over its
/// step dt_f, scaled to the cell's step dt_i.
template <bool HB>
UGKS_HOST_DEVICE inline void face_flux_sum(index_t i, int B, int v, const index_t* cf_off,
                                           const index_t* cf, const double* sarea,
                                           const double* dtc, const double* dtf,
                                           const double* phi_h, const double* phi_b, double& rh,
                                           double& rb) {
    rh = 0.0;
    rb = 0.0;
    for (index_t k = cf_off[i]; k < cf_off[i + 1]; ++k) {
        const index_t f = cf[k];
        double sS = sarea[k];
        if (dtf) sS *= dtc[i] / dtf[f];  // rate Phi_f / dt_f times dt_i
        rh += sS * phi_h[f * B + v];
        if (HB) rb += sS * phi_b[f * B + v];
    }
}

/// Stage 2 (6.3b): f^{n+1} = (f* + c f+ + src) / (1 + c) with f+ of step n+1, inv1c = 1 / (1 +
/// c), src the body-force source over dt/2 with the state of step n+1 (0 without a force).
UGKS_HOST_DEVICE inline double stage2_value(double fstar, double c, double inv1c, double fplus) {
    return (fstar + c * fplus) * inv1c;
}
UGKS_HOST_DEVICE inline double stage2_value(double fstar, double c, double inv1c, double fplus,
                                            double src) {
    return stage2_value(with_source(fstar, src), c, inv1c, fplus);
}

/// Number of raw moments per cell (section 10): sum w h (1, u, u u^T as xx xy xz yy yz zz,
/// u |u|^2) and sum w b (1, u).
constexpr int kRawMoments = 17;

/// Add one velocity's raw moments (weight w, velocity u, values h and b) to m0..m16; NM = 17, or
/// 13 without b (the b moments are then zero and m13..m16 untouched). Scalar outputs: the CPU
/// schedule passes the reduction variables of its SIMD loop (an array there would be kept in
/// memory per lane, 2-7x slower with GCC 12); the array form below forwards to this body.
template <int NM>
UGKS_HOST_DEVICE inline void add_raw_moments(double w, const double u[3], double hv, double bv,
                                             double& m0, double& m1, double& m2, double& m3,
                                             double& m4, double& m5, double& m6, double& m7,
                                             double& m8, double& m9, double& m10, double& m11,
                                             double& m12, double& m13, double& m14, double& m15,
                                             double& m16) {
    const double wh = w * hv;
    const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    m0 += wh;
    m1 += wh * u[0];
    m2 += wh * u[1];
    m3 += wh * u[2];
    m4 += wh * u[0] * u[0];
    m5 += wh * u[0] * u[1];
    m6 += wh * u[0] * u[2];
    m7 += wh * u[1] * u[1];
    m8 += wh * u[1] * u[2];
    m9 += wh * u[2] * u[2];
    m10 += wh * u[0] * u2;
    m11 += wh * u[1] * u2;
    m12 += wh * u[2] * u2;
    if (NM > 13) {
        const double wb = w * bv;
        m13 += wb;
        m14 += wb * u[0];
        m15 += wb * u[1];
        m16 += wb * u[2];
    }
}

/// The same into M[NM] (the CUDA schedule, tests).
template <int NM>
UGKS_HOST_DEVICE inline void add_raw_moments(double w, const double u[3], double hv, double bv,
                                             double (&M)[NM]) {
    add_raw_moments<NM>(w, u, hv, bv, M[0], M[1], M[2], M[3], M[4], M[5], M[6], M[7], M[8], M[9],
                        M[10], M[11], M[12], M[13 % NM], M[14 % NM], M[15 % NM], M[16 % NM]);
}

/// Add one velocity's share of the five conserved moments (1, u, (|u|^2 + xi^2)/2) of the values
/// rh (and rb for b) to Q (the implicit iteration's microscopic residual, docs/steady.md).
UGKS_HOST_DEVICE inline void add_conserved_moments(double w, const double u[3], double rh,
                                                   double rb, double (&Q)[5]) {
    Q[0] += w * rh;
    Q[1] += w * u[0] * rh;
    Q[2] += w * u[1] * rh;
    Q[3] += w * u[2] * rh;
    Q[4] += w * 0.5 * ((u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * rh + rb);
}

/// The change of W of owned cell i over one step (6.1a), dW = -(1/V) sum_f sigma S_f F_f, with
/// the face flux F_f = Facc_f (the velocity sums) + F_eq,f (the analytic equilibrium part; not on
/// kinetic boundary faces). Local time steps (steady mode): each face's flux is a rate over its
/// step dt_f, scaled to the cell's dt_i (rate_scale = dtc_i, dtf per face; null: global step).
/// With rate_only the sum is divided by the face steps alone: the steady residual rate Rm.
UGKS_HOST_DEVICE inline void cell_flux_sum(index_t i, const index_t* cf_off, const index_t* cf,
                                           const index_t* owner, const double* area,
                                           const int* kind, const double* Facc,
                                           const phys::FaceCoeffs* fc, const double* dtc,
                                           const double* dtf, bool rate_only, double vol,
                                           double (&dW)[5]) {
    for (int e = 0; e < 5; ++e) dW[e] = 0.0;
    for (index_t k = cf_off[i]; k < cf_off[i + 1]; ++k) {
        const index_t f = cf[k];
        double sS = (owner[f] == i ? 1.0 : -1.0) * area[f];
        if (rate_only)
            sS /= dtf[f];
        else if (dtf)
            sS *= dtc[i] / dtf[f];  // rate F_f / dt_f times dt_i
        const bool kinetic = is_kinetic_boundary(kind[f]);
        for (int e = 0; e < 5; ++e) dW[e] -= sS * (Facc[5 * f + e] + (kinetic ? 0.0 : fc[f].F[e]));
    }
    for (int e = 0; e < 5; ++e) dW[e] /= vol;
}

/// The momentum scale of a cell for the residual norm: rho (|U| + sqrt(T)) (a gas at rest does
/// not divide by zero).
UGKS_HOST_DEVICE inline double momentum_scale(const double W[5], int N) {
    const phys::Prim p = phys::cons_to_prim(W, N);
    return p.rho *
           (sqrt(p.U[0] * p.U[0] + p.U[1] * p.U[1] + p.U[2] * p.U[2]) + sqrt(1.0 / p.lambda));
}

/// A cell state the step can continue from: finite W, positive density and temperature.
UGKS_HOST_DEVICE inline bool cell_state_ok(const double W[5], int N) {
    const phys::Prim p = phys::cons_to_prim(W, N);
    bool ok = p.rho > 0 && p.lambda > 0 && phys::detail::is_finite(p.lambda);
    for (int e = 0; e < 5; ++e) ok = ok && phys::detail::is_finite(W[e]);
    return ok;
}

}  // namespace ugks::kern

#pragma once
/// Pointwise UGKS physics (docs/formulation.md sections 1-6 and 10), as small inline
/// UGKS_HOST_DEVICE functions that the CPU and CUDA backends both call. Units: sqrt(2 R T_ref)
/// nondimensionalization (section 1.2), lambda = 1/T.
///
/// Dimensions: the velocity space has D components (1..3); unused components of every 3-vector
/// (velocities, bulk velocities, heat fluxes, slopes aU) must be zero. K = (3 - D) + K_int
/// components are lumped into xi (reduced distributions h and b), N = D + K = 3 + K_int.
/// Conservative W = (rho, rho U_x, rho U_y, rho U_z, rho E), always 5 entries (unused momentum
/// entries 0).
///
/// Every function here is header-only, allocation-free, exception-free and non-recursive so that it
/// can run inside device kernels; the definitions live in detail/kinetic_impl.hpp.
#include "ugks/device/macros.hpp"
#include "ugks/device/math.hpp"

namespace ugks::phys {

/// Gas constants needed by the pointwise functions.
struct GasParams {
    int D = 3;  ///< velocity-space dimension
    int K = 0;  ///< (3 - D) + K_int
    int N = 3;  ///< D + K
    double Pr = 2.0 / 3.0;
    double mu_ref = 0.0;  ///< nondimensional reference viscosity
    double omega = 0.81;  ///< mu = mu_ref T^omega
    /// Body-force acceleration a (`forces.acceleration`, section 6.7); components >= D are zero.
    double acc[3] = {0, 0, 0};
};

/// Whether g carries a body force (a != 0).
UGKS_HOST_DEVICE inline bool has_force(const GasParams& g) {
    return g.acc[0] != 0.0 || g.acc[1] != 0.0 || g.acc[2] != 0.0;
}

/// Whether the reduced distribution b is stored: K = (3 - D) + K_int > 0 (velocity dimension D,
/// internal degrees of freedom K_int). The one rule for the solvers, the memory estimate and
/// checkpoints.
UGKS_HOST_DEVICE constexpr bool stores_b(int D, int K_int) { return 3 - D + K_int > 0; }

/// Primitive state: density, bulk velocity, lambda = 1/T.
struct Prim {
    double rho = 1.0;
    double U[3] = {0, 0, 0};
    double lambda = 1.0;
};

/// W -> primitive: lambda = N rho / (4 (rho E - |rho U|^2 / (2 rho))).
UGKS_HOST_DEVICE inline Prim cons_to_prim(const double W[5], int N);
/// primitive -> W: rho E = rho |U|^2 / 2 + N rho / (4 lambda).
UGKS_HOST_DEVICE inline void prim_to_cons(const Prim& p, int N, double W[5]);

/// tau = 2 mu_ref lambda^(1 - omega) / rho (section 1.3).
UGKS_HOST_DEVICE inline double relaxation_time(const Prim& p, const GasParams& g);

/// Constants of the equilibrium of one state (a cell, a face's interface state, a wall or a ghost
/// state), computed once per state so that the per-velocity evaluation (section 2.4) needs no
/// division or power: H = rhonorm exp(-lambda |u - U|^2), B = Bfac H,
/// H+ = pre (c.q) (2 lambda |c|^2 - D - 2) H, B+ = pre (c.q) (2 lambda |c|^2 - D) B, c = u - U.
struct EqConst {
    double rhonorm = 0;  ///< rho (lambda / pi)^(D/2)
    double U[3] = {0, 0, 0};
    double lambda = 1;
    double q[3] = {0, 0, 0};
    double pre = 0;   ///< 4 (1 - Pr) lambda^2 / ((5 + K_int) rho)
    double Bfac = 0;  ///< K / (2 lambda)
    double xi4 = 0;   ///< K (K + 2) / (4 lambda^2): the internal-energy moment of the b slopes
};
/// The constants of state p with heat flux q (q = 0: a plain Maxwellian).
UGKS_HOST_DEVICE inline EqConst eq_const(const Prim& p, const double q[3], const GasParams& g);

/// The kernel functions of the equilibrium at one discrete velocity u (first D components used),
/// templated on the velocity dimension D and on whether b is stored (HB; without it B, B+ are 0):
/// the one body that every backend's loops call (docs/formulation.md section 2.4).
/// H from the formula (dev::exp_neg: the vectorizable exponential on the host).
template <int D>
UGKS_HOST_DEVICE inline double maxwellian_H(const EqConst& C, const double u[3]);
/// H from per-axis exponential tables E (tensor velocity grids): rhonorm prod_d E[ix[d]];
/// ix[0] < 0 marks a padding slot (H = 0).
template <int D>
UGKS_HOST_DEVICE inline double maxwellian_H_tables(const EqConst& C, const double* E,
                                                   const int ix[3]);
/// The Maxwellian pair H and B = Bfac H at u (B = 0 without b).
template <int D, bool HB>
UGKS_HOST_DEVICE inline void maxwellian_pair(const EqConst& C, const double u[3], double& H,
                                             double& B);
/// B, H+ and B+ for a given H.
template <int D, bool HB>
UGKS_HOST_DEVICE inline void shakhov_parts(const EqConst& C, const double u[3], double H, double& B,
                                           double& Hp, double& Bp);
/// The Shakhov equilibrium h+ = H + H+, b+ = B + B+ for a given H.
template <int D, bool HB>
UGKS_HOST_DEVICE inline void shakhov_given_H(const EqConst& C, const double u[3], double H,
                                             double& hplus, double& bplus);

/// Reduced Maxwellians at velocity u: H = rho (lambda/pi)^(D/2) exp(-lambda |u - U|^2),
/// B = K/(2 lambda) H.
UGKS_HOST_DEVICE inline void maxwellian(const Prim& p, const GasParams& g, const double u[3],
                                        double& H, double& B);

/// Shakhov-corrected equilibria (section 2.4, consistent form): h+ = H + H+, b+ = B + B+ with heat
/// flux q (D components), pre = 4 (1 - Pr) lambda^2 (c.q) / ((5 + K_int) rho), c = u - U,
/// H+ = pre (2 lambda |c|^2 - D - 2) H, B+ = pre (2 lambda |c|^2 - D) B. For any K_int the parts
/// carry no mass, momentum or energy, and their heat flux (incl. internal energy) is (1 - Pr) q.
UGKS_HOST_DEVICE inline void shakhov_equilibrium(const Prim& p, const double q[3],
                                                 const GasParams& g, const double u[3],
                                                 double& hplus, double& bplus);

/// shakhov_equilibrium with the Maxwellian value H = rho (lambda/pi)^(D/2) exp(-lambda |u-U|^2)
/// given (e.g. assembled from per-axis exponential tables on tensor velocity grids).
UGKS_HOST_DEVICE inline void shakhov_equilibrium_H(const Prim& p, const double q[3],
                                                   const GasParams& g, const double u[3], double H,
                                                   double& hplus, double& bplus);

/// Time-integration coefficients q1..q5 of section 5.6 (q1 = int_0^dt (1 - e^{-t/tau}) dt, ...,
/// q5 = int_0^dt t e^{-t/tau} dt). With x = dt/tau: x < 1 uses convergent series in x (no
/// cancellation), x >= 1 the closed forms with expm1 (relative error ~1e-15 over the whole range).
/// tau > 1e300 (incl. +inf) gives exactly the free-molecular values (0, 0, 0, dt, dt^2/2);
/// tau = 0 gives exactly the continuum values (dt, 0, dt^2/2, 0, 0); never NaN for tau >= 0.
struct TimeCoeffs {
    double q1, q2, q3, q4, q5;
};
UGKS_HOST_DEVICE inline TimeCoeffs time_coefficients(double dt, double tau);

/// Micro slope a = a0 + aU.u + aE (|u|^2 + xi^2)/2 (section 5.4) with int a g psi = dW.
struct Slope {
    double a0 = 0;
    double aU[3] = {0, 0, 0};
    double aE = 0;
};
UGKS_HOST_DEVICE inline Slope micro_slope(const Prim& p, int N, const double dW[5]);

/// The body-force slope of the equilibrium of a state (U, lambda) under the acceleration a
/// (docs/formulation.md section 6.7): a_F(u) = -2 lambda a.(u - U), i.e. a0 = 2 lambda a.U,
/// aU = -2 lambda a, aE = 0, so that the force term of the kinetic equation for the Maxwellian
/// part is -a.grad_u g = -a_F g. In the interface solution it adds to sum_j u_j a^(j) (5.1c).
UGKS_HOST_DEVICE inline Slope force_slope(const double U[3], double lambda, const double acc[3]);

/// Heat flux q = 1/2 sum w (u - U)(|u - U|^2 h + b) from raw moments about the origin (section
/// 10): M0 = sum w h, M1 = sum w u h, M2 = sum w u u^T h (row-major 3x3), M3 = sum w u |u|^2 h,
/// B0 = sum w b, B1 = sum w u b.
UGKS_HOST_DEVICE inline void heat_flux_from_raw(const double U[3], double M0, const double M1[3],
                                                const double M2[9], const double M3[3], double B0,
                                                const double B1[3], double q[3]);

/// Normalized 1D Maxwellian moments (section 5.8) of exp(-lambda (u - U)^2) sqrt(lambda/pi), for
/// k = 0..kmax (kmax <= 7): full[k] = <u^k>, pos[k] = <u^k>_{u>0}, neg[k] = <u^k>_{u<0}
/// (pos + neg = full). Any of the output pointers may be null.
UGKS_HOST_DEVICE inline void maxwellian_moments_1d(double U, double lambda, int kmax, double* full,
                                                   double* pos, double* neg);

/// Everything an interior (or ghost) face needs before the velocity sweep (single-sweep step,
/// docs/formulation.md, decisions U1-U4, section 10), in the global frame.
struct FaceInput {
    double WL[5], WR[5];         ///< cell-average W of the owner (L) and neighbour (R)
    double gradWL[5][3];         ///< limited LSQ gradient of W_L: [component][spatial x, y, z]
    double gradWR[5][3];         ///< limited LSQ gradient of W_R: [component][spatial x, y, z]
    double xL[3], xR[3], xf[3];  ///< cell centroids and face centroid
    double n[3];                 ///< normal L -> R (D = 1: +-x; D = 2: x-y plane); normalized here
    double qL[3], qR[3];         ///< cell heat fluxes q^n (decision U2b: q_f is their average)
};
struct FaceCoeffs {
    // What the per-velocity flux reads, first (the CUDA flux kernel stages only these words):
    EqConst eq;          ///< equilibrium constants of (p0, qf)
    TimeCoeffs tc{};     ///< q1..q5
    Slope aL[3], aR[3];  ///< spatial micro slopes per global direction j (decision U2: L for
                         ///< u.n > 0); zero for j >= D
    Slope A;             ///< time slope (section 5.5, with the L/R split)
    // The rest:
    Prim p0;  ///< interface equilibrium state (variant B, docs/formulation.md, decision U1)
    double tau0 = 0;
    double qf[3] = {0, 0, 0};  ///< face heat flux used in g0+ (docs/formulation.md, decision U2b)
    double F[5] = {0, 0, 0, 0, 0};  ///< F_eq + F_+ (analytic, U4): time-integrated, per unit area,
                                    ///< global frame, positive along n
};
/// Number of leading doubles of FaceCoeffs that micro_flux_lane reads (eq, tc, aL, aR, A).
constexpr int kFaceFluxWords =
    static_cast<int>((sizeof(EqConst) + sizeof(TimeCoeffs) + 7 * sizeof(Slope)) / sizeof(double));
/// W_L,f = W_L + gradW_L.(x_f - x_L) (and R); each side falls back to its cell average when its
/// reconstruction is not physical (rho <= 0, lambda <= 0 or non-finite); W0 by the half-Maxwellian
/// combination W0 = rho_L <psi>_{u_n>0}[L] + rho_R <psi>_{u_n<0}[R]; tau0; q1..q5; slopes
/// a^{(j)S} = micro_slope(p0, N, gradW_S[:, j]); A from
/// dW/dt = -rho0 sum_j (<u_j a^{(j)L} psi>_{u_n>0} + <u_j a^{(j)R} psi>_{u_n<0});
/// F = rho0 [q1 <u_n psi> + q2 (<u_n u.a^L psi>_{>0} + <u_n u.a^R psi>_{<0}) + q3 <u_n A psi>]
///     + q1 (0, 0, 0, 0, (1 - Pr) q_f.n).
/// All Maxwellian moments are evaluated exactly (erfc half-space moments) in the face frame.
UGKS_HOST_DEVICE inline void face_equilibrium(const FaceInput& in, const GasParams& g, double dt,
                                              FaceCoeffs& out);

/// Microscopic flux of section 5.10 for one discrete velocity u (un = u.n), with the upwind
/// interface values hf, bf and gradients gh, gb: Phi_h, Phi_b (time-integrated, per unit area,
/// positive along n). Uses a^L for un > 0, a^R otherwise (the term carries the factor un).
/// Also returns the free-transport part alone un (q4 f_f - q5 u.grad f_f), for F_fm (section 5.9).
UGKS_HOST_DEVICE inline void micro_flux(const FaceCoeffs& fc, const GasParams& g, const double u[3],
                                        double un, double hf, double bf, const double gh[3],
                                        const double gb[3], double& phi_h, double& phi_b,
                                        double& fm_h, double& fm_b);

/// The two parts of micro_flux_lane, for schedules that form the upwind choice themselves: the
/// slope sums sh = sum_j u_j A[a^(j); H], sb = sum_j u_j A[a^(j); B] of one slope set (5.10b),
/// and the flux given them (B0, Hp, Bp from shakhov_parts of H0). NJ <= D: the number of slopes
/// summed (the mesh dimension: the slopes of directions j >= NJ are zero and add nothing).
template <int D, bool HB, int NJ = D>
UGKS_HOST_DEVICE inline void slope_sums(const Slope* a, const double u[3], double u2, double H0,
                                        double B0, double xi4, double& sh, double& sb);
template <int D, bool HB>
UGKS_HOST_DEVICE inline void micro_flux_given_slopes(
    const EqConst& E0, double sh, double sb, const Slope& A, const TimeCoeffs& tc,
    const double u[3], double u2, double un, double H0, double B0, double Hp, double Bp, double hf,
    double bf, double ugh, double ugb, double& phi_h, double& phi_b, double& fm_h, double& fm_b);

/// The kernel function of the microscopic flux at one velocity (section 5.10), templated on D
/// and HB (b stored): E0 = the face's EqConst, a = the upwind side's slope set (a^L for u.n > 0,
/// a^R otherwise; D entries), A the time slope, tc the time coefficients; u2 = |u|^2 over the
/// first D components; H0 the interface Maxwellian at u; hf, bf the upwind interface values and
/// ugh = u.grad h, ugb = u.grad b on the upwind side. Returns Phi_h, Phi_b and the free-transport
/// parts fm_h = un (q4 hf - q5 ugh), fm_b (0 without b).
template <int D, bool HB>
UGKS_HOST_DEVICE inline void micro_flux_lane(const EqConst& E0, const Slope* a, const Slope& A,
                                             const TimeCoeffs& tc, const double u[3], double u2,
                                             double un, double H0, double hf, double bf, double ugh,
                                             double ugb, double& phi_h, double& phi_b, double& fm_h,
                                             double& fm_b);

/// micro_flux with the interface Maxwellian value H0 at u given.
UGKS_HOST_DEVICE inline void micro_flux_H(const FaceCoeffs& fc, const GasParams& g,
                                          const double u[3], double un, double H0, double hf,
                                          double bf, const double gh[3], const double gb[3],
                                          double& phi_h, double& phi_b, double& fm_h, double& fm_b);

}  // namespace ugks::phys

#include "ugks/physics/detail/kinetic_impl.hpp"

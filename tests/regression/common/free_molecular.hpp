#pragma once
/// Steady collisionless (free-molecular) gas between two parallel diffuse plates, for the reduced
/// h/b model with a 1D velocity space (D = 1, K = 2 + K_int lumped components in xi, N = 1 + K), in
/// the solver's sqrt(2 R T_ref) units. Header-only helper of the regression tests.
///
/// Derivation. Plate 1 (x = 0, temperature T1) emits the particles with u > 0, plate 2 (x = L, T2)
/// those with u < 0. Without collisions the steady distribution is uniform in x:
///   h(u) = n1 Hhat_1(u) (u > 0), n2 Hhat_2(u) (u < 0), Hhat_j = (pi T_j)^{-1/2} exp(-u^2/T_j),
///   b(u) = (K T_j / 2) h(u) (the K xi-components of a Maxwellian at T_j carry K/(2 lambda_j)).
/// Half-range moments: int_0^inf {1, u, u^2, u^3} Hhat_j du
///   = {1/2, sqrt(T_j)/(2 sqrt(pi)), T_j/4, T_j^{3/2}/(2 sqrt(pi))}.
///  - zero net mass flux (each plate re-emits what it receives): n1 sqrt(T1) = n2 sqrt(T2);
///  - mass: rho = (n1 + n2)/2 equals the mean initial density, so n1 = 2 rho s2/(s1+s2), n2 = 2 rho
///    s1/(s1+s2), s_j = sqrt(T_j);
///  - U = 0 (the two half-range fluxes cancel);
///  - rho E = (1/2) int (u^2 h + b) = (1 + K)(n1 T1 + n2 T2)/8 and rho E = N rho T / 4 with N = 1 +
///    K give T = (n1 T1 + n2 T2)/(2 rho) = sqrt(T1 T2), independent of K;
///  - q_x = (1/2) int u (u^2 h + b) = (2 + K)/(8 sqrt(pi)) (n1 T1^{3/2} - n2 T2^{3/2}) = (2 + K)/(4
///    sqrt(pi)) rho sqrt(T1 T2) (T1 - T2)/(s1 + s2);
///  - p = rho T / 2, and the state is isotropic (P_xx = p, so the stress deviator is zero).
#include <cmath>
#include <stdexcept>
#include <vector>

namespace ugks::regression {

/// Macroscopic state between the plates (uniform in x), and the emitted half-Maxwellian densities.
struct PlatesState {
    double n1 = 0, n2 = 0;  ///< h = n1 Hhat_1 (u > 0), n2 Hhat_2 (u < 0)
    double rho = 0, U = 0, T = 0, p = 0, qx = 0;
};

/// Closed form for a continuous velocity space (see the derivation above). `rho` is the mean
/// density (initial mass / gap width), K the number of xi components (monatomic, D = 1: K = 2).
inline PlatesState free_molecular_plates(double T1, double T2, double rho, int K) {
    const double pi = 3.14159265358979323846;
    const double s1 = std::sqrt(T1), s2 = std::sqrt(T2);
    PlatesState s;
    s.n1 = 2.0 * rho * s2 / (s1 + s2);
    s.n2 = 2.0 * rho * s1 / (s1 + s2);
    s.rho = rho;
    s.U = 0.0;
    s.T = s1 * s2;
    s.p = 0.5 * rho * s.T;
    s.qx = (2.0 + K) / (8.0 * std::sqrt(pi)) * (s.n1 * T1 * s1 - s.n2 * T2 * s2);
    return s;
}

/// The same steady state on a discrete 1D velocity set (nodes u_k, weights w_k), as the solver
/// reaches it (decision U7: wall densities from the *discrete* zero-mass-flux condition, same
/// weights):
///  - n1 sum_{u>0} w u Hhat_1 = n2 sum_{u<0} w |u| Hhat_2;
///  - the discrete mass of h is conserved (zero discrete wall mass flux, telescoping interior
///    fluxes): sum_k w_k h_k = sum_k w_k h0_k with h0 the initial Maxwellian (rho0, U = 0, T0);
///  - a node with u = 0 is never transported and keeps its initial value;
///  - the solver's W (authoritative, initialized exactly) and the discrete moments of h change by
///    the same free-transport fluxes, so W keeps the initial quadrature offset: rho_W = sum w h +
///    (rho0 - sum w h0), (rho E)_W likewise with (rho E)_0 = N rho0 T0 / 4. T = 4 (rho E)_W / (N
///    rho_W) (U = 0).
///  - q_x is the discrete moment (1/2) sum w u (u^2 h + b) (the solver reduces q from h).
/// Collisions are neglected (Kn -> infinity). Throws std::invalid_argument on mismatched inputs.
inline PlatesState free_molecular_plates_discrete(double T1, double T2, double rho0, double T0,
                                                  int K, const std::vector<double>& u,
                                                  const std::vector<double>& w) {
    const double pi = 3.14159265358979323846;
    if (u.size() != w.size() || u.empty())
        throw std::invalid_argument("nodes and weights differ in size");
    auto hhat = [&](double T, double v) {
        return std::sqrt(1.0 / (pi * T)) * std::exp(-v * v / T);
    };
    const int N = 1 + K;
    double flux1 = 0, flux2 = 0, a1 = 0, a2 = 0, m0 = 0, e0 = 0, z0 = 0;
    for (std::size_t k = 0; k < u.size(); ++k) {
        const double h0 = rho0 * hhat(T0, u[k]);
        m0 += w[k] * h0;
        e0 += 0.5 * w[k] * (u[k] * u[k] + 0.5 * K * T0) * h0;
        if (u[k] > 0) {
            flux1 += w[k] * u[k] * hhat(T1, u[k]);
            a1 += w[k] * hhat(T1, u[k]);
        } else if (u[k] < 0) {
            flux2 -= w[k] * u[k] * hhat(T2, u[k]);
            a2 += w[k] * hhat(T2, u[k]);
        } else {
            z0 += w[k] * h0;
        }
    }
    if (flux1 <= 0 || flux2 <= 0)
        throw std::invalid_argument("velocity set without both signs of u");
    PlatesState s;
    s.n1 = (m0 - z0) / (a1 + flux1 / flux2 * a2);
    s.n2 = s.n1 * flux1 / flux2;
    double rho_h = 0, rhoU_h = 0, rhoE_h = 0, q = 0;
    for (std::size_t k = 0; k < u.size(); ++k) {
        double h, Tk;
        if (u[k] > 0) {
            h = s.n1 * hhat(T1, u[k]);
            Tk = T1;
        } else if (u[k] < 0) {
            h = s.n2 * hhat(T2, u[k]);
            Tk = T2;
        } else {
            h = rho0 * hhat(T0, u[k]);
            Tk = T0;
        }
        const double b = 0.5 * K * Tk * h;
        rho_h += w[k] * h;
        rhoU_h += w[k] * u[k] * h;
        rhoE_h += 0.5 * w[k] * (u[k] * u[k] * h + b);
        q += 0.5 * w[k] * u[k] * (u[k] * u[k] * h + b);
    }
    s.rho = rho_h + (rho0 - m0);
    s.U = rhoU_h / s.rho;
    const double rhoE = rhoE_h + (0.25 * N * rho0 * T0 - e0);
    s.T = 4.0 * (rhoE - 0.5 * s.rho * s.U * s.U) / (N * s.rho);
    s.p = 0.5 * s.rho * s.T;
    s.qx = q;
    return s;
}

}  // namespace ugks::regression

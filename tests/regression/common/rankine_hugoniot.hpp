#pragma once
/// Rankine-Hugoniot relations of a stationary normal shock in the solver's sqrt(2 R T_ref) units
/// (docs/formulation.md section 1.2): p = rho T / 2, sound speed c = sqrt(gamma T / 2),
/// rho E = rho U^2 / 2 + p / (gamma - 1) (= rho U^2 / 2 + N p / 2 with gamma = (N + 2) / N).
/// Header-only helper of the regression tests.
#include <array>
#include <cmath>

namespace ugks::regression {

/// Macroscopic 1D state in solver units.
struct ShockState {
    double rho = 1.0;
    double U = 0.0;  ///< velocity along the shock normal
    double T = 1.0;
    double p() const { return 0.5 * rho * T; }
};

/// Upstream state (rho1, T1) moving at Mach number Ma, U1 = Ma sqrt(gamma T1 / 2).
inline ShockState upstream_state(double Ma, double gamma, double rho1 = 1.0, double T1 = 1.0) {
    return {rho1, Ma * std::sqrt(gamma * T1 / 2.0), T1};
}

/// Downstream state of the stationary normal shock with upstream state `up` (Mach > 1):
/// rho2/rho1 = (gamma+1) M^2 / ((gamma-1) M^2 + 2), p2/p1 = (2 gamma M^2 - (gamma-1)) / (gamma+1),
/// U2 = U1 rho1 / rho2, T2 = 2 p2 / rho2.
inline ShockState downstream_state(const ShockState& up, double gamma) {
    const double c1 = std::sqrt(gamma * up.T / 2.0);
    const double M2 = (up.U / c1) * (up.U / c1);
    const double r = (gamma + 1.0) * M2 / ((gamma - 1.0) * M2 + 2.0);
    const double pr = (2.0 * gamma * M2 - (gamma - 1.0)) / (gamma + 1.0);
    ShockState d;
    d.rho = up.rho * r;
    d.U = up.U / r;
    d.T = 2.0 * pr * up.p() / d.rho;
    return d;
}

/// Euler fluxes through a plane normal to U: (rho U, rho U^2 + p, U (rho E + p)).
inline std::array<double, 3> euler_flux(const ShockState& s, double gamma) {
    const double p = s.p();
    const double rhoE = 0.5 * s.rho * s.U * s.U + p / (gamma - 1.0);
    return {s.rho * s.U, s.rho * s.U * s.U + p, s.U * (rhoE + p)};
}

/// Mach number U / sqrt(gamma T / 2).
inline double mach_number(const ShockState& s, double gamma) {
    return s.U / std::sqrt(gamma * s.T / 2.0);
}

}  // namespace ugks::regression

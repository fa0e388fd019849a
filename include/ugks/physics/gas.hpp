#pragma once
#include <cmath>
#include <string>

namespace ugks {
class Config;

/// Gas model and reference state (ugks-formulation.md section 1). All solver quantities are nondimensional in
/// the sqrt(2 R T_ref) units of section 1.2: rho_ref = 1, T_ref = 1, p_ref = 1/2, mu = mu_ref * T^omega.
struct GasModel {
    double Kn = 0.0;             ///< Knudsen number of the reference state (mean free path / reference length)
    std::string kn_definition;   ///< "hs": hard-sphere reference (alpha = 1, omega_r = 0.5); "vhs": omega_r = omega
    double omega = 0.81;         ///< viscosity-temperature exponent (VHS)
    double alpha = 1.0;          ///< VSS scattering parameter of the reference model (1 = VHS/HS)
    double Pr = 2.0 / 3.0;       ///< Prandtl number (Shakhov)
    int K_int = 0;               ///< internal degrees of freedom (0 monatomic)
    double mu_ref = 0.0;         ///< nondimensional reference viscosity derived from Kn
    /// Total energy-carrying degrees of freedom N = 3 + K_int and gamma = (N + 2) / N.
    int N() const { return 3 + K_int; }
    double gamma() const { return (N() + 2.0) / N(); }
};

/// mu_ref (nondimensional) from Kn: 5 (a+1)(a+2) sqrt(pi) / (4 a (5 - 2 w_r)(7 - 2 w_r)) Kn  (section 1.3).
double mu_ref_from_kn(double Kn, double alpha, double omega_r);

/// Relaxation time tau = mu / p = 2 mu_ref lambda^(1 - omega) / rho, lambda = 1 / T (section 1.3).
inline double relaxation_time(double mu_ref, double omega, double rho, double T) {
    return 2.0 * mu_ref * std::pow(1.0 / T, 1.0 - omega) / rho;
}

/// Parse the `gas` section: Kn (required, > 0), kn_definition (hs | vhs, default hs), omega (default 0.81,
/// [0.5, 1]), alpha (default 1), Pr (default 2/3, (0, 1]), K_int (default 0, >= 0).
GasModel parse_gas(Config& cfg);

}  // namespace ugks

#pragma once
#include <cmath>
#include <string>

#include "ugks/physics/units.hpp"

namespace ugks {
class Config;

/// Gas model and reference state (docs/formulation.md section 1). All solver quantities are
/// nondimensional in the sqrt(2 R T_ref) units of section 1.2: rho_ref = 1, T_ref = 1, p_ref = 1/2,
/// mu = mu_ref * T^omega.
struct GasModel {
    /// Knudsen number of the reference state (mean free path / reference length).
    double Kn = 0.0;
    /// "hs": hard-sphere reference (alpha = 1, omega_r = 0.5) with the first Chapman-Enskog
    /// viscosity; "hs_exact": the same with the converged hard-sphere viscosity
    /// (kHardSphereViscosityFactor times the first approximation); "vhs": omega_r = omega.
    std::string kn_definition;
    double omega = 0.81;    ///< viscosity-temperature exponent (VHS)
    double alpha = 1.0;     ///< VSS scattering parameter of the reference model (1 = VHS/HS)
    double Pr = 2.0 / 3.0;  ///< Prandtl number (Shakhov)
    int K_int = 0;          ///< internal degrees of freedom (0 monatomic)
    /// Nondimensional reference viscosity (from Kn or from the molecular data).
    double mu_ref = 0.0;
    /// Knudsen numbers of the reference state with the hard-sphere (alpha = 1, omega_r = 0.5) and
    /// the gas's own (alpha, omega) mean free path of section 1.3; Kn equals the one named by
    /// kn_definition.
    double Kn_hs = 0.0, Kn_vhs = 0.0;
    /// Kn of the hard-sphere mean free path with the converged Chapman-Enskog viscosity:
    /// Kn_hs / kHardSphereViscosityFactor.
    double Kn_hs_exact = 0.0;
    /// Dimensional gas data (`gas.species` and/or `gas.molecular_mass`, `gas.d_ref`,
    /// `gas.T_ref_vhs`): then mu_ref follows from the VSS/VHS viscosity law at the reference
    /// temperature and `gas.Kn` is not given.
    bool dimensional = false;
    std::string species;          ///< preset name ("" when none)
    double molecular_mass = 0.0;  ///< m [kg]
    double d_ref = 0.0;           ///< VHS/VSS reference diameter [m] at T_ref_vhs
    double T_ref_vhs = 0.0;       ///< temperature of d_ref [K]
    double mu_ref_si = 0.0;       ///< viscosity at the reference temperature [Pa s]
    /// Reference state and case-file unit conversion (identity unless `units: si`).
    ReferenceState ref;
    /// Total energy-carrying degrees of freedom N = 3 + K_int and gamma = (N + 2) / N.
    int N() const { return 3 + K_int; }
    double gamma() const { return (N() + 2.0) / N(); }
};

/// The hard-sphere viscosity of the converged Chapman-Enskog expansion over its first approximation
/// (5/16) sqrt(pi m k T) / (pi d^2) (docs/formulation.md section 1.3, decision U9).
inline constexpr double kHardSphereViscosityFactor = 1.016034;

/// mu_ref (nondimensional) from Kn: 5 (a+1)(a+2) sqrt(pi) / (4 a (5 - 2 w_r)(7 - 2 w_r)) Kn
/// (section 1.3).
double mu_ref_from_kn(double Kn, double alpha, double omega_r);

/// Relaxation time tau = mu / p = 2 mu_ref lambda^(1 - omega) / rho, lambda = 1 / T (section 1.3).
inline double relaxation_time(double mu_ref, double omega, double rho, double T) {
    return 2.0 * mu_ref * std::pow(1.0 / T, 1.0 - omega) / rho;
}

/// Parse the top-level `units` key (nondimensional | si, default nondimensional), the `gas` section
/// and the `reference` section. `gas`: kn_definition (hs | hs_exact | vhs, default hs), omega
/// (default 0.81 or the species', [0.5, 1]), alpha (default 1), Pr (default 2/3, (0, 1]), K_int
/// (default 0 or the species', >= 0), and either Kn (> 0; nondimensional gas) or dimensional data:
/// species (argon | nitrogen | helium) and/or molecular_mass [kg], d_ref [m], T_ref_vhs [K]
/// (explicit keys override the preset). Dimensional data need the `reference` section: length [m],
/// temperature [K] and exactly one of number_density [1/m^3], density [kg/m^3], pressure [Pa].
/// `units: si` needs dimensional data. Errors (InputError naming key path and line): Kn together
/// with dimensional data, missing or unused `reference`, zero or two density keys, values out of
/// range.
GasModel parse_gas(Config& cfg);

/// Multi-line description of the reference state for the start-up log: L_ref, T_ref, n_ref,
/// rho_ref, p_ref, R, C_ref, t_ref, mu_ref (dimensional and nondimensional), mean free paths and Kn
/// (hs, vhs). Without dimensional data only the nondimensional values (mu_ref, Kn_hs, Kn_vhs). No
/// trailing newline.
std::string describe_reference(const GasModel& gas);

}  // namespace ugks

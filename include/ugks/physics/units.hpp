#pragma once
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {

/// Boltzmann constant [J/K] (exact, SI 2019).
inline constexpr double kBoltzmann = 1.380649e-23;

/// Molecular data of a VHS gas, from Bird (1994), Molecular Gas Dynamics and the Direct Simulation
/// of Gas Flows, Tables A1 (mass, VHS diameter at 273 K, omega) and A2 (internal degrees of
/// freedom).
struct SpeciesData {
    const char* name;  ///< preset name used by `gas.species`
    double mass;       ///< molecular mass m [kg]
    double d_ref;      ///< VHS reference diameter [m] at T_ref
    double T_ref;      ///< temperature of d_ref [K]
    double omega;      ///< viscosity-temperature exponent
    int K_int;         ///< internal (rotational) degrees of freedom
};

/// The `gas.species` presets (argon, nitrogen, helium) in a fixed order.
const std::vector<SpeciesData>& species_presets();
/// The preset of that name, or nullptr.
const SpeciesData* find_species(const std::string& name);

/// VSS/VHS viscosity [Pa s] at temperature T [K] (Bird 1994 eq. 4.62), with t = T / T_ref:
///   mu(T) = 5 (a+1)(a+2) sqrt(m k T / pi) / (4 a (5 - 2w)(7 - 2w) d_ref^2) * t^(w - 1/2).
/// For a = 1 (VHS): 15 sqrt(pi m k T) / (2 pi d_ref^2 (5 - 2w)(7 - 2w)) * t^(w - 1/2).
/// Units: mass [kg], d_ref [m], T_ref and T [K].
double vss_viscosity(double mass, double d_ref, double T_ref, double omega, double alpha, double T);

/// Hard-sphere mean free path 1 / (sqrt(2) pi d^2 n) [m]; d [m], n [1/m^3].
double hs_mean_free_path(double d, double n);

/// What a reported number measures, for the conversion of outputs to SI (ReferenceState::si_scale).
enum class Quantity {
    dimensionless,  ///< Mach, Kn, coefficients, residuals, unit normals
    length,         ///< coordinates, reference length
    area,           ///< face areas, reference area (per metre of depth in 2D)
    volume,         ///< cell volumes (an area in 2D, a length in 1D)
    time,           ///< time, time step
    density,        ///< kg/m^3
    speed,          ///< velocities
    temperature,    ///< K
    pressure,       ///< pressure, stress, wall shear, dynamic pressure
    heat_flux,      ///< W/m^2
    force,          ///< integrated wall force (pressure x area)
    moment,         ///< force x length
    heat_load,      ///< integrated wall heat (heat flux x area)
};

/// Reference state of the nondimensionalization (docs/formulation.md section 1.2) and the
/// conversion of case-file values to the solver's nondimensional values. A default-constructed
/// object is the identity (nondimensional input without dimensional data).
struct ReferenceState {
    bool dimensional = false;  ///< a `reference` section was given (dimensional gas data)
    /// `units: si`: case-file values are SI and the input_* functions convert them.
    bool si_input = false;
    double length = 1.0;          ///< L_ref [m]
    double temperature = 1.0;     ///< T_ref [K]
    double number_density = 0.0;  ///< n_ref [1/m^3]
    double density = 1.0;         ///< rho_ref = n_ref m [kg/m^3]
    double pressure = 0.0;        ///< p_ref = n_ref k T_ref [Pa] (nondimensional 1/2)
    double gas_constant = 0.0;    ///< R = k / m [J/(kg K)]
    double speed = 1.0;           ///< C_ref = sqrt(2 R T_ref) [m/s]
    double time = 1.0;            ///< t_ref = L_ref / C_ref [s]

    /// Fill every derived field from L_ref [m], T_ref [K], n_ref [1/m^3] and the mass m [kg].
    static ReferenceState from_number_density(double length, double temperature,
                                              double number_density, double mass, bool si_input);

    /// Case-file value -> nondimensional value: divided by the reference when si_input, else
    /// unchanged.
    double input_length(double x) const { return si_input ? x / length : x; }
    Vec3 input_position(const Vec3& x) const {
        return {input_length(x[0]), input_length(x[1]), input_length(x[2])};
    }
    double input_time(double t) const { return si_input ? t / time : t; }
    double input_density(double rho) const { return si_input ? rho / density : rho; }
    double input_temperature(double T) const { return si_input ? T / temperature : T; }
    double input_speed(double u) const { return si_input ? u / speed : u; }
    Vec3 input_velocity(const Vec3& u) const {
        return {input_speed(u[0]), input_speed(u[1]), input_speed(u[2])};
    }
    /// p_hat = p / (rho_ref C_ref^2) (a pressure [Pa]).
    double input_pressure(double p) const { return si_input ? p / (density * speed * speed) : p; }
    /// a_hat = a t_ref / C_ref = a L_ref / C_ref^2 (an acceleration [m/s^2]).
    double input_acceleration(double a) const { return si_input ? a * time / speed : a; }

    /// Nondimensional value -> SI (meaningful when `dimensional`).
    double si_length(double x) const { return x * length; }
    double si_time(double t) const { return t * time; }
    double si_density(double rho) const { return rho * density; }
    double si_temperature(double T) const { return T * temperature; }
    double si_speed(double u) const { return u * speed; }
    /// p = p_hat rho_ref C_ref^2 [Pa]
    double si_pressure(double p) const { return p * density * speed * speed; }
    /// mu = mu_hat rho_ref C_ref L_ref [Pa s]
    double si_viscosity(double mu) const { return mu * density * speed * length; }

    /// SI value = nondimensional value * si_scale(q, dim) for a quantity of kind `q` on a mesh of
    /// `dim` dimensions (docs/formulation.md section 1.2). Measures of a 1D/2D mesh are per metre
    /// of the directions it does not resolve: a 2D cell "volume" is an area [m^2], a 2D face
    /// "area" a length [m], a 2D force N/m, a 2D heat load W/m.
    double si_scale(Quantity q, int dim) const;
};

/// The SI unit of `q` on a `dim`-dimensional mesh, as si_scale gives it: "m", "m/s", "Pa",
/// "W/m^2", "N/m" (a 2D force) ...; "1" for a dimensionless quantity.
std::string si_unit(Quantity q, int dim);

}  // namespace ugks

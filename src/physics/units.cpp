#include "ugks/physics/units.hpp"

#include <cmath>

namespace ugks {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

const std::vector<SpeciesData>& species_presets() {
    // Bird (1994) Table A1 (VHS, T_ref = 273 K) and Table A2 (rotational degrees of freedom).
    static const std::vector<SpeciesData> presets = {
        {"argon", 6.63e-26, 4.17e-10, 273.0, 0.81, 0},
        {"nitrogen", 4.65e-26, 4.17e-10, 273.0, 0.74, 2},
        {"helium", 6.65e-27, 2.33e-10, 273.0, 0.66, 0},
    };
    return presets;
}

const SpeciesData* find_species(const std::string& name) {
    for (const auto& s : species_presets())
        if (name == s.name) return &s;
    return nullptr;
}

double vss_viscosity(double mass, double d_ref, double T_ref, double omega, double alpha,
                     double T) {
    return 5.0 * (alpha + 1.0) * (alpha + 2.0) * std::sqrt(mass * kBoltzmann * T / kPi) /
           (4.0 * alpha * (5.0 - 2.0 * omega) * (7.0 - 2.0 * omega) * d_ref * d_ref) *
           std::pow(T / T_ref, omega - 0.5);
}

double hs_mean_free_path(double d, double n) { return 1.0 / (std::sqrt(2.0) * kPi * d * d * n); }

ReferenceState ReferenceState::from_number_density(double length, double temperature,
                                                   double number_density, double mass,
                                                   bool si_input) {
    ReferenceState r;
    r.dimensional = true;
    r.si_input = si_input;
    r.length = length;
    r.temperature = temperature;
    r.number_density = number_density;
    r.density = number_density * mass;
    r.pressure = number_density * kBoltzmann * temperature;
    r.gas_constant = kBoltzmann / mass;
    r.speed = std::sqrt(2.0 * r.gas_constant * temperature);
    r.time = length / r.speed;
    return r;
}

}  // namespace ugks

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

double ReferenceState::si_scale(Quantity q, int dim) const {
    const double face = std::pow(length, dim - 1);  // a face measure of the mesh
    const double p = density * speed * speed;
    switch (q) {
        case Quantity::dimensionless:
            return 1.0;
        case Quantity::length:
            return length;
        case Quantity::area:
            return face;
        case Quantity::volume:
            return std::pow(length, dim);
        case Quantity::time:
            return time;
        case Quantity::density:
            return density;
        case Quantity::speed:
            return speed;
        case Quantity::temperature:
            return temperature;
        case Quantity::pressure:
            return p;
        case Quantity::heat_flux:
            return p * speed;
        case Quantity::force:
            return p * face;
        case Quantity::moment:
            return p * face * length;
        case Quantity::heat_load:
            return p * speed * face;
    }
    return 1.0;
}

std::string si_unit(Quantity q, int dim) {
    // Per metre of each direction a 1D/2D mesh does not resolve.
    const int missing = 3 - dim;
    const std::string per = missing == 0 ? "" : missing == 1 ? "/m" : "/m^2";
    switch (q) {
        case Quantity::dimensionless:
            return "1";
        case Quantity::length:
            return "m";
        case Quantity::area:
            return dim == 3 ? "m^2" : dim == 2 ? "m" : "1";
        case Quantity::volume:
            return dim == 3 ? "m^3" : dim == 2 ? "m^2" : "m";
        case Quantity::time:
            return "s";
        case Quantity::density:
            return "kg/m^3";
        case Quantity::speed:
            return "m/s";
        case Quantity::temperature:
            return "K";
        case Quantity::pressure:
            return "Pa";
        case Quantity::heat_flux:
            return "W/m^2";
        case Quantity::force:
            return "N" + per;
        case Quantity::moment:
            return "N m" + per;
        case Quantity::heat_load:
            return "W" + per;
    }
    return "1";
}

}  // namespace ugks

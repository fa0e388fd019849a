#include "ugks/physics/gas.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "ugks/core/config.hpp"

namespace ugks {

namespace {

// Keys whose presence makes the gas dimensional (mu_ref from the molecular data, not from Kn).
const std::vector<std::string> kDimensionalKeys = {"gas.species", "gas.molecular_mass", "gas.d_ref",
                                                   "gas.T_ref_vhs"};
const std::vector<std::string> kDensityKeys = {"reference.number_density", "reference.density",
                                               "reference.pressure"};

double positive(Config& cfg, const std::string& key) {
    const double v = cfg.get<double>(key);
    cfg.check_range(key, v, 0.0, HUGE_VAL, true, true);
    return v;
}

// The `reference` section; `trigger` is the key that made it required (named when it is missing).
ReferenceState parse_reference(Config& cfg, double mass, bool si, const std::string& trigger) {
    if (!cfg.has("reference"))
        cfg.fail(
            trigger,
            "dimensional gas data need a 'reference' section: length (m), temperature (K) and one "
            "of number_density (1/m^3), density (kg/m^3), pressure (Pa)");
    const double L = positive(cfg, "reference.length");
    const double T = positive(cfg, "reference.temperature");
    std::string given;
    for (const auto& key : kDensityKeys) {
        if (!cfg.has(key)) continue;
        if (!given.empty())
            cfg.fail(key,
                     "give only one of 'reference.number_density', 'reference.density', "
                     "'reference.pressure' ('" +
                         given + "' is also given at " + cfg.location(given) + ")");
        given = key;
    }
    if (given.empty())
        cfg.fail("reference",
                 "give one of 'reference.number_density' (1/m^3), 'reference.density' (kg/m^3) "
                 "or 'reference.pressure' (Pa)");
    const double v = positive(cfg, given);
    double n = v;
    if (given == "reference.density")
        n = v / mass;
    else if (given == "reference.pressure")
        n = v / (kBoltzmann * T);
    return ReferenceState::from_number_density(L, T, n, mass, si);
}

}  // namespace

double mu_ref_from_kn(double Kn, double alpha, double omega_r) {
    const double pi = 3.14159265358979323846;
    return 5.0 * (alpha + 1.0) * (alpha + 2.0) * std::sqrt(pi) /
           (4.0 * alpha * (5.0 - 2.0 * omega_r) * (7.0 - 2.0 * omega_r)) * Kn;
}

GasModel parse_gas(Config& cfg) {
    GasModel g;
    const bool si = cfg.get_enum_or("units", {"nondimensional", "si"}, "nondimensional") == "si";
    std::string trigger;  // the first dimensional gas key present
    for (const auto& key : kDimensionalKeys)
        if (trigger.empty() && cfg.has(key)) trigger = key;
    g.dimensional = !trigger.empty();

    if (!g.dimensional) {
        if (si)
            cfg.fail(
                "units",
                "'units: si' needs dimensional gas data: 'gas.species', or 'gas.molecular_mass', "
                "'gas.d_ref' and 'gas.T_ref_vhs', and a 'reference' section");
        if (cfg.has("reference"))
            cfg.fail("reference",
                     "a reference state is used only with dimensional gas data ('gas.species' or "
                     "'gas.molecular_mass', 'gas.d_ref', 'gas.T_ref_vhs'); with 'gas.Kn' "
                     "everything is nondimensional");
        g.Kn = cfg.get<double>("gas.Kn");
        cfg.check_range("gas.Kn", g.Kn, 0.0, HUGE_VAL, true, false);
    } else if (cfg.has("gas.Kn")) {
        cfg.fail("gas.Kn", "cannot be given together with dimensional gas data ('" + trigger +
                               "' at " + cfg.location(trigger) +
                               "): Kn follows from the molecular data and the 'reference' section");
    }

    const SpeciesData* sp = nullptr;
    if (cfg.has("gas.species")) {
        std::vector<std::string> names;
        for (const auto& s : species_presets()) names.push_back(s.name);
        g.species = cfg.get_enum("gas.species", names);
        sp = find_species(g.species);
    }
    g.kn_definition = cfg.get_enum_or("gas.kn_definition", {"hs", "hs_exact", "vhs"}, "hs");
    g.omega = cfg.get_or<double>("gas.omega", sp ? sp->omega : 0.81);
    cfg.check_range("gas.omega", g.omega, 0.5, 1.0);
    g.alpha = cfg.get_or<double>("gas.alpha", 1.0);
    cfg.check_range("gas.alpha", g.alpha, 0.0, 2.0, true, false);
    g.Pr = cfg.get_or<double>("gas.Pr", 2.0 / 3.0);
    cfg.check_range("gas.Pr", g.Pr, 0.0, 1.0, true, false);
    g.K_int = cfg.get_or<int>("gas.K_int", sp ? sp->K_int : 0);
    cfg.check_range("gas.K_int", g.K_int, 0, 10);

    // Kn of the hard-sphere (alpha = 1, omega_r = 0.5) and of the gas's own VSS mean free path
    // (section 1.3): both are mu_ref divided by the Kn -> mu_ref factor of the respective model.
    const double per_kn_hs = mu_ref_from_kn(1.0, 1.0, 0.5);
    const double per_kn_vhs = mu_ref_from_kn(1.0, g.alpha, g.omega);
    if (!g.dimensional) {
        // UGKS convention (docs/formulation.md, decision U9): the reference molecular model in the
        // Kn -> mu mapping is hard-sphere unless kn_definition is vhs, which uses the gas's own
        // omega and alpha.
        const double per_kn = g.kn_definition == "hs" ? per_kn_hs
                              : g.kn_definition == "hs_exact"
                                  ? per_kn_hs * kHardSphereViscosityFactor
                                  : per_kn_vhs;
        g.mu_ref = g.Kn * per_kn;
        g.Kn_hs = g.mu_ref / per_kn_hs;
        g.Kn_hs_exact = g.Kn_hs / kHardSphereViscosityFactor;
        g.Kn_vhs = g.mu_ref / per_kn_vhs;
        return g;
    }

    auto molecular = [&](const std::string& key, double preset) {
        const double v = sp ? cfg.get_or<double>(key, preset) : cfg.get<double>(key);
        cfg.check_range(key, v, 0.0, HUGE_VAL, true, true);
        return v;
    };
    g.molecular_mass = molecular("gas.molecular_mass", sp ? sp->mass : 0.0);
    g.d_ref = molecular("gas.d_ref", sp ? sp->d_ref : 0.0);
    g.T_ref_vhs = molecular("gas.T_ref_vhs", sp ? sp->T_ref : 0.0);
    g.ref = parse_reference(cfg, g.molecular_mass, si, trigger);
    // Converted once: mu at T_ref from the molecular data, then mu_hat = mu / (rho_ref C_ref L_ref)
    // (section 1.2); the solver's mu = mu_ref T_hat^omega then reproduces the VSS law at every
    // temperature.
    g.mu_ref_si =
        vss_viscosity(g.molecular_mass, g.d_ref, g.T_ref_vhs, g.omega, g.alpha, g.ref.temperature);
    g.mu_ref = g.mu_ref_si / (g.ref.density * g.ref.speed * g.ref.length);
    g.Kn_hs = g.mu_ref / per_kn_hs;
    g.Kn_hs_exact = g.Kn_hs / kHardSphereViscosityFactor;
    g.Kn_vhs = g.mu_ref / per_kn_vhs;
    g.Kn = g.kn_definition == "hs"         ? g.Kn_hs
           : g.kn_definition == "hs_exact" ? g.Kn_hs_exact
                                           : g.Kn_vhs;
    return g;
}

std::string describe_reference(const GasModel& g) {
    const ReferenceState& r = g.ref;
    if (!g.dimensional)
        return fmt::format(
            "reference state: nondimensional (gas.Kn given): rho_ref = 1, T_ref = 1, p_ref = 1/2, "
            "C_ref = 1\n  mu_ref = {:.6g} (nondimensional), Kn_hs = {:.6g}, Kn_hs_exact = {:.6g}, "
            "Kn_vhs = {:.6g} (Kn = {:.6g}, kn_definition {})",
            g.mu_ref, g.Kn_hs, g.Kn_hs_exact, g.Kn_vhs, g.Kn, g.kn_definition);
    std::string out =
        fmt::format("reference state ({}):\n",
                    r.si_input ? "units: si, case-file values are SI and divided by these"
                               : "units: nondimensional, mu_ref from the molecular data");
    out += fmt::format(
        "  gas: {}m = {:.6g} kg, R = k/m = {:.6g} J/(kg K), d_ref = {:.6g} m at {:.6g} K, "
        "omega = {:.6g}, alpha = {:.6g}\n",
        g.species.empty() ? "" : g.species + ", ", g.molecular_mass, r.gas_constant, g.d_ref,
        g.T_ref_vhs, g.omega, g.alpha);
    out += fmt::format(
        "  L_ref = {:.6g} m, T_ref = {:.6g} K, n_ref = {:.6g} 1/m^3, rho_ref = {:.6g} kg/m^3, "
        "p_ref = {:.6g} Pa\n",
        r.length, r.temperature, r.number_density, r.density, r.pressure);
    out += fmt::format("  C_ref = sqrt(2 R T_ref) = {:.6g} m/s, t_ref = L_ref / C_ref = {:.6g} s\n",
                       r.speed, r.time);
    out += fmt::format(
        "  mu_ref = {:.6g} Pa s at T_ref (VSS law, Bird 1994 eq. 4.62), nondimensional "
        "mu_ref = mu / (rho_ref C_ref L_ref) = {:.6g}\n",
        g.mu_ref_si, g.mu_ref);
    out += fmt::format(
        "  mean free path: hs {:.6g} m (Kn_hs = {:.6g}), hs_exact {:.6g} m (Kn_hs_exact = {:.6g}), "
        "vhs {:.6g} m (Kn_vhs = {:.6g}); Kn = {:.6g} (kn_definition {})",
        g.Kn_hs * r.length, g.Kn_hs, g.Kn_hs_exact * r.length, g.Kn_hs_exact, g.Kn_vhs * r.length,
        g.Kn_vhs, g.Kn, g.kn_definition);
    return out;
}

}  // namespace ugks

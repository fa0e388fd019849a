// Dimensional gas data, the reference state and the SI -> nondimensional conversion of case inputs
// (docs/formulation.md section 1; docs/usage.md "Dimensional input").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "test_util.hpp"
#include "ugks/app/case_setup.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/physics/gas.hpp"
#include "ugks/physics/units.hpp"

namespace ugks {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kB = 1.380649e-23;
constexpr double kArgonMass = 6.63e-26;
constexpr double kArgonD = 4.17e-10;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string error_of(const std::function<void()>& f) { return test::input_error_of(f); }

GasModel gas_from(const std::string& text) {
    Config c = Config::from_string(text, "case.yaml");
    return parse_gas(c);
}

std::string gas_error(const std::string& text) {
    return error_of([&] { gas_from(text); });
}

// ---- molecular data and formulas

TEST(GasUnits, VhsViscosityReproducesBirdTableAt273K) {
    // Bird (1994) Table A1: viscosity at 273 K of argon, nitrogen, helium (Pa s).
    const struct {
        const char* name;
        double mu_table;
    } cases[] = {{"argon", 2.117e-5}, {"nitrogen", 1.656e-5}, {"helium", 1.865e-5}};
    for (const auto& c : cases) {
        const SpeciesData* s = find_species(c.name);
        ASSERT_NE(s, nullptr) << c.name;
        const double mu = vss_viscosity(s->mass, s->d_ref, s->T_ref, s->omega, 1.0, 273.0);
        EXPECT_NEAR(mu / c.mu_table, 1.0, 0.01) << c.name;
    }
    // Closed form for argon at 273 K: 15 sqrt(pi m k T) / (2 pi d^2 (5 - 2w)(7 - 2w)).
    const double closed = 15.0 * std::sqrt(kPi * kArgonMass * kB * 273.0) /
                          (2.0 * kPi * kArgonD * kArgonD * (5.0 - 1.62) * (7.0 - 1.62));
    EXPECT_NEAR(vss_viscosity(kArgonMass, kArgonD, 273.0, 0.81, 1.0, 273.0) / closed, 1.0, 1e-14);
    // mu ~ T^omega.
    EXPECT_NEAR(vss_viscosity(kArgonMass, kArgonD, 273.0, 0.81, 1.0, 546.0) / closed,
                std::pow(2.0, 0.81), 1e-13);
    EXPECT_EQ(find_species("xenon"), nullptr);
    const SpeciesData* n2 = find_species("nitrogen");
    EXPECT_EQ(n2->K_int, 2);
    EXPECT_EQ(n2->omega, 0.74);
}

TEST(GasUnits, ArgonReferenceStateFromNumberDensity) {
    const double n = 1.0e21, L = 0.05;
    const GasModel g = gas_from(
        "units: si\n"
        "gas:\n  species: argon\n"
        "reference:\n  length: 0.05\n  temperature: 273\n  number_density: 1.0e21\n");
    EXPECT_TRUE(g.dimensional);
    EXPECT_EQ(g.species, "argon");
    EXPECT_EQ(g.omega, 0.81);
    EXPECT_EQ(g.K_int, 0);
    EXPECT_EQ(g.molecular_mass, kArgonMass);
    EXPECT_TRUE(g.ref.si_input);
    const double R = kB / kArgonMass;
    EXPECT_NEAR(g.ref.gas_constant / R, 1.0, 1e-15);
    EXPECT_NEAR(g.ref.speed / std::sqrt(2.0 * R * 273.0), 1.0, 1e-15);
    EXPECT_NEAR(g.ref.time / (L / std::sqrt(2.0 * R * 273.0)), 1.0, 1e-15);
    EXPECT_NEAR(g.ref.density / (n * kArgonMass), 1.0, 1e-15);
    EXPECT_NEAR(g.ref.pressure / (n * kB * 273.0), 1.0, 1e-15);
    // At T_ref = T_ref_vhs the gas's own (VHS) mean free path is the hard-sphere formula 1/(sqrt(2)
    // pi d^2 n).
    const double lambda = 1.0 / (std::sqrt(2.0) * kPi * kArgonD * kArgonD * n);
    EXPECT_NEAR(g.Kn_vhs / (lambda / L), 1.0, 1e-12);
    // The hard-sphere-reference definition (UGKS convention) is 24 / ((7 - 2w)(5 - 2w)) larger.
    EXPECT_NEAR(g.Kn_hs / (lambda / L * 24.0 / (5.38 * 3.38)), 1.0, 1e-12);
    EXPECT_EQ(g.kn_definition, "hs");
    EXPECT_EQ(g.Kn, g.Kn_hs);
    // The solver's mu_ref is consistent with the Kn -> mu_ref mapping of section 1.3 ...
    EXPECT_NEAR(g.mu_ref / (5.0 * std::sqrt(kPi) / 16.0 * g.Kn_hs), 1.0, 1e-13);
    // ... and is the dimensional viscosity divided by rho_ref C_ref L_ref.
    const double mu_si = vss_viscosity(kArgonMass, kArgonD, 273.0, 0.81, 1.0, 273.0);
    EXPECT_NEAR(g.mu_ref_si / mu_si, 1.0, 1e-15);
    EXPECT_NEAR(g.mu_ref / (mu_si / (n * kArgonMass * std::sqrt(2.0 * R * 273.0) * L)), 1.0, 1e-14);
    EXPECT_NEAR(g.ref.si_viscosity(g.mu_ref) / mu_si, 1.0, 1e-14);
}

// kn_definition hs_exact: the hard-sphere mean free path with the converged Chapman-Enskog
// viscosity, 1.016034 times the first approximation that `hs` uses (Chapman & Cowling): the same Kn
// gives that much more viscosity, and a dimensional hard-sphere gas reports a Kn that much smaller.
TEST(GasUnits, HardSphereExactViscosity) {
    const GasModel first = gas_from("gas: {Kn: 0.1, omega: 0.5}\n");
    const GasModel exact = gas_from("gas: {Kn: 0.1, omega: 0.5, kn_definition: hs_exact}\n");
    EXPECT_EQ(exact.kn_definition, "hs_exact");
    EXPECT_NEAR(first.mu_ref / (5.0 * std::sqrt(kPi) / 16.0 * 0.1), 1.0, 1e-15);
    EXPECT_NEAR(exact.mu_ref / first.mu_ref, 1.016034, 1e-15);
    EXPECT_EQ(exact.Kn, 0.1);
    EXPECT_NEAR(exact.Kn_hs_exact, 0.1, 1e-15);
    EXPECT_NEAR(exact.Kn_hs / 0.1, 1.016034, 1e-15);
    // A dimensional hard-sphere gas: mu from d is the first approximation of (1.3d); the exact
    // hard-sphere gas of the same viscosity has d^2 larger by the factor, its mean free path
    // smaller.
    const char* dim =
        "gas: {molecular_mass: 5.0e-26, d_ref: 3.0e-10, T_ref_vhs: 273, omega: 0.5, "
        "kn_definition: hs_exact}\nreference: {length: 1.0e-4, temperature: 500, pressure: 10}\n";
    const GasModel d = gas_from(dim);
    EXPECT_NEAR(d.Kn * 1.016034 / d.Kn_hs, 1.0, 1e-14);
    EXPECT_EQ(d.Kn, d.Kn_hs_exact);
}

TEST(GasUnits, MeanFreePathAwayFromTrefAndForHardSpheres) {
    // Argon at 300 K: lambda_vhs = (T / 273)^(w - 1/2) / (sqrt(2) pi d^2 n).
    const double n = 3.0e22, L = 2.0e-3;
    GasModel g = gas_from(
        "gas:\n  species: argon\n  kn_definition: vhs\n"
        "reference: {length: 2.0e-3, temperature: 300, number_density: 3.0e22}\n");
    const double lambda =
        std::pow(300.0 / 273.0, 0.31) / (std::sqrt(2.0) * kPi * kArgonD * kArgonD * n);
    EXPECT_NEAR(g.Kn_vhs / (lambda / L), 1.0, 1e-12);
    EXPECT_EQ(g.Kn, g.Kn_vhs);
    EXPECT_FALSE(g.ref.si_input);  // dimensional gas, nondimensional case values

    // A hard-sphere gas (omega = 1/2): both definitions coincide with hs_mean_free_path at any T.
    const double d = 3.0e-10, m = 5.0e-26;
    g = gas_from(
        "gas: {molecular_mass: 5.0e-26, d_ref: 3.0e-10, T_ref_vhs: 273, omega: 0.5}\n"
        "reference: {length: 1.0e-4, temperature: 500, pressure: 10}\n");
    const double n_hs = 10.0 / (kB * 500.0);
    EXPECT_NEAR(g.ref.number_density / n_hs, 1.0, 1e-15);
    EXPECT_NEAR(g.ref.density / (n_hs * m), 1.0, 1e-15);
    EXPECT_NEAR(hs_mean_free_path(d, n_hs) * std::sqrt(2.0) * kPi * d * d * n_hs, 1.0, 1e-15);
    EXPECT_NEAR(g.Kn_hs / (hs_mean_free_path(d, n_hs) / 1.0e-4), 1.0, 1e-12);
    EXPECT_NEAR(g.Kn_vhs / g.Kn_hs, 1.0, 1e-14);
}

TEST(GasUnits, DensityKeysAreEquivalentAndConversionsRoundTrip) {
    const double n = 2.5e20, T = 273.0;
    const std::string head =
        "units: si\ngas: {species: nitrogen}\nreference: {length: 0.1, temperature: 273, ";
    const GasModel a = gas_from(head + "number_density: 2.5e20}\n");
    const GasModel b = gas_from(head + "density: " + num(n * 4.65e-26) + "}\n");
    const GasModel c = gas_from(head + "pressure: " + num(n * kB * T) + "}\n");
    for (const GasModel* g : {&b, &c}) {
        EXPECT_NEAR(g->ref.number_density / a.ref.number_density, 1.0, 1e-6);
        EXPECT_NEAR(g->mu_ref / a.mu_ref, 1.0, 1e-6);
    }
    EXPECT_EQ(a.K_int, 2);
    EXPECT_EQ(a.omega, 0.74);
    const ReferenceState& r = a.ref;
    // p_hat = 1/2 at the reference state (p = rho R T = rho C^2 / 2).
    EXPECT_NEAR(r.si_pressure(0.5) / r.pressure, 1.0, 1e-14);
    EXPECT_NEAR(r.input_pressure(r.pressure), 0.5, 1e-14);  // pressure_inlet/outlet p in Pa
    for (double v : {0.0137, 1.0, 42.5, 3.2e4}) {
        EXPECT_NEAR(r.si_length(r.input_length(v)) / v, 1.0, 1e-15);
        EXPECT_NEAR(r.si_time(r.input_time(v)) / v, 1.0, 1e-15);
        EXPECT_NEAR(r.si_density(r.input_density(v)) / v, 1.0, 1e-15);
        EXPECT_NEAR(r.si_temperature(r.input_temperature(v)) / v, 1.0, 1e-15);
        EXPECT_NEAR(r.si_speed(r.input_speed(v)) / v, 1.0, 1e-15);
    }
    EXPECT_EQ(r.input_temperature(273.0), 1.0);
    EXPECT_NEAR(r.input_length(0.25), 2.5, 1e-15);
    // Identity without `units: si`, with or without dimensional gas data.
    const ReferenceState id;
    EXPECT_EQ(id.input_length(0.25), 0.25);
    EXPECT_EQ(id.input_speed(3.0), 3.0);
    ReferenceState nd = r;
    nd.si_input = false;
    EXPECT_EQ(nd.input_temperature(300.0), 300.0);
}

TEST(GasUnits, LidSpeedInMetresPerSecond) {
    // Preset argon mass (Bird): R = k / 6.63e-26 = 208.24 J/(kg K).
    GasModel g = gas_from(
        "units: si\ngas: {species: argon}\n"
        "reference: {length: 0.1, temperature: 273, pressure: 101325}\n");
    EXPECT_NEAR(g.ref.input_speed(50.0), 50.0 / std::sqrt(2.0 * kB / kArgonMass * 273.0), 1e-15);
    EXPECT_NEAR(g.ref.input_speed(50.0), 0.14832, 1e-4);
    // With R = 208.13 J/(kg K) (molar mass 39.948 g/mol) through an explicit molecular mass.
    g = gas_from("units: si\ngas: {species: argon, molecular_mass: " + num(kB / 208.13) +
                 "}\nreference: {length: 0.1, temperature: 273, pressure: 101325}\n");
    EXPECT_NEAR(g.ref.input_speed(50.0), 0.1483223, 1e-6);
    EXPECT_NEAR(g.ref.number_density, 101325.0 / (kB * 273.0), 1e15);
}

TEST(GasUnits, NondimensionalKnUnchanged) {
    const GasModel g = gas_from("gas: {Kn: 0.1}\n");
    EXPECT_FALSE(g.dimensional);
    EXPECT_FALSE(g.ref.si_input);
    EXPECT_EQ(g.Kn, 0.1);
    EXPECT_NEAR(g.mu_ref, 5.0 * std::sqrt(kPi) / 16.0 * 0.1, 1e-15);
    EXPECT_NEAR(g.Kn_hs, 0.1, 1e-16);
    EXPECT_NEAR(g.Kn_vhs, 0.1 * (5.0 - 1.62) * (7.0 - 1.62) / 24.0, 1e-15);
    const std::string d = describe_reference(g);
    EXPECT_NE(d.find("nondimensional (gas.Kn given)"), std::string::npos) << d;
    EXPECT_NE(d.find("Kn_vhs = 0.0757683"), std::string::npos) << d;
}

TEST(GasUnits, DescribeReferenceListsTheState) {
    const GasModel g = gas_from(
        "units: si\ngas: {species: argon}\n"
        "reference: {length: 0.01, temperature: 273, number_density: 1.0e21}\n");
    const std::string d = describe_reference(g);
    const double C = std::sqrt(2.0 * kB / kArgonMass * 273.0);
    char buf[64];
    std::snprintf(buf, sizeof buf, "C_ref = sqrt(2 R T_ref) = %.6g m/s", C);
    EXPECT_NE(d.find(buf), std::string::npos) << d;
    std::snprintf(buf, sizeof buf, "t_ref = L_ref / C_ref = %.6g s", 0.01 / C);
    EXPECT_NE(d.find(buf), std::string::npos) << d;
    std::snprintf(buf, sizeof buf, "Kn_hs = %.6g", g.Kn_hs);
    EXPECT_NE(d.find(buf), std::string::npos) << d;
    std::snprintf(buf, sizeof buf, "rho_ref = %.6g kg/m^3", 1.0e21 * kArgonMass);
    EXPECT_NE(d.find(buf), std::string::npos) << d;
    EXPECT_NE(d.find("L_ref = 0.01 m, T_ref = 273 K, n_ref = 1e+21 1/m^3"), std::string::npos) << d;
    EXPECT_NE(d.find("units: si"), std::string::npos) << d;
}

// ---- errors name the key path and the line

TEST(GasUnits, KnTogetherWithDimensionalDataIsAnError) {
    EXPECT_EQ(gas_error("gas:\n  species: argon\n  Kn: 0.1\n"
                        "reference: {length: 1, temperature: 273, density: 1.0e-3}\n"),
              "case.yaml:3: key 'gas.Kn': cannot be given together with dimensional gas data "
              "('gas.species' at "
              "case.yaml:2): Kn follows from the molecular data and the 'reference' section");
    EXPECT_EQ(gas_error("gas:\n  Kn: 0.1\n  d_ref: 4e-10\n"),
              "case.yaml:2: key 'gas.Kn': cannot be given together with dimensional gas data "
              "('gas.d_ref' at "
              "case.yaml:3): Kn follows from the molecular data and the 'reference' section");
}

TEST(GasUnits, MissingOrUnusedReferenceIsAnError) {
    EXPECT_EQ(gas_error("units: si\ngas:\n  species: argon\n"),
              "case.yaml:3: key 'gas.species': dimensional gas data need a 'reference' section: "
              "length (m), "
              "temperature (K) and one of number_density (1/m^3), density (kg/m^3), pressure (Pa)");
    EXPECT_EQ(gas_error("units: si\ngas:\n  Kn: 0.1\n"),
              "case.yaml:1: key 'units': 'units: si' needs dimensional gas data: 'gas.species', or "
              "'gas.molecular_mass', 'gas.d_ref' and 'gas.T_ref_vhs', and a 'reference' section");
    EXPECT_EQ(
        gas_error("gas:\n  Kn: 0.1\nreference:\n  length: 1\n"),
        "case.yaml:3: key 'reference': a reference state is used only with dimensional gas data "
        "('gas.species' or 'gas.molecular_mass', 'gas.d_ref', 'gas.T_ref_vhs'); with 'gas.Kn' "
        "everything is nondimensional");
    const std::string e =
        gas_error("gas:\n  species: argon\nreference:\n  temperature: 273\n  density: 1\n");
    EXPECT_NE(e.find("'reference.length' is required"), std::string::npos) << e;
}

TEST(GasUnits, ExactlyOneDensityKey) {
    EXPECT_EQ(
        gas_error("gas: {species: helium}\nreference:\n  length: 1\n  temperature: 273\n"
                  "  number_density: 1e20\n  pressure: 1.0\n"),
        "case.yaml:6: key 'reference.pressure': give only one of 'reference.number_density', "
        "'reference.density', 'reference.pressure' ('reference.number_density' is also given at "
        "case.yaml:5)");
    EXPECT_EQ(gas_error("gas: {species: helium}\nreference:\n  length: 1\n  temperature: 273\n"),
              "case.yaml:2: key 'reference': give one of 'reference.number_density' (1/m^3), "
              "'reference.density' (kg/m^3) or 'reference.pressure' (Pa)");
    EXPECT_EQ(
        gas_error(
            "gas: {species: helium}\nreference:\n  length: 1\n  temperature: 273\n  density: 0\n"),
        "case.yaml:5: key 'reference.density': value 0 is out of range (0, inf)");
}

TEST(GasUnits, BadMolecularDataIsAnError) {
    std::string e =
        gas_error("gas: {species: argn}\nreference: {length: 1, temperature: 1, density: 1}\n");
    EXPECT_NE(e.find("case.yaml:1"), std::string::npos) << e;
    EXPECT_NE(e.find("'gas.species'"), std::string::npos) << e;
    EXPECT_NE(e.find("argon"), std::string::npos) << e;
    e = gas_error(
        "gas: {d_ref: 4e-10, T_ref_vhs: 273}\nreference: {length: 1, temperature: 1, density: "
        "1}\n");
    EXPECT_NE(e.find("'gas.molecular_mass' is required"), std::string::npos) << e;
    EXPECT_EQ(gas_error("gas:\n  species: argon\n  d_ref: -4e-10\n"
                        "reference: {length: 1, temperature: 1, density: 1}\n"),
              "case.yaml:3: key 'gas.d_ref': value -4e-10 is out of range (0, inf)");
}

// ---- a whole SI case: conversion of every dimensional input, mesh extents

TEST(GasUnits, SiCaseIsConvertedOnceAtParseTime) {
    const std::string text = R"(units: si
gas:
  species: argon
reference:
  length: 0.01
  temperature: 273
  pressure: 101325
mesh:
  box:
    cells: [4, 2]
    lo: [0.0, 0.0]
    hi: [0.01, 0.005]
velocity:
  counts: [6, 6]
boundaries:
  xmin: {type: far_field, rho: 0.003, T: 300, U: [100, 0]}
  xmax: {type: outflow}
  ymin: {type: diffuse_wall, T: 546}
  ymax: {type: diffuse_wall, T: 273, U: [50, 0]}
initial:
  T: 300
  regions:
    - {lo: [0.0, 0.0], hi: [0.005, 0.005], rho: 0.002}
time:
  end_time: 1.0e-4
forces:
  acceleration: [9.81, -2.0e6]
output:
  probes:
    - {name: mid, from: [0.005, 0.0], to: [0.005, 0.005], points: 3}
)";
    Config cfg = Config::from_string(text, "si_case.yaml");
    CaseSetup s;
    parse_case_sections(cfg, s);
    const Mesh mesh = load_mesh(s.mesh_config);
    parse_velocity_section(cfg, s, mesh.dim);
    cfg.check_unused();

    const double R = kB / kArgonMass, C = std::sqrt(2.0 * R * 273.0);
    const double rho_ref = 101325.0 / (R * 273.0);
    EXPECT_NEAR(s.gas.ref.density / rho_ref, 1.0, 1e-14);

    // Mesh: metres / L_ref.
    double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
    for (const auto& x : mesh.nodes)
        for (int d = 0; d < 2; ++d) {
            lo[d] = std::min(lo[d], x[d]);
            hi[d] = std::max(hi[d], x[d]);
        }
    EXPECT_EQ(mesh.dim, 2);
    EXPECT_NEAR(lo[0], 0.0, 1e-15);
    EXPECT_NEAR(lo[1], 0.0, 1e-15);
    EXPECT_NEAR(hi[0], 1.0, 1e-14);
    EXPECT_NEAR(hi[1], 0.5, 1e-14);

    // Boundaries.
    ASSERT_EQ(s.boundaries.size(), 4u);
    const BoundaryCondition& ff = s.boundaries[0];
    EXPECT_EQ(ff.patch, "xmin");
    EXPECT_NEAR(ff.rho, 0.003 / rho_ref, 1e-14);
    EXPECT_NEAR(ff.T, 300.0 / 273.0, 1e-15);
    EXPECT_NEAR(ff.U[0], 100.0 / C, 1e-15);
    EXPECT_EQ(ff.U[1], 0.0);
    EXPECT_EQ(s.boundaries[2].T, 2.0);
    EXPECT_EQ(s.boundaries[3].T, 1.0);
    EXPECT_NEAR(s.boundaries[3].U[0], 0.148282, 1e-6);

    // Initial state: rho defaults to the reference density (nondimensional 1), T and regions
    // converted.
    EXPECT_NEAR(s.initial.rho, 1.0, 1e-15);
    EXPECT_NEAR(s.initial.T, 300.0 / 273.0, 1e-15);
    ASSERT_EQ(s.initial_regions.size(), 1u);
    EXPECT_NEAR(s.initial_regions[0].hi[0], 0.5, 1e-15);
    EXPECT_NEAR(s.initial_regions[0].state.rho, 0.002 / rho_ref, 1e-14);
    EXPECT_NEAR(s.initial_regions[0].state.T, 300.0 / 273.0, 1e-15);
    EXPECT_NEAR(initial_state_at(s, Vec3{0.25, 0.25, 0}).rho, 0.002 / rho_ref, 1e-14);
    EXPECT_NEAR(initial_state_at(s, Vec3{0.75, 0.25, 0}).rho, 1.0, 1e-15);

    // Time, body force (a_hat = a L_ref / C_ref^2) and probes.
    EXPECT_NEAR(s.time.end_time, 1.0e-4 / (0.01 / C), 1e-12);
    EXPECT_NEAR(s.forces.acceleration[0] / (9.81 * 0.01 / (C * C)), 1.0, 1e-14);
    EXPECT_NEAR(s.forces.acceleration[1] / (-2.0e6 * 0.01 / (C * C)), 1.0, 1e-14);
    EXPECT_EQ(s.forces.acceleration[2], 0.0);
    ASSERT_EQ(s.output.probes.size(), 1u);
    EXPECT_NEAR(s.output.probes[0].from[0], 0.5, 1e-15);
    EXPECT_NEAR(s.output.probes[0].to[1], 0.5, 1e-15);

    // The resolved configuration keeps the SI values the user wrote (and SI defaults).
    const std::string resolved = cfg.resolved_yaml();
    EXPECT_NE(resolved.find("units: si"), std::string::npos) << resolved;
    Config back = Config::from_string(resolved, "resolved");
    EXPECT_NEAR(back.get<double>("initial.rho") / rho_ref, 1.0, 1e-12);
}

TEST(GasUnits, DimensionalGasWithNondimensionalInputsConvertsNothingElse) {
    const std::string text = R"(gas: {species: argon}
reference: {length: 0.01, temperature: 273, number_density: 1.0e21}
mesh:
  box: {cells: [2, 2], hi: [3, 1]}
velocity: {counts: [4, 4]}
boundaries:
  xmin: {type: diffuse_wall, T: 1.5, U: [0, 0.2]}
  xmax: {type: outflow}
  ymin: {type: outflow}
  ymax: {type: outflow}
initial: {rho: 2, T: 1.5}
time: {end_time: 4}
)";
    Config cfg = Config::from_string(text, "nd_case.yaml");
    CaseSetup s;
    parse_case_sections(cfg, s);
    const Mesh mesh = load_mesh(s.mesh_config);
    parse_velocity_section(cfg, s, mesh.dim);
    cfg.check_unused();
    EXPECT_EQ(s.mesh_config.scale, 1.0);
    EXPECT_EQ(s.initial.rho, 2.0);
    EXPECT_EQ(s.initial.T, 1.5);
    EXPECT_EQ(s.time.end_time, 4.0);
    EXPECT_EQ(s.boundaries[0].T, 1.5);
    EXPECT_EQ(s.boundaries[0].U[1], 0.2);
    double xmax = 0;
    for (const auto& x : mesh.nodes) xmax = std::max(xmax, x[0]);
    EXPECT_EQ(xmax, 3.0);
    // mu_ref still comes from the molecular data.
    const double mu_si = vss_viscosity(kArgonMass, kArgonD, 273.0, 0.81, 1.0, 273.0);
    EXPECT_NEAR(s.gas.mu_ref / (mu_si / (s.gas.ref.density * s.gas.ref.speed * 0.01)), 1.0, 1e-14);
}

}  // namespace
}  // namespace ugks

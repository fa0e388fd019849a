// Output units (include/ugks/app/output_units.hpp).
#include "ugks/app/output_units.hpp"

#include <utility>

#include "ugks/core/error.hpp"

namespace ugks {

OutputUnits OutputUnits::of(const CaseSetup& s, int mesh_dim) {
    OutputUnits u;
    u.si = s.output.units == "si";
    u.dimensional = s.gas.dimensional;
    u.dim = mesh_dim;
    u.ref = s.gas.ref;
    u.mu_ref_si = s.gas.mu_ref_si;
    UGKS_REQUIRE(!u.si || u.dimensional, "output.units si without a dimensional reference state");
    return u;
}

Quantity OutputUnits::field_quantity(const std::string& field) {
    static const std::pair<const char*, Quantity> kFields[] = {
        {"rho", Quantity::density},        {"U", Quantity::speed},
        {"T", Quantity::temperature},      {"p", Quantity::pressure},
        {"q", Quantity::heat_flux},        {"stress", Quantity::pressure},
        {"Mach", Quantity::dimensionless}, {"Kn_local", Quantity::dimensionless}};
    for (const auto& [name, q] : kFields)
        if (field == name) return q;
    UGKS_REQUIRE(false, "output field '" << field << "' has no unit (OutputUnits::field_quantity)");
    return Quantity::dimensionless;
}

std::vector<CellField> OutputUnits::convert(std::vector<CellField> fields) const {
    if (!si) return fields;
    for (CellField& f : fields) {
        const double s = scale(field_quantity(f.name));
        for (double& x : f.data) x *= s;
    }
    return fields;
}

void OutputUnits::convert(std::vector<SurfaceFace>& faces) const {
    if (!si) return;
    const double L = scale(Quantity::length), A = scale(Quantity::area);
    const double p = scale(Quantity::pressure), q = scale(Quantity::heat_flux);
    for (SurfaceFace& f : faces) {
        for (double& x : f.centroid) x *= L;
        f.area *= A;
        for (double& x : f.P) x *= p;
        f.qw *= q;
    }
}

void OutputUnits::convert(SurfaceReference& r) const {
    if (!si) return;
    const double L = scale(Quantity::length), A = scale(Quantity::area);
    const double p = scale(Quantity::pressure), c = scale(Quantity::speed);
    r.rho_inf *= scale(Quantity::density);
    r.p_inf *= p;
    for (double& x : r.U_inf) x *= c;
    r.A_ref *= A;
    r.L_ref *= L;
    for (double& x : r.moment_center) x *= L;
    r.q_ref *= p;
    for (SymmetryPlane& pl : r.symmetry) pl.position *= L;
}

namespace {

void add_reference(const OutputUnits& u, FieldsMeta& m) {
    m.strings.push_back({"units", u.name()});
    if (!u.dimensional) return;
    const ReferenceState& r = u.ref;
    m.numbers = {{"reference_length", r.length},
                 {"reference_temperature", r.temperature},
                 {"reference_number_density", r.number_density},
                 {"reference_density", r.density},
                 {"reference_pressure", r.pressure},
                 {"reference_speed", r.speed},
                 {"reference_time", r.time},
                 {"reference_viscosity", u.mu_ref_si},
                 {"gas_constant", r.gas_constant}};
}

}  // namespace

FieldsMeta OutputUnits::file_meta(const std::vector<CellField>& fields) const {
    FieldsMeta m;
    add_reference(*this, m);
    m.length_scale = scale(Quantity::length);
    m.volume_scale = scale(Quantity::volume);
    if (!si) return m;
    m.dataset_units = {{"/cells/centroid", unit(Quantity::length)},
                       {"/cells/volume", unit(Quantity::volume)},
                       {"/mesh/nodes", unit(Quantity::length)}};
    for (const CellField& f : fields)
        m.dataset_units.push_back({"/fields/" + f.name, unit(field_quantity(f.name))});
    return m;
}

FieldsMeta OutputUnits::surface_meta() const {
    FieldsMeta m;
    add_reference(*this, m);
    m.length_scale = scale(Quantity::length);
    if (!si) return m;
    m.dataset_units = {{"/faces/centroid", unit(Quantity::length)},
                       {"/faces/area", unit(Quantity::area)},
                       {"/fields/p", unit(Quantity::pressure)},
                       {"/fields/tau", unit(Quantity::pressure)},
                       {"/fields/q", unit(Quantity::heat_flux)},
                       {"/fields/Cp", "1"},
                       {"/fields/Cf", "1"},
                       {"/fields/Ch", "1"}};
    return m;
}

void OutputUnits::summarize(nlohmann::json& j) const {
    j["units"] = name();
    if (!dimensional) {
        j["reference_state"] = nullptr;
        return;
    }
    const ReferenceState& r = ref;
    nlohmann::json scales;
    static const std::pair<const char*, Quantity> kScales[] = {
        {"length", Quantity::length},           {"time", Quantity::time},
        {"density", Quantity::density},         {"speed", Quantity::speed},
        {"temperature", Quantity::temperature}, {"pressure", Quantity::pressure},
        {"heat_flux", Quantity::heat_flux},     {"force", Quantity::force},
        {"heat_load", Quantity::heat_load}};
    for (const auto& [name, q] : kScales) scales[name] = r.si_scale(q, dim);
    j["reference_state"] = {{"length", r.length},
                            {"temperature", r.temperature},
                            {"number_density", r.number_density},
                            {"density", r.density},
                            {"pressure", r.pressure},
                            {"speed", r.speed},
                            {"time", r.time},
                            {"viscosity", mu_ref_si},
                            {"gas_constant", r.gas_constant},
                            {"si_per_nondimensional_unit", scales}};
}

}  // namespace ugks

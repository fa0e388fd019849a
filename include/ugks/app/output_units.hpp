#pragma once
// The units of a UGKS run's outputs (`output.units`, docs/usage.md "Output units"): the solver
// works nondimensionally (docs/formulation.md section 1.2); fields, probes, history.csv, the
// surface files and summary.json are converted here, once, on their way out.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ugks/io/fields_io.hpp"
#include "ugks/io/surface_io.hpp"
#include "ugks/physics/units.hpp"
#include "ugks/solver/case_config.hpp"

namespace ugks {

struct OutputUnits {
    bool si = false;           ///< outputs in SI (`output.units: si`)
    bool dimensional = false;  ///< the reference state is known (dimensional gas data)
    int dim = 3;               ///< mesh dimension (1D/2D measures per metre of depth)
    ReferenceState ref;
    double mu_ref_si = 0;  ///< reference viscosity [Pa s] (dimensional)

    static OutputUnits of(const CaseSetup& s, int mesh_dim);

    /// Output value = solver value * scale(q): the SI scale with `si`, else 1.
    double scale(Quantity q) const { return si ? ref.si_scale(q, dim) : 1.0; }
    /// The SI unit of q with `si`, else "" (nondimensional).
    std::string unit(Quantity q) const { return si ? si_unit(q, dim) : std::string(); }
    /// "si" or "nondimensional".
    const char* name() const { return si ? "si" : "nondimensional"; }

    /// The quantity of a cell output field (rho, U, T, p, q, stress, Mach, Kn_local); an unknown
    /// name is an internal error (a new field must say what it measures).
    static Quantity field_quantity(const std::string& field);
    /// The fields in the output units.
    std::vector<CellField> convert(std::vector<CellField> fields) const;
    /// Wall faces and their reference in the output units (convert both: the coefficients, ratios
    /// of the two, are then unchanged).
    void convert(std::vector<SurfaceFace>& faces) const;
    void convert(SurfaceReference& ref) const;

    /// The metadata of a fields/mesh/surface file: `units`, the reference state (reference_length
    /// ... when dimensional), the dataset units of `fields` and the mesh, the mesh scales.
    FieldsMeta file_meta(const std::vector<CellField>& fields) const;
    /// As file_meta, with the units of the surface datasets.
    FieldsMeta surface_meta() const;
    /// summary.json's `units` (the name) and `reference_state` (SI values and the SI value of one
    /// nondimensional unit of each quantity) entries.
    void summarize(nlohmann::json& j) const;
};

}  // namespace ugks

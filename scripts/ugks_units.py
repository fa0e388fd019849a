"""The units of ugks_solver's outputs (docs/usage.md, "Output units"), for the comparison scripts.

Every HDF5 output has a root attribute `units` ("si" or "nondimensional") and, with dimensional gas data, the
reference state (reference_length, reference_density, reference_speed, reference_temperature,
reference_time); summary.json has `units` and `reference_state`. `scales(...)` gives the SI value of one
stored unit of each quantity: dividing a stored value by it gives the solver's nondimensional value.
For a file in nondimensional units (or from a version without the attribute) every scale is 1.
"""
import json
import os

QUANTITIES = ("length", "area", "volume", "time", "density", "speed", "temperature", "pressure", "heat_flux",
              "force", "heat_load", "dimensionless")


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def scales_from_reference(units, L, rho, C, T, t, dim=3):
    """Stored value / scale = nondimensional value, per quantity (all 1 unless units == 'si')."""
    if units != "si":
        return {q: 1.0 for q in QUANTITIES}
    return {"length": L, "area": L ** (dim - 1), "volume": L ** dim, "time": t, "density": rho, "speed": C,
            "temperature": T, "pressure": rho * C * C, "heat_flux": rho * C ** 3,
            "force": rho * C * C * L ** (dim - 1), "heat_load": rho * C ** 3 * L ** (dim - 1), "dimensionless": 1.0}


def scales(attrs, dim=3):
    """From the root attributes of an output .h5 (h5py `f.attrs`)."""
    units = _text(attrs["units"]) if "units" in attrs else "nondimensional"
    if units != "si":
        return scales_from_reference(units, 1, 1, 1, 1, 1, dim)
    g = lambda k: float(attrs[k])  # noqa: E731
    return scales_from_reference(units, g("reference_length"), g("reference_density"), g("reference_speed"),
                                 g("reference_temperature"), g("reference_time"), dim)


def run_scales(run_dir, dim=3):
    """From a run's output directory: summary.json, else surface_final.h5 or fields_final.h5."""
    js = os.path.join(run_dir, "summary.json")
    if os.path.isfile(js):
        with open(js) as fh:
            j = json.load(fh)
        r = j.get("reference_state") or {}
        if j.get("units") == "si":
            return scales_from_reference("si", r["length"], r["density"], r["speed"], r["temperature"], r["time"],
                                         dim)
        if "units" in j:
            return scales_from_reference("nondimensional", 1, 1, 1, 1, 1, dim)
    for name in ("surface_final.h5", "fields_final.h5"):
        path = os.path.join(run_dir, name)
        if os.path.isfile(path):
            import h5py
            with h5py.File(path, "r") as f:
                return scales(f.attrs, dim)
    return scales_from_reference("nondimensional", 1, 1, 1, 1, 1, dim)

"""Checks of tests/cli/outputs_readable.sh: ND_DIR and SI_DIR hold the same run in both output units."""
import json
import math
import os
import sys

import h5py
import meshio
import numpy as np
import pandas as pd

nd, si = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-12):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= rel * np.maximum(np.abs(b), 1e-300)))


for d in (nd, si):
    # ParaView's time series, read with meshio's TimeSeriesReader: the mesh once, every step's fields.
    with meshio.xdmf.TimeSeriesReader(os.path.join(d, "fields.xdmf")) as r:
        points, cells = r.read_points_cells()
        check(r.num_steps == 2, f"{d}: fields.xdmf has the steps 5 and 10 ({r.num_steps})")
        check([c.type for c in cells] == ["quad"] and len(cells[0].data) == 24, f"{d}: 24 quads")
        for k, name in enumerate(("fields_000005.h5", "fields_000010.h5")):
            t, _, cd = r.read_data(k)
            with h5py.File(os.path.join(d, name)) as f:
                check(t == float(f.attrs["time"]), f"{d}: step {k} time {t}")
                check(np.array_equal(cd["rho"][0], f["fields/rho"][:]), f"{d}: {name} rho via meshio")
    m = meshio.read(os.path.join(d, "fields_final.xdmf"))
    with h5py.File(os.path.join(d, "fields_final.h5")) as f:
        check(isinstance(f.attrs["config"], str), f"{d}: the config attribute is a str")
        check(np.array_equal(m.cell_data["U"][0], f["fields/U"][:]), f"{d}: meshio.read fields_final U")
        check(np.array_equal(m.points, f["mesh/nodes"][:]), f"{d}: mesh via the external link")
    s = meshio.read(os.path.join(d, "surface_final.xdmf"))
    check(s.cells[0].type == "line" and len(s.cells[0].data) == 20, f"{d}: surface_final.xdmf 20 wall edges")
    # pandas with its defaults
    faces = pd.read_csv(os.path.join(d, "surface_final.csv"))
    check(set(faces["patch"]) == {"xmin", "xmax", "ymin", "ymax"}, f"{d}: surface_final.csv patch names")
    tot = pd.read_csv(os.path.join(d, "surface_final_totals.csv"))
    check(list(tot["name"]) == ["all", "xmin", "xmax", "ymin", "ymax"], f"{d}: totals rows")
    check(close(tot["force_x"][0], tot["force_x"][1:].sum(), 1e-12), f"{d}: totals all = sum of patches")
    hist = pd.read_csv(os.path.join(d, "history.csv"))
    check(len(hist) == 10 and "wall_Fx" in hist.columns, f"{d}: history.csv 10 rows")
    pd.read_csv(os.path.join(d, "probes_centre.csv"))

# SI = nondimensional x scale, with the scales from the reference state the files carry.
with h5py.File(os.path.join(si, "fields_final.h5")) as f:
    a = {k: float(f.attrs[k]) for k in f.attrs if k.startswith("reference_")}
    check(f.attrs["units"] == "si" and f["fields/p"].attrs["units"] == "Pa", "SI file says units si, p in Pa")
    si_f = {k: f["fields/" + k][:] for k in ("rho", "U", "T", "p", "q", "Mach")}
    si_c = f["cells/centroid"][:]
    si_v = f["cells/volume"][:]
    si_t = float(f.attrs["time"])
with h5py.File(os.path.join(nd, "fields_final.h5")) as f:
    check(f.attrs["units"] == "nondimensional", "nondimensional file says so")
    check(all(math.isclose(float(f.attrs[k]), v) for k, v in a.items()), "both carry the same reference")
    nd_f = {k: f["fields/" + k][:] for k in si_f}
    nd_c = f["cells/centroid"][:]
    nd_v = f["cells/volume"][:]
    nd_t = float(f.attrs["time"])
L, rho, C, T, t = (a["reference_length"], a["reference_density"], a["reference_speed"],
                   a["reference_temperature"], a["reference_time"])
check(math.isclose(a["reference_pressure"], 10.0, rel_tol=1e-12), "reference_pressure = 10 Pa as given")
check(math.isclose(C, math.sqrt(2 * 1.380649e-23 / 6.63e-26 * 273.0), rel_tol=1e-12), "C_ref = sqrt(2 k T / m)")
for k, s in (("rho", rho), ("U", C), ("T", T), ("p", rho * C * C), ("q", rho * C ** 3), ("Mach", 1.0)):
    check(close(si_f[k], nd_f[k] * s), f"fields {k}: SI = nondimensional x {s:.6g}")
check(close(si_c, nd_c * L) and close(si_v, nd_v * L * L), "centroids x L_ref, 2D volumes x L_ref^2")
check(math.isclose(si_t, nd_t * t, rel_tol=1e-12), "time x t_ref")
hs, hn = pd.read_csv(os.path.join(si, "history.csv")), pd.read_csv(os.path.join(nd, "history.csv"))
check(close(hs["time"], hn["time"] * t) and close(hs["dt"], hn["dt"] * t), "history time, dt x t_ref")
check(close(hs["wall_Fx"], hn["wall_Fx"] * rho * C * C * L, 1e-11), "history force x rho C^2 L (N/m in 2D)")
check(close(hs["wall_heat"], hn["wall_heat"] * rho * C ** 3 * L, 1e-11), "history heat x rho C^3 L (W/m)")
check(close(hs["res_rho"], hn["res_rho"]), "residuals dimensionless")
ps, pn = pd.read_csv(os.path.join(si, "probes_centre.csv")), pd.read_csv(os.path.join(nd, "probes_centre.csv"))
check(close(ps["y"], pn["y"] * L) and close(ps["T"], pn["T"] * T), "probes y x L_ref, T x T_ref")
ss, sn = pd.read_csv(os.path.join(si, "surface_final.csv")), pd.read_csv(os.path.join(nd, "surface_final.csv"))
check(close(ss["p"], sn["p"] * rho * C * C, 1e-11) and close(ss["area"], sn["area"] * L), "surface p x rho C^2, area x L")
check(close(ss["Cp"], sn["Cp"], 1e-11) and close(ss["Cf"], sn["Cf"], 1e-10), "Cp, Cf unchanged")
js, jn = (json.load(open(os.path.join(d, "summary.json"))) for d in (si, nd))
check(js["units"] == "si" and jn["units"] == "nondimensional", "summary.json units")
check(math.isclose(js["reference_state"]["si_per_nondimensional_unit"]["pressure"], rho * C * C, rel_tol=1e-12),
      "summary.json pressure scale rho C^2")
check(close(js["walls"]["force"], np.array(jn["walls"]["force"]) * rho * C * C * L, 1e-11), "summary walls.force")
check(jn["walls"]["CD"] is None and "no flow direction" in jn["walls"]["coefficients_undefined"],
      "undefined C_D is null with the reason")
# The restarted run's series: the first run's files, then its own, one mesh.
with meshio.xdmf.TimeSeriesReader(os.path.join(sys.argv[3], "fields.xdmf")) as r:
    r.read_points_cells()
    times = [r.read_data(k)[0] for k in range(r.num_steps)]
with meshio.xdmf.TimeSeriesReader(os.path.join(si, "fields.xdmf")) as r:
    r.read_points_cells()
    first = [r.read_data(k)[0] for k in range(r.num_steps)]
check(len(times) == 4 and times[:2] == first and all(b > a for a, b in zip(times, times[1:])),
      f"restart: fields.xdmf continues the series ({len(times)} steps)")
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)

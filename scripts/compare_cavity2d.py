#!/usr/bin/env python3
"""Compare a 2D lid-driven cavity result with the DSMC centre-line data of John, Gu & Emerson (2011).

Usage: scripts/compare_cavity2d.py FIELDS.h5 [--lid-speed 0.148322] [--plot PREFIX] [--json OUT.json]

Samples U_x along x = 0.5 and U_y along y = 0.5 (linear interpolation between the cells on either side of
the line), normalises by the lid speed and prints max/rms differences against the digitized DSMC markers in
tests/data/reference/cavity2d_kn0.075/ (see its SOURCE.md). --plot PREFIX writes PREFIX_centrelines.png;
--json writes the error table (errors.U.DSMC.max/rms/points, errors.V...) for scripts/validate.sh. Needs numpy and h5py (Debian: python3-numpy,
python3-h5py; run with /usr/bin/python3 when the default python3 lacks them).
"""
import argparse
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ugks_units  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "tests", "data", "reference", "cavity2d_kn0.075")


def line_profile(x, values, axis, at):
    """Values on the line coordinate[axis] == at, interpolated linearly between the two nearest columns."""
    other = 1 - axis
    coords = np.unique(np.round(x[:, axis], 12))
    lo = coords[coords <= at].max() if np.any(coords <= at) else coords.min()
    hi = coords[coords >= at].min() if np.any(coords >= at) else coords.max()
    w = 0.0 if hi == lo else (at - lo) / (hi - lo)
    sel_lo = np.isclose(x[:, axis], lo)
    sel_hi = np.isclose(x[:, axis], hi)
    s_lo = np.argsort(x[sel_lo, other])
    s_hi = np.argsort(x[sel_hi, other])
    pos = x[sel_lo, other][s_lo]
    val = (1 - w) * values[sel_lo][s_lo] + w * values[sel_hi][s_hi]
    return pos, val


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fields")
    ap.add_argument("--lid-speed", type=float, default=0.148322)
    ap.add_argument("--plot", default="", help="PNG file prefix")
    ap.add_argument("--json", default="", help="write the error table as JSON")
    a = ap.parse_args()
    with h5py.File(a.fields, "r") as f:
        sc = ugks_units.scales(f.attrs, dim=2)  # in the solver's units whatever output.units was
        x = f["cells/centroid"][:, :2] / sc["length"]
        U = f["fields/U"][:] / sc["speed"]
        t = f.attrs.get("time", float("nan")) / sc["time"]
        step = f.attrs.get("step", -1)
    du = np.loadtxt(os.path.join(REF, "vertical_centerline_U_dsmc.dat"))
    dv = np.loadtxt(os.path.join(REF, "horizontal_centerline_V_dsmc.dat"))
    yu, u = line_profile(x, U[:, 0] / a.lid_speed, 0, 0.5)
    xv, v = line_profile(x, U[:, 1] / a.lid_speed, 1, 0.5)
    # only the reference points between the outermost cell centres (no extrapolation into the wall cells)
    du_in = du[(du[:, 0] >= yu.min()) & (du[:, 0] <= yu.max())]
    dv_in = dv[(dv[:, 0] >= xv.min()) & (dv[:, 0] <= xv.max())]
    su = np.interp(du_in[:, 0], yu, u)
    sv = np.interp(dv_in[:, 0], xv, v)
    print(f"{a.fields}: step {step}, t = {t:.4g}")
    print(f"U/U_w on x = 0.5 vs DSMC: max |diff| {np.abs(su - du_in[:, 1]).max():.4f}, "
          f"rms {np.sqrt(np.mean((su - du_in[:, 1]) ** 2)):.4f} ({len(du_in)} of {len(du)} points)")
    print(f"V/U_w on y = 0.5 vs DSMC: max |diff| {np.abs(sv - dv_in[:, 1]).max():.4f}, "
          f"rms {np.sqrt(np.mean((sv - dv_in[:, 1]) ** 2)):.4f} ({len(dv_in)} of {len(dv)} points)")
    if a.json:
        import json
        err = {}
        for key, sim, ref in (("U", su, du_in), ("V", sv, dv_in)):
            d = sim - ref[:, 1]
            err[key] = {"DSMC": {"max": float(np.abs(d).max()), "rms": float(np.sqrt(np.mean(d * d))),
                                 "points": int(len(d))}}
        with open(a.json, "w") as f:
            json.dump({"fields": os.path.abspath(a.fields), "step": int(step), "time": float(t),
                       "normalisation": "U/U_w and V/U_w, absolute differences", "errors": err}, f, indent=1)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        ax[0].plot(u, yu, "-", label="ugks_solver")
        ax[0].plot(du[:, 1], du[:, 0], "o", mfc="none", label="DSMC")
        ax[0].set_xlabel("U/U_w at x = 0.5"); ax[0].set_ylabel("y/L"); ax[0].legend()
        ax[1].plot(xv, v, "-", label="ugks_solver")
        ax[1].plot(dv[:, 0], dv[:, 1], "o", mfc="none", label="DSMC")
        ax[1].set_xlabel("x/L"); ax[1].set_ylabel("V/U_w at y = 0.5"); ax[1].legend()
        fig.tight_layout()
        fig.savefig(a.plot + "_centrelines.png", dpi=80)
        print("plot:", a.plot + "_centrelines.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

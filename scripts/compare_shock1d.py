#!/usr/bin/env python3
"""Check a normal-shock structure result (cases/shock1d_ma8) against the Rankine-Hugoniot relations.

Usage: scripts/compare_shock1d.py FIELDS.h5 [--mach 8] [--plot PREFIX] [--json OUT.json]

Upstream state rho = 1, T = 1, U1 = Ma sqrt(gamma/2) (sqrt(2 R T_1) units, gamma = 5/3); lengths in upstream
mean free paths (hard-sphere definition). Checks and reports:
  - the downstream end state (mean of the last 4 cells) against the Rankine-Hugoniot state: relative
    differences of rho2, U2, T2 (errors.<q>.rankine_hugoniot.max);
  - the upstream end density and velocity (first 4 cells) against the inflow (the upstream temperature carries
    the Shakhov precursor and is only reported);
  - the inverse density thickness lambda_1/delta, delta = (rho2 - rho1) / max(d rho/dx) (scalars), and the
    shock position (where the normalised density is 1/2);
  - plot of the normalised density, velocity and temperature (rho - rho1)/(rho2 - rho1) etc. about the shock
    centre. No stored DSMC profile exists for this case, so the thickness is reported, not compared.
"""
import argparse
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ugks_units  # noqa: E402

GAMMA = 5.0 / 3.0


def rankine_hugoniot(mach, g=GAMMA):
    r = (g + 1) * mach ** 2 / ((g - 1) * mach ** 2 + 2)
    p = (2 * g * mach ** 2 - (g - 1)) / (g + 1)
    u1 = mach * np.sqrt(g / 2.0)
    return r, u1 / r, p / r, u1  # rho2, U2, T2 (rho1 = T1 = 1), U1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fields")
    ap.add_argument("--mach", type=float, default=8.0)
    ap.add_argument("--plot", help="PNG file prefix")
    ap.add_argument("--json", help="write the check table as JSON")
    a = ap.parse_args()
    if not os.path.isfile(a.fields):
        print("compare_shock1d: no such file: %s" % a.fields, file=sys.stderr)
        return 2
    with h5py.File(a.fields, "r") as f:
        sc = ugks_units.scales(f.attrs, dim=1)  # in the solver's units whatever output.units was
        x = f["cells/centroid"][:, 0] / sc["length"]
        rho = f["fields/rho"][...] / sc["density"]
        u = f["fields/U"][:, 0] / sc["speed"]
        T = f["fields/T"][...] / sc["temperature"]
        step = int(f.attrs.get("step", -1))
        t = float(f.attrs.get("time", float("nan"))) / sc["time"]
    o = np.argsort(x)
    x, rho, u, T = x[o], rho[o], u[o], T[o]
    rho2, u2, t2, u1 = rankine_hugoniot(a.mach)
    down = {"rho2": (rho[-4:].mean(), rho2), "U2": (u[-4:].mean(), u2), "T2": (T[-4:].mean(), t2)}
    up = {"rho1": (rho[:4].mean(), 1.0), "U1": (u[:4].mean(), u1), "T1": (T[:4].mean(), 1.0)}
    table = {"fields": os.path.abspath(a.fields), "step": step, "time": t, "cells": int(len(x)),
             "normalisation": "relative differences of the end states (mean of 4 cells) from Rankine-Hugoniot",
             "errors": {}, "scalars": {}}
    print("shock1d Ma %g: %s (step %d, %d cells)" % (a.mach, a.fields, step, len(x)))
    for k, (v, ref) in list(down.items()) + list(up.items()):
        d = abs(v / ref - 1.0)
        table["errors"][k] = {"rankine_hugoniot": {"max": float(d), "points": 4}}
        print("  %-4s %.6f  expected %.6f  rel diff %.2e" % (k, v, ref, d))
    nr = (rho - 1.0) / (rho2 - 1.0)
    grad = np.gradient(rho, x)
    delta = (rho2 - 1.0) / grad.max()
    i = np.searchsorted(nr, 0.5) if np.all(np.diff(nr) >= -1e-3) else int(np.argmin(np.abs(nr - 0.5)))
    i = min(max(i, 1), len(x) - 1)
    xs = x[i - 1] + (0.5 - nr[i - 1]) / (nr[i] - nr[i - 1]) * (x[i] - x[i - 1])
    table["scalars"]["inverse_density_thickness"] = {"value": float(1.0 / delta)}
    table["scalars"]["shock_position"] = {"value": float(xs)}
    table["scalars"]["upstream_temperature_precursor"] = {"value": float(T[:4].mean() - 1.0)}
    print("  inverse density thickness lambda_1/delta = %.4f; shock centre x = %.3f" % (1.0 / delta, xs))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.5), dpi=80)
        ax.plot(x - xs, nr, "-", label="density")
        ax.plot(x - xs, (u1 - u) / (u1 - u2), "--", label="velocity (U1 - U)/(U1 - U2)")
        ax.plot(x - xs, (T - 1.0) / (t2 - 1.0), "-.", label="temperature")
        ax.set_xlim(-15, 10)
        ax.set_xlabel("(x - x_shock) / lambda_1")
        ax.set_ylabel("normalised")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title("Ma %g argon shock (omega 0.72), lambda_1/delta = %.3f" % (a.mach, 1.0 / delta), fontsize=9)
        fig.tight_layout()
        fig.savefig(a.plot + "_profiles.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

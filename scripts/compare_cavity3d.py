#!/usr/bin/env python3
"""Compare a 3D lid-driven cavity result with the SPARTA DSMC and DGFS data along the body diagonal.

Usage: scripts/compare_cavity3d.py FIELDS.h5 [--kn 0.1|1] [--plot PREFIX] [--json OUT.json]

FIELDS.h5 is a `fields_*.h5` of cases/cavity3d_kn0.1 or cases/cavity3d_kn1 (any box resolution; the case must
be given dimensionally as those are, `units: si`, so that the reference state is in the file's resolved
configuration). The fields are interpolated trilinearly between cell centroids (constant extrapolation in
the half cell next to a wall) to the points of the reference files in
tests/data/reference/cavity3d_lid_dsmc_dgfs/ (see its SOURCE.md): the straight line from (1,1,0)H to (0,0,1)H.

Compared quantities and their normalisation (the case READMEs state the same):
  u_x/u_w, u_y/u_w      (u_w = 50 m/s, the lid speed): absolute differences
  T/T_w                 (T_w = 273 K): absolute differences
  q_x, q_y, P_xy        divided by the largest |value| of the DSMC profile of that quantity
Printed per quantity and per reference (DSMC, DGFS s8v32): max |difference| and rms difference over the points;
then the extrema min u_x/u_w and max u_y/u_w along the diagonal (the vortex core) of all three.
--plot PREFIX writes PREFIX_diagonal.png (the four profiles against the arc length) and PREFIX_centrelines.png
(u_x on the vertical and u_y on the horizontal centre line through the cube centre, the solver alone);
--json writes the table for scripts/validate.sh. Needs numpy and h5py (and matplotlib for --plot): Debian's
python3-numpy, python3-h5py, python3-matplotlib; run with /usr/bin/python3 where the default python3 lacks them.
"""
import argparse
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ugks_units  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "tests", "data", "reference", "cavity3d_lid_dsmc_dgfs")
BOLTZMANN = 1.380649e-23
U_WALL = 50.0
T_WALL = 273.0
LINE = "diag_line_1,1,0-0,0,1.txt"


def reference_state(config_text):
    """rho_ref, C_ref, T_ref and L_ref (SI) from the resolved configuration stored in the fields file."""
    try:
        import yaml  # python3-yaml; optional
        cfg = yaml.safe_load(config_text)
        gas, ref = cfg["gas"], cfg["reference"]
        mass = float(gas["molecular_mass"])
        t_ref = float(ref["temperature"])
        n_ref = float(ref["number_density"])
        l_ref = float(ref["length"])
    except ImportError:
        def value(section, key):
            inside = False
            for line in config_text.splitlines():
                if not line.startswith(" "):
                    inside = line.strip() == section + ":"
                elif inside and line.strip().startswith(key + ":"):
                    return float(line.split(":", 1)[1].split("#")[0])
            raise KeyError(section + "." + key)
        mass = value("gas", "molecular_mass")
        t_ref = value("reference", "temperature")
        n_ref = value("reference", "number_density")
        l_ref = value("reference", "length")
    rho_ref = n_ref * mass
    c_ref = np.sqrt(2.0 * BOLTZMANN / mass * t_ref)
    return rho_ref, c_ref, t_ref, l_ref, n_ref


class BoxField:
    """Cell-centred fields of a box mesh, interpolated trilinearly (clamped at the outer centroids)."""

    def __init__(self, centroid, fields):
        self.axes = [np.unique(np.round(centroid[:, a], 12)) for a in range(3)]
        shape = tuple(len(ax) for ax in self.axes)
        if np.prod(shape) != centroid.shape[0]:
            raise SystemExit("compare_cavity3d: the fields are not on a box mesh (%d cells, axes %s)"
                             % (centroid.shape[0], shape))
        idx = [np.searchsorted(self.axes[a], np.round(centroid[:, a], 12)) for a in range(3)]
        self.grid = {}
        for name, val in fields.items():
            g = np.empty(shape)
            g[idx[0], idx[1], idx[2]] = val
            self.grid[name] = g

    def __call__(self, name, pts):
        g = self.grid[name]
        lo, w = [], []
        for a in range(3):
            ax = self.axes[a]
            x = np.clip(pts[:, a], ax[0], ax[-1])
            i = np.clip(np.searchsorted(ax, x) - 1, 0, len(ax) - 2)
            lo.append(i)
            w.append((x - ax[i]) / (ax[i + 1] - ax[i]))
        out = np.zeros(len(pts))
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    wt = ((w[0] if dx else 1 - w[0]) * (w[1] if dy else 1 - w[1]) *
                          (w[2] if dz else 1 - w[2]))
                    out += wt * g[lo[0] + dx, lo[1] + dy, lo[2] + dz]
        return out


def load_solver(path):
    with h5py.File(path, "r") as f:
        config = f.attrs["config"]
        config = config.decode() if isinstance(config, bytes) else str(config)
        step = int(f.attrs.get("step", -1))
        time = float(f.attrs.get("time", float("nan")))
        c = f["cells/centroid"][...]
        U = f["fields/U"][...]
        q = f["fields/q"][...]
        s = f["fields/stress"][...]
        raw = {"ux": U[:, 0], "uy": U[:, 1], "uz": U[:, 2], "T": f["fields/T"][...],
               "rho": f["fields/rho"][...], "qx": q[:, 0], "qy": q[:, 1], "pxy": s[:, 1]}
        stored = ugks_units.scales(f.attrs)  # SI per stored unit (1 for nondimensional outputs)
    rho_ref, c_ref, t_ref, l_ref, n_ref = reference_state(config)
    si = {"ux": c_ref, "uy": c_ref, "uz": c_ref, "T": t_ref, "rho": rho_ref,
          "qx": rho_ref * c_ref ** 3, "qy": rho_ref * c_ref ** 3, "pxy": rho_ref * c_ref ** 2}
    quantity = {"ux": "speed", "uy": "speed", "uz": "speed", "T": "temperature", "rho": "density",
                "qx": "heat_flux", "qy": "heat_flux", "pxy": "pressure"}
    # nondimensional = stored / stored scale; SI = nondimensional * the case's reference scale
    fields = {k: v / stored[quantity[k]] * si[k] for k, v in raw.items()}
    return BoxField(c / stored["length"], fields), config, step, time, (rho_ref, c_ref, t_ref, l_ref, n_ref)


def load_reference(kn_dir):
    """DSMC and DGFS profiles in SI units, keyed like the solver fields; points in units of H."""
    d = np.loadtxt(os.path.join(kn_dir, "dsmc_sparta_" + LINE))
    dsmc = {"pts": d[:, 24:27], "rho": d[:, 10], "ux": d[:, 11], "uy": d[:, 12], "T": d[:, 13],
            "pxy": d[:, 15], "qx": d[:, 21], "qy": d[:, 22]}
    g = np.loadtxt(os.path.join(kn_dir, "dgfs_s8v32_" + LINE))
    dgfs = {"pts": g[:, 0:3], "rho": g[:, 3], "ux": g[:, 4], "uy": g[:, 5], "T": g[:, 7],
            "qx": g[:, 8], "qy": g[:, 9], "pxy": g[:, 12]}
    return {"DSMC": dsmc, "DGFS": dgfs}


QUANTITIES = [("ux", "u_x/u_w"), ("uy", "u_y/u_w"), ("T", "T/T_w"), ("qx", "q_x/max|q_x,DSMC|"),
              ("qy", "q_y/max|q_y,DSMC|"), ("pxy", "P_xy/max|P_xy,DSMC|")]


def scales(refs):
    dsmc = refs["DSMC"]
    return {"ux": U_WALL, "uy": U_WALL, "T": T_WALL, "qx": np.abs(dsmc["qx"]).max(),
            "qy": np.abs(dsmc["qy"]).max(), "pxy": np.abs(dsmc["pxy"]).max()}


def arc(pts):
    return np.linalg.norm(pts - np.array([1.0, 1.0, 0.0]), axis=1) / np.sqrt(3.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fields")
    ap.add_argument("--kn", choices=["0.1", "1"], help="reference set (default: from the number density)")
    ap.add_argument("--plot", help="PNG file prefix")
    ap.add_argument("--json", help="write the error table as JSON")
    a = ap.parse_args()
    if not os.path.isfile(a.fields):
        print("compare_cavity3d: no such file: %s" % a.fields, file=sys.stderr)
        return 2
    field, config, step, time, (rho_ref, c_ref, t_ref, l_ref, n_ref) = load_solver(a.fields)
    kn = a.kn
    if kn is None:
        kn = "0.1" if n_ref > 5e21 else "1"
    refs = load_reference(os.path.join(REF, "Kn" + kn))
    sc = scales(refs)
    # reference points are in units of H; the solver's centroids are in units of L_ref = H
    table = {"fields": os.path.abspath(a.fields), "kn": kn, "step": step, "time": time,
             "cells": [len(ax) for ax in field.axes], "errors": {}}
    print("cavity3d Kn %s: %s (step %d, %d x %d x %d cells)" % (kn, a.fields, step, *table["cells"]))
    print("%-22s %-5s %12s %12s %6s" % ("quantity", "ref", "max|diff|", "rms diff", "points"))
    for key, label in QUANTITIES:
        for name, ref in refs.items():
            ours = field(key, ref["pts"])
            d = (ours - ref[key]) / sc[key]
            mx, rms = float(np.abs(d).max()), float(np.sqrt(np.mean(d * d)))
            table["errors"].setdefault(key, {})[name] = {"max": mx, "rms": rms, "points": len(d)}
            print("%-22s %-5s %12.4f %12.4f %6d" % (label, name, mx, rms, len(d)))
    # extrema along the diagonal (the vortex core), the quantities of the grid and velocity convergence
    # study; the DSMC extremum is that of its 200 noisy points (noise ~0.004 u_w)
    fine = np.linspace([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], 2001)
    table["scalars"] = {}
    for key, fn, name in (("ux", np.min, "ux_min"), ("uy", np.max, "uy_max")):
        v = float(fn(field(key, fine)) / U_WALL)
        r = float(fn(refs["DSMC"][key]) / U_WALL)
        g = float(fn(refs["DGFS"][key]) / U_WALL)
        table["scalars"][name] = {"value": v, "reference": r, "rel_error": v / r - 1.0, "DGFS": g}
        print("%-22s UGKS %.4f  DSMC %.4f  DGFS %.4f" % (name + " (/u_w)", v, r, g))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axs = plt.subplots(2, 2, figsize=(8, 6), dpi=80)
        pts = np.linspace([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], 400)
        for ax, (key, label) in zip(axs.flat, [QUANTITIES[0], QUANTITIES[1], QUANTITIES[2], QUANTITIES[3]]):
            s = sc[key]
            ax.plot(arc(pts), field(key, pts) / s, "k-", lw=1.2, label="UGKS")
            d = refs["DSMC"]
            ax.plot(arc(d["pts"]), d[key] / s, "o", ms=2.5, mfc="none", color="tab:red", label="DSMC (SPARTA)")
            g = refs["DGFS"]
            ax.plot(arc(g["pts"]), g[key] / s, "--", lw=1, color="tab:blue", label="DGFS s8v32")
            ax.set_xlabel("s / (sqrt(3) H) from (1,1,0)H")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axs[0, 0].legend(fontsize=7)
        fig.suptitle("3D cavity Kn %s, diagonal (1,1,0)H -> (0,0,1)H, %d^3 cells, step %d"
                     % (kn, table["cells"][0], step), fontsize=9)
        fig.tight_layout()
        fig.savefig(a.plot + "_diagonal.png")
        fig, axs = plt.subplots(1, 2, figsize=(8, 3.2), dpi=80)
        t = np.linspace(0.0, 1.0, 201)
        vert = np.stack([0.5 + 0 * t, t, 0.5 + 0 * t], axis=1)
        horiz = np.stack([t, 0.5 + 0 * t, 0.5 + 0 * t], axis=1)
        axs[0].plot(field("ux", vert) / U_WALL, t, "k-")
        axs[0].set_xlabel("u_x/u_w on x = z = H/2")
        axs[0].set_ylabel("y/H")
        axs[1].plot(t, field("uy", horiz) / U_WALL, "k-")
        axs[1].set_xlabel("x/H")
        axs[1].set_ylabel("u_y/u_w on y = z = H/2")
        for ax in axs:
            ax.grid(alpha=0.3)
        fig.suptitle("3D cavity Kn %s, centre lines (UGKS)" % kn, fontsize=9)
        fig.tight_layout()
        fig.savefig(a.plot + "_centrelines.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

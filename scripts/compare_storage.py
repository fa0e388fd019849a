#!/usr/bin/env python3
"""Compare two sets of runs of the same cases, one with numerics.storage fp64 and one with fp32
(docs/validation.md "Single-precision storage").

Usage: compare_storage.py DIR64 DIR32 [--uw CASE=SPEED ...] [--json OUT]
  DIR64, DIR32: directories holding one run directory per case (scripts/validate.sh --out), or two run
  directories. For every case present in both: the largest difference of each cell field relative to
  the field's largest magnitude in the fp64 run, of U also relative to the wall speed SPEED given for
  the case (in the output's units), C_D relative, and the largest differences of the surface Cp, Cf, Ch.
Prints a markdown table; exit 1 when nothing could be compared.
"""
import json
import os
import sys

import h5py
import numpy as np


def fields(run):
    with h5py.File(os.path.join(run, "fields_final.h5"), "r") as f:
        return {k: f["fields"][k][...] for k in f["fields"].keys()}


def summary(run):
    try:
        return json.load(open(os.path.join(run, "summary.json")))
    except OSError:
        return {}


def surface(run):
    path = os.path.join(run, "surface_final.csv")
    if not os.path.exists(path):
        return None
    import csv
    rows = [r for r in csv.DictReader(line for line in open(path) if not line.startswith("#"))]
    return {k: np.array([float(r[k]) for r in rows]) for k in ("Cp", "Cf", "Ch") if rows and k in rows[0]}


def compare(r64, r32, uw):
    a, b = fields(r64), fields(r32)
    out = {"fields": {}}
    for k in ("rho", "U", "T", "p", "q", "stress"):
        if k in a and k in b:
            x, y = a[k].astype(float), b[k].astype(float)
            scale = float(np.abs(x).max())
            out["fields"][k] = float(np.abs(x - y).max()) / scale if scale > 0 else 0.0
    if uw > 0 and "U" in a:
        out["U_over_wall_speed"] = float(np.abs(a["U"] - b["U"]).max()) / uw
    s64, s32 = summary(r64), summary(r32)
    out["storage"] = [s64.get("build", {}).get("storage"), s32.get("build", {}).get("storage")]
    c64 = (s64.get("walls") or {}).get("CD")
    c32 = (s32.get("walls") or {}).get("CD")
    if c64 and c32:
        out["CD_rel"] = abs(c32 - c64) / abs(c64)
    f64, f32 = surface(r64), surface(r32)
    if f64 and f32:
        out["surface_max_abs"] = {k: float(np.abs(f64[k] - f32[k]).max()) for k in f64 if k in f32}
    out["steps"] = [s64.get("steps"), s32.get("steps")]
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    d64, d32 = argv[1], argv[2]
    if os.path.exists(os.path.join(d64, "fields_final.h5")):
        pairs = [(os.path.basename(os.path.normpath(d64)), d64, d32)]
    else:
        pairs = [(c, os.path.join(d64, c), os.path.join(d32, c)) for c in sorted(os.listdir(d64))
                 if os.path.exists(os.path.join(d64, c, "fields_final.h5"))
                 and os.path.exists(os.path.join(d32, c, "fields_final.h5"))]
    speeds = {}
    for k, a in enumerate(argv):
        if a == "--uw":
            c, v = argv[k + 1].split("=")
            speeds[c] = float(v)
    res = {c: compare(x, y, speeds.get(c, 0.0)) for c, x, y in pairs}
    if not res:
        print("compare_storage: no case in both directories", file=sys.stderr)
        return 1
    print("| case | steps | rho | U | T | q | max dU / u_w | C_D rel. | Cp, Cf, Ch max abs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c, r in res.items():
        f = r["fields"]
        fmt = lambda v: f"{v:.1e}" if v is not None else ""
        surf = r.get("surface_max_abs")
        print(f"| {c} | {r['steps'][0]} | {fmt(f.get('rho'))} | {fmt(f.get('U'))} | {fmt(f.get('T'))} | "
              f"{fmt(f.get('q'))} | {fmt(r.get('U_over_wall_speed'))} | {fmt(r.get('CD_rel'))} | "
              + (", ".join(f"{surf[k]:.1e}" for k in ("Cp", "Cf", "Ch") if k in surf) if surf else "")
              + " |")
    if "--json" in argv:
        json.dump(res, open(argv[argv.index("--json") + 1], "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

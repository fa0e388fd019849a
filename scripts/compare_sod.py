#!/usr/bin/env python3
"""Compare a Sod shock-tube result (cases/sod1d) with the exact Riemann solution of the Euler equations.

Usage: scripts/compare_sod.py FIELDS.h5 [--plot PREFIX] [--json OUT.json]

Left state rho = 1, u = 0, p = 0.5; right rho = 0.125, u = 0, p = 0.05 (sqrt(2 R T_ref) units, p = rho T / 2),
gamma = 5/3, diaphragm at x = 0.5; the time is read from the fields file. Exact solution: Toro, "Riemann
Solvers and Numerical Methods for Fluid Dynamics", ch. 4 (Newton iteration on the pressure function). Errors of
rho, u and p at the cell centroids: L1 (mean |difference| over the unit-length domain, the usual measure for
discontinuous solutions), max and rms, absolute in the case's units. Needs numpy and h5py (matplotlib for
--plot).
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
LEFT = (1.0, 0.0, 0.5)
RIGHT = (0.125, 0.0, 0.05)
X0 = 0.5


def exact_riemann(left, right, g, s):
    """Toro's exact solution sampled at similarity coordinates s = (x - x0)/t; returns rho, u, p arrays."""
    rl, ul, pl = left
    rr, ur, pr = right
    cl, cr = np.sqrt(g * pl / rl), np.sqrt(g * pr / rr)

    def f(p, r, pk, ck):
        if p > pk:
            a, b = 2.0 / ((g + 1) * r), (g - 1) / (g + 1) * pk
            q = np.sqrt(a / (p + b))
            return (p - pk) * q, q * (1 - 0.5 * (p - pk) / (b + p))
        return (2 * ck / (g - 1) * ((p / pk) ** ((g - 1) / (2 * g)) - 1),
                (p / pk) ** (-(g + 1) / (2 * g)) / (r * ck))

    p = max(1e-8, 0.5 * (pl + pr))
    for _ in range(100):
        fl, dl = f(p, rl, pl, cl)
        fr, dr = f(p, rr, pr, cr)
        dp = (fl + fr + ur - ul) / (dl + dr)
        p = max(1e-12, p - dp)
        if abs(dp) < 1e-15 * p:
            break
    fl, _ = f(p, rl, pl, cl)
    fr, _ = f(p, rr, pr, cr)
    u = 0.5 * (ul + ur) + 0.5 * (fr - fl)
    out = np.zeros((len(s), 3))
    for i, si in enumerate(s):
        if si <= u:  # left of the contact
            if p > pl:  # left shock
                sl = ul - cl * np.sqrt((g + 1) / (2 * g) * p / pl + (g - 1) / (2 * g))
                rs = rl * (p / pl + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * p / pl + 1)
                out[i] = (rl, ul, pl) if si < sl else (rs, u, p)
            else:
                cs = cl * (p / pl) ** ((g - 1) / (2 * g))
                head, tail = ul - cl, u - cs
                if si < head:
                    out[i] = (rl, ul, pl)
                elif si > tail:
                    out[i] = (rl * (p / pl) ** (1 / g), u, p)
                else:
                    c = 2 / (g + 1) * (cl + (g - 1) / 2 * (ul - si))
                    uu = 2 / (g + 1) * (cl + (g - 1) / 2 * ul + si)
                    rho = rl * (c / cl) ** (2 / (g - 1))
                    out[i] = (rho, uu, pl * (c / cl) ** (2 * g / (g - 1)))
        else:
            if p > pr:  # right shock
                sr = ur + cr * np.sqrt((g + 1) / (2 * g) * p / pr + (g - 1) / (2 * g))
                rs = rr * (p / pr + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * p / pr + 1)
                out[i] = (rr, ur, pr) if si > sr else (rs, u, p)
            else:
                cs = cr * (p / pr) ** ((g - 1) / (2 * g))
                head, tail = ur + cr, u + cs
                if si > head:
                    out[i] = (rr, ur, pr)
                elif si < tail:
                    out[i] = (rr * (p / pr) ** (1 / g), u, p)
                else:
                    c = 2 / (g + 1) * (cr - (g - 1) / 2 * (ur - si))
                    uu = 2 / (g + 1) * (-cr + (g - 1) / 2 * ur + si)
                    out[i] = (rr * (c / cr) ** (2 / (g - 1)), uu, pr * (c / cr) ** (2 * g / (g - 1)))
    return out[:, 0], out[:, 1], out[:, 2], p, u


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fields")
    ap.add_argument("--plot", help="PNG file prefix")
    ap.add_argument("--json", help="write the error table as JSON")
    a = ap.parse_args()
    if not os.path.isfile(a.fields):
        print("compare_sod: no such file: %s" % a.fields, file=sys.stderr)
        return 2
    with h5py.File(a.fields, "r") as f:
        sc = ugks_units.scales(f.attrs, dim=1)  # in the solver's units whatever output.units was
        x = f["cells/centroid"][:, 0] / sc["length"]
        rho = f["fields/rho"][...] / sc["density"]
        u = f["fields/U"][:, 0] / sc["speed"]
        p = f["fields/p"][...] / sc["pressure"]
        t = float(f.attrs["time"]) / sc["time"]
        step = int(f.attrs.get("step", -1))
    order = np.argsort(x)
    x, rho, u, p = x[order], rho[order], u[order], p[order]
    er, eu, ep, ps, us = exact_riemann(LEFT, RIGHT, GAMMA, (x - X0) / t)
    table = {"fields": os.path.abspath(a.fields), "step": step, "time": t, "cells": int(len(x)),
             "normalisation": "absolute, sqrt(2 R T_ref) units; L1 = mean |difference| over [0, 1]",
             "errors": {}, "scalars": {"p_star": {"value": None, "reference": float(ps)},
                                        "u_star": {"value": None, "reference": float(us)}}}
    print("sod1d: %s (step %d, t = %.4g, %d cells); exact p* = %.6f, u* = %.6f" % (a.fields, step, t, len(x),
                                                                                 ps, us))
    for name, sim, ex in (("rho", rho, er), ("u", u, eu), ("p", p, ep)):
        d = sim - ex
        e = {"l1": float(np.mean(np.abs(d))), "max": float(np.abs(d).max()),
             "rms": float(np.sqrt(np.mean(d * d))), "points": int(len(d))}
        table["errors"][name] = {"exact": e}
        print("  %-4s L1 %.5f  max %.4f  rms %.5f" % (name, e["l1"], e["max"], e["rms"]))
    # star-region plateau: cells between the fan tail and the shock, away from the contact
    mid = (x - X0) / t
    sel = (mid > us + 0.15) & (mid < us + 0.45)
    if np.any(sel):
        table["scalars"]["p_star"]["value"] = float(np.mean(p[sel]))
        table["scalars"]["p_star"]["rel_error"] = float(np.mean(p[sel]) / ps - 1)
        table["scalars"]["u_star"]["value"] = float(np.mean(u[sel]))
        table["scalars"]["u_star"]["rel_error"] = float(np.mean(u[sel]) / us - 1)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fine = np.linspace(0, 1, 2001)
        fr, fu, fp, _, _ = exact_riemann(LEFT, RIGHT, GAMMA, (fine - X0) / t)
        fig, axs = plt.subplots(1, 3, figsize=(10, 3), dpi=80)
        for ax, sim, ex, lab in zip(axs, (rho, u, p), (fr, fu, fp), ("rho", "u", "p")):
            ax.plot(fine, ex, "k-", lw=1, label="exact (Euler)")
            ax.plot(x, sim, ".", ms=3, color="tab:red", label="UGKS")
            ax.set_xlabel("x")
            ax.set_ylabel(lab)
            ax.grid(alpha=0.3)
        axs[0].legend(fontsize=7)
        fig.suptitle("Sod, Kn = 1e-5, %d cells, t = %.3g" % (len(x), t), fontsize=9)
        fig.tight_layout()
        fig.savefig(a.plot + "_profiles.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Table and plot of scripts/steady_kn_sweep.sh: per Kn and method, the iterations and wall time at
which the largest of the three residuals (rho, rho U, rho E; history.csv) first falls to --tol, or,
for runs that stopped before (step or wall limit), the residual they reached. Writes
OUTDIR/kn_sweep.md, OUTDIR/kn_sweep.json and OUTDIR/kn_sweep.png (numpy + matplotlib)."""
import argparse
import csv
import glob
import json
import os
import re

METHODS = ["transient", "local", "implicit"]
LABEL = {"transient": "explicit (global step)", "local": "local time steps",
         "implicit": "implicit"}


def read_run(path, tol):
    rows = list(csv.DictReader(open(os.path.join(path, "history.csv"))))
    if not rows:
        return None
    first = None
    for r in rows:
        res = max(float(r["res_rho"]), float(r["res_rhoU"]), float(r["res_rhoE"]))
        if res <= tol:
            first = r
            break
    last = rows[-1]
    r = first or last
    return {"converged": first is not None, "steps": int(r["step"]),
            "wall_s": float(r["wall_time"]),
            "residual": max(float(r["res_rho"]), float(r["res_rhoU"]), float(r["res_rhoE"])),
            "s_per_step": float(last["wall_time"]) / max(int(last["step"]), 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("outdir")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--cells", default="?")
    ap.add_argument("--vel", default="?")
    a = ap.parse_args()
    data = {}
    for d in sorted(glob.glob(os.path.join(a.outdir, "kn*_*"))):
        m = re.match(r"kn([0-9.e+-]+)_(\w+)$", os.path.basename(d))
        if not m or not os.path.isdir(d) or not os.path.exists(os.path.join(d, "history.csv")):
            continue
        run = read_run(d, a.tol)
        if run:
            data.setdefault(float(m.group(1)), {})[m.group(2)] = run
    kns = sorted(data)
    if not kns:
        raise SystemExit(f"no runs with a history.csv in {a.outdir}")
    lines = [f"2D lid-driven cavity, {a.cells}^2 cells, {a.vel}^2 velocities: iterations and wall "
             f"time until max residual <= {a.tol:g}", "",
             "| Kn | " + " | ".join(f"{LABEL[m]}: iterations / wall s" for m in METHODS) +
             " | wall-time ratio explicit / implicit |",
             "|---|" + "---|" * (len(METHODS) + 1)]
    for kn in kns:
        cells = []
        for m in METHODS:
            r = data[kn].get(m)
            if r is None:
                cells.append("-")
            elif r["converged"]:
                cells.append(f"{r['steps']} / {r['wall_s']:.3g}")
            else:
                cells.append(f"not reached: {r['residual']:.1e} after {r['steps']} / "
                             f"{r['wall_s']:.3g}")
        t, i = data[kn].get("transient"), data[kn].get("implicit")
        ratio = "-"
        if t and i and i["converged"]:
            ratio = f"{t['wall_s'] / i['wall_s']:.0f}x" + ("" if t["converged"] else " (at least)")
        lines.append(f"| {kn:g} | " + " | ".join(cells) + f" | {ratio} |")
    text = "\n".join(lines) + "\n"
    open(os.path.join(a.outdir, "kn_sweep.md"), "w").write(text)
    json.dump({str(k): v for k, v in data.items()},
              open(os.path.join(a.outdir, "kn_sweep.json"), "w"), indent=1)
    print(text)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no plot")
        return
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.6))
    for m, mk in zip(METHODS, "osD"):
        xs = [k for k in kns if m in data[k]]
        for j, key in enumerate(["steps", "wall_s"]):
            conv = [(k, data[k][m][key]) for k in xs if data[k][m]["converged"]]
            notc = [(k, data[k][m][key]) for k in xs if not data[k][m]["converged"]]
            line, = ax[j].plot([c[0] for c in conv], [c[1] for c in conv], "-" + mk,
                               label=LABEL[m])
            if notc:
                ax[j].plot([c[0] for c in notc], [c[1] for c in notc], mk, mfc="none",
                           color=line.get_color())
    for j, t in enumerate(["iterations", "wall time [s]"]):
        ax[j].set_xscale("log")
        ax[j].set_yscale("log")
        ax[j].set_xlabel("Kn")
        ax[j].set_ylabel(t)
        ax[j].grid(True, which="both", alpha=0.3)
    ax[0].legend(fontsize=8)
    fig.suptitle(f"cavity {a.cells}$^2$ x {a.vel}$^2$, residual {a.tol:g} "
                 "(open symbols: limit reached first)", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(a.outdir, "kn_sweep.png"), dpi=110)


if __name__ == "__main__":
    main()

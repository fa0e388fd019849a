#!/usr/bin/env python3
"""Markdown report of validation runs (called by scripts/validate.sh).

Usage: scripts/validation_report.py --mode quick|full --out DIR --report FILE case ...

For each case directory DIR/<case>/ it reads summary.json (solver build, decomposition, resolution, steps,
simulated time, final residuals, wall time), compare.json (the comparison script's error table: errors.
<quantity>.<reference>.{max,rms,l1,points}, optional scalars.<name>.{value,reference,rel_error}) and lists
the PNG plots, with links relative to the report. Cases whose discussion lives in docs/validation/<case>.md
get a link to it.
"""
import argparse
import datetime
import glob
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fmt(x):
    if isinstance(x, float):
        return "%.4g" % x
    return str(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    rdir = os.path.dirname(os.path.abspath(a.report))
    lines = ["# Validation report (%s mode)" % a.mode, "",
             "Written by `scripts/validate.sh` on %s UTC from the runs in `%s`." %
             (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), os.path.relpath(a.out, rdir)), ""]
    for case in a.cases:
        d = os.path.join(a.out, case)
        lines += ["## %s" % case, ""]
        try:
            with open(os.path.join(d, "summary.json")) as f:
                s = json.load(f)
        except (OSError, ValueError):
            s = None
        try:
            with open(os.path.join(d, "compare.json")) as f:
                c = json.load(f)
        except (OSError, ValueError):
            c = {}
        if s:
            b, dec = s.get("build", {}), s.get("decomposition", {})
            res = s.get("final_residuals", {})
            wall = ""
            if os.path.isfile(os.path.join(d, "wall_seconds")):
                wall = open(os.path.join(d, "wall_seconds")).read().strip() + " s"
            lines += ["| item | value |", "|---|---|",
                      "| solver | %s, backend %s, commit %s |" % (b.get("version"), b.get("backend"),
                                                                  b.get("commit")),
                      "| decomposition | %d ranks = P_x %d x P_v %d, B_v %d |" % (
                          dec.get("ranks", 0), dec.get("P_x", 0), dec.get("P_v", 0), dec.get("B_v", 0)),
                      "| resolution | %d cells x %d velocities (%s) |" % (
                          s["mesh"]["cells"], s["velocity"]["points"], s["velocity"]["type"]),
                      "| steps, simulated time | %d, %s |" % (s.get("steps", 0), fmt(s.get("time", 0.0))),
                      "| final residuals | %s |" % ", ".join("%s %s" % (k, fmt(v)) for k, v in res.items()),
                      "| stopped by signal | %s |" % s.get("stopped_by_signal", False)]
            if wall:
                lines.append("| wall time | %s |" % wall)
            lines.append("")
        errs = c.get("errors", {})
        if errs:
            if c.get("normalisation"):
                lines += ["Normalisation: %s." % c["normalisation"], ""]
            lines += ["| quantity | reference | max abs diff | rms diff | L1 | points |",
                      "|---|---|---|---|---|---|"]
            for q, per in errs.items():
                for ref, e in per.items():
                    lines.append("| %s | %s | %s | %s | %s | %s |" % (
                        q, ref, fmt(e.get("max", "")), fmt(e.get("rms", "")), fmt(e.get("l1", "")),
                        e.get("points", "")))
            lines.append("")
        scal = c.get("scalars", {})
        if scal:
            lines += ["| scalar | value | reference | relative difference |", "|---|---|---|---|"]
            for k, v in scal.items():
                lines.append("| %s | %s | %s | %s |" % (k, fmt(v.get("value", "")), fmt(v.get("reference", "")),
                                                        fmt(v.get("rel_error", ""))))
            lines.append("")
        for png in sorted(glob.glob(os.path.join(d, "*.png"))):
            lines += ["![%s](%s)" % (os.path.basename(png), os.path.relpath(png, rdir)), ""]
        disc = os.path.join(ROOT, "docs", "validation", case + ".md")
        if os.path.isfile(disc):
            lines += ["Discussion: [docs/validation/%s.md](%s)" % (case, os.path.relpath(disc, rdir)), ""]
    os.makedirs(rdir, exist_ok=True)
    with open(a.report, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

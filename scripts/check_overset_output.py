#!/usr/bin/python3
"""Check the output of an overset case (cases/overset_*): for every overset_NNNNNN.h5 in DIR
- no orphans (every receptor has a donor grid and cell; summary.json max_orphans_over_steps == 0),
- fringe cells present in every grid that is cut, hole cells present in the background,
- every node of any grid that lies inside a solid body is inactive, and every cell whose nodes all lie
  inside a solid is a hole ("holes inside bodies"). A body is the closed wall of a grid: its wall nodes
  (wall distance 0); 2D walls are star-shaped polygons around their centroid (airfoils, ellipses,
  circles), 3D walls spheres (centre = mean of the wall nodes).
Prints one line per step with the counts; exit 1 on the first failed check.
    scripts/check_overset_output.py DIR [--walls grid1,grid2]   (default: every grid with wall nodes)
"""
import glob, json, math, os, sys
import numpy as np
import h5py


def inside_polygon(poly, p):
    """Even-odd rule, vectorized over the points p (n x 2)."""
    x, y = p[:, 0], p[:, 1]
    inside = np.zeros(len(p), bool)
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        c = ((y1 > y) != (y2 > y)) & (x < (x2 - x1) * (y - y1) / (y2 - y1 + 1e-300) + x1)
        inside ^= c
    return inside


def main():
    d = sys.argv[1]
    files = sorted(glob.glob(os.path.join(d, "overset_*.h5")))
    if not files:
        sys.exit(f"no overset_*.h5 in {d}")
    s = json.load(open(os.path.join(d, "summary.json")))
    ok = s["max_orphans_over_steps"] == 0
    print(f"summary: max_orphans_over_steps {s['max_orphans_over_steps']}, "
          f"per_step_mean {s['timings_seconds']['per_step_mean']:.3f} s, total {s['timings_seconds']['total']:.2f} s")
    for fn in files:
        with h5py.File(fn, "r") as f:
            grids = [g for g in f.keys() if isinstance(f[g], h5py.Group)]
            dim = 3 if np.ptp(f[grids[0]]["nodes/xyz"][:, 2]) > 0 else 2
            bodies = []  # (grid, inside-test)
            for g in grids:
                wd = f[g]["nodes/wall_distance"][:]
                xyz = f[g]["nodes/xyz"][:]
                w = xyz[wd == 0.0]
                if len(w) == 0:
                    continue
                c = w.mean(axis=0)
                if dim == 2:
                    a = np.arctan2(w[:, 1] - c[1], w[:, 0] - c[0])
                    poly = w[np.argsort(a)][:, :2]
                    bodies.append((g, lambda p, poly=poly: inside_polygon(poly, p[:, :2])))
                else:
                    r = np.linalg.norm(w - c, axis=1).mean()
                    bodies.append((g, lambda p, c=c, r=r: np.linalg.norm(p - c, axis=1) < r * (1 - 1e-3)))
            line = [os.path.basename(fn)]
            for g in grids:
                G = f[g]
                ns, cs = G["nodes/status"][:], G["cells/status"][:]
                xyz = G["nodes/xyz"][:]
                cn = G["cells/nodes"][:]
                dg = G["fringe/donor_grid"][:] if "fringe/donor_grid" in G else np.zeros(0)
                dc = G["fringe/donor_cell"][:] if "fringe/donor_cell" in G else np.zeros(0)
                orph = int(np.sum((dg < 0) | (dc < 0)))
                nin = 0
                for b, test in bodies:
                    if b == g:
                        continue
                    inn = test(xyz)
                    nin += int(inn.sum())
                    bad = np.nonzero(inn & (ns != 0))[0]
                    if len(bad):
                        print(f"  FAIL {g}: {len(bad)} nodes inside body {b} are active (first {xyz[bad[0]]})")
                        ok = False
                    valid = cn >= 0
                    allin = np.all(np.where(valid, inn[np.where(valid, cn, 0)], True), axis=1)
                    badc = np.nonzero(allin & (cs != 0))[0]
                    if len(badc):
                        print(f"  FAIL {g}: {len(badc)} cells inside body {b} are not holes")
                        ok = False
                nf, nh = int(np.sum(cs == -1)), int(np.sum(cs == 0))
                if orph:
                    print(f"  FAIL {g}: {orph} orphans")
                    ok = False
                if nf == 0 or (g == grids[0] and nh == 0):
                    print(f"  FAIL {g}: fringe cells {nf}, hole cells {nh}")
                    ok = False
                line.append(f"{g}: act {int(np.sum(cs == 1))} fringe {nf} hole {nh} recv {len(dg)} "
                            f"orph {orph} in-body nodes {nin}")
            print("  ".join(line))
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

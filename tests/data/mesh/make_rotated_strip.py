#!/usr/bin/env python3
"""Write rotated_strip.msh (Gmsh MSH 4.1 ASCII): a 2D strip of N x M quads whose long axis e makes
the angle THETA with the x axis, for the tests of specular reflection on planes that are not normal to a
velocity-grid axis. Node (i, j) lies at i (L/N) e + j (W/M) t, e = (cos THETA, sin THETA),
t = (-sin THETA, cos THETA). Patches: 'wall' (i = 0, outward normal -e), 'far' (i = N, +e), 'side_a'
(j = 0) and 'side_b' (j = M), a periodic pair along t; surface 'fluid'. The solution of a case that is
uniform along t is the 1D solution along e.

Usage: make_rotated_strip.py [OUT] (default: rotated_strip.msh next to this script). No dependencies."""
import math
import os
import sys

THETA = math.radians(30.0)
N, M, L, W = 20, 2, 1.0, 0.1


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "rotated_strip.msh")
    e = (math.cos(THETA), math.sin(THETA))
    t = (-math.sin(THETA), math.cos(THETA))
    tag = lambda i, j: 1 + i * (M + 1) + j
    xy = {}
    for i in range(N + 1):
        for j in range(M + 1):
            a, b = i * L / N, j * W / M
            xy[tag(i, j)] = (a * e[0] + b * t[0], a * e[1] + b * t[1])
    xs = [p[0] for p in xy.values()]
    ys = [p[1] for p in xy.values()]
    box = f"{min(xs):.17g} {min(ys):.17g} 0 {max(xs):.17g} {max(ys):.17g} 0"
    curves = {  # curve tag: (physical tag, name, node-tag pairs)
        1: (1, "wall", [(tag(0, j), tag(0, j + 1)) for j in range(M)]),
        2: (2, "far", [(tag(N, j), tag(N, j + 1)) for j in range(M)]),
        3: (3, "side_a", [(tag(i, 0), tag(i + 1, 0)) for i in range(N)]),
        4: (4, "side_b", [(tag(i, M), tag(i + 1, M)) for i in range(N)]),
    }
    quads = [(tag(i, j), tag(i + 1, j), tag(i + 1, j + 1), tag(i, j + 1)) for i in range(N) for j in range(M)]
    lines = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$PhysicalNames", str(len(curves) + 1)]
    lines += [f'1 {c[0]} "{c[1]}"' for c in curves.values()] + ['2 5 "fluid"', "$EndPhysicalNames"]
    lines += ["$Entities", f"0 {len(curves)} 1 0"]
    lines += [f"{k} {box} 1 {c[0]} 0" for k, c in curves.items()]
    lines += [f"1 {box} 1 5 4 1 2 3 4", "$EndEntities"]
    nn = len(xy)
    lines += ["$Nodes", f"1 {nn} 1 {nn}", f"2 1 0 {nn}"]
    lines += [str(k) for k in sorted(xy)]
    lines += [f"{xy[k][0]:.17g} {xy[k][1]:.17g} 0" for k in sorted(xy)]
    lines += ["$EndNodes"]
    ne = sum(len(c[2]) for c in curves.values()) + len(quads)
    lines += ["$Elements", f"{len(curves) + 1} {ne} 1 {ne}"]
    el = 1
    for k, c in curves.items():
        lines.append(f"1 {k} 1 {len(c[2])}")
        for a, b in c[2]:
            lines.append(f"{el} {a} {b}")
            el += 1
    lines.append(f"2 1 3 {len(quads)}")
    for q in quads:
        lines.append(f"{el} {q[0]} {q[1]} {q[2]} {q[3]}")
        el += 1
    lines += ["$EndElements"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

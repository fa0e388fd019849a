#!/usr/bin/env bash
# Generate the body-grid meshes of the overset cases with Gmsh (>= 4.8) from the .geo files in the case
# folders: cases/overset_airfoil_flap/{main,flap}.msh, cases/overset_store_separation/{wing,store}.msh,
# cases/overset_sphere_box/sphere_shell.msh (the cylinder case: cases/overset_cylinder_box/README.md).
# The committed .msh files are these defaults (each < 0.6 MB); pass `-setnumber` options after `--`
# to make other sizes, e.g. REFINE=2 doubles every cell count of the 2D grids (n_s, n_r, n_q) and of the
# sphere shell (n, n_r).
#   scripts/make_overset_meshes.sh [all|airfoil_flap|store_separation|sphere_box] [OUTDIR]
# OUTDIR (default: the case folders themselves) receives <case>/<mesh>.msh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
which="${1:-all}"
outdir="${2:-$root/cases}"
r="${REFINE:-1}"
command -v gmsh >/dev/null || { echo "make_overset_meshes.sh: gmsh not found (scripts/install-deps.sh --with-gmsh)" >&2; exit 2; }
mesh() {  # mesh <case> <geo> <out> <dim> [-setnumber k v ...]
  local case="$1" geo="$2" out="$3" dim="$4"; shift 4
  mkdir -p "$outdir/overset_$case"
  (cd "$root/cases/overset_$case" && gmsh "-$dim" -format msh41 "$geo" "$@" -o "$outdir/overset_$case/$out" >/dev/null)
  echo "wrote $outdir/overset_$case/$out ($(du -k "$outdir/overset_$case/$out" | cut -f1) kB)"
}
n() { awk -v a="$1" -v r="$r" 'BEGIN { printf "%d", a * r + 0.5 }'; }
# growth ratios shrink with refinement so that the grids keep their extent and first-cell ratio
g() { awk -v a="$1" -v r="$r" 'BEGIN { printf "%.6f", a ^ (1 / r) }'; }
if [[ "$which" == all || "$which" == airfoil_flap ]]; then
  # main element: NACA 0012, chord 1, leading edge at the origin; flap: NACA 0012, chord 0.35, leading
  # edge at (1.15, -0.04), 5 degrees down; both grids reach 0.1 from their walls
  mesh airfoil_flap airfoil_ogrid.geo main.msh 2 -setnumber ext 0.1 -setnumber n_s "$(n 60)" \
    -setnumber n_r "$(n 16)" -setnumber grow "$(g 1.12)"
  mesh airfoil_flap airfoil_ogrid.geo flap.msh 2 -setnumber chord 0.35 -setnumber x_le 1.15 \
    -setnumber y_le -0.04 -setnumber aoa 5 -setnumber ext 0.1 -setnumber n_s "$(n 40)" \
    -setnumber n_r "$(n 16)" -setnumber grow "$(g 1.12)"
fi
if [[ "$which" == all || "$which" == store_separation ]]; then
  # wing: NACA 0012, chord 1 at the origin; store: ellipse 0.5 x 0.1 centred at (0.45, -0.3)
  mesh store_separation ../overset_airfoil_flap/airfoil_ogrid.geo wing.msh 2 -setnumber ext 0.1 \
    -setnumber n_s "$(n 60)" -setnumber n_r "$(n 16)" -setnumber grow "$(g 1.12)"
  mesh store_separation store_ogrid.geo store.msh 2 -setnumber xc 0.45 -setnumber yc -0.3 \
    -setnumber ext 0.1 -setnumber n_q "$(n 24)" -setnumber n_r "$(n 14)" -setnumber grow "$(g 1.12)"
fi
if [[ "$which" == all || "$which" == sphere_box ]]; then
  # sphere of radius 0.5 at the origin, prism shell out to radius 1.1
  mesh sphere_box sphere_shell.geo sphere_shell.msh 3 -setnumber n "$(n 8)" -setnumber n_r "$(n 10)" \
    -setnumber grow "$(g 1.15)"
fi

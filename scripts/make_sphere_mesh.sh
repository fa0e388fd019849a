#!/usr/bin/env bash
# Generate a quarter-domain sphere mesh for the sphere cases (cases/sphere_*) with the Gmsh script
# cases/meshes/sphere/sphere.geo. Usage: scripts/make_sphere_mesh.sh [fine|medium|REFINE] [OUT.msh]
#   fine   = refine 4: 34,505 cells (the full-sphere equivalent 136,820 cells ~ the 138,240 of seed 000
#            section 3.3) -> cases/meshes/sphere/sphere_quarter_fine.msh (default)
#   medium = refine 2  -> cases/meshes/sphere/sphere_quarter_medium.msh
#   REFINE = any number -> cases/meshes/sphere/sphere_quarter_r<REFINE>.msh
# The mesh has R = 1 (the cases read it with mesh.scale = 0.005, D = 0.01 m). Large meshes are not
# committed (cases/meshes/sphere/.gitignore); the committed sphere_quarter_coarse.msh is refine 1.
# Needs gmsh >= 4.8 (scripts/install-deps.sh --with-gmsh, or apt-get install gmsh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
level="${1:-fine}"
case "$level" in
  fine) refine=4; name=sphere_quarter_fine.msh ;;
  medium) refine=2; name=sphere_quarter_medium.msh ;;
  *)
    if ! [[ "$level" =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ "$level" =~ ^0+([.]0*)?$ ]]; then
      echo "make_sphere_mesh.sh: level must be fine, medium or a positive number, got '$level'" >&2
      exit 2
    fi
    refine="$level"; name="sphere_quarter_r${level}.msh" ;;
esac
out="${2:-$root/cases/meshes/sphere/$name}"
command -v gmsh >/dev/null || { echo "make_sphere_mesh.sh: gmsh not found (scripts/install-deps.sh --with-gmsh)" >&2; exit 2; }
cd "$root/cases/meshes/sphere"
echo "gmsh -3 sphere_quarter.geo -setnumber refine $refine -format msh41 -bin -o $out"
gmsh -3 sphere_quarter.geo -setnumber refine "$refine" -format msh41 -bin -o "$out" >/dev/null
echo "wrote $out"

#!/usr/bin/env bash
# Generate the half-model X-38-like lifting-body mesh (cases/x38_like) with the Gmsh script
# cases/x38_like/x38_like.geo. Usage: scripts/make_x38_like_mesh.sh [coarse|medium|seed|REFINE] [OUT.msh]
#   coarse = refine 1:     2,865 tetrahedra   -> cases/x38_like/x38_like_coarse.msh (committed, CI-sized)
#   medium = refine 4:     70,740 tetrahedra  -> cases/x38_like/x38_like_medium.msh
#   seed   = refine 10.04: 916,514 tetrahedra -> cases/x38_like/x38_like_seed.msh (default; the seed's
#            913,784 cells, here in the half model; 44 MB, about 15 s, 0.2 GB of memory)
#   REFINE = any positive number -> cases/x38_like/x38_like_r<REFINE>.msh
# Counts from Gmsh 4.8.4 (the cell count of a level may differ by a few per cent with another Gmsh
# version). Only the coarse mesh is committed (cases/x38_like/.gitignore).
# Needs gmsh >= 4.8 (scripts/install-deps.sh --with-gmsh, or apt-get install gmsh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
level="${1:-seed}"
case "$level" in
  coarse) refine=1; name=x38_like_coarse.msh ;;
  medium) refine=4; name=x38_like_medium.msh ;;
  seed) refine=10.04; name=x38_like_seed.msh ;;
  *)
    if ! [[ "$level" =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ "$level" =~ ^0+([.]0*)?$ ]]; then
      echo "make_x38_like_mesh.sh: level must be coarse, medium, seed or a positive number, got '$level'" >&2
      exit 2
    fi
    refine="$level"; name="x38_like_r${level}.msh" ;;
esac
out="${2:-$root/cases/x38_like/$name}"
command -v gmsh >/dev/null || { echo "make_x38_like_mesh.sh: gmsh not found (scripts/install-deps.sh --with-gmsh)" >&2; exit 2; }
cd "$root/cases/x38_like"
echo "gmsh -3 x38_like.geo -setnumber refine $refine -format msh41 -bin -o $out"
gmsh -3 x38_like.geo -setnumber refine "$refine" -format msh41 -bin -o "$out" >/dev/null
echo "wrote $out"

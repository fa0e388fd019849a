#!/usr/bin/env bash
# Generate the half-model Apollo/Orion-like capsule mesh (cases/orion_like) with the Gmsh script
# cases/orion_like/orion_like.geo. Usage: scripts/make_orion_like_mesh.sh [coarse|medium|seed|REFINE] [OUT.msh]
#   coarse = refine 1:     5,119 tetrahedra     -> cases/orion_like/orion_like_coarse.msh (committed, CI-sized)
#   medium = refine 4:     109,939 tetrahedra   -> cases/orion_like/orion_like_medium.msh
#   seed   = refine 13.8:  3,355,864 tetrahedra -> cases/orion_like/orion_like_seed.msh (default; the seed's
#            ~3.4 million cells, here in the half model; 160 MB, about 1 min, 0.7 GB of memory)
#   REFINE = any positive number -> cases/orion_like/orion_like_r<REFINE>.msh
# Counts from Gmsh 4.8.4 (the cell count of a level may differ by a few per cent with another Gmsh
# version). Only the coarse mesh is committed (cases/orion_like/.gitignore).
# Needs gmsh >= 4.8 (scripts/install-deps.sh --with-gmsh, or apt-get install gmsh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
level="${1:-seed}"
case "$level" in
  coarse) refine=1; name=orion_like_coarse.msh ;;
  medium) refine=4; name=orion_like_medium.msh ;;
  seed) refine=13.8; name=orion_like_seed.msh ;;
  *)
    if ! [[ "$level" =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ "$level" =~ ^0+([.]0*)?$ ]]; then
      echo "make_orion_like_mesh.sh: level must be coarse, medium, seed or a positive number, got '$level'" >&2
      exit 2
    fi
    refine="$level"; name="orion_like_r${level}.msh" ;;
esac
out="${2:-$root/cases/orion_like/$name}"
command -v gmsh >/dev/null || { echo "make_orion_like_mesh.sh: gmsh not found (scripts/install-deps.sh --with-gmsh)" >&2; exit 2; }
cd "$root/cases/orion_like"
echo "gmsh -3 orion_like.geo -setnumber refine $refine -format msh41 -bin -o $out"
gmsh -3 orion_like.geo -setnumber refine "$refine" -format msh41 -bin -o "$out" >/dev/null
echo "wrote $out"

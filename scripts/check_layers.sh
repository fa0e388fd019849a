#!/usr/bin/env bash
# The structure rules of the source tree (docs/architecture.md, "Layers"), checked in CI:
#  1. an include "ugks/<B>/..." in src/<A>/ or include/ugks/<A>/ needs B = A or B listed for A in
#     scripts/layers.txt (the order the CMake libraries link in);
#  2. no backend conditional (UGKS_USE_CUDA, UGKS_USE_OPENMP, UGKS_HAVE_NCCL, __CUDACC__) outside the
#     device layer: the other layers ask include/ugks/device/capabilities.hpp, and backend-only
#     code lives in src/<layer>/cuda/ (CUDA builds) or src/<layer>/host/ (CPU builds);
#  3. no source file over 1 200 lines.
# Usage: scripts/check_layers.sh   (exit 1 and one line per violation when a rule is broken)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
declare -A allow
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  layer="${line%%:*}"
  deps="${line#*:}"
  allow[$layer]=" $(echo $deps) "
done < scripts/layers.txt
bad=0
for layer in "${!allow[@]}"; do
  for dir in "src/$layer" "include/ugks/$layer"; do
    [[ -d "$dir" ]] || continue
    while IFS=: read -r file lineno target; do
      if [[ "$target" != "$layer" && "${allow[$layer]}" != *" $target "* ]]; then
        if [[ -z "${allow[$target]+x}" ]]; then
          echo "check_layers: $file:$lineno includes ugks/$target/, which is no layer of scripts/layers.txt"
        else
          echo "check_layers: $file:$lineno: layer '$layer' includes ugks/$target/ (allowed: $(echo ${allow[$layer]}))"
        fi
        bad=1
      fi
    done < <(grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"ugks/[a-z_]+/' "$dir" \
               | sed -E 's|^([^:]+):([0-9]+):.*"ugks/([a-z_]+)/$|\1:\2:\3|')
  done
done
for dir in src include/ugks; do
  for sub in "$dir"/*/; do
    sub="${sub%/}"
    [[ "$(basename "$sub")" == device ]] && continue
    while IFS= read -r hit; do
      echo "check_layers: backend conditional outside the device layer: $hit"
      bad=1
    done < <(grep -rnE 'UGKS_USE_CUDA|UGKS_USE_OPENMP|UGKS_HAVE_NCCL|__CUDACC__' "$sub" || true)
  done
done
while read -r n file; do
  [[ "$file" == total ]] && continue
  if (( n > 1200 )); then
    echo "check_layers: $file has $n lines (at most 1 200)"
    bad=1
  fi
done < <(find src include -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' | xargs wc -l)
if (( bad )); then
  echo "check_layers: FAILED (scripts/layers.txt, docs/architecture.md \"Layers\")"
  exit 1
fi
echo "check_layers: ok (${#allow[@]} layers)"

#!/usr/bin/env bash
# Iterations of the implicit steady iteration for several settings on the cases of docs/steady.md
# section 7.11: the 2D cavity of the Kn sweep (16^2 cells x 28^2 velocities, residual 1e-6) at
# Kn 0.001 / 0.01 / 0.075 / 1 / 10, the 1D Couette flow of tests/regression/steady/couette1d.yaml
# and the same flow on 100 x 2 and 100 x 10 square cells and on 100 x 2 cells of aspect ratio 1:100
# (couette_strip.yaml).
#
#   scripts/steady_settings_sweep.sh SOLVER [OUTDIR]
#   environment: SETTINGS (one "label=overrides" per line, overrides as --set arguments without the
#                --set; default: the defaults, the defaults with colored ordering, the old defaults),
#                JOBS (runs at once, default: number of cores), MAXSTEPS (1500)
# Prints a markdown table: iterations per case, "!N" appended when the run exited with code N.
set -euo pipefail
solver="$(realpath "$1")"
out="${2:-steady_settings_out}"
here="$(cd "$(dirname "$0")/.." && pwd)"
cavity="$here/cases/cavity2d_kn0.075/cavity2d_kn0.075.yaml"
steady="$here/tests/regression/steady"
JOBS="${JOBS:-$(getconf _NPROCESSORS_ONLN)}" MAXSTEPS="${MAXSTEPS:-1500}"
SETTINGS="${SETTINGS:-defaults=
defaults colored=time.implicit.ordering=colored
old defaults (sgs 2/2)=time.implicit.macro_solver=sgs time.implicit.micro_sweeps=2}"
export OMP_NUM_THREADS=1
mkdir -p "$out"
cases=(kn0.001 kn0.01 kn0.075 kn1 kn10 1D strip2 strip10 aniso)
case_args() {
  case "$1" in
    kn*) echo "$cavity --set gas.Kn=${1#kn} --set mesh.box.cells=[16,16] --set velocity.counts=[28,28]" \
              "--set time.mode=steady --set time.steady_method=implicit --set time.steady_tolerance=1e-6" \
              "--set output.every=0 --set output.probes=[]" ;;
    1D) echo "$steady/couette1d.yaml" ;;
    strip2) echo "$steady/couette_strip.yaml" ;;
    strip10) echo "$steady/couette_strip.yaml --set mesh.box.cells=[100,10] --set mesh.box.hi=[1,0.1]" ;;
    aniso) echo "$steady/couette_strip.yaml --set mesh.box.hi=[1,2]" ;;
  esac
}
jobs_file="$out/jobs.txt"
: >"$jobs_file"
n=0
while IFS= read -r line; do
  [[ -z "$line" ]] && continue
  label="${line%%=*}" sets="${line#*=}"
  extra=""
  for s in $sets; do extra+=" --set $s"; done
  for c in "${cases[@]}"; do
    echo "$n|$c|$(case_args "$c") --set time.steps=$MAXSTEPS$extra" >>"$jobs_file"
  done
  echo "$label" >"$out/label_$n"
  n=$((n + 1))
done <<<"$SETTINGS"
run_one() {
  IFS='|' read -r k c args <<<"$1"
  local dir="$out/s${k}_$c"
  rm -rf "$dir"
  # shellcheck disable=SC2086
  "$solver" $args --quiet --set output.directory="$dir" >"$dir.log" 2>&1 && rc=0 || rc=$?
  local it=-1
  [[ -f "$dir/history.csv" ]] && it=$(($(wc -l <"$dir/history.csv") - 1))
  echo "$k $c $rc $it" >"$dir.result"
}
export -f run_one
export solver out
tr '\n' '\0' <"$jobs_file" | xargs -0 -P "$JOBS" -I{} bash -c 'run_one "$1"' _ {}
printf '| settings |'
for c in "${cases[@]}"; do printf ' %s |' "$c"; done
printf '\n|---|'
for _ in "${cases[@]}"; do printf -- '---|'; done
printf '\n'
for ((k = 0; k < n; k++)); do
  printf '| %s |' "$(cat "$out/label_$k")"
  for c in "${cases[@]}"; do
    read -r _ _ rc it <"$out/s${k}_$c.result"
    if [[ "$rc" == 0 ]]; then printf ' %s |' "$it"; else printf ' %s !%s |' "$it" "$rc"; fi
  done
  printf '\n'
done

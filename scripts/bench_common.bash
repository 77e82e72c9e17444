# Shared by scripts/bench_cpu.sh and scripts/bench_gpu.sh (sourced, not run).
#
# choose_backends TAG INFO_FILE WANT: of the comma-separated WANT, the backends that
# `scatterctl info` (its output in INFO_FILE) lists as available. Sets `backends` (array),
# `list` (comma-separated) and `notes` (one line per backend, for the results README: its
# version and device, or why it was left out). Exits 5 when none is available.
choose_backends() {
  local tag=$1 info=$2 want=$3 b line
  local -a wanted
  backends=()
  notes=()
  IFS=, read -r -a wanted <<< "$want"
  for b in "${wanted[@]}"; do
    line=$(awk -v b="$b" '$1 == b { $1 = ""; sub(/^ +/, ""); print; exit }' "$info")
    case "$line" in
      available*) backends+=("$b"); line=${line#available}; notes+=("\`$b\`:${line}") ;;
      "") echo "$tag: $b left out: scatterctl info does not list it"; notes+=("\`$b\` left out: not listed by scatterctl info") ;;
      *) echo "$tag: $b left out: $line"; notes+=("\`$b\` left out: $line") ;;
    esac
  done
  [ ${#backends[@]} -gt 0 ] || { echo "$tag: none of $want is available" >&2; exit 5; }
  list=$(IFS=,; echo "${backends[*]}")
}

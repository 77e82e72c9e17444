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

# write_results TAG OUT RC COMMAND [--note TEXT ...]: the plots and the results README of the
# report OUT/scatterctl.json (exit 1 when the bench wrote none), with the command, the notes that
# choose_backends made, the notes given, and the bench's exit code RC. Uses $py.
write_results() {
  local tag=$1 out=$2 rc=$3 command=$4 n
  shift 4
  [ -s "$out/scatterctl.json" ] || { echo "$tag: scatterctl bench wrote no report (exit $rc)" >&2; exit 1; }
  local -a notes_args=()
  for n in "${notes[@]}"; do notes_args+=(--note "$n"); done
  "$py" scripts/plot_bench.py "$out/scatterctl.json" --out "$out"
  "$py" bench/summarize.py "$out/scatterctl.json" --out "$out/README.md" --note "command: $command" \
    "${notes_args[@]}" "$@" --note "exit code: scatterctl bench $rc (1 = a row was not timed or FAILED, see the tables)"
  echo "$tag: results in $out"
}

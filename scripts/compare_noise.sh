#!/usr/bin/env bash
# Does the paired gate cry wolf, and does it catch real slowdowns, with a busy neighbour?
# Runs `bench --gate base,new` of one build against itself (both sides exe:, the way
# scripts/ab_gate.sh runs a pull request), N times each way, with a busy loop running the
# whole time (NEIGHBOUR=0 leaves it out):
#   A/A:      no slowdown                       (any exit but 0 is a false alarm or undecided)
#   one 2x:   new@$SLOW:2                       (caught when $SLOW is "slower" and the gate exits 1)
#   one 1.1x: new@$SLOW:1.1                     (the same)
#   all 1.5x: new@*:1.5                         (caught when the gate exits 1)
# and with --counter instructions (valgrind; the neighbour cannot move a count):
#   iaa:      no increase                       (any exit but 0 is a false alarm)
#   i1.01:    new@$SLOW:1.01, 1% more instructions (caught when $SLOW is "slower" and the gate exits 1)
# SCATTERCTL_BENCH_SLOWDOWN makes the new side's op take FACTOR times as long by running it
# again inside the sample: real work, not edited numbers.
# Usage: scripts/compare_noise.sh [SCATTERCTL]; env N (20), OUT (a temp dir), MODE (nd),
#        FILTERS (space-separated globs; empty: the whole mode), SLOW, BUDGET (gate budget, s),
#        KINDS (which of "aa x2 x1.1 all1.5 iaa i1.01" to run; default the first four), THREADS (the cpu backend's threads: 1, so
#        that on a 2-core machine the op and the neighbour each have a core; 0: one per core)
set -u
S=$(realpath "${1:-build/app/scatterctl}")
N=${N:-20}
MODE=${MODE:-nd}
SLOW=${SLOW:-nd/slice_256B/unique/f32}
BUDGET=${BUDGET:-120}
KINDS=${KINDS:-aa x2 x1.1 all1.5}
NEIGHBOUR=${NEIGHBOUR:-1}
THREADS=${THREADS:-1}
FILTERS=${FILTERS-nd/launch/f32 nd/doc_60B_slices/f32 nd/element/unique/f32 nd/slice_256B/unique/f32 nd/slice_256B/unique/f32/in_place nd/contention/100_bins/add/f32 nd/reduce/add/f32 nd/reduce/max/bf16}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
args=(bench --mode "$MODE" --backend "base=exe:$S:cpu,new=exe:$S:cpu" --gate base,new --gate-budget "$BUDGET")
[ "$THREADS" = 0 ] || args+=(--threads "$THREADS")
for f in $FILTERS; do args+=(--filter "$f"); done
if [ "$NEIGHBOUR" = 1 ]; then
  (while :; do :; done) &
  busy=$!
  trap 'kill $busy 2>/dev/null' EXIT
fi
slowdown_of() {
  case "$1" in
    aa) echo "" ;;
    x2) echo "new@$SLOW:2" ;;
    x1.1) echo "new@$SLOW:1.1" ;;
    all1.5) echo "new@*:1.5" ;;
    iaa) echo "" ;;
    i1.01) echo "new@$SLOW:1.01" ;;
  esac
}
# The counted kinds: instructions of one call, one pass (every round counts the same).
counter_of() {
  case "$1" in
    i*) echo --counter instructions --repetitions 1 ;;
  esac
}
start=$(date +%s)
for kind in $KINDS; do
  for i in $(seq 1 "$N"); do
    name="${kind}_$i"
    t0=$(date +%s)
    # shellcheck disable=SC2046 # counter_of's words are separate arguments
    SCATTERCTL_BENCH_SLOWDOWN=$(slowdown_of "$kind") "$S" "${args[@]}" $(counter_of "$kind") --json "$OUT/$name.json" \
      > "$OUT/$name.txt" 2> "$OUT/$name.err"
    rc=$?
    flagged=$(grep -cE "^$SLOW +.* slower$" "$OUT/$name.txt")
    echo "$name exit $rc, $SLOW flagged slower: $flagged in $(( $(date +%s) - t0 )) s; load $(cut -d' ' -f1-3 /proc/loadavg); $(tail -1 "$OUT/$name.txt")"
    echo "$kind $i $rc $(( $(date +%s) - t0 )) $flagged" >> "$OUT/results.tsv"
  done
done
echo "took $(( $(date +%s) - start )) s; per kind: exit 0 (passed), 1 (slower), 6 (undecided)"
for kind in $KINDS; do
  awk -v k="$kind" '$1 == k { n++; c[$3]++; s += $4; f += $5 } END {
    printf "%-7s %2d gates: %2d passed, %2d failed (slower), %2d undecided, %2d other; the slowed benchmark flagged in %d; %.0f s each\n",
           k, n, c[0], c[1], c[6], n - c[0] - c[1] - c[6], f, n ? s / n : 0 }' "$OUT/results.tsv"
done
echo "reports: $OUT"

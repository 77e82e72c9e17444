#!/usr/bin/env bash
# How often does the `compare` gate cry wolf, and does it catch a real 2x slowdown?
# Runs bench 2N+1 times back to back at the default statistical settings (no
# --repetitions/--min-samples/--max-seconds given), alternating:
#   base_0, slow_1, base_1, slow_2, base_2, ... slow_N, base_N
# where slow_i has SCATTERCTL_BENCH_SLOWDOWN=$SLOW:2 (that benchmark's op runs twice per
# sample: a real 2x, not edited numbers). Then
#   A/A: compare base_{i-1} base_i  (N compares; any "slower" row is a false alarm)
#   2x:  compare base_{i-1} slow_i  (N compares; caught when $SLOW is "slower")
# Usage: scripts/compare_noise.sh [SCATTERCTL] ; env N (20), OUT (a temp dir), MODE (nd),
#        FILTERS (space-separated globs; empty: the whole mode), SLOW (the slowed benchmark)
set -u
S=${1:-build/app/scatterctl}
N=${N:-20}
MODE=${MODE:-nd}
SLOW=${SLOW:-nd/slice_256B/unique/f32}
FILTERS=${FILTERS-nd/launch/f32 nd/doc_60B_slices/f32 nd/element/unique/f32 nd/slice_256B/unique/f32 nd/slice_256B/unique/f32/in_place nd/contention/100_bins/add/f32 nd/reduce/add/f32 nd/reduce/max/bf16}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
args=(bench --backend ref --mode "$MODE")
for f in $FILTERS; do args+=(--filter "$f"); done
run() {  # run NAME [env...]
  local name=$1; shift
  env "$@" "$S" "${args[@]}" --json "$OUT/$name.json" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "$name: $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
}
start=$(date +%s)
run base_0
for i in $(seq 1 "$N"); do
  run "slow_$i" SCATTERCTL_BENCH_SLOWDOWN="$SLOW:2"
  run "base_$i"
done
false_alarms=0; aa_fail=0; caught=0; other_alarms=0
for i in $(seq 1 "$N"); do
  p=$((i - 1))
  "$S" compare "$OUT/base_$p.json" "$OUT/base_$i.json" > "$OUT/aa_$i.txt" 2>&1; rc=$?
  n=$(grep -c " slower$" "$OUT/aa_$i.txt")
  false_alarms=$((false_alarms + n)); [ $rc -ne 0 ] && aa_fail=$((aa_fail + 1))
  "$S" compare "$OUT/base_$p.json" "$OUT/slow_$i.json" > "$OUT/x2_$i.txt" 2>&1
  line=$(grep "^$SLOW@ref " "$OUT/x2_$i.txt")
  echo "$line" | grep -q " slower$" && caught=$((caught + 1))
  o=$(grep " slower$" "$OUT/x2_$i.txt" | grep -vc "^$SLOW@ref ")
  other_alarms=$((other_alarms + o))
  echo "pair $i: A/A exit $rc, $n slower rows; 2x: $(echo "$line" | awk '{print $(NF-4), $(NF-3), $(NF-2), $NF}')"
done
rows=$(grep -c "@ref " "$OUT/aa_1.txt")
echo "benchmarks per report: $rows; runs took $(( $(date +%s) - start )) s"
echo "A/A: $false_alarms false 'slower' rows over $N compares ($((N * rows)) row comparisons), $aa_fail gates failed"
echo "2x on $SLOW: caught $caught of $N; other rows called slower in those compares: $other_alarms"
echo "reports and compare outputs: $OUT"

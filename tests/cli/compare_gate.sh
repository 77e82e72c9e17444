#!/usr/bin/env bash
# The regression gate's edges: --threshold needs its unit, a benchmark missing from NEW
# (or nothing in common) fails unless --allow-missing, a busy machine is a warning, and
# scatter_bench's names are scatterctl's.
# Usage: compare_gate.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"

"$BIN" bench --backend ref --mode nd --filter 'nd/launch/*' --filter 'nd/slice_256B/unique/f32' --max-seconds 0.05 \
    --repetitions 2 --min-samples 3 --json "$TMP/base.json" > "$TMP/out.txt" 2> "$TMP/err.txt" || fail "bench exits 0"
python3 - "$TMP/base.json" "$TMP" <<'PY' || fail "bench JSON"
import json, sys, os
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]
assert ctx["repetitions"] == 2, ctx
assert ctx["num_cpus"] >= 1 and len(ctx["load_avg"]) == 3, ctx
assert ctx["load_start"]["cpus"] >= 1 and len(ctx["load_end"]["load_avg"]) == 3, ctx
for b in doc["benchmarks"]:
    assert len(b["samples_us"]) >= 6, b  # 2 rounds x 3 or more
out = sys.argv[2]
# NEW without the second benchmark.
one = dict(doc, benchmarks=doc["benchmarks"][:1])
json.dump(one, open(os.path.join(out, "one.json"), "w"))
# NEW with nothing in common.
other = dict(doc, benchmarks=[dict(b, name=b["name"].replace("@ref", "@other"), run_name=b["name"]) for b in doc["benchmarks"]])
json.dump(other, open(os.path.join(out, "other.json"), "w"))
# The same report, taken on a busy machine.
busy = json.loads(json.dumps(doc))
busy["context"]["load_end"] = {"load_avg": [9.5, 4.0, 2.0], "cpus": busy["context"]["num_cpus"], "busy": True}
busy["context"]["busy"] = True
json.dump(busy, open(os.path.join(out, "busy.json"), "w"))
# Absurd but valid times (1e308 ns): printed in a few characters, not 300 digits.
huge = json.loads(json.dumps(doc))
for b in huge["benchmarks"]:
    b["real_time"] = b["cpu_time"] = 1e308
    b["samples_us"] = [1e305] * len(b["samples_us"])
json.dump(huge, open(os.path.join(out, "huge.json"), "w"))
PY

"$BIN" compare "$TMP/base.json" "$TMP/huge.json" > "$TMP/huge.txt" 2>&1
awk 'length > 400 { bad = 1 } END { exit bad }' "$TMP/huge.txt" || fail "a 1e308 time prints in a short line: $(head -c 600 "$TMP/huge.txt")"
grep -Eq "^nd/launch/f32@ref +[0-9.]+ us +1e\+[0-9]{3} s +\+[0-9.]+e\+[0-9]{3}%" "$TMP/huge.txt" ||
  fail "a 1e308 time and its change print in three significant digits: $(head -c 600 "$TMP/huge.txt")"

# --threshold: a percentage with its unit; a bare number is a usage error that says so.
"$BIN" compare "$TMP/base.json" "$TMP/base.json" --threshold 5 > /dev/null 2> "$TMP/thr.txt"; rc=$?
[ $rc -eq 2 ] || fail "--threshold 5 is a usage error (2), got $rc"
grep -q "write 5%" "$TMP/thr.txt" || fail "the message says to write 5%: $(cat "$TMP/thr.txt")"
"$BIN" compare "$TMP/base.json" "$TMP/base.json" --threshold 0.05 > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--threshold 0.05 is a usage error (2), got $rc"
"$BIN" compare "$TMP/base.json" "$TMP/base.json" --threshold 5% > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || fail "--threshold 5% on one report twice exits 0, got $rc"

# Missing benchmarks and an empty intersection fail the gate, unless allowed.
"$BIN" compare "$TMP/base.json" "$TMP/one.json" > "$TMP/missing.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a benchmark missing from NEW exits 1, got $rc"
grep -q "missing" "$TMP/missing.txt" || fail "the row says missing"
"$BIN" compare "$TMP/base.json" "$TMP/one.json" --allow-missing > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || fail "--allow-missing passes, got $rc"
"$BIN" compare "$TMP/base.json" "$TMP/other.json" > "$TMP/none.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "nothing in common exits 1, got $rc"
grep -q "nothing was compared" "$TMP/none.txt" || fail "says nothing was compared"

# A report taken on a busy machine: compare warns.
"$BIN" compare "$TMP/base.json" "$TMP/busy.json" > /dev/null 2> "$TMP/busy.txt"
grep -q "NEW was measured on a busy machine" "$TMP/busy.txt" || fail "compare warns about the busy machine"

# A neighbour that takes every CPU while NEW is measured (two spinning shells a CPU), where the
# kernel keeps CPU pressure: NEW's rows record it, and compare of the two unpaired runs never calls
# a row slower that the pressure explains: exit 0 or 6, never 1.
if [ -r /proc/pressure/cpu ]; then
  rows=(--backend ref --mode nd --filter 'nd/element/unique/f32' --filter 'nd/slice_256B/unique/f32'
        --filter 'nd/reduce/min/f32' --max-seconds 0.2 --repetitions 1)
  "$BIN" bench "${rows[@]}" --json "$TMP/quiet.json" > /dev/null 2>&1 || fail "bench (quiet) exits 0"
  burners=()
  # However this script ends (a failed check exits at once), the neighbour ends with it.
  trap 'kill "${burners[@]}" 2>/dev/null; chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
  for _ in $(seq $(( 2 * $(nproc) ))); do
    bash -c 'while :; do :; done' &
    burners+=($!)
  done
  "$BIN" bench "${rows[@]}" --json "$TMP/loaded.json" > "$TMP/loaded.out" 2>&1; brc=$?
  kill "${burners[@]}" 2> /dev/null
  wait "${burners[@]}" 2> /dev/null
  [ $brc -eq 0 ] || fail "bench beside a busy neighbour exits 0, got $brc: $(grep -Ev '^(device|100%|reference|warning|benchmark) ' "$TMP/loaded.out" | tail -n 8)"
  python3 - "$TMP/loaded.json" <<'PY' || fail "the loaded rows record their CPU pressure"
import json, sys
p = [b.get("cpu_pressure", -1) for b in json.load(open(sys.argv[1]))["benchmarks"]]
assert all(x > 0.3 for x in p), p
PY
  "$BIN" compare "$TMP/quiet.json" "$TMP/loaded.json" > "$TMP/loaded.txt" 2>&1; rc=$?
  [ $rc -ne 1 ] || fail "a busy neighbour's slowdown is never 'slower' (exit 0 or 6), got 1: $(cat "$TMP/loaded.txt")"
  if [ $rc -eq 6 ]; then
    grep -q "ran under CPU load" "$TMP/loaded.txt" || fail "undecided names the load: $(cat "$TMP/loaded.txt")"
  fi
else
  echo "note: no /proc/pressure/cpu here; the busy-neighbour check is left out"
fi

# scatter_bench (Google Benchmark) names its benchmarks as scatterctl does: compare
# matches every one of them.
GB="$(dirname "$BIN")/../bench/scatter_bench"
if [ -x "$GB" ]; then
  "$GB" --mode nd --backend ref --iterations 3 --benchmark_filter='^nd/launch/f32@ref' --benchmark_repetitions=4 \
      --benchmark_format=json --benchmark_out="$TMP/gb.json" > /dev/null 2>&1 || fail "scatter_bench runs"
  "$BIN" bench --backend ref --mode nd --filter 'nd/launch/f32' --max-seconds 0.05 --json "$TMP/sc.json" > /dev/null 2>&1 \
      || fail "bench runs"
  python3 - "$TMP/sc.json" "$TMP/gb.json" <<'PY' || fail "scatter_bench's raw names carry its suffixes"
import json, sys
sc = {b["name"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
gb = {b["name"] for b in json.load(open(sys.argv[2]))["benchmarks"] if b.get("run_type") == "iteration"}
assert sc == {"nd/launch/f32@ref"}, sc
assert all(n.startswith("nd/launch/f32@ref") for n in gb) and len(gb) == 1, gb
PY
  "$BIN" compare "$TMP/sc.json" "$TMP/gb.json" --threshold 100000% > "$TMP/names.txt" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "scatterctl and scatter_bench reports compare cleanly (exit 0), got $rc: $(cat "$TMP/names.txt")"
  grep -q "0 missing of 1 compared" "$TMP/names.txt" || fail "the one benchmark matched: $(cat "$TMP/names.txt")"
  if grep -qE "(^| )(new|missing)$" "$TMP/names.txt"; then fail "no row is new or missing: $(cat "$TMP/names.txt")"; fi
else
  echo "note: $GB not built; name check skipped"
fi
echo "compare_gate: ok"

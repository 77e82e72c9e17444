#!/usr/bin/env bash
# The regression gate's edges: --threshold needs its unit, a benchmark missing from NEW
# (or nothing in common) fails unless --allow-missing, a busy machine is a warning, and
# scatter_bench's names are scatterctl's.
# Usage: compare_gate.sh SCATTERCTL REPO
set -u
S=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$S" bench --backend ref --mode nd --filter 'nd/launch/*' --filter 'nd/slice_256B/unique/f32' --max-seconds 0.05 \
    --repetitions 2 --min-samples 3 --json "$tmp/base.json" > "$tmp/out.txt" 2> "$tmp/err.txt" || fail "bench exits 0"
python3 - "$tmp/base.json" "$tmp" <<'PY' || fail "bench JSON"
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
PY

# --threshold: a percentage with its unit; a bare number is a usage error that says so.
"$S" compare "$tmp/base.json" "$tmp/base.json" --threshold 5 > /dev/null 2> "$tmp/thr.txt"; rc=$?
[ $rc -eq 2 ] || fail "--threshold 5 is a usage error (2), got $rc"
grep -q "write 5%" "$tmp/thr.txt" || fail "the message says to write 5%: $(cat "$tmp/thr.txt")"
"$S" compare "$tmp/base.json" "$tmp/base.json" --threshold 0.05 > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--threshold 0.05 is a usage error (2), got $rc"
"$S" compare "$tmp/base.json" "$tmp/base.json" --threshold 5% > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || fail "--threshold 5% on one report twice exits 0, got $rc"

# Missing benchmarks and an empty intersection fail the gate, unless allowed.
"$S" compare "$tmp/base.json" "$tmp/one.json" > "$tmp/missing.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a benchmark missing from NEW exits 1, got $rc"
grep -q "missing" "$tmp/missing.txt" || fail "the row says missing"
"$S" compare "$tmp/base.json" "$tmp/one.json" --allow-missing > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || fail "--allow-missing passes, got $rc"
"$S" compare "$tmp/base.json" "$tmp/other.json" > "$tmp/none.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "nothing in common exits 1, got $rc"
grep -q "nothing was compared" "$tmp/none.txt" || fail "says nothing was compared"

# A report taken on a busy machine: compare warns.
"$S" compare "$tmp/base.json" "$tmp/busy.json" > /dev/null 2> "$tmp/busy.txt"
grep -q "NEW was measured on a busy machine" "$tmp/busy.txt" || fail "compare warns about the busy machine"

# scatter_bench (Google Benchmark) names its benchmarks as scatterctl does: compare
# matches every one of them.
GB="$(dirname "$S")/../bench/scatter_bench"
if [ -x "$GB" ]; then
  "$GB" --mode nd --backend ref --iterations 3 --benchmark_filter='^nd/launch/f32@ref' --benchmark_repetitions=4 \
      --benchmark_format=json --benchmark_out="$tmp/gb.json" > /dev/null 2>&1 || fail "scatter_bench runs"
  "$S" bench --backend ref --mode nd --filter 'nd/launch/f32' --max-seconds 0.05 --json "$tmp/sc.json" > /dev/null 2>&1 \
      || fail "bench runs"
  python3 - "$tmp/sc.json" "$tmp/gb.json" <<'PY' || fail "scatter_bench's raw names carry its suffixes"
import json, sys
sc = {b["name"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
gb = {b["name"] for b in json.load(open(sys.argv[2]))["benchmarks"] if b.get("run_type") == "iteration"}
assert sc == {"nd/launch/f32@ref"}, sc
assert all(n.startswith("nd/launch/f32@ref") for n in gb) and len(gb) == 1, gb
PY
  "$S" compare "$tmp/sc.json" "$tmp/gb.json" --threshold 100000% > "$tmp/names.txt" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "scatterctl and scatter_bench reports compare cleanly (exit 0), got $rc: $(cat "$tmp/names.txt")"
  grep -q "0 missing of 1 compared" "$tmp/names.txt" || fail "the one benchmark matched: $(cat "$tmp/names.txt")"
  if grep -qE "(^| )(new|missing)$" "$tmp/names.txt"; then fail "no row is new or missing: $(cat "$tmp/names.txt")"; fi
else
  echo "note: $GB not built; name check skipped"
fi
echo "compare_gate: ok"

#!/usr/bin/env bash
# `scatterctl bench` writes a report `compare` reads; compare exits 1 on a regression.
# Usage: bench.sh SCATTERCTL REPO
set -u
S=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$S" bench --backend ref --mode nd --filter 'nd/launch/*' --filter 'nd/slice_256B/unique/f32' --max-seconds 0.05 \
    --json "$tmp/base.json" --markdown "$tmp/base.md" > "$tmp/out.txt" || fail "bench exits 0"
grep -q "nd/launch/f32" "$tmp/out.txt" || fail "the table names the benchmark"
grep -q "% of copy" "$tmp/out.txt" || fail "the table has % of copy"
grep -q "| nd/slice_256B/unique/f32 | ref |" "$tmp/base.md" || fail "markdown row"
python3 - "$tmp/base.json" "$tmp/slow.json" <<'PY' || fail "bench JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
names = [b["name"] for b in doc["benchmarks"]]
assert names == ["nd/launch/f32@ref", "nd/slice_256B/unique/f32@ref"], names
for b in doc["benchmarks"]:
    # The defaults give the test enough: 3 rounds of 5 samples at least.
    assert b["time_unit"] == "us" and b["real_time"] > 0 and len(b["samples_us"]) >= 15, b
    assert b["shape"].startswith("float32 data ["), b
    assert b["copy_line"] == "working set", b
    assert b["bytes"] > 0 and b["gb_per_s"] > 0 and 0 < b["percent_of_copy"], b
assert doc["context"]["copy_bandwidth_gbps"] > 0 and doc["context"]["device"]
# The same report three times slower: a regression.
for b in doc["benchmarks"]:
    b["samples_us"] = [s * 3 for s in b["samples_us"]]
    b["real_time"] *= 3
json.dump(doc, open(sys.argv[2], "w"))
PY
"$S" compare "$tmp/base.json" "$tmp/base.json" > "$tmp/same.txt"; rc=$?
[ $rc -eq 0 ] || fail "a report compared with itself exits 0, got $rc"
"$S" compare "$tmp/base.json" "$tmp/slow.json" --markdown "$tmp/cmp.md" > "$tmp/slow.txt"; rc=$?
[ $rc -eq 1 ] || fail "3x slower exits 1, got $rc"
grep -q "slower" "$tmp/slow.txt" || fail "the verdict says slower"
grep -q "geometric mean" "$tmp/slow.txt" || fail "the geometric mean is printed"
grep -q "gate passed" "$tmp/same.txt" || fail "a report compared with itself passes the gate"
grep -q "gate FAILED" "$tmp/slow.txt" || fail "3x slower fails the gate"
"$S" compare "$tmp/base.json" "$tmp/nothere.json" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "a missing report is a usage error (2), got $rc"
echo "bench: ok"

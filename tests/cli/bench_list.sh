#!/usr/bin/env bash
# `scatterctl bench --list` prints the suite that `bench` would run, runs nothing, and
# names each benchmark as bench's reports do.
# Usage: bench_list.sh SCATTERCTL REPO
set -u
S=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The table: one line per benchmark with op, dtype, shapes and bytes, then the count.
"$S" bench --list --mode nd > "$tmp/nd.txt" || fail "bench --list exits 0"
grep -Eq "^nd/launch/f32 +scatter_nd +none +float32 +data \[64\] indices int64 \[4, 1\] updates \[4\] +moves [0-9]+ B$" \
    "$tmp/nd.txt" || fail "the table names op, dtype, shapes and bytes"
tail -n 1 "$tmp/nd.txt" | grep -q "^scatterctl: [0-9]* benchmarks selected (mode nd, size small), none run$" \
    || fail "the last line counts the benchmarks"

# JSON on stdout and to a file; the counts follow --mode.
for mode in nd elements update workload all; do
  "$S" bench --list --mode "$mode" --json - > "$tmp/$mode.json" || fail "bench --list --json - exits 0 ($mode)"
done
"$S" bench --list --mode update --json "$tmp/sub/update.json" > /dev/null || fail "bench --list --json FILE exits 0"
cmp -s "$tmp/update.json" "$tmp/sub/update.json" || fail "--json FILE holds what --json - prints"
python3 - "$tmp" <<'PY' || fail "bench --list JSON"
import json, sys
d = sys.argv[1]
modes = ("nd", "elements", "update", "workload")
lists = {m: json.load(open(f"{d}/{m}.json")) for m in modes + ("all",)}
names = {m: [b["name"] for b in doc["suite"]] for m, doc in lists.items()}
for m in modes:
    assert names[m] and all(n.startswith(m + "/") for n in names[m]), (m, names[m])
assert names["all"] == sum((names[m] for m in modes), []), "all is nd, elements, update and workload"
assert len(set(len(names[m]) for m in modes)) == 4, "the counts differ by mode"
assert len(names["workload"]) >= 12, "at least 12 workload benchmarks"
launch = next(b for b in lists["nd"]["suite"] if b["name"] == "nd/launch/f32")
assert launch["op"] == "scatter_nd" and launch["reduction"] == "none" and launch["dtype"] == "float32", launch
assert launch["shapes"] == {"data": [64], "indices": [4, 1], "updates": [4]}, launch
# The byte model (docs/benchmarks.md): 4 int64 indices, 4 unique float updates, the 32-byte
# sectors of data they hit (1 to 4), and 2 x the 256 bytes of data out of place.
assert launch["bytes_indices"] == 32 and launch["bytes_updates"] == 16 and launch["bytes_copy"] == 512, launch
assert launch["bytes_writes"] in (32, 64, 96, 128), launch
assert launch["bytes"] == 32 + 16 + launch["bytes_writes"] + 512, launch
assert all(isinstance(b["bytes"], int) and b["bytes"] > 0 for b in lists["all"]["suite"]), "small: every case has bytes"
assert lists["nd"]["mode"] == "nd" and lists["nd"]["size"] == "small", lists["nd"]
PY

# The same selection, run: bench's report names each listed benchmark "name@backend".
filters=(--filter 'nd/launch/*' --filter 'update/launch/*')
"$S" bench --list "${filters[@]}" --json "$tmp/few.json" > /dev/null || fail "bench --list with filters exits 0"
"$S" bench --backend ref "${filters[@]}" --max-seconds 0.01 --repetitions 1 --min-samples 1 --no-verify \
    --json "$tmp/run.json" > /dev/null 2>&1 || fail "bench of the same filters exits 0"
python3 - "$tmp/few.json" "$tmp/run.json" <<'PY' || fail "listed names are the report's names"
import json, sys
listed = [b["name"] for b in json.load(open(sys.argv[1]))["suite"]]
ran = [b["name"] for b in json.load(open(sys.argv[2]))["benchmarks"]]
assert listed == ["nd/launch/f32", "update/launch/f32"], listed
assert ran == [n + "@ref" for n in listed], (listed, ran)
PY

# --shard splits the built-in suite too: three parts, disjoint, that cover it.
"$S" bench --list --mode all --json "$tmp/whole.json" > /dev/null || fail "bench --list --mode all exits 0"
for i in 1 2 3; do
  "$S" bench --list --mode all --shard "$i/3" --json "$tmp/part$i.json" > /dev/null || fail "bench --list --shard $i/3 exits 0"
done
python3 - "$tmp" <<'PY' || fail "the parts of the built-in suite are disjoint and cover it"
import json, sys
names = lambda f: [b["name"] for b in json.load(open(f"{sys.argv[1]}/{f}.json"))["suite"]]
whole, parts = names("whole"), [names(f"part{i}") for i in (1, 2, 3)]
assert all(0 < len(p) < len(whole) for p in parts), [len(p) for p in parts]
assert sorted(sum(parts, [])) == sorted(whole), "not the whole suite, once"
PY

# Nothing selected: exit 4, no JSON.
"$S" bench --list --filter 'no_such_benchmark*' --json "$tmp/none.json" > "$tmp/none.txt" 2>&1; rc=$?
[ $rc -eq 4 ] || fail "an empty selection exits 4, got $rc"
grep -q "nothing selected" "$tmp/none.txt" || fail "an empty selection says so"
[ ! -e "$tmp/none.json" ] || fail "an empty selection writes no JSON"
echo "bench_list: ok"

#!/usr/bin/env bash
# bench --counter instructions: host backends under valgrind's callgrind, the timed call counted
# and nothing else, every thread of it; the paired and unpaired gates on the counts; the
# backends that cannot be counted, and a machine without valgrind. Skipped (exit 77) after the
# unavailable checks where valgrind is not installed, or the build cannot count (sanitizers).
# Usage: counter.sh SCATTERCTL REPO; the plugins: $SCATTERCTL_EXAMPLE_PLUGIN, and
# $SCATTERCTL_TEST_PLUGINS (the directory of tests/plugins/*.so)
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
SELF=$(realpath "$BIN")
counted=(--counter instructions --repetitions 1 --min-samples 3)

# What cannot be counted says why, and the run exits 5 (a named backend is unavailable).
ctl bench "${counted[@]}" --mode nd --filter nd/launch/f32 --backend cuda
check "cuda cannot be counted (exit 5)" rc_is 5
check "... saying why" err_has "the instruction counter runs host backends only"
# A build that cannot count (no callgrind.h at build time; AddressSanitizer, which valgrind
# cannot run) says so, and the rest is skipped.
ctl bench "${counted[@]}" --mode nd --filter nd/launch/f32 --backend ref
if err_has "this scatterctl (was built without valgrind|is built with AddressSanitizer)"; then
  check "a build that cannot count: exit 5" rc_is 5
  echo "SKIP: $(grep -o 'this scatterctl [^(]*' "$TMP/err" | head -1)"
  [ "$failures" -eq 0 ] && exit 77
  end_checks "counter"
fi
mkdir -p "$TMP/no-valgrind"
PATH="$TMP/no-valgrind" ctl bench "${counted[@]}" --mode nd --filter nd/launch/f32 --backend ref
check "without valgrind on PATH, a counted ref is unavailable (exit 5)" rc_is 5
check "... saying so" err_has "valgrind is not on PATH"
if ! command -v valgrind > /dev/null; then
  echo "SKIP: valgrind is not installed (Debian: apt-get install valgrind); the counts are not checked"
  [ "$failures" -eq 0 ] && exit 77
  end_checks "counter"
fi

# Two cases of one op, the second with 4x the updates: the reference's loop is linear in them.
cat > "$TMP/scale.json" <<'EOF'
{"cases": [
 {"name": "x1", "op": "ScatterElements", "reduction": "add", "inputs": {
   "data": {"dtype": "float32", "shape": [4096], "generate": {"kind": "fill", "value": 0}},
   "indices": {"dtype": "int64", "shape": [2048], "generate": {"kind": "indices", "seed": 1}},
   "updates": {"dtype": "float32", "shape": [2048], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 2}}}},
 {"name": "x4", "op": "ScatterElements", "reduction": "add", "inputs": {
   "data": {"dtype": "float32", "shape": [4096], "generate": {"kind": "fill", "value": 0}},
   "indices": {"dtype": "int64", "shape": [8192], "generate": {"kind": "indices", "seed": 1}},
   "updates": {"dtype": "float32", "shape": [8192], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 2}}}}
]}
EOF

# A/A: two host processes of one build count the same, to the instruction, in every round.
ctl bench "${counted[@]}" "$TMP/scale.json" --backend "base=exe:$SELF:ref,new=ref" --gate base,new --json "$TMP/aa.json"
check "a counted A/A gate passes (exit 0)" rc_is 0
check "... judging the counts exactly" out_has "x4 .* exact +same"
python3 - "$TMP/aa.json" <<'PY' || fail "the counted report: identical counts, only the timed call, linear in the updates"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["context"]["counter"] == "instructions", doc["context"]
rows = {b["name"]: b for b in doc["benchmarks"]}
for name in ("x1", "x4"):
    base, new = rows[name + "@base"], rows[name + "@new"]
    assert base["time_unit"] == "instructions" and base["status"] == "passed", base
    # Round by round, both processes count the same, to the instruction. From round to round a
    # count may move by some hundreds of instructions: memcpy takes other paths for other
    # alignments of the buffers a request allocates (the first round after the warm-up counts
    # about 500 fewer here, 0.3%, since the warm-up reuses the check's inputs), well under the
    # 1% the gate must catch below.
    assert base["rounds"] == new["rounds"] and len(base["rounds"]) == 3, (base, new)
    assert base["samples_instructions"] == new["samples_instructions"], (base, new)
    counts = base["samples_instructions"]
    assert max(counts) - min(counts) <= 0.005 * min(counts), counts
    for event in ("Ir", "D1mr", "DLmr", "Dr", "Dw"):
        assert event in base["events"], base["events"]
x1, x4 = rows["x1@base"]["instructions"], rows["x4@base"]["instructions"]
# Only the region: the copy of 4096 floats and 2048 updates take some 10^4 instructions; the host
# process around them (reading the request, parsing .npy files) runs millions.
assert 2048 < x1 < 200_000, x1
# 4x the updates: between 3x and 4x the instructions (the copy of data is the same in both).
assert 3.0 * (x1 - 0.25 * x1) < x4 < 4.0 * x1, (x1, x4)
PY

# Every thread of a counted call is counted: the threaded test plugin scatters 65536 updates
# on a thread of its own while the calling thread waits. The loop takes at least 4 instructions
# an update; creating and joining the thread, a few thousand.
cat > "$TMP/plain.json" <<'EOF'
{"name": "plain", "op": "ScatterElements", "inputs": {
  "data": {"dtype": "float32", "shape": [65536], "generate": {"kind": "fill", "value": 0}},
  "indices": {"dtype": "int64", "shape": [65536], "generate": {"kind": "indices", "seed": 1}},
  "updates": {"dtype": "float32", "shape": [65536], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 2}}}}
EOF
if [ -f "${SCATTERCTL_TEST_PLUGINS:-}/threaded.so" ]; then
  ctl bench "${counted[@]}" "$TMP/plain.json" --backend "plugin:$SCATTERCTL_TEST_PLUGINS/threaded.so" \
    --json "$TMP/threaded.json"
  check "the threaded plugin is counted (exit 0)" rc_is 0
  python3 - "$TMP/threaded.json" <<'PY' || fail "the plugin's own thread is counted"
import json, sys
count = json.load(open(sys.argv[1]))["benchmarks"][0]["instructions"]
assert count >= 4 * 65536, count
PY
fi

# A 1% increase of the new side's instructions (the op run again for 1% of its count) is caught.
SCATTERCTL_BENCH_SLOWDOWN='new@x4:1.01' ctl bench "${counted[@]}" "$TMP/scale.json" \
  --backend "base=exe:$SELF:ref,new=exe:$SELF:ref" --gate base,new --json "$TMP/ab.json"
check "a counted 1% increase fails the gate (exit 1)" rc_is 1
check "... on the slowed benchmark, 1.010x" out_has "x4 .* 1\.010x .* slower"
check "... and only it" out_has "x1 .* same"
# The unpaired gate on two counted reports: exact too, so the same 1% fails it.
ctl bench "${counted[@]}" "$TMP/scale.json" --backend ref --json "$TMP/base.json"
SCATTERCTL_BENCH_SLOWDOWN='x4:1.01' ctl bench "${counted[@]}" "$TMP/scale.json" --backend ref --json "$TMP/new.json"
ctl compare "$TMP/base.json" "$TMP/new.json"
check "compare of two counted reports catches 1% (exit 1)" rc_is 1
check "... exactly" out_has "x4@ref .* exact +slower"

# A plugin's run() is counted in its plugin-host.
if [ -n "${SCATTERCTL_EXAMPLE_PLUGIN:-}" ]; then
  ctl bench "${counted[@]}" "$TMP/scale.json" --backend "plugin:$SCATTERCTL_EXAMPLE_PLUGIN" --json "$TMP/plugin.json"
  check "a plugin is counted (exit 0)" rc_is 0
  check "... with its instructions" out_has "x4 +plugin:.* [0-9.]+ k"
fi

end_checks "counter"

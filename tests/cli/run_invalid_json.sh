#!/usr/bin/env bash
# A JSON syntax error in one file among good files: exit 3, the error names the file
# and the line and column, and the good cases still run and are counted.
# Usage: bash run_invalid_json.sh /path/to/scatterctl /path/to/repo
set -u
BIN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

check() {  # check WHAT COMMAND...: run COMMAND, fail the script with WHAT if it fails
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what (exit code $rc)"
    echo "--- stdout"; cat "$TMP/out"
    echo "--- stderr"; cat "$TMP/err"
    exit 1
  fi
}
ctl() { "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

mkdir "$TMP/cases"
for name in a_good c_good; do
  cat >"$TMP/cases/$name.json" <<JSON
{"name": "$name", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [1]},
            "updates": {"dtype": "int32", "shape": [1], "values": [9]}},
 "expected": {"dtype": "int32", "shape": [3], "values": [1, 9, 3]}}
JSON
done
# Line 3, column 14 is the stray comma.
printf '{"name": "b_broken",\n  "op": "scatter_nd",\n  "inputs": {,}\n}\n' >"$TMP/cases/b_broken.json"

ctl run --backend ref "$TMP/cases"
check "a file that is not JSON gives exit 3" test "$rc" -eq 3
check "the error names the file" grep -q 'b_broken.json' "$TMP/out" "$TMP/err"
check "the error says json" grep -q '\[json\]' "$TMP/out" "$TMP/err"
check "the error has line and column" grep -q 'line 3, column 14' "$TMP/out" "$TMP/err"
check "the good case before it ran" grep -Eq '^a_good +.*passed' "$TMP/out"
check "the good case after it ran" grep -Eq '^c_good +.*passed' "$TMP/out"
check "the closing line counts both passes and the bad file" \
  bash -c "tail -n 1 '$TMP/out' | grep -qx 'scatterctl: 2 passed, 1 failed, 0 skipped'"

# validate and list see the same broken file.
ctl validate "$TMP/cases"
check "validate: exit 3 for the broken file" test "$rc" -eq 3
check "validate names the file" grep -q 'b_broken.json' "$TMP/out" "$TMP/err"
ctl list "$TMP/cases"
check "list: exit 3 for the broken file" test "$rc" -eq 3
check "list still lists the good cases" grep -q '^a_good ' "$TMP/out"
echo "ok"

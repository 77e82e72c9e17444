#!/usr/bin/env bash
# A JSON syntax error in one file among good files: exit 3, the error names the file
# and the line and column, and the good cases still run and are counted.
# Usage: bash run_invalid_json.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

mkdir "$TMP/cases"
for name in a_good c_good; do one_case "$name" >"$TMP/cases/$name.json"; done
# Line 3, column 14 is the stray comma.
printf '{"name": "b_broken",\n  "op": "scatter_nd",\n  "inputs": {,}\n}\n' >"$TMP/cases/b_broken.json"

ctl run --backend ref "$TMP/cases"
check "a file that is not JSON gives exit 3" rc_is 3
check "the error names the file" grep -q 'b_broken.json' "$TMP/out" "$TMP/err"
check "the error says json" grep -q '\[json\]' "$TMP/out" "$TMP/err"
check "the error has line and column" grep -q 'line 3, column 14' "$TMP/out" "$TMP/err"
check "the good case before it ran" grep -Eq '^a_good +.*passed' "$TMP/out"
check "the good case after it ran" grep -Eq '^c_good +.*passed' "$TMP/out"
check "the closing line counts both passes and the bad file" \
  last_line_is 'scatterctl: 2 passed, 1 failed, 0 skipped'

# validate and list see the same broken file.
ctl validate "$TMP/cases"
check "validate: exit 3 for the broken file" rc_is 3
check "validate names the file" grep -q 'b_broken.json' "$TMP/out" "$TMP/err"
ctl list "$TMP/cases"
check "list: exit 3 for the broken file" rc_is 3
check "list still lists the good cases" grep -q '^a_good ' "$TMP/out"
echo "ok"

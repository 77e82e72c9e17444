#!/usr/bin/env bash
# `validate` (exit 3 for an invalid case, naming file, case, field and values) and
# `list` (names with op, reduction, dtype and shapes).
# Usage: bash validate_and_list.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

mkdir "$TMP/good" "$TMP/bad"
cat >"$TMP/good/cases.json" <<'JSON'
{"cases": [
  {"name": "cli_list_nd", "op": "scatter_nd", "reduction": "add",
   "inputs": {"data": {"dtype": "float32", "shape": [4, 3], "generate": {"kind": "arange"}},
              "indices": {"dtype": "int64", "shape": [2, 1], "values": [[1], [3]]},
              "updates": {"dtype": "float32", "shape": [2, 3], "generate": {"kind": "fill", "value": 1}}}},
  {"name": "cli_list_su", "op": "ScatterUpdate", "axis": 0,
   "inputs": {"data": {"dtype": "int16", "shape": [5], "values": [0, 0, 0, 0, 0]},
              "indices": {"dtype": "int32", "shape": [], "values": 2},
              "updates": {"dtype": "int16", "shape": [], "values": 7}}},
  {"name": "cli_list_expects", "op": "scatter_nd", "expect_error": "shape",
   "inputs": {"data": {"dtype": "float32", "shape": [2], "values": [1, 2]},
              "indices": {"dtype": "int64", "shape": [1, 3], "values": [[0, 0, 0]]},
              "updates": {"dtype": "float32", "shape": [1], "values": [1]}}}
]}
JSON
cat >"$TMP/bad/bad.json" <<'JSON'
{"name": "cli_bad_index", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [4, 2], "values": [[1, 2], [3, 4], [5, 6], [7, 8]]},
            "indices": {"dtype": "int64", "shape": [2, 2], "values": [[0, 1], [7, 0]]},
            "updates": {"dtype": "float32", "shape": [2, 2], "values": [[10, 20], [30, 40]]}}}
JSON

ctl validate "$TMP/good"
check "validate on valid cases exits 0" rc_is 0
check "validate: closing line last" last_line_is 'scatterctl: 3 passed, 0 failed, 0 skipped'

ctl validate "$TMP/bad"
check "validate on an invalid case exits 3" rc_is 3
check "validate names the case" grep -q 'cli_bad_index' "$TMP/out"
check "validate names the field and the values" \
  grep -qF 'inputs.indices[1,0] = 7 is out of range [-4, 3] for data.shape[0] = 4' "$TMP/out"
check "validate names the code" grep -qF '[index]' "$TMP/out"
check "validate: closing line last" last_line_is 'scatterctl: 0 passed, 1 failed, 0 skipped'

ctl validate "$TMP/good" "$TMP/bad"
check "validate: one invalid case among valid ones still exits 3" rc_is 3

ctl run --backend ref "$TMP/bad"
check "run on an invalid case exits 3" rc_is 3

ctl list "$TMP/good"
check "list exits 0" rc_is 0
check "list shows name, op, reduction, dtype and shapes (nd)" \
  grep -Eq '^cli_list_nd +scatter_nd +add +float32 +data \[4, 3\] indices int64 \[2, 1\] updates \[2, 3\]' "$TMP/out"
check "list shows a 0-d indices tensor (update)" \
  grep -Eq '^cli_list_su +scatter_update +none +int16 +data \[5\] indices int32 \[\] updates \[\]' "$TMP/out"
check "list marks the expect_error case" grep -Eq '^cli_list_expects .*expects \[shape\]' "$TMP/out"

ctl list "$TMP/good" --filter 'cli_list_s*'
check "list --filter exits 0" rc_is 0
check "list --filter keeps the match" grep -q '^cli_list_su ' "$TMP/out"
check "list --filter drops the others" out_lacks '^cli_list_nd '

ctl list "$TMP/good" --filter nomatch
check "list with nothing selected exits 4" rc_is 4
echo "ok"

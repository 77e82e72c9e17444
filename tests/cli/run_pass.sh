#!/usr/bin/env bash
# `scatterctl run` on a directory of good cases (one of them an expect_error case):
# exit 0, the closing line last, and no colour codes off a terminal or with NO_COLOR.
# Usage: bash run_pass.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"
last_line_is_clean_closing() { last_line_matches '^scatterctl: [0-9]+ passed, 0 failed, [0-9]+ skipped$'; }
no_escape() { ! grep -q $'\033' "$TMP/out"; }
has_escape() { grep -q $'\033' "$TMP/out"; }

mkdir "$TMP/cases"
{
  echo '{"cases": ['
  rows_case cli_se_none "40, 5, 6"
  echo ','
  cat <<'JSON'
  {"name": "cli_se_add_dup", "op": "scatter_elements", "reduction": "add",
   "inputs": {"data": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]},
              "indices": {"dtype": "int64", "shape": [3], "values": [0, 0, -1]},
              "updates": {"dtype": "float32", "shape": [3], "values": [10, 20, 30]}},
   "expected": {"dtype": "float32", "shape": [3], "values": [31, 2, 33]}}
]}
JSON
} >"$TMP/cases/elements.json"
cat >"$TMP/cases/nd.json" <<'JSON'
{"name": "cli_nd_slice", "op": "ScatterND",
 "inputs": {"data": {"dtype": "int8", "shape": [3, 2], "values": [0, 0, 0, 0, 0, 0]},
            "indices": {"dtype": "int32", "shape": [1, 1], "values": [[1]]},
            "updates": {"dtype": "int8", "shape": [1, 2], "values": [[-1, -2]]}},
 "expected": {"dtype": "int8", "shape": [3, 2], "values": [[0, 0], [-1, -2], [0, 0]]}}
JSON
cat >"$TMP/cases/expect_error.json" <<'JSON'
{"name": "cli_expects_index_error", "op": "scatter_update", "expect_error": "index",
 "inputs": {"data": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [-1]},
            "updates": {"dtype": "float32", "shape": [1], "values": [9]}}}
JSON
echo "not a case file" >"$TMP/cases/README.txt"

# Every good case passes; the closing line is the last line of stdout.
ctl run --backend ref "$TMP/cases"
check "run on good cases exits 0" rc_is 0
check "the last stdout line is the closing line with 0 failed" last_line_is_clean_closing
check "4 cases pass on ref (the expect_error case included)" grep -qx 'scatterctl: 4 passed, 0 failed, 0 skipped' "$TMP/out"
check "the expect_error case is reported as passed" grep -Eq '^cli_expects_index_error +.*passed +rejected as expected \[index\]' "$TMP/out"
check "every case is listed" grep -q '^cli_nd_slice ' "$TMP/out"

# The default backend list, "all", also passes (an unavailable cuda is only skipped).
ctl run "$TMP/cases"
check "run with --backend all exits 0" rc_is 0
check "the last stdout line is the closing line (all backends)" last_line_is_clean_closing

# -q keeps the closing line last and prints no passing rows.
ctl run -q --backend ref "$TMP/cases"
check "run -q exits 0" rc_is 0
check "run -q: closing line last" last_line_is_clean_closing
check "run -q prints no passing row" out_lacks '^cli_se_none'

# No colour off a terminal, or with NO_COLOR; --color always shows that colour exists.
ctl run --backend ref "$TMP/cases"
check "no escape codes when stdout is not a terminal" no_escape
NO_COLOR=1 ctl run --backend ref "$TMP/cases"
check "no escape codes with NO_COLOR" no_escape
ctl run --backend ref --color always "$TMP/cases"
check "--color always paints the status" has_escape
check "--color always keeps the closing line plain" last_line_is_clean_closing

# A single file works as well as a directory.
ctl run --backend ref "$TMP/cases/nd.json"
check "run on one file exits 0" rc_is 0
check "run on one file runs its one case" grep -qx 'scatterctl: 1 passed, 0 failed, 0 skipped' "$TMP/out"
echo "ok"

#!/usr/bin/env bash
# A case whose expected output is wrong: exit 1, and a report naming the coordinate,
# the expected and actual values and the update that targets the element.
# Usage: bash run_failing.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

# axis 1: updates[1,0] = 40 goes to output[1,0]; expected says 41 there.
{
  echo '{"cases": ['
  rows_case cli_wrong_expected "41, 5, 6"
  echo ','
  rows_case cli_right_expected "40, 5, 6"
  echo ']}'
} >"$TMP/wrong.json"

ctl run --backend ref "$TMP/wrong.json"
check "a failing case gives exit 1" rc_is 1
check "the failing case is marked FAILED" grep -Eq '^cli_wrong_expected +scatter_elements +ref +FAILED' "$TMP/out"
check "the report counts the differing elements" grep -q '1 of 6 elements differ' "$TMP/out"
check "the report names the coordinate and both values" grep -q 'output\[1,0\]: expected 41, got 40' "$TMP/out"
check "the report names the update targeting it" grep -q 'targeted by updates\[1,0\]' "$TMP/out"
check "the other case still passes" grep -Eq '^cli_right_expected +.*passed' "$TMP/out"
check "the closing line counts 1 passed, 1 failed" \
  last_line_is 'scatterctl: 1 passed, 1 failed, 0 skipped'

# -q still reports the failure.
ctl run -q --backend ref "$TMP/wrong.json"
check "run -q: exit 1" rc_is 1
check "run -q still shows the coordinate" grep -q 'output\[1,0\]' "$TMP/out"
echo "ok"

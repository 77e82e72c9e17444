#!/usr/bin/env bash
# `scatterctl run` with no path, from the repository root, runs the bundled cases/.
# Usage: bash bundled_cases.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

cd "$REPO" || { echo "FAIL: cannot cd into $REPO"; exit 1; }
unset SCATTERCTL_CASES

# Files outside cases/large hold at least one case each that runs without --include-large.
bundled=$(find cases -name '*.json' -not -path 'cases/large/*' | wc -l)
check "the repository has bundled case files" test "$bundled" -gt 0

ctl run --backend ref -q
check "run with no path from the repo root exits 0" rc_is 0
check "the closing line is last, with 0 failed" \
  last_line_matches '^scatterctl: [0-9]+ passed, 0 failed, [0-9]+ skipped$'
passed=$(last_line | sed -nE 's/^scatterctl: ([0-9]+) passed.*/\1/p')
check "the bundled cases ran (at least one pass per file: $bundled)" \
  test "${passed:-0}" -ge "$bundled"

# The same cases as naming cases/ explicitly.
ctl run --backend ref -q cases
explicit=$(last_line)
ctl run --backend ref -q
check "no path means cases/" last_line_is "$explicit"

# list from the root shows bundled names (the large ones only with --include-large).
ctl list
check "list with no path exits 0" rc_is 0
check "list shows bundled cases with their op" grep -Eq ' (scatter_elements|scatter_nd|scatter_update) ' "$TMP/out"
echo "ok"

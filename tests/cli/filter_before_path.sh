#!/usr/bin/env bash
# Flags may come before the paths: `scatterctl run --filter GLOB PATH` runs PATH's
# cases, not the bundled ones (the path must not be taken as a second glob).
# Usage: bash filter_before_path.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

one_case cli_only_case >"$TMP/one.json"
cd "$TMP" || exit 1  # no cases/ here

ctl run --backend ref --filter 'cli_*' "$TMP/one.json"
check "run --filter GLOB PATH exits 0" rc_is 0
check "run --filter GLOB PATH runs PATH's case" grep -Eq '^cli_only_case +.*passed' "$TMP/out"
check "run --filter GLOB PATH runs only that case" \
  last_line_is 'scatterctl: 1 passed, 0 failed, 0 skipped'

ctl run --backend ref --filter nomatch "$TMP/one.json"
check "run --filter nomatch PATH exits 4" rc_is 4
check "an empty selection says which step removed the cases" \
  out_has "^no case selected: 1 case loaded; --filter 'nomatch' kept 0$"

ctl run --backend ref --tag nosuchtag "$TMP/one.json"
check "run --tag TAG PATH exits 4" rc_is 4
check "an empty selection by tag says so" out_has "^no case selected: 1 case loaded; --tag 'nosuchtag' kept 0$"

ctl run --backend ref --filter 'cli_*' --shard 1/2 "$TMP/one.json"  # the case hashes to part 2
check "a part that holds none of a non-empty selection exits 0 (the other parts run it)" rc_is 0
check "... and says why it ran nothing" \
  out_has "^this part holds no case .*: 1 case loaded; --filter 'cli_\\*' kept 1; --shard 1/2 kept none of 1$"

ctl run --backend ref --filter nomatch --shard 1/2 "$TMP/one.json"
check "a part of an empty selection still exits 4" rc_is 4
echo "ok"

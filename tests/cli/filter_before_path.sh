#!/usr/bin/env bash
# Flags may come before the paths: `scatterctl run --filter GLOB PATH` runs PATH's
# cases, not the bundled ones (the path must not be taken as a second glob).
# Usage: bash filter_before_path.sh /path/to/scatterctl /path/to/repo
set -u
BIN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

check() {  # check WHAT COMMAND...: run COMMAND, fail the script with WHAT if it fails
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what (exit code $rc)"
    echo "--- stdout"; tail -n 20 "$TMP/out"
    echo "--- stderr"; cat "$TMP/err"
    exit 1
  fi
}
ctl() { "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

cat >"$TMP/one.json" <<'JSON'
{"name": "cli_only_case", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [1]},
            "updates": {"dtype": "int32", "shape": [1], "values": [9]}},
 "expected": {"dtype": "int32", "shape": [3], "values": [1, 9, 3]}}
JSON
cd "$TMP" || exit 1  # no cases/ here

ctl run --backend ref --filter 'cli_*' "$TMP/one.json"
check "run --filter GLOB PATH exits 0" test "$rc" -eq 0
check "run --filter GLOB PATH runs PATH's case" grep -Eq '^cli_only_case +.*passed' "$TMP/out"
check "run --filter GLOB PATH runs only that case" \
  bash -c "tail -n 1 '$TMP/out' | grep -qx 'scatterctl: 1 passed, 0 failed, 0 skipped'"

ctl run --backend ref --filter nomatch "$TMP/one.json"
check "run --filter nomatch PATH exits 4" test "$rc" -eq 4

ctl run --backend ref --tag nosuchtag "$TMP/one.json"
check "run --tag TAG PATH exits 4" test "$rc" -eq 4
echo "ok"

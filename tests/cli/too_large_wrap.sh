#!/usr/bin/env bash
# A case whose byte total exceeds 2^64 (three copies of a 6.1e18-byte data tensor) is
# rejected as too_large by every command: exit 3, never a crash.
# Usage: bash too_large_wrap.sh /path/to/scatterctl /path/to/repo
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

cat >"$TMP/huge.json" <<'JSON'
{"name": "cli_huge", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int8", "shape": [6148914691236517206], "generate": {"kind": "fill", "value": 0}},
            "indices": {"dtype": "int64", "shape": [1], "values": [0]},
            "updates": {"dtype": "int8", "shape": [1], "values": [1]}}}
JSON

ctl validate --max-bytes 1G "$TMP/huge.json"
check "validate: exit 3, not a crash" test "$rc" -eq 3
check "validate: the case is too_large" grep -qF '[too_large]' "$TMP/out"

ctl list --max-bytes 1G "$TMP/huge.json"
check "list: marks the case invalid" grep -qE '^cli_huge +invalid' "$TMP/out"

ctl run --backend ref --max-bytes 1G "$TMP/huge.json"
check "run: exit 3" test "$rc" -eq 3
check "run: the case is too_large" grep -qF '[too_large]' "$TMP/out"
echo "ok"

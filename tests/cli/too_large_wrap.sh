#!/usr/bin/env bash
# A case whose byte total exceeds 2^64 (three copies of a 6.1e18-byte data tensor) is
# rejected as too_large by every command: exit 3, never a crash.
# Usage: bash too_large_wrap.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

cat >"$TMP/huge.json" <<'JSON'
{"name": "cli_huge", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int8", "shape": [6148914691236517206], "generate": {"kind": "fill", "value": 0}},
            "indices": {"dtype": "int64", "shape": [1], "values": [0]},
            "updates": {"dtype": "int8", "shape": [1], "values": [1]}}}
JSON

ctl validate --max-bytes 1G "$TMP/huge.json"
check "validate: exit 3, not a crash" rc_is 3
check "validate: the case is too_large" grep -qF '[too_large]' "$TMP/out"

ctl list --max-bytes 1G "$TMP/huge.json"
check "list: marks the case invalid" grep -qE '^cli_huge +invalid' "$TMP/out"

ctl run --backend ref --max-bytes 1G "$TMP/huge.json"
check "run: exit 3" rc_is 3
check "run: the case is too_large" grep -qF '[too_large]' "$TMP/out"
echo "ok"

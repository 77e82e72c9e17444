#!/usr/bin/env bash
# Exit codes 2 (usage), 4 (nothing selected) and 5 (a named backend unavailable).
# Usage: bash usage_and_env.sh /path/to/scatterctl /path/to/repo
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

cat >"$TMP/one.json" <<'JSON'
{"name": "cli_one", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [1]},
            "updates": {"dtype": "int32", "shape": [1], "values": [9]}},
 "expected": {"dtype": "int32", "shape": [3], "values": [1, 9, 3]}}
JSON

ctl run --no-such-flag "$TMP/one.json"
check "an unknown flag gives exit 2" test "$rc" -eq 2
check "the unknown flag is named on stderr" grep -q -- '--no-such-flag' "$TMP/err"

ctl frobnicate
check "an unknown command gives exit 2" test "$rc" -eq 2

ctl run --backend rocm "$TMP/one.json"
check "an unknown backend gives exit 2" test "$rc" -eq 2
check "the unknown backend is named on stderr" grep -q "'rocm' is not a backend" "$TMP/err"

ctl run "$TMP/one.json" --shard 4/3
check "a bad --shard gives exit 2" test "$rc" -eq 2
check "the bad shard is named on stderr" grep -q -- "--shard = '4/3'" "$TMP/err"

ctl run "$TMP/one.json" --color sometimes
check "a bad --color value gives exit 2" test "$rc" -eq 2

ctl run "$TMP/one.json" --filter nomatch
check "--filter that matches nothing gives exit 4" test "$rc" -eq 4
check "nothing selected still ends with the closing line" \
  bash -c "tail -n 1 '$TMP/out' | grep -qx 'scatterctl: 0 passed, 0 failed, 0 skipped'"

ctl run "$TMP/one.json" --filter 'cli_*' --filter '-cli_one'
check "an excluding filter removes the case: exit 4" test "$rc" -eq 4

ctl run "$TMP/one.json" --tag nosuchtag
check "--tag that matches nothing gives exit 4" test "$rc" -eq 4

# cuda named explicitly: exit 5 with the reason, when this build cannot run it.
"$BIN" info >"$TMP/info" 2>&1
if grep -Eq '^ +cuda +unavailable: .+' "$TMP/info"; then
  reason=$(sed -nE 's/^ +cuda +unavailable: (.+)$/\1/p' "$TMP/info")
  ctl run --backend cuda "$TMP/one.json"
  check "--backend cuda without cuda gives exit 5" test "$rc" -eq 5
  check "the reason is on stderr" grep -qF "backend 'cuda' is unavailable: $reason" "$TMP/err"
  check "stdout has no case rows when the environment is wrong" bash -c "! grep -q '^cli_one' '$TMP/out'"
  ctl run --backend ref,cuda "$TMP/one.json"
  check "--backend ref,cuda without cuda gives exit 5" test "$rc" -eq 5
else
  echo "note: cuda is available here; the exit 5 checks do not apply"
fi
echo "ok"

#!/usr/bin/env bash
# Exit codes 2 (usage), 4 (nothing selected) and 5 (a named backend unavailable).
# Usage: bash usage_and_env.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"

one_case cli_one >"$TMP/one.json"

ctl run --no-such-flag "$TMP/one.json"
check "an unknown flag gives exit 2" rc_is 2
check "the unknown flag is named on stderr" grep -q -- '--no-such-flag' "$TMP/err"

# One message per mistake: ours, with the closest flag, not CLI11's as well.
ctl run --colr always "$TMP/one.json"
check "a mistyped flag gives exit 2" rc_is 2
check "a mistyped flag: one line, with the closest flag" \
  test "$(cat "$TMP/err")" = "scatterctl: '--colr' is not a flag of this command; did you mean '--color'?"

# Every enumerated value names the choices and the closest one.
ctl bench --mode ndd --list
check "bench --mode ndd gives exit 2" rc_is 2
check "bench --mode ndd suggests nd" \
  err_has "^--mode: 'ndd' is not one of nd, elements, update, workload, all; did you mean 'nd'\?"

ctl help
check "help names the program in its usage line" out_has '^Usage: scatterctl '

ctl frobnicate
check "an unknown command gives exit 2" rc_is 2

ctl run --backend rocm "$TMP/one.json"
check "an unknown backend gives exit 2" rc_is 2
check "the unknown backend is named on stderr" grep -q "'rocm' is not a backend" "$TMP/err"

ctl run "$TMP/one.json" --shard 4/3
check "a bad --shard gives exit 2" rc_is 2
check "the bad shard is named on stderr" grep -q -- "--shard = '4/3'" "$TMP/err"

ctl run "$TMP/one.json" --color sometimes
check "a bad --color value gives exit 2" rc_is 2
check "a bad --color value names the choices" err_has "^--color: 'sometimes' is not one of auto, always, never"

ctl run "$TMP/one.json" --filter nomatch
check "--filter that matches nothing gives exit 4" rc_is 4
check "nothing selected still ends with the closing line" \
  last_line_is 'scatterctl: 0 passed, 0 failed, 0 skipped'

ctl run "$TMP/one.json" --filter 'cli_*' --filter '-cli_one'
check "an excluding filter removes the case: exit 4" rc_is 4

ctl run "$TMP/one.json" --tag nosuchtag
check "--tag that matches nothing gives exit 4" rc_is 4

# cuda named explicitly: exit 5 with the reason, when this build cannot run it.
"$BIN" info >"$TMP/info" 2>&1
if grep -Eq '^ +cuda +unavailable: .+' "$TMP/info"; then
  reason=$(sed -nE 's/^ +cuda +unavailable: (.+)$/\1/p' "$TMP/info")
  ctl run --backend cuda "$TMP/one.json"
  check "--backend cuda without cuda gives exit 5" rc_is 5
  check "the reason is on stderr" grep -qF "backend 'cuda' is unavailable: $reason" "$TMP/err"
  check "stdout has no case rows when the environment is wrong" out_lacks '^cli_one'
  ctl run --backend ref,cuda "$TMP/one.json"
  check "--backend ref,cuda without cuda gives exit 5" rc_is 5
else
  echo "note: cuda is available here; the exit 5 checks do not apply"
fi
echo "ok"

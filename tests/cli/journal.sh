#!/usr/bin/env bash
# Reports survive whatever ends the run (docs/reliability.md): an --in-process plugin that
# segfaults, aborts, calls exit(), or hangs past --timeout or an interrupt; SIGKILL, after
# which `merge --recover` writes the reports from the journal. Each report then holds the
# finished cases and the case in flight as an error, and the exit code is never 0.
# Usage: journal.sh SCATTERCTL REPO; the plugins: $SCATTERCTL_TEST_PLUGINS (tests/plugins/*.so)
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
PLUGINS=${SCATTERCTL_TEST_PLUGINS:-}
[ -n "$PLUGINS" ] && [ -f "$PLUGINS/crash.so" ] || { echo "FAIL: no test plugins in '\$SCATTERCTL_TEST_PLUGINS' ($PLUGINS)"; exit 1; }
plugin() { echo "plugin:$PLUGINS/$1.so"; }
float_cases "$TMP/cases" 3

# report_holds NAME STATUS: the JSON report has that result for case f1_case.
report_holds() {
  python3 - "$TMP/r/r.json" "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {(r["case"] + "@" + r["backend"].split(":")[0]): r["status"] for r in doc["results"]}
sys.exit(0 if rows.get(sys.argv[2]) == sys.argv[3] else 1)
PY
}
json_summary() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"][sys.argv[2]])' "$TMP/r/r.json" "$1"; }
reports=(--json "$TMP/r/r.json" --junit "$TMP/r/r.xml" --markdown "$TMP/r/r.md")
fresh() { rm -rf "$TMP/r"; mkdir "$TMP/r"; }

# A normal run leaves its reports and no journal.
fresh
ctl run "$TMP/cases" --backend ref,cpu "${reports[@]}"
check "a run that ends normally: exit 0" rc_is 0
check "... leaves no journal" test -z "$(ls "$TMP/r" | grep journal)"

# A crash, an abort and an exit() in process: the reports hold f1 on ref (finished) and f1 on
# the plugin as the error in flight; the journal is gone; the shell sees the signal, or 1.
for pair in "crash|139|killed by signal 11 \(SIGSEGV\)" "aborts|134|killed by signal 6 \(SIGABRT\)" \
  "exits|1|run\(\) of .* called exit\(\) [^,]*"; do
  IFS='|' read -r name code why <<<"$pair"
  fresh
  LIMIT=60 ctl run "$TMP/cases" --backend "ref,$(plugin "$name")" --in-process "${reports[@]}"
  check "$name --in-process: exit $code (was $rc)" rc_is "$code"
  check "... stderr names why and the case in flight" err_has "the run ends here: $why, during case 'f1_case' .* on backend plugin:"
  check "... every report is written" test -s "$TMP/r/r.json" -a -s "$TMP/r/r.xml" -a -s "$TMP/r/r.md"
  check "... the finished case is in it" report_holds f1_case@ref passed
  check "... the case in flight is an error" report_holds f1_case@plugin error
  check "... the JSON says why the run ended early" test -n "$(json_summary ended_early)"
  check "... the JUnit has an ended_early error testcase" grep -q 'name="ended_early"' "$TMP/r/r.xml"
  check "... the Markdown says so" grep -q "The run ended early" "$TMP/r/r.md"
  check "... the journal is removed" test -z "$(ls "$TMP/r" | grep journal)"
done

# A hang past --timeout 2 in process: the watchdog ends the run with 1, the reports written.
fresh
start=$SECONDS
LIMIT=60 ctl run "$TMP/cases" --backend "ref,$(plugin hang)" --in-process --timeout 2 "${reports[@]}"
check "hang --in-process --timeout 2: exit 1 (was $rc)" rc_is 1
check "... within 10 s ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 10
check "... naming the time-out" err_has "ran past the case's --timeout, during case 'f1_case'"
check "... the case in flight is an error" report_holds f1_case@plugin error
check "... the finished case is in the report" report_holds f1_case@ref passed

# A hang that ignores SIGINT and SIGTERM: the run ends 130 a second later, the reports written.
for sig in INT TERM; do
  fresh
  "$BIN" run "$TMP/cases" --backend "ref,$(plugin hang)" --in-process "${reports[@]}" >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  sleep 1.5
  kill -"$sig" "$pid"
  start=$SECONDS
  timeout 20 tail --pid="$pid" -f /dev/null
  wait "$pid"
  rc=$?
  check "hang --in-process, SIG$sig: exit 130 (was $rc)" rc_is 130
  check "... within 5 s" test $((SECONDS - start)) -lt 5
  check "... the JSON says interrupted" test "$(json_summary interrupted)" = True
  check "... the finished case is in the report" report_holds f1_case@ref passed
done

# SIGKILL: nothing can run, the journal stays; the next run names it, merge --recover turns
# it into the reports (exit 1: the run never finished) and removes it.
fresh
"$BIN" run "$TMP/cases" --backend "ref,$(plugin hang)" --in-process "${reports[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
journal="$TMP/r/r.json.journal-$pid"
check "SIGKILL: the journal stays" test -s "$journal"
check "... and no report" test ! -e "$TMP/r/r.json"
ctl run "$TMP/cases/f1.json" --backend ref --json "$TMP/r/r.json"
check "the next run with the same report names the journal" err_has "'$journal' is the journal of a run that never finished"
ctl merge --recover "$journal"
check "merge --recover beside a report of a later run: refused (exit 2), that report kept" rc_is 2
check "... naming the flag" err_has "r.json' is there already: it is left as it is; name where the report goes \(--json PATH\)"
rm "$TMP/r/r.json"
ctl merge --recover "$journal"
check "merge --recover: exit 1 (the run never finished)" rc_is 1
check "... the reports it names are written" test -s "$TMP/r/r.xml" -a -s "$TMP/r/r.md"
check "... holding the finished case" report_holds f1_case@ref passed
check "... and the case in flight as an error" report_holds f1_case@plugin error
check "... saying the process ended without a word" grep -q "ended without a word" "$TMP/r/r.xml"
check "... the journal is removed" test ! -e "$journal"

# A journal cut short in its last line (killed mid-write) still recovers; a broken line in the
# middle is an error naming the line; a file that is no journal, too.
fresh
"$BIN" run "$TMP/cases" --backend "ref,$(plugin hang)" --in-process --json "$TMP/r/r.json" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
journal="$TMP/r/r.json.journal-$pid"
printf '{"result": {"case": "cut' >>"$journal"
ctl merge --recover "$journal" --json "$TMP/r/cut.json"
check "a last line cut short: recovered (exit 1)" rc_is 1
check "... into the report asked for" test -s "$TMP/r/cut.json"
head -c 100 /dev/urandom | base64 >"$TMP/r/not-a-journal"
ctl merge --recover "$TMP/r/not-a-journal"
check "not a journal: exit 3" rc_is 3
check "... naming the file" err_has "'.*not-a-journal' is not a scatterctl journal"
check "... and kept" test -s "$TMP/r/not-a-journal"
printf '{"journal":1,"pid":1}\n' >"$TMP/r/j.journal-1"
ctl merge "$TMP/r/j.journal-1"
check "merge of a journal without --recover: exit 3" rc_is 3
check "... saying to give --recover" err_has "is a run's journal: \`scatterctl merge --recover "

end_checks "journal"

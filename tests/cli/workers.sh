#!/usr/bin/env bash
# Framework workers end to end through the CLI (docs/backends.md, "Framework workers"):
# - the numpy worker passes or skips every bundled case, and fuzzes clean;
# - a fake worker (tests/cli/fake_worker.py, used as --python) that exits at once makes the
#   backend unavailable (exit 5, the reason and its log); one that crashes, answers
#   garbage, writes the wrong shape or never answers costs each case an ERROR naming the
#   problem, and the run goes on to its closing line (after 3 crashes in a row it gives
#   up); one that says it is lost for good (a plugin host whose GPU context is gone) costs
#   the case in flight, and the rest are skipped as unavailable; Ctrl-C while it starts ends
#   the run with 130;
# - expectations: a recorded wrong answer is xfail (exit 0), FAILED with
#   --no-expectations; an entry naming a passing case is XPASS (exit 0; 1 with --strict);
#   a file with an entry missing its citation is refused, naming the file and the entry;
# - the private tensor directory is gone after every run.
# Skipped (exit 77) when the chosen python cannot import numpy: $SCATTERCTL_PYTHON, else
# the project's .venv/bin/python, else python3 (the order scatterctl uses).
# Usage: bash workers.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/external_common.bash"

use_numpy_python

# 1. numpy on the bundled cases, and fuzzing.
ctl run "$REPO/cases" --backend numpy
check "numpy: exit 0" rc_is 0
check "numpy: every case passed or skipped" last_line_matches '^scatterctl: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'
check "numpy: no FAILED, ERROR, xfail or XPASS row" test "$(grep -Ec ' (FAILED|ERROR|xfail|XPASS) ' "$TMP/out")" -eq 0
check "numpy: more than 100 cases ran on it" test "$(rows numpy passed)" -gt 100
ctl fuzz --backend numpy --iterations 200 --out "$TMP/fuzz-failures"
check "fuzz numpy: exit 0" rc_is 0
check "fuzz numpy: 200 cases, no failure" out_has '^fuzz: 200 cases, [0-9]+ runs, 0 failures'

# 2. The fake worker, through a wrapper that stands for the interpreter.
FAKE=$TMP/fake-python
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$PY" "$REPO/tests/cli/fake_worker.py" >"$FAKE"
chmod +x "$FAKE"
fake() {  # fake MODE ARGS...: scatterctl ARGS with the fake worker as numpy
  local mode=$1
  shift
  FAKE_WORKER_MODE=$mode ctl "$@" --backend numpy --python "$FAKE"
}
mkdir "$TMP/cases"
cat >"$TMP/cases/cases.json" <<'JSON'
{"cases": [
 {"name": "w1_changes", "op": "scatter_elements",
  "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [2], "values": [3, 1]},
             "updates": {"dtype": "float32", "shape": [2], "values": [10, 20]}}},
 {"name": "w2_same", "op": "scatter_elements",
  "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [2], "values": [3, 1]},
             "updates": {"dtype": "float32", "shape": [2], "values": [4, 2]}}},
 {"name": "w3_changes", "op": "scatter_nd", "reduction": "add",
  "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
             "indices": {"dtype": "int64", "shape": [1, 1], "values": [[0]]},
             "updates": {"dtype": "int32", "shape": [1], "values": [5]}}},
 {"name": "w4_changes", "op": "scatter_update",
  "inputs": {"data": {"dtype": "float64", "shape": [3], "values": [1, 2, 3]},
             "indices": {"dtype": "int32", "shape": [1], "values": [2]},
             "updates": {"dtype": "float64", "shape": [1], "values": [9]}}}
]}
JSON
cases=$TMP/cases

fake exit run "$cases"
check "worker exits at once: exit 5" rc_is 5
check "worker exits at once: the reason on stderr" err_has "backend 'numpy' is unavailable: the worker \(.*\) exited with status 3"
check "worker exits at once: and its log excerpt" err_has '^fake worker: leaving at once, as asked$'
check "worker exits at once: nothing ran" test ! -s "$TMP/out"

fake segv run "$cases"
check "worker crashes: exit 1" rc_is 1
check "worker crashes: 3 ERROR rows '[crashed] ... signal 11'" \
  test "$(grep -Ec '^w[1-3]_[a-z]+ .* numpy +ERROR +\[crashed\] the numpy worker killed by signal 11' "$TMP/out")" -eq 3
check "worker crashes: then it gives up" out_has '^w4_changes .* numpy +ERROR +\[backend\] numpy gave up after 3 crashes or time-outs in a row'
check "worker crashes: the closing line is printed last" last_line_matches '^scatterctl: 0 passed, 4 failed, 0 skipped$'

fake lost run "$cases"
check "worker lost for good: exit 1" rc_is 1
check "worker lost for good: the case in flight is an ERROR" out_has '^w1_changes .* numpy +ERROR +\[backend\] numpy: a device fault'
check "worker lost for good: the rest are skipped with the reason" \
  out_has "^ +3  numpy: unavailable: the GPU's context was lost \(fake\)$"
check "worker lost for good: the closing line" last_line_matches '^scatterctl: 0 passed, 1 failed, 3 skipped$'

fake garbage run "$cases"
check "worker answers garbage: exit 1" rc_is 1
check "worker answers garbage: 4 ERROR rows naming the protocol" \
  test "$(grep -Ec "^w[1-4]_[a-z]+ .* numpy +ERROR +\[backend\] the numpy worker broke protocol 1: answered a line that is not a JSON object: 'this is not json'" "$TMP/out")" -eq 4
check "worker answers garbage: closing line" last_line_matches '^scatterctl: 0 passed, 4 failed, 0 skipped$'

fake badshape run "$cases"
check "worker writes the wrong shape: exit 1" rc_is 1
check "worker writes the wrong shape: ERROR 'wrote an invalid output' with the shapes" \
  out_has '^w1_changes .* numpy +ERROR +\[backend\] numpy wrote an invalid output: .*has shape \[2\] but the tensor is declared \[4\]'
check "worker writes the wrong shape: every case" test "$(grep -Ec ' numpy +ERROR +\[backend\] numpy wrote an invalid output' "$TMP/out")" -eq 4

# A worker that exits while a child of its own still holds the answer pipe: the exit is seen
# at once, not after the time-out, and the child is ended with it.
start_time=$SECONDS
fake orphan run "$cases" --filter w1_changes --timeout 60
check "worker exits leaving a child on its pipe: exit 1" rc_is 1
check "... the case an ERROR naming the exit" out_has '^w1_changes .* numpy +ERROR +\[crashed\] the numpy worker exited with status 0'
check "... seen in seconds, not after the 60 s time-out ($((SECONDS - start_time)) s)" test $((SECONDS - start_time)) -lt 20
check "... and no child of it is left" test -z "$(pgrep -f '^sleep 120$')"

# The private folder distrusts the worker: links it plants where the next request's tensors
# could go are never written through; a link or a FIFO as its output is refused at once.
printf 'do not overwrite\n' >"$TMP/victim"
FAKE_VICTIM=$TMP/victim fake plant run "$cases" --filter 'w2_*'
check "a worker plants links for the next requests: the run goes on (exit 0)" rc_is 0
check "... and the file they point at is untouched" grep -qx 'do not overwrite' "$TMP/victim"
FAKE_VICTIM=$TMP/outside.npy fake outlink run "$cases" --filter 'w2_*'
check "out.npy a link to a file outside: exit 1" rc_is 1
check "... an ERROR naming the link" out_has '^w2_same .* numpy +ERROR +\[backend\] numpy wrote an invalid output: file: cannot read .*out\.npy.: it is a symbolic link'
LIMIT=60 fake fifo run "$cases" --filter 'w2_*' --timeout 30
check "out.npy a FIFO: exit 1, at once" rc_is 1
check "... an ERROR naming it" out_has 'numpy wrote an invalid output: file: cannot read .*out\.npy.: not a regular file'

# No process outlives the run: a worker's child in a session of its own is ended with it.
marker="scatterctl-test-setsid-$$"
FAKE_MARKER=$marker fake setsid run "$cases" --filter 'w2_*'
check "a worker leaves a setsid() child: the run passes" rc_is 0
sleep 0.2
check "... and the child is ended with the run" test -z "$(pgrep -f -- "$marker")"
pkill -f -- "$marker" 2>/dev/null

# The worker's log keeps its tail past 8 MiB: 12 MiB a request never accumulates.
FAKE_SIDE=$TMP/log-sizes fake spam run "$cases"
check "a worker writing 12 MiB of log a case: the run goes on" out_has '^w2_same .* numpy +passed'
check "... its log never holds more than 8 MiB and a request's worth when a request starts ($(sort -n "$TMP/log-sizes" | tail -1) bytes)" \
  test "$(sort -n "$TMP/log-sizes" | tail -1)" -le $((8 * 1024 * 1024 + 12 * 1000001))
check "... and is trimmed at all (4 requests, $(paste -sd' ' "$TMP/log-sizes"))" test "$(sort -n "$TMP/log-sizes" | tail -1)" -lt $((3 * 12 * 1000001))

# An answer line without end is refused at 1 MiB, not buffered whole.
fake longline run "$cases" --filter w1_changes --timeout 60
check "an endless answer line: exit 1" rc_is 1
check "... a protocol error naming the cap" out_has 'answered more than 1048576 bytes without ending the line'

# Time-outs count towards giving up: a hung worker does not cost the time-out on every case.
fake silent run "$cases" --timeout 1
check "a worker that never answers, 4 cases: 3 time-outs, then it gives up" \
  out_has '^w4_changes .* numpy +ERROR +\[backend\] numpy gave up after 3 crashes or time-outs in a row'
# --timeout bounds the hello too, but never under 10 s (a start loads an interpreter and numpy:
# over a second on a loaded machine, which must not refuse an honest kernel).
start_time=$SECONDS
fake mute run "$cases" --timeout 2
check "a worker that never answers hello, --timeout 2: unavailable (exit 5)" rc_is 5
check "... after 10 s, not 120 s" err_has 'did not answer within 10 s'
check "... in bounded time ($((SECONDS - start_time)) s)" test $((SECONDS - start_time)) -lt 30

fake negtime bench "$cases" --filter w2_same --min-samples 2 --repetitions 1 --max-seconds 0.1
check "worker says its op took -1 s: the benchmark errors (exit 1)" rc_is 1
check "... naming the field and value" out_has "seconds = -1 is not a time of 1 ns or more"

# Every framework unavailable (no interpreter): not a run of nothing that passes.
ctl run "$cases" --backend frameworks --python "$TMP/no-such-python"
check "--backend frameworks where no worker starts: exit 5, not 0" rc_is 5
check "... saying that none can run" err_has "no backend of '--backend frameworks' can run"

fake silent run "$cases" --timeout 1 --filter 'w[12]_*'
check "worker never answers run, --timeout 1: exit 1" rc_is 1
check "worker never answers run: ERROR naming the time-out" \
  test "$(grep -Ec '^w[12]_[a-z]+ .* numpy +ERROR +\[timeout\] the numpy worker did not answer within [0-9.]+ s' "$TMP/out")" -eq 2
check "worker never answers run: the closing line is printed last" last_line_matches '^scatterctl: 0 passed, 2 failed, 0 skipped$'
check "worker never answers run: done in bounded time (${seconds} s)" test "$seconds" -lt 30

# Ctrl-C while the worker is starting (it never answers hello): 130, nothing left behind.
t0=$(date +%s)
FAKE_WORKER_MODE=mute start run "$cases" --backend numpy --python "$FAKE"
for _ in $(seq 100); do
  has_private_dir && break
  sleep 0.05
done
check "SIGINT while the worker starts: the private directory exists meanwhile" has_private_dir
sleep 0.5
kill -INT "$pid"
finish
check "SIGINT while the worker starts: exit 130" rc_is 130
check "SIGINT while the worker starts: the private directory is gone" no_private_dir_left

# Reports list the backends, but start no worker that the run does not use (a mute one
# would hold the run for the 120 s of its hello).
FAKE_WORKER_MODE=mute LIMIT=30 ctl run "$cases" --backend ref --json "$TMP/report.json" --python "$FAKE"
# (These cases have no `expected`: ref alone skips them, so nothing ran: exit 4, not 0.)
check "run --backend ref --json: exit 4 (nothing ran), in bounded time" rc_is 4
check "run --backend ref --json: starts no framework worker (${seconds} s)" test "$seconds" -lt 10
check "run --backend ref --json: the report lists ref and not numpy" \
  sh -c 'grep -q "\"name\": *\"ref\"" "$1" && ! grep -q "\"name\": *\"numpy\"" "$1"' sh "$TMP/report.json"

# 3. Expectations, on a fake numpy that returns data unchanged: wrong on w1, w3, w4.
cat >"$TMP/xfail.json" <<'JSON'
{"backend": "numpy", "about": "tests/cli/workers.sh: a fake worker that returns data unchanged",
 "expectations": [
  {"id": "fake-returns-data", "cases": ["w1_*", "w3_*", "w4_*"], "outcome": "failed",
   "reason": "the fake worker returns data unchanged", "citation": ["tests/cli/fake_worker.py"]}
 ]}
JSON
sed 's/^ \]}$/ , {"id": "names-a-passing-case", "cases": ["w2_same"],\n    "reason": "w2_same updates elements with their own values", "citation": ["tests\/cli\/workers.sh"]}\n ]}/' \
  "$TMP/xfail.json" >"$TMP/xpass.json"
sed 's/, "citation": \[[^]]*\]//' "$TMP/xfail.json" >"$TMP/no_citation.json"

fake identity run "$cases" --expectations "$TMP/xfail.json"
check "xfail: exit 0" rc_is 0
check "xfail: 3 xfail rows naming the entry" \
  test "$(grep -Ec '^w[134]_changes .* numpy +xfail ' "$TMP/out")" -eq 3
check "xfail: the detail names the entry, reason and citation" \
  out_has '^ +xfail \[fake-returns-data\] \(unmodelled: it names its cases\) the fake worker returns data unchanged \(tests/cli/fake_worker\.py\)$'
check "xfail: counted per entry above the closing line" out_has '^ +3  numpy: fake-returns-data$'
check "xfail: counted apart from passed" last_line_matches '^scatterctl: 1 passed, 0 failed, 0 skipped, 3 xfailed$'
check "xfail: its count above the closing line" out_has '^xfail \(known divergences\): 3$'

fake identity run "$cases" --expectations "$TMP/xfail.json" --no-expectations
check "--no-expectations: exit 1" rc_is 1
check "--no-expectations: the wrong answers are FAILED" test "$(grep -Ec '^w[134]_changes .* numpy +FAILED ' "$TMP/out")" -eq 3
check "--no-expectations: closing line" last_line_matches '^scatterctl: 1 passed, 3 failed, 0 skipped$'

fake identity run "$cases" --expectations "$TMP/xpass.json"
check "XPASS: exit 0" rc_is 0
check "XPASS: the passing case named by an entry is XPASS" out_has '^w2_same .* numpy +XPASS '
check "XPASS: counted" out_has '^XPASS \(recorded divergences that passed\): 1$'
check "XPASS: counted apart from passed (and the 3 xfails too)" \
  last_line_matches '^scatterctl: 0 passed, 0 failed, 0 skipped, 3 xfailed, 1 xpassed$'
fake identity run "$cases" --expectations "$TMP/xpass.json" --strict
check "XPASS --strict: exit 1" rc_is 1
check "XPASS --strict: the row says it fails the run" out_has '^ +XPASS \[names-a-passing-case\]: .*\(--strict: a failure\)$'
check "XPASS --strict: counted as failed" last_line_matches '^scatterctl: 0 passed, 1 failed, 0 skipped, 3 xfailed, 1 xpassed$'
fake identity run "$cases" --expectations "$TMP/xpass.json" --strict -q --junit "$TMP/xpass.xml"
check "XPASS --strict -q: exit 1" rc_is 1
check "XPASS --strict -q: the row that fails the run is shown" out_has '^w2_same .* numpy +XPASS '
check "XPASS --strict: a JUnit failure, not a pass" grep -q '<failure message="XPASS \[names-a-passing-case\].*type="xpass"' "$TMP/xpass.xml"
check "XPASS --strict: JUnit counts it" grep -q '<testsuites name="scatterctl" tests="[0-9]*" failures="1"' "$TMP/xpass.xml"

fake identity run "$cases" --expectations "$TMP/no_citation.json"
check "an entry without citation: exit 2 (a bad --expectations value)" rc_is 2
check "an entry without citation: stderr names the file, the entry and the field" \
  err_has "$(re "$TMP/no_citation.json"): expectations\[fake-returns-data\]\.citation: missing key"
check "an entry without citation: nothing ran" test ! -s "$TMP/out"

echo "workers: all checks passed"

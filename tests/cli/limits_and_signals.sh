#!/usr/bin/env bash
# Limits and interrupts end one case or the run cleanly, never in a crash:
# - --max-bytes: a case over it is a `too_large` error of that case before anything is
#   allocated (exit 3, spec "Error codes"), the same case under a larger limit passes,
#   and the default limit (a fraction of physical memory) rejects a case of twice the
#   machine's memory;
# - --timeout: a case over it is an error of that case naming `timeout`; the good case
#   beside it still passes (exit 1: "a case failed or errored", cli.md);
# - SIGTERM and SIGINT in the middle of a run: non-zero exit, the cases that finished
#   are in every report, each report complete (no half-written file, no temporary
#   file left beside it);
# - SIGTERM in the middle of a bench: exit 130, the report holds the rows measured before it.
# Usage: bash limits_and_signals.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
LIMIT=120

# case NAME DATA_TENSOR DTYPE [UPDATE [MORE]]: a scatter_elements case with one update (default 1)
# at index 0; MORE adds members (reduction, expected).
case_json() {
  printf '{"name": "%s", "op": "scatter_elements", "inputs": {"data": %s,
  "indices": {"dtype": "int64", "shape": [1], "values": [0]},
  "updates": {"dtype": "%s", "shape": [1], "values": [%s]}}%s}\n' "$1" "$2" "$3" "${4:-1}" "${5:-}"
}
# With an expected output: ref alone has something to compare with, so the case passes.
GOOD=$(case_json good_neighbour '{"dtype": "int32", "shape": [3], "values": [1, 2, 3]}' int32 1 \
  ', "expected": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]}')

# 1. --max-bytes. 1024 int32 (4 KiB each for data and two outputs): over 1K, under 1M.
dir="$TMP/bytes"
mkdir "$dir"
case_json four_kib '{"dtype": "int32", "shape": [1024], "generate": {"kind": "fill", "value": 7}}' int32 >"$dir/four_kib.json"
printf '%s\n' "$GOOD" >"$dir/good_neighbour.json"
ctl run --backend ref --max-bytes 1K "$dir"
[ "$rc" -eq 3 ] || fail "--max-bytes 1K: exit $rc, want 3"
grep -q 'four_kib.json.*\[too_large\].*--max-bytes is 1024 bytes\|\[too_large\].*four_kib.json.*--max-bytes is 1024 bytes' "$TMP/out" "$TMP/err" ||
  fail "--max-bytes 1K: no [too_large] line naming four_kib.json and the limit"
grep -Eq '^good_neighbour +.*passed' "$TMP/out" || fail "--max-bytes 1K: the good case did not pass"
[ "$(last_line)" = "scatterctl: 1 passed, 1 failed, 0 skipped" ] || fail "--max-bytes 1K: closing line '$(last_line)'"
ctl validate --max-bytes 1K "$dir/four_kib.json"
[ "$rc" -eq 3 ] && grep -q '\[too_large\]' "$TMP/out" || fail "validate --max-bytes 1K: exit $rc, want 3 with [too_large]"
ctl run --backend ref --max-bytes 1M "$dir"
[ "$rc" -eq 0 ] || fail "--max-bytes 1M: exit $rc, want 0"
ctl run --backend ref --max-bytes lots "$dir"
[ "$rc" -eq 2 ] || fail "--max-bytes lots: exit $rc, want 2 (usage)"

# The default: twice the physical memory (int8, so the element count stays far from
# any overflow) must be refused before allocation, not killed by the kernel.
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
if [ -n "$mem_kib" ]; then
  n=$((mem_kib * 1024 * 2))
  case_json twice_ram "{\"dtype\": \"int8\", \"shape\": [$n], \"generate\": {\"kind\": \"fill\", \"value\": 1}}" int8 \
    >"$dir/twice_ram.json"
  ctl run --backend ref "$dir"
  [ "$rc" -eq 3 ] || fail "default --max-bytes, twice the RAM: exit $rc, want 3"
  grep -q '\[too_large\].*twice_ram\|twice_ram.*\[too_large\]' "$TMP/out" "$TMP/err" ||
    fail "default --max-bytes: no [too_large] line for twice_ram"
  grep -Eq '^good_neighbour +.*passed' "$TMP/out" || fail "default --max-bytes: the good case did not pass"
  rm "$dir/twice_ram.json"
fi

# 2. --timeout: 64 Mi uniform draws take far longer than 1 ms anywhere; the generator
# polls the deadline every Mi elements.
dir="$TMP/timeout"
mkdir "$dir"
case_json slow_case '{"dtype": "int8", "shape": [67108864], "generate": {"kind": "uniform", "low": 0, "high": 100}}' int8 \
  >"$dir/slow_case.json"
printf '%s\n' "$GOOD" >"$dir/good_neighbour.json"
start=$(date +%s)
ctl run --backend ref --timeout 0.001 "$dir"
[ "$rc" -eq 1 ] || fail "--timeout: exit $rc, want 1 (a case errored)"
grep -q 'slow_case.*timeout\|timeout.*slow_case' "$TMP/out" || fail "--timeout: no line naming slow_case and the timeout"
grep -Eq '^good_neighbour +.*passed' "$TMP/out" || fail "--timeout: the good case did not pass"
[ "$(last_line)" = "scatterctl: 1 passed, 1 failed, 0 skipped" ] || fail "--timeout: closing line '$(last_line)'"
ctl run --backend ref --timeout 0 "$dir"
[ "$rc" -eq 2 ] || fail "--timeout 0: exit $rc, want 2 (usage)"

# 3. SIGTERM and SIGINT: 200 cases of 2 Mi uniform draws each (seconds in all); the
# signal comes once the first case has passed. Each is max(data, 0) on draws from [0, 1):
# the output is data, so `expected` is the same draw.
dir="$TMP/signals"
mkdir "$dir"
{
  printf '{"cases": [\n'
  for i in $(seq -w 0 199); do
    [ "$i" = 000 ] || printf ',\n'
    draw="{\"dtype\": \"float32\", \"shape\": [2097152], \"generate\": {\"kind\": \"uniform\", \"low\": 0, \"high\": 1, \"seed\": $((10#$i))}}"
    case_json "slow_$i" "$draw" float32 0 ", \"reduction\": \"max\", \"expected\": $draw"
  done
  printf ']}\n'
} >"$dir/many.json"
for sig in TERM INT HUP; do
  rep="$TMP/reports_$sig"
  mkdir "$rep"
  "$BIN" run --backend ref "$dir" --json "$rep/r.json" --junit "$rep/r.xml" --markdown "$rep/r.md" \
    >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  for _ in $(seq 600); do  # up to 60 s for the first case
    grep -q '^slow_000 .*passed' "$TMP/out" && break
    sleep 0.1
  done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  label="SIG$sig"
  if [ "$rc" -eq 0 ]; then
    fail "$label: exit 0 (the run finished before the signal, or ignored it)"
    continue
  fi
  [ "$rc" -lt 128 ] || [ "$rc" -eq 130 ] || fail "$label: exit $rc: killed by the signal instead of stopping cleanly"
  passed=$(grep -c '^slow_[0-9]* .*passed' "$TMP/out")
  [ "$passed" -ge 1 ] && [ "$passed" -lt 200 ] || fail "$label: $passed cases passed, want between 1 and 199"
  [[ $(last_line) =~ ^scatterctl:\ ([0-9]+)\ passed,\ 0\ failed,\ 0\ skipped\ \(interrupted\)$ ]] && [ "${BASH_REMATCH[1]}" -eq "$passed" ] ||
    fail "$label: closing line '$(last_line)' does not count the $passed cases that passed"
  grep -q '^interrupted' "$TMP/out" || fail "$label: the table does not say the run was interrupted"
  leftovers=$(ls "$rep" | grep -v -x -e r.json -e r.xml -e r.md)
  [ -z "$leftovers" ] || fail "$label: files left beside the reports: $leftovers"
  for f in r.json r.xml r.md; do [ -s "$rep/$f" ] || fail "$label: no report $f"; done
  [ "$(grep -c '"status": "passed"' "$rep/r.json")" -eq "$passed" ] || fail "$label: r.json does not hold the $passed passed cases"
  grep -q '"interrupted": true' "$rep/r.json" || fail "$label: r.json does not say interrupted"
  [ "$(tail -n 1 "$rep/r.json")" = "}" ] || fail "$label: r.json is not complete"
  if command -v python3 >/dev/null; then
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$rep/r.json" || fail "$label: r.json is not valid JSON"
    python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$rep/r.xml" || fail "$label: r.xml is not valid XML"
  fi
  # The cases that passed, and one error more that says the run was interrupted.
  [ "$(grep -c '<testcase ' "$rep/r.xml")" -eq $((passed + 1)) ] || fail "$label: r.xml does not hold the $passed cases"
  grep -q '<testcase classname="run" name="interrupted"' "$rep/r.xml" || fail "$label: r.xml does not say interrupted"
  grep -qi 'interrupted' "$rep/r.md" || fail "$label: r.md does not say interrupted"
  echo "$label: stopped after $passed of 200 cases, exit $rc, reports complete"
done

# 4. bench cut short by SIGTERM (a time limit's signal) keeps the rows it measured: once the
# third benchmark has started (--progress says so), the first two are in the report.
rep="$TMP/reports_bench"
mkdir "$rep"
"$BIN" bench "$dir/many.json" --backend ref --repetitions 1 --min-samples 2 --max-seconds 0.05 --progress \
  --json "$rep/b.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 600); do
  grep -q '^\[3/200\] ' "$TMP/err" && break
  sleep 0.1
done
kill -s TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "bench, SIGTERM: exit $rc, want 130"
grep -q 'interrupted: the report holds the [0-9]* rows\? measured before it' "$TMP/err" ||
  fail "bench, SIGTERM: stderr does not say what the report holds: $(tail -n 2 "$TMP/err")"
if command -v python3 >/dev/null; then
  python3 - "$rep/b.json" <<'PY' || fail "bench, SIGTERM: the report is wrong (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["benchmarks"]
measured = [b for b in rows if b.get("status") == "passed"]
assert doc["context"]["interrupted"] is True, "context.interrupted is not true"
assert 2 <= len(measured) < 200, f"{len(measured)} rows measured, want 2 to 199"
assert all(b["iterations"] > 0 for b in measured), "a measured row without samples"
cut = [b for b in rows if b.get("status") != "passed"]
assert all(b.get("error_message") == "interrupted while it was measured" for b in cut), cut
PY
fi
echo "bench, SIGTERM: exit $rc, the report holds the rows measured before the signal"

end_checks

#!/usr/bin/env bash
# Runs spread over machines: four parts of one run, each finding its index in the CI's
# variables (--shard auto), merged into the reports of one unsharded run of the same cases;
# a missing, twice-given or different part fails the merge; fuzz parts cover the stream once.
# Usage: bash shards.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
# Inside a CI parallel job these are set already; the test sets the one it means.
unset CI_NODE_INDEX CI_NODE_TOTAL BUILDKITE_PARALLEL_JOB BUILDKITE_PARALLEL_JOB_COUNT CIRCLE_NODE_INDEX \
  CIRCLE_NODE_TOTAL JOB_COMPLETION_INDEX

# The bundled cases, a failing case and an unreadable file: a pass, failures, skips (cuda on a
# machine without a GPU, or not compiled) and a file error that every part reports.
cat >"$TMP/wrong.json" <<'JSON'
{"name": "cli_shard_wrong_expected", "op": "scatter_elements", "axis": 0,
 "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [1]},
            "updates": {"dtype": "int32", "shape": [1], "values": [9]}},
 "expected": {"dtype": "int32", "shape": [3], "values": [1, 8, 3]}}
JSON
echo '{"cases": [' >"$TMP/broken.json"
inputs=("$REPO/cases" "$TMP/wrong.json" "$TMP/broken.json")

ctl run "${inputs[@]}" --backend ref,cpu --json "$TMP/whole.json"
whole_rc=$rc
check "the unsharded run fails on the bad file (exit 3)" rc_is 3

# GitLab's numbering (from 1); the other systems' are tested in test_run.cpp.
for i in 1 2 3 4; do
  CI_NODE_INDEX=$i CI_NODE_TOTAL=4 ctl run "${inputs[@]}" --backend ref,cpu --shard auto --json "$TMP/part$i.json"
  check "part $i/4 runs (exit 3: it loads the bad file too)" rc_is 3
done

ctl merge "$TMP"/part{1,2,3,4}.json --json "$TMP/merged.json" --junit "$TMP/merged.xml" --markdown "$TMP/merged.md"
check "merge gives the exit code of the whole run" rc_is "$whole_rc"
check "merge ends with the whole run's closing line" last_line_is "$(tail -n 1 <<<"$(
  "$BIN" run "${inputs[@]}" --backend ref,cpu 2>/dev/null)")"
check "merge repeats the failure in its recap" out_has '^  FAILED cli_shard_wrong_expected \[ref\]'
check "merge writes JUnit and Markdown too" test -s "$TMP/merged.xml" -a -s "$TMP/merged.md"

# The same counts, and the same (case, backend, status) rows, as the unsharded run.
same_as_whole() {
  python3 - "$TMP/whole.json" "$TMP/merged.json" <<'PY'
import json, sys
whole, merged = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["passed", "failed", "skipped", "failures", "errors", "invalid", "selected", "xfail", "xpass",
        "skip_reasons", "exit_code", "closing_line"]
bad = [k for k in keys if whole["summary"][k] != merged["summary"][k]]
rows = lambda doc: sorted((r["file"], r["case"], r["backend"], r["status"]) for r in doc["results"])
if rows(whole) != rows(merged): bad.append("results")
if len(whole["file_errors"]) != len(merged["file_errors"]): bad.append("file_errors")
if merged["context"]["selection"]["shard"] != "1/1": bad.append("selection")
print("differs:", bad) if bad else None
sys.exit(1 if bad else 0)
PY
}
check "the merged report counts and lists what the unsharded run did" same_as_whole
check "each part ran some of the cases" \
  python3 -c 'import json,sys; sys.exit(any(json.load(open(p))["summary"]["selected"] == 0 for p in sys.argv[1:]))' \
  "$TMP"/part{1,2,3,4}.json

ctl merge "$TMP"/part{1,2,4}.json --json "$TMP/bad.json"
check "a missing part fails the merge" rc_is 1
check "... naming it" err_has "part 3/4 is missing"
check "... and writes nothing" test ! -e "$TMP/bad.json"

ctl merge "$TMP"/part{1,2,2,3,4}.json
check "a part given twice fails the merge" rc_is 1
check "... naming it and its reports" err_has "part 2/4 is given 2 times"

CI_NODE_INDEX=3 CI_NODE_TOTAL=4 ctl run "${inputs[@]}" --backend ref --shard auto --json "$TMP/other3.json"
ctl merge "$TMP"/part{1,2}.json "$TMP/other3.json" "$TMP/part4.json"
check "a part run on other backends fails the merge" rc_is 1
check "... saying how it differs" err_has "other3.json' ran with backends \[ref\], .* but .* with backends \[cpu, ref\]"

ctl run "${inputs[@]}" --backend ref,cpu --shard 3/5 --json "$TMP/fifth.json"
ctl merge "$TMP"/part{1,2}.json "$TMP/fifth.json" "$TMP/part4.json"
check "a part of another split fails the merge" rc_is 1
check "... naming both splits" err_has "is part 3/5 but .* is part 1/4"

ctl run "${inputs[@]}" --backend ref,cpu --shard 3/4 --filter 'nd*' --json "$TMP/filtered.json"
ctl merge "$TMP"/part{1,2}.json "$TMP/filtered.json" "$TMP/part4.json"
check "a part of another selection fails the merge" rc_is 1
check "... saying which cases and options differ" err_has "filtered.json' selected [0-9]+ cases"

ctl merge "$TMP"/part{1,2,3}.json "$TMP/broken.json"
check "a file that is no report is refused (exit 3)" rc_is 3
check "... naming it" err_has "broken.json' is not valid JSON \(cut short\?\)"

# fuzz: parts I/N of --iterations K are consecutive runs of the stream that cover it once (that
# a part draws its range's very cases: test_fuzz.cpp).
for i in 1 2 3; do "$BIN" fuzz --iterations 10 --backend ref --shard "$i/3" --out "$TMP/fuzz" | head -n 1; done >"$TMP/fuzz.txt"
check "fuzz parts split the stream into consecutive runs that cover it once" \
  diff <(sed -E 's/^fuzz: ([0-9]+) cases \(([0-9]+)\.\.([0-9]+) of 10, part ([0-9])\/3\).*/\2 \3/' "$TMP/fuzz.txt") \
  <(printf '0 3\n4 6\n7 9\n')
end_checks "shards"

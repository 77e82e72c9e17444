#!/usr/bin/env bash
# One run, several sinks: JUnit XML, JSON and Markdown agree with each other and with
# the closing line; the failure bundle's repro.json reproduces the failure; shards
# partition a selection. Usage: reports.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"

cat > "$TMP/mixed.json" <<'JSON'
{"cases": [
 {"name": "passes", "op": "scatter_nd",
  "inputs": {"data": {"dtype": "int32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [1, 1], "values": [[2]]},
             "updates": {"dtype": "int32", "shape": [1], "values": [9]}},
  "expected": {"dtype": "int32", "shape": [4], "values": [1, 2, 9, 4]}},
 {"name": "wrong_expected", "op": "scatter_elements", "reduction": "add",
  "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [3], "values": [1, 1, 3]},
             "updates": {"dtype": "float32", "shape": [3], "values": [10, 20, 30]}},
  "expected": {"dtype": "float32", "shape": [4], "values": [1, 33, 3, 34]}},
 {"name": "bad_index", "op": "scatter_nd",
  "inputs": {"data": {"dtype": "int32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [1, 1], "values": [[7]]},
             "updates": {"dtype": "int32", "shape": [1], "values": [9]}}}
]}
JSON

out=$(NO_COLOR=1 "$BIN" run "$TMP/mixed.json" --backend ref --junit "$TMP/r.xml" --json "$TMP/r.json" \
      --markdown "$TMP/r.md" --save-failures "$TMP/fails")
rc=$?
[ $rc -eq 3 ] || fail "a run with an invalid case exits 3, got $rc"
last=$(printf '%s\n' "$out" | tail -n 1)
[ "$last" = "scatterctl: 1 passed, 2 failed, 0 skipped" ] || fail "closing line: $last"
printf '%s' "$out" | grep -q $'\033' && fail "escape codes in piped output"
grep -q "^## scatterctl: 1 passed, 2 failed, 0 skipped$" "$TMP/r.md" || fail "markdown heading"
grep -q "wrong_expected" "$TMP/r.md" || fail "markdown names the failure"

python3 - "$TMP/r.xml" "$TMP/r.json" <<'PY' || fail "reports disagree"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suite = root.find("testsuite")
cases = suite.findall("testcase")
names = sorted(c.get("name") for c in cases)
assert names == ["bad_index@-", "passes@ref", "wrong_expected@ref"], names
by = {c.get("name"): c for c in cases}
f = by["wrong_expected@ref"].find("failure")
assert f is not None and f.get("type") == "mismatch", "failure element"
assert "output[1]" in f.text and "expected 33" in f.text, f.text
assert by["bad_index@-"].find("error") is not None, "error element"
assert by["passes@ref"].find("failure") is None and by["passes@ref"].find("error") is None
assert by["passes@ref"].get("classname") == "scatter_nd"
assert suite.get("failures") == "1" and suite.get("errors") == "1" and suite.get("tests") == "3", suite.attrib
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
assert props["closing_line"] == "scatterctl: 1 passed, 2 failed, 0 skipped", props
assert "scatterctl.version" in props and "backend.ref" in props

doc = json.load(open(sys.argv[2]))
assert doc["schema_version"] == 1
s = doc["summary"]
assert (s["passed"], s["failed"], s["skipped"], s["exit_code"]) == (1, 2, 0, 3), s
assert s["closing_line"] == "scatterctl: 1 passed, 2 failed, 0 skipped"
res = {r["case"]: r for r in doc["results"]}
w = res["wrong_expected"]["comparison"]
assert w["mismatches"] == 1 and w["worst"][0]["coord"] == [1], w
assert w["worst"][0]["updates"] == [[0], [1]], w["worst"][0]
assert res["bad_index"]["error"]["code"] == "index", res["bad_index"]
assert "ref" in [b["name"] for b in doc["context"]["backends"]]
PY

# The bundle: tensors as .npy and a repro.json that fails the same way on its own.
b="$TMP/fails/wrong_expected@ref"
for f in data indices updates expected actual; do [ -s "$b/$f.npy" ] || fail "bundle lacks $f.npy"; done
rout=$("$BIN" run "$b/repro.json" --backend ref)
rrc=$?
[ $rrc -eq 1 ] || fail "repro.json exits 1 like the original, got $rrc"
printf '%s\n' "$rout" | grep -q "output\[1\]: expected 33, got 32" || fail "repro shows the same mismatch: $rout"

# Shards: 1/3, 2/3 and 3/3 of the bundled cases are disjoint and together are all.
"$BIN" list "$REPO/cases" | grep -v '^scatterctl:' | awk '{print $1}' | sort > "$TMP/all"
: > "$TMP/union"
for i in 1 2 3; do "$BIN" list "$REPO/cases" --shard "$i/3" | grep -v '^scatterctl:' | awk '{print $1}' >> "$TMP/union"; done
sort "$TMP/union" > "$TMP/union.sorted"
[ "$(wc -l < "$TMP/all")" -gt 100 ] || fail "the bundled cases are listed"
cmp -s "$TMP/all" "$TMP/union.sorted" || fail "the shards' union is not exactly the whole selection"
[ -z "$(uniq -d "$TMP/union.sorted")" ] || fail "shards overlap"

# The Markdown report of the bundled cases is a summary: at most 250 lines outside collapsed
# <details> sections, the per-result table among the collapsed ones; the failing run's
# recap ends the terminal output.
NO_COLOR=1 "$BIN" run "$REPO/cases" --backend ref,cpu --markdown "$TMP/all.md" >"$TMP/all.txt" 2>&1
outside=$(awk '/^<details>/ {inside = 1} !inside {n++} /^<\/details>/ {inside = 0} END {print n + 0}' "$TMP/all.md")
[ "$outside" -le 250 ] || fail "the Markdown report of cases/ has $outside lines outside <details> (at most 250)"
grep -q '^<details><summary>[0-9]* results, one a row</summary>$' "$TMP/all.md" || fail "the results table is collapsed"
printf '%s\n' "$out" | grep -q "^short summary of failures and errors:$" || fail "a failing run ends with its recap"
printf '%s\n' "$out" | grep -q "^  FAILED wrong_expected \[ref\]: " || fail "the recap names the failure, its backend and reason"

# Colour only when asked on a pipe, never with NO_COLOR.
"$BIN" run "$TMP/mixed.json" --backend ref --filter passes --color always | grep -q $'\033\[32m' || fail "--color always"
NO_COLOR=1 "$BIN" run "$TMP/mixed.json" --backend ref --filter passes | grep -q $'\033' && fail "NO_COLOR"
echo "reports: ok"

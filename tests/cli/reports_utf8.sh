#!/usr/bin/env bash
# Reports survive any bytes: a Latin-1 byte in a case file or in a file's name, a binary
# *.json among the cases, control characters in a name and a description, invalid UTF-8
# quoted in an error message. Each run writes JSON that parses as UTF-8, JUnit XML that
# parses, and Markdown that is UTF-8; each names the offending file, with the bytes
# escaped (\xNN); an unreadable file or an invalid case is an error, not a failure.
# Usage: reports_utf8.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"

good='"op":"scatter_nd","inputs":{"data":{"dtype":"float32","shape":[1],"values":[1]},"indices":{"dtype":"int64","shape":[1,1],"values":[[0]]},"updates":{"dtype":"float32","shape":[1],"values":[5]}},"expected":{"dtype":"float32","shape":[1],"values":[5]}'

# run NAME WANT_RC PATH...: runs with the three reports into $TMP/NAME.*, checks the
# exit code and that each report exists and parses; leaves the output in $TMP/NAME.out.
run() {
  local name=$1 want=$2
  shift 2
  NO_COLOR=1 "$BIN" run "$@" --backend ref --json "$TMP/$name.json" --junit "$TMP/$name.xml" \
    --markdown "$TMP/$name.md" >"$TMP/$name.out" 2>&1
  local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$TMP/$name.out"; fail "$name: exit $rc, want $want"; }
  for ext in json xml md; do [ -s "$TMP/$name.$ext" ] || fail "$name: no $ext report"; done
  python3 - "$TMP/$name" <<'PY' || fail "$name: a report does not parse"
import json, sys, xml.dom.minidom
base = sys.argv[1]
json.load(open(base + ".json", encoding="utf-8", errors="strict"))
xml.dom.minidom.parse(base + ".xml")
for ext in (".md", ".out"):  # the Markdown, and the table on stdout
    text = open(base + ext, encoding="utf-8", errors="strict").read()
    assert not any(ord(c) < 32 and c not in "\t\n" for c in text), "a control character in " + ext
PY
}

# check_reports NAME PYTHON: asserts about the reports, given doc (the JSON), suite (the JUnit
# testsuite element), xml and md (the texts).
check_reports() {
  python3 - "$TMP/$1" "$2" <<'PY' || fail "$1: reports"
import json, sys, xml.dom.minidom
base, code = sys.argv[1], sys.argv[2]
doc = json.load(open(base + ".json", encoding="utf-8"))
xml_text = open(base + ".xml", encoding="utf-8").read()
suite = xml.dom.minidom.parseString(xml_text).getElementsByTagName("testsuite")[0]
md = open(base + ".md", encoding="utf-8").read()
def testcase(name):
    for t in suite.getElementsByTagName("testcase"):
        if t.getAttribute("name") == name:
            return t
    raise AssertionError("no testcase %r in %s" % (name, xml_text))
exec(code)
PY
}

# 1. The audit's recipe: one Latin-1 byte in a description (a parse error quoting it).
mkdir "$TMP/lat"
printf '{"name":"latin","description":"caf\xe9",%s}\n' "$good" >"$TMP/lat/latin.json"
printf '{"name":"fine",%s}\n' "$good" >"$TMP/lat/fine.json"
run latin 3 "$TMP/lat"
grep -q "latin.json" "$TMP/latin.out" || fail "latin: the table names the file"
check_reports latin '
s = doc["summary"]
assert (s["passed"], s["failed"], s["exit_code"]) == (1, 1, 3), s
assert (s["errors"], s["failures"]) == (1, 0), s
e = doc["file_errors"][0]
assert e["file"].endswith("lat/latin.json") and e["code"] == "json" and e["status"] == "error", e
assert "caf\\xe9" in e["message"], e["message"]
t = testcase(e["file"])
assert t.getElementsByTagName("error") and not t.getElementsByTagName("failure"), t.toxml()
assert "caf\\xe9" in t.getElementsByTagName("error")[0].getAttribute("message")
assert suite.getAttribute("errors") == "1" and suite.getAttribute("failures") == "0", suite.attributes.items()
assert "lat/latin.json" in md and "caf\\xe9" in md, md
assert s["closing_line"] == "scatterctl: 1 passed, 1 failed, 0 skipped", s
'
tail -n 1 "$TMP/latin.out" | grep -qx "scatterctl: 1 passed, 1 failed, 0 skipped" || fail "latin: closing line"

# 2. A Latin-1 byte in a case's name, and in the name of a valid case file.
mkdir "$TMP/names"
printf '{"name":"caf\xe9",%s}\n' "$good" >"$TMP/names/latin_name.json"
printf '{"name":"ok_case",%s}\n' "$good" >"$TMP/names/caf"$'\xe9'".json"
run names 3 "$TMP/names"
check_reports names '
s = doc["summary"]
assert (s["passed"], s["failed"], s["errors"]) == (1, 1, 1), s
assert [e["file"].rsplit("/", 1)[1] for e in doc["file_errors"]] == ["latin_name.json"], doc["file_errors"]
assert "caf\\xe9" in doc["file_errors"][0]["message"]
r = [r for r in doc["results"] if r["case"] == "ok_case"][0]
assert r["file"].endswith("/caf\\xe9.json") and r["status"] == "passed", r
assert testcase("ok_case@ref").getAttribute("file") == r["file"]
assert "ok_case" in md and "latin_name.json" in md, md
'

# 3. A stray binary *.json in a case folder, beside a good case.
mkdir -p "$TMP/bin/sub"
printf '\xff\xfe{}' >"$TMP/bin/sub/binary.json"
printf '{"name":"fine",%s}\n' "$good" >"$TMP/bin/fine.json"
run binary 3 "$TMP/bin"
grep -q "sub/binary.json" "$TMP/binary.out" || fail "binary: the table names the file"
check_reports binary '
s = doc["summary"]
assert (s["passed"], s["failed"], s["errors"], s["failures"]) == (1, 1, 1, 0), s
e = doc["file_errors"][0]
assert e["file"].endswith("bin/sub/binary.json") and e["code"] == "json", e
assert "\\xff" in e["message"], e["message"]
assert testcase(e["file"]).getElementsByTagName("error")
assert "sub/binary.json" in md
'

# 4. Control characters: escaped in a name (schema error), raw in a name and in a
#    description (parse errors quoting them), escaped in a description (a valid case),
#    and in the names of files (one holding a case without a name, which the table
#    shows by its file's name).
mkdir "$TMP/ctl"
printf '{"name":"a\\u0001b",%s}\n' "$good" >"$TMP/ctl/escaped_name.json"
printf '{"name":"a\x01\x1b[31mb",%s}\n' "$good" >"$TMP/ctl/raw_name.json"
printf '{"name":"d","description":"bell\x07\x1b[2J",%s}\n' "$good" >"$TMP/ctl/raw_description.json"
printf '{"name":"fine_desc","description":"tab\\t esc\\u001b[2J del\\u007f nel\\u0085",%s}\n' "$good" >"$TMP/ctl/escaped_description.json"
printf '{"name":"fine_ctl",%s}\n' "$good" >"$TMP/ctl/ctl"$'\x01\x1b'"name.json"
printf '{"op":"scatter_nd"}\n' >"$TMP/ctl/nameless"$'\x1b\xe9'.json
run control 3 "$TMP/ctl"
check_reports control '
s = doc["summary"]
assert (s["passed"], s["failed"], s["exit_code"]) == (2, 4, 3), s
assert (s["errors"], s["failures"]) == (4, 0), s
nameless = [r for r in doc["results"] if r["file"].endswith("/nameless\\x1b\\xe9.json")]
assert nameless and nameless[0]["status"] == "error", [r["file"] for r in doc["results"]]
files = sorted(e["file"].rsplit("/", 1)[1] for e in doc["file_errors"])
assert files == ["raw_description.json", "raw_name.json"], files
bad = [r for r in doc["results"] if r["file"].endswith("escaped_name.json")]
assert bad and bad[0]["status"] == "error" and bad[0]["error"]["code"] == "schema", bad
r = [r for r in doc["results"] if r["case"] == "fine_ctl"][0]
assert r["file"].endswith("/ctl\\x01\\x1bname.json"), r["file"]
assert testcase("fine_ctl@ref").getAttribute("file") == r["file"]
for e in doc["file_errors"]:
    assert testcase(e["file"]).getElementsByTagName("error")
assert "\x1b" not in xml_text and "\x01" not in xml_text and "\x07" not in xml_text
assert "\x1b" not in md and "\x01" not in md
assert "\x1b" not in json.dumps(doc, ensure_ascii=False)
'
grep -q $'\x1b' "$TMP/control.out" && fail "control: a raw escape character in the table"

# 5. Invalid UTF-8 quoted in an error message that is not a parse error: a case whose
#    tensor file is missing, in a folder whose name is Latin-1.
mkdir "$TMP/d"$'\xe9'
printf '{"name":"needs_npy","op":"scatter_nd","inputs":{"data":{"dtype":"float32","shape":[1],"file":"missing.npy"},"indices":{"dtype":"int64","shape":[1,1],"values":[[0]]},"updates":{"dtype":"float32","shape":[1],"values":[5]}}}\n' \
  >"$TMP/d"$'\xe9'"/npy.json"
run npy 3 "$TMP/d"$'\xe9'
check_reports npy '
s = doc["summary"]
assert (s["failed"], s["errors"], s["failures"]) == (1, 1, 0), s
r = doc["results"][0]
assert r["status"] == "error" and r["error"]["code"] == "io", r
assert r["file"].endswith("/d\\xe9/npy.json"), r["file"]
assert "d\\xe9" in r["error"]["message"], r["error"]["message"]
t = testcase("needs_npy@-")
assert t.getAttribute("file") == r["file"] and t.getElementsByTagName("error"), t.toxml()
assert "d\\xe9" in t.getElementsByTagName("error")[0].getAttribute("message")
'
# 6. compare: benchmark names in report files are anybody's text; control characters
# (an escape sequence) escaped in the JSON reach compare's table and Markdown escaped.
python3 - "$TMP" <<'PY'
import json, sys
rows = [{"name": "nd/x\u0001y@ref", "run_type": "iteration", "real_time": t, "time_unit": "ns"} for t in (1.0, 1.1, 0.9)]
rows += [{"name": "esc\u001b[31m@ref", "run_type": "iteration", "real_time": 1.0, "time_unit": "ns"}]
text = json.dumps({"context": {}, "benchmarks": rows})
open(sys.argv[1] + "/base.json", "w").write(text)
open(sys.argv[1] + "/next.json", "w").write(text)
PY
NO_COLOR=1 "$BIN" compare "$TMP/base.json" "$TMP/next.json" --markdown "$TMP/compare.md" >"$TMP/compare.out" 2>&1
python3 - "$TMP" <<'PY' || { cat "$TMP/compare.out"; fail "compare: the table or the Markdown is not printable UTF-8"; }
import sys
for name in ("compare.md", "compare.out"):
    text = open(sys.argv[1] + "/" + name, encoding="utf-8", errors="strict").read()
    assert not any(ord(c) < 32 and c not in "\t\n" for c in text), "a control character in " + name
    assert "nd/x" in text, text
PY

echo "reports_utf8: ok"

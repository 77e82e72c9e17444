#!/usr/bin/env bash
# merge, merge --recover and fuzz trust nothing they read (docs/reliability.md, the findings of the
# second probe): no file deleted or overwritten that scatterctl did not write, no green merge of
# an incomplete run, no crash on bad numbers, shapes or files. Import: import.sh; a kernel that
# spoils the worker's folder: workers.sh.
# Usage: trust_nothing.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"
KEEP_GOING=1

# Three genuine parts of one run.
for i in 1 2 3; do
  "$BIN" run "$REPO/cases/scatter_nd" --backend ref,cpu --threads 1 --shard "$i/3" --json "$TMP/p$i.json" -q \
    >/dev/null 2>&1 || fail "part $i runs"
done
ctl merge "$TMP/p1.json" "$TMP/p2.json" "$TMP/p3.json" --json "$TMP/whole.json" -q
check "three genuine parts merge: exit 0" rc_is 0

# Variants of the parts, made by a few lines of Python.
python3 - "$TMP" <<'PY'
import json, os, sys
t = sys.argv[1]
parts = [json.load(open(f"{t}/p{i}.json")) for i in (1, 2, 3)]
def save(name, doc):
    json.dump(doc, open(f"{t}/{name}.json", "w"))
for i, p in enumerate(parts, 1):
    save(f"empty{i}", dict(p, results=[]))                 # every result removed
save("cut2", dict(parts[1], results=parts[1]["results"][:3]))
save("copied2", dict(parts[1], results=parts[0]["results"]))  # part 1's results as part 2's
save("dup2", dict(parts[1], results=parts[1]["results"] + parts[0]["results"]))
save("null2", dict(parts[1], results=None))
save("obj2", dict(parts[1], results={}))
huge = json.loads(json.dumps(parts[0])); huge["context"]["selection"]["shard_count"] = 2147483647
save("huge", huge)
wrap = json.loads(json.dumps(parts[2])); wrap["context"]["selection"]["shard_index"] = 4294967299
save("wrap3", wrap)
neg = json.loads(json.dumps(parts[1])); neg["summary"]["selected"] = -5
save("neg2", neg)
sec = json.loads(json.dumps(parts[1])); sec["results"][0]["seconds"] = -1e308
save("sec2", sec)
other = json.loads(json.dumps(parts[1])); other["context"]["git_commit"] = "deadbeef"; other["context"]["version"] = "9.9.9"
save("other2", other)
deep = json.dumps(parts[1]).replace('"results": [', '"results": [' + "[" * 100000 + "]" * 100000 + ",", 1)
open(f"{t}/deep2.json", "w").write(deep)
text = json.dumps(parts[1])
open(f"{t}/trunc2.json", "w").write(text[: len(text) // 2])
PY

# 3. A merge is green only when it is one whole run.
for variant in "empty1 empty2 empty3|holds the results of 0 \(its results were removed\?\)" \
  "p1 cut2 p3|says it ran [0-9]+ cases but holds the results of [0-9]+" \
  "p1 copied2 p3|that another result holds too|has results in" \
  "p1 dup2 p3|that another result holds too|has results in" \
  "p1 null2 p3|results: .*= null is not an array of results" \
  "p1 obj2 p3|results: .*= an object of 0 members is not an array of results"; do
  IFS='|' read -r files why <<<"$variant"
  args=()
  for f in $files; do args+=("$TMP/$f.json"); done
  ctl merge "${args[@]}" --json "$TMP/m.json" -q
  check "merge $files: not green (exit $rc)" test "$rc" -ne 0
  check "merge $files: says why" err_has "$why"
done

# 5, 15. Numbers out of range: a part count of 2^31 - 1 is counted, not listed; 4294967299 is not 3.
LIMIT=20 ctl merge "$TMP/huge.json" -q
check "shard_count 2^31-1: no crash (exit $rc)" test "$rc" -eq 1
check "... counts the missing parts and names a few" err_has "2147483646 parts \(2/2147483647, .* and 2147483638 more\) are missing"
check "... in a short message" test "$(wc -c <"$TMP/err")" -lt 2000
for variant in "wrap3|shard_index: .*= 4294967299" "neg2|summary.selected: .*= -5" "sec2|seconds: .*= -1e\+308"; do
  IFS='|' read -r f why <<<"$variant"
  ctl merge "$TMP/p1.json" "$TMP/$f.json" "$TMP/p3.json" -q
  check "$f: exit 3" rc_is 3
  check "$f: names the field" err_has "$why"
done

# 6, 21. An array nested 100,000 deep: refused by depth, no crash, a short message.
ctl merge "$TMP/p1.json" "$TMP/deep2.json" "$TMP/p3.json" -q
check "deep nesting: exit 3" rc_is 3
check "deep nesting: named" err_has "nesting deeper than 64 levels at line 1"
check "deep nesting: a short message" test "$(wc -c <"$TMP/err")" -lt 2000

# 16. A part cut short: says so, with the byte.
ctl merge "$TMP/p1.json" "$TMP/trunc2.json" "$TMP/p3.json" -q
check "a truncated part: exit 3" rc_is 3
check "a truncated part: cut short, at which byte" err_has "is not valid JSON \(cut short\?\): its [0-9]+ bytes end inside a value"

# 14. Parts of another build merge, and the merged report records every build.
ctl merge "$TMP/p1.json" "$TMP/other2.json" "$TMP/p3.json" --json "$TMP/mixed.json" -q
check "parts of two builds: said" err_has "the parts come from more than one build"
check "... and recorded" grep -q '"git_commit": "[^"]*deadbeef' "$TMP/mixed.json"

# 8. A FIFO and /dev/zero are refused at once.
mkfifo "$TMP/fifo"
LIMIT=10 ctl merge "$TMP/fifo" "$TMP/p2.json" -q
check "a FIFO: refused at once (exit $rc)" rc_is 3
check "a FIFO: named" err_has "is not a regular file \(a FIFO\)"
LIMIT=10 ctl merge /dev/zero -q
check "/dev/zero: refused (exit $rc)" rc_is 3
LIMIT=10 ctl merge --recover /dev/zero
check "/dev/zero as a journal: refused (exit $rc)" rc_is 3
LIMIT=10 ctl expectations --check --expectations /dev/zero "$REPO/cases/scatter_nd"
check "/dev/zero as expectations: refused, no crash (exit $rc)" test "$rc" -ne 134 -a "$rc" -ne 0 -a "$rc" -ne 124

# 9, 20. An output that is an input, or two outputs on one path.
cp "$TMP/p1.json" "$TMP/keep1.json"
ctl merge "$TMP/p1.json" "$TMP/p2.json" "$TMP/p3.json" --json "$TMP/p1.json" -q
check "--json over an input part: exit 2" rc_is 2
check "... named" err_has "--json = '.*p1.json' is also an input of this command"
check "... the part kept" cmp -s "$TMP/p1.json" "$TMP/keep1.json"
ctl merge "$TMP/p1.json" "$TMP/p2.json" "$TMP/p3.json" --json "$TMP/w.json" --junit "$TMP/w.json" -q
check "two reports on one path: exit 2" rc_is 2
mkdir -p "$TMP/own_cases"
cp "$REPO/cases/scatter_nd/doc_onnx_scatternd.json" "$TMP/own_cases/"
cp "$TMP/own_cases/doc_onnx_scatternd.json" "$TMP/case.orig"
ctl run "$TMP/own_cases" --backend ref --json "$TMP/own_cases/doc_onnx_scatternd.json"
check "run --json over a case file it reads: exit 2" rc_is 2
check "... the case file kept" cmp -s "$TMP/own_cases/doc_onnx_scatternd.json" "$TMP/case.orig"

# 1, 2, 17. merge --recover: a file that is no journal is never removed; a journal's header does
# not decide where reports go; a journal with no report paths still gets a report.
printf 'my api token: abc123' >"$TMP/notes.txt"
printf '\x89\x00\x01binarystuff-without-newline' >"$TMP/blob.bin"
for f in notes.txt blob.bin; do
  cp "$TMP/$f" "$TMP/$f.orig"
  ctl merge --recover "$TMP/$f"
  check "recover $f: exit 3" rc_is 3
  check "recover $f: not a journal" err_has "is not a scatterctl journal"
  check "recover $f: kept as it was" cmp -s "$TMP/$f" "$TMP/$f.orig"
done
# A journal (its results are part 1's) whose header names a victim and another folder.
mkdir -p "$TMP/victim" "$TMP/elsewhere" "$TMP/j"
echo "precious config" >"$TMP/victim/important.conf"
# The journals' run has ended: their process id is past the kernel's largest, so no process can
# have it (4242 once named a kernel thread on a freshly booted machine, and recover rightly left
# the journal alone).
gone=$(($(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 4194304) + 1))
journal() {  # FILE JSON JUNIT MARKDOWN: a journal of part 1's results, its header naming those reports
  GONE_PID=$gone python3 - "$TMP/p1.json" "$@" <<'PY'
import json, os, sys
part = json.load(open(sys.argv[1]))
out, json_path, junit, markdown = sys.argv[2:]
lines = [json.dumps({"journal": 1, "pid": int(os.environ["GONE_PID"]), "context": part["context"],
                     "reports": {"json": json_path, "junit": junit, "markdown": markdown}}, separators=(",", ":"))]
lines += [json.dumps({"result": r}) for r in part["results"]]
lines.append(json.dumps({"end": {"interrupted": False, "stopped_early": False, "selected": len(part["results"])}}))
open(out, "w").write("\n".join(lines) + "\n")
PY
}
journal "$TMP/j/r.json.journal-$gone" "$TMP/victim/important.conf" "$TMP/elsewhere/hidden.xml" "$TMP/elsewhere/hidden.md"
ctl merge --recover "$TMP/j/r.json.journal-$gone"
check "a planted journal: the victim is not overwritten" grep -qx "precious config" "$TMP/victim/important.conf"
check "... nothing written where its header says" test -z "$(ls "$TMP/elsewhere")"
check "... the reports beside the journal" test -s "$TMP/j/r.json" -a -s "$TMP/j/hidden.xml" -a -s "$TMP/j/hidden.md"
check "... the header's paths are shown" err_has "its run asked for the JSON report at '.*victim/important.conf'"
check "... every path written is said" err_has "wrote '.*j/hidden.xml'"
check "... the journal is removed" test ! -e "$TMP/j/r.json.journal-$gone"
journal "$TMP/j/k.journal-$gone" "" "" ""
ctl merge --recover "$TMP/j/k.journal-$gone" --json "$TMP/j/k.journal-$gone"
check "recover --json over the journal: exit 2" rc_is 2
check "... the journal kept" test -s "$TMP/j/k.journal-$gone"
ctl merge --recover "$TMP/j/k.journal-$gone"
check "a journal that names no report: a JSON report beside it" test -s "$TMP/j/k"
echo "not a report" >"$TMP/j/own.json"
journal "$TMP/j/own.json.journal-$gone" "$TMP/j/own.json" "" ""
ctl merge --recover "$TMP/j/own.json.journal-$gone"
check "a default path holding a file scatterctl did not write: exit 2" rc_is 2
check "... the file kept" grep -qx "not a report" "$TMP/j/own.json"
check "... the journal kept" test -s "$TMP/j/own.json.journal-$gone"
# 7. A mistyped end record: a named error, no abort.
for end in '{"end":{"interrupted":"yes"}}' '{"end":5}' '{"ended_early":{"why":"x","kind":7}}' \
  '{"ended_early":[1,2]}' '{"end":{"warnings":{"a":"b"}}}'; do
  journal "$TMP/j/t.journal-$gone" "" "" ""
  echo "$end" >>"$TMP/j/t.journal-$gone"
  ctl merge --recover "$TMP/j/t.journal-$gone" --json "$TMP/j/t.json"
  check "journal line $end: exit 3, no abort (exit $rc)" rc_is 3
  check "... names the line" err_has "t.journal-$gone line [0-9]+"
done

# A second probe's attacks (2026-11-28): links planted at the names a report's temporary file and
# the folder's write probe had (the writer's PID), a part that says it stopped early, a journal
# that ended with cases missing, a journal whose run still runs.
echo precious >"$TMP/victim/g.txt"
echo precious >"$TMP/victim/h.txt"
mkdir -p "$TMP/planted"
sh -c 'ln -s "$1/victim/g.txt" "$1/planted/whole.json.tmp.$$"; ln -s "$1/victim/h.txt" "$1/planted/.scatterctl-probe-$$";
       exec "$2" merge "$1/p1.json" "$1/p2.json" "$1/p3.json" --json "$1/planted/whole.json" -q' _ "$TMP" "$BIN" \
  >/dev/null 2>&1
check "links at the writer's old temporary names: nothing written through them" grep -qx precious "$TMP/victim/g.txt"
check "... nor truncated" grep -qx precious "$TMP/victim/h.txt"
check "... the report written" test -f "$TMP/planted/whole.json" -a ! -L "$TMP/planted/whole.json"
python3 - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
p2 = json.load(open(f"{t}/p2.json"))
p2["summary"]["stopped_early"] = True
p2["results"] = []
json.dump(p2, open(f"{t}/stop2.json", "w"))
PY
ctl merge "$TMP/p1.json" "$TMP/stop2.json" "$TMP/p3.json" -q
check "a part that says it stopped early, holding no failure: not green (exit $rc)" test "$rc" -ne 0
journal "$TMP/j/short.journal-$gone" "" "" ""
python3 - "$TMP/j/short.journal-$gone" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
lines.insert(1, json.dumps({"start": {"case": "x", "index": 1, "total": 1000}}))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
ctl merge --recover "$TMP/j/short.journal-$gone" --json "$TMP/j/short.json"
check "a journal that ended with cases missing: not green (exit $rc)" test "$rc" -ne 0
check "... saying how many it holds" out_has "the journal holds the results of [0-9]+ of the 1000 cases"
sleep 30 &
alive=$!
journal "$TMP/j/alive.journal-$alive" "" "" ""
sed -i "s/\"pid\": *$gone\b/\"pid\":$alive/" "$TMP/j/alive.journal-$alive"
ctl merge --recover "$TMP/j/alive.journal-$alive" --json "$TMP/j/alive.json"
kill "$alive" 2>/dev/null
check "a journal whose run still runs: refused (exit 2)" rc_is 2
check "... and kept" test -s "$TMP/j/alive.journal-$alive"

# 11. fuzz compares nothing: exit 4, as run and bench.
printf 'def scatter(op, data, indices, updates, **kw):\n    raise NotImplementedError("nothing")\n' >"$TMP/noimpl.py"
ctl fuzz --iterations 0 --seed 1 --backend ref,cpu --out "$TMP/fo"
check "fuzz --iterations 0: exit 4" rc_is 4
ctl fuzz --iterations 5 --seed 1 --shard 2147483647/2147483647 --backend ref,cpu --out "$TMP/fo"
check "fuzz, an empty part: exit 4" rc_is 4
end_checks "trust_nothing"

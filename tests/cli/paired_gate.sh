#!/usr/bin/env bash
# Two versions in one run: --backend LABEL=SPEC, exe:PATH:NAME (this binary's backend-host),
# bench --gate and compare REPORT --base --new, and the errors of each.
# Usage: paired_gate.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
SELF=$(realpath "$BIN")
quick=(--mode nd --filter nd/launch/f32 --max-seconds 0.05 --min-samples 4)

# Two labelled instances, one of them another executable's built-in backend.
ctl bench "${quick[@]}" --backend "base=exe:$SELF:cpu,new=cpu" --json "$TMP/ab.json"
check "bench --backend base=exe:PATH:cpu,new=cpu exits 0" rc_is 0
check "rows are named by label" out_has "nd/launch/f32 +base"
python3 - "$TMP/ab.json" <<'PY' || fail "the report records the specs, rounds and blocks"
import json, sys
doc = json.load(open(sys.argv[1]))
specs = doc["context"]["backend_specs"]
assert specs["base"].startswith("exe:") and specs["base"].endswith(":cpu"), specs
assert specs["new"] == "cpu", specs
rows = {b["name"]: b for b in doc["benchmarks"]}
base, new = rows["nd/launch/f32@base"], rows["nd/launch/f32@new"]
assert base["status"] == "passed" and base["verified"], base
assert len(base["rounds"]) == len(base["samples_us"]) == len(base["blocks"]), base
assert base["rounds"] == new["rounds"], (base["rounds"], new["rounds"])
PY

# The paired verdict on that report; a label it does not hold is a usage error.
ctl compare "$TMP/ab.json" --base base --new new --json "$TMP/verdict.json"
check "compare REPORT --base --new answers 0, 1 or 6" [ "$rc" -eq 0 -o "$rc" -eq 1 -o "$rc" -eq 6 ]
check "the paired table names the pairs and blocks" out_has "pairs/blk"
ctl compare "$TMP/ab.json" --base old --new new
check "an unknown label exits 2" rc_is 2
check "... naming it" err_has "'old': the report has no benchmark named case@old"
ctl compare "$TMP/ab.json"
check "one report without --base/--new exits 2" rc_is 2

# A real 3x slowdown of the new side is caught by the gate (exit 1). The 20% threshold keeps
# the unslowed benchmark's false-alarm chance (a few percent a row at 5%, measured) out of CI.
SCATTERCTL_BENCH_SLOWDOWN='new@nd/launch/f32:3' ctl bench "${quick[@]}" --filter nd/doc_60B_slices/f32 \
  --backend "base=exe:$SELF:ref,new=exe:$SELF:ref" --gate base,new --gate-budget 60 --threshold 20%
check "bench --gate catches a 3x slowdown (exit 1)" rc_is 1
check "... naming the slowed benchmark" out_has "nd/launch/f32 .* slower"
check "... and only it" out_lacks "nd/doc_60B_slices/f32 .* slower"

# Malformed lists.
ctl bench "${quick[@]}" --backend "a=cpu,a=ref"
check "a label used twice exits 2" rc_is 2
check "... saying why" err_has "the label 'a' is used twice"
ctl bench "${quick[@]}" --backend "x=bogus"
check "an unknown spec exits 2" rc_is 2
check "... listing the forms" err_has "exe:PATH:NAME or FRAMEWORK@PYTHON"
ctl bench "${quick[@]}" --backend "x=exe:$TMP/no-such-scatterctl:cpu"
check "an exe: that cannot start is unavailable (exit 5)" rc_is 5
ctl bench "${quick[@]}" --backend "x=exe:$SELF:numpy"
check "exe: serves built-in backends only (exit 2)" rc_is 2
ctl bench "${quick[@]}" --backend "base=cpu,new=ref" --gate base,old
check "--gate with a label not in the run exits 2" rc_is 2
SCATTERCTL_BENCH_SLOWDOWN='nd/launch/f32:0.5' ctl bench "${quick[@]}" --backend ref
check "a slowdown factor under 1 exits 2" rc_is 2
check "... naming the entry" err_has "entry 'nd/launch/f32:0.5'"

end_checks "paired gate"

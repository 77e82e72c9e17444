#!/usr/bin/env bash
# The attack corpus (docs/backends.md, "Judging a kernel you do not trust"): one kernel per class of
# the red team's attacks on bench's judge, each refused with its cause named, beside an honest
# kernel of each kind (Python, C plugin, exe:) that is timed. The kernels are
# tests/judge_attacks/*.py and tests/plugins/{computes_in_supports,deferred}.cpp.
#
# On a loaded machine (ctest runs tests side by side) scatterctl's clock cannot tell a lying timer
# from late wake-ups: a row that lies about its time is then "undecided: noisy", never timed; the
# checks accept either.
# Usage: bash judge_attacks.sh /path/to/scatterctl /path/to/repo (numpy in the chosen python, else
# skipped; the plugins in $SCATTERCTL_TEST_PLUGINS).
source "$(dirname "$0")/external_common.bash"

use_numpy_python
PLUGINS=${SCATTERCTL_TEST_PLUGINS:-}
EXAMPLE_PLUGIN=${SCATTERCTL_EXAMPLE_PLUGIN:-}
[ -f "$PLUGINS/deferred.so" ] && [ -f "$EXAMPLE_PLUGIN" ] || { echo "FAIL: no test plugins in '$PLUGINS'"; exit 1; }
A=$REPO/tests/judge_attacks
NUMPY=python:$REPO/examples/python-kernel/numpy_kernel.py

# One case of 2^18 elements and 2^16 updates, rank 1, float32 (what the test plugins take): a call
# takes a millisecond or more.
cat >"$TMP/timed.json" <<'JSON'
{"name": "timed_elements", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [262144], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 1}},
            "indices": {"dtype": "int64", "shape": [65536], "generate": {"kind": "indices", "seed": 2}},
            "updates": {"dtype": "float32", "shape": [65536], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}}}}
JSON
# The contention row's kind: every element takes many updates (add), so that no element is free
# to vary but the updates themselves.
cat >"$TMP/contended.json" <<'JSON'
{"name": "contended", "op": "scatter_elements", "reduction": "add",
 "inputs": {"data": {"dtype": "float32", "shape": [64], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 1}},
            "indices": {"dtype": "int64", "shape": [65536], "generate": {"kind": "randint", "low": 0, "high": 64, "seed": 2}},
            "updates": {"dtype": "float32", "shape": [65536], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}}}}
JSON

# bench_on CASE NAME BACKENDS [ARGS...]: one short bench, its report in $TMP/NAME.json.
bench_on() {
  local case=$1 name=$2 backends=$3
  shift 3
  ctl bench "$TMP/$case.json" --backend "$backends" --max-seconds 0.2 --min-samples 6 --repetitions 1 \
    --json "$TMP/$name.json" "$@"
}
# row NAME LABEL: "STATUS|VERDICT|VARIED|MESSAGE" of the report's row whose backend holds LABEL.
row() {
  "$PY" - "$TMP/$1.json" "$2" <<'PY'
import json, sys
rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if sys.argv[2] in b["backend"]]
b = rows[0] if rows else {}
print("|".join([b.get("status", "none"), b.get("verdict", ""), b.get("varied", ""),
                b.get("error_message", b.get("verdict_reason", ""))]))
PY
}
# row_has NAME LABEL TEXT: the row's fields hold TEXT (an extended regular expression).
row_has() { row "$1" "$2" | grep -Eq "$3"; }
# refused NAME LABEL CAUSE: the row FAILED or ERROR, its message matching CAUSE.
refused() { row "$1" "$2" | grep -Eq "^(FAILED|ERROR)\|.*\|.*\|.*$3"; }
# timed NAME LABEL: the row passed with a number: every check held ("timed"), or, on a loaded
# machine, its clocks' check could not be told from the load ("undecided: noisy"): never FAILED
# or ERROR, which is the promise to an honest kernel.
timed() { row "$1" "$2" | grep -Eq '^passed\|(timed|undecided: noisy)\|'; }
# refused_or_noisy NAME LABEL CAUSE: refused for CAUSE, or (under load) its number undecided.
refused_or_noisy() { refused "$1" "$2" "$3" || row "$1" "$2" | grep -Eq '^passed\|undecided: noisy\|'; }

# 1. Python kernels that rewrite the box's own loop or game the calls, each beside NumPy. A kernel
# that skips its work may be refused by physics before its output is (which check speaks first
# depends on the machine's load): either refusal, each with its cause, is the class refused.
PHYSICS="faster than memory can move its bytes"
bench_on timed forge "python:$A/forge_done.py,$NUMPY"
check "L1 forged answer (work left on a thread): refused, its output unfinished" \
  refused forge forge_done "another output|differ|$PHYSICS"
check "honest NumPy kernel beside it: timed" timed forge numpy_kernel
bench_on timed clock "python:$A/clock_after_work.py,$NUMPY"
check "L2 a clock that stops before the work: refused by scatterctl's clock (or undecided under load)" \
  refused_or_noisy clock clock_after_work "disagrees with scatterctl's clock|faster than memory"
bench_on timed audits "python:$A/stale_between_audits.py,$NUMPY"
check "L4/N7 right only on the calls it guesses are judged: refused, every call is" \
  refused audits stale_between_audits "timed call [0-9]+ returned another output|$PHYSICS"
bench_on timed memo "python:$A/memo_by_shape.py,$NUMPY"
check "N6 memo that never reads its inputs again: refused at the first timed call" \
  refused memo memo_by_shape "timed call 1 returned another output|$PHYSICS"
check "N6: its indices are varied too" row_has memo memo_by_shape "swapped in the indices"
bench_on contended memo-contended "python:$A/memo_by_shape.py,$NUMPY"
check "L5 memo on a case whose every element takes many updates: varied there too, and refused" \
  refused memo-contended memo_by_shape "timed call 1 returned another output|$PHYSICS"
check "L5: its updates are varied" row_has memo-contended memo_by_shape "of elements that take several"
bench_on timed thread "python:$A/precompute_thread.py,$NUMPY"
# Under load its thread may not have caught up even with the first (untimed) call: then that call's
# output is wrong, a refusal all the same.
check "N5 work on another core before go: the box is frozen, the inputs change meanwhile: refused" \
  refused thread precompute_thread "timed call [0-9]+ returned another output|elements differ|$PHYSICS"
bench_on timed lazy "python:$A/lazy_output.py,$NUMPY"
check "N4 an output computed when read: refused by its exact type" \
  refused lazy lazy_output "not an array of kind 'numpy' \(its exact type"

# 2. What the box's process cannot reach.
bench_on timed parent "python:$A/reads_parent.py"
check "P the judge's memory and environment: refused to the kernel" \
  row_has parent reads_parent "mem: refused \(Permission denied\); environ: refused \(Permission denied\)"
bench_on timed escape "python:$A/escape_process.py,cpu"
check "N9 a process of its own (sabotage): not even started (seccomp)" \
  row_has escape escape_process "its burner was refused: .*Operation not permitted"
check "N9: cpu beside it timed" timed escape cpu
# Without seccomp and without a cgroup, the burner's own session leaves the box's group: found,
# the row refused, the burner killed.
SCATTERCTL_BOX=-seccomp,-cgroup bench_on timed escaped "python:$A/escape_process.py,cpu"
check "N9 without seccomp or a cgroup: the row is refused, the process named" \
  refused escaped escape_process "left the box"
# Started from a timed call, the burner runs beside cpu's samples until it is found: cpu's number
# is marked undecided.
SCATTERCTL_BOX=-seccomp,-cgroup bench_on timed escaped-later "python:$A/escape_later.py,cpu"
check "N9 later: the row that started it is refused" refused escaped-later escape_later "left the box"
check "N9 later: cpu, sampled beside the burner, has its number marked undecided" \
  row_has escaped-later cpu "^passed\|undecided: noisy\|.*left a box"
sleep 0.2
check "N9: no burner is left running" test -z "$(pgrep -f 'end = time.time\(\) \+ 30' || true)"

# 3. C plugins, in the box (the default) and in scatterctl's process, beside the example plugin.
for mode in "" --in-process; do
  bench_on timed "supports$mode" "plugin:$PLUGINS/computes_in_supports.so,plugin:$EXAMPLE_PLUGIN" $mode
  check "N1 work in supports()${mode:+ $mode}: it gets no buffers, its output is refused" \
    refused "supports$mode" computes_in_supports "differ"
  check "the example plugin beside it${mode:+ $mode}: timed" timed "supports$mode" libscatter_example_plugin
done
bench_on timed deferred "plugin:$PLUGINS/deferred.so,plugin:$EXAMPLE_PLUGIN"
check "N2 work left running after run() returns: frozen at its answer, refused" \
  refused deferred deferred.so "differ|another output"

# 4. exe: is judged as a kernel, whatever its hello says. A fake "build" that runs the clock-
# patching kernel in the box's runtime and says it serves a built-in backend.
cat >"$TMP/fake-build" <<SH
#!/usr/bin/env bash
# box-host builtin NAME: the box's runtime, with a kernel that lies about its clock
export PYTHONPATH=$REPO/lib/python
exec "$PY" -u -m scatterctl_box "python:$A/clock_after_work.py"
SH
chmod +x "$TMP/fake-build"
bench_on timed fake "fake=exe:$TMP/fake-build:cpu,cpu"
check "N3 an exe: is varied and judged as a kernel" row_has fake fake "changed a call"
check "N3 a fake exe: its clock refused (or undecided under load)" \
  refused_or_noisy fake fake "disagrees with scatterctl's clock|faster than memory"
# A program that speaks only the old protocol (another build's backend-host, under any name)
# cannot be boxed: unavailable, naming --trust-exe.
cat >"$TMP/old-build" <<SH
#!/usr/bin/env bash
exec "$BIN" backend-host "\$3"
SH
chmod +x "$TMP/old-build"
ctl run "$TMP/timed.json" --backend "old=exe:$TMP/old-build:cpu"
check "an exe: without box-host: unavailable (exit 5)" rc_is 5
# An honest build: this very binary, boxed, timed; and with --trust-exe over protocol 1, not varied.
bench_on timed exe "self=exe:$BIN:cpu"
check "exe: of this build in the box: timed, its inputs varied" timed exe self
check "exe: in the box: varied" row_has exe self "changed a call"
bench_on timed trusted "self=exe:$BIN:cpu" --trust-exe
check "exe: --trust-exe: timed by its own clock, not varied" row_has trusted self '^passed\|timed\|\|'

# 5. Draws no kernel can predict: the same --seed, two runs, two secrets; a report's secret
# replays its run.
ctl bench "$TMP/timed.json" --backend "$NUMPY" --max-seconds 0.05 --min-samples 2 --repetitions 1 --seed 7 \
  --json "$TMP/s1.json"
ctl bench "$TMP/timed.json" --backend "$NUMPY" --max-seconds 0.05 --min-samples 2 --repetitions 1 --seed 7 \
  --json "$TMP/s2.json"
secret() { "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"]["variation_seed"])' "$1"; }
check "two runs of one --seed draw different inputs" test "$(secret "$TMP/s1.json")" != "$(secret "$TMP/s2.json")"
ctl bench "$TMP/timed.json" --backend "$NUMPY" --max-seconds 0.05 --min-samples 2 --repetitions 1 \
  --variation-seed "$(secret "$TMP/s1.json")" --json "$TMP/s3.json"
check "--variation-seed replays a report's draws" test "$(secret "$TMP/s3.json")" = "$(secret "$TMP/s1.json")"
end_checks

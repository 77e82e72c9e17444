#!/usr/bin/env bash
# Plugins end to end through the CLI (docs/backends.md, examples/plugin/README.md):
# - the example plugin on the bundled cases, --in-process and isolated (the default: the
#   hidden `scatterctl plugin-host` over protocol 1): every declared case passes, the others are
#   skipped with the rule they break, expect_error index cases are rejected as expected;
# - each broken test plugin (tests/plugins/) reported as the contract says: a wrong
#   answer FAILED with the element named; a crash (isolated only: in process it ends the
#   run, as documented) and a hang cost one case each and the run goes on; unsupported
#   skipped with its reason; a liar, an input writer and an overrun are ERRORs naming the
#   problem, on invalid cases too; an unloadable plugin named with --backend exits 5;
# - fuzz draws within a plugin's declaration (every case runs on a one-op plugin); ABI 1.0
#   tables still load; device-tensor plugins are unavailable, with the reason, without a GPU;
# - the private tensor directory is gone after every run, after SIGINT in a hang too.
# Usage: bash plugins.sh /path/to/scatterctl /path/to/repo
# The plugins: $SCATTERCTL_TEST_PLUGINS (the directory of tests/plugins/*.so) and
# $SCATTERCTL_EXAMPLE_PLUGIN, both set by tests/CMakeLists.txt.
source "$(dirname "$0")/external_common.bash"

PLUGINS=${SCATTERCTL_TEST_PLUGINS:-}
EXAMPLE=${SCATTERCTL_EXAMPLE_PLUGIN:-}
[ -n "$PLUGINS" ] && [ -f "$PLUGINS/crash.so" ] || { echo "FAIL: no test plugins in '\$SCATTERCTL_TEST_PLUGINS' ($PLUGINS)"; exit 1; }
[ -n "$EXAMPLE" ] && [ -f "$EXAMPLE" ] || { echo "FAIL: no example plugin at '\$SCATTERCTL_EXAMPLE_PLUGIN' ($EXAMPLE)"; exit 1; }
plugin() { echo "plugin:$PLUGINS/$1.so"; }

# 1. The example on the bundled cases, in process, then isolated.
# ($SCATTERCTL_EXAMPLE_CUDA_PLUGIN, its CUDA variant, is set where this build has one: section 6.)
ex="plugin:$EXAMPLE"
for mode in --in-process ""; do
  what="example plugin${mode:+ $mode}"
  ctl run "$REPO/cases" --backend "$ex" $mode
  check "$what: exit 0" rc_is 0
  check "$what: the closing line is last, 0 failed, some skipped" last_line_matches '^scatterctl: [0-9]+ passed, 0 failed, [1-9][0-9]* skipped$'
  check "$what: no FAILED, ERROR or XPASS row" test "$(grep -Ec ' (FAILED|ERROR|XPASS) ' "$TMP/out")" -eq 0
  passed=$(rows "$ex" passed)
  check "$what: more than 100 cases pass on the plugin ($passed)" test "$passed" -gt 100
  # Skips: each under "skipped, by reason:" with the rule, summing to the closing line's count.
  skipped=$(tail -n 1 "$TMP/out" | sed -E 's/.* ([0-9]+) skipped$/\1/')
  sed -n '/^skipped, by reason:$/,/^scatterctl: /p' "$TMP/out" | grep -E '^ +[0-9]+  ' >"$TMP/reasons"
  check "$what: every skip reason is the plugin's 'unsupported: <rule> is not declared'" \
    test "$(grep -Evc "^ +[0-9]+  $(re "$ex"): unsupported: .* is not declared$" "$TMP/reasons")" -eq 0
  check "$what: the reasons count every skipped case ($skipped)" \
    test "$(awk '{n += $1} END {print n + 0}' "$TMP/reasons")" -eq "$skipped"
  for rule in 'use_init_val = false' 'scatter_nd sub' 'scatter_elements mean' 'scatter_elements none on float16'; do
    check "$what: '$rule' is skipped as not declared" grep -q ": unsupported: $rule is not declared$" "$TMP/reasons"
  done
  # expect_error index cases: the loader's row and the plugin's row, both rejected as expected
  # (tensor_scatter's aside: the plugin ABI has no such op, so the plugin skips them).
  grep -E "^[^ ]+ +[^ ]+ +- +passed +rejected as expected \[index\]" "$TMP/out" | awk '$2 != "tensor_scatter" {print $1}' |
    sort >"$TMP/loader"
  grep -E "^[^ ]+ +[^ ]+ +$(re "$(backend_cell "$ex")") +passed +rejected as expected \[index\]" "$TMP/out" | awk '{print $1}' | sort >"$TMP/plugin"
  check "$what: there are expect_error index cases" test -s "$TMP/loader"
  check "$what: the plugin rejects each expect_error index case as expected" cmp -s "$TMP/loader" "$TMP/plugin"
  tail -n 1 "$TMP/out" >"$TMP/closing${mode}"
done
check "isolated (the default) gives the in-process closing line" cmp -s "$TMP/closing--in-process" "$TMP/closing"

# Cases for the test plugins, which declare scatter_elements none on float32 and compute
# it for rank 1: five they accept, an int32 case they do not, and an invalid case.
float_cases "$TMP/cases" 5
cat >"$TMP/cases/i1.json" <<'JSON'
{"name": "i1_int32", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int32", "shape": [1], "values": [0]},
            "updates": {"dtype": "int32", "shape": [1], "values": [5]}}}
JSON
cat >"$TMP/invalid.json" <<'JSON'
{"name": "x1_index_out_of_range", "op": "scatter_elements", "expect_error": "index",
 "inputs": {"data": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [5]},
            "updates": {"dtype": "float32", "shape": [1], "values": [9]}}}
JSON
valid=$TMP/cases

# 2. wrong_answer: output[0] is one too large.
for mode in --in-process ""; do
  what="wrong_answer${mode:+ $mode}"
  p=$(plugin wrong_answer)
  ctl run "$valid" --backend "$p" $mode
  check "$what: exit 1" rc_is 1
  check "$what: 5 FAILED rows" test "$(rows "$p" FAILED)" -eq 5
  check "$what: the report names the differing element" out_has '^ +output\[0\]: expected 1, got 2 '
  check "$what: the int32 case is skipped with the rule" out_has "^i1_int32 .* skipped +unsupported: scatter_elements none on int32 is not declared"
  check "$what: closing line" last_line_matches '^scatterctl: 0 passed, 5 failed, 1 skipped$'
done

# 2b. long_error: a last_error() of 50 MB is the row's message, cut to its first 4 KiB, in the box
# and in process alike (not a protocol error about the answer's length).
for mode in --in-process ""; do
  what="long_error${mode:+ $mode}"
  p=$(plugin long_error)
  ctl run "$valid" --backend "$p" $mode -v
  check "$what: exit 1" rc_is 1
  check "$what: the plugin's words, cut" out_has "the plugin's own words x+ \[cut: last_error\(\) is longer than 4096 bytes\]"
  check "$what: no protocol error" out_lacks "more than 1048576 bytes"
done

# 3. crash, isolated: each case an ERROR with the signal, then the backend gives up; the run
# goes on to the end.
p=$(plugin crash)
ctl run "$valid" --backend "$p" --isolate
check "crash --isolate: exit 1" rc_is 1
check "crash --isolate: 3 ERROR rows '[crashed] ... signal 11'" \
  test "$(grep -Ec "^f[1-3]_case .* ERROR +\[crashed\] .*signal 11" "$TMP/out")" -eq 3
check "crash --isolate: later cases are still reported (gave up after 3 crashes)" \
  test "$(grep -Ec "^f[45]_case .* ERROR +\[backend\] .*gave up after 3 crashes or time-outs in a row" "$TMP/out")" -eq 2
check "crash --isolate: the closing line is printed last" last_line_matches '^scatterctl: 0 passed, 5 failed, 1 skipped$'
ctl run "$TMP/invalid.json" --backend "$p" --isolate
check "crash --isolate on an expect_error case: exit 1" rc_is 1
check "crash --isolate on an expect_error case: a memory-safety finding" \
  out_has "^x1_index_out_of_range .* ERROR +\[crashed\] memory-safety finding: crashed on an invalid case"

# 3b. exits: run() calls exit(0). In process the exit guard ends the run with 1, naming the
# case; isolated (the default) each case is an ERROR and the run goes on.
p=$(plugin exits)
ctl run "$valid" --backend "$p" --in-process
check "exit(0) --in-process: exit 1, never 0" rc_is 1
check "... naming the plugin and the case" err_has "run\(\) of $(re "$p") called exit\(\).*during case 'f[1-5]_case'"
ctl run "$valid" --backend "$p"
check "exit(0) isolated: exit 1" rc_is 1
check "... each case an ERROR, the run to its end" last_line_matches '^scatterctl: 0 passed, 5 failed, 1 skipped$'

# 4. hang, isolated, --timeout 2: each case ERROR naming the time-out, and the run ends.
p=$(plugin hang)
ctl run "$TMP/cases/f1.json" "$TMP/cases/f2.json" --backend "$p" --isolate --timeout 2
check "hang --isolate --timeout 2: exit 1" rc_is 1
check "hang --isolate --timeout 2: 2 ERROR rows naming the time-out" \
  test "$(grep -Ec "^f[12]_case .* ERROR +\[timeout\] .*did not answer within 2 s" "$TMP/out")" -eq 2
check "hang --isolate --timeout 2: the closing line is printed last" last_line_matches '^scatterctl: 0 passed, 2 failed, 0 skipped$'
check "hang --isolate --timeout 2: done in bounded time (${seconds} s)" test "$seconds" -lt 30
check "hang --isolate: no plugin-host process is left" test -z "$(pgrep -f -- "$(re "plugin-host $PLUGINS/hang.so")")"

# 5. unsupported: skipped with the plugin's own reason. Every case skipped on the one backend
# asked for: nothing was tested, and the run says so (exit 4, never 0).
for mode in --in-process ""; do
  what="unsupported${mode:+ $mode}"
  p=$(plugin unsupported)
  ctl run "$valid" --backend "$p" $mode
  check "$what: exit 4 (nothing ran)" rc_is 4
  check "$what: says that nothing ran" out_has "^nothing ran: every case was skipped on every backend"
  check "$what: 5 skips with the plugin's reason" out_has "^ +5  $(re "$p"): unsupported: the unsupported test plugin supports nothing$"
  check "$what: closing line" last_line_matches '^scatterctl: 0 passed, 0 failed, 6 skipped$'
  ctl run "$valid" --backend "ref,$p" $mode
  check "$what beside ref: exit 0 (ref ran them)" rc_is 0
done

# 6. liar, input_writer, overrun: ERROR naming the problem, on valid and invalid cases.
for mode in --in-process ""; do
  for pair in "liar|accepted the case in supports\(\) but run\(\) returned SP_UNSUPPORTED" \
    "overrun|wrote past the end of out"; do
    name=${pair%%|*}
    problem=${pair#*|}
    what="$name${mode:+ $mode}"
    p=$(plugin "$name")
    ctl run "$valid" --backend "$p" $mode
    check "$what: exit 1" rc_is 1
    check "$what: 5 ERROR rows naming the problem" test "$(grep -Ec "^f[1-5]_case .* ERROR +\[backend\] .*$problem" "$TMP/out")" -eq 5
    check "$what: closing line" last_line_matches '^scatterctl: 0 passed, 5 failed, 1 skipped$'
  done
  # Out-of-range indices make the overrun worse: never a refusal, always an ERROR.
  p=$(plugin overrun)
  ctl run "$TMP/invalid.json" --backend "$p" $mode
  check "overrun${mode:+ $mode} on an expect_error case: exit 1" rc_is 1
  check "overrun${mode:+ $mode} on an expect_error case: ERROR, not passed" \
    out_has "^x1_index_out_of_range .* $(re "$(backend_cell "$p")") +ERROR +\[backend\] on an invalid case .*wrote past the end of out"
done

# 6b. input_writer: in scatterctl's process a write into the inputs is found after the call; in
# the box the inputs are mapped read-only, and the write kills the box's process, which its log
# names (then the backend is given up after three such crashes, as for any crash).
p=$(plugin input_writer)
ctl run "$valid" --backend "$p" --in-process
check "input_writer --in-process: 5 ERROR rows naming the write" \
  test "$(grep -Ec "^f[1-5]_case .* ERROR +\[backend\] .*modified its input data" "$TMP/out")" -eq 5
ctl run "$valid" --backend "$p"
check "input_writer in the box: exit 1" rc_is 1
check "input_writer in the box: 3 ERROR rows, killed, the log naming the write into its read-only inputs" \
  test "$(grep -Ec "^f[1-3]_case .* ERROR +\[crashed\] .*signal 11.*" "$TMP/out")" -eq 3
check "input_writer in the box: the reason in the log" out_has "the kernel wrote into its read-only input data"

# 7. Plugins that cannot be loaded, named with --backend: exit 5 and the reason on stderr.
for mode in --in-process ""; do
  for pair in "abi_mismatch|is built for ABI 2\.0, scatterctl speaks 1\." \
    "no_entry|exports no scatter_plugin_get_api" "bad_capabilities|declares invalid capabilities: .*not valid JSON" \
    "null_api|returned NULL" "deep_capabilities|declares invalid capabilities: .*nesting deeper than"; do
    name=${pair%%|*}
    reason=${pair#*|}
    what="$name${mode:+ $mode}"
    ctl run "$valid" --backend "$(plugin "$name")" $mode
    check "$what: exit 5" rc_is 5
    check "$what: stderr names the backend and the reason" err_has "backend '$(re "$(plugin "$name")")' is unavailable: .*$reason"
    check "$what: nothing ran" test ! -s "$TMP/out"
  done
done

# 8. SIGINT while an isolated plugin hangs: exit 130, the finished cases reported, and
# neither the private directory nor the plugin-host process left behind.
p=$(plugin hang)
for input in "$valid" "$TMP/invalid.json"; do
  what="SIGINT in a hang ($(basename "$input"))"
  t0=$(date +%s)
  start run "$input" --backend "$p" --isolate
  for _ in $(seq 100); do
    has_private_dir && pgrep -f -- "$(re "plugin-host $PLUGINS/hang.so")" >/dev/null && break
    sleep 0.05
  done
  check "$what: the private directory exists during the run" has_private_dir
  sleep 0.5
  kill -INT "$pid"
  finish
  check "$what: exit 130" rc_is 130
  check "$what: said so, then the closing line" out_has '^interrupted: the results above are the cases that finished$'
  check "$what: the closing line is last" last_line_matches '^scatterctl: [0-9]+ passed, 0 failed, [0-9]+ skipped \(interrupted\)$'
  check "$what: the private directory is gone" no_private_dir_left
  check "$what: no plugin-host process is left" test -z "$(pgrep -f -- "$(re "plugin-host $PLUGINS/hang.so")")"
done

# 5. fuzz within what a plugin declares: a plugin of one op, one dtype and rank 1 runs every case.
ctl fuzz --backend "$(plugin one_op)" --iterations 500 --out "$TMP/fuzz-one-op"
check "fuzz a one-op plugin: exit 0" rc_is 0
check "fuzz a one-op plugin: all 500 cases ran on it" out_has "^fuzz: $(re "$(plugin one_op)") ran 500 of 500 cases$"
check "fuzz a one-op plugin: nothing unsupported" out_has '^fuzz: 500 cases, 500 runs, 0 failures, 0 xfail, 0 unsupported$'

# 6. Plugin ABI 1.1: a plugin built for 1.0 still runs on host tensors; one that takes device
# tensors (and the CUDA example, where this build has it) is unavailable without a GPU, with the
# reason, or runs where a GPU is.
ctl run "$REPO/cases" --backend "$(plugin abi10)"
check "ABI 1.0 plugin: runs (exit 0)" rc_is 0
check "ABI 1.0 plugin: cases pass on it" test "$(rows "$(plugin abi10)" passed)" -gt 0
for device_plugin in "$(plugin device_tensors)" ${SCATTERCTL_EXAMPLE_CUDA_PLUGIN:+"plugin:$SCATTERCTL_EXAMPLE_CUDA_PLUGIN"}; do
  ctl run "$REPO/cases" --backend "$device_plugin"
  if grep -q "takes its tensors on a GPU" "$TMP/err"; then
    check "device tensors without a GPU: exit 5 (unavailable)" rc_is 5
    check "device tensors without a GPU: says so" err_has "takes its tensors on a GPU \(SP_MEMORY_CUDA\), and there is none here: "
  else
    echo "note: a GPU is here; $device_plugin ran on it (exit $rc)"
  fi
done

# 7. shrink (docs/diagnoses.md): a bundled rank-1 case that wrong_answer fails (4 elements of
# data, 2 updates; the plugin's scatter is rank 1 only) shrinks to a smaller valid case that
# fails on it the same way and passes on ref.
wrong=$(plugin wrong_answer)
ctl shrink "$REPO/cases/scatter_elements/gen_edge.json" --case se_edge_none_noinit --backend "$wrong" --out "$TMP/min.json"
check "shrink: exit 0" rc_is 0
check "shrink: says what it shrank from and to" out_has '^shrink: data \[4\] \(4 elements\), 2 update\(s\) -> data \[[0-9, ]+\]'
check "shrink: the same failure, no cause known" out_has '^shrink: cause: none known'
check "shrink: says where the case went" out_has "^shrink: wrote $(re "$TMP/min.json")$"
ctl validate "$TMP/min.json"
check "shrink: the minimal case is valid" rc_is 0
elements=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(len(c["inputs"]["data"]["values"]))' "$TMP/min.json")
check "shrink: the minimal case is smaller (data of $elements elements)" test "$elements" -lt 4
ctl run "$TMP/min.json" --backend "ref,$wrong" --json "$TMP/min-run.json"
check "shrink: the minimal case fails on the plugin (exit 1)" rc_is 1
check "shrink: ... and passes on ref" test "$(rows ref passed)" -eq 1
check "run: the failure's row says no known bug computes it" out_has '^    cause: none known'
check "run --json: the wrong output's cause is null, the pass has none" python3 -c '
import json, sys
r = {x["backend"]: x for x in json.load(open(sys.argv[1]))["results"]}
assert "cause" in r[sys.argv[2]] and r[sys.argv[2]]["cause"] is None, r[sys.argv[2]]
assert "cause" not in r["ref"], r["ref"]
' "$TMP/min-run.json" "$wrong"
ctl shrink "$REPO/cases/scatter_elements/gen_edge.json" --case se_edge_none_noinit --backend ref --out "$TMP/none.json"
check "shrink a case that passes: exit 4" rc_is 4
check "shrink a case that passes: says so" out_has "does not fail on ref \(passed"
ctl shrink "$REPO/cases/scatter_elements/gen_none.json" --backend "$wrong"
check "shrink a file of several cases without --case: exit 2" rc_is 2

echo "plugins: all checks passed"

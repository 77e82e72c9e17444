#!/usr/bin/env bash
# Python kernels as backends (--backend python:FILE.py[:FUNC], docs/backends.md "Python kernels"):
# - the right NumPy example passes every document example it declares (and skips the rest with
#   the rule), the bundled cases, and fuzzes clean with every case drawn within its CAPABILITIES;
# - a kernel that drops an update fails, and its report calls it a bug, offering no tolerance;
# - one that writes into its input is an ERROR, whether NumPy stops it (read-only) or scatterctl
#   sees it after the call (ctypes);
# - one that dies on one case costs that case only, and so does one that removes the run's
#   private folders (the next request gets a new one);
# - NotImplementedError is unsupported (skipped), IndexError a rejection with code 'index';
# - an import error makes the backend unavailable, naming the file, line and exception, once;
# - bench: kernels that game the timing get no time (exit 1): an output that drifts after the
#   checked call, one memorised under a cheap key, a patched clock, work left on a thread, an output
#   aliased to an input; the right one beside them is timed;
# - ARRAYS = "jax" (where jax imports): 0-d and int64 inputs arrive as they are, and cases pass;
# - python:MODULE:FUNC imports a module from PYTHONPATH;
# - the box is frozen between its calls, in bench and run.
# Skipped (exit 77) when the chosen python cannot import numpy.
# Usage: bash python_kernels.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/external_common.bash"

use_numpy_python
EXAMPLE_FILE=$REPO/examples/python-kernel/numpy_kernel.py
EXAMPLE=python:$EXAMPLE_FILE
K=$REPO/tests/python_kernels

# 1. The right kernel.
ctl run "$REPO/cases" --tag doc --backend "$EXAMPLE"
check "example on the document examples: exit 0" rc_is 0
check "example: ten or more document examples passed" test "$(rows "$EXAMPLE" passed)" -ge 10
check "example: what it does not declare is skipped with the rule" out_has "unsupported: use_init_val = false is not declared"
ctl run "$REPO/cases" --backend "$EXAMPLE"
check "example on every bundled case: exit 0, none failed" last_line_matches '^scatterctl: [1-9][0-9]+ passed, 0 failed, [0-9]+ skipped$'
check "example: out-of-range indices rejected (IndexError) pass" out_has "passed +rejected as expected \[index\]: the kernel raised IndexError"
ctl fuzz --backend "$EXAMPLE" --iterations 200 --out "$TMP/fuzz"
check "fuzz example: exit 0" rc_is 0
check "fuzz example: every case ran on it" out_has "^fuzz: $(re "$EXAMPLE") ran 200 of 200 cases$"
check "fuzz example: no failure, nothing unsupported" out_has '^fuzz: 200 cases, 200 runs, 0 failures, 0 xfail, 0 unsupported$'

# 1b. NumPy's buffered `out[idx] += u` (each target takes one update): fuzz names that cause for
# every failure, shrinks each to at most 8 data elements and 4 updates, and groups them
# (docs/diagnoses.md).
sed 's/_UFUNC\[reduction\].at(out, where, updates)/out[where] = _UFUNC[reduction](out[where], updates)/' \
  "$REPO/examples/python-kernel/numpy_kernel.py" >"$TMP/buffered.py"
check "the buffered kernel differs from the example" test -n "$(diff "$TMP/buffered.py" "$REPO/examples/python-kernel/numpy_kernel.py")"
ctl fuzz --backend "python:$TMP/buffered.py" --iterations 100 --out "$TMP/fz-buffered" --json "$TMP/fz.json"
check "fuzz the buffered kernel: exit 1" rc_is 1
check "fuzz the buffered kernel: every failure grouped under duplicates_applied_once" \
  out_has '^fuzz: ([0-9]+) failures: \1 duplicates_applied_once$'
check "fuzz the buffered kernel: the group's smallest case and its trace" out_has '^  smallest: .*\.min\.json on '
check "fuzz the buffered kernel: what the kernel returned beside the spec's" out_has '^  it returned: \[.*\]$'
check "... the spec's on the next line" out_has "^  the spec's:  \\[.*\\]\$"
check "fuzz --json: every failure's cause, and a minimal case of at most 8 data elements and 4 updates" "$PY" -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
f = d["failures"]
assert f and d["summary"]["causes"] == {"duplicates_applied_once": len(f)}, d["summary"]
for x in f:
    assert x["cause"] == "duplicates_applied_once", x
    assert os.path.exists(x["minimal_file"]), x
    assert x["minimal_data_elements"] <= 8 and x["minimal_update_elements"] <= 4, x
    assert x["minimal_output"] != x["minimal_want"] and x["minimal_want"].startswith("["), x
' "$TMP/fz.json"

# kernel FILE: a kernel that starts from the example (its `right` and CAPABILITIES), then the
# scatter() on stdin.
kernel() {
  {
    printf 'import importlib.util\n_spec = importlib.util.spec_from_file_location("example", "%s")\n' "$EXAMPLE_FILE"
    printf 'right = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(right)\nCAPABILITIES = right.CAPABILITIES\n\n'
    cat
  } >"$1"
}

# 1c. A name is confirmed before it is given (docs/diagnoses.md, "Confirmed names"): index -1
# dropped by a kernel that skips negative indices is negative_indices_skipped, confirmed when the
# index spelled 3 passes; by a kernel that drops whatever lands on the last element the same
# output has no name (spelled 3, it still fails).
cat >"$TMP/neg.json" <<'JSON'
{"name": "neg1", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
            "indices": {"dtype": "int64", "shape": [1], "values": [-1]},
            "updates": {"dtype": "float32", "shape": [1], "values": [9]}}}
JSON
kernel "$TMP/skips_negatives.py" <<'PY'
def scatter(op, data, indices, updates, **attrs):
    keep = indices >= 0
    return right.scatter(op, data, indices[keep], updates[keep], **attrs)
PY
sed 's/^    keep = indices >= 0$/    out = right.scatter(op, data, indices, updates, **attrs)\n    out.reshape(-1)[-1] = data.reshape(-1)[-1]\n    return out/' \
  "$TMP/skips_negatives.py" >"$TMP/skips_last.py"
ctl run "$TMP/neg.json" --backend "python:$TMP/skips_negatives.py"
check "a kernel that skips negative indices: cause negative_indices_skipped" out_has "cause: negative_indices_skipped"
ctl shrink "$TMP/neg.json" --backend "python:$TMP/skips_negatives.py" --out "$TMP/neg.min.json"
check "... confirmed by the case with its index spelled positive" \
  out_has "cause: negative_indices_skipped: .*\(confirmed: it passes with negative indices spelled positive\)"
ctl run "$TMP/neg.json" --backend "python:$TMP/skips_last.py"
check "a kernel that drops the last element: failed (exit 1)" rc_is 1
check "... and no name, where the model alone said negative_indices_skipped" out_lacks "cause: negative_indices"

# 1d. --deterministic holds an external kernel to the reference's order: of two `none` updates to
# one target the last must stay. A kernel that keeps the first passes without the flag.
cat >"$TMP/dup_none.json" <<'JSON'
{"name": "dup_none", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [2], "values": [1, 1]},
            "updates": {"dtype": "float32", "shape": [2], "values": [7, 8]}}}
JSON
sed 's/^    keep = indices >= 0$/    return right.scatter(op, data, indices[::-1].copy(), updates[::-1].copy(), **attrs)/' \
  "$TMP/skips_negatives.py" >"$TMP/first_wins.py"
ctl run "$TMP/dup_none.json" --backend "python:$TMP/first_wins.py"
check "a kernel whose first write stays: passes the spec's rule (either update may stay)" rc_is 0
ctl run "$TMP/dup_none.json" --backend "python:$TMP/first_wins.py" --deterministic
check "... fails under --deterministic (exit 1)" rc_is 1
check "... named first_writer_wins" out_has "cause: first_writer_wins"

# 1e. fuzz --invalid-share: a share of the cases gets one index out of range. The example kernel
# refuses each (exit 0); one that drops what it cannot place is found, and named.
ctl fuzz --backend "python:$EXAMPLE_FILE" --iterations 60 --invalid-share 0.5 --out "$TMP/fz-invalid-ok"
check "fuzz --invalid-share 0.5, the example kernel: every spoiled case refused (exit 0)" rc_is 0
kernel "$TMP/drops_oob.py" <<'PY'
def scatter(op, data, indices, updates, **attrs):
    try:
        return right.scatter(op, data, indices, updates, **attrs)
    except Exception:
        return data.copy()  # what it cannot place it drops, never refuses
PY
ctl fuzz --backend "python:$TMP/drops_oob.py" --iterations 60 --invalid-share 0.5 --shrink-seconds 1 \
  --out "$TMP/fz-invalid" --json "$TMP/fz-invalid.json"
check "... a kernel that answers them: failures found (exit 1)" rc_is 1
check "... each failure a case the spec refuses, the dropped updates named where a model computes them" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["failures"]
assert f and all("accepted an invalid case" in x["detail"] for x in f), [x["detail"] for x in f][:3]
assert set(d["summary"]["causes"]) & {"out_of_range_skipped", "negative_indices_skipped"}, d["summary"]
' "$TMP/fz-invalid.json"

# 2. Wrong kernels.
cat >"$TMP/cases.json" <<'JSON'
{"cases": [
 {"name": "k1_add_duplicates", "op": "scatter_elements", "reduction": "add",
  "inputs": {"data": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]},
             "indices": {"dtype": "int64", "shape": [4], "values": [0, 0, 2, 0]},
             "updates": {"dtype": "float32", "shape": [4], "values": [0.5, 0.25, 4, 8]}}},
 {"name": "k2_dies_here", "op": "scatter_elements",
  "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
             "indices": {"dtype": "int64", "shape": [1], "values": [1]},
             "updates": {"dtype": "float32", "shape": [1], "values": [666]}}},
 {"name": "k3_nd", "op": "scatter_nd",
  "inputs": {"data": {"dtype": "int32", "shape": [3, 2], "values": [[1, 2], [3, 4], [5, 6]]},
             "indices": {"dtype": "int64", "shape": [2, 1], "values": [[2], [-3]]},
             "updates": {"dtype": "int32", "shape": [2, 2], "values": [[7, 8], [9, 10]]}}}
]}
JSON
ctl run "$TMP/cases.json" --backend "python:$K/drops_update.py" -v
check "dropped update: exit 1" rc_is 1
check "dropped update: FAILED" test "$(rows "python:$K/drops_update.py" FAILED)" -eq 1
check "dropped update: called a bug, no tolerance offered" out_has "this looks like a bug, not rounding"
check "dropped update: no paste-ready tolerance" out_lacks '"tolerance": \{'
ctl run "$TMP/cases.json" --backend "python:$K/writes_input.py"
check "writes its input (read-only): exit 1" rc_is 1
check "writes its input (read-only): ERROR naming the line" out_has "ValueError: assignment destination is read-only at writes_input.py:[0-9]+ in scatter"
SCATTER_KERNEL_WRITE=ctypes ctl run "$TMP/cases.json" --backend "python:$K/writes_input.py"
check "writes its input (ctypes): exit 1" rc_is 1
check "writes its input (ctypes): the box's read-only inputs kill it, its log naming the line" \
  out_has "ERROR +\[crashed\] .*signal 11.*|writes_input.py\", line [0-9]+ in scatter"
ctl run "$TMP/cases.json" --backend "python:$K/dies.py"
check "dies on one case: exit 1" rc_is 1
check "dies on one case: that case is an ERROR (crashed)" out_has "k2_dies_here .*ERROR +\[crashed\]"
check "dies on one case: the other two pass" test "$(rows "python:$K/dies.py" passed)" -eq 2
ctl run "$TMP/cases.json" --backend "python:$K/removes_folder.py,numpy" --json "$TMP/removes.json"
check "removes the run's private folders: its own case costs at most" test "$(rows "python:$K/removes_folder.py" passed)" -ge 2
check "removes the run's private folders: every case of numpy passes" test "$(rows numpy passed)" -eq 3
ctl run "$TMP/cases.json" --backend "python:$K/partial.py"
check "NotImplementedError: skipped, not an error (exit 0)" rc_is 0
check "NotImplementedError: the kernel's reason" out_has "skipped +unsupported: the kernel raised NotImplementedError: add is not written yet"
ctl run "$TMP/cases.json" --backend "python:$K/broken_import.py"
check "import error: exit 5 (unavailable)" rc_is 5
check "import error: names the file, line and exception" grep -Eq "importing .*broken_import.py failed: ZeroDivisionError: division by zero at broken_import.py:2 in <module>" "$TMP/err"
check "import error: said once" test "$(grep -c ZeroDivisionError "$TMP/err")" -eq 1

# 3. bench: a kernel that games its timing gets no time (docs/backends.md, "Judging a kernel you
# do not trust"). One case of 2^18 elements, so that a call takes a millisecond or more, well past
# what the worker's signals add to scatterctl's clock.
cat >"$TMP/timed.json" <<'JSON'
{"name": "timed_elements", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [262144], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 1}},
            "indices": {"dtype": "int64", "shape": [65536], "generate": {"kind": "indices", "seed": 2}},
            "updates": {"dtype": "float32", "shape": [65536], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}}}}
JSON
bench_attack() {  # NAME: the kernel tests/python_kernels/NAME.py, benched beside the right one
  ctl bench "$TMP/timed.json" --backend "python:$K/$1.py,$EXAMPLE" --max-seconds 0.2 --min-samples 8 --repetitions 1 \
    --json "$TMP/$1.json"
}
bench_attack stale
check "drifts after the checked call: exit 1" rc_is 1
check "drifts after the checked call: FAILED, naming the timed call" out_has "stale.py FAILED: timed call [0-9]+ returned another output than the call checked before timing"
bench_attack memorised
check "memorised output: exit 1" rc_is 1
check "memorised output: FAILED, judged against the inputs that call got" out_has "memorised.py FAILED: timed call [0-9]+ returned another output than the call checked before timing, judged against the reference of the inputs it was given"
bench_attack patched_clock
# The box's clock was bound before the kernel was imported, so the patch changes only the kernel's
# own `time`; a kernel that rewrote the box's loop to lie is refused by scatterctl's clock, or
# under a neighbour's load by physics (tests/cli/judge_attacks.sh).
check "patched clock: timed honestly by the box, beside the right kernel" \
  out_has "^timed_elements +python:.*patched_clock.py +[0-9.]+ [mu]s"
bench_attack late_work
check "work left on a thread: exit 1" rc_is 1
check "work left on a thread: FAILED" out_has "late_work.py FAILED: (timed call [0-9]+ returned another output|faster than memory can move its bytes)"
bench_attack aliased
check "output aliased to an input: exit 1" rc_is 1
check "output aliased to an input: its write into the read-only inputs kills the box" \
  out_has "aliased.py ERROR: \[crashed\] .*signal 11"
# The right kernel beside each: timed, its inputs varied each call, on scatterctl's clock too.
# On a machine whose CPUs are taken (another test beside this one), scatterctl's clock may not
# witness even the right kernel: that is an error to rerun, never a verdict on its timer.
timed_or_undecided() {
  out_has "^timed_elements +$(re "$EXAMPLE") +[0-9.]+ [mun]?s" ||
    out_has "^timed_elements +$(re "$EXAMPLE") ERROR: its time disagrees .*waited for a CPU .*rerun it on a quiet machine"
}
check "right kernel beside them: timed (or undecided under CPU pressure)" timed_or_undecided
check "right kernel: each timed call's inputs varied, indices too" grep -q '"varied": "16 data and 16 update elements changed a call, and two pairs of single-hit targets swapped in the indices"' "$TMP/aliased.json"
check "right kernel: its samples on scatterctl's clock" grep -q '"outer_us": \[' "$TMP/aliased.json"

# 4. ARRAYS = "jax", where the chosen Python imports jax: 0-d updates stay 0-d, int64 stays int64.
# JAX flushes float subnormals to zero on the CPU (recorded for the jax backend), so those cases
# are left out.
if "$PY" -c 'import jax' >/dev/null 2>&1; then
  ctl run "$REPO/cases" --backend "python:$K/jax_kernel.py" --filter '-*ftz*' --filter '-*subnormal*'
  check "jax kernel: exit 0" rc_is 0
  check "jax kernel: many cases pass" test "$(rows "python:$K/jax_kernel.py" passed)" -gt 50
  check "jax kernel: a 0-d update passes" out_has "^onnx_adapter_nd_full_index_scalar_update .* passed "
else
  echo "note: jax is not importable by $PY; the ARRAYS = \"jax\" checks are left out"
fi

# 5. python:MODULE:FUNC.
PYTHONPATH=$K ctl run "$TMP/cases.json" --backend python:partial:scatter
check "python:MODULE:FUNC: runs the module's function" test "$(rows python:partial:scatter passed)" -eq 1
# 6. The box is frozen outside its calls, in bench and in run (docs/backends.md, "The box"): a
# watcher outside it reads the box's state every millisecond (its cgroup's "frozen", or a stopped
# process) and counts what it saw.
watch_box() {  # FILE MODE ARGS...: scatterctl MODE ARGS, watched into FILE
  local file=$1
  shift
  "$PY" - "$file" <<'PY' &
import glob, os, sys, time
path = sys.argv[1]
seen = {}
def box_pids():
    pids = []
    for stat in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if b"scatterctl_box" in open(stat, "rb").read():
                pids.append(stat.split("/")[2])
        except OSError:
            pass
    return pids
def frozen(pid):
    try:
        group = open(f"/proc/{pid}/cgroup").read().split("0::", 1)[1].split("\n")[0]
        events = open(f"/sys/fs/cgroup/unified{group}/cgroup.events").read() if os.path.isdir("/sys/fs/cgroup/unified") \
            else open(f"/sys/fs/cgroup{group}/cgroup.events").read()
        if "frozen 1" in events:
            return True
    except (OSError, IndexError):
        pass
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except OSError:
        return False
end = time.time() + 60
while time.time() < end and not os.path.exists(path + ".stop"):
    for pid in box_pids():
        key = "frozen" if frozen(pid) else "running"
        seen[key] = seen.get(key, 0) + 1
    time.sleep(0.001)
open(path, "w").write(" ".join(f"{k}={v}" for k, v in sorted(seen.items())) + "\n")
PY
  local watcher=$!
  sleep 0.3
  ctl "$@"
  touch "$file.stop"
  wait "$watcher"
}
watch_box "$TMP/watch-bench" bench "$TMP/timed.json" --backend "python:$EXAMPLE_FILE,cpu" --max-seconds 0.2 \
  --min-samples 8 --repetitions 1
check "bench: the box was frozen between its calls" grep -Eq '(^| )frozen=[0-9]+' "$TMP/watch-bench"
watch_box "$TMP/watch-run" run "$TMP/timed.json" --backend "python:$EXAMPLE_FILE"
check "run: the box was frozen between its calls too" grep -Eq '(^| )frozen=[0-9]+' "$TMP/watch-run"
end_checks

#!/usr/bin/env python3
"""Protocol 1 end to end: starts `python -u -m scatterctl_worker BACKEND` with requests on fd 3 and
answers on fd 4, and checks hello, run (small hand-computed cases), a rejected out-of-range index, malformed
requests answered as errors (the worker survives them), and shutdown.

    python3 tests/python/test_worker.py [BACKEND ...]

numpy always (it implements the spec exactly, so its cases include the spec's traps); every other
framework that imports, on the cases its capabilities declare. Exit 0: passed, 1: failed, 77: numpy is
missing (skipped).
"""
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "lib", "python")

try:
    import numpy as np
except ImportError:
    print("skipped: numpy is not installed")
    sys.exit(77)

sys.path.insert(0, LIB)
from scatterctl_spec import INDEX_DTYPES  # noqa: E402
from scatterctl_worker.protocol import Tensor, bf16_to_f32, f32_to_bf16, read_npy, write_npy  # noqa: E402

FRAMEWORKS = ["numpy", "onnx", "onnxruntime", "openvino", "tvm", "torch", "jax"]
IMPORTS = {"onnxruntime": ["onnxruntime", "onnx"], "openvino": ["openvino"], "tvm": ["tvm"],
           "onnx": ["onnx"], "torch": ["torch"], "jax": ["jax"], "numpy": ["numpy"]}

failures = []

# Differences from the spec that a framework is known to have on these cases (checked: a known difference
# that goes away is reported too, so this list stays true).
KNOWN = {
    ("openvino", "nd_k0_whole_tensor"): "the CPU plugin's ScatterNDUpdate-15 leaves data unchanged for k = 0",
    ("tvm", "elements_mean_float32"): "TOPI's mean is a running pairwise average ((1+2)/2+6)/2, not a mean",
}


def fail(msg):
    failures.append(msg)
    print("  FAIL " + msg)


# ---------------------------------------------------------------------------------------------
# The worker process
# ---------------------------------------------------------------------------------------------

class Worker:
    def __init__(self, backend):
        self.backend = backend
        r3, w3 = os.pipe()   # requests: we write w3, the worker reads fd 3
        r4, w4 = os.pipe()   # answers: the worker writes fd 4, we read r4
        # keep our ends away from 3 and 4, then put the worker's ends exactly on 3 and 4 for the spawn
        mine_w = fcntl.fcntl(w3, fcntl.F_DUPFD_CLOEXEC, 10)
        mine_r = fcntl.fcntl(r4, fcntl.F_DUPFD_CLOEXEC, 10)
        theirs_r = fcntl.fcntl(r3, fcntl.F_DUPFD_CLOEXEC, 10)
        theirs_w = fcntl.fcntl(w4, fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (r3, w3, r4, w4):
            os.close(fd)
        saved = {}
        for fd in (3, 4):
            try:
                saved[fd] = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            except OSError:
                pass
        os.dup2(theirs_r, 3)
        os.dup2(theirs_w, 4)
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ)
        env["PYTHONPATH"] = LIB + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self.proc = subprocess.Popen([sys.executable, "-u", "-m", "scatterctl_worker", backend],
                                         pass_fds=(3, 4), stdin=subprocess.DEVNULL,
                                         stdout=self.stderr, stderr=self.stderr, env=env)
        finally:
            os.close(3)
            os.close(4)
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            os.close(theirs_r)
            os.close(theirs_w)
        self.w = os.fdopen(mine_w, "wb", buffering=0)
        self.r = os.fdopen(mine_r, "rb", buffering=0)
        self.pending = b""

    def send_raw(self, line):
        self.w.write(line)

    def read(self, timeout=300):
        """The next answer line. Lines are cut from our own buffer: a buffered file would hold a
        second line that select() on its descriptor cannot see (a signal and its answer often
        arrive together)."""
        import select
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.r], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError("no answer in %d s" % timeout)
            chunk = os.read(self.r.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("the worker closed fd 4 (exit %s)" % self.proc.poll())
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def request(self, obj, timeout=300):
        self.send_raw((json.dumps(obj) + "\n").encode())
        a = self.read(timeout)
        if a.get("id") != obj.get("id"):
            raise AssertionError(f"answer id {a.get('id')!r} for request id {obj.get('id')!r}")
        return a

    def log_tail(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-3000:]

    def close(self):
        try:
            self.w.close()
        except Exception:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------------------------------
# Cases, values computed by hand from docs/case-format.md
# ---------------------------------------------------------------------------------------------

def T(dtype, values, shape=None):
    if dtype == "bfloat16":
        a = f32_to_bf16(np.asarray(values, np.float32))
    else:
        a = np.asarray(values, dtype=dtype if dtype != "bool" else np.bool_)
    if shape is not None:
        a = a.reshape(shape)
    return Tensor(dtype, a)


CASES = []


def case(name, op, data, indices, updates, expected, reduction="none", axis=0, use_init_val=True,
         spec_only=False, error=None):
    """spec_only: the expected value is the spec's answer on a trap frameworks are known to differ on
    (only numpy, the spec's own implementation, must match it)."""
    CASES.append(dict(name=name, op=op, data=data, indices=indices, updates=updates, expected=expected,
                      reduction=reduction, axis=axis, use_init_val=use_init_val, spec_only=spec_only,
                      error=error))


i64 = lambda v: T("int64", v)  # noqa: E731
i32 = lambda v: T("int32", v)  # noqa: E731

# ONNX ScatterND example 1
case("onnx_scatternd_example1", "scatter_nd", T("float32", [1, 2, 3, 4, 5, 6, 7, 8]),
     i64([[4], [3], [1], [7]]), T("float32", [9, 10, 11, 12]), T("float32", [1, 11, 3, 10, 9, 6, 7, 12]))
# ONNX ScatterElements example 2 (axis 1)
case("onnx_scatterelements_example2", "scatter_elements", T("float32", [[1, 2, 3, 4, 5]]),
     i64([[1, 3]]), T("float32", [[1.5, 2.5]]), T("float32", [[1, 1.5, 3, 2.5, 5]]), axis=1)
# ScatterElements add, duplicates, integer-valued floats (exact in any order)
case("elements_add_dup", "scatter_elements", T("float32", [[1, 2, 3], [4, 5, 6]]),
     i64([[1, 1, 0]]), T("float32", [[10, 20, 30]]), T("float32", [[31, 32, 3], [4, 5, 6]]),
     reduction="add", axis=1)
# int32 indices, int32 data, mul
case("elements_mul_int32", "scatter_elements", T("int32", [2, 3, 4]), i32([2, 0]), T("int32", [5, 7]),
     T("int32", [14, 3, 20]), reduction="mul")
# negative index (allowed for scatter_elements and scatter_nd)
case("elements_negative_index", "scatter_elements", T("float32", [1, 2, 3]), i64([-1]), T("float32", [9]),
     T("float32", [1, 2, 9]))
case("nd_negative_index_k2", "scatter_nd", T("int64", [[1, 2], [3, 4]]), i64([[-1, 0]]), T("int64", [9]),
     T("int64", [[1, 2], [9, 4]]))
# ScatterND slices (k=1 of rank 2), max
case("nd_max_rows", "scatter_nd", T("int32", [[1, 8], [5, 2]]), i64([[1], [1]]), T("int32", [[4, 4], [6, 1]]),
     T("int32", [[1, 8], [6, 4]]), reduction="max")
# ScatterND min
case("nd_min_float64", "scatter_nd", T("float64", [3, 3, 3]), i64([[0], [2]]), T("float64", [1, 7]),
     T("float64", [1, 3, 3]), reduction="min")
# scatter_update on axis 1
case("update_axis1", "scatter_update", T("float32", np.zeros((2, 3))), i64([2, 0]),
     T("float32", [[1, 2], [3, 4]]), T("float32", [[2, 0, 1], [4, 0, 3]]), axis=1)
# scatter_update with a 2-d index tensor, axis 0
case("update_2d_indices", "scatter_update", T("int64", [[0, 0], [0, 0], [0, 0]]), i64([[2], [0]]),
     T("int64", [[[5, 6]], [[7, 8]]]), T("int64", [[7, 8], [0, 0], [5, 6]]))
# float16 add and uint8 mul wrap
case("nd_add_float16", "scatter_nd", T("float16", [1, 2]), i64([[0], [0]]), T("float16", [0.5, 0.25]),
     T("float16", [1.75, 2]), reduction="add")
case("elements_add_int8_wraps", "scatter_elements", T("int8", [120, 0]), i64([0]), T("int8", [10]),
     T("int8", [-126, 0]), reduction="add")
# bfloat16 add (exact)
case("nd_add_bfloat16", "scatter_nd", T("bfloat16", [1, 2]), i64([[0], [0]]), T("bfloat16", [0.5, 0.25]),
     T("bfloat16", [1.75, 2]), reduction="add")
# mean and use_init_val=false (frameworks that have them)
case("elements_mean_float32", "scatter_elements", T("float32", [1, 10]), i64([0, 0]), T("float32", [2, 6]),
     T("float32", [3, 10]), reduction="mean")
case("elements_sum_no_init", "scatter_elements", T("float32", [100, 10]), i64([0, 0]), T("float32", [2, 6]),
     T("float32", [8, 10]), reduction="add", use_init_val=False)
# ScatterND sub (OpenVINO, numpy)
case("nd_sub_int32", "scatter_nd", T("int32", [10, 20]), i64([[1], [1]]), T("int32", [3, 4]),
     T("int32", [10, 13]), reduction="sub")
# k = 0: the whole tensor
case("nd_k0_whole_tensor", "scatter_nd", T("float32", [1, 2, 3]), T("int64", np.zeros((1, 0), np.int64)),
     T("float32", [[7, 8, 9]]), T("float32", [7, 8, 9]))
# bool add = OR
case("elements_bool_add_or", "scatter_elements", T("bool", [False, True]), i64([0, 0]), T("bool", [True, False]),
     T("bool", [True, True]), reduction="add")
# the spec's traps: only numpy must follow them exactly
case("spec_float16_rounds_each_step", "scatter_nd", T("float16", [2048]), i64([[0], [0]]), T("float16", [1, 1]),
     T("float16", [2048]), reduction="add", spec_only=True)
case("spec_max_nan_update", "scatter_elements", T("float32", [1, 2]), i64([0]), T("float32", [np.nan]),
     T("float32", [np.nan, 2]), reduction="max", spec_only=True)
case("spec_min_nan_data", "scatter_elements", T("float32", [np.nan, 2]), i64([0]), T("float32", [1]),
     T("float32", [np.nan, 2]), reduction="min", spec_only=True)
case("spec_max_signed_zero", "scatter_elements", T("float32", [-0.0, 1]), i64([0]), T("float32", [0.0]),
     T("float32", [0.0, 1]), reduction="max", spec_only=True)
case("spec_min_signed_zero", "scatter_elements", T("float64", [0.0, 1]), i64([0]), T("float64", [-0.0]),
     T("float64", [-0.0, 1]), reduction="min", spec_only=True)
case("spec_int_mean_floors", "scatter_elements", T("int32", [0, 5]), i64([0]), T("int32", [-3]),
     T("int32", [-2, 5]), reduction="mean", spec_only=True)
case("spec_int_mean_no_init", "scatter_elements", T("int32", [7, 5]), i64([0, 0]), T("int32", [-1, -2]),
     T("int32", [-2, 5]), reduction="mean", use_init_val=False, spec_only=True)
case("spec_bool_sub_xor", "scatter_nd", T("bool", [True, False]), i64([[0], [1], [1], [1]]),
     T("bool", [True, True, True, True]), T("bool", [False, True]), reduction="sub", spec_only=True)
case("spec_none_last_writer", "scatter_elements", T("int32", [0, 0]), i64([0, 0, 0]), T("int32", [1, 2, 3]),
     T("int32", [3, 0]), spec_only=True)
case("spec_bfloat16_rounds", "scatter_nd", T("bfloat16", [256]), i64([[0], [0]]), T("bfloat16", [1, 1]),
     T("bfloat16", [256]), reduction="add", spec_only=True)
case("spec_min_no_init_inf", "scatter_elements", T("float32", [5, 5]), i64([0]), T("float32", [np.inf]),
     T("float32", [np.inf, 5]), reduction="min", use_init_val=False, spec_only=True)
# out of range: rejected with code index
case("elements_out_of_range", "scatter_elements", T("float32", [1, 2, 3]), i64([3]), T("float32", [9]),
     None, error="index")
case("nd_out_of_range", "scatter_nd", T("float32", [1, 2, 3]), i64([[-4]]), T("float32", [9]), None,
     error="index")
case("update_negative_index", "scatter_update", T("float32", [1, 2, 3]), i64([-1]), T("float32", [9]), None,
     error="index")


# ---------------------------------------------------------------------------------------------
# Capabilities (a small reading of docs/backends.md, "Capabilities")
# ---------------------------------------------------------------------------------------------

def _has(sel, v):
    return sel is None or sel == "*" or v == sel or (isinstance(sel, list) and v in sel)


def declared(caps, c):
    """None when the capabilities cover the case, else why not."""
    red, dt, idt = c["reduction"], c["data"].dtype, c["indices"].dtype
    dts = caps.get("ops", {}).get(c["op"], {}).get(red)
    if dts is None or not _has(dts, dt):
        return f"{c['op']} {red} {dt} not declared"
    if idt not in caps.get("index_dtypes", list(INDEX_DTYPES)):
        return f"{idt} indices not declared"
    neg = bool((c["indices"].array < 0).any())
    if neg and not caps.get("negative_indices", True) and not c["error"]:
        return "negative indices"
    if not c["use_init_val"] and not caps.get("use_init_val_false", True):
        return "use_init_val false"
    k0 = c["op"] == "scatter_nd" and c["indices"].shape[-1] == 0
    if k0 and not caps.get("empty_index_tuple", True):
        return "k = 0"
    if len(c["data"].shape) > caps.get("max_rank", 64):
        return "rank"
    if c["error"] and not caps.get("checks_indices", True):
        return "does not check indices"
    idx = c["indices"].array.astype(np.int64)
    dups = False
    if c["op"] == "scatter_elements" and idx.size:
        dups = len(np.unique(idx)) < idx.size  # coarse, enough for these small 1-row cases
    elif c["op"] != "scatter_elements" and idx.size:
        rows = idx.reshape(-1, idx.shape[-1]) if c["op"] == "scatter_nd" else idx.reshape(-1, 1)
        dups = len(np.unique(rows, axis=0)) < len(rows)
    feats = {"negative_indices": neg, "empty_index_tuple": k0, "use_init_val_false": not c["use_init_val"],
             "duplicates": dups}
    for ex in caps.get("exclude", []):
        if not (_has(ex.get("op"), c["op"]) and _has(ex.get("reduction"), red) and _has(ex.get("dtype"), dt)
                and _has(ex.get("index_dtype"), idt)):
            continue
        f = ex.get("feature")
        if f and not feats.get(f, False):
            continue
        return "excluded: " + ex.get("reason", "")
    return None


def same(got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    g, w = got.array, want.array
    if want.dtype == "bfloat16":
        g, w = bf16_to_f32(g), bf16_to_f32(w)
    if g.dtype.kind == "f":
        both_nan = np.isnan(g) & np.isnan(w)
        bits = {8: np.uint64, 4: np.uint32, 2: np.uint16}[g.dtype.itemsize]
        return bool(np.all(both_nan | (g.view(bits) == w.view(bits))))
    return bool(np.array_equal(g, w))


def show(t):
    a = bf16_to_f32(t.array) if t.dtype == "bfloat16" else t.array
    return f"{t.dtype}{list(t.shape)} {a.reshape(-1).tolist()}"


# ---------------------------------------------------------------------------------------------
# One backend
# ---------------------------------------------------------------------------------------------

def importable(backend):
    import importlib.util
    return all(importlib.util.find_spec(m) is not None for m in IMPORTS[backend])


def test_backend(backend, tmp):
    print(f"{backend}:")
    w = Worker(backend)
    n_ok = 0
    try:
        hello = w.request({"id": 1, "op": "hello", "protocol": 1, "backend": backend})
        if hello.get("status") == "unavailable":
            print(f"  unavailable: {hello.get('reason')}")
            return backend != "numpy" or fail("numpy unavailable")
        if hello.get("status") != "ok":
            fail(f"{backend}: hello answered {hello}")
            return
        for key in ("protocol", "name", "version", "versions", "device", "settings", "capabilities"):
            if key not in hello:
                fail(f"{backend}: hello lacks '{key}'")
        if hello.get("name") != backend or hello.get("protocol") != 1:
            fail(f"{backend}: hello name/protocol {hello.get('name')!r}/{hello.get('protocol')!r}")
        caps = hello.get("capabilities", {})
        print(f"  {hello.get('name')} {hello.get('version')} on {hello.get('device')}; settings "
              f"{json.dumps(hello.get('settings'))}")
        rid = 10
        for c in CASES:
            if c["spec_only"] and backend != "numpy":
                continue
            why = declared(caps, c)
            if why:
                if backend == "numpy":
                    fail(f"numpy: {c['name']} not declared ({why})")
                continue
            rid += 1
            d = os.path.join(tmp, f"{backend}-{rid}")
            paths = {k: f"{d}-{k}.npy" for k in ("data", "indices", "updates", "out")}
            for k in ("data", "indices", "updates"):
                write_npy(paths[k], c[k])
            req = {"id": rid, "op": "run",
                   "case": {"name": c["name"], "op": c["op"], "reduction": c["reduction"],
                            "axis": c["axis"] % len(c["data"].shape), "use_init_val": c["use_init_val"]},
                   **paths, "flags": {"in_place": False, "deterministic": False}}
            t0 = time.time()
            a = w.request(req)
            dt = time.time() - t0
            if c["error"]:
                if a.get("status") == "rejected" and a.get("code") == c["error"]:
                    n_ok += 1
                    print(f"  ok   {c['name']}: rejected ({a.get('message', '')[:100]})")
                else:
                    fail(f"{backend}: {c['name']}: expected rejected/{c['error']}, got {json.dumps(a)[:600]}")
                continue
            if a.get("status") != "ok":
                fail(f"{backend}: {c['name']}: {json.dumps(a)[:1500]}")
                continue
            for key in ("seconds", "timing", "lowering"):
                if key not in a:
                    fail(f"{backend}: {c['name']}: answer lacks '{key}'")
            got = read_npy(paths["out"])
            known = KNOWN.get((backend, c["name"]))
            if same(got, c["expected"]):
                if known:
                    fail(f"{backend}: {c['name']}: passed, but is listed as a known difference ({known})")
                    continue
                n_ok += 1
                print(f"  ok   {c['name']} ({a.get('lowering')}; {dt * 1e3:.0f} ms)")
            elif known:
                n_ok += 1
                print(f"  ok   {c['name']}: known difference: {known} (got {show(got)})")
            else:
                fail(f"{backend}: {c['name']} ({a.get('lowering')}): got {show(got)}, want {show(c['expected'])}")
        # malformed requests: answered as errors, and the worker goes on
        w.send_raw(b"this is not json\n")
        a = w.read()
        if a.get("status") != "error":
            fail(f"{backend}: a malformed line was answered {a}")
        a = w.request({"id": 90, "op": "run", "case": {"op": "scatter_nd"}})
        if a.get("status") != "error":
            fail(f"{backend}: a run without tensors was answered {a}")
        a = w.request({"id": 91, "op": "run", "case": {"op": "scatter_nd", "reduction": "none"},
                       "data": os.path.join(tmp, "missing.npy"), "indices": "x", "updates": "y", "out": "z"})
        if a.get("status") != "error":
            fail(f"{backend}: a run with missing files was answered {a}")
        a = w.request({"id": 92, "op": "frobnicate"})
        if a.get("status") != "error":
            fail(f"{backend}: an unknown op was answered {a}")
        a = w.request({"id": 93, "op": "hello", "protocol": 1, "backend": backend})
        if a.get("status") != "ok":
            fail(f"{backend}: the worker did not survive malformed requests: {a}")
        else:
            n_ok += 1
            print("  ok   malformed requests answered as errors; the worker goes on")
        a = w.request({"id": 99, "op": "shutdown"})
        rc = w.proc.wait(timeout=60)
        if rc != 0:
            fail(f"{backend}: exit status {rc} after shutdown")
        print(f"  {n_ok} checks passed")
    except Exception as e:
        fail(f"{backend}: {type(e).__name__}: {e}\n--- worker stderr ---\n{w.log_tail()}")
    finally:
        w.close()


def test_torch_timed_region():
    """The torch worker's timed call, checked with a stand-in for torch (no torch needed): out
    of place it clones data inside the call (the byte model counts that copy), so data stays
    as it was; in place it runs the op on the restored output alone."""
    from scatterctl_worker.torch_backend import _Prepared

    class FakeTensor:
        clones = 0

        def __init__(self, values):
            self.values = list(values)

        def clone(self):
            FakeTensor.clones += 1
            return FakeTensor(self.values)

        def copy_(self, other):
            self.values = list(other.values)

    class FakeDevice:
        type = "cpu"

    def op(out):
        out.values[0] += 1

    for in_place in (False, True):
        data = FakeTensor([5, 6])
        prep = _Prepared(None, FakeDevice(), data, op, None, "", in_place, None)
        before = FakeTensor.clones
        for _ in range(3):
            prep.reset()
            prep.call()
        clones = FakeTensor.clones - before
        if data.values != [5, 6] or prep.out.values != [6, 6]:
            fail(f"torch timed region (in_place={in_place}): data {data.values}, output {prep.out.values}")
        if clones != (0 if in_place else 3):
            fail(f"torch timed region (in_place={in_place}): {clones} clones in 3 calls")
        if ("clone" in prep.timing) == in_place:
            fail(f"torch timed region (in_place={in_place}): the timing says '{prep.timing}'")
    print("torch timed region: out of place clones in the call, in place does not")


def test_kept_case(tmp):
    """same_inputs: a request naming the last request's files and case runs the case kept from it
    (the files are not read again); any difference in the files, case or flags loads afresh."""
    failed_before = len(failures)
    w = Worker("numpy")
    try:
        w.request({"id": 1, "op": "hello", "protocol": 1, "backend": "numpy"})
        paths = {k: os.path.join(tmp, f"kept-{k}.npy") for k in ("data", "indices", "updates")}
        write_npy(paths["data"], T("float32", [0, 0, 0, 0]))
        write_npy(paths["indices"], T("int64", [[1], [3]]))
        write_npy(paths["updates"], T("float32", [7, 9]))
        base = {"op": "run", "case": {"name": "kept", "op": "scatter_nd", "reduction": "none"}, **paths,
                "flags": {"in_place": False, "deterministic": False}}

        def run(rid, same_inputs, **change):
            out = os.path.join(tmp, f"kept-out-{rid}.npy")
            a = w.request(base | change | {"id": rid, "out": out, "same_inputs": same_inputs})
            return read_npy(out).array.tolist() if a.get("status") == "ok" else a

        first = run(2, False)
        # New contents under the same names: only a request that loads sees them.
        write_npy(paths["updates"], T("float32", [5, 6]))
        checks = [
            ("same_inputs keeps the case", run(3, True), [0, 7, 0, 9]),
            ("without same_inputs the files are read", run(4, False), [0, 5, 0, 6]),
            ("other flags load afresh", run(5, True, flags={"in_place": True, "deterministic": False}), [0, 5, 0, 6]),
        ]
        write_npy(paths["updates"], T("float32", [1, 2]))
        checks.append(("other flags than the kept case's load afresh", run(6, True), [0, 1, 0, 2]))
        if first != [0, 7, 0, 9]:
            fail(f"kept case: the first run gave {first}")
        for what, got, want in checks:
            if got != want:
                fail(f"kept case: {what}: got {got}, want {want}")
    finally:
        w.close()
    if len(failures) == failed_before:
        print("kept case: same_inputs reuses the last case; other files, case or flags load afresh; "
              "hold_output keeps the output until one 'output' request")


def test_signals_and_variations(tmp):
    """A timed call's signals (ready, answered by go; done) come before its answer, a null call (the
    signals alone) is answered before hello, and
    a request's 'vary' sets elements of the kept case for that call only: the next call without it
    sees the case's own values (docs/backends.md, "The clock" and protocol 1)."""
    failed_before = len(failures)
    w = Worker("numpy")
    try:
        w.send_raw((json.dumps({"id": -1, "op": "null_call", "flush_caches": True}) + "\n").encode())
        null = [w.read()]
        if null[0].get("signal") == "ready":
            w.send_raw((json.dumps({"id": -1, "op": "go"}) + "\n").encode())
            null += [w.read(), w.read()]
        if [a.get("signal", a.get("status")) for a in null] != ["ready", "done", "ok"]:
            fail(f"signals and variations: a null call before hello answered {null}")
        w.request({"id": 1, "op": "hello", "protocol": 1, "backend": "numpy"})
        paths = {k: os.path.join(tmp, f"vary-{k}.npy") for k in ("data", "indices", "updates")}
        write_npy(paths["data"], T("float32", [1, 2, 3, 4]))
        write_npy(paths["indices"], T("int64", [[1]]))
        write_npy(paths["updates"], T("float32", [7]))
        base = {"op": "run", "case": {"name": "vary", "op": "scatter_nd", "reduction": "add"}, **paths,
                "flags": {"in_place": False, "deterministic": False, "flush_caches": True}, "same_inputs": True}
        two = int(np.float32(2.5).view(np.uint32))   # data[2] = 2.5 (an element no update lands on)
        eight = int(np.float32(8).view(np.uint32))   # updates[0] = 8, landing on data[1]
        vary = {"number": 1, "data": {"at": [2], "bits": [two]}, "updates": {"at": [0], "bits": [eight]}}

        def run(rid, **extra):
            out = os.path.join(tmp, f"vary-out-{rid}.npy")
            w.send_raw((json.dumps(base | extra | {"id": rid, "out": out}) + "\n").encode())
            said = []
            while True:
                a = w.read()
                if "signal" not in a:
                    break
                said.append(a["signal"])
                if a["signal"] == "ready":
                    w.send_raw((json.dumps({"id": rid, "op": "go"}) + "\n").encode())
            got = read_npy(out).array.tolist() if a.get("status") == "ok" else a
            return said, got

        checks = [("the case's own values", run(2), ([], [1, 9, 3, 4])),
                  ("varied, with signals", run(3, vary=vary, signals=True), (["ready", "done"], [1, 10, 2.5, 4])),
                  ("the next call sees the case's own values again", run(4), ([], [1, 9, 3, 4]))]
        for what, got, want in checks:
            if got != want:
                fail(f"signals and variations: {what}: got {got}, want {want}")
        bad = w.request(base | {"id": 5, "out": os.path.join(tmp, "vary-out-5.npy"),
                                "vary": {"data": {"at": [4], "bits": [0]}, "updates": {"at": [], "bits": []}}})
        if bad.get("status") != "error" or "outside the tensor's 4 elements" not in bad.get("message", ""):
            fail(f"signals and variations: a position past the tensor answered {bad}")
    finally:
        w.close()
    if len(failures) == failed_before:
        print("signals and variations: ready/go/done around the timed call and a null call before hello; a variation lasts one call")


def main():
    names = sys.argv[1:] or FRAMEWORKS
    test_torch_timed_region()
    with tempfile.TemporaryDirectory(prefix="scatterctl-worker-test-") as tmp:
        test_kept_case(tmp)
        test_signals_and_variations(tmp)
        for b in names:
            if b != "numpy" and not importable(b):
                print(f"{b}: not installed, skipped")
                continue
            test_backend(b, tmp)
    if failures:
        print(f"\n{len(failures)} failure(s):")
        for f in failures:
            print("  " + f.splitlines()[0])
        return 1
    print("\nall workers passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

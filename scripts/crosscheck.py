#!/usr/bin/env python3
"""Cross-check scatterctl's CPU reference against ONNX (reference evaluator), onnxruntime (CPU) and PyTorch (CPU).

    python3 scripts/crosscheck.py [--iterations N] [--seed S] [--scatterctl PATH] [--keep DIR]
    python3 scripts/crosscheck.py --replay CASE.json [CASE.json ...]   # re-run saved (or any) case files
    python3 scripts/crosscheck.py --probe                              # the trap probes only

Random valid cases (every op, reduction and dtype, rank 1-4, duplicates, negative indices, use_init_val,
NaN/inf/signed zero, empty updates, k = 0) are written as case JSON files under DIR/cases/, and
`scatterctl dump` turns them into inputs and the reference output. Each framework then computes the same
scatter where it defines it:

  framework    scatter_elements                    scatter_nd                         scatter_update
  onnx, ort    ScatterElements-18 (none/add/mul/   ScatterND-18 (none/add/mul/        ScatterND-18 on the axis moved
               min/max; not mean, not              min/max; not sub)                  to the front (exact transposes)
               use_init_val=false)
  torch        scatter_ / scatter_reduce_          index_put_ (none, add) with the    index_copy_
               (include_self = use_init_val)       index tuple; index_add_(alpha=-1)
                                                   (sub), index_reduce_ (mul/min/max)
                                                   on data.reshape(prod(shape[:k]), ...)

torch's scatter_/scatter_reduce_/index_* reject negative indices, so the adapter adds s to them (what a
converter does); index_put_ takes them as they are. ONNX ScatterND takes only int64 indices, so int32 ones
are widened. onnxruntime gets bfloat16 as raw 16-bit OrtValues. A case a framework does not define is
"n/a"; one it rejects as lacking a kernel ("not supported", "not implemented", ...) is "unsupported" (the
reasons are summarised); any other exception counts as a disagreement. --stress N adds big integer
scatter_nd cases with heavy duplicates (written with generators), where multi-threaded kernels race.

The comparison is the spec's: exact (any NaN == any NaN) for ints, bool, none, min, max and elements hit
at most once; any duplicate's value for none with duplicate targets; allclose with rtol = h*eps and
atol = h*eps*M for float add/sub/mul/mean elements hit h >= 2 times; untouched elements bit-exact.

Every disagreement is matched against scripts/crosscheck_expectations.json (framework, op, reduction,
dtype, case conditions, and what every differing element must look like); the exit status is 0 when every
disagreement is expected, 1 otherwise, 2 on usage or tool errors, 77 when no framework can be imported.
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_EXPECT = os.path.join(ROOT, "scripts", "crosscheck_expectations.json")

try:
    import numpy as np
except ImportError:
    print("crosscheck: numpy is not installed (pip install numpy); nothing can run")
    sys.exit(77)

OPS = ["scatter_elements", "scatter_nd", "scatter_update"]
REDUCTIONS = {
    "scatter_elements": ["none", "add", "mul", "min", "max", "mean"],
    "scatter_nd": ["none", "add", "sub", "mul", "min", "max"],
    "scatter_update": ["none"],
}
DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
FLOATS = {"float64", "float32", "float16", "bfloat16"}
EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
# how the arrays are held here: bfloat16 as float32 holding exactly the bfloat16 values
HOLD = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": np.float32,
        "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8,
        "bool": np.bool_}
OP_ALIASES = {"scatterelements": "scatter_elements", "scatter": "scatter_elements",
              "scatterelementsupdate": "scatter_elements", "scatternd": "scatter_nd",
              "scatterndupdate": "scatter_nd", "scatterupdate": "scatter_update",
              "scatter_elements": "scatter_elements", "scatter_nd": "scatter_nd",
              "scatter_update": "scatter_update"}
RED_ALIASES = {"none": "none", "add": "add", "sum": "add", "sub": "sub", "mul": "mul", "prod": "mul",
               "multiply": "mul", "min": "min", "max": "max", "mean": "mean"}


# ---------------------------------------------------------------------------------------------
# bfloat16 helpers (no dependency on ml_dtypes)
# ---------------------------------------------------------------------------------------------

def bf16_round(x):
    """float32 array -> float32 array rounded to bfloat16 (nearest even), NaN kept."""
    x = np.asarray(x, dtype=np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    out = r.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32("nan"), out).astype(np.float32)


def bf16_from_records(a):
    """'<V2' records (top 16 bits of float32) -> float32."""
    u = np.frombuffer(a.tobytes(), dtype="<u2").astype(np.uint32) << 16
    return u.view(np.float32).reshape(a.shape)


# ---------------------------------------------------------------------------------------------
# Random cases
# ---------------------------------------------------------------------------------------------

class Case:
    """One scatter: metadata plus (after dump) the arrays, held as HOLD[dtype]."""

    def __init__(self, name, op, reduction, dtype, axis=0, use_init_val=True, path=None):
        self.name, self.op, self.reduction, self.dtype = name, op, reduction, dtype
        self.axis, self.use_init_val, self.path = axis, use_init_val, path
        self.data = self.indices = self.updates = self.ref = None

    @property
    def k(self):
        return self.indices.shape[-1] if self.op == "scatter_nd" else None

    def label(self):
        return (self.op, self.reduction, self.dtype)


def random_values(rng, dtype, n, reduction, special):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype in FLOATS:
        mode = rng.integers(3)
        if reduction == "mul":
            v = rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)
            v = np.where(rng.random(n) < 0.2, np.round(v), v)
        elif mode == 0:
            v = rng.integers(-8, 9, n).astype(np.float64)
            v = np.where((v == 0) & (rng.random(n) < 0.5), -0.0, v)
        elif mode == 1:
            v = rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3)
        else:
            v = rng.uniform(-100, 100, n)
        if special:
            pick = rng.random(n)
            specials = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0], n)
            v = np.where(pick < 0.25, specials, v)
        if dtype == "bfloat16":
            return bf16_round(v.astype(np.float32))
        return v.astype(HOLD[dtype])
    lo, hi = {"int8": (-10, 11), "uint8": (0, 21), "int16": (-300, 301)}.get(dtype, (-1000, 1001))
    if reduction == "mul":
        lo, hi = (0, 4) if dtype == "uint8" else (-3, 4)
    return rng.integers(lo, hi, n).astype(HOLD[dtype])


def random_shape(rng, rank, big):
    if big:
        dims = [int(rng.integers(2, 17)) for _ in range(rank)]
    else:
        dims = [int(rng.integers(1, 5)) for _ in range(rank)]
    return dims


def gen_case(rng, seed, i):
    op = OPS[int(rng.choice(3, p=[0.45, 0.4, 0.15]))]
    reduction = str(rng.choice(REDUCTIONS[op]))
    dtypes = [d for d in DTYPES if not (d == "bool" and reduction == "mean")]
    dtype = str(rng.choice(dtypes))
    rank = int(rng.integers(1, 5))
    big = rng.random() < 0.05
    shape = random_shape(rng, rank, big)
    idt = np.int64 if rng.random() < 0.7 else np.int32
    neg_p = float(rng.choice([0.0, 0.0, 0.3, 1.0])) if op != "scatter_update" else 0.0
    empty = rng.random() < 0.03
    mode = str(rng.choice(["random", "unique", "clash"], p=[0.5, 0.3, 0.2]))
    c = Case(f"xc_s{seed}_{i:05d}_{op}_{reduction}_{dtype}", op, reduction, dtype)

    if op == "scatter_elements":
        axis = int(rng.integers(-rank, rank))
        ax = axis % rank
        s = shape[ax]
        ishape = [int(rng.integers(1, d + 1)) for d in shape]
        ishape[ax] = int(rng.integers(1, s + 1)) if mode == "unique" else int(rng.integers(1, s + 3))
        if empty:
            ishape[int(rng.integers(rank))] = 0
        n = int(np.prod(ishape))
        if mode == "unique":
            # a fresh permutation prefix per line along the axis
            idx = np.empty(ishape, dtype=np.int64)
            moved = np.moveaxis(idx, ax, -1)
            for line in np.ndindex(*moved.shape[:-1]):
                moved[line] = rng.permutation(s)[: moved.shape[-1]]
        elif mode == "clash":
            idx = np.full(ishape, int(rng.integers(s)), dtype=np.int64)
        else:
            idx = rng.integers(0, s, ishape)
        if neg_p:
            idx = np.where(rng.random(ishape) < neg_p, idx - s, idx)
        c.axis = axis
        c.indices = idx.astype(idt)
        ushape = ishape
    elif op == "scatter_nd":
        k = int(rng.integers(0, rank + 1))
        batch = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
        if empty:
            batch = batch + [0] if not batch else [0] + batch[1:]
        if k == 0:
            batch = batch[:1] or [1]
        m = int(np.prod(batch))
        lead = shape[:k]
        npos = int(np.prod(lead)) if k else 1
        if mode == "unique" and m <= npos:
            flat = rng.permutation(npos)[:m]
        elif mode == "clash":
            flat = np.full(m, int(rng.integers(npos)))
        else:
            flat = rng.integers(0, npos, m)
        tup = np.stack(np.unravel_index(flat, lead), axis=-1) if k else np.zeros((m, 0), dtype=np.int64)
        idx = tup.reshape(batch + [k]).astype(np.int64)
        if neg_p and k:
            idx = np.where(rng.random(idx.shape) < neg_p, idx - np.array(lead), idx)
        c.indices = idx.astype(idt)
        ushape = batch + shape[k:]
    else:
        axis = int(rng.integers(-rank, rank))
        ax = axis % rank
        s = shape[ax]
        ishape = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
        if empty:
            ishape = [0] + ishape[1:]
        n = int(np.prod(ishape))
        if mode == "unique" and n <= s:
            idx = rng.permutation(s)[:n].reshape(ishape)
        elif mode == "clash":
            idx = np.full(ishape, int(rng.integers(s)))
        else:
            idx = rng.integers(0, s, ishape)
        c.axis = axis
        c.indices = np.asarray(idx, dtype=np.int64).astype(idt)
        ushape = shape[:ax] + ishape + shape[ax + 1:]

    if op == "scatter_elements" and reduction != "none" and rng.random() < 0.3:
        c.use_init_val = False
    special = dtype in FLOATS and rng.random() < 0.2
    c.data = random_values(rng, dtype, int(np.prod(shape)), reduction, special).reshape(shape)
    c.updates = random_values(rng, dtype, int(np.prod(ushape)), reduction, special).reshape(ushape)
    return c


def json_value(x, dtype):
    if dtype == "bool":
        return bool(x)
    if dtype in FLOATS:
        f = float(x)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    return int(x)


def json_tensor(a, dtype):
    return {"dtype": dtype, "shape": list(a.shape), "values": [json_value(x, dtype) for x in a.reshape(-1)]}


def write_case(c, path):
    obj = {"format": 1, "name": c.name,
           "source": "scripts/crosscheck.py (random case)", "tags": ["crosscheck"], "op": c.op}
    if c.op != "scatter_nd":
        obj["axis"] = c.axis
    if c.reduction != "none":
        obj["reduction"] = c.reduction
    if c.op == "scatter_elements" and not c.use_init_val:
        obj["use_init_val"] = False
    obj["inputs"] = {"data": json_tensor(c.data, c.dtype),
                     "indices": json_tensor(c.indices, str(c.indices.dtype)),
                     "updates": json_tensor(c.updates, c.dtype)}
    with open(path, "w") as f:
        json.dump(obj, f, allow_nan=False)
        f.write("\n")
    c.path = path


def write_stress_case(rng, seed, i, keep):
    """A big scatter_nd with heavy duplicates (4 rows, 20k-100k updates), integer so every lost update shows;
    written with generators so the file stays small. This is where multi-threaded kernels race."""
    red = str(rng.choice(["add", "mul", "max", "min"]))
    dtype = str(rng.choice(["int32", "int64"]))
    inner, n = [(16, 100000), (64, 20000)][int(rng.integers(2))]
    s0 = int(rng.integers(1 << 31))
    data = {"add": {"kind": "fill", "value": 0}, "mul": {"kind": "randint", "low": 1, "high": 100, "seed": s0},
            "max": {"kind": "fill", "value": 0}, "min": {"kind": "fill", "value": 0}}[red]
    upd = {"add": {"kind": "randint", "low": 0, "high": 1000, "seed": s0 + 1},
           "mul": {"kind": "fill", "value": -1},
           "max": {"kind": "randint", "low": -1000000, "high": 1000000, "seed": s0 + 1},
           "min": {"kind": "randint", "low": -1000000, "high": 1000000, "seed": s0 + 1}}[red]
    name = f"xc_s{seed}_stress{i:03d}_scatter_nd_{red}_{dtype}"
    obj = {"format": 1, "name": name, "source": "scripts/crosscheck.py (stress case)",
           "tags": ["crosscheck", "stress"], "op": "scatter_nd", "reduction": red,
           "inputs": {"data": {"dtype": dtype, "shape": [4, inner], "generate": data},
                      "indices": {"dtype": "int64", "shape": [n, 1],
                                  "generate": {"kind": "indices", "seed": s0 + 2}},
                      "updates": {"dtype": dtype, "shape": [n, inner], "generate": upd}}}
    path = os.path.join(keep, "cases", name + ".json")
    with open(path, "w") as f:
        json.dump(obj, f)
        f.write("\n")
    return Case(name, "scatter_nd", red, dtype, path=path)


def read_cases(path):
    """Case metadata from a case file (for --replay); tensors come from `scatterctl dump`."""
    with open(path) as f:
        obj = json.load(f)
    out = []
    for cj in obj["cases"] if "cases" in obj else [obj]:
        if "expect_error" in cj:
            continue
        op = OP_ALIASES[cj["op"].lower()]
        red = RED_ALIASES[cj.get("reduction", "none").lower()]
        c = Case(cj["name"], op, red, cj["inputs"]["data"]["dtype"], int(cj.get("axis", 0)),
                 bool(cj.get("use_init_val", True)), path)
        out.append(c)
    return out


# ---------------------------------------------------------------------------------------------
# scatterctl dump
# ---------------------------------------------------------------------------------------------

def load_npy(path, dtype):
    a = np.load(path)
    if dtype == "bfloat16":
        return bf16_from_records(a)
    return a


def dump(scatterctl, cases, out_dir):
    """Fill in the cases' arrays from `scatterctl dump`; returns the cases it could dump."""
    paths = sorted({c.path for c in cases})
    r = subprocess.run([scatterctl, "dump", *paths, "--out", out_dir], capture_output=True, text=True)
    if r.returncode != 0:
        # one bad file should not hide the rest: retry one file at a time
        for p in paths:
            r1 = subprocess.run([scatterctl, "dump", p, "--out", out_dir], capture_output=True, text=True)
            if r1.returncode != 0:
                print(f"crosscheck: scatterctl dump failed for {p}:\n{r1.stdout}{r1.stderr}", file=sys.stderr)
    done = []
    for c in cases:
        d = os.path.join(out_dir, c.name)
        if not os.path.isfile(os.path.join(d, "reference.npy")):
            continue
        c.data = load_npy(os.path.join(d, "data.npy"), c.dtype)
        c.indices = np.load(os.path.join(d, "indices.npy"))
        c.updates = load_npy(os.path.join(d, "updates.npy"), c.dtype)
        c.ref = load_npy(os.path.join(d, "reference.npy"), c.dtype)
        done.append(c)
    return done


# ---------------------------------------------------------------------------------------------
# Where every update lands (computed here, independently of scatterctl)
# ---------------------------------------------------------------------------------------------

def targets(c):
    """(out_flat[u], negative[u]) for every update element u in row-major order."""
    shape = c.data.shape
    idx = c.indices.astype(np.int64)
    if c.op == "scatter_elements":
        ax = c.axis % len(shape)
        s = shape[ax]
        neg = idx < 0
        norm = np.where(neg, idx + s, idx)
        coords = list(np.indices(idx.shape))
        coords[ax] = norm
        flat = np.ravel_multi_index(tuple(coords), shape) if idx.size else np.zeros(0, np.int64)
        return flat.reshape(-1), neg.reshape(-1)
    if c.op == "scatter_nd":
        k = idx.shape[-1]
        lead = shape[:k]
        inner = int(np.prod(shape[k:]))
        t = idx.reshape(int(np.prod(idx.shape[:-1])), k)
        neg_t = (t < 0).any(axis=1)
        t = np.where(t < 0, t + np.array(lead, dtype=np.int64), t)
        base = np.ravel_multi_index(tuple(t.T), lead) if k and len(t) else np.zeros(len(t), np.int64)
        flat = (base[:, None] * inner + np.arange(inner)[None, :]).reshape(-1)
        return flat, np.repeat(neg_t, inner)
    ax = c.axis % len(shape)
    pre, s, post = int(np.prod(shape[:ax])), shape[ax], int(np.prod(shape[ax + 1:]))
    n = idx.size
    i = idx.reshape(-1)
    flat = (np.arange(pre)[:, None, None] * s * post + i[None, :, None] * post
            + np.arange(post)[None, None, :]).reshape(-1)
    return flat, np.zeros(pre * n * post, dtype=bool)


# ---------------------------------------------------------------------------------------------
# Comparison (the spec's rules)
# ---------------------------------------------------------------------------------------------

def bits(a, dtype):
    a = np.asarray(a).copy(order="C")
    if dtype in FLOATS:
        w = {8: np.uint64, 4: np.uint32, 2: np.uint16}[a.dtype.itemsize]
        return a.view(w)
    return a


def same(a, b, dtype):
    """Elementwise bit equality, any NaN == any NaN."""
    eq = bits(a, dtype) == bits(b, dtype)
    if dtype in FLOATS:
        eq |= np.isnan(a) & np.isnan(b)
    return eq


def compare(c, got):
    """Returns a list of differing elements: dicts with flat, got, want, h, features."""
    dtype = c.dtype
    want = c.ref.reshape(-1)
    got = np.asarray(got).reshape(-1)
    if got.shape != want.shape:
        return [{"flat": -1, "got": f"shape {got.shape}", "want": f"shape {want.shape}", "h": 0,
                 "features": {"shape"}}]
    data = c.data.reshape(-1)
    upd = c.updates.reshape(-1)
    flat, neg = targets(c)
    h = np.bincount(flat, minlength=want.size) if flat.size else np.zeros(want.size, np.int64)
    ok = same(got, want, dtype)
    bad = []
    fl = dtype in FLOATS
    order = np.argsort(flat, kind="stable")
    starts = np.searchsorted(flat[order], np.arange(want.size))
    for e in np.nonzero(~ok)[0]:
        hits = int(h[e])
        us = order[starts[e]:starts[e] + hits]
        vals = upd[us]
        if hits >= 2 and c.reduction == "none":
            if np.any(same(np.full(len(vals), got[e], dtype=vals.dtype), vals, dtype)):
                continue
        if hits >= 2 and fl and c.reduction in ("add", "sub", "mul", "mean"):
            g, w = float(got[e]), float(want[e])
            if not (math.isnan(g) or math.isnan(w) or math.isinf(g) or math.isinf(w)):
                init = c.use_init_val or c.op != "scatter_elements"
                mags = [abs(float(v)) for v in vals] + ([abs(float(data[e]))] if init else [])
                m = sum(mags)
                if c.reduction == "mean":
                    m /= (hits + (1 if init else 0))
                eps = EPS[dtype]
                if abs(g - w) <= hits * eps * m + hits * eps * abs(w):
                    continue
        involved = list(vals) + ([data[e]] if (c.use_init_val or c.op != "scatter_elements" or hits == 0) else [])
        f = set()
        if hits >= 2:
            f.add("dup")
        if hits == 0:
            f.add("untouched")
        if fl:
            inv = np.array(involved, dtype=np.float64)
            if np.isnan(inv).any():
                f.add("nan_involved")
            if np.isinf(inv).any():
                f.add("inf_involved")
            if (inv == 0).any():
                f.add("zero_involved")
            g, w = float(got[e]), float(want[e])
            if g == 0 and w == 0:
                f.add("signed_zero")
            if math.isnan(g) != math.isnan(w):
                f.add("nan_mismatch")
        if neg[us].any():
            f.add("neg_index")
        bad.append({"flat": int(e), "got": got[e], "want": want[e], "h": hits, "features": f})
    return bad


# ---------------------------------------------------------------------------------------------
# Frameworks
# ---------------------------------------------------------------------------------------------

class NotDefined(Exception):
    """The framework has no such operation (n/a)."""


def nd_from_update(c):
    """scatter_update as ScatterND on the axis moved to the front: (data_t, indices, updates_t, undo)."""
    r = c.data.ndim
    ax = c.axis % r
    data_t = np.moveaxis(c.data, ax, 0)
    ir = c.indices.ndim
    upd_t = np.moveaxis(c.updates, list(range(ax, ax + ir)), list(range(ir)))
    idx = c.indices.reshape(c.indices.shape + (1,))
    return data_t.copy(order="C"), idx, upd_t.copy(order="C"), (lambda y: np.moveaxis(y, 0, ax))


class OnnxBase:
    def __init__(self):
        import onnx
        from onnx import helper, TensorProto
        self.onnx, self.helper, self.TP = onnx, helper, TensorProto
        self.elem = {"float64": TensorProto.DOUBLE, "float32": TensorProto.FLOAT,
                     "float16": TensorProto.FLOAT16, "bfloat16": TensorProto.BFLOAT16,
                     "int64": TensorProto.INT64, "int32": TensorProto.INT32, "int16": TensorProto.INT16,
                     "int8": TensorProto.INT8, "uint8": TensorProto.UINT8, "bool": TensorProto.BOOL}
        try:
            import ml_dtypes
            self.bf16 = ml_dtypes.bfloat16
        except ImportError:
            self.bf16 = None

    def model(self, c, op, attrs, idt):
        h = self.helper
        node = h.make_node(op, ["data", "indices", "updates"], ["y"], **attrs)
        el = self.elem[c.dtype]
        g = h.make_graph([node], "scatter",
                         [h.make_tensor_value_info("data", el, None),
                          h.make_tensor_value_info("indices", self.elem[idt], None),
                          h.make_tensor_value_info("updates", el, None)],
                         [h.make_tensor_value_info("y", el, None)])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
        m.ir_version = 8
        return m

    def plan(self, c):
        """(model, data, indices, updates, undo) or raise NotDefined."""
        red = c.reduction
        if c.op == "scatter_elements":
            if red == "mean":
                raise NotDefined("ONNX ScatterElements has no mean")
            if red != "none" and not c.use_init_val:
                raise NotDefined("ONNX ScatterElements has no use_init_val=false")
            attrs = {"axis": c.axis}
            if red != "none":
                attrs["reduction"] = red
            return (self.model(c, "ScatterElements", attrs, str(c.indices.dtype)),
                    c.data, c.indices, c.updates, lambda y: y)
        # ScatterND takes only int64 indices: int32 ones are widened (exact)
        if c.op == "scatter_nd":
            if red == "sub":
                raise NotDefined("ONNX ScatterND has no sub")
            attrs = {"reduction": red} if red != "none" else {}
            return (self.model(c, "ScatterND", attrs, "int64"),
                    c.data, c.indices.astype(np.int64), c.updates, lambda y: y)
        d, i, u, undo = nd_from_update(c)
        return self.model(c, "ScatterND", {}, "int64"), d, i.astype(np.int64), u, undo

    def to_fw(self, a, dtype):
        if dtype == "bfloat16":
            if self.bf16 is None:
                raise RuntimeError("bfloat16 needs ml_dtypes")
            return a.astype(np.float32).astype(self.bf16)
        return a

    def from_fw(self, y, dtype):
        y = np.asarray(y)
        if dtype == "bfloat16":
            return y.astype(np.float32)
        return y.astype(HOLD[dtype], copy=False)


class OnnxReference(OnnxBase):
    name = "onnx"

    def __init__(self):
        super().__init__()
        from onnx.reference import ReferenceEvaluator
        self.RE = ReferenceEvaluator
        self.version = self.onnx.__version__

    def run(self, c):
        m, d, i, u, undo = self.plan(c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y, = self.RE(m).run(None, {"data": self.to_fw(d, c.dtype), "indices": i,
                                       "updates": self.to_fw(u, c.dtype)})
        return undo(self.from_fw(y, c.dtype))


class OnnxRuntime(OnnxBase):
    name = "onnxruntime"

    def __init__(self, threads=0):
        super().__init__()
        import onnxruntime as ort
        self.ort = ort
        ort.set_default_logger_severity(4)
        self.version = ort.__version__
        self.opts = ort.SessionOptions()
        self.opts.intra_op_num_threads = threads
        self.opts.log_severity_level = 4

    def run(self, c):
        m, d, i, u, undo = self.plan(c)
        sess = self.ort.InferenceSession(m.SerializeToString(), self.opts, providers=["CPUExecutionProvider"])
        if c.dtype != "bfloat16":
            y, = sess.run(None, {"data": d, "indices": i, "updates": u})
            return undo(self.from_fw(y, c.dtype))
        # numpy has no bfloat16: pass the raw 16-bit records as OrtValues and read the output's buffer
        def ov(a):
            rec = np.asarray((np.asarray(a, np.float32).copy(order="C").view(np.uint32) >> 16).astype(np.uint16))
            return self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(rec, self.TP.BFLOAT16)
        y, = sess.run_with_ort_values(["y"], {"data": ov(d), "indices": self.ort.OrtValue.ortvalue_from_numpy(i),
                                              "updates": ov(u)})
        import ctypes
        n = int(np.prod(y.shape()))
        raw = ctypes.string_at(y.data_ptr(), 2 * n) if n else b""
        rec = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return undo(rec.view(np.float32).reshape(y.shape()))


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        self.version = torch.__version__
        self.dt = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
                   "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
                   "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}

    def t(self, a, dtype):
        x = self.torch.from_numpy(np.asarray(a).copy(order="C"))
        return x.to(self.dt[dtype]) if dtype == "bfloat16" else x

    def back(self, y, dtype):
        if dtype == "bfloat16":
            return y.to(self.torch.float32).numpy()
        return y.numpy()

    def run(self, c):
        torch = self.torch
        data = self.t(c.data, c.dtype).clone()
        upd = self.t(c.updates, c.dtype)
        idx = torch.from_numpy(c.indices.astype(np.int64))
        red = c.reduction
        r = c.data.ndim
        if c.op == "scatter_elements":
            s = c.data.shape[c.axis % r]
            if not getattr(c, "raw", False):
                idx = torch.where(idx < 0, idx + s, idx)  # scatter_/scatter_reduce_ reject negatives
            if red == "none":
                y = data.scatter_(c.axis, idx, upd)
            else:
                tr = {"add": "sum", "mul": "prod", "min": "amin", "max": "amax", "mean": "mean"}[red]
                y = data.scatter_reduce_(c.axis, idx, upd, tr, include_self=c.use_init_val)
            return self.back(y, c.dtype)
        if c.op == "scatter_update":
            ax = c.axis % r
            n = c.indices.size
            shp = list(c.data.shape[:ax]) + [n] + list(c.data.shape[ax + 1:])
            y = data.index_copy_(ax, idx.reshape(-1), upd.reshape(shp))
            return self.back(y, c.dtype)
        k = c.indices.shape[-1]
        shape = list(c.data.shape)
        if red == "sub" and c.dtype == "bool":
            raise NotDefined("torch has no XOR scatter (index_add_ with alpha=-1 is not defined for bool)")
        if red in ("none", "add") and k >= 1:
            tup = tuple(idx[..., j] for j in range(k))  # advanced indexing: negatives allowed
            y = data.index_put_(tup, upd, accumulate=(red == "add"))
            return self.back(y, c.dtype)
        lead = shape[:k]
        p = int(np.prod(lead)) if k else 1
        t = idx.reshape(int(np.prod(c.indices.shape[:-1])), k)
        if k:
            t = torch.where(t < 0, t + torch.tensor(lead), t)
            strides = torch.tensor([int(np.prod(lead[j + 1:])) for j in range(k)])
            flat = (t * strides).sum(dim=1)
        else:
            flat = torch.zeros(t.shape[0], dtype=torch.int64)
        d2 = data.reshape([p] + shape[k:])
        u2 = upd.reshape([t.shape[0]] + shape[k:])
        if red == "none":
            d2.index_put_((flat,), u2, accumulate=False)
        elif red == "add":
            d2.index_put_((flat,), u2, accumulate=True)
        elif red == "sub":
            d2.index_add_(0, flat, u2, alpha=-1)
        else:
            tr = {"mul": "prod", "min": "amin", "max": "amax"}[red]
            d2.index_reduce_(0, flat, u2, tr, include_self=True)
        return self.back(d2.reshape(shape), c.dtype)


FRAMEWORKS = {"onnx": (OnnxReference, "onnx"), "onnxruntime": (OnnxRuntime, "onnxruntime"),
              "torch": (Torch, "torch")}


REQUIRES = {"onnx": ["onnx"], "onnxruntime": ["onnxruntime", "onnx"], "torch": ["torch"]}


def load_frameworks(names):
    import importlib.util
    fws, missing = [], []
    for n in names:
        lacking = [m for m in REQUIRES[n] if importlib.util.find_spec(m) is None]
        if lacking:
            why = " and ".join(lacking) + (" (onnx builds the models)" if n == "onnxruntime" and "onnx" in lacking
                                           else "")
            missing.append(f"{n}: needs {why}; pip install {' '.join(lacking)}")
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fws.append(FRAMEWORKS[n][0]())
        except Exception as e:  # installed but broken (ABI mismatch, missing shared library, ...)
            missing.append(f"{n}: installed but failed to import ({short_error(e)})")
    return fws, missing


# ---------------------------------------------------------------------------------------------
# Expectations
# ---------------------------------------------------------------------------------------------

def load_expectations(path):
    if not path or not os.path.isfile(path):
        return []
    with open(path) as f:
        return json.load(f)["expected_disagreements"]


def _in(v, allowed):
    return allowed is None or allowed == "*" or v in allowed


def case_conditions(c):
    cond = {"use_init_val": c.use_init_val if c.op == "scatter_elements" else True,
            "negative_indices": bool((c.indices < 0).any()),
            "k": c.k}
    return cond


def version_key(v):
    out = []
    for part in v.split("+")[0].split("."):
        num = "".join(ch for ch in part if ch.isdigit())
        out.append(int(num) if num else 0)
    return tuple(out)


def matches(exp, fw, c, bad):
    if "min_version" in exp and version_key(fw.version) < version_key(exp["min_version"]):
        return False
    if "max_version" in exp and version_key(fw.version) > version_key(exp["max_version"]):
        return False
    if exp["framework"] != fw.name or not (_in(c.op, exp.get("op")) and _in(c.reduction, exp.get("reduction"))
                                          and _in(c.dtype, exp.get("dtype"))):
        return False
    cond = case_conditions(c)
    for key, want in exp.get("case", {}).items():
        if key == "k_min":
            if cond["k"] is None or cond["k"] < want:
                return False
        elif cond.get(key) != want:
            return False
    if "message_contains" in exp:
        if not all(any(m in b.get("message", "") for m in exp["message_contains"]) for b in bad):
            return False
    alts = exp.get("elements")
    if alts is None:
        return True
    for b in bad:
        if not any(all(p in b["features"] for p in alt) for alt in alts):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Trap probes: small hand-made cases that show each framework's behaviour on the traps
# ---------------------------------------------------------------------------------------------

def probe_cases():
    f32 = np.float32
    P = []

    def se(name, data, idx, upd, red="none", axis=0, dt="float32", init=True):
        c = Case(name, "scatter_elements", red, dt, axis, init)
        c.data, c.indices, c.updates = np.array(data, HOLD[dt]), np.array(idx, np.int64), np.array(upd, HOLD[dt])
        P.append(c)

    def nd(name, data, idx, upd, red="none", dt="float32"):
        c = Case(name, "scatter_nd", red, dt)
        c.data, c.indices, c.updates = np.array(data, HOLD[dt]), np.array(idx, np.int64), np.array(upd, HOLD[dt])
        P.append(c)

    se("negative index (elements)", [1, 2, 3], [-1], [9])
    se("negative index (elements), torch without the adapter's normalisation", [1, 2, 3], [-1], [9])
    P[-1].raw = True
    nd("negative index (nd)", [1, 2, 3], [[-1]], [9])
    se("out-of-range index (elements)", [1, 2, 3], [3], [9])
    nd("out-of-range index (nd)", [1, 2, 3], [[3]], [9])
    se("none, duplicates: last wins?", [0, 0], [0, 0, 0], [1, 2, 3])
    nd("nd none, duplicates: last wins?", [0, 0], [[0], [0], [0]], [1, 2, 3])
    se("max with NaN update", [1, 2], [0], [np.nan], "max")
    se("max with NaN data", [np.nan, 2], [0], [1], "max")
    se("min with NaN update", [1, 2], [0], [np.nan], "min")
    se("min with NaN data", [np.nan, 2], [0], [1], "min")
    se("max(-0, +0)", [-0.0, 1], [0], [0.0], "max")
    se("max(+0, -0)", [0.0, 1], [0], [-0.0], "max")
    se("min(+0, -0)", [0.0, 1], [0], [-0.0], "min")
    se("min(-0, +0)", [-0.0, 1], [0], [0.0], "min")
    se("int mean floor: (0 + -3)/2", [0, 5], [0], [-3], "mean", dt="int32")
    se("int mean, no init: (-1 + -2)/2", [7, 5], [0, 0], [-1, -2], "mean", dt="int32", init=False)
    se("bool add (OR)", [False, True], [0, 0], [True, False], "add", dt="bool")
    se("bool mul (AND)", [True, True], [0], [False], "mul", dt="bool")
    se("bool max", [False, True], [0], [True], "max", dt="bool")
    se("int8 add wraps", [120, 0], [0], [10], "add", dt="int8")
    se("empty updates", [1, 2, 3], np.zeros((0,), np.int64), np.zeros((0,), f32))
    nd("k = 0: whole-tensor update", [1, 2, 3], np.zeros((1, 0), np.int64), [[7, 8, 9]])
    nd("nd add, float16", [1, 2], [[0], [0]], [0.5, 0.25], "add", dt="float16")
    nd("nd max, bfloat16", [1, 2], [[0]], [3], "max", dt="bfloat16")
    nd("nd mul, uint8", [3, 2], [[0]], [100], "mul", dt="uint8")
    return P


UNSUPPORTED_PATTERNS = ("not supported", "not implemented", "No corresponding Numpy type", "Type Error: Type",
                        "can't be converted", "incompatible function arguments", "NOT_IMPLEMENTED")


def is_unsupported(msg):
    """A framework saying it has no kernel for this dtype/reduction, as opposed to failing on a case it defines."""
    return any(p in msg for p in UNSUPPORTED_PATTERNS)


def short_error(e):
    msg = " ".join(str(e).split()) or type(e).__name__
    if "Status Message:" in msg:
        msg = msg.split("Status Message:", 1)[1].strip()
    return msg[:200]


def describe(v):
    try:
        a = np.asarray(v).reshape(-1)
        return "[" + ", ".join(repr(float(x)) if a.dtype.kind == "f" else repr(x.item()) for x in a) + "]"
    except Exception:
        return str(v)


def run_probes(fws):
    print("\nTrap probes (input -> output per framework; 'error' = rejected):")
    for c in probe_cases():
        cells = []
        for fw in fws:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    y = fw.run(c)
                cells.append(f"{fw.name}: {describe(y)}")
            except NotDefined:
                cells.append(f"{fw.name}: n/a")
            except Exception as e:
                msg = short_error(e)[:90]
                cells.append(f"{fw.name}: error ({msg})")
        print(f"  {c.name}: data={describe(c.data)} idx={c.indices.tolist()} upd={describe(c.updates)} "
              f"[{c.reduction}{', use_init_val=false' if not c.use_init_val else ''}]")
        for cell in cells:
            print(f"      {cell}")


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

def find_scatterctl(arg):
    for p in ([arg] if arg else [os.path.join(ROOT, "build", "app", "scatterctl")]):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=300, help="random cases (default 300)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--scatterctl", help="the scatterctl binary (default build/app/scatterctl)")
    ap.add_argument("--keep", help="where the case files and dumps go (default: a new temp dir, printed)")
    ap.add_argument("--frameworks", default="onnx,onnxruntime,torch", help="comma-separated subset")
    ap.add_argument("--expectations", default=DEFAULT_EXPECT, help="known disagreements (JSON)")
    ap.add_argument("--ort-threads", type=int, default=0, help="onnxruntime intra-op threads (0: its default)")
    ap.add_argument("--stress", type=int, default=4,
                    help="big integer scatter_nd cases with heavy duplicates (default 4)")
    ap.add_argument("--replay", nargs="+", metavar="CASE.json", help="check these case files instead")
    ap.add_argument("--probe", action="store_true", help="run the trap probes only")
    ap.add_argument("--no-probe", action="store_true", help="skip the trap probes after the run")
    ap.add_argument("-q", "--quiet", action="store_true", help="only the summary, disagreements, and errors")
    args = ap.parse_args()

    names = [n.strip() for n in args.frameworks.split(",") if n.strip()]
    for n in names:
        if n not in FRAMEWORKS:
            print(f"crosscheck: unknown framework {n!r} (known: {', '.join(FRAMEWORKS)})", file=sys.stderr)
            return 2
    fws, missing = load_frameworks(names)
    for m in missing:
        print(f"crosscheck: missing {m} -- skipping that framework")
    for fw in fws:
        if isinstance(fw, OnnxRuntime):
            fw.opts.intra_op_num_threads = args.ort_threads
    if not fws:
        print("crosscheck: none of onnx, onnxruntime, torch is importable (pip install onnx onnxruntime torch)")
        return 77
    print("crosscheck: numpy " + np.__version__ + "; " + ", ".join(f"{fw.name} {fw.version}" for fw in fws))

    if args.probe:
        run_probes(fws)
        return 0

    scatterctl = find_scatterctl(args.scatterctl)
    if not scatterctl:
        print(f"crosscheck: scatterctl not found ({args.scatterctl or 'build/app/scatterctl'}); build it or "
              "pass --scatterctl", file=sys.stderr)
        return 2
    keep = args.keep or tempfile.mkdtemp(prefix="scatter_crosscheck_")
    os.makedirs(os.path.join(keep, "cases"), exist_ok=True)
    print(f"crosscheck: case files and dumps in {keep}")

    t0 = time.time()
    if args.replay:
        cases = []
        for p in args.replay:
            for f in ([os.path.join(dp, fn) for dp, _, fns in os.walk(p) for fn in fns if fn.endswith(".json")]
                      if os.path.isdir(p) else [p]):
                cases += read_cases(os.path.abspath(f))
    else:
        rng = np.random.default_rng(args.seed)
        cases = []
        for i in range(args.iterations):
            c = gen_case(rng, args.seed, i)
            write_case(c, os.path.join(keep, "cases", c.name + ".json"))
            cases.append(c)
        for i in range(args.stress):
            cases.append(write_stress_case(rng, args.seed, i, keep))
    dumped = dump(scatterctl, cases, os.path.join(keep, "dump"))
    if len(dumped) != len(cases):
        print(f"crosscheck: scatterctl could not dump {len(cases) - len(dumped)} of {len(cases)} cases",
              file=sys.stderr)
        if not args.replay:
            return 2
    expectations = load_expectations(args.expectations)

    counts = collections.defaultdict(lambda: collections.Counter())  # (fw, op, red, dtype) -> Counter
    unsupported = collections.Counter()
    disagreements = []
    for c in dumped:
        for fw in fws:
            key = (fw.name,) + c.label()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = fw.run(c)
            except NotDefined:
                counts[key]["n/a"] += 1
                continue
            except Exception as e:
                msg = short_error(e)
                if is_unsupported(msg):
                    counts[key]["unsupported"] += 1
                    unsupported[(fw.name, c.op, c.reduction, c.dtype, msg[:150])] += 1
                    continue
                # raised on a case the framework defines: that is a disagreement too
                bad = [{"flat": -1, "got": f"error: {msg}", "want": "an output", "h": 0,
                        "features": {"error"}, "message": msg}]
            else:
                bad = compare(c, got)
            if not bad:
                counts[key]["agree"] += 1
                continue
            counts[key]["disagree"] += 1
            exp = next((x for x in expectations if matches(x, fw, c, bad)), None)
            disagreements.append((fw, c, bad, exp))
    elapsed = time.time() - t0

    # table
    if not args.quiet:
        print(f"\n{'framework':<12} {'op':<17} {'reduction':<9} {'dtype':<9} {'agree':>5} {'disagree':>8} "
              f"{'unsupported':>11} {'n/a':>4}")
        for key in sorted(counts):
            n = counts[key]
            print(f"{key[0]:<12} {key[1]:<17} {key[2]:<9} {key[3]:<9} {n['agree']:>5} {n['disagree']:>8} "
                  f"{n['unsupported']:>11} {n['n/a']:>4}")
    print("\nSummary per framework (cases): agree / disagree (expected) / unsupported / n/a")
    for fw in fws:
        tot = collections.Counter()
        for key, n in counts.items():
            if key[0] == fw.name:
                tot.update(n)
        nexp = sum(1 for d in disagreements if d[0] is fw and d[3] is not None)
        print(f"  {fw.name} {fw.version}: {tot['agree']} / {tot['disagree']} ({nexp}) / {tot['unsupported']} / "
              f"{tot['n/a']}")
    if unsupported:
        print("\nUnsupported (the framework raised), by reason:")
        agg = collections.Counter()
        for (fwn, op, red, dt, msg), n in unsupported.items():
            agg[(fwn, msg)] += n
        for (fwn, msg), n in sorted(agg.items(), key=lambda kv: (kv[0][0], -kv[1])):
            print(f"  {fwn}: {n} x {msg}")

    unexpected = [d for d in disagreements if d[3] is None]
    if disagreements:
        print("\nDisagreements (framework vs scatterctl ref):")
        for fw, c, bad, exp in disagreements:
            tag = f"expected: {exp['id']}" if exp else "UNEXPECTED"
            print(f"  [{tag}] {fw.name} {c.op} {c.reduction} {c.dtype} "
                  f"{'use_init_val=false ' if c.op == 'scatter_elements' and not c.use_init_val else ''}"
                  f"({len(bad)} element{'s' if len(bad) != 1 else ''}) {c.path}"
                  f"{'' if os.path.basename(c.path) == c.name + '.json' else f' (case {c.name})'}")
            for b in bad[:3 if exp else 6]:
                if "message" in b:
                    print(f"      raised: {b['message']}")
                    continue
                coord = np.unravel_index(b["flat"], c.ref.shape) if b["flat"] >= 0 and c.ref.ndim else ()
                print(f"      at {tuple(int(x) for x in coord)}: got {describe(b['got'])[1:-1]}, "
                      f"ref {describe(b['want'])[1:-1]}, hits {b['h']}, {', '.join(sorted(b['features'])) or '-'}")
    print(f"\ncrosscheck: {len(dumped)} cases, {len(disagreements)} disagreements "
          f"({len(disagreements) - len(unexpected)} expected, {len(unexpected)} unexpected) in {elapsed:.1f} s; "
          f"cases in {os.path.join(keep, 'cases')}")
    if not args.no_probe and not args.quiet and not args.replay:
        run_probes(fws)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())

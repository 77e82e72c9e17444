"""Building cases: tensors (literal, generated, .npy) and case objects with their JSON text.

make_case computes `expected` with the oracle and derives most tags from the data, so a case
is written once, by its inputs.
"""
import json
import math
import os

import numpy as np

from scatterctl_spec import INT_RANGES, NPY_DESCR, op_name as canonical_op

from .generators import generate
from .numeric import is_float, is_int, same_value, to_float
from .oracle import run_case, targets_of
from .shapes import prod


def jval(x, dt):
    if is_float(dt):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return float(x)
    return x


def nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = prod(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


class T:
    """A tensor of a case: its JSON object and its materialized flat values."""

    def __init__(self, dt, shape, flat, obj, nested=True):
        self.dt, self.shape, self.flat, self.obj = dt, list(shape), list(flat), obj
        self.nested = nested


def V(dt, shape, flat, nested=True):
    """Literal values (flat or nested). Floats must be exact in dt: the file is read as written."""
    def walk(x):
        return [z for y in x for z in walk(y)] if isinstance(x, (list, tuple, range)) else [x]

    flat = walk(list(flat))
    if is_float(dt):
        flat = [float(x) for x in flat]
        for x in flat:
            assert same_value(to_float(x, dt), x, dt), (dt, x)
    elif dt == "bool":
        flat = [bool(x) for x in flat]
    else:
        lo, hi = INT_RANGES[dt]
        assert all(is_int(x) and lo <= x <= hi for x in flat), (dt, flat)
    assert len(flat) == prod(shape), (shape, len(flat))
    js = [jval(x, dt) for x in flat]
    vals = nest(js, list(shape)) if (nested or not shape) else js
    return T(dt, shape, flat, {"dtype": dt, "shape": list(shape), "values": vals}, nested)


def G(dt, shape, gen, ctx=None):
    """A `generate` tensor; ctx = (op, axis, data shape) for kind indices."""
    return T(dt, shape, generate(gen, dt, list(shape), None, ctx),
             {"dtype": dt, "shape": list(shape), "generate": gen})


NPY_OUT = {}  # relative path from cases/ -> numpy array, written by cli.write_all


def F(dt, shape, flat, op_dir, fname):
    """A tensor read from cases/<op_dir>/npy/<fname> (written next to its case file)."""
    t = V(dt, shape, flat)
    arr = np.array(t.flat, dtype=np.dtype(NPY_DESCR[dt])).reshape(shape)
    NPY_OUT[os.path.join(op_dir, "npy", fname)] = arr
    return T(dt, shape, t.flat, {"dtype": dt, "shape": list(shape), "file": "npy/" + fname})


def make_case(name, op, data, indices, updates, red="none", axis=None, use_init=None,
              tags=(), description=None, tolerance=None, op_name=None, red_name=None):
    """Build one runnable case; `expected` comes from the oracle, tags partly derived."""
    canon_op = canonical_op(op_name or op)
    assert canon_op == op
    out = run_case(op, red, axis or 0, True if use_init is None else use_init,
                   (data.dt, data.shape, data.flat), (indices.dt, indices.shape, indices.flat),
                   (updates.dt, updates.shape, updates.flat))
    tg = targets_of(op, axis or 0, data.shape, indices.flat, indices.shape)
    hits = {}
    for t, _ in tg:
        hits[t] = hits.get(t, 0) + 1
    if red == "mean" and not is_float(data.dt):  # the sums must not wrap: keep means unambiguous
        for t in hits:
            total = sum(updates.flat[j] for tt, j in tg if tt == t)
            total += data.flat[t] if use_init is not False else 0
            lo, hi = INT_RANGES[data.dt]
            assert lo <= total <= hi, (name, t, total)
    auto = ["generated", op, red, data.dt]
    if red != "none":
        auto.append("reduction")
    if any(n > 1 for n in hits.values()):
        auto.append("duplicates")
    if any(x < 0 for x in indices.flat) or (axis or 0) < 0:
        auto.append("negative")
    if 0 in data.shape or 0 in updates.shape:
        auto.append("empty")
    if is_float(data.dt):
        allv = data.flat + updates.flat + out
        if any(math.isnan(x) for x in allv):
            auto.append("nan")
        if any(x == 0 and math.copysign(1, x) < 0 for x in allv):
            auto.append("signed_zero")
    for t in (data, indices, updates):
        if "generate" in t.obj and "generate" not in auto:
            auto.append("generate")
        if "file" in t.obj and "npy" not in auto:
            auto.append("npy")
    c = {"name": name}
    if description:
        c["description"] = description
    c["tags"] = auto + [x for x in tags if x not in auto]
    c["op"] = op_name or op
    if axis is not None:
        c["axis"] = axis
    if red != "none" or red_name:
        c["reduction"] = red_name or red
    if use_init is not None:
        c["use_init_val"] = use_init
    c["inputs"] = {"data": data.obj, "indices": indices.obj, "updates": updates.obj}
    c["expected"] = V(data.dt, data.shape, out, data.nested).obj
    if tolerance is not None:
        c["tolerance"] = tolerance
    return c


def dumps_cases(cases):
    """One case per block, one tensor per line: small diffs, readable by eye."""
    def compact(v):
        return json.dumps(v, separators=(", ", ": "), allow_nan=False)

    blocks = []
    for c in cases:
        items = []
        for k, v in c.items():
            if k == "inputs":
                inner = ",\n".join("      %s: %s" % (json.dumps(r), compact(t))
                                   for r, t in v.items())
                items.append('    "inputs": {\n%s\n    }' % inner)
            else:
                items.append("    %s: %s" % (json.dumps(k), compact(v)))
        blocks.append("  {\n" + ",\n".join(items) + "\n  }")
    return '{"format": 1, "cases": [\n' + ",\n".join(blocks) + "\n]}\n"

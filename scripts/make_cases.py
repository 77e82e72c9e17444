#!/usr/bin/env python3
"""Independent Python oracle for scatterctl's bundled cases.

    python3 scripts/make_cases.py           # rewrite the generated cases (gen_*.json, npy/gen_*)
    python3 scripts/make_cases.py --verify  # re-check every case file under cases/ with this oracle

Nothing here uses the C++ code. The arithmetic follows the case-format spec (docs/case-format.md) and the
project's choices: one update at a time in row-major update order, in the data's own type
(float results rounded to nearest-even after every step, computed exactly with fractions;
integers wrap), IEEE 754-2019 minimum/maximum, integer mean floored, `none` = last writer.
Generators (SplitMix64, arange, fill, uniform, randint, indices) are implemented per the spec.
Only numpy is needed, and only to write and read .npy files.

--verify loads every *.json under cases/ (skipping cases/large/), checks each case with an
independent validator (a valid case must raise no error; an expect_error case must raise
exactly its code and no other), materializes values/generate/file tensors, runs the oracle
and compares with `expected` bit for bit (any NaN equals any NaN).
"""
import json
import math
import os
import re
import sys
from fractions import Fraction

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "cases")

# ----------------------------------------------------------------------------------------
# Numeric model
# ----------------------------------------------------------------------------------------

# binary formats: precision (with the implicit bit), minimum normal exponent, maximum exponent
FLOAT_FORMATS = {
    "float64": (53, -1022, 1023),
    "float32": (24, -126, 127),
    "float16": (11, -14, 15),
    "bfloat16": (8, -126, 127),
}
INT_RANGES = {
    "int64": (-(1 << 63), (1 << 63) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int8": (-128, 127),
    "uint8": (0, 255),
}
ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
            "int16": 2, "int8": 1, "uint8": 1, "bool": 1}
DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool"]
NPY_DTYPES = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "int64": "<i8",
              "int32": "<i4", "int16": "<i2", "int8": "|i1", "uint8": "|u1", "bool": "|b1"}
INF = float("inf")
NAN = float("nan")


def is_float(dt):
    return dt in FLOAT_FORMATS


def round_to(q, dt):
    """Round the exact rational q to float dtype dt, to nearest, ties to even. Returns a
    Python float holding the value exactly (every format here is a subset of double)."""
    p, emin, emax = FLOAT_FORMATS[dt]
    if q == 0:
        return 0.0
    neg = q < 0
    a = -q if neg else q
    num, den = a.numerator, a.denominator
    e = num.bit_length() - den.bit_length()  # 2^e <= a < 2^(e+1) after the fix-up
    if (num << max(-e, 0)) < (den << max(e, 0)):
        e -= 1
    eu = max(e, emin) - (p - 1)  # exponent of one ulp at a's binade (subnormals: fixed)
    sn, sd = (num, den << eu) if eu >= 0 else (num << -eu, den)
    n, r = divmod(sn, sd)
    if 2 * r > sd or (2 * r == sd and n & 1):
        n += 1
    if n == 0:
        return -0.0 if neg else 0.0
    if n.bit_length() + eu > emax + 1:
        return -INF if neg else INF
    v = math.ldexp(n, eu)
    return -v if neg else v


def to_float(x, dt):
    """A double (or int) cast to float dtype dt, rounding to nearest-even."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return x
    if x == 0:
        return math.copysign(0.0, x) if isinstance(x, float) else 0.0
    return round_to(Fraction(x), dt)


def wrap(v, dt):
    lo, hi = INT_RANGES[dt]
    return ((v - lo) % (hi - lo + 1)) + lo


def f_add(a, b, dt):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and a != b:
            return NAN
        return a if math.isinf(a) else b
    if a == 0 and b == 0:
        return -0.0 if (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) else 0.0
    q = Fraction(a) + Fraction(b)
    return 0.0 if q == 0 else round_to(q, dt)


def f_mul(a, b, dt):
    if math.isnan(a) or math.isnan(b):
        return NAN
    neg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        return -INF if neg else INF
    if a == 0 or b == 0:
        return -0.0 if neg else 0.0
    return round_to(Fraction(a) * Fraction(b), dt)


def f_div_count(s, n, dt):
    """s / n for a positive integer count n, correctly rounded to dt."""
    if math.isnan(s) or math.isinf(s) or s == 0:
        return s
    return round_to(Fraction(s) / n, dt)


def f_min(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == 0 and b == 0:
        return -0.0 if (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else 0.0
    return a if a < b else b


def f_max(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == 0 and b == 0:
        return 0.0 if (math.copysign(1, a) > 0 or math.copysign(1, b) > 0) else -0.0
    return a if a > b else b


def combine(red, dt, out, u):
    """out = f(out, u) for one update, in dtype dt."""
    if red == "none":
        return u
    if dt == "bool":
        return {"add": out or u, "sub": out != u, "mul": out and u,
                "min": out and u, "max": out or u}[red]
    if is_float(dt):
        if red == "add":
            return f_add(out, u, dt)
        if red == "sub":
            return f_add(out, -u, dt)
        if red == "mul":
            return f_mul(out, u, dt)
        if red == "min":
            return f_min(out, u)
        if red == "max":
            return f_max(out, u)
    else:
        if red == "add":
            return wrap(out + u, dt)
        if red == "sub":
            return wrap(out - u, dt)
        if red == "mul":
            return wrap(out * u, dt)
        if red == "min":
            return min(out, u)
        if red == "max":
            return max(out, u)
    raise ValueError(red)


def identity(red, dt):
    """Start value of a targeted element when use_init_val is false."""
    if dt == "bool":
        return {"add": False, "mul": True, "min": True, "max": False}[red]
    if is_float(dt):
        return {"add": 0.0, "mean": 0.0, "mul": 1.0, "min": INF, "max": -INF}[red]
    lo, hi = INT_RANGES[dt]
    return {"add": 0, "mean": 0, "mul": 1, "min": hi, "max": lo}[red]


def same_value(a, b, dt):
    """Bitwise equality of two elements of dtype dt; any NaN equals any NaN."""
    if is_float(dt):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b)


# ----------------------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------------------

def prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def ndindex(shape):
    """All coordinates of shape in row-major order."""
    n = prod(shape)
    for flat in range(n):
        c, rem = [], flat
        for d in reversed(shape):
            c.append(rem % d)
            rem //= d
        yield tuple(reversed(c))


def ravel(coords, shape):
    off = 0
    for c, d in zip(coords, shape):
        off = off * d + c
    return off


# ----------------------------------------------------------------------------------------
# The three ops (naive, row-major over updates)
# ----------------------------------------------------------------------------------------

def reduce_into(data, dt, targets, red, use_init):
    """targets: (flat output offset, update value) in row-major update order."""
    out = list(data)
    if red == "none":
        for t, u in targets:
            out[t] = u
        return out
    acc, count = {}, {}
    for t, u in targets:
        if t not in acc:
            acc[t] = data[t] if use_init else identity(red, dt)
            count[t] = 1 if use_init else 0
        acc[t] = combine("add" if red == "mean" else red, dt, acc[t], u)
        count[t] += 1
    for t, v in acc.items():
        if red == "mean":
            v = f_div_count(v, count[t], dt) if is_float(dt) else v // count[t]
        out[t] = v
    return out


def targets_elements(dshape, idx, ishape, axis):
    """(flat output offset, flat update index) for each update, in row-major update order."""
    axis = axis + len(dshape) if axis < 0 else axis
    s = dshape[axis]
    out = []
    for flat, c in enumerate(ndindex(ishape)):
        i = idx[flat] + s if idx[flat] < 0 else idx[flat]
        assert 0 <= i < s
        c = list(c)
        c[axis] = i
        out.append((ravel(c, dshape), flat))
    return out


def targets_nd(dshape, idx, ishape):
    k = ishape[-1]
    slice_size = prod(dshape[k:])
    out = []
    for i in range(prod(ishape[:-1])):
        tup = []
        for j in range(k):
            v = idx[i * k + j]
            v = v + dshape[j] if v < 0 else v
            assert 0 <= v < dshape[j]
            tup.append(v)
        base = ravel(tup, dshape[:k]) * slice_size
        out.extend((base + e, i * slice_size + e) for e in range(slice_size))
    return out


def targets_update(dshape, idx, ishape, axis):
    axis = axis + len(dshape) if axis < 0 else axis
    outer, s, inner = prod(dshape[:axis]), dshape[axis], prod(dshape[axis + 1:])
    m = prod(ishape)
    out = []
    for o in range(outer):
        for j in range(m):
            assert 0 <= idx[j] < s
            out.extend((((o * s) + idx[j]) * inner + e, (o * m + j) * inner + e)
                       for e in range(inner))
    return sorted(out, key=lambda t: t[1])


def targets_of(op, axis, dshape, idx, ishape):
    if op == "scatter_elements":
        return targets_elements(dshape, idx, ishape, axis)
    if op == "scatter_nd":
        return targets_nd(dshape, idx, ishape)
    return targets_update(dshape, idx, ishape, axis)


def run_case(op, red, axis, use_init, data, idx, upd):
    """data/idx/upd: (dtype, shape, flat values). Returns the output's flat values."""
    dt, dshape, dv = data
    tg = targets_of(op, axis, dshape, idx[2], idx[1])
    return reduce_into(dv, dt, [(t, upd[2][j]) for t, j in tg], red,
                       use_init if op == "scatter_elements" else True)


# ----------------------------------------------------------------------------------------
# SplitMix64 and the spec's generators
# ----------------------------------------------------------------------------------------

M64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed=0):
        self.state = seed & M64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def unit(self):
        """(draw >> 11) * 2^-53, a double in [0, 1)."""
        return (self.next() >> 11) * (2.0 ** -53)


def cast_double(x, dt):
    """A generator's double value cast to dt: floats round to nearest, integers floor."""
    if is_float(dt):
        return to_float(x, dt)
    v = math.floor(x)
    lo, hi = INT_RANGES[dt]
    if not lo <= v <= hi:
        raise CaseError("values", "generated value %r does not fit %s" % (x, dt))
    return v


def cast_int(v, dt):
    if is_float(dt):
        return to_float(v, dt)
    lo, hi = INT_RANGES[dt]
    if not lo <= v <= hi:
        raise CaseError("values", "generated value %d does not fit %s" % (v, dt))
    return v


def partial_fisher_yates(rng, n, m):
    if m > n:
        raise CaseError("values", "unique indices: %d values asked from %d" % (m, n))
    a = list(range(n))
    for j in range(m):
        r = j + rng.next() % (n - j)
        a[j], a[r] = a[r], a[j]
    return a[:m]


def generate(gen, dt, shape, role=None, ctx=None):
    """Materialize a generator object. ctx (op, axis, data shape) is needed for `indices`."""
    n = prod(shape)
    kind = gen["kind"]
    if kind == "arange":
        start, step = gen.get("start", 0), gen.get("step", 1)
        if is_float(dt):
            return [to_float(float(start) + float(i) * float(step), dt) for i in range(n)]
        return [cast_int(start + i * step, dt) for i in range(n)]
    if kind == "fill":
        v = gen["value"]
        if is_float(dt):
            return [to_float(float(v), dt)] * n
        if dt == "bool":
            return [bool(v)] * n
        return [cast_int(v, dt)] * n
    rng = SplitMix64(gen.get("seed", 0))
    if kind == "uniform":
        lo, hi = float(gen["low"]), float(gen["high"])
        return [cast_double(lo + (hi - lo) * rng.unit(), dt) for _ in range(n)]
    if kind == "randint":
        lo, hi = gen["low"], gen["high"]
        return [cast_int(lo + rng.next() % (hi - lo), dt) for _ in range(n)]
    if kind == "indices":
        return generate_indices(gen, shape, rng, *ctx)
    raise ValueError(kind)


def generate_indices(gen, ishape, rng, op, axis, dshape):
    n = prod(ishape)
    unique, p = gen.get("unique", False), gen.get("negative", 0.0)
    if op == "scatter_nd":
        k = ishape[-1]
        extent = lambda flat: dshape[flat % k] if k else 1
        if unique:
            tuples = partial_fisher_yates(rng, prod(dshape[:k]), prod(ishape[:-1]))
            vals = []
            for t in tuples:
                c, rem = [], t
                for d in reversed(dshape[:k]):
                    c.append(rem % d)
                    rem //= d
                vals.extend(reversed(c))
        else:
            vals = [rng.next() % extent(f) for f in range(n)]
    else:
        a = axis + len(dshape) if axis < 0 else axis
        s = dshape[a]
        extent = lambda flat: s
        if not unique:
            vals = [rng.next() % s for _ in range(n)]
        elif op == "scatter_update":
            vals = partial_fisher_yates(rng, s, n)
        else:
            vals = [0] * n
            other = [d for j, d in enumerate(ishape) if j != a]
            for oc in ndindex(other):
                line = partial_fisher_yates(rng, s, ishape[a])
                for j, v in enumerate(line):
                    c = list(oc)
                    c.insert(a, j)
                    vals[ravel(c, ishape)] = v
    if p > 0:
        for f in range(n):
            if rng.unit() < p:
                vals[f] -= extent(f)
    return vals


# ----------------------------------------------------------------------------------------
# Validation (used by --verify): every error code a case file can trigger
# ----------------------------------------------------------------------------------------

class CaseError(Exception):
    def __init__(self, code, msg):
        super().__init__("%s: %s" % (code, msg))
        self.code = code


CASE_KEYS = {"name", "description", "source", "tags", "op", "axis", "reduction",
             "use_init_val", "inputs", "expected", "expect_error", "tolerance", "format"}
OPS = {"scatter_elements": "scatter_elements", "scatterelements": "scatter_elements",
       "scatter": "scatter_elements", "scatterelementsupdate": "scatter_elements",
       "scatter_nd": "scatter_nd", "scatternd": "scatter_nd", "scatterndupdate": "scatter_nd",
       "scatter_update": "scatter_update", "scatterupdate": "scatter_update"}
REDUCTIONS = {"none": "none", "add": "add", "sum": "add", "sub": "sub", "mul": "mul",
              "prod": "mul", "multiply": "mul", "min": "min", "max": "max", "mean": "mean"}
ALLOWED = {"scatter_elements": {"none", "add", "mul", "min", "max", "mean"},
           "scatter_nd": {"none", "add", "sub", "mul", "min", "max"},
           "scatter_update": {"none"}}
GEN_FIELDS = {"arange": {"start", "step"}, "fill": {"value"}, "uniform": {"low", "high", "seed"},
              "randint": {"low", "high", "seed"}, "indices": {"unique", "negative", "seed"}}
ERROR_CODES = {"io", "json", "schema", "dtype", "values", "op", "axis", "shape", "index",
               "too_large"}
MAX_BYTES = 1 << 34  # anything in cases/ stays far below; the too_large case is far above


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_tensor_decl(t, where, errors):
    """Static checks of one tensor object; returns (dtype, shape) or None."""
    if not isinstance(t, dict):
        errors.add("schema")
        return None
    if set(t) - {"dtype", "shape", "values", "generate", "file"}:
        errors.add("schema")
    if "dtype" not in t or "shape" not in t or not isinstance(t["dtype"], str):
        errors.add("schema")
        return None
    if sum(k in t for k in ("values", "generate", "file")) != 1:
        errors.add("schema")
    if t["dtype"] not in DTYPES:
        errors.add("dtype")
        return None
    shape = t["shape"]
    if not isinstance(shape, list) or not all(is_int(d) and d >= 0 for d in shape):
        errors.add("schema")
        return None
    g = t.get("generate")
    if g is not None:
        if (not isinstance(g, dict) or g.get("kind") not in GEN_FIELDS
                or set(g) - GEN_FIELDS[g["kind"]] - {"kind"}):
            errors.add("schema")
        elif g["kind"] == "indices" and where != "indices":
            errors.add("schema")
    return t["dtype"], shape


def flatten_values(v, shape, dt, errors):
    """values as written -> flat list of typed elements (count and element checks)."""
    n = prod(shape)
    if not isinstance(v, list):
        flat = [v]
        if shape != []:
            errors.add("values")
            return None
    else:
        flat = []

        def walk(x, depth):
            if depth == len(shape):
                flat.append(x)
                return True
            if not isinstance(x, list) or len(x) != shape[depth]:
                return False
            return all(walk(y, depth + 1) for y in x)

        if shape != [] and walk(v, 0):
            pass
        elif all(not isinstance(x, list) for x in v) and len(v) == n:
            flat = list(v)
        else:
            errors.add("values")
            return None
    out = []
    for x in flat:
        if dt == "bool":
            if not isinstance(x, bool):
                errors.add("values")
                return None
            out.append(x)
        elif is_float(dt):
            if x in ("nan", "inf", "-inf"):
                out.append(float(x))
            elif is_num(x):
                out.append(to_float(float(x), dt) if is_int(x) else to_float(x, dt))
            else:
                errors.add("values")
                return None
        else:
            lo, hi = INT_RANGES[dt]
            if not is_int(x) or not lo <= x <= hi:
                errors.add("values")
                return None
            out.append(x)
    return out


def load_npy(path, dt, shape, errors):
    if not os.path.isfile(path):
        errors.add("io")
        return None
    a = np.load(path, allow_pickle=False)
    if dt not in NPY_DTYPES or a.dtype.str != NPY_DTYPES[dt] or list(a.shape) != shape:
        errors.add("values")
        return None
    flat = a.reshape(-1).tolist()
    return [float(x) for x in flat] if is_float(dt) else flat


def materialize(t, dt, shape, base_dir, errors, role, ctx):
    try:
        if "values" in t:
            return flatten_values(t["values"], shape, dt, errors)
        if "file" in t:
            return load_npy(os.path.join(base_dir, t["file"]), dt, shape, errors)
        return generate(t["generate"], dt, shape, role, ctx)
    except CaseError as e:
        errors.add(e.code)
        return None


def check_case(case, base_dir):
    """Returns (set of error codes, output flat values or None, case summary)."""
    errors = set()
    if not isinstance(case, dict):
        return {"schema"}, None, None
    if set(case) - CASE_KEYS or not {"name", "op", "inputs"} <= set(case):
        errors.add("schema")
    name = case.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        errors.add("schema")
    for k, typ in (("description", str), ("source", str), ("expect_error", str),
                   ("use_init_val", bool)):
        if k in case and not isinstance(case[k], typ):
            errors.add("schema")
    if "tags" in case and not (isinstance(case["tags"], list)
                               and all(isinstance(x, str) for x in case["tags"])):
        errors.add("schema")
    if "axis" in case and not is_int(case["axis"]):
        errors.add("schema")
    if "expected" in case and "expect_error" in case:
        errors.add("schema")
    if "tolerance" in case:
        tol = case["tolerance"]
        if not isinstance(tol, dict) or set(tol) - {"atol", "rtol"} or not all(
                is_num(v) for v in tol.values()):
            errors.add("schema")
    op = OPS.get(str(case.get("op", "")).lower())
    red = REDUCTIONS.get(str(case.get("reduction", "none")).lower())
    if op is None or red is None or red not in ALLOWED[op]:
        errors.add("op")
    if op != "scatter_elements" and "use_init_val" in case:
        errors.add("schema")
    if op == "scatter_nd" and "axis" in case:
        errors.add("schema")
    inputs = case.get("inputs")
    if not isinstance(inputs, dict) or set(inputs) != {"data", "indices", "updates"}:
        errors.add("schema")
        return errors, None, None
    decl = {r: check_tensor_decl(inputs[r], r, errors) for r in ("data", "indices", "updates")}
    exp_decl = None
    if "expected" in case:
        exp_decl = check_tensor_decl(case["expected"], "expected", errors)
    if None in decl.values() or op is None:
        return errors, None, None
    (ddt, dsh), (idt, ish), (udt, ush) = decl["data"], decl["indices"], decl["updates"]
    if idt not in ("int32", "int64") or udt != ddt or (exp_decl and exp_decl[0] != ddt):
        errors.add("dtype")
    if red == "mean" and ddt == "bool":
        errors.add("dtype")
    r = len(dsh)
    axis = case.get("axis", 0) if is_int(case.get("axis", 0)) else 0
    if op != "scatter_nd" and r >= 1 and not -r <= axis <= r - 1:
        errors.add("axis")
    a = axis + r if axis < 0 else axis
    shape_ok = r >= 1
    if op == "scatter_elements" and shape_ok:
        shape_ok = (len(ish) == r and ush == ish and
                    all(ish[d] <= dsh[d] for d in range(r) if d != a))
    elif op == "scatter_nd" and shape_ok:
        shape_ok = (len(ish) >= 1 and ish[-1] <= r and ush == ish[:-1] + dsh[ish[-1]:])
    elif op == "scatter_update" and shape_ok and 0 <= a < r:
        shape_ok = ush == dsh[:a] + ish + dsh[a + 1:]
    if not shape_ok:
        errors.add("shape")
    if exp_decl and exp_decl[1] != dsh:
        errors.add("shape")
    nbytes = sum(prod(s) * ITEMSIZE[t] for t, s in decl.values()) + prod(dsh) * ITEMSIZE[ddt]
    if nbytes > MAX_BYTES:
        errors.add("too_large")
    if errors & {"schema", "dtype", "op", "axis", "shape", "too_large"}:
        return errors, None, None
    ctx = (op, axis, dsh)
    vals = {}
    for role in ("data", "indices", "updates"):
        t = inputs[role]
        vals[role] = materialize(t, decl[role][0], decl[role][1], base_dir, errors, role, ctx)
    exp = None
    if exp_decl:
        exp = materialize(case["expected"], ddt, dsh, base_dir, errors, "expected", ctx)
    if errors or None in vals.values():
        return errors, None, None
    iv = vals["indices"]
    if op == "scatter_elements":
        s = dsh[a]
        bad = any(not -s <= x < s for x in iv)
    elif op == "scatter_nd":
        k = ish[-1]
        bad = any(not -dsh[f % k] <= x < dsh[f % k] for f, x in enumerate(iv)) if k else False
    else:
        bad = any(not 0 <= x < dsh[a] for x in iv)
    if bad:
        errors.add("index")
        return errors, None, None
    out = run_case(op, red, axis, case.get("use_init_val", True), (ddt, dsh, vals["data"]),
                   (idt, ish, iv), (udt, ush, vals["updates"]))
    summary = (op, red, ddt)
    if exp is not None:
        diffs = [i for i, (g, w) in enumerate(zip(out, exp)) if not same_value(g, w, ddt)]
        if diffs:
            i = diffs[0]
            raise AssertionError("%s: %d elements differ, first at %d: oracle %r, expected %r"
                                 % (name, len(diffs), i, out[i], exp[i]))
    return errors, out, summary


# ----------------------------------------------------------------------------------------
# Writing cases
# ----------------------------------------------------------------------------------------

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


NPY_OUT = {}  # relative path from cases/ -> numpy array, written by main


def F(dt, shape, flat, op_dir, fname):
    """A tensor read from cases/<op_dir>/npy/<fname> (written next to its case file)."""
    t = V(dt, shape, flat)
    arr = np.array(t.flat, dtype=np.dtype(NPY_DTYPES[dt])).reshape(shape)
    NPY_OUT[os.path.join(op_dir, "npy", fname)] = arr
    return T(dt, shape, t.flat, {"dtype": dt, "shape": list(shape), "file": "npy/" + fname})


def make_case(name, op, data, indices, updates, red="none", axis=None, use_init=None,
              tags=(), description=None, tolerance=None, op_name=None, red_name=None):
    """Build one runnable case; `expected` comes from the oracle, tags partly derived."""
    canon_op = OPS[(op_name or op).lower()]
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


# ----------------------------------------------------------------------------------------
# The catalogue
# ----------------------------------------------------------------------------------------

class Pick:
    """Deterministic choices for literal test data (SplitMix64, like the spec's generators)."""

    def __init__(self, seed):
        self.rng = SplitMix64(seed)

    def below(self, n):
        return self.rng.next() % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def chance(self, p):
        return self.rng.unit() < p


def pool(dt, red):
    """Literal values per dtype. Floats: quarters plus k/7 rounded to dt (single-target
    steps then test correct rounding). No -0.0: with use_init_val false, 0 + -0.0 = +0.0 is
    a rule no document states, so it is left to the dedicated signed-zero cases."""
    if dt == "bool":
        return [False, True]
    if is_float(dt):
        q = 8 if red == "mul" else 32
        return ([k / 4 for k in range(-q, q + 1)]
                + [round_to(Fraction(k, 7), dt) for k in range(-20, 21) if k % 7])
    small = {"int64": 50, "int32": 1000, "int16": 300, "int8": 15, "uint8": 40}[dt]
    if red == "mul":
        small = {"int64": 9, "int32": 30, "int16": 8, "int8": 3, "uint8": 4}[dt]
    lo = 0 if dt == "uint8" else -small
    vals = list(range(lo, small + 1))
    if dt == "int64" and red != "mul":
        vals += [2 ** 53 + 1, 2 ** 53 + 3, -(2 ** 53) - 1, 2 ** 62 + 5, -(2 ** 62) - 7]
        if red == "mean":
            vals = vals[:-2]
    return vals


def rand_tensor(pk, dt, shape, red, nested=True):
    p = pool(dt, red)
    return V(dt, shape, [pk.choice(p) for _ in range(prod(shape))], nested)


SE_SHAPES = [([6], 0, [8]), ([4, 5], 1, [3, 6]), ([3, 4, 2], 0, [5, 3, 2]),
             ([2, 3, 4, 2], 2, [2, 2, 5, 2]), ([2, 2, 3, 2, 2], 3, [1, 2, 3, 3, 2]),
             ([5, 3], -2, [6, 2]), ([3, 4, 5], -1, [2, 3, 7]), ([7], -1, [4]),
             ([2, 3, 4], 1, [2, 5, 3]), ([4, 2, 3], 2, [3, 2, 4])]
ND_SHAPES = [([8], [5, 1]), ([4, 3], [3, 1]), ([3, 4, 2], [2, 2, 2]), ([2, 3, 2, 2], [4, 4]),
             ([2, 2, 3, 2, 2], [3, 2]), ([3, 3], [2, 2, 2]), ([5, 2], [2, 3, 1]),
             ([2, 3, 4], [3, 3])]
SU_SHAPES = [([6], 0, [4]), ([4, 5], 1, [3]), ([5, 3, 2], 0, [2, 2]), ([2, 4, 3, 2], 2, []),
             ([2, 2, 3, 2, 2], -3, [2]), ([3, 4], -1, [2, 3]), ([4, 3], 0, [3, 1]),
             ([2, 5], 1, [5]), ([3, 2, 4], 1, [2, 1, 2]), ([6, 2], 0, [6])]
SE_REDS = ["none", "add", "mul", "min", "max", "mean"]
ND_REDS = ["none", "add", "sub", "mul", "min", "max"]


def sweep_elements(red, use_init, seed):
    cases = []
    for i, dt in enumerate(DTYPES):
        if dt == "bool" and red == "mean":
            continue
        j = i + SE_REDS.index(red) + (5 if use_init is False else 0)
        dshape, axis, ishape = SE_SHAPES[j % len(SE_SHAPES)]
        pk = Pick(seed * 1000 + i)
        s = dshape[axis]
        idx = [pk.below(s) for _ in range(prod(ishape))]
        idx = [x - s if pk.chance(0.25) else x for x in idx]
        idt = "int64" if j % 2 else "int32"
        nested = i % 3 != 2
        suffix = "_noinit" if use_init is False else ""
        cases.append(make_case(
            "se_%s_%s%s" % (red, dt, suffix), "scatter_elements",
            rand_tensor(pk, dt, dshape, red, nested), V(idt, ishape, idx, nested),
            rand_tensor(pk, dt, ishape, red, nested), red=red, axis=axis, use_init=use_init,
            tags=["dtype"], description="%s reduction %s on %s, rank %d, axis %d%s" % (
                "scatter_elements", red, dt, len(dshape), axis,
                ", use_init_val false" if use_init is False else "")))
    return cases


def rand_tuples(pk, dshape, ishape, dup=True):
    k, n = ishape[-1], prod(ishape[:-1])
    tuples = []
    for _ in range(n):
        t = [pk.below(dshape[j]) for j in range(k)]
        tuples.append([x - dshape[j] if pk.chance(0.25) else x for j, x in enumerate(t)])
    if dup and n >= 2:  # the last tuple repeats the first (possibly spelled negatively)
        tuples[-1] = [x - dshape[j] if x >= 0 else x + dshape[j] for j, x in enumerate(tuples[0])]
    return [x for t in tuples for x in t]


def sweep_nd(red, seed):
    cases = []
    for i, dt in enumerate(DTYPES):
        j = i + ND_REDS.index(red)
        dshape, ishape = ND_SHAPES[j % len(ND_SHAPES)]
        pk = Pick(seed * 1000 + i)
        ushape = ishape[:-1] + dshape[ishape[-1]:]
        nested = i % 3 != 1
        cases.append(make_case(
            "nd_%s_%s" % (red, dt), "scatter_nd", rand_tensor(pk, dt, dshape, red, nested),
            V("int64" if j % 2 else "int32", ishape, rand_tuples(pk, dshape, ishape), nested),
            rand_tensor(pk, dt, ushape, red, nested), red=red, tags=["dtype"],
            description="scatter_nd reduction %s on %s, data %s, indices %s (k = %d)" % (
                red, dt, dshape, ishape, ishape[-1])))
    return cases


def sweep_update(seed):
    cases = []
    for i, dt in enumerate(DTYPES):
        dshape, axis, ishape = SU_SHAPES[i % len(SU_SHAPES)]
        pk = Pick(seed * 1000 + i)
        a = axis % len(dshape)
        m = prod(ishape)
        idx = [pk.below(dshape[a]) for _ in range(m)]
        if m >= 2 and i % 2 == 0:
            idx[-1] = idx[0]
        ushape = dshape[:a] + ishape + dshape[a + 1:]
        nested = i % 3 != 0
        cases.append(make_case(
            "su_none_%s" % dt, "scatter_update", rand_tensor(pk, dt, dshape, "none", nested),
            V("int64" if i % 2 else "int32", ishape, idx, nested),
            rand_tensor(pk, dt, ushape, "none", nested), axis=axis, tags=["dtype"],
            description="scatter_update on %s, data %s, axis %d, indices %s" % (
                dt, dshape, axis, ishape)))
    return cases


def edges_elements():
    se, f32, i64 = "scatter_elements", "float32", "int64"
    cases = [
        make_case("se_edge_empty_data", se, V(f32, [0, 3], []), V(i64, [0, 2], []),
                  V(f32, [0, 2], []), red="add", axis=1,
                  description="a 0 dim in data: nothing to do, empty output"),
        make_case("se_edge_zero_updates", se, V("int32", [3, 4], range(12)),
                  V(i64, [3, 0], []), V("int32", [3, 0], []), red="mul", axis=1,
                  description="indices with a 0 dim: zero updates, output = data"),
        make_case("se_edge_zero_updates_axis0", se, V("float16", [2, 3], [1.5, -2, 3, 0.25, 5, 6]),
                  V("int32", [0, 3], []), V("float16", [0, 3], []),
                  description="zero updates along the axis (indices [0, 3])"),
        make_case("se_edge_none_noinit", se, V(f32, [4], [1, 2, 3, 4]), V(i64, [2], [3, 1]),
                  V(f32, [2], [-1, -2]), use_init=False,
                  description="use_init_val false has no effect with reduction none"),
        make_case("se_edge_none_last_writer", se, V("int32", [2, 3], [0] * 6),
                  V(i64, [2, 4], [[0, 0, 1, 0], [2, 2, 2, 1]]),
                  V("int32", [2, 4], [[1, 2, 3, 4], [5, 6, 7, 8]]), axis=1,
                  description="duplicates with none: any writer is accepted by the comparison; "
                              "expected holds the last in row-major update order"),
        make_case("se_edge_axis_neg_rank3", se, V(f32, [2, 2, 3], range(12)),
                  V("int32", [2, 2, 3], [[[1, 0, 1], [0, 1, 0]], [[-1, -2, -1], [0, 0, 1]]]),
                  V(f32, [2, 2, 3], [-x for x in range(1, 13)]), axis=-2, red="min",
                  description="axis -2 of a rank-3 tensor, negative indices"),
        make_case("se_edge_nan_data", se,
                  V(f32, [6], [NAN, 1, NAN, INF, 2, NAN]), V(i64, [4], [1, 2, 3, 3]),
                  V(f32, [4], [5, 6, -INF, 1]), red="add", op_name="Scatter", tags=["alias"],
                  description="NaN in data untouched (elements 0, 5) or propagated by add "
                              "(element 2); inf + -inf = NaN (element 3)"),
        make_case("se_edge_signed_zero_add", se, V(f32, [4], [-0.0, -0.0, 0.0, 1]),
                  V(i64, [4], [0, 1, 2, 3]), V(f32, [4], [-0.0, 0.0, -0.0, -1]), red="add",
                  description="IEEE add of zeros: -0 + -0 = -0, -0 + +0 = +0, 1 + -1 = +0"),
        make_case("se_edge_signed_zero_mul", se, V(f32, [4], [-0.0, 2, -3, 0.0]),
                  V(i64, [4], [0, 1, 2, 3]), V(f32, [4], [5, -0.0, 0.0, -7]), red="mul",
                  description="IEEE signs of zero products"),
        make_case("se_edge_float16_add_per_step", se, V("float16", [2], [2048, 1]),
                  V(i64, [2], [0, 0]), V("float16", [2], [1, 1]), red="add",
                  tolerance={"atol": 0.0, "rtol": 0.0},
                  description="float16 rounds after each step: 2048 + 1 = 2048 (tie to even), "
                              "again + 1 = 2048 (accumulating in float32 would give 2050)"),
        make_case("se_edge_float16_mean_per_step", se, V("float16", [2], [2048, 1]),
                  V(i64, [2], [0, 0]), V("float16", [2], [1, 1]), red="mean",
                  tolerance={"atol": 0.0, "rtol": 0.0},
                  description="mean = (sum rounded step by step = 2048) / 3 = 682.67 -> 682.5"),
        make_case("se_edge_bfloat16_add_per_step", se, V("bfloat16", [2], [256, 3]),
                  V(i64, [2], [0, 0]), V("bfloat16", [2], [1, 1]), red="add",
                  tolerance={"atol": 0.0, "rtol": 0.0},
                  description="bfloat16 (8-bit significand): 256 + 1 + 1 = 256 step by step"),
        make_case("se_edge_float32_add_per_step", se, V(f32, [1], [16777216]),
                  V(i64, [2], [0, 0]), V(f32, [2], [1, 1]), red="add",
                  tolerance={"atol": 0.0, "rtol": 0.0},
                  description="float32: 2^24 + 1 + 1 = 2^24 step by step"),
        make_case("se_edge_bfloat16_add_rne", se, V("bfloat16", [3], [1, 1.0078125, 3]),
                  V(i64, [3], [0, 1, 2]), V("bfloat16", [3], [0.00390625, 0.00390625, 0.5]),
                  red="add", description="single-target bfloat16 adds, ties to even: "
                  "1 + 2^-8 = 1, (1 + 2^-7) + 2^-8 = 1 + 2^-6"),
        make_case("se_edge_float16_add_rne", se, V("float16", [3], [1, 1.0009765625, 65504]),
                  V(i64, [3], [0, 1, 2]), V("float16", [3], [0.00048828125, 0.00048828125, 16]),
                  red="add", description="single-target float16 adds: 1 + 2^-11 = 1, "
                  "(1 + 2^-10) + 2^-11 = 1 + 2^-9, 65504 + 16 = inf (overflow)"),
        make_case("se_edge_wrap_int8_add", se, V("int8", [3], [100, -100, 127]),
                  V(i64, [3], [0, 1, 2]), V("int8", [3], [100, -100, 1]), red="add",
                  description="int8 wraps: 100 + 100 = -56, -100 + -100 = 56, 127 + 1 = -128"),
        make_case("se_edge_wrap_uint8_mul", se, V("uint8", [4], [16, 20, 255, 7]),
                  V("int32", [4], [0, 1, 2, 3]), V("uint8", [4], [16, 13, 2, 3]), red="mul",
                  red_name="multiply", tags=["alias"],
                  description="uint8 wraps: 16 * 16 = 0, 20 * 13 = 4, 255 * 2 = 254"),
        make_case("se_edge_wrap_uint8_add", se, V("uint8", [2], [200, 255]),
                  V("int32", [2], [0, 1]), V("uint8", [2], [100, 1]), red="add",
                  description="uint8 wraps: 200 + 100 = 44, 255 + 1 = 0"),
        make_case("se_edge_wrap_int16_add", se, V("int16", [2], [30000, -32768]),
                  V(i64, [3], [0, 1, 1]), V("int16", [3], [30000, -1, 1]), red="add",
                  description="int16 wraps: 30000 + 30000 = -5536; -32768 - 1 + 1 = -32768"),
        make_case("se_edge_wrap_int32_mul", se, V("int32", [2], [65536, -2147483648]),
                  V(i64, [2], [0, 1]), V("int32", [2], [65536, -1]), red="mul",
                  description="int32 wraps: 65536 * 65536 = 0, INT32_MIN * -1 = INT32_MIN"),
        make_case("se_edge_wrap_int64_add", se,
                  V(i64, [2], [9223372036854775807, -9223372036854775808]),
                  V(i64, [2], [0, 1]), V(i64, [2], [1, -1]), red="add",
                  description="int64 wraps: INT64_MAX + 1 = INT64_MIN and back"),
        make_case("se_edge_int64_big_none", se, V(i64, [3], [0, 1, 2]), V(i64, [2], [0, 2]),
                  V(i64, [2], [9007199254740993, -9223372036854775807]),
                  description="int64 values beyond 2^53 must stay exact (never through double)"),
        make_case("se_edge_int64_big_max", se,
                  V(i64, [3], [9007199254740992, -9007199254740992, 2 ** 62]),
                  V(i64, [3], [0, 1, 2]),
                  V(i64, [3], [9007199254740993, -9007199254740993, 2 ** 62 + 1]), red="max",
                  description="max of int64 neighbours that are equal as doubles"),
        make_case("se_edge_int64_big_min", se,
                  V(i64, [3], [9007199254740992, -9007199254740992, 2 ** 62]),
                  V(i64, [3], [0, 1, 2]),
                  V(i64, [3], [9007199254740993, -9007199254740993, 2 ** 62 + 1]), red="min",
                  description="min of int64 neighbours that are equal as doubles"),
        make_case("se_edge_int64_big_add", se, V(i64, [2], [9007199254740993, -3]),
                  V(i64, [2], [0, 1]), V(i64, [2], [2, -9007199254740993]), red="add",
                  description="int64 adds beyond 2^53: 9007199254740993 + 2 = 9007199254740995"),
        make_case("se_edge_bool_noinit_mul", se, V("bool", [4], [False, False, True, False]),
                  V(i64, [3], [0, 1, 1]), V("bool", [3], [True, True, False]), red="mul",
                  use_init=False, description="bool mul = AND, from identity true"),
    ]
    for dt in ("int32", "int8", "int64", "uint8", "int16"):
        data = [-7, 7, -1, 1, 10, 3] if dt != "uint8" else [7, 9, 1, 0, 10, 3]
        cases.append(make_case(
            "se_edge_mean_floor_%s" % dt, se, V(dt, [6], data), V("int32", [6], [0, 1, 2, 3, 4, 4]),
            V(dt, [6], [0, 0, 0, 0, -3, -4] if dt != "uint8" else [0, 0, 0, 0, 3, 4]),
            red="mean", description="integer mean rounds toward -inf: (-7+0)/2 = -4, 7/2 = 3, "
                                    "-1/2 = -1, 1/2 = 0, (10-3-4)/3 = 1; element 5 untouched"))
    cases.append(make_case(
        "se_edge_mean_floor_noinit", se, V("int32", [3], [100, 100, 100]),
        V("int32", [5], [0, 0, 1, 1, 1]), V("int32", [5], [-3, -4, 5, 5, 6]), red="mean",
        use_init=False, description="mean without init: (-3-4)/2 = -4, (5+5+6)/3 = 5"))
    cases.append(make_case(
        "se_edge_mean_float_noinit", se, V(f32, [3], [100, 100, 100]),
        V("int32", [3], [0, 1, 1]), V(f32, [3], [to_float(0.1, f32), 1, 2]), red="mean",
        use_init=False,
        description="float mean without init: the correctly rounded sum / count"))
    for dt in ("float64", "float32", "float16", "bfloat16"):
        for red in ("min", "max"):
            cases.append(make_case(
                "se_edge_nan_signed_zero_%s_%s" % (red, dt), se,
                V(dt, [9], [0.0, -0.0, 1, NAN, 5, -0.0, 0.0, 2, NAN]),
                V(i64, [9], [0, 1, 2, 3, 4, 4, 5, 6, 2]),
                V(dt, [9], [-0.0, 0.0, NAN, 7, -INF, INF, -0.0, 0.0, 0.5]), red=red,
                description="IEEE 754-2019 %simum: NaN in either operand gives NaN and stays "
                            "NaN (element 2 gets NaN then 0.5), -0.0 < +0.0; NaN in "
                            "untouched data kept (element 8)" % red))
    return cases


def edges_nd():
    nd, f32, i64 = "scatter_nd", "float32", "int64"
    return [
        make_case("nd_edge_k0_none", nd, V(f32, [2, 3], range(6)), V(i64, [2, 0], [[], []]),
                  V(f32, [2, 2, 3], [-x for x in range(1, 13)]),
                  description="k = 0: each update replaces the whole tensor; the last wins"),
        make_case("nd_edge_k0_add", nd, V("int32", [2, 3], range(6)), V(i64, [3, 0], [[], [], []]),
                  V("int32", [3, 2, 3], range(18)), red="add", op_name="ScatterNDUpdate",
                  red_name="sum", tags=["alias"],
                  description="k = 0 with add: data + all three updates"),
        make_case("nd_edge_k0_mul_bool", nd, V("bool", [4], [True, True, False, True]),
                  V("int32", [2, 0], [[], []]), V("bool", [2, 4], [[True, False, True, True],
                                                                   [True, True, True, False]]),
                  red="mul", red_name="prod", tags=["alias"],
                  description="k = 0, bool mul = AND over the whole tensor"),
        make_case("nd_edge_k_eq_r_rank3", nd, V("int16", [2, 3, 2], range(12)),
                  V("int32", [2, 2, 3], [[[1, 2, 1], [0, 0, 0]], [[-1, -1, -1], [1, 0, 1]]]),
                  V("int16", [2, 2], [[100, 200], [300, 400]]), red="add",
                  description="k = r = 3: element updates, negative components"),
        make_case("nd_edge_zero_updates", nd, V(f32, [4, 3], range(12)), V(i64, [0, 1], []),
                  V(f32, [0, 3], []), red="mul",
                  description="indices [0, 1]: zero updates, output = data"),
        make_case("nd_edge_empty_slice", nd, V(f32, [3, 0], [[], [], []]),
                  V(i64, [2, 1], [[0], [2]]), V(f32, [2, 0], [[], []]),
                  description="data with a 0 dim: the slices are empty"),
        make_case("nd_edge_nd_negative_tuple", nd, V("int32", [3, 4], range(12)),
                  V(i64, [3, 2], [[-1, -4], [0, -1], [-3, 3]]), V("int32", [3], [-1, -2, -3]),
                  description="negative components count from the end of their own dim"),
        make_case("nd_edge_sub_uint8_wrap", nd, V("uint8", [3], [3, 0, 10]),
                  V(i64, [3, 1], [[0], [1], [2]]), V("uint8", [3], [5, 1, 10]), red="sub",
                  op_name="SCATTERNDUPDATE", tags=["alias"],
                  description="uint8 sub wraps: 3 - 5 = 254, 0 - 1 = 255"),
        make_case("nd_edge_sub_int8_wrap", nd, V("int8", [2], [-100, 100]),
                  V(i64, [3, 1], [[0], [1], [1]]), V("int8", [3], [100, -20, -10]), red="sub",
                  description="int8 sub wraps: -100 - 100 = 56; 100 + 20 + 10 = -126"),
        make_case("nd_edge_sub_bool_xor", nd, V("bool", [4], [False, True, True, False]),
                  V(i64, [4, 1], [[0], [1], [2], [2]]), V("bool", [4], [True, True, True, True]),
                  red="sub", description="bool sub = XOR; twice toggles back"),
        make_case("nd_edge_sub_signed_zero", nd, V(f32, [4], [0.0, -0.0, -0.0, 1]),
                  V(i64, [4, 1], [[0], [1], [2], [3]]), V(f32, [4], [0.0, 0.0, -0.0, 1]),
                  red="sub", description="IEEE: 0 - 0 = +0, -0 - +0 = -0, -0 - -0 = +0, "
                                         "1 - 1 = +0"),
        make_case("nd_edge_nan_signed_zero_min_float32", nd,
                  V(f32, [2, 3], [0.0, -0.0, NAN, 4, 5, NAN]),
                  V(i64, [3, 1], [[0], [1], [0]]), V(f32, [3, 3], [[-0.0, 1, 3], [NAN, -0.0, 2],
                                                                  [0.0, 0.5, -INF]]),
                  red="min", description="min over slices: NaN sticks, -0.0 < +0.0"),
        make_case("nd_edge_nan_signed_zero_max_bfloat16", nd,
                  V("bfloat16", [2, 3], [0.0, -0.0, NAN, 4, 5, NAN]),
                  V(i64, [3, 1], [[0], [1], [0]]),
                  V("bfloat16", [3, 3], [[-0.0, 1, 3], [NAN, 0.0, 2], [-0.0, 0.5, INF]]),
                  red="max", description="max over slices: NaN sticks, +0.0 > -0.0"),
        make_case("nd_edge_int64_big_add", nd, V(i64, [2], [9007199254740993, 2 ** 62]),
                  V(i64, [3, 1], [[0], [1], [0]]),
                  V(i64, [3], [2, 2 ** 62 - 1, 9007199254740993]), red="add",
                  description="int64 beyond 2^53 stays exact"),
        make_case("nd_edge_float16_add_per_step", nd, V("float16", [2, 2], [2048, 1, 1, 1]),
                  V(i64, [2, 1], [[0], [0]]), V("float16", [2, 2], [[1, 1], [1, 1]]), red="add",
                  tolerance={"atol": 0.0, "rtol": 0.0},
                  description="float16 rounds after each step: 2048 + 1 + 1 = 2048, 1 + 1 + 1 = 3"),
        make_case("nd_edge_rank5_flat", nd, V("float64", [2, 2, 2, 2, 2], range(32), False),
                  V("int32", [2, 3], [1, 0, 1, 0, 1, -1], False),
                  V("float64", [2, 2, 2], [0.5 * x for x in range(8)], False), red="mul",
                  description="rank 5, k = 3, flat values"),
    ]


def edges_update():
    su, f32, i64 = "scatter_update", "float32", "int64"
    return [
        make_case("su_edge_0d_indices_axis0", su, V(f32, [4, 3], range(12)), V(i64, [], [2]),
                  V(f32, [3], [-1, -2, -3]), description="0-d indices: one row replaced"),
        make_case("su_edge_0d_indices_axis1", su, V("int32", [2, 5], range(10)),
                  V("int32", [], [3]), V("int32", [2], [-1, -2]), axis=1,
                  description="0-d indices on axis 1: updates shape [2]"),
        make_case("su_edge_2d_indices", su, V(f32, [6, 3], range(18)),
                  V(i64, [2, 2], [[5, 0], [3, 1]]),
                  V(f32, [2, 2, 3], [-x for x in range(1, 13)]), op_name="scatterupdate",
                  tags=["alias"], description="2-d indices: updates shape indices.shape + "
                                              "data.shape[1:] (op alias in lower case)"),
        make_case("su_edge_2d_indices_axis_neg", su, V("int16", [2, 6], range(12)),
                  V("int32", [2, 2], [[4, 1], [0, 5]]),
                  V("int16", [2, 2, 2], [-x for x in range(1, 9)]), axis=-1,
                  description="axis -1, 2-d indices: updates shape [2, 2, 2]"),
        make_case("su_edge_duplicates_last_writer", su, V("int8", [5], [0] * 5),
                  V(i64, [4], [1, 3, 1, 1]), V("int8", [4], [10, 20, 30, 40]),
                  description="duplicates: expected holds the last writer (40)"),
        make_case("su_edge_empty_indices", su, V(f32, [3, 4], range(12)), V(i64, [0], []),
                  V(f32, [3, 0], [[], [], []]), axis=1, description="zero indices: data kept"),
        make_case("su_edge_empty_data", su, V(f32, [0, 4], []), V(i64, [2], [1, 3]),
                  V(f32, [0, 2], []), axis=1, description="a 0 dim in data"),
        make_case("su_edge_int64_big", su, V(i64, [3], [0, 0, 0]), V(i64, [2], [2, 0]),
                  V(i64, [2], [9007199254740993, -9223372036854775808]),
                  description="int64 beyond 2^53 copied exactly"),
        make_case("su_edge_nan_signed_zero_copy", su, V(f32, [2, 3], [1, 2, NAN, 4, 5, 6]),
                  V(i64, [2], [0, 1]), V(f32, [2, 2], [[-0.0, NAN], [INF, -INF]]), axis=1,
                  description="none copies -0.0, NaN and infinities as they are"),
        make_case("su_edge_bfloat16_rank5", su, V("bfloat16", [2, 1, 3, 2, 2], range(24)),
                  V("int32", [2], [2, 0]), V("bfloat16", [2, 1, 2, 2, 2],
                                             [0.5 - x for x in range(16)]), axis=2,
                  description="rank 5, axis 2"),
    ]


def generated_elements():
    se = "scatter_elements"
    ctx = lambda axis, dshape: (se, axis, dshape)
    return [
        make_case("se_gen_arange_unique_add", se,
                  G("float32", [3, 4, 5], {"kind": "arange", "start": 0, "step": 0.5}),
                  G("int64", [3, 3, 5], {"kind": "indices", "unique": True, "negative": 0.3,
                                         "seed": 7}, ctx(1, [3, 4, 5])),
                  G("float32", [3, 3, 5], {"kind": "uniform", "low": -2, "high": 2, "seed": 3}),
                  red="add", axis=1, description="unique indices per line (partial "
                  "Fisher-Yates), some negative; no duplicates, so add compares exactly"),
        make_case("se_gen_randint_max", se,
                  G("int32", [4, 6], {"kind": "randint", "low": -100, "high": 100, "seed": 1}),
                  G("int32", [4, 9], {"kind": "indices", "seed": 5}, ctx(1, [4, 6])),
                  G("int32", [4, 9], {"kind": "randint", "low": -200, "high": 200, "seed": 2}),
                  red="max", axis=1, description="randint data and updates, duplicate indices"),
        make_case("se_gen_fill_mul_float16", se,
                  G("float16", [2, 3, 4], {"kind": "fill", "value": 1.5}),
                  G("int64", [2, 3, 6], {"kind": "indices", "negative": 0.5, "seed": 11},
                    ctx(-1, [2, 3, 4])),
                  G("float16", [2, 3, 6], {"kind": "uniform", "low": -2, "high": 2, "seed": 4}),
                  red="mul", axis=-1, description="fill data, float16 uniform updates "
                  "(double rounded to nearest float16), duplicates and negative indices"),
        make_case("se_gen_int8_mean", se,
                  G("int8", [5, 4], {"kind": "uniform", "low": -8, "high": 8, "seed": 9}),
                  G("int64", [7, 4], {"kind": "indices", "seed": 13}, ctx(0, [5, 4])),
                  G("int8", [7, 4], {"kind": "randint", "low": -10, "high": 10, "seed": 21}),
                  red="mean", description="integer uniform (floor of the double), "
                  "integer mean rounded toward -inf"),
        make_case("se_gen_bfloat16_min_noinit", se,
                  G("bfloat16", [3, 5], {"kind": "uniform", "low": -4, "high": 4, "seed": 17}),
                  G("int32", [3, 4], {"kind": "indices", "unique": True, "seed": 19},
                    ctx(1, [3, 5])),
                  G("bfloat16", [3, 4], {"kind": "uniform", "low": -8, "high": 8, "seed": 23}),
                  red="min", axis=1, use_init=False,
                  description="bfloat16 uniform; unique indices; min from +inf"),
        make_case("se_gen_float64_none_unique", se,
                  G("float64", [6, 2], {"kind": "arange", "start": -3, "step": 0.25}),
                  G("int64", [4, 2], {"kind": "indices", "unique": True, "negative": 0.5,
                                      "seed": 29}, ctx(0, [6, 2])),
                  G("float64", [4, 2], {"kind": "randint", "low": -1000, "high": 1000,
                                        "seed": 8}),
                  description="float64 arange, randint cast to float64, unique indices"),
    ]


def generated_nd():
    nd = "scatter_nd"
    return [
        make_case("nd_gen_unique_none_int64", nd,
                  G("int64", [4, 5, 3], {"kind": "arange", "start": -50, "step": 3}),
                  G("int64", [6, 2], {"kind": "indices", "unique": True, "seed": 3},
                    (nd, 0, [4, 5, 3])),
                  G("int64", [6, 3], {"kind": "randint", "low": -10 ** 12, "high": 10 ** 12,
                                      "seed": 4}),
                  description="unique tuples: partial Fisher-Yates of the 20 positions of "
                              "data.shape[:2], unravelled"),
        make_case("nd_gen_dups_negative_add_float64", nd,
                  G("float64", [3, 4], {"kind": "uniform", "low": -8, "high": 8, "seed": 5}),
                  G("int32", [5, 2, 2], {"kind": "indices", "negative": 0.4, "seed": 6},
                    (nd, 0, [3, 4])),
                  G("float64", [5, 2], {"kind": "uniform", "low": -1, "high": 1, "seed": 7}),
                  red="add", description="random tuples (duplicates), negative components"),
        make_case("nd_gen_unique_sub_bfloat16", nd,
                  G("bfloat16", [4, 4], {"kind": "uniform", "low": -4, "high": 4, "seed": 8}),
                  G("int64", [3, 1], {"kind": "indices", "unique": True, "negative": 0.5,
                                      "seed": 9}, (nd, 0, [4, 4])),
                  G("bfloat16", [3, 4], {"kind": "uniform", "low": -4, "high": 4, "seed": 10}),
                  red="sub", description="unique rows, bfloat16 sub (exact compare)"),
        make_case("nd_gen_dups_mul_uint8", nd,
                  G("uint8", [6], {"kind": "randint", "low": 0, "high": 10, "seed": 1}),
                  G("int64", [8, 1], {"kind": "indices", "seed": 2}, (nd, 0, [6])),
                  G("uint8", [8], {"kind": "randint", "low": 0, "high": 4, "seed": 3}),
                  red="mul", description="uint8 mul with duplicates (wraps)"),
        make_case("nd_gen_k_eq_r_min_int16", nd,
                  G("int16", [3, 3, 3], {"kind": "fill", "value": 7}),
                  G("int64", [4, 3], {"kind": "indices", "unique": True, "seed": 12},
                    (nd, 0, [3, 3, 3])),
                  G("int16", [4], {"kind": "randint", "low": -20, "high": 20, "seed": 13}),
                  red="min", description="k = r, unique element positions"),
    ]


def generated_update():
    su = "scatter_update"
    return [
        make_case("su_gen_unique_2d", su,
                  G("float32", [5, 6], {"kind": "arange", "start": 1, "step": 1}),
                  G("int32", [2, 2], {"kind": "indices", "unique": True, "seed": 1},
                    (su, 1, [5, 6])),
                  G("float32", [5, 2, 2], {"kind": "uniform", "low": -2, "high": 2, "seed": 2}),
                  axis=1, description="4 unique columns of 6 (partial Fisher-Yates)"),
        make_case("su_gen_dups_int8", su,
                  G("int8", [8, 3], {"kind": "randint", "low": -100, "high": 100, "seed": 3}),
                  G("int64", [5], {"kind": "indices", "seed": 4}, (su, 0, [8, 3])),
                  G("int8", [5, 3], {"kind": "randint", "low": -100, "high": 100, "seed": 5}),
                  description="random rows, possibly repeated: last writer"),
        make_case("su_gen_0d_float16", su,
                  G("float16", [3, 4], {"kind": "fill", "value": 0}),
                  G("int64", [], {"kind": "indices", "seed": 6}, (su, 1, [3, 4])),
                  G("float16", [3], {"kind": "uniform", "low": -1, "high": 1, "seed": 7}),
                  axis=1, description="0-d generated index"),
    ]


def npy_cases():
    se, nd, su = "scatter_elements", "scatter_nd", "scatter_update"
    return {
        se: [
            make_case("se_npy_add_float32", se,
                      F("float32", [3, 4], [x * 0.75 for x in range(12)], se,
                        "gen_se_add_data.npy"),
                      F("int64", [3, 2], [3, 0, -1, 2, 1, 1], se, "gen_se_add_indices.npy"),
                      F("float32", [3, 2], [0.5, -1, 2, 4, -8, 16], se, "gen_se_add_updates.npy"),
                      red="add", axis=1, description="all three inputs from .npy files"),
            make_case("se_npy_max_uint8", se,
                      F("uint8", [2, 3], [5, 200, 0, 255, 17, 9], se, "gen_se_max_data.npy"),
                      V("int32", [2, 3], [[1, 1, 0], [2, 0, 2]]),
                      F("uint8", [2, 3], [201, 3, 6, 10, 254, 8], se, "gen_se_max_updates.npy"),
                      red="max", axis=1, description="uint8 data and updates from .npy"),
        ],
        nd: [
            make_case("nd_npy_none_int16", nd,
                      F("int16", [3, 4], [1000 * x - 5000 for x in range(12)], nd,
                        "gen_nd_none_data.npy"),
                      V("int32", [2, 1], [[2], [0]]),
                      F("int16", [2, 4], [-1, -2, -3, -4, 32767, -32768, 0, 5], nd,
                        "gen_nd_none_updates.npy"),
                      description="int16 data and updates from .npy"),
            make_case("nd_npy_add_bool", nd,
                      F("bool", [2, 3], [False, True, False, False, False, True], nd,
                        "gen_nd_bool_data.npy"),
                      F("int64", [3, 2], [0, 0, 1, 1, 0, 0], nd, "gen_nd_bool_indices.npy"),
                      V("bool", [3], [True, True, False]), red="add",
                      description="bool data and int64 indices from .npy; add = OR"),
        ],
        su: [
            make_case("su_npy_none_float16", su,
                      F("float16", [4, 2], [0.5 * x for x in range(8)], su, "gen_su_data.npy"),
                      F("int64", [2], [3, 1], su, "gen_su_indices.npy"),
                      F("float16", [2, 2], [-1, -2, 65504, -0.0009765625], su,
                        "gen_su_updates.npy"),
                      description="float16 data and updates from .npy"),
            make_case("su_npy_none_int8", su,
                      F("int8", [2, 3], [1, 2, 3, 4, 5, 6], su, "gen_su_int8_data.npy"),
                      V("int32", [1], [2]),
                      F("int8", [2, 1], [-128, 127], su, "gen_su_int8_updates.npy"), axis=1,
                      description="int8 from .npy"),
        ],
    }


def error_cases():
    """(file stem, case) pairs: each case breaks exactly one rule (checked by --verify)."""
    def t(dt, shape, values):
        return {"dtype": dt, "shape": shape, "values": values}

    def se(**kw):
        c = {"op": "scatter_elements", "axis": 1,
             "inputs": {"data": t("float32", [2, 3], [[1, 2, 3], [4, 5, 6]]),
                        "indices": t("int64", [2, 2], [[0, 1], [2, 0]]),
                        "updates": t("float32", [2, 2], [[-1, -2], [-3, -4]])}}
        c.update(kw)
        return c

    def nd(**kw):
        c = {"op": "scatter_nd",
             "inputs": {"data": t("float32", [2, 3], [[1, 2, 3], [4, 5, 6]]),
                        "indices": t("int64", [2, 2], [[0, 1], [1, 2]]),
                        "updates": t("float32", [2], [-1, -2])}}
        c.update(kw)
        return c

    def su(**kw):
        c = {"op": "scatter_update", "axis": 0,
             "inputs": {"data": t("int32", [3, 2], [[1, 2], [3, 4], [5, 6]]),
                        "indices": t("int32", [2], [2, 0]),
                        "updates": t("int32", [2, 2], [[-1, -2], [-3, -4]])}}
        c.update(kw)
        return c

    def with_input(c, role, tensor):
        c["inputs"][role] = tensor
        return c

    errs = [
        ("schema_unknown_case_key", "schema", "unknown key 'axes' in a case",
         se(axes=1)),
        ("schema_unknown_tensor_key", "schema", "unknown key 'layout' in a tensor",
         with_input(se(), "data", dict(t("float32", [2, 3], [1, 2, 3, 4, 5, 6]), layout="nchw"))),
        ("schema_values_and_generate", "schema", "a tensor with both values and generate",
         with_input(se(), "data", dict(t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                                       generate={"kind": "fill", "value": 1}))),
        ("schema_no_source", "schema", "a tensor with none of values, generate, file",
         with_input(se(), "updates", {"dtype": "float32", "shape": [2, 2]})),
        ("schema_bad_name", "schema", "a name outside [A-Za-z0-9_.-]+ (space and '!')",
         dict(se(), name="bad name!")),
        ("schema_missing_input", "schema", "inputs without updates",
         dict(se(), inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                            "indices": t("int64", [2, 2], [0, 1, 2, 0])})),
        ("schema_axis_string", "schema", "axis given as a string", se(axis="1")),
        ("schema_unknown_generator_field", "schema", "arange with an unknown field 'stop'",
         with_input(se(), "data", {"dtype": "float32", "shape": [2, 3],
                                   "generate": {"kind": "arange", "start": 0, "stop": 6}})),
        ("schema_expected_and_expect_error", "schema",
         "expect_error excludes expected: a case with both",
         dict(se(), expected=t("float32", [2, 3], [[-1, -2, 3], [-4, 5, -3]]))),
        ("dtype_float_indices", "dtype", "indices must be int32 or int64, not float32",
         with_input(se(), "indices", t("float32", [2, 2], [[0, 1], [2, 0]]))),
        ("dtype_updates_differ", "dtype", "updates float64 while data is float32",
         with_input(se(), "updates", t("float64", [2, 2], [[-1, -2], [-3, -4]]))),
        ("dtype_mean_bool", "dtype", "mean is not defined for bool",
         se(reduction="mean", inputs={"data": t("bool", [2, 3], [True] * 6),
                                      "indices": t("int64", [2, 2], [0, 1, 2, 0]),
                                      "updates": t("bool", [2, 2], [False] * 4)})),
        ("dtype_unknown", "dtype", "unknown dtype float8 (data and updates)",
         se(inputs={"data": t("float8", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [2, 2], [0, 1, 2, 0]),
                    "updates": t("float8", [2, 2], [1, 1, 1, 1])})),
        ("values_too_few", "values", "data shape [2, 3] with 5 values",
         with_input(se(), "data", t("float32", [2, 3], [1, 2, 3, 4, 5]))),
        ("values_ragged", "values", "nested values that do not match shape [2, 3]",
         with_input(se(), "data", t("float32", [2, 3], [[1, 2, 3], [4, 5]]))),
        ("values_fraction_in_int32", "values", "3.5 in an int32 tensor",
         with_input(su(), "data", t("int32", [3, 2], [[1, 2], [3.5, 4], [5, 6]]))),
        ("values_uint8_300", "values", "300 does not fit uint8",
         su(inputs={"data": t("uint8", [3, 2], [[1, 2], [3, 300], [5, 6]]),
                    "indices": t("int32", [2], [2, 0]),
                    "updates": t("uint8", [2, 2], [[1, 2], [3, 4]])})),
        ("values_string_in_float", "values", "a string other than nan/inf/-inf",
         with_input(se(), "updates", t("float32", [2, 2], [[-1, "abc"], [-3, -4]]))),
        ("values_nan_in_int", "values", "'nan' in an int32 tensor",
         with_input(su(), "updates", t("int32", [2, 2], [[-1, "nan"], [-3, -4]]))),
        ("values_unique_too_many", "values",
         "4 unique indices asked from data.shape[0] = 3",
         with_input(with_input(su(), "updates", t("int32", [4, 2], list(range(8)))), "indices",
                    {"dtype": "int32", "shape": [4], "generate": {"kind": "indices",
                                                                  "unique": True}})),
        ("op_unknown", "op", "unknown op ScatterFoo", se(op="ScatterFoo")),
        ("op_unknown_reduction", "op", "unknown reduction avg", se(reduction="avg")),
        ("op_sub_on_scatter_elements", "op", "sub is only for scatter_nd", se(reduction="sub")),
        ("op_add_on_scatter_update", "op", "scatter_update allows only none",
         su(reduction="add")),
        ("op_mean_on_scatter_nd", "op", "mean is only for scatter_elements",
         nd(reduction="mean")),
        ("axis_out_of_range", "axis", "axis 4 on rank-2 data", se(axis=4)),
        ("axis_too_negative", "axis", "axis -3 on rank-2 data (scatter_update)", su(axis=-3)),
        ("shape_se_updates_differ", "shape", "scatter_elements: updates.shape != indices.shape",
         with_input(se(), "updates", t("float32", [2, 3], [[-1, -2, -3], [-4, -5, -6]]))),
        ("shape_se_rank", "shape", "scatter_elements: rank(indices) != rank(data)",
         se(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [2], [0, 1]),
                    "updates": t("float32", [2], [-1, -2])})),
        ("shape_se_dim_exceeds", "shape",
         "scatter_elements: indices.shape[0] = 3 > data.shape[0] = 2 (not the axis)",
         se(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [3, 1], [0, 1, 2]),
                    "updates": t("float32", [3, 1], [-1, -2, -3])})),
        ("shape_nd_k_gt_r", "shape", "scatter_nd: k = 3 > rank(data) = 2",
         nd(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [1, 3], [[0, 1, 0]]),
                    "updates": t("float32", [1], [-1])})),
        ("shape_nd_updates", "shape",
         "scatter_nd: updates [2, 2] != indices.shape[:-1] + data.shape[k:] = [2, 3]",
         nd(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [2, 1], [[0], [1]]),
                    "updates": t("float32", [2, 2], [-1, -2, -3, -4])})),
        ("shape_nd_indices_rank0", "shape", "scatter_nd: indices must have rank >= 1",
         nd(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [], 0),
                    "updates": t("float32", [3], [-1, -2, -3])})),
        ("shape_nd_scalar_data", "shape", "data must have rank >= 1 (scalar data, k = 0)",
         nd(inputs={"data": t("float32", [], 1.0),
                    "indices": t("int64", [1, 0], [[]]),
                    "updates": t("float32", [1], [2.0])})),
        ("shape_su_updates", "shape",
         "scatter_update: updates [2, 3] != data.shape[:0] + indices.shape + data.shape[1:]",
         with_input(su(), "updates", t("int32", [2, 3], [[-1, -2, -3], [-4, -5, -6]]))),
        ("index_se_out_of_range", "index", "scatter_elements: index 3 for data.shape[1] = 3",
         with_input(se(), "indices", t("int64", [2, 2], [[0, 3], [2, 0]]))),
        ("index_se_negative_out_of_range", "index",
         "scatter_elements: index -4 below -3 for data.shape[1] = 3",
         with_input(se(), "indices", t("int64", [2, 2], [[0, 1], [-4, 0]]))),
        ("index_nd_component", "index",
         "scatter_nd: tuple [0, 3] has component 1 out of range for data.shape[1] = 3, "
         "although its flat offset 3 is inside the 6-element tensor",
         with_input(nd(), "indices", t("int64", [2, 2], [[0, 1], [0, 3]]))),
        ("index_nd_out_of_range", "index", "scatter_nd: component -3 for data.shape[0] = 2",
         with_input(nd(), "indices", t("int64", [2, 2], [[-3, 1], [1, 2]]))),
        ("index_su_negative", "index", "scatter_update: negative indices are errors",
         with_input(su(), "indices", t("int32", [2], [-1, 0]))),
        ("index_su_out_of_range", "index", "scatter_update: index 3 for data.shape[0] = 3",
         with_input(su(), "indices", t("int32", [2], [3, 0]))),
        ("io_missing_npy", "io", "data names a .npy file that does not exist",
         with_input(se(), "data", {"dtype": "float32", "shape": [2, 3],
                                   "file": "npy/does_not_exist.npy"})),
        ("too_large_fill", "too_large",
         "data [100000, 100000, 100000] float64 (8e15 bytes): rejected before allocation",
         se(axis=0, inputs={"data": {"dtype": "float64", "shape": [100000, 100000, 100000],
                                     "generate": {"kind": "fill", "value": 0}},
                            "indices": t("int64", [1, 1, 1], [[[0]]]),
                            "updates": t("float64", [1, 1, 1], [[[1.0]]])})),
    ]
    out = []
    for stem, code, desc, c in errs:
        case = {"name": c.pop("name", "err_" + stem), "description": desc,
                "tags": ["error", code], "expect_error": code}
        case.update(c)
        out.append(("gen_err_" + stem, case))
    return out


# ----------------------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------------------

def catalogue():
    """{relative file path under cases/: [case, ...]}"""
    files = {}
    se, nd, su = "scatter_elements", "scatter_nd", "scatter_update"
    for red in SE_REDS:
        seed = 100 + SE_REDS.index(red)
        files["%s/gen_%s.json" % (se, red)] = (sweep_elements(red, None, seed)
                                               + sweep_elements(red, False, seed + 50))
    for red in ND_REDS:
        files["%s/gen_%s.json" % (nd, red)] = sweep_nd(red, 200 + ND_REDS.index(red))
    files["%s/gen_none.json" % su] = sweep_update(300)
    files["%s/gen_edge.json" % se] = edges_elements()
    files["%s/gen_edge.json" % nd] = edges_nd()
    files["%s/gen_edge.json" % su] = edges_update()
    files["%s/gen_generate.json" % se] = generated_elements()
    files["%s/gen_generate.json" % nd] = generated_nd()
    files["%s/gen_generate.json" % su] = generated_update()
    for op, cases in npy_cases().items():
        files["%s/gen_npy.json" % op] = cases
    for stem, case in error_cases():
        files["errors/%s.json" % stem] = [case]
    return files


def write_all():
    NPY_OUT.clear()
    files = catalogue()
    for op_dir in ("scatter_elements", "scatter_nd", "scatter_update", "errors"):
        d = os.path.join(CASES, op_dir)
        os.makedirs(d, exist_ok=True)
        for root, _, names in os.walk(d):
            for n in names:
                if n.startswith("gen_") and (n.endswith(".json") or n.endswith(".npy")):
                    os.remove(os.path.join(root, n))
    for rel, cases in sorted(files.items()):
        with open(os.path.join(CASES, rel), "w", encoding="utf-8") as f:
            f.write(dumps_cases(cases))
    for rel, arr in sorted(NPY_OUT.items()):
        path = os.path.join(CASES, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.save(path, arr, allow_pickle=False)
    n = sum(len(c) for c in files.values())
    print("wrote %d cases in %d files, %d .npy files" % (n, len(files), len(NPY_OUT)))


def verify():
    names, counts, failures = {}, {}, []
    paths = []
    for root, dirs, fnames in os.walk(CASES):
        dirs[:] = sorted(d for d in dirs
                         if os.path.relpath(os.path.join(root, d), CASES) != "large")
        paths += [os.path.join(root, n) for n in sorted(fnames) if n.endswith(".json")]
    for path in sorted(paths):
        rel = os.path.relpath(path, CASES)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if isinstance(doc, dict) and "cases" in doc:
            if set(doc) - {"cases", "format"}:
                failures.append("%s: unknown top-level key" % rel)
            cases = doc["cases"]
        else:
            cases = [doc]
        for case in cases:
            name = case.get("name")
            if name in names:
                failures.append("%s: duplicate name %s (also in %s)" % (rel, name, names[name]))
            names[name] = rel
            try:
                errors, out, summary = check_case(case, os.path.dirname(path))
            except AssertionError as e:
                failures.append("%s: %s" % (rel, e))
                continue
            want = case.get("expect_error")
            if want is not None:
                if want not in ERROR_CODES or errors != {want}:
                    failures.append("%s: %s expects %s, oracle finds %s"
                                    % (rel, name, want, sorted(errors)))
                key = ("errors", want, "-")
            else:
                if errors:
                    failures.append("%s: %s unexpectedly invalid: %s" % (rel, name, sorted(errors)))
                    continue
                if "expected" not in case:
                    failures.append("%s: %s has no expected" % (rel, name))
                key = summary
            counts[key] = counts.get(key, 0) + 1
    for k in sorted(counts):
        print("%-17s %-5s %-9s %d" % (k + (counts[k],)))
    print("%d cases in %d files" % (sum(counts.values()), len(paths)))
    for f in failures:
        print("FAIL", f)
    return not failures


if __name__ == "__main__":
    if sys.argv[1:] == ["--verify"]:
        sys.exit(0 if verify() else 1)
    if sys.argv[1:]:
        sys.exit(__doc__)
    write_all()

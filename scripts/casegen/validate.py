"""The validator of --verify: every error code a case file can trigger, found independently.

check_case collects the set of codes a case breaks (a valid case: none), materializes its
tensors, runs the oracle and compares the result with `expected` bit for bit.
"""
import os
import re

import numpy as np

from scatterctl_spec import (CASE_KEYS, DTYPES, GENERATOR_FIELDS, INDEX_DTYPES, INT_RANGES, ITEMSIZE, WRITE_MODES,
                             NPY_DESCR, OPS, REDUCTIONS, TENSOR_KEYS, op_name, reduction_name)

from .generators import CaseError, generate
from .numeric import is_float, is_int, is_num, same_value, to_float
from .oracle import run_case
from .shapes import prod

MAX_BYTES = 1 << 34  # anything in cases/ stays far below; the too_large case is far above


def check_tensor_decl(t, where, errors):
    """Static checks of one tensor object; returns (dtype, shape) or None."""
    if not isinstance(t, dict):
        errors.add("schema")
        return None
    if set(t) - set(TENSOR_KEYS):
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
        if (not isinstance(g, dict) or g.get("kind") not in GENERATOR_FIELDS
                or set(g) - set(GENERATOR_FIELDS[g["kind"]]) - {"kind"}):
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
    # numpy has no bfloat16: this oracle reads no bfloat16 .npy (no bundled case has one)
    if dt == "bfloat16" or a.dtype.str != NPY_DESCR[dt] or list(a.shape) != shape:
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
    if set(case) - set(CASE_KEYS) or not {"name", "op", "inputs"} <= set(case):
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
    op = op_name(case.get("op", ""))
    red = reduction_name(case.get("reduction", "none"))
    if op is None or red is None or red not in OPS[op].reductions:
        errors.add("op")
    if op != "scatter_elements" and "use_init_val" in case:
        errors.add("schema")
    if op == "scatter_nd" and "axis" in case:
        errors.add("schema")
    if "mode" in case and (op != "tensor_scatter" or case["mode"] not in WRITE_MODES):
        errors.add("schema")
    mode = case.get("mode", WRITE_MODES[0])
    inputs = case.get("inputs")
    if isinstance(inputs, dict) and op == "tensor_scatter" and "indices" not in inputs and "data" in inputs:
        # absent write_indices are int64 zeros, one per batch row (ONNX TensorScatter)
        batch = inputs["data"].get("shape", [0])[:1] if isinstance(inputs["data"], dict) else [0]
        inputs = dict(inputs, indices={"dtype": "int64", "shape": batch, "generate": {"kind": "fill", "value": 0}})
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
    if idt not in INDEX_DTYPES or udt != ddt or (exp_decl and exp_decl[0] != ddt):
        errors.add("dtype")
    if red is not None and ddt not in REDUCTIONS[red].dtypes:
        errors.add("dtype")
    r = len(dsh)
    default_axis = -2 if op == "tensor_scatter" else 0  # ONNX TensorScatter's sequence axis
    axis = case.get("axis", default_axis) if is_int(case.get("axis", default_axis)) else 0
    if op == "tensor_scatter" and r < 2:
        errors.add("shape")
        return errors, None, None
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
    elif op == "tensor_scatter" and 0 <= a < r:
        if a == 0:  # the batch axis
            errors.add("axis")
            return errors, None, None
        shape_ok = (ish == dsh[:1] and len(ush) == r and
                    all(ush[d] == dsh[d] or (d == a and ush[d] <= dsh[d]) for d in range(r)))
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
    if op == "tensor_scatter":
        if inputs["indices"].get("generate", {}).get("kind") == "indices":
            raise AssertionError(f"{name}: this oracle draws no tensor_scatter write positions; write them out")
        last = dsh[a] - ush[a] if mode == "linear" else None
        bad = any(x < 0 or (last is not None and x > last) for x in iv)
    elif op == "scatter_elements":
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
                   (idt, ish, iv), (udt, ush, vals["updates"]), mode)
    summary = (op, red, ddt)
    if exp is not None:
        diffs = [i for i, (g, w) in enumerate(zip(out, exp)) if not same_value(g, w, ddt)]
        if diffs:
            i = diffs[0]
            raise AssertionError("%s: %d elements differ, first at %d: oracle %r, expected %r"
                                 % (name, len(diffs), i, out[i], exp[i]))
    return errors, out, summary


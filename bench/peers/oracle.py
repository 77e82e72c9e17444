"""The numpy oracle every peer is checked against before it is timed: the reference's
semantics written plainly over flat targets (suite.flat_targets), independent of the
peers' own scatter calls.

- none: the last writer in the updates' row-major order wins (the reference's rule);
  an element written twice or more is reported apart, because ONNX, PyTorch and numpy
  leave the winner among duplicates unspecified.
- add, mul, min, max: every update combined into data (use_init_val, as the suite).
- mean: (data + sum of updates) / (1 + count); integers rounded toward -infinity.

Floats are combined in float64 and compared with a bound on the rounding of the peer's
own order of operations (n terms of its dtype); integers and min/max/none exactly.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .suite import Inputs, Item, flat_targets

EPS = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "int32": 0.0}


@dataclasses.dataclass
class Expected:
    value: np.ndarray  # float64 for floats, int64 for integers, the data's shape
    writers: np.ndarray  # updates that target each element (flat, int64)
    tolerance: np.ndarray  # per element, absolute


def expected(it: Item, inp: Inputs) -> Expected:
    t = flat_targets(it, inp)
    integer = it.data.dtype == "int32"
    d = inp.data.reshape(-1).astype(np.int64 if integer else np.float64)
    u = inp.updates.reshape(-1).astype(np.int64 if integer else np.float64)
    n = d.size
    writers = np.bincount(t, minlength=n).astype(np.int64)
    out = d.copy()
    red = it.reduction
    if red == "none":
        last = t.size - 1 - np.unique(t[::-1], return_index=True)[1]
        out[t[last]] = u[last]
    elif red in ("add", "mean"):
        np.add.at(out, t, u)
        if red == "mean":
            count = writers + 1
            out = np.where(writers > 0, np.floor_divide(out, count) if integer else out / count, out)
    elif red == "mul":
        if integer:  # int32 products wrap: multiply in int32 (exact modular arithmetic)
            o32 = inp.data.reshape(-1).copy()
            np.multiply.at(o32, t, inp.updates.reshape(-1))
            out = o32.astype(np.int64)
        else:
            np.multiply.at(out, t, u)
    else:
        getattr(np, {"min": "minimum", "max": "maximum"}[red]).at(out, t, u)
    if integer and red == "add":  # int32 sums wrap
        out = out.astype(np.int32).astype(np.int64)
    tol = np.zeros(n)
    eps = EPS[it.data.dtype]
    if eps and red in ("add", "mean", "mul"):
        if red == "mul":
            scale = np.abs(out)
        else:
            scale = np.abs(d).copy()
            np.add.at(scale, t, np.abs(u))
            if red == "mean":
                scale /= writers + 1
        # n roundings of the peer's dtype in any order, plus its final rounding; a
        # floor for products that flush to zero or subnormals.
        tol = (writers + 2) * eps * scale + (1e-30 if it.data.dtype == "float32" else 1e-6)
    return Expected(out.reshape(inp.data.shape), writers.reshape(inp.data.shape), tol.reshape(inp.data.shape))


def check(it: Item, exp: Expected, got: np.ndarray) -> tuple[str, str]:
    """(failure, note): failure is empty when `got` computes the same thing; note
    tells how many duplicate targets chose another winner (not a failure)."""
    got = np.asarray(got)
    if got.shape != exp.value.shape:
        return f"output shape {list(got.shape)}, expected {list(exp.value.shape)}", ""
    g = got.astype(exp.value.dtype)
    diff = np.abs(g - exp.value) if exp.value.dtype.kind == "f" else (g != exp.value).astype(np.float64)
    bad = ~(diff <= exp.tolerance)
    note = ""
    if it.reduction == "none":
        contested = bad & (exp.writers >= 2)
        if contested.any():
            note = (f"{int(contested.sum())} of {int((exp.writers >= 2).sum())} elements written more than once "
                    f"hold another writer's value than the last")
        bad &= exp.writers < 2
    if not bad.any():
        return "", note
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ from the numpy oracle, first at {list(where)}: "
            f"{g[where]!r} vs {exp.value[where]!r}"), note

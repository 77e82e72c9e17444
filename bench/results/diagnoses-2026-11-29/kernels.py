"""NumPy scatter kernels with one known bug each, for bench/results/diagnoses-2026-11-29 (written
outside the test suite): `right` has none; `buffered`, `clamp`, `skipneg`, `init`, `fmax` and
`trunc` each have one (NOTES.md). scatter_elements and scatter_nd; none, add, mul, min, max, mean.

    scatterctl fuzz --backend python:kernels.py:buffered --iterations 200
"""
import numpy as np
BUG = None
NAME = "diagnoses-2026-11-29"
_D = ["float32", "float64", "int32", "int64"]
CAPABILITIES = {
    "ops": {
        "scatter_elements": {r: _D for r in ("none", "add", "mul", "min", "max", "mean")},
        "scatter_nd": {r: _D for r in ("none", "add", "mul", "min", "max")},
    },
    "use_init_val_false": True,
    "empty_index_tuple": False,
    "checks_indices": True,
}

def _norm(idx, size):
    idx = idx.astype(np.int64)
    if ((idx < -size) | (idx >= size)).any():
        raise IndexError("out of range")
    if BUG == "clamp":
        return np.where(idx < 0, 0, idx)
    if BUG == "skipneg":
        return np.where(idx < 0, -1, idx)  # -1: dropped below
    return np.where(idx < 0, idx + size, idx)

def _ident(dtype, r):
    if r in ("add", "mean"): return 0
    if r == "mul": return 1
    if np.issubdtype(dtype, np.floating):
        return np.inf if r == "min" else -np.inf
    return np.iinfo(dtype).max if r == "min" else np.iinfo(dtype).min

def _combine(r, o, u):
    if r in ("add", "mean"): return o + u
    if r == "mul": return o * u
    if np.issubdtype(np.asarray(o).dtype, np.floating):
        if BUG == "fmax":
            return np.fmin(o, u) if r == "min" else np.fmax(o, u)
        if np.isnan(o) or np.isnan(u): return o + u  # NaN wins
        if o == u == 0:
            neg = np.signbit(o) or np.signbit(u) if r == "min" else np.signbit(o) and np.signbit(u)
            return -0.0 if neg else 0.0
    return min(o, u) if r == "min" else max(o, u)

def _targets(op, data, indices, axis):
    """(update position, output position) pairs, in update order, each a flat index."""
    out = []
    if op == "scatter_elements":
        for pos in np.ndindex(*indices.shape):
            t = list(pos)
            t[axis] = int(_norm(np.array([indices[pos]]), data.shape[axis])[0])
            flat = -1 if t[axis] < 0 else np.ravel_multi_index(tuple(t), data.shape)
            out.append((np.ravel_multi_index(pos, indices.shape), [flat]))
    else:
        k = indices.shape[-1]
        tup = indices.reshape(-1, k)
        rest = int(np.prod(data.shape[k:]))
        for i, row in enumerate(tup):
            t = tuple(int(_norm(np.array([row[j]]), data.shape[j])[0]) for j in range(k))
            if min(t) < 0:
                out.append((i * rest, [-1] * rest))
                continue
            base = np.ravel_multi_index(t, data.shape[:k]) * rest
            out.append((i * rest, [base + e for e in range(rest)]))
    return out

def _scatter(op, data, indices, updates, *, axis, reduction, use_init_val):
    out = data.copy().reshape(-1)
    u = updates.reshape(-1)
    pairs = _targets(op, data, indices, axis)
    pairs = [(p, ts) for p, ts in pairs if all(t >= 0 for t in ts)]  # only the skipneg bug marks a target -1
    if BUG == "buffered":  # out[idx] op= u: each target takes its last update
        last = {}
        for up, ts in pairs:
            for j, t in enumerate(ts): last[t] = up + j
        pairs = [(p, [t]) for t, p in last.items()]
    start = use_init_val or reduction == "none" or BUG == "init"
    count = {}
    if not start:
        for _, ts in pairs:
            for t in ts: out[t] = _ident(out.dtype, reduction)
    for up, ts in pairs:
        for j, t in enumerate(ts):
            v = u[up + j]
            out[t] = v if reduction == "none" else _combine(reduction, out[t], v)
            count[t] = count.get(t, 0) + 1
    if reduction == "mean":
        for t, n in count.items():
            n += 1 if (use_init_val or BUG == "init") else 0
            if np.issubdtype(out.dtype, np.integer):
                s = int(out[t])
                out[t] = (-(-s // n) if s < 0 else s // n) if BUG == "trunc" else s // n
            else:
                out[t] = out[t] / n
    return out.reshape(data.shape)


def _kernel(bug):
    def scatter(*args, **kwargs):
        global BUG
        BUG = bug
        return _scatter(*args, **kwargs)
    return scatter


right = _kernel(None)
buffered = _kernel("buffered")
clamp = _kernel("clamp")
skipneg = _kernel("skipneg")
init = _kernel("init")
fmax = _kernel("fmax")
trunc = _kernel("trunc")

"""numpy: a plain, exact implementation of the spec's semantics (docs/case-format.md, "Semantics").

Updates apply in row-major update order. To stay vectorized, the updates are split into rounds: round j
holds the j-th update of every output element (in update order), so one round touches each element at
most once and the rounds apply one after another; per element this is exactly the sequential order.

- float16 arithmetic is NumPy's (computed in float32, rounded to float16: exact-then-round, since
  24 >= 2*11+2 bits makes the double rounding innocuous); bfloat16 is held as float32 and rounded to
  bfloat16 (nearest even) after every step (24 >= 2*8+2 again); no ml_dtypes needed.
- min/max are IEEE 754-2019 minimum/maximum: NaN wins, -0 < +0.
- integers wrap; integer mean is floor division of the wrapped sum; float mean divides the rounded sum
  by the exact count, correctly rounded (in float64, then one rounding to the dtype).
- bool: add/max OR, mul/min AND, sub XOR.
"""
import numpy as np

from scatterctl_spec import FLOAT_DTYPES, REDUCTIONS, identity

from .adapter import Adapter, Prepared, full_capabilities
from .protocol import Rejected, Tensor, bf16_to_f32, f32_to_bf16, f64_to_bf16, first_out_of_range


def _max_rank():
    for r in (64, 32):
        try:
            np.empty((1,) * r)
            return r
        except Exception:
            continue
    return 32


def targets(case):
    """Flat output position of every update element, in row-major update order (indices normalized).
    Raises Rejected('index') for an out-of-range index (negative ones too for scatter_update)."""
    msg = first_out_of_range(case, allow_negative=case.op != "scatter_update")
    if msg:
        raise Rejected("index", msg)
    shape = case.data.shape
    idx = case.indices.array.astype(np.int64)
    strides = [int(np.prod(shape[j + 1:], dtype=np.int64)) for j in range(len(shape))]
    if case.op == "tensor_scatter":
        # ONNX's pseudocode: update[p, s, ...] goes to present[p, write_indices[p[0]] + s (mod S), ...]
        ax = case.axis
        coords = list(np.indices(case.updates.shape, sparse=True))
        pos = idx[coords[0]] + coords[ax]
        if case.mode == "circular":
            pos = pos % shape[ax]
        flat = pos * strides[ax]
        for j, cj in enumerate(coords):
            if j != ax:
                flat = flat + cj * strides[j]
        return np.broadcast_to(flat, case.updates.shape).astype(np.int64).reshape(-1)
    if case.op == "scatter_elements":
        ax = case.axis
        s = shape[ax]
        norm = np.where(idx < 0, idx + s, idx)
        if idx.size == 0:
            return np.zeros(0, np.int64)
        coords = list(np.indices(idx.shape, sparse=True))
        flat = norm * strides[ax]
        for j, cj in enumerate(coords):
            if j != ax:
                flat = flat + cj * strides[j]
        return np.asarray(flat, dtype=np.int64).reshape(-1)
    if case.op == "scatter_nd":
        k = idx.shape[-1]
        lead = shape[:k]
        inner = int(np.prod(shape[k:], dtype=np.int64))
        m = int(np.prod(idx.shape[:-1], dtype=np.int64))
        t = idx.reshape(m, k)
        base = np.zeros(m, np.int64)
        for j in range(k):
            col = t[:, j]
            col = np.where(col < 0, col + lead[j], col)
            base = base * lead[j] + col
        return (base[:, None] * inner + np.arange(inner, dtype=np.int64)[None, :]).reshape(-1)
    ax = case.axis
    pre = int(np.prod(shape[:ax], dtype=np.int64))
    s = shape[ax]
    post = int(np.prod(shape[ax + 1:], dtype=np.int64))
    i = idx.reshape(-1)
    return (np.arange(pre, dtype=np.int64)[:, None, None] * (s * post) + i[None, :, None] * post
            + np.arange(post, dtype=np.int64)[None, None, :]).reshape(-1)


def rounds(t):
    """Splits update positions into rounds in which every target appears at most once, in order."""
    n = t.size
    if n == 0:
        return []
    order = np.argsort(t, kind="stable")
    ts = t[order]
    first = np.empty(n, bool)
    first[0] = True
    np.not_equal(ts[1:], ts[:-1], out=first[1:])
    ar = np.arange(n)
    rank_sorted = ar - np.maximum.accumulate(np.where(first, ar, 0))
    if rank_sorted.max() == 0:
        return [ar]
    rank = np.empty(n, np.int64)
    rank[order] = rank_sorted
    perm = np.argsort(rank, kind="stable")
    bounds = np.cumsum(np.bincount(rank))
    out, a = [], 0
    for b in bounds:
        out.append(perm[a:b])
        a = b
    return out


def ieee_min(a, b):
    r = np.where(b < a, b, a)
    z = (a == b) & (a == 0)
    r = np.where(z & np.signbit(b), b, r)
    nan = np.isnan(a) | np.isnan(b)
    return np.where(nan, np.where(np.isnan(a), a, b), r)


def ieee_max(a, b):
    r = np.where(b > a, b, a)
    z = (a == b) & (a == 0)
    r = np.where(z & ~np.signbit(b), b, r)
    nan = np.isnan(a) | np.isnan(b)
    return np.where(nan, np.where(np.isnan(a), a, b), r)


# The reductions step_fn has a step for.
LOWERED = ("none", "add", "sub", "mul", "mean", "min", "max")


def step_fn(reduction, dtype):
    """f(out, u) for one step, in the held type (bfloat16 rounding is applied by the caller)."""
    if reduction == "none":
        return lambda o, u: u
    if dtype == "bool":
        return {"or": np.logical_or, "and": np.logical_and, "xor": np.logical_xor}[REDUCTIONS[reduction].bool_op]
    if reduction in ("add", "mean"):
        return np.add
    if reduction == "sub":
        return np.subtract
    if reduction == "mul":
        return np.multiply
    if reduction not in ("min", "max"):
        raise ValueError(f"the numpy worker has no step for reduction '{reduction}'")
    if dtype in FLOAT_DTYPES:
        return ieee_min if reduction == "min" else ieee_max
    return np.minimum if reduction == "min" else np.maximum


def scatter(case):
    """The spec's scatter on a validated case -> output Tensor."""
    dtype = case.dtype
    bf16 = dtype == "bfloat16"
    data_bits = case.data.array
    vals = bf16_to_f32(data_bits).reshape(-1) if bf16 else data_bits.reshape(-1).copy()
    upd = (bf16_to_f32(case.updates.array) if bf16 else case.updates.array).reshape(-1)
    hold = vals.dtype.type
    t = targets(case)
    red = case.reduction
    rnd = (lambda x: bf16_to_f32(f32_to_bf16(x))) if bf16 else (lambda x: x)
    touched = np.unique(t)
    init = case.use_init_val or case.op != "scatter_elements" or red == "none"
    if not init:
        vals[touched] = identity(red, dtype)
    f = step_fn(red, dtype)
    for r in rounds(t):
        tr = t[r]
        vals[tr] = rnd(f(vals[tr], upd[r]))
    if red == "mean" and touched.size:
        count = np.bincount(t, minlength=vals.size)[touched] + (1 if init else 0)
        s = vals[touched]
        if dtype in FLOAT_DTYPES:
            q = s.astype(np.float64) / count.astype(np.float64)
            vals[touched] = bf16_to_f32(f64_to_bf16(q)) if bf16 else q.astype(hold)
        else:
            vals[touched] = np.floor_divide(s.astype(np.int64), count.astype(np.int64)).astype(hold)
    if bf16:
        out = data_bits.reshape(-1).copy()
        out[touched] = f32_to_bf16(vals[touched])
        return Tensor(dtype, out.reshape(case.data.shape))
    return Tensor(dtype, vals.reshape(case.data.shape))


class _Prepared(Prepared):
    timing = "perf_counter around the whole scatter in NumPy (index checks and normalization included)"
    lowering = "numpy: the spec's sequential semantics, vectorized in rounds of distinct targets"

    def __init__(self, case):
        self.case = case
        self.out = None

    def call(self):
        self.out = scatter(self.case)

    def result(self):
        return self.out


class NumpyAdapter(Adapter):
    name = "numpy"

    def load(self):
        self.version = np.__version__
        self.device = "CPU"
        self.settings = {"bfloat16": "held as float32, rounded to nearest even after every step"}

    def capabilities(self):
        return full_capabilities(max_rank=_max_rank(), checks_indices=True, exclude=[], tensor_scatter=True,
                                 lowers=LOWERED)

    def prepare(self, case, flags):
        return _Prepared(case)

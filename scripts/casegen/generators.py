"""SplitMix64 and the spec's tensor generators (arange, fill, uniform, randint, indices).

Values come back as flat lists in row-major order, typed as the number model holds them.
"""
import math

from scatterctl_spec import INT_RANGES

from .numeric import is_float, to_float
from .shapes import ndindex, prod, ravel


class CaseError(Exception):
    """A case the spec rejects, found while building its tensors; code is the spec's error code."""

    def __init__(self, code, msg):
        super().__init__("%s: %s" % (code, msg))
        self.code = code


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

"""The catalogue's sweeps: every op x reduction x dtype once, on literal data drawn from
SplitMix64 with fixed seeds, over a rotation of shapes and axes."""
from fractions import Fraction

from scatterctl_spec import DTYPES, OPS

from .build import V, make_case
from .generators import SplitMix64
from .numeric import is_float, round_to
from .shapes import prod


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
# the order of the spec table's reductions fixes each sweep's seeds and shapes
SE_REDS = OPS["scatter_elements"].reductions
ND_REDS = OPS["scatter_nd"].reductions


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


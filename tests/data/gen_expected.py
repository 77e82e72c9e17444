#!/usr/bin/env python3
"""Independent oracle for tests/test_generate.cpp and tests/test_dtype.cpp.

Implements the generators of shared/spec/case-format.md ("Generators") from the
spec's text alone, in Python integers and doubles (numpy only for float16/float32
rounding), and prints the expected tensors as C++ literals to paste into the tests.
SplitMix64 and partial Fisher-Yates come from the case generator (scripts/casegen, pure
Python too); the generators themselves are written here from the spec, apart from casegen's.
Run: python3 tests/data/gen_expected.py
"""

import itertools
import math
import os
import sys
from fractions import Fraction

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from casegen.generators import M64 as MASK, SplitMix64, partial_fisher_yates  # noqa: E402
from casegen.shapes import prod as numel  # noqa: E402


# ---- exact rounding of a rational to a binary format (for hard dtype cases) ----

def round_to_format(x, exp_bits, man_bits):
    """Bits of x (a Fraction or float) rounded to nearest, ties to even."""
    x = Fraction(x)
    sign = 1 if x < 0 else 0
    a = abs(x)
    bias = (1 << (exp_bits - 1)) - 1
    emin = 1 - bias
    if a == 0:
        return sign << (exp_bits + man_bits)
    e = math.floor(math.log2(a)) if a.numerator else 0
    # fix floor(log2) exactly
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - man_bits)
    q = a / ulp
    n = math.floor(q)
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    # n * ulp is the rounded magnitude; re-encode
    if n >= (1 << (man_bits + 1)):
        n //= 2
        e += 1
    if e > bias:
        return (sign << (exp_bits + man_bits)) | (((1 << exp_bits) - 1) << man_bits)
    if n < (1 << man_bits):  # subnormal
        return (sign << (exp_bits + man_bits)) | n
    field = e + bias
    return (sign << (exp_bits + man_bits)) | (field << man_bits) | (n - (1 << man_bits))


def f16_bits(x):
    with np.errstate(over="ignore"):  # overflow to infinity is one of the cases
        return int(np.float16(np.float64(x)).view(np.uint16))


def f32_bits(x):
    return int(np.float32(np.float64(x)).view(np.uint32))


def bf16_from_f32_rne(x):
    """bfloat16 by round-to-nearest-even on float32 bits (x exactly a float32)."""
    b = int(np.float32(x).view(np.uint32))
    assert float(np.float32(x)) == x, "not exactly representable in float32"
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def cast(dtype, v):
    """Element as the test compares it: bits for floats, the value for ints."""
    if dtype == "float32":
        return f32_bits(v)
    if dtype == "float16":
        return f16_bits(v)
    if dtype == "float64":
        return int(np.float64(v).view(np.uint64))
    return v


# ---- generators ----

def arange(dtype, shape, start=0, step=1):
    n = numel(shape)
    if dtype.startswith("float"):
        return [cast(dtype, float(start) + float(i) * float(step)) for i in range(n)]
    return [start + i * step for i in range(n)]


def uniform(dtype, shape, low, high, seed=0):
    rng = SplitMix64(seed)
    out = []
    for _ in range(numel(shape)):
        v = float(low) + (float(high) - float(low)) * rng.unit()
        out.append(cast(dtype, v) if dtype.startswith("float") else math.floor(v))
    return out


def randint(shape, low, high, seed=0):
    rng = SplitMix64(seed)
    return [low + rng.next() % (high - low) for _ in range(numel(shape))]


def unravel(off, shape):
    coord = []
    for d in reversed(shape):
        coord.append(off % d)
        off //= d
    return list(reversed(coord))


def indices(op, data_shape, ind_shape, axis=0, unique=False, negative=0.0, seed=0):
    rng = SplitMix64(seed)
    n = numel(ind_shape)
    if op == "scatter_nd":
        k = ind_shape[-1]
        s = [data_shape[i % k] for i in range(n)]
    else:
        s = [data_shape[axis]] * n
    v = [0] * n
    if not unique:
        v = [rng.next() % s[i] for i in range(n)]
    elif op == "scatter_elements":
        m = ind_shape[axis]
        ext = data_shape[axis]
        arr = np.zeros(ind_shape, dtype=np.int64)
        others = [range(d) for i, d in enumerate(ind_shape) if i != axis]
        for other in itertools.product(*others):
            drawn = partial_fisher_yates(rng, ext, m)
            for j in range(m):
                coord = list(other)
                coord.insert(axis, j)
                arr[tuple(coord)] = drawn[j]
        v = [int(x) for x in arr.reshape(-1)]
    elif op == "scatter_nd":
        k = ind_shape[-1]
        prefix = data_shape[:k]
        tuples = numel(ind_shape[:-1])
        drawn = partial_fisher_yates(rng, numel(prefix), tuples)
        v = [c for t in drawn for c in unravel(t, prefix)]
    else:
        v = partial_fisher_yates(rng, data_shape[axis], n)
    if negative > 0:
        for i in range(n):
            if rng.unit() < negative:
                v[i] -= s[i]
    return v


def show(name, values, hexa=False):
    body = ", ".join(f"0x{v:X}" if hexa else str(v) for v in values)
    print(f"{name}: {{{body}}}")


def main():
    print("== splitmix64 (first three draws) ==")
    for seed in (0, 1, MASK):
        r = SplitMix64(seed)
        show(f"seed {seed}", [r.next() for _ in range(3)], hexa=True)

    print("== float16 hard cases (numpy np.float16(x).view(np.uint16)) ==")
    cases16 = {
        "1.0": 1.0, "65504": 65504.0, "65519": 65519.0, "65520": 65520.0, "-65520": -65520.0,
        "2^-24": 2.0**-24, "2^-25": 2.0**-25, "3*2^-26": 3 * 2.0**-26, "2^-25+2^-40": 2.0**-25 + 2.0**-40,
        "2^-14": 2.0**-14, "2^-14-2^-25": 2.0**-14 - 2.0**-25, "1+2^-11": 1 + 2.0**-11,
        "1+3*2^-11": 1 + 3 * 2.0**-11, "1+2^-11+2^-40": 1 + 2.0**-11 + 2.0**-40, "0.1": 0.1,
        "1/3": 1 / 3, "-2.5": -2.5, "2^-26": 2.0**-26, "1e-300": 1e-300, "2049": 2049.0, "2051": 2051.0,
    }
    for k, x in cases16.items():
        a, b = f16_bits(x), round_to_format(x, 5, 10)
        assert a == b, (k, hex(a), hex(b))
        print(f"  {k}: 0x{a:04X}")

    print("== bfloat16 (RNE on float32 bits; exact rounding for the double-only cases) ==")
    for k, x in {"1.0": 1.0, "1+2^-8": 1 + 2.0**-8, "1+3*2^-8": 1 + 3 * 2.0**-8, "-0.5": -0.5,
                 "3.4e38-ish 0x7F7F8000": float(np.uint32(0x7F7F8000).view(np.float32)),
                 "0x7F7FFFFF": float(np.uint32(0x7F7FFFFF).view(np.float32)),
                 "2^-133": 2.0**-133, "2^-134": 2.0**-134, "3*2^-135": 3 * 2.0**-135,
                 "0.1f": float(np.float32(0.1)), "pi f": float(np.float32(math.pi))}.items():
        a, b = bf16_from_f32_rne(x), round_to_format(x, 8, 7)
        assert a == b, (k, hex(a), hex(b))
        print(f"  {k}: 0x{a:04X}")
    for k, x in {"1+2^-8+2^-30": 1 + 2.0**-8 + 2.0**-30, "0.1 (double)": 0.1}.items():
        print(f"  {k}: 0x{round_to_format(x, 8, 7):04X}")

    print("== arange ==")
    show("int32 [5] start 3 step -2", arange("int32", [5], 3, -2))
    show("int64 [2,3] default", arange("int64", [2, 3]))
    show("float32 [2,3] start 0.5 step 0.25 (bits)", arange("float32", [2, 3], 0.5, 0.25), hexa=True)
    show("float32 [4] start 1 step 0.1 (bits)", arange("float32", [4], 1, 0.1), hexa=True)
    show("float16 [4] start 0 step 0.1 (bits)", arange("float16", [4], 0, 0.1), hexa=True)
    show("float64 [3] start -1 step -0.5 (bits)", arange("float64", [3], -1, -0.5), hexa=True)

    print("== fill ==")
    show("float16 1/3 (bits)", [f16_bits(1 / 3)], hexa=True)

    print("== uniform ==")
    show("float32 [2,3] -1..1 seed 42 (bits)", uniform("float32", [2, 3], -1, 1, 42), hexa=True)
    show("float16 [5] 0..100 seed 7 (bits)", uniform("float16", [5], 0, 100, 7), hexa=True)
    show("int32 [8] -10..10 seed 3 (floor)", uniform("int32", [8], -10, 10, 3))
    show("int8 [4] 0..1000 seed 0 (floor, first out of range)", uniform("int8", [4], 0, 1000, 0))

    print("== randint ==")
    show("int64 [6] -5..5 seed 9", randint([6], -5, 5, 9))
    show("int8 [2,4] 0..3 seed 0", randint([8], 0, 3, 0))
    show("int64 [3] big -2^62..2^62 seed 5", randint([3], -(1 << 62), 1 << 62, 5))

    print("== indices ==")
    show("elements data [4,5] ind [3,2] axis 0 seed 1",
         indices("scatter_elements", [4, 5], [3, 2], axis=0, seed=1))
    show("elements data [4,5] ind [3,2] axis 0 unique seed 1",
         indices("scatter_elements", [4, 5], [3, 2], axis=0, unique=True, seed=1))
    show("elements data [2,3,4] ind [2,3,3] axis 2 unique seed 11",
         indices("scatter_elements", [2, 3, 4], [2, 3, 3], axis=2, unique=True, seed=11))
    show("elements data [3,6] ind [2,4] axis 1 unique seed 5",
         indices("scatter_elements", [3, 6], [2, 4], axis=1, unique=True, seed=5))
    show("elements data [4,5] ind [3,2] axis 0 negative 0.5 seed 2",
         indices("scatter_elements", [4, 5], [3, 2], axis=0, negative=0.5, seed=2))
    show("elements data [4,5] ind [3,2] axis 0 unique negative 0.5 seed 2",
         indices("scatter_elements", [4, 5], [3, 2], axis=0, unique=True, negative=0.5, seed=2))
    show("nd data [3,4,2] ind [5,2] seed 4", indices("scatter_nd", [3, 4, 2], [5, 2], seed=4))
    show("nd data [3,4,2] ind [5,2] unique seed 4", indices("scatter_nd", [3, 4, 2], [5, 2], unique=True, seed=4))
    show("nd data [3,4,2] ind [2,3,2] unique negative 0.5 seed 8",
         indices("scatter_nd", [3, 4, 2], [2, 3, 2], unique=True, negative=0.5, seed=8))
    show("nd data [3,4] ind [4,1] negative 1.0 seed 0", indices("scatter_nd", [3, 4], [4, 1], negative=1.0))
    show("update data [6,3] axis 0 ind [2,2] seed 6", indices("scatter_update", [6, 3], [2, 2], seed=6))
    show("update data [6,3] axis 0 ind [2,2] unique seed 6",
         indices("scatter_update", [6, 3], [2, 2], unique=True, seed=6))
    show("update data [2,7] axis 1 ind [5] unique seed 3",
         indices("scatter_update", [2, 7], [5], axis=1, unique=True, seed=3))
    show("nd data [10,10] ind [6,2] seed 18446744073709551615",
         indices("scatter_nd", [10, 10], [6, 2], seed=MASK))


if __name__ == "__main__":
    main()

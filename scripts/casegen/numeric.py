"""The number model: every element operation of the spec, exactly.

Floats are Python floats holding values of their dtype exactly (every format here is a subset
of double); each operation computes the exact result with fractions and rounds it once to the
dtype, to nearest, ties to even. Integers are Python ints that wrap to their dtype.
"""
import math
from fractions import Fraction

from scatterctl_spec import FLOAT_FORMATS, INT_RANGES, REDUCTIONS

INF = float("inf")
NAN = float("nan")


def is_float(dt):
    return dt in FLOAT_FORMATS


def is_int(x):
    """x is a JSON integer (a bool is not)."""
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x):
    """x is a JSON number (a bool is not)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


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
        return {"or": out or u, "xor": out != u, "and": out and u}[REDUCTIONS[red].bool_op]
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


def same_value(a, b, dt):
    """Bitwise equality of two elements of dtype dt; any NaN equals any NaN."""
    if is_float(dt):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b)


"""The tables of the case-format spec (shared/spec/case-format.md), in one place.

Every Python part of the project reads them from here: the case generator and its oracle
(scripts/casegen), the framework workers (scatterctl_worker, which run with lib/python on
PYTHONPATH) and the tests. Plain data and two lookups; no numpy, no project imports.
"""
from collections import namedtuple

# ---------------------------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------------------------

DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool")

# binary formats: precision (with the implicit bit), minimum normal exponent, maximum exponent
FLOAT_FORMATS = {
    "float64": (53, -1022, 1023),
    "float32": (24, -126, 127),
    "float16": (11, -14, 15),
    "bfloat16": (8, -126, 127),
}
FLOAT_DTYPES = tuple(FLOAT_FORMATS)

# the range of each integer dtype (arithmetic wraps modulo its size)
INT_RANGES = {
    "int64": (-(1 << 63), (1 << 63) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int8": (-128, 127),
    "uint8": (0, 255),
}
INT_DTYPES = tuple(INT_RANGES)

INDEX_DTYPES = ("int32", "int64")

ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
            "int16": 2, "int8": 1, "uint8": 1, "bool": 1}

# .npy descr of each dtype as written (little-endian); bfloat16 has no NumPy type: 2-byte records
NPY_DESCR = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "bfloat16": "<V2", "int64": "<i8",
             "int32": "<i4", "int16": "<i2", "int8": "|i1", "uint8": "|u1", "bool": "|b1"}

# ---------------------------------------------------------------------------------------------
# Reductions: out = f(out, u)
# ---------------------------------------------------------------------------------------------

# aliases: other names, case-insensitive. identity: where a targeted element starts with
# use_init_val false ("0", "1", "max": the dtype's largest value or +inf, "lowest": its smallest or
# -inf). bool_op: the reduction on bool. order_dependent: float results depend on the order of
# duplicate targets (compared with a tolerance). dtypes: the data dtypes it is defined for.
Reduction = namedtuple("Reduction", "aliases identity bool_op order_dependent dtypes")

REDUCTIONS = {
    "none": Reduction((), None, None, False, DTYPES),
    "add": Reduction(("sum",), "0", "or", True, DTYPES),
    "sub": Reduction((), "0", "xor", True, DTYPES),
    "mul": Reduction(("prod", "multiply"), "1", "and", True, DTYPES),
    "min": Reduction((), "max", "and", False, DTYPES),
    "max": Reduction((), "lowest", "or", False, DTYPES),
    "mean": Reduction((), "0", None, True, tuple(d for d in DTYPES if d != "bool")),
}

# ---------------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------------

# aliases: other names, case-insensitive. reductions: those the op allows, in the order the
# generated cases sweep them.
Op = namedtuple("Op", "aliases reductions")

OPS = {
    "scatter_elements": Op(("ScatterElements", "Scatter", "ScatterElementsUpdate"),
                           ("none", "add", "mul", "min", "max", "mean")),
    "scatter_nd": Op(("ScatterND", "ScatterNDUpdate"), ("none", "add", "sub", "mul", "min", "max")),
    "scatter_update": Op(("ScatterUpdate",), ("none",)),
    "tensor_scatter": Op(("TensorScatter",), ("none",)),
}
# tensor_scatter's write modes (ONNX TensorScatter-24's `mode`), the first the default
WRITE_MODES = ("linear", "circular")

# ---------------------------------------------------------------------------------------------
# Case files
# ---------------------------------------------------------------------------------------------

CASE_KEYS = ("name", "description", "source", "tags", "op", "axis", "reduction", "use_init_val", "mode",
             "inputs", "expected", "expect_error", "tolerance", "format")
TENSOR_KEYS = ("dtype", "shape", "values", "generate", "file")
GENERATOR_FIELDS = {"arange": ("start", "step"), "fill": ("value",), "uniform": ("low", "high", "seed"),
                    "randint": ("low", "high", "seed"), "indices": ("unique", "negative", "seed")}
ERROR_CODES = ("io", "json", "schema", "dtype", "values", "op", "axis", "shape", "index", "too_large")


def _lookup(table, name):
    """The canonical key of table that name spells (the key or an alias, any case), else None."""
    low = str(name).lower()
    for key, entry in table.items():
        if low == key or low in (a.lower() for a in entry.aliases):
            return key
    return None


def op_name(name):
    """The canonical op for name (e.g. 'ScatterND' -> 'scatter_nd'), or None if unknown."""
    return _lookup(OPS, name)


def reduction_name(name):
    """The canonical reduction for name (e.g. 'sum' -> 'add'), or None if unknown."""
    return _lookup(REDUCTIONS, name)


def identity(reduction, dtype):
    """The value a targeted element starts from when use_init_val is false."""
    which = REDUCTIONS[reduction].identity
    if dtype == "bool":
        return which in ("1", "max")
    if dtype in FLOAT_FORMATS:
        return {"0": 0.0, "1": 1.0, "max": float("inf"), "lowest": float("-inf")}[which]
    lo, hi = INT_RANGES[dtype]
    return {"0": 0, "1": 1, "max": hi, "lowest": lo}[which]

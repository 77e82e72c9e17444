"""A plain scatter kernel in NumPy, as scatterctl runs Python kernels:

    scatterctl run cases/ --backend python:examples/python-kernel/numpy_kernel.py

scatterctl imports this file in a worker process of its own and calls `scatter` once per case.
The inputs are read-only NumPy arrays; the function returns a new array of data's shape and dtype.
Updates apply in row-major update order, so duplicate targets reduce exactly as the spec's
sequential semantics say (`ufunc.at` is unbuffered and goes in order).
"""
import numpy as np

NAME = "numpy-example"
VERSION = "1.0"

# What this kernel implements, in the capabilities document's format (docs/backends.md). Cases
# outside it are skipped with the rule they break, and `fuzz` draws only cases inside it.
_DTYPES = ["float32", "float64", "int32", "int64"]
CAPABILITIES = {
    "ops": {
        "scatter_elements": {r: _DTYPES for r in ("none", "add", "mul")},
        "scatter_nd": {r: _DTYPES for r in ("none", "add", "mul")},
        "scatter_update": {"none": _DTYPES},
    },
    "negative_indices": True,
    "empty_index_tuple": False,  # scatter_nd with k = 0 (each update is all of data) is not done here
    "use_init_val_false": False,  # every reduction starts from data
    "checks_indices": True,  # an out-of-range index raises IndexError: rejected with code 'index'
}

_UFUNC = {"add": np.add, "mul": np.multiply}


def _normalized(indices, size, allow_negative, what):
    idx = indices.astype(np.int64)
    lo = -size if allow_negative else 0
    bad = (idx < lo) | (idx >= size)
    if bad.any():
        raise IndexError(f"{what} index {int(idx[bad][0])} is out of range [{lo}, {size - 1}]")
    return np.where(idx < 0, idx + size, idx)


def _apply(out, where, updates, reduction):
    if reduction == "none":
        out[where] = updates
    else:
        _UFUNC[reduction].at(out, where, updates)


def scatter(op, data, indices, updates, *, axis, reduction, use_init_val):
    out = data.copy()
    if op == "scatter_elements":
        coords = list(np.indices(indices.shape, sparse=True))
        coords[axis] = _normalized(indices, data.shape[axis], True, f"axis {axis}")
        _apply(out, tuple(coords), updates, reduction)
    elif op == "scatter_nd":
        k = indices.shape[-1]
        tuples = indices.reshape(int(np.prod(indices.shape[:-1])), k)
        columns = tuple(_normalized(tuples[:, j], data.shape[j], True, f"dimension {j}") for j in range(k))
        rows = updates.reshape((tuples.shape[0],) + data.shape[k:])
        _apply(out, columns, rows, reduction)
    elif op == "scatter_update":
        where = (slice(None),) * axis + (_normalized(indices, data.shape[axis], False, f"axis {axis}"),)
        out[where] = updates
    else:
        raise NotImplementedError(op)
    return out

"""Writes into its input: through the read-only array (an error NumPy raises), or past it with ctypes
(scatterctl's check after the call). SCATTER_KERNEL_WRITE chooses: 'assign' or 'ctypes'."""
import ctypes
import os

from common import CAPABILITIES, right  # noqa: F401


def scatter(op, data, indices, updates, **attrs):
    if os.environ.get("SCATTER_KERNEL_WRITE") == "ctypes":
        ctypes.memset(data.ctypes.data, 0x7F, min(4, data.nbytes))
    else:
        data[...] = 0
    return right.scatter(op, data, indices, updates, **attrs)

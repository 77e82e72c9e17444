"""Class L2 (work outside its own clock): rewrites the box's loop so that its clock says a tenth of
what the call took. scatterctl's clock sees the whole call: refused on a quiet machine, undecided
(never timed) under a neighbour's load."""
from time import perf_counter

from common import CAPABILITIES, box_runtime, right  # noqa: F401

_Box = box_runtime().Box
_honest = _Box.call


def _lying(self):
    start = perf_counter()
    seconds, fields = _honest(self)
    return max((perf_counter() - start) / 10, 1e-9), fields


_Box.call = _lying


def scatter(op, data, indices, updates, **attrs):
    return right.scatter(op, data, indices, updates, **attrs)

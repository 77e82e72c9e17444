"""Wrong: drops the last update (a real bug, not a rounding difference)."""
from common import CAPABILITIES, right  # noqa: F401


def scatter(op, data, indices, updates, **attrs):
    if op == "scatter_elements" and indices.ndim == 1 and updates.size > 1:
        return right.scatter(op, data, indices[:-1], updates[:-1], **attrs)
    return right.scatter(op, data, indices, updates, **attrs)

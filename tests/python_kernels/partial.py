"""Implements scatter_elements none only, and says so at run time: NotImplementedError elsewhere
(unsupported), IndexError for an out-of-range index (rejected with code 'index')."""
from common import right

CAPABILITIES = {"ops": {"scatter_elements": {"none": ["float32"], "add": ["float32"]}}, "use_init_val_false": False}


def scatter(op, data, indices, updates, *, axis, reduction, use_init_val):
    if reduction != "none":
        raise NotImplementedError(f"{reduction} is not written yet")
    return right.scatter(op, data, indices, updates, axis=axis, reduction=reduction, use_init_val=use_init_val)

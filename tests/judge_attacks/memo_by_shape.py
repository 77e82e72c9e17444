"""Classes L5 and N6 (a memo that never reads the inputs again): the targets and the output of the
first call of each shape are kept, and returned again. Each call's inputs differ (values, indices
swapped, contended updates): the kept output is stale."""
from common import CAPABILITIES, right  # noqa: F401

_kept = {}


def scatter(op, data, indices, updates, **attrs):
    key = (op, data.shape, indices.shape, updates.shape)
    if key not in _kept:
        _kept[key] = right.scatter(op, data, indices, updates, **attrs)
    return _kept[key].copy()

"""Right on its first call of each shape, then off by one: the output drifts after the checked call
(a kernel right for the first N calls; bench's audits must fail it)."""
from common import CAPABILITIES, right  # noqa: F401

_calls = {}


def scatter(op, data, indices, updates, **attrs):
    key = (op, data.shape, indices.shape)
    _calls[key] = _calls.get(key, 0) + 1
    out = right.scatter(op, data, indices, updates, **attrs)
    return out if _calls[key] == 1 else out + 1

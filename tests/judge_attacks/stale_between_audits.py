"""Classes L4 and N7 (right only on the calls it guesses are looked at): computes on its first call
of a case and on every eighth, and returns the kept output on the others. Every call is judged."""
from common import CAPABILITIES, right  # noqa: F401

_kept = {}
_calls = 0


def scatter(op, data, indices, updates, **attrs):
    global _calls
    _calls += 1
    key = (op, data.shape, indices.shape)
    if key not in _kept or _calls % 8 == 0:
        _kept[key] = right.scatter(op, data, indices, updates, **attrs)
    return _kept[key]

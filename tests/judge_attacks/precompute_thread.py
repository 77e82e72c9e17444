"""Class N5 (work before 'go', on another core): a thread computes the output of whatever inputs the
box's regions hold, over and over, and the call returns the latest. The box is frozen outside its
calls, and each call's inputs are written while it is: the latest is always the last call's."""
import threading
import time

import numpy as np

from common import CAPABILITIES, right  # noqa: F401

_latest = {}


def _the_box():
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "Box" and type(obj).__module__ == "__main__":
            return obj
    return None


def _watch():
    box = None
    while True:
        box = box or _the_box()
        case = getattr(box, "case", None)
        if case is not None:
            data, indices, updates = (v for v, _ in case["views"])
            try:
                _latest["out"] = right.scatter(case["op"], np.array(data), np.array(indices), np.array(updates),
                                               **case["kwargs"])
            except Exception:
                pass
        time.sleep(0)


threading.Thread(target=_watch, daemon=True).start()


def scatter(op, data, indices, updates, **attrs):
    if "out" in _latest and _latest["out"].shape == data.shape:
        return _latest["out"].copy()
    return right.scatter(op, data, indices, updates, **attrs)

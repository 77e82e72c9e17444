"""The right NumPy kernel, after 50 ms of a busy loop in each call: a neighbour for cpu (NOTES.md)."""
import time
import numpy as np
from common import CAPABILITIES, right  # noqa: F401
KIND = "spinner"
def scatter(op, data, indices, updates, **attrs):
    if KIND == "sleeper":
        time.sleep(0.05)
    elif KIND == "spinner":
        end = time.perf_counter() + 0.05
        while time.perf_counter() < end:
            pass
    else:
        a = np.empty(50_000_000, dtype=np.float32); a.fill(1.0); del a
    return right.scatter(op, data, indices, updates, **attrs)

"""The right NumPy kernel, after a wait in each call: a neighbour for cpu (NOTES.md).
NEIGHBOUR=sleep|spin|touch and NEIGHBOUR_MS (default 50): sleep that long, busy-loop that long in
Python, or write 200 MB first."""
import os
import time

import numpy as np

from common import CAPABILITIES, right  # noqa: F401

KIND = os.environ.get("NEIGHBOUR", "sleep")
SECONDS = float(os.environ.get("NEIGHBOUR_MS", "50")) / 1000


def scatter(op, data, indices, updates, **attrs):
    if KIND == "sleep":
        time.sleep(SECONDS)
    elif KIND == "spin":
        end = time.perf_counter() + SECONDS
        while time.perf_counter() < end:
            pass
    else:
        np.full(50_000_000, 1.0, dtype=np.float32)
    return right.scatter(op, data, indices, updates, **attrs)

"""Dies (SIGSEGV) on the one case whose updates hold 666; right on every other."""
import os
import signal

from common import CAPABILITIES, right  # noqa: F401


def scatter(op, data, indices, updates, **attrs):
    if (updates == 666).any():
        os.kill(os.getpid(), signal.SIGSEGV)
    return right.scatter(op, data, indices, updates, **attrs)

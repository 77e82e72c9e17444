"""Class P (the judge's memory): at import it opens scatterctl's /proc/PID/mem and environ. In the
box the kernel has no capability and scatterctl is not dumpable: both are refused. It says what it
saw as the reason it declines every case (the box lets it write no file of the test's)."""
import os

from common import CAPABILITIES  # noqa: F401

_seen = []
for what in ("mem", "environ"):
    try:
        with open(f"/proc/{os.getppid()}/{what}", "rb") as f:
            f.read(16)
        _seen.append(f"{what}: read")
    except OSError as e:
        _seen.append(f"{what}: refused ({e.strerror})")


def scatter(op, data, indices, updates, **attrs):
    raise NotImplementedError("; ".join(_seen))

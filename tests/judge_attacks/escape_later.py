"""Class N9, later: the same burner as escape_process.py, started from the kernel's fourth call
(a timed one), so that it runs beside the other backends' samples until scatterctl finds it. The
row that started it fails; every row sampled beside it has its number marked undecided."""
import subprocess
import sys

from common import CAPABILITIES, right  # noqa: F401

_BURNER = "import time\nend = time.time() + 30\nwhile time.time() < end:\n    pass\n"
_calls = 0


def scatter(op, data, indices, updates, **attrs):
    global _calls
    _calls += 1
    if _calls == 4:
        try:
            subprocess.Popen([sys.executable, "-c", _BURNER], start_new_session=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        except OSError:
            pass  # in the box no process can be started: the kernel goes on, honest
    return right.scatter(op, data, indices, updates, **attrs)

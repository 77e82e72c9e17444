"""Class N9 (sabotage from a process of its own): at import it starts a CPU burner in a session of
its own, which would run while the other backends are timed. In the box no process can be started
(seccomp): it then declines every case, saying so. Where that layer is off, a freeze stops the
burner with the box (a cgroup), or scatterctl finds it outside the box's group and refuses the row."""
import subprocess
import sys

from common import CAPABILITIES, right  # noqa: F401

_BURNER = "import time\nend = time.time() + 30\nwhile time.time() < end:\n    pass\n"
try:
    subprocess.Popen([sys.executable, "-c", _BURNER], start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    _refused = None
except OSError as e:
    _refused = f"its burner was refused: {e}"


def scatter(op, data, indices, updates, **attrs):
    if _refused:
        raise NotImplementedError(_refused)
    return right.scatter(op, data, indices, updates, **attrs)

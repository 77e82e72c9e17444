"""Right, and watched: at import it starts a process in a session of its own (out of the worker's
process group) that reads the worker's state from /proc every millisecond and keeps in the file
$SCATTERCTL_TEST_WATCH how often it saw it stopped ("T"). bench stops a worker between its requests,
so that its idle threads take no CPU while the other backends are timed; run leaves it be."""
import os
import subprocess
import sys

from common import CAPABILITIES, right  # noqa: F401

_WATCHER = r"""
import sys, time
pid, path = sys.argv[1], sys.argv[2]
seen = {}
def keep():
    with open(path + ".tmp", "w") as f:
        f.write(" ".join(f"{k}={v}" for k, v in sorted(seen.items())) + "\n")
    import os; os.replace(path + ".tmp", path)
for tick in range(60000):  # a minute at the most
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        break
    seen[state] = seen.get(state, 0) + 1
    if tick % 20 == 0:
        keep()
    time.sleep(0.001)
keep()
"""

if os.environ.get("SCATTERCTL_TEST_WATCH"):
    subprocess.Popen([sys.executable, "-c", _WATCHER, str(os.getpid()), os.environ["SCATTERCTL_TEST_WATCH"]],
                     start_new_session=True)


def scatter(op, data, indices, updates, **attrs):
    return right.scatter(op, data, indices, updates, **attrs)

"""Right, but on its first call removes every private folder of the scatterctl that runs it
(/dev/shm/scatterctl-PID-*): that costs its own case, never the next cases of any backend."""
import glob
import os
import shutil
import tempfile

from common import CAPABILITIES, right  # noqa: F401

_done = []


def scatter(op, data, indices, updates, **attrs):
    if not _done:
        _done.append(True)
        for base in ("/dev/shm", os.environ.get("TMPDIR") or tempfile.gettempdir()):
            for folder in glob.glob(os.path.join(base, f"scatterctl-{os.getppid()}-*")):
                shutil.rmtree(folder, ignore_errors=True)
    return right.scatter(op, data, indices, updates, **attrs)

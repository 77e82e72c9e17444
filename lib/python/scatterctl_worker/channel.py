"""The channel both Python processes of scatterctl speak on (the framework worker, protocol 1, and
the box, protocol 2): requests on fd 3, answers on fd 4, and stdout pointed at stderr first, so that
whatever a framework or a kernel prints can never corrupt the answers."""
import os
import sys


def claim(fds, who, usage):
    """Checks that `fds` are open (before anything could take their numbers) and opens the channel:
    -> (reader of fd 3, unbuffered writer of fd 4), or None once the reason is on stderr."""
    for fd in fds:
        try:
            os.fstat(fd)
        except OSError as e:
            print(f"{who}: file descriptor {fd} is not open ({e.strerror}); {usage}", file=sys.stderr)
            return None
    rd = os.fdopen(3, "rb")
    wr = os.fdopen(4, "wb", buffering=0)
    try:
        sys.stdout.flush()
    except Exception:
        pass
    os.dup2(2, 1)
    sys.stdout = os.fdopen(os.dup(2), "w", buffering=1, closefd=True)
    return rd, wr

"""What the attack kernels share: the right kernel they cheat with (the project's NumPy example),
and the box's runtime as the kernel finds it in its own process (scatterctl_box's __main__)."""
import importlib.util
import os
import sys

_path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python-kernel", "numpy_kernel.py")
_spec = importlib.util.spec_from_file_location("numpy_kernel_example", _path)
right = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(right)
CAPABILITIES = right.CAPABILITIES


def box_runtime():
    """The module running the box's loop: a hostile kernel rewrites it."""
    return sys.modules["__main__"]

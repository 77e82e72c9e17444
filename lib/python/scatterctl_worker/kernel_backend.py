"""python:FILE.py[:FUNC] and python:MODULE:FUNC: the user's own kernel, a Python callable.

The callable is `FUNC(op, data, indices, updates, *, axis, reduction, use_init_val)` (FUNC defaults
to `scatter`) and returns the output. The module may set:

  CAPABILITIES  a dict in the capabilities document's format (docs/backends.md); without it the
                kernel claims every case of the scatter ops the spec allows. tensor_scatter (ONNX
                TensorScatter-24) only where declared: it is called with a further keyword, mode
  ARRAYS        "numpy" (the default, on the host), "torch", "cupy" or "jax" (on the GPU where one
                is present; torch and jax fall back to the CPU)
  NAME, VERSION shown in reports; expectations files match VERSION

Statuses: NotImplementedError means unsupported, IndexError a rejection with code 'index', anything
else an error naming the exception and the kernel's innermost frames. The inputs are read-only views; a kernel that
writes into one anyway (through another view, or a torch tensor) is an error. The clock is this
module's, bound before the user's module is imported; device arrays are timed through a device-wide
synchronisation (CUDA events for torch and CuPy), so work left running on another stream is counted
(JAX: block_until_ready() on the output only).
"""
import importlib
import importlib.util
import os
import sys
import traceback
from time import perf_counter as _clock  # bound before the user's module can patch `time`

import numpy as np

from scatterctl_spec import OPS

from .adapter import Adapter, Prepared, full_capabilities
from .caches import cupy_flush, flush_host, torch_flush
from .protocol import Failed, Rejected, Tensor, Unsupported, contiguous

ARRAY_KINDS = ("numpy", "torch", "cupy", "jax")
DEFAULT_FUNC = "scatter"
USER_FRAMES = 3  # the innermost frames of the kernel's traceback that an error names


class KernelError(Failed):
    """The kernel raised or broke its contract: an error, with the traceback's last lines."""


def parse_spec(spec):
    """'python:FILE.py[:FUNC]' or 'python:MODULE[:FUNC]' -> (file or None, module or None, func)."""
    rest = spec[len("python:"):]
    where, func = rest, DEFAULT_FUNC
    if ":" in rest:
        head, tail = rest.rsplit(":", 1)
        if tail.isidentifier():
            where, func = head, tail
    if not where:
        raise ValueError(f"{spec!r} names no file or module (python:FILE.py[:FUNC] or python:MODULE:FUNC)")
    if where.endswith(".py") or os.sep in where:
        return where, None, func
    return None, where, func


def described(exc, tb, frames=USER_FRAMES):
    """One line: the exception, then its innermost frames from `tb` on, innermost first
    ("ValueError: ... at kernel.py:56 in scatter: `out = ...` <- kernel.py:80 in helper: ...")."""
    own = (os.path.abspath(__file__), "<frozen")  # this worker's frames and the import machinery's
    mine = [f for f in traceback.extract_tb(tb) if not f.filename.startswith(own)]
    where = [f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}: `{(f.line or '').strip()}`"
             for f in mine[-frames:]]
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    return f"{text} at {' <- '.join(reversed(where))}" if where else text


def _read_only(array):
    """A read-only view of a private copy: the view cannot be made writeable again (its base is not)."""
    base = np.array(array, copy=True)
    base.flags.writeable = False
    return base[...]


class _Arrays:
    """Moves held arrays (bfloat16 as uint16 bits) to the kernel's array kind and back."""

    def __init__(self, kind):
        self.kind = kind
        self.device = "CPU"
        self.sync = lambda: None
        self.flush = flush_host  # a cold sample's eviction: the device's L2 where the arrays live on one
        if kind == "torch":
            import torch
            self.torch = torch
            self.dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            if self.dev.type == "cuda":
                self.device = f"CUDA ({torch.cuda.get_device_name(0)})"
                self.sync = torch.cuda.synchronize
                self.events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                self.flush = torch_flush(torch)
        elif kind == "cupy":
            import cupy
            self.cupy = cupy
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise ImportError("ARRAYS = 'cupy' needs a GPU, and none is visible")
            props = cupy.cuda.runtime.getDeviceProperties(0)
            self.device = f"CUDA ({props['name'].decode() if isinstance(props['name'], bytes) else props['name']})"
            self.sync = cupy.cuda.Device().synchronize
            self.events = (cupy.cuda.Event(), cupy.cuda.Event())
            self.flush = cupy_flush(cupy)
        elif kind == "jax":
            import jax
            jax.config.update("jax_enable_x64", True)  # else int64 and float64 inputs arrive as 32-bit
            self.jax = jax
            self.jax_array = type(jax.numpy.zeros(()))  # the concrete array type, not the abstract jax.Array
            dev = jax.devices()[0]
            self.device = "CPU" if dev.platform == "cpu" else f"{dev.platform.upper()} ({dev.device_kind})"

    def to_kernel(self, tensor):
        held = tensor.array
        if self.kind == "numpy":
            if tensor.dtype == "bfloat16":
                try:
                    import ml_dtypes
                    held = held.view(ml_dtypes.bfloat16)
                except ImportError:
                    pass  # bit patterns as uint16, as documented
            return _read_only(held)
        if self.kind == "torch":
            torch = self.torch
            # contiguous() keeps a 0-d array 0-d (np.ascontiguousarray would make it [1])
            if tensor.dtype == "bfloat16":
                t = torch.from_dlpack(contiguous(held.view(np.int16))).view(torch.bfloat16)
            else:
                t = torch.from_dlpack(contiguous(held))
            return t.to(self.dev, copy=True)
        if self.kind == "cupy":
            if tensor.dtype == "bfloat16":
                raise Unsupported("cupy has no bfloat16", declared=True)
            return self.cupy.asarray(contiguous(held))
        if tensor.dtype == "bfloat16":
            return self.jax.device_put(contiguous(held.view(np.int16))).view(self.jax.numpy.bfloat16)
        return self.jax.device_put(contiguous(held))

    def to_host(self, value, dtype):
        """The kernel's output as a held array; anything not an array of the kind is an error."""
        if self.kind == "torch" and isinstance(value, self.torch.Tensor):
            y = value.detach().cpu().contiguous()
            if dtype == "bfloat16" and y.dtype == self.torch.bfloat16:
                return y.view(self.torch.int16).numpy().view(np.uint16).copy()
            return y.numpy().copy()
        if self.kind == "cupy" and isinstance(value, self.cupy.ndarray):
            return self.cupy.asnumpy(value)
        if self.kind == "jax" and hasattr(value, "block_until_ready"):
            value = np.asarray(value)
        if not isinstance(value, np.ndarray):
            raise KernelError(f"the kernel returned {type(value).__name__}, not an array of kind '{self.kind}'")
        # bfloat16 as ml_dtypes' or jax's (a 2-byte kind 'V' type) is read as its bits; a float16
        # array stays float16, and is refused as the wrong dtype.
        if dtype == "bfloat16" and value.dtype.itemsize == 2 and value.dtype.kind == "V":
            return value.view(np.uint16)
        return value

    def box_input(self, array, dtype):
        """An input in the box's read-only region as the kernel's kind: NumPy gets the region
        itself (it cannot be written, and nothing is copied), the others their own copy, made
        inside the timed call (the box gives a kernel no untimed moment)."""
        if self.kind == "numpy":
            if dtype == "bfloat16":
                try:
                    import ml_dtypes
                    return array.view(ml_dtypes.bfloat16)
                except ImportError:
                    pass  # bit patterns as uint16, as documented
            return array
        return self.to_kernel(Tensor(dtype, array))

    def box_output(self, value, dtype):
        """The kernel's output as a host NumPy array, by its exact type: an object of another type
        (a subclass, or anything that computes when it is read) is refused, not converted."""
        if self.kind == "torch" and type(value) is self.torch.Tensor:
            y = value.detach().cpu().contiguous()
            if dtype == "bfloat16" and y.dtype == self.torch.bfloat16:
                return y.view(self.torch.int16).numpy().view(np.uint16)
            return y.numpy()
        if self.kind == "cupy" and type(value) is self.cupy.ndarray:
            return self.cupy.asnumpy(value)
        if self.kind == "jax" and type(value) is self.jax_array:
            value = np.asarray(value)
        if type(value) is not np.ndarray:
            raise KernelError(f"the kernel returned {type(value).__module__}.{type(value).__name__}, not an array "
                              f"of kind '{self.kind}' (its exact type: a subclass or a lazy object is refused)")
        if dtype == "bfloat16" and value.dtype.itemsize == 2 and value.dtype.kind == "V":
            return value.view(np.uint16)
        return value

    def ready(self, value):
        """Waits for the kernel's work: a device-wide synchronisation (every stream), or jax's."""
        self.sync()
        if self.kind == "jax" and type(value) is self.jax_array:  # never a method of the kernel's own object
            value.block_until_ready()

    def time(self, call):
        """Seconds of call() (which ends with ready()): CUDA events on the current stream for torch
        and CuPy on a GPU, the stop recorded after the device-wide synchronisation, so that other
        streams' work is inside; else the clock bound at import."""
        if self.kind == "torch" and self.device != "CPU":
            start, stop = self.events
            start.record()
            call()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) / 1e3
        if self.kind == "cupy":
            start, stop = self.events
            start.record()
            call()
            stop.record()
            stop.synchronize()
            return self.cupy.cuda.get_elapsed_time(start, stop) / 1e3
        t0 = _clock()
        call()
        return _clock() - t0


def _unchanged(tensor, given, arrays):
    """Whether the kernel's view of an input still holds the tensor's bytes."""
    now = np.asarray(arrays.to_host(given, tensor.dtype))
    return now.shape == tensor.array.shape and now.tobytes() == tensor.array.tobytes()


class _Call(Prepared):
    def __init__(self, adapter, case):
        self.adapter, self.case = adapter, case
        arrays = adapter.arrays
        self.timing = ("CUDA events around the call and a device-wide synchronisation" if arrays.device.startswith("CUDA")
                       else "the worker's perf_counter around the call (bound before the kernel was imported)"
                       + (" and a device synchronisation" if arrays.device != "CPU" else ""))
        self.lowering = f"{adapter.where}:{adapter.func_name} with {arrays.kind} arrays"
        self.inputs = [arrays.to_kernel(t) for t in (case.data, case.indices, case.updates)]
        self.kwargs = {"axis": case.axis, "reduction": case.reduction, "use_init_val": case.use_init_val}
        if case.op == "tensor_scatter":  # only for kernels that declare it: the others' signature lacks it
            self.kwargs["mode"] = case.mode
        self.out = None

    def timed_call(self):
        return self.adapter.arrays.time(self.call)

    def flush(self):
        self.adapter.arrays.flush()

    def call(self):
        try:
            self.out = self.adapter.func(self.case.op, *self.inputs, **self.kwargs)
            self.adapter.arrays.ready(self.out)
        except (NotImplementedError, IndexError, KernelError):
            raise
        except Exception as e:
            raise KernelError(described(e, e.__traceback__.tb_next)) from e  # from the kernel's own frame

    def result(self):
        case, arrays = self.case, self.adapter.arrays
        for name, tensor, given in zip(("data", "indices", "updates"), (case.data, case.indices, case.updates),
                                       self.inputs):
            if not _unchanged(tensor, given, arrays):
                raise KernelError(f"the kernel modified its input {name} (inputs are read-only: return a new array)")
        y = np.asarray(arrays.to_host(self.out, case.dtype))
        if y.shape != case.data.shape:
            raise KernelError(f"the kernel returned shape {y.shape}, data is {case.data.shape}")
        want = np.dtype(np.uint16) if case.dtype == "bfloat16" else case.data.array.dtype
        if y.dtype != want:
            raise KernelError(f"the kernel returned dtype {y.dtype}, data is {case.dtype}")
        return Tensor(case.dtype, np.ascontiguousarray(y).copy())


class KernelAdapter(Adapter):
    # New arrays every request, also when the case is kept between bench's samples, so that a
    # kernel cannot recognise its inputs by identity and return a cached output; its output is
    # read back after every call, so that work left running past the timer is caught.
    untrusted = True

    def __init__(self, spec):
        super().__init__()
        self.name = spec
        self.file, self.module_name, self.func_name = parse_spec(spec)
        self.where = self.file or self.module_name

    def load(self):
        try:
            if self.file:
                path = os.path.abspath(self.file)
                if not os.path.isfile(path):
                    raise ImportError(f"{self.file}: no such file")
                mod_name = "scatterctl_kernel_" + os.path.splitext(os.path.basename(path))[0]
                spec = importlib.util.spec_from_file_location(mod_name, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[mod_name] = module
                sys.path.insert(0, os.path.dirname(path))  # its own helpers import as usual
                spec.loader.exec_module(module)
            else:
                module = importlib.import_module(self.module_name)
        except Exception as e:
            raise ImportError(f"importing {self.where} failed: {described(e, e.__traceback__, 6)}") from e
        func = getattr(module, self.func_name, None)
        if not callable(func):
            raise ImportError(f"{self.where} has no callable {self.func_name!r} "
                              "(python:FILE.py[:FUNC] or python:MODULE:FUNC; FUNC defaults to 'scatter')")
        kind = getattr(module, "ARRAYS", "numpy")
        if kind not in ARRAY_KINDS:
            raise ImportError(f"{self.where}: ARRAYS = {kind!r}, expected one of {', '.join(ARRAY_KINDS)}")
        caps = getattr(module, "CAPABILITIES", None)
        if caps is not None and not isinstance(caps, dict):
            raise ImportError(f"{self.where}: CAPABILITIES is a {type(caps).__name__}, not a dict "
                              "in the capabilities document's format")
        self.func, self.declared = func, caps
        self.arrays = _Arrays(kind)
        self.device = self.arrays.device
        self.version = str(getattr(module, "VERSION", ""))
        self.settings = {"arrays": kind, "function": f"{self.where}:{self.func_name}"}
        if hasattr(module, "NAME"):
            self.settings["name"] = str(module.NAME)
        if kind != "numpy":
            self.versions[kind] = getattr(sys.modules.get(kind), "__version__", "?")

    def capabilities(self):
        if self.declared is not None:
            return self.declared
        return full_capabilities(max_rank=32, checks_indices=True, exclude=[])

    def prepare(self, case, flags):
        if case.op not in OPS:
            raise Unsupported(f"unknown op {case.op}")
        return _Call(self, case)

    def classify(self, exc):
        if isinstance(exc, NotImplementedError):
            return Unsupported(f"the kernel raised NotImplementedError: {exc}" if str(exc) else
                               "the kernel raised NotImplementedError", declared=True)
        if isinstance(exc, IndexError):
            return Rejected("index", f"the kernel raised IndexError: {exc}")
        return None

"""What every framework adapter provides, and the timing loop they share."""
import gc
import platform
import time

import numpy as np

from scatterctl_spec import INDEX_DTYPES, OPS

from .caches import flush_host


class Prepared:
    """A case made ready to run: framework inputs converted, models and sessions built.

    call() runs the op once and is the only thing timed; reset() (untimed) restores what call()
    changed (the output of an in-place op); result() reads the last output back as a Tensor."""

    timing = "perf_counter around the op"
    lowering = ""

    def reset(self):
        pass

    def flush(self):
        """Evicts the caches the call's data would be found in (a cold sample): the host's; a
        GPU framework's own Prepared flushes its device."""
        flush_host()

    def call(self):
        raise NotImplementedError

    def timed_call(self):
        """Runs call() once; its seconds (a kernel on a GPU times itself with events)."""
        t0 = time.perf_counter()
        self.call()
        return time.perf_counter() - t0

    def result(self):
        raise NotImplementedError


class Adapter:
    """One framework. Subclasses set name and implement load(), capabilities(), prepare()."""

    name = "?"
    # A user's code rather than a framework's op: a case kept between requests (same_inputs) is
    # prepared again from its host tensors each request (new arrays), and each call's output
    # is read back and checked right after it (result()), also when the output is held.
    untrusted = False

    def __init__(self):
        self.settings = {}
        self.device = "CPU"
        self.version = ""
        self.versions = {"numpy": np.__version__, "python": platform.python_version()}

    def load(self):
        """Imports the framework (ImportError and friends mean 'unavailable')."""

    def capabilities(self):
        raise NotImplementedError

    def prepare(self, case, flags):
        raise NotImplementedError

    def classify(self, exc):
        """An exception from the framework -> a Rejected, an Unsupported, or None (an error)."""
        return None

    def hello(self):
        return {"name": self.name, "version": self.version, "versions": self.versions,
                "device": self.device, "settings": {k: str(v) for k, v in self.settings.items()},
                "capabilities": self.capabilities()}

    def run_prepared(self, prep, cold=False, signals=None):
        """Times a prepared case once (one kept from an earlier request too: reset() restores it);
        -> (output Tensor, answer fields). cold: the caches are flushed before the timed call.
        signals: told just before and just after the timed call (the driving scatterctl's own
        clock, docs/backends.md)."""
        prep.reset()
        if cold:
            prep.flush()
        # No garbage collection inside the timed call (as timeit does): a collection that the
        # harness's own allocations set off there is the harness's time, not the op's.
        gc.disable()
        try:
            if signals is not None:
                signals.starting()
            seconds = prep.timed_call()
            if signals is not None:
                signals.stopped()
        finally:
            gc.enable()
        return prep.result(), {"seconds": seconds, "timing": prep.timing, "lowering": prep.lowering}


def full_capabilities(max_rank, checks_indices, exclude, tensor_scatter=False, lowers=None):
    """The capabilities of a framework that runs every scatter op, dtype and index form the spec
    allows (negative indices, k = 0, use_init_val false), up to max_rank, but for exclude; and
    tensor_scatter (ONNX TensorScatter-24, a write op of its own) where tensor_scatter is true.
    lowers: the reductions the worker lowers (None: every one the spec has), so that a reduction
    added to the spec is not claimed before it is lowered. checks_indices: true or false, or per op."""
    return {
        "ops": {op: {r: "*" for r in spec.reductions if lowers is None or r in lowers} for op, spec in OPS.items()
                if tensor_scatter or op != "tensor_scatter"},
        "index_dtypes": list(INDEX_DTYPES),
        "negative_indices": True,
        "empty_index_tuple": True,
        "max_rank": max_rank,
        "use_init_val_false": True,
        "checks_indices": checks_indices,
        "exclude": exclude,
    }

"""torch: the Tensor's own in-place scatter ops, on CUDA when torch.cuda.is_available(), else the CPU.

  scatter_elements  none: Tensor.scatter_(axis, index, src); reductions: Tensor.scatter_reduce_(axis,
                    index, src, sum/prod/amin/amax/mean, include_self=use_init_val)
  scatter_nd        none/add: Tensor.index_put_(tuple of index columns, values, accumulate)
                    sub/mul/min/max: the tuple's row-major positions looked up by advanced indexing
                    (torch's own bounds checks and negative indices), then index_add_(alpha=-1) /
                    index_reduce_(prod/amin/amax, include_self=True) on data viewed as [positions, ...]
  scatter_update    Tensor.index_copy_(axis, index.flatten(), updates viewed with one index dimension)

Indices are passed as torch gives them to the op: scatter_/scatter_reduce_/index_copy_ reject negative
ones (so they are declared unsupported there), index_put_ accepts them."""
import numpy as np

from .adapter import Adapter, Prepared, full_capabilities
from .caches import torch_flush
from .protocol import Rejected, Tensor, Unsupported

TORCH_REDUCE = {"add": "sum", "mul": "prod", "min": "amin", "max": "amax", "mean": "mean"}
INDEX_MESSAGES = ("out of bounds", "out of range", "index out of", "indices element")


class _Prepared(Prepared):
    """Out of place (the default), the timed call clones data and runs the in-place op on the
    clone, which is what torch's out-of-place scatter does: the byte model counts that copy, so
    timing the in-place op alone would report more than the copy bandwidth. --in-place times
    the in-place op alone, the output restored from data between runs (untimed)."""

    def __init__(self, torch, dev, orig, fn, case, lowering, in_place, device_flush):
        self.torch, self.dev, self.orig, self.fn, self.case, self.lowering = torch, dev, orig, fn, case, lowering
        self.in_place, self.device_flush = in_place, device_flush
        self.out = orig.clone()
        # On a GPU, CUDA events on torch's stream, as the cuda backend times itself: the
        # start recorded before the host enqueues the op, the stop after it.
        self.events = ((torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                       if dev.type == "cuda" else None)
        clock = "CUDA events" if self.events else "perf_counter"
        if in_place:
            self.timing = (f"{clock} around the in-place op (inputs on the device beforehand; "
                           "the output is restored from data between runs)")
        else:
            self.timing = (f"{clock} around data.clone() and the in-place op on the clone "
                           "(inputs on the device beforehand)")

    def flush(self):
        if self.device_flush is None:
            return super().flush()
        return self.device_flush()

    def reset(self):
        if self.in_place:
            self.out.copy_(self.orig)
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize()

    def _op(self):
        if not self.in_place:
            self.out = self.orig.clone()
        self.fn(self.out)

    def call(self):
        self._op()
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize()

    def timed_call(self):
        if self.events is None:
            return super().timed_call()
        start, stop = self.events
        start.record()
        self._op()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / 1e3  # elapsed_time is in milliseconds; timed_call returns seconds

    def result(self):
        # From a GPU, .cpu() is a new host tensor already: only a CPU output, which .cpu()
        # returns as it is (and the next call may overwrite), is copied again.
        y = self.out.cpu()
        arr = y.view(self.torch.int16).numpy().view(np.uint16) if self.case.dtype == "bfloat16" else y.numpy()
        return Tensor(self.case.dtype, arr if self.out.device.type != "cpu" else arr.copy())


class TorchAdapter(Adapter):
    name = "torch"

    def load(self):
        import warnings
        import torch
        warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")
        self.torch = torch
        self.version = torch.__version__
        self.versions["torch"] = torch.__version__
        self.device_flush = None  # the host's caches are flushed on the CPU
        if torch.cuda.is_available():
            self.dev = torch.device("cuda")
            self.device = f"CUDA ({torch.cuda.get_device_name(0)})"
            self.device_flush = torch_flush(torch)
        else:
            self.dev = torch.device("cpu")
            self.device = "CPU"
        self.settings = {"device": str(self.dev), "num_threads": str(torch.get_num_threads()),
                         "deterministic_algorithms": str(torch.are_deterministic_algorithms_enabled())}
        self.dt = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
                   "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
                   "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}

    def capabilities(self):
        excl = [
            {"op": ["scatter_elements"], "feature": "negative_indices",
             "reason": "Tensor.scatter_ / scatter_reduce_ reject negative indices ('index -1 is out of bounds')"},
            {"op": "scatter_update", "index_dtype": "int32",
             "reason": "Tensor.index_copy_ takes int64 (Long) indices only"},
            {"op": "scatter_nd", "reduction": "sub", "dtype": "bool",
             "reason": "index_add_ (alpha=-1) is not defined for bool: torch has no XOR scatter"},
            {"op": "scatter_nd", "reduction": ["mul", "min", "max"], "dtype": "bool",
             "reason": "index_reduce_ is not implemented for bool"},
        ]
        if self.dev.type == "cpu":
            excl.append({"op": "scatter_nd", "reduction": "mul", "dtype": ["float16", "bfloat16"],
                         "reason": "index_reduce_(prod) on float16/bfloat16 CPU fails an internal assert "
                                   "(Loops.h) when 2+ indices hit one-element slices"})
        return full_capabilities(max_rank=25 if self.dev.type == "cuda" else 64,
                                 checks_indices=self.dev.type == "cpu", exclude=excl,
                                 lowers={"none", "sub", *TORCH_REDUCE})

    def tensor(self, t):
        torch = self.torch
        if t.dtype == "bfloat16":
            x = torch.from_numpy(np.ascontiguousarray(t.array).view(np.int16)).view(torch.bfloat16)
        else:
            x = torch.from_numpy(np.ascontiguousarray(t.array))
        return x.to(self.dev)

    def prepare(self, case, flags):
        torch = self.torch
        data = self.tensor(case.data)
        upd = self.tensor(case.updates)
        idx = self.tensor(case.indices)
        red = case.reduction
        shape = list(case.data.shape)
        if case.op == "scatter_elements":
            ax = case.axis
            if red == "none":
                fn = lambda out: out.scatter_(ax, idx, upd)  # noqa: E731
                low = f"torch.Tensor.scatter_(dim={ax})"
            else:
                r, inc = TORCH_REDUCE[red], case.use_init_val
                fn = lambda out: out.scatter_reduce_(ax, idx, upd, r, include_self=inc)  # noqa: E731
                low = f"torch.Tensor.scatter_reduce_(dim={ax}, reduce='{r}', include_self={inc})"
        elif case.op == "scatter_update":
            ax = case.axis
            n = int(np.prod(case.indices.shape, dtype=np.int64))
            flat = idx.reshape(-1)
            u2 = upd.reshape(shape[:ax] + [n] + shape[ax + 1:])
            fn = lambda out: out.index_copy_(ax, flat, u2)  # noqa: E731
            low = f"torch.Tensor.index_copy_(dim={ax})"
        else:
            k = case.indices.shape[-1]
            if red in ("none", "add") and k >= 1:
                tup = tuple(idx[..., j] for j in range(k))
                acc = red == "add"
                fn = lambda out: out.index_put_(tup, upd, accumulate=acc)  # noqa: E731
                low = f"torch.Tensor.index_put_(tuple of {k} index tensors, accumulate={acc})"
            else:
                lead = shape[:k]
                p = int(np.prod(lead, dtype=np.int64)) if k else 1
                m = int(np.prod(case.indices.shape[:-1], dtype=np.int64))
                # k = 1: the index itself, negatives wrapped (an elementwise pass; torch rejects
                # what stays out of range, on a GPU by a device-side assert, as before). k > 1: its position in an arange of the leading
                # dims, a gather that torch itself would not do, so only where needed.
                pos = torch.arange(p, device=self.dev).reshape(lead) if k > 1 else None
                t = idx.reshape(m, k)
                u2 = upd.reshape([m] + shape[k:])
                inner = shape[k:]

                def lin():
                    if k == 0:
                        return torch.zeros(m, dtype=torch.int64, device=self.dev)
                    if k == 1:
                        t0 = t[:, 0] if p < 2**31 else t[:, 0].long()  # t0 + p must not wrap in int32
                        return torch.where(t0 < 0, t0 + p, t0)
                    return pos[tuple(t[:, j] for j in range(k))]
                if red == "none":
                    def fn(out):
                        out.view([p] + inner).index_put_((lin(),), u2, accumulate=False)
                    low = "torch.Tensor.index_put_ on data viewed as [prod(shape[:k]), ...] (k = 0)"
                elif red == "add":
                    def fn(out):
                        out.view([p] + inner).index_put_((lin(),), u2, accumulate=True)
                    low = "torch.Tensor.index_put_(accumulate=True) on data viewed as [1, ...] (k = 0)"
                elif red == "sub":
                    def fn(out):
                        out.view([p] + inner).index_add_(0, lin(), u2, alpha=-1)
                    low = "torch.Tensor.index_add_(0, positions, updates, alpha=-1) on data viewed as [prod(shape[:k]), ...]"
                else:
                    r = TORCH_REDUCE[red]

                    def fn(out):
                        out.view([p] + inner).index_reduce_(0, lin(), u2, r, include_self=True)
                    low = (f"torch.Tensor.index_reduce_(0, positions, updates, '{r}', include_self=True) on data "
                           "viewed as [prod(shape[:k]), ...]")
                low += ("; positions = the index, negatives + shape[0]" if k == 1 else
                        "; positions = arange(prod(shape[:k])).reshape(shape[:k])[index tuple]")
        return _Prepared(torch, self.dev, data, fn, case, low, bool(flags.get("in_place", False)), self.device_flush)

    def classify(self, exc):
        msg = " ".join(str(exc).split())
        low = msg.lower()
        if isinstance(exc, IndexError) or any(m in low for m in INDEX_MESSAGES):
            return Rejected("index", f"{type(exc).__name__}: {msg[:2000]}")
        if "not implemented for" in low:
            return Unsupported(msg[:2000])
        return None

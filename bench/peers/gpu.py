"""GPU peers and the GPU platform: PyTorch (CUDA, default and deterministic algorithms),
CuPy and JAX on the suite, timed like scatterctl's cuda backend: CUDA events around the
op only, an L2 flush (a memset of twice the L2) before each sample outside the timed
region for "cold", back to back for "hot". Nothing here imports torch, cupy or jax at
import time, so `--help` and `--list` work on a machine without them or without a GPU.
"""

from __future__ import annotations

import sys
import time
from typing import Optional

import numpy as np

from .cpu import NP_UFUNC, TorchPeer
from .measure import Skip
from .suite import Inputs, Item, elements_coords


class TorchCudaPeer(TorchPeer):
    """PyTorch on the GPU: the calls of TorchPeer on device tensors."""

    name = "torch"
    device = "cuda"

    def __init__(self, threads: Optional[int]):
        super().__init__(None)
        if not self.torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.threads = 1


class TorchCudaDeterministicPeer(TorchCudaPeer):
    """The same calls under torch.use_deterministic_algorithms(True): sorted paths for
    index_put_(accumulate=True), scatter_reduce_; an error where torch has none."""

    name = "torch_deterministic"
    deterministic = True


class CupyPeer:
    """CuPy: fancy assignment for `none`; cupy.add.at / maximum.at / minimum.at
    (cupyx.scatter_add/max/min) for reductions. CuPy has no multiply.at and no bfloat16."""

    name = "cupy"

    def __init__(self, threads: Optional[int]):
        import cupy

        self.cp = cupy
        self.version = cupy.__version__
        self.threads = 1

    def prepare(self, it: Item, inp: Inputs):
        cp = self.cp
        if it.data.dtype == "bfloat16":
            raise Skip("CuPy has no bfloat16")
        red, ax = it.reduction, it.axis
        if red in ("mul", "mean"):
            raise Skip(f"CuPy has no {'multiply.at' if red == 'mul' else 'mean scatter'}")
        data, idx, upd = cp.asarray(inp.data), cp.asarray(inp.indices), cp.asarray(inp.updates)
        if it.op == "scatter_nd":
            where = tuple(cp.moveaxis(idx, -1, 0))
            api = "out[tuple(idx.T)] = upd"
        elif it.op == "scatter_elements":
            where = tuple(cp.asarray(c) if isinstance(c, np.ndarray) else c for c in elements_coords(idx, ax))
            api = "out[grid with idx on axis] = upd"
        else:
            where = (slice(None),) * ax + (idx,)
            api = "out[(:,) * axis + (idx,)] = upd"
        if red != "none":
            uf = getattr(cp, NP_UFUNC[red])
            api = f"cupy.{NP_UFUNC[red]}.at(out, {api[4:api.index(']')]}, upd)"

            def op(out):
                uf.at(out, where, upd)
                return out
        else:
            def op(out):
                out[where] = upd
                return out
        if it.in_place:
            work = data.copy()
            return (lambda: op(work)), (lambda: work.__setitem__(Ellipsis, data)), api
        return (lambda: op(data.copy())), None, api

    def to_numpy(self, out):
        return self.cp.asnumpy(out)


class JaxPeer:
    """JAX: a jitted `data.at[...].set/add/multiply/min/max` (out of place); in place
    donates the data buffer (donate_argnums) so XLA may update it where it lies. JAX
    has no mean scatter. XLA work runs on JAX's own stream, so its timer is the wall
    clock around the dispatch and block_until_ready (see timer)."""

    name = "jax"

    def __init__(self, threads: Optional[int]):
        import jax

        jax.config.update("jax_enable_x64", True)  # int64 indices stay int64
        self.jax = jax
        self.jnp = jax.numpy
        self.version = jax.__version__
        if not any(d.platform == "gpu" for d in jax.devices()):
            raise RuntimeError("jax sees no GPU")
        self.threads = 1

    def prepare(self, it: Item, inp: Inputs):
        jax, jnp = self.jax, self.jnp
        red, ax = it.reduction, it.axis
        if red == "mean":
            raise Skip("JAX has no mean scatter")
        dt = jnp.bfloat16 if it.data.dtype == "bfloat16" else it.data.dtype
        data = jnp.asarray(inp.data, dtype=dt)
        idx, upd = jnp.asarray(inp.indices), jnp.asarray(inp.updates, dtype=dt)
        if it.op == "scatter_nd":
            where = tuple(jnp.moveaxis(idx, -1, 0))
        elif it.op == "scatter_elements":
            where = tuple(jnp.asarray(c) for c in elements_coords(np.asarray(inp.indices), ax))
        else:
            where = (slice(None),) * ax + (idx,)
        method = {"none": "set", "add": "add", "mul": "multiply", "min": "min", "max": "max"}[red]
        api = f"jit(data.at[...].{method}(upd)){' donated' if it.in_place else ''}"

        def f(d, u):
            return getattr(d.at[where], method)(u)

        fn = jax.jit(f, donate_argnums=(0,) if it.in_place else ())
        if it.in_place:
            state = {"work": None}

            def refresh():
                state["work"] = data.copy()
                state["work"].block_until_ready()

            def run():
                out = fn(state["work"], upd)
                out.block_until_ready()
                state["work"] = out
                return out
            return run, refresh, api

        def run():
            out = fn(data, upd)
            out.block_until_ready()
            return out
        return run, None, api

    @staticmethod
    def timer(fn):
        """Wall clock: fn dispatches the jitted call and blocks until it is done."""
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    def to_numpy(self, out):
        return np.asarray(out.astype(self.jnp.float32) if out.dtype == self.jnp.bfloat16 else out)


GPU_PEERS = {"torch": TorchCudaPeer, "torch_deterministic": TorchCudaDeterministicPeer, "cupy": CupyPeer,
             "jax": JaxPeer}


class GpuPlatform:
    """CUDA events (through torch) around the op, an L2 flush before each sample, the
    device-to-device copy bandwidth of a 1 GiB torch copy as the 100% line."""

    copy_method = "torch device-to-device copy_ of 1 GiB, read + write, median of 20 (CUDA events)"
    timer_method = "CUDA events on the current stream around the op (torch, cupy); wall clock for jax"
    use_ref_copy_line = False  # measured here beside the peers; scatterctl's cuda report has its own

    def __init__(self):
        try:
            import torch
        except ImportError:
            print("peers_gpu: needs torch (for CUDA events and the L2 flush)", file=sys.stderr)
            raise SystemExit(5) from None
        if not torch.cuda.is_available():
            print("peers_gpu: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
            raise SystemExit(5)
        self.torch = torch
        p = torch.cuda.get_device_properties(0)
        # The string scatterctl's cuda backend reports (lib/src/cuda/cuda_backend.cpp).
        self.device = f"{p.name} (sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, {p.total_memory / 2**30:.0f} GiB)"
        l2 = getattr(p, "L2_cache_size", 0) or (50 << 20)
        self.scratch = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)

    def flush(self):
        self.scratch.fill_(1)  # enqueued before the start event: outside the timed region

    def timer(self, fn):
        """CUDA events on torch's current stream around fn; CuPy's default stream is
        the same legacy default stream. (JaxPeer brings its own timer.)"""
        self.start.record()
        fn()
        self.stop.record()
        self.stop.synchronize()
        return self.start.elapsed_time(self.stop) / 1e3

    def copy_bandwidth(self) -> float:
        torch = self.torch
        n = 1 << 30
        src = torch.ones(n, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        dst.copy_(src)
        times = []
        for _ in range(20):
            self.start.record()
            dst.copy_(src)
            self.stop.record()
            self.stop.synchronize()
            times.append(self.start.elapsed_time(self.stop) / 1e3)
        del src, dst
        return 2.0 * n / float(np.median(times))

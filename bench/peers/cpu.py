"""CPU peers: numpy, PyTorch and ONNX Runtime, each computing what the suite item
computes (same shapes, dtypes, reduction, axis, duplicates, in place or not).

prepare(item, inputs) returns (run, refresh, api): run() performs the op once and
returns the output; refresh (or None) runs before each sample outside the timed region
(in place: data copied back into the work buffer); api names the call that is timed.
Out of place, the copy of data into the output is inside the timed region, as in
scatterctl's ref backend. A peer that has no form of an item raises Skip(reason).
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .measure import Skip
from .suite import Inputs, Item, elements_coords

NP_UFUNC = {"add": "add", "mul": "multiply", "min": "minimum", "max": "maximum"}


class NumpyPeer:
    """numpy fancy assignment for `none`, ufunc.at for reductions (single thread)."""

    name = "numpy"

    def __init__(self, threads: Optional[int]):
        self.version = np.__version__
        self.threads = 1
        try:
            import ml_dtypes  # bfloat16 for numpy

            self.bf16 = ml_dtypes.bfloat16
        except ImportError:
            self.bf16 = None

    def convert(self, it: Item, inp: Inputs):
        if it.data.dtype == "bfloat16":
            if self.bf16 is None:
                raise Skip("numpy has no bfloat16 (pip install ml_dtypes)")
            return inp.data.astype(self.bf16), inp.indices, inp.updates.astype(self.bf16)
        return inp.data, inp.indices, inp.updates

    def prepare(self, it: Item, inp: Inputs):
        data, idx, upd = self.convert(it, inp)
        red, ax = it.reduction, it.axis
        if it.op == "scatter_nd":
            where = tuple(np.moveaxis(idx, -1, 0))
            api = "out[tuple(idx.T)] = upd" if red == "none" else f"np.{NP_UFUNC[red]}.at(out, tuple(idx.T), upd)"
        elif it.op == "scatter_elements":
            where = elements_coords(idx, ax)
            api = ("out[grid with idx on axis] = upd" if red == "none" else
                   "np.add.at sum and count, then divide" if red == "mean" else
                   f"np.{NP_UFUNC[red]}.at(out, grid with idx on axis, upd)")
        else:
            where = (slice(None),) * ax + (idx,)
            api = "out[(:,) * axis + (idx,)] = upd"

        if red == "none":
            def op(out):
                out[where] = upd
                return out
        elif red == "mean":
            integer = np.issubdtype(data.dtype, np.integer)

            def op(out):
                count = np.ones(out.shape, dtype=np.int64)
                np.add.at(count, where, 1)
                if integer:
                    total = out.astype(np.int64)
                    np.add.at(total, where, upd)
                    out[...] = np.floor_divide(total, count)
                else:
                    np.add.at(out, where, upd)
                    out[...] = (out.astype(np.float64) / count).astype(out.dtype)
                return out
        else:
            uf = getattr(np, NP_UFUNC[red])

            def op(out):
                uf.at(out, where, upd)
                return out

        if it.in_place:
            work = data.copy()
            return (lambda: op(work)), (lambda: np.copyto(work, data)), api
        return (lambda: op(data.copy())), None, api

    def to_numpy(self, out):
        return np.asarray(out, dtype=np.float64) if out.dtype == self.bf16 else out


TORCH_REDUCE = {"add": "sum", "mul": "prod", "min": "amin", "max": "amax", "mean": "mean"}


class TorchPeer:
    """PyTorch: index_put_ (ScatterND none/add), scatter_ / scatter_reduce_
    (ScatterElements; ScatterND mul/min/max on element tuples through flat offsets),
    index_copy_ (ScatterUpdate). The GPU script subclasses it with device='cuda'."""

    name = "torch"
    device = "cpu"
    deterministic = False  # True: torch.use_deterministic_algorithms(True) around every call

    def __init__(self, threads: Optional[int]):
        import torch

        self.torch = torch
        self.version = torch.__version__
        if threads:
            torch.set_num_threads(threads)
        self.threads = torch.get_num_threads()

    def tensor(self, a: np.ndarray, dtype: str):
        t = self.torch.from_numpy(np.ascontiguousarray(a))
        if dtype == "bfloat16":
            t = t.to(self.torch.bfloat16)
        return t.to(self.device)

    def prepare(self, it: Item, inp: Inputs):
        torch = self.torch
        data = self.tensor(inp.data, it.data.dtype)
        idx = self.tensor(inp.indices, it.indices.dtype)
        upd = self.tensor(inp.updates, it.updates.dtype)
        red, ax = it.reduction, it.axis
        # scatter_/scatter_reduce_/index_copy_ take int64 indices only: an int32 cast is timed.
        conv = idx.dtype != torch.int64
        cast = " (int32 indices cast to int64, timed)" if conv and it.op != "scatter_nd" else ""
        if it.op == "scatter_nd":
            if red in ("none", "add"):
                acc = red == "add"
                api = f"index_put_(tuple(idx.unbind(-1)), upd, accumulate={acc})"

                def op(out):
                    return out.index_put_(tuple(idx.unbind(-1)), upd, accumulate=acc)
            else:
                if idx.shape[-1] != data.dim():
                    raise Skip(f"index_put_ has no {red} form, and scatter_reduce_ no slices")
                strides = torch.tensor(data.stride(), dtype=torch.int64, device=data.device)
                reduce = TORCH_REDUCE[red]
                api = f"view(-1).scatter_reduce_(0, (idx * strides).sum(-1), upd, '{reduce}'), offsets timed"

                def op(out):
                    lin = (idx.to(torch.int64) * strides).sum(-1).reshape(-1)
                    return out.view(-1).scatter_reduce_(0, lin, upd.reshape(-1), reduce, include_self=True)
        elif it.op == "scatter_elements":
            if red == "none":
                api = "scatter_(axis, idx, upd)" + cast

                def op(out):
                    return out.scatter_(ax, idx.to(torch.int64) if conv else idx, upd)
            else:
                reduce = TORCH_REDUCE[red]
                api = f"scatter_reduce_(axis, idx, upd, '{reduce}', include_self=True)" + cast

                def op(out):
                    return out.scatter_reduce_(ax, idx.to(torch.int64) if conv else idx, upd, reduce,
                                               include_self=True)
        else:
            flat = idx.reshape(-1)
            shape = tuple(data.shape[:ax]) + (flat.numel(),) + tuple(data.shape[ax + 1:])
            u = upd.reshape(shape)
            api = "index_copy_(axis, idx.view(-1), upd)" + cast

            def op(out):
                return out.index_copy_(ax, flat.to(torch.int64) if conv else flat, u)

        if self.deterministic:
            api += " [use_deterministic_algorithms(True)]"
            inner = op

            def op(out):  # noqa: F811  (the same op under deterministic algorithms)
                prev = torch.are_deterministic_algorithms_enabled()
                torch.use_deterministic_algorithms(True)
                try:
                    return inner(out)
                finally:
                    torch.use_deterministic_algorithms(prev)

        if it.in_place:
            work = data.clone()
            return (lambda: op(work)), (lambda: work.copy_(data)), api
        return (lambda: op(data.clone())), None, api

    def to_numpy(self, out):
        if out.dtype == self.torch.bfloat16:
            out = out.to(self.torch.float32)
        return out.cpu().numpy()


ORT_TYPES = {"float32": 1, "int32": 6, "int64": 7, "float16": 10, "bfloat16": 16}


class OnnxRuntimePeer:
    """ONNX Runtime (CPU): a one-node ScatterND / ScatterElements model, opset 18.
    ScatterUpdate is ScatterND with [.., k] tuples (built before timing)."""

    name = "onnxruntime"

    def __init__(self, threads: Optional[int]):
        import onnx  # noqa: F401  (the model is built with onnx.helper)
        import onnxruntime as ort

        self.ort = ort
        self.version = ort.__version__
        so = ort.SessionOptions()
        ort.set_default_logger_severity(4)  # unsupported type/reduction pairs are skipped, not logged
        if threads:
            so.intra_op_num_threads = threads
        self.options = so
        self.threads = threads or os.cpu_count() or 1
        self.dtype = "float32"
        self.support: dict = {}  # (model, types, ranks) -> why it does not run, or ''

    def value(self, a: np.ndarray, dtype: str, keep: list):
        """An OrtValue over `a`'s memory; `keep` holds the array, which must outlive it."""
        if dtype == "bfloat16":
            a = (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
            keep.append(a)
            return self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(a, ORT_TYPES["bfloat16"])
        a = np.ascontiguousarray(a)
        keep.append(a)
        return self.ort.OrtValue.ortvalue_from_numpy(a)

    def prepare(self, it: Item, inp: Inputs):
        from onnx import TensorProto, helper

        if it.in_place:
            raise Skip("ONNX Runtime has no in-place scatter (every op writes a new output)")
        if it.reduction == "mean":
            raise Skip("ONNX ScatterElements has no mean reduction")
        data, idx, upd = inp.data, inp.indices, inp.updates
        nodes = []
        attrs = {}
        if it.op == "scatter_elements":
            opname, api = "ScatterElements", "ScatterElements"
            attrs["axis"] = it.axis
        else:
            opname, api = "ScatterND", "ScatterND"
            if it.op == "scatter_update":
                # (outer coordinates..., idx) tuples: ScatterUpdate along `axis` as ScatterND.
                outer = data.shape[:it.axis]
                grids = np.meshgrid(*[np.arange(s) for s in outer], indexing="ij") if outer else []
                lead = [g.reshape(g.shape + (1,) * idx.ndim) for g in grids]
                parts = np.broadcast_arrays(*lead, idx.reshape((1,) * len(outer) + idx.shape))
                idx = np.stack(parts, axis=-1).astype(idx.dtype)
                api = f"ScatterND with {idx.shape[-1]}-tuples (built before timing)"
            if it.indices.dtype != "int64":  # ScatterND takes int64 only: a Cast node, timed
                nodes.append(helper.make_node("Cast", ["indices"], ["indices64"], to=TensorProto.INT64))
                api += " (Cast of int32 indices, timed)"
        if it.reduction != "none":
            attrs["reduction"] = it.reduction
            api += f"(reduction='{it.reduction}')"
        nodes.append(helper.make_node(opname, ["data", "indices64" if nodes else "indices", "updates"], ["out"],
                                      **attrs))
        et, it_type = ORT_TYPES[it.data.dtype], ORT_TYPES[it.indices.dtype]
        # A failed run on large inputs crashes onnxruntime 1.32 (segfault): find out on tiny ones.
        k = idx.shape[-1] if opname == "ScatterND" else 0
        tiny_idx = (1, k) if opname == "ScatterND" else (1,) * data.ndim
        tiny_upd = (1,) + (2,) * (data.ndim - k) if opname == "ScatterND" else (1,) * data.ndim
        why = self.unsupported(nodes, et, it_type, (2,) * data.ndim, tiny_idx, tiny_upd)
        if why:
            raise Skip(f"onnxruntime: {why}")
        sess = self.session(nodes, et, it_type, data.shape, idx.shape, upd.shape)
        keep: list = []
        feeds = {"data": self.value(data, it.data.dtype, keep), "indices": self.value(idx, it.indices.dtype, keep),
                 "updates": self.value(upd, it.updates.dtype, keep)}
        self.dtype = it.data.dtype

        def run(keep=keep):  # keep: the arrays under the feeds live as long as the closure
            return sess.run_with_ort_values(["out"], feeds)[0]

        return run, None, api

    def session(self, nodes, et, it_type, data_shape, idx_shape, upd_shape):
        from onnx import helper

        graph = helper.make_graph(
            nodes, "scatter",
            [helper.make_tensor_value_info("data", et, list(data_shape)),
             helper.make_tensor_value_info("indices", it_type, list(idx_shape)),
             helper.make_tensor_value_info("updates", et, list(upd_shape))],
            [helper.make_tensor_value_info("out", et, list(data_shape))])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        model.ir_version = 8
        return self.ort.InferenceSession(model.SerializeToString(), sess_options=self.options,
                                         providers=["CPUExecutionProvider"])

    def unsupported(self, nodes, et, it_type, data_shape, idx_shape, upd_shape) -> str:
        """Why onnxruntime rejects this model (empty if it runs), from a run on tiny inputs."""
        key = (str(nodes), et, it_type, len(data_shape), len(idx_shape))
        if key not in self.support:
            name = {v: k for k, v in ORT_TYPES.items()}
            held = np.float32 if name[et] == "bfloat16" else name[et]  # value() converts bfloat16
            keep: list = []
            feeds = {"data": self.value(np.zeros(data_shape, held), name[et], keep),
                     "indices": self.value(np.zeros(idx_shape, name[it_type]), name[it_type], keep),
                     "updates": self.value(np.ones(upd_shape, held), name[et], keep)}
            try:
                self.session(nodes, et, it_type, data_shape, idx_shape, upd_shape).run_with_ort_values(["out"], feeds)
                self.support[key] = ""
            except Exception as e:  # noqa: BLE001  (onnxruntime raises its own exception types)
                msg = str(e).splitlines()[0]
                self.support[key] = msg[msg.find("Status Message:") + 16:][:200] if "Status Message:" in msg else msg
        return self.support[key]

    def to_numpy(self, out):
        if self.dtype == "bfloat16":
            bits = np.asarray(out.numpy()).view(np.uint16).astype(np.uint32) << np.uint32(16)
            return bits.view(np.float32)
        return out.numpy()


CPU_PEERS = {"numpy": NumpyPeer, "torch": TorchPeer, "onnxruntime": OnnxRuntimePeer}

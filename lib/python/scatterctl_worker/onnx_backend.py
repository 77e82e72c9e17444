"""onnx: the ONNX reference implementation (onnx.reference.ReferenceEvaluator) on one-node models."""
import warnings

import numpy as np

from . import onnx_common as oc
from .adapter import Adapter, Prepared
from .protocol import Rejected, Tensor


class _Prepared(Prepared):
    timing = "perf_counter around ReferenceEvaluator.run (evaluator built and inputs converted beforehand)"

    def __init__(self, ev, feeds, undo, case, bf16):
        self.ev, self.feeds, self.undo, self.case, self.bf16 = ev, feeds, undo, case, bf16
        self.lowering = oc.lowering(case)
        self.y = None

    def call(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.y = self.ev.run(None, self.feeds)[0]

    def result(self):
        y = np.asarray(self.y)
        y = y.view(np.uint16) if self.bf16 is not None and self.case.dtype == "bfloat16" else y
        return Tensor(self.case.dtype, self.undo(y))


class OnnxReferenceAdapter(Adapter):
    name = "onnx"

    def load(self):
        import onnx
        from onnx.reference import ReferenceEvaluator
        self.onnx, self.RE = onnx, ReferenceEvaluator
        try:
            import ml_dtypes
            self.bf16 = ml_dtypes.bfloat16
            self.versions["ml_dtypes"] = ml_dtypes.__version__
        except ImportError:
            self.bf16 = None
        self.version = onnx.__version__
        self.versions["onnx"] = onnx.__version__
        self.device = "CPU (onnx.reference.ReferenceEvaluator, NumPy)"
        self.settings = {"opset": f"{oc.OPSET} (TensorScatter: {oc.TENSOR_SCATTER_OPSET})", "evaluator": "onnx.reference.ReferenceEvaluator"}
        self.cache = {}

    def capabilities(self):
        every = "*" if self.bf16 is not None else [d for d in oc.elem_types() if d != "bfloat16"]
        red = {r: every for r in ("none", "add", "mul", "min", "max")}
        # The reference's TensorScatter indexes with Python: a negative write position wraps, not refused.
        return oc.capabilities(dict(red), dict(red), tensor_checks_indices=False)

    def prepare(self, case, flags):
        key = oc.signature(case)
        ev = self.cache.get(key)
        if ev is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ev = self.RE(oc.build_model(case))
            self.cache[key] = ev
        d, i, u, undo = oc.arrays(case)
        if case.dtype == "bfloat16":
            d, u = d.view(self.bf16), u.view(self.bf16)
        return _Prepared(ev, {"data": d, "indices": i, "updates": u}, undo, case, self.bf16)

    def classify(self, exc):
        if isinstance(exc, IndexError):
            return Rejected("index", f"{type(exc).__name__}: {exc}")
        return None

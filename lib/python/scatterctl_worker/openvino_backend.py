"""openvino: one scatter node on the CPU plugin. data, indices and updates are Parameters of the model
(never Constants), so the plugin's own kernel runs: nothing can be constant-folded at compile time.

  scatter_elements  ScatterElementsUpdate-12 (reduction none/sum/prod/min/max/mean, use_init_val)
  scatter_nd        ScatterNDUpdate-15 (reduction none/sum/sub/prod/min/max)
  scatter_update    ScatterUpdate-3 (axis as a Constant input)

Compiled with INFERENCE_PRECISION_HINT=f32 and EXECUTION_MODE_HINT=ACCURACY, per static input shapes,
and cached by (op, reduction, axis, use_init_val, dtypes, shapes)."""
import numpy as np

from .adapter import Adapter, Prepared, full_capabilities
from .protocol import Rejected, Tensor, Unsupported, contiguous

OV_REDUCTION = {"none": "none", "add": "sum", "sub": "sub", "mul": "prod", "min": "min", "max": "max",
                "mean": "mean"}
CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY"}
MAX_RANK = 64
# "indices contain values that points to non-existing data tensor element" (ScatterNDUpdate),
# "have indices value that points to non-existing output tensor element" (ScatterUpdate, ScatterElementsUpdate)
INDEX_MESSAGES = ("non-existing data tensor element", "non-existing output tensor element", "out of range", "out of bounds", "must be within",
                  "index is out", "indices values", "indices contain", "negative")


class _Prepared(Prepared):
    timing = ("perf_counter around InferRequest.infer() (model compiled and input tensors set "
              "beforehand)")

    def __init__(self, req, case, lowering, undo):
        self.req, self.case, self.lowering, self.undo = req, case, lowering, undo

    def call(self):
        self.req.infer()

    def result(self):
        o = self.req.get_output_tensor(0).data
        arr = np.array(o.view(np.uint16) if self.case.dtype == "bfloat16" else o, copy=True)
        return Tensor(self.case.dtype, self.undo(arr))


class OpenVinoAdapter(Adapter):
    name = "openvino"

    def load(self):
        import openvino as ov
        self.ov = ov
        self.core = ov.Core()
        v = ov.get_version() if hasattr(ov, "get_version") else ov.__version__
        self.version = ov.__version__.split("-")[0]
        self.versions.update({"openvino": v})
        self.device = f"CPU ({self.core.get_property('CPU', 'FULL_DEVICE_NAME')})"
        self.settings = dict(CONFIG)
        self.settings["device"] = "CPU"
        self.cache = {}
        T = ov.Type
        self.types = {"float64": T.f64, "float32": T.f32, "float16": T.f16, "bfloat16": T.bf16, "int64": T.i64,
                      "int32": T.i32, "int16": T.i16, "int8": T.i8, "uint8": T.u8, "bool": T.boolean}

    def capabilities(self):
        # every op, reduction and dtype the spec allows (the op specs cover them all); where the CPU plugin
        # computes differently (float64 in float32, int64 in int32, integer mean toward zero, k = 0 a no-op)
        # the comparison reports it: see docs/backends.md, "Framework settings"
        # checks_indices: ScatterElementsUpdate-12 on the CPU plugin accepts indices below -s (its check
        # is 'idx < s && (idx >= 0 || ScatterElementsUpdate)') and writes outside the output; ScatterNDUpdate-15
        # rejects an out-of-range index ("points to non-existing data/output tensor element")
        return full_capabilities(max_rank=MAX_RANK, lowers=OV_REDUCTION, checks_indices={
            "scatter_elements": False, "scatter_update": False, "scatter_nd": True}, exclude=[
            {"op": "scatter_nd", "feature": "empty_index_tuple",
             "reason": "ScatterNDUpdate-15 with k = 0 (indices.shape[-1] = 0) returns data unchanged on "
                       "the CPU plugin, where the whole tensor is the one slice to update"},
        ])

    def model(self, case):
        ov = self.ov
        import openvino.opset3 as o3
        import openvino.opset12 as o12
        import openvino.opset15 as o15
        el = self.types[case.dtype]
        d = o15.parameter(list(case.data.shape), el, name="data")
        i = o15.parameter(list(case.indices.shape), self.types[case.index_dtype], name="indices")
        u = o15.parameter(list(case.updates.shape), el, name="updates")
        red = OV_REDUCTION[case.reduction]
        if case.op == "scatter_elements":
            axis = o15.constant(np.int64(case.axis))
            n = o12.scatter_elements_update(d, i, u, axis, reduction=red, use_init_val=case.use_init_val)
            low = (f"ScatterElementsUpdate-12 axis={case.axis} reduction={red} "
                   f"use_init_val={str(case.use_init_val).lower()}")
        elif case.op == "scatter_nd":
            n = o15.scatter_nd_update(d, i, u, red)
            low = f"ScatterNDUpdate-15 reduction={red}"
        else:
            axis = o15.constant(np.int64(case.axis))
            n = o3.scatter_update(d, i, u, axis)
            low = f"ScatterUpdate-3 axis={case.axis}"
        m = ov.Model([n], [d, i, u], "scatter")
        return self.core.compile_model(m, "CPU", CONFIG), low + " (CPU plugin, inputs as Parameters)"

    def tensor(self, t):
        ov = self.ov
        if t.dtype == "bfloat16":
            x = ov.Tensor(ov.Type.bf16, ov.Shape(list(t.shape)))
            x.data.view(np.uint16)[...] = t.array
            return x
        # contiguous, not np.ascontiguousarray: the latter turns a 0-d array into shape [1], which the
        # request refuses for a 0-d Parameter
        return ov.Tensor(contiguous(t.array))

    def prepare(self, case, flags):
        key = (case.op, case.reduction, case.axis, case.use_init_val, case.dtype, case.index_dtype,
               case.data.shape, case.indices.shape, case.updates.shape)
        ent = self.cache.get(key)
        if ent is None:
            cm, low = self.model(case)
            ent = (cm, cm.create_infer_request(), low)
            if len(self.cache) > 64:
                self.cache.clear()
            self.cache[key] = ent
        cm, req, low = ent
        for j, t in enumerate((case.data, case.indices, case.updates)):
            req.set_input_tensor(j, self.tensor(t))
        return _Prepared(req, case, low, lambda y: y)

    def classify(self, exc):
        msg = " ".join(str(exc).split())
        low = msg.lower()
        if any(m in low for m in INDEX_MESSAGES):
            return Rejected("index", msg[-2000:])
        if "not supported" in low or "not implemented" in low or "unsupported" in low:
            return Unsupported(msg[-2000:])
        return None

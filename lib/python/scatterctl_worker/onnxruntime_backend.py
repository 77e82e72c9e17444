"""onnxruntime: one-node ONNX models in an InferenceSession (CPU execution provider; CUDA when the
installed onnxruntime has it). Sessions are cached per (op, reduction, axis, dtype, index dtype)."""
import ctypes

import numpy as np

from . import onnx_common as oc
from scatterctl_spec import DTYPES

from .adapter import Adapter, Prepared
from .protocol import Rejected, Tensor, Unsupported

NO_HALF = ["float16", "bfloat16"]

# ScatterElements: "indices element out of data bounds, idx=3 must be within the inclusive range [-3,2]";
# ScatterND: "invalid indice found, indice = -4"
INDEX_MESSAGES = ("out of data bounds", "invalid indice", "invalid index")


class _Prepared(Prepared):
    timing = ("perf_counter around InferenceSession.run_with_ort_values (session built and OrtValues "
              "bound beforehand; includes the output allocation)")

    def __init__(self, sess, feeds, undo, case):
        self.sess, self.feeds, self.undo, self.case = sess, feeds, undo, case
        self.lowering = oc.lowering(case)
        self.y = None

    def call(self):
        self.y = self.sess.run_with_ort_values(["y"], self.feeds)[0]

    def result(self):
        y = self.y
        shape = tuple(y.shape())
        if self.case.dtype == "bfloat16":
            n = int(np.prod(shape, dtype=np.int64))
            raw = ctypes.string_at(y.data_ptr(), 2 * n) if n else b""
            arr = np.frombuffer(raw, dtype="<u2").reshape(shape).copy()
        else:
            arr = y.numpy()
        return Tensor(self.case.dtype, self.undo(arr))


class OnnxRuntimeAdapter(Adapter):
    name = "onnxruntime"

    def load(self):
        import onnx  # noqa: F401  (builds the models)
        import onnxruntime as ort
        self.ort = ort
        ort.set_default_logger_severity(3)
        self.version = ort.__version__
        self.versions.update({"onnxruntime": ort.__version__, "onnx": onnx.__version__})
        avail = ort.get_available_providers()
        if "CUDAExecutionProvider" in avail:
            self.providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]
            self.device = "CUDA (CUDAExecutionProvider, CPUExecutionProvider as fallback)"
        else:
            self.providers = ["CPUExecutionProvider"]
            self.device = "CPU (CPUExecutionProvider)"
        self.opts = ort.SessionOptions()
        self.opts.log_severity_level = 3
        # Its intra-op threads sleep when idle instead of spinning: a spinning pool takes the CPUs
        # from every other backend's timed calls, and from this worker's own 'done' signal, so
        # that scatterctl's clock of a call includes the spin (docs/benchmarks.md, "The clock").
        self.opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.settings = {
            "providers": ",".join(self.providers),
            "intra_op_num_threads": f"{self.opts.intra_op_num_threads} (onnxruntime's default: one per physical core)",
            "inter_op_num_threads": str(self.opts.inter_op_num_threads),
            "graph_optimization_level": str(self.opts.graph_optimization_level).split(".")[-1],
            "allow_spinning": "0 (intra-op and inter-op threads sleep when idle; onnxruntime's default spins)",
            "opset": f"{oc.OPSET} (TensorScatter: {oc.TENSOR_SCATTER_OPSET})",
        }
        self.cache = {}

    def capabilities(self):
        every = "*"
        no_half = [d for d in DTYPES if d not in NO_HALF]
        no_half_bool = [d for d in no_half if d != "bool"]
        elements = {"none": every, "add": no_half, "mul": no_half,
                    "min": [d for d in DTYPES if d not in ("bfloat16", "bool")],
                    "max": [d for d in DTYPES if d not in ("bfloat16", "bool")]}
        nd = {"none": every, "add": no_half, "mul": no_half, "min": no_half_bool, "max": no_half_bool}
        caps = oc.capabilities(elements, nd, tensor_checks_indices=True)
        if self.providers[0] == "CUDAExecutionProvider":
            caps["exclude"].append({"op": "scatter_nd", "reduction": ["add", "mul", "min", "max"],
                                    "reason": "declared as on CPU; the CUDA provider's reductions are not verified"})
        return caps

    def session(self, case):
        key = oc.signature(case)
        s = self.cache.get(key)
        if s is None:
            s = self.ort.InferenceSession(oc.build_model(case).SerializeToString(), self.opts,
                                          providers=self.providers)
            self.cache[key] = s
        return s

    def prepare(self, case, flags):
        from onnx import TensorProto
        sess = self.session(case)
        d, i, u, undo = oc.arrays(case)
        OV = self.ort.OrtValue

        def ov(a):
            a = oc.contiguous(a)
            if case.dtype == "bfloat16" and a.dtype == np.uint16:
                return OV.ortvalue_from_numpy_with_onnx_type(a, TensorProto.BFLOAT16)
            return OV.ortvalue_from_numpy(a)
        feeds = {"data": ov(d), "indices": OV.ortvalue_from_numpy(oc.contiguous(i)), "updates": ov(u)}
        # keep the numpy buffers alive as long as the OrtValues that view them
        p = _Prepared(sess, feeds, undo, case)
        p.keep = (d, i, u)
        return p

    def classify(self, exc):
        msg = " ".join(str(exc).split())
        short = msg.split("Status Message:", 1)[-1].strip() if "Status Message:" in msg else msg
        low = short.lower()
        if any(m in low for m in INDEX_MESSAGES):
            return Rejected("index", short[:2000])
        if "not supported" in low or "not_implemented" in low.replace(" ", "_") or "not implemented" in low:
            return Unsupported(short[:2000])
        return None

"""Cases as one-node ONNX models (opset 18), shared by the onnx and onnxruntime adapters.

  scatter_elements  ScatterElements-18 (axis, reduction none/add/mul/min/max; no mean, no use_init_val=false)
  scatter_nd        ScatterND-18 (reduction none/add/mul/min/max; no sub; int64 indices only)
  scatter_update    ScatterND-18 on data with the axis moved to the front (transposes outside the timed
                    region); int64 indices only; ScatterND accepts negative indices, which scatter_update
                    defines as errors, so such cases are excluded rather than passed through

The graph's inputs have no fixed shape, so one model serves every shape of a signature."""
from scatterctl_spec import INDEX_DTYPES

from .protocol import contiguous, update_as_nd  # noqa: F401  (contiguous: used as oc.contiguous)

OPSET = 18
ONNX_REDUCTION = {"none": "none", "add": "add", "mul": "mul", "min": "min", "max": "max"}


def elem_types():
    from onnx import TensorProto as TP
    return {"float64": TP.DOUBLE, "float32": TP.FLOAT, "float16": TP.FLOAT16, "bfloat16": TP.BFLOAT16,
            "int64": TP.INT64, "int32": TP.INT32, "int16": TP.INT16, "int8": TP.INT8, "uint8": TP.UINT8,
            "bool": TP.BOOL}


def onnx_op(case):
    return "ScatterElements" if case.op == "scatter_elements" else "ScatterND"


def lowering(case):
    s = f"{onnx_op(case)}-{OPSET}"
    if case.op == "scatter_elements":
        s += f" axis={case.axis}"
    if case.reduction != "none":
        s += f" reduction={case.reduction}"
    if case.op == "scatter_update":
        s += f" on data with axis {case.axis} moved to the front" if case.axis else ""
        s += " (scatter_update = ScatterND with indices[..., None])"
    return s


def build_model(case):
    from onnx import helper as h
    el = elem_types()
    attrs = {}
    if case.op == "scatter_elements":
        attrs["axis"] = case.axis
    if case.reduction != "none":
        attrs["reduction"] = ONNX_REDUCTION[case.reduction]
    node = h.make_node(onnx_op(case), ["data", "indices", "updates"], ["y"], **attrs)
    g = h.make_graph([node], "scatter",
                     [h.make_tensor_value_info("data", el[case.dtype], None),
                      h.make_tensor_value_info("indices", el[case.index_dtype], None),
                      h.make_tensor_value_info("updates", el[case.dtype], None)],
                     [h.make_tensor_value_info("y", el[case.dtype], None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", OPSET)])
    m.ir_version = 8
    return m


def signature(case):
    return (case.op, case.reduction, case.axis if case.op == "scatter_elements" else 0, case.dtype,
            case.index_dtype)


# Shared with the other adapters that lower scatter_update to scatter_nd (tvm).
arrays = update_as_nd


def capabilities(elements, nd):
    """elements / nd: reduction -> dtype list or "*" (ScatterElements / ScatterND as the framework runs them)."""
    return {
        "ops": {"scatter_elements": elements, "scatter_nd": nd, "scatter_update": {"none": nd["none"]}},
        "index_dtypes": list(INDEX_DTYPES),
        "negative_indices": True,
        "empty_index_tuple": True,
        "max_rank": 64,
        "use_init_val_false": False,
        "checks_indices": True,
        "exclude": [
            {"op": ["scatter_nd", "scatter_update"], "index_dtype": "int32",
             "reason": "ONNX ScatterND takes int64 indices only (an int32 model is invalid)"},
            {"op": "scatter_update", "feature": "negative_indices",
             "reason": "the lowering, ScatterND, accepts negative indices, which scatter_update defines as errors"},
        ],
    }

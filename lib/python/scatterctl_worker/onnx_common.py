"""Cases as one-node ONNX models (opset 18), shared by the onnx and onnxruntime adapters.

  scatter_elements  ScatterElements-18 (axis, reduction none/add/mul/min/max; no mean, no use_init_val=false)
  scatter_nd        ScatterND-18 (reduction none/add/mul/min/max; no sub; int64 indices only)
  scatter_update    ScatterND-18 on data with the axis moved to the front (transposes outside the timed
                    region); int64 indices only; ScatterND accepts negative indices, which scatter_update
                    defines as errors, so such cases are excluded rather than passed through
  tensor_scatter    TensorScatter-24 (axis, mode; int64 write_indices only), in a model of opset 24

The graph's inputs have no fixed shape, so one model serves every shape of a signature."""
from scatterctl_spec import INDEX_DTYPES

from .protocol import contiguous, update_as_nd  # noqa: F401  (contiguous: used as oc.contiguous)

OPSET = 18
TENSOR_SCATTER_OPSET = 24  # TensorScatter's first opset
ONNX_REDUCTION = {"none": "none", "add": "add", "mul": "mul", "min": "min", "max": "max"}


def elem_types():
    from onnx import TensorProto as TP
    return {"float64": TP.DOUBLE, "float32": TP.FLOAT, "float16": TP.FLOAT16, "bfloat16": TP.BFLOAT16,
            "int64": TP.INT64, "int32": TP.INT32, "int16": TP.INT16, "int8": TP.INT8, "uint8": TP.UINT8,
            "bool": TP.BOOL}


def onnx_op(case):
    return {"scatter_elements": "ScatterElements", "tensor_scatter": "TensorScatter"}.get(case.op, "ScatterND")


def opset_of(case):
    return TENSOR_SCATTER_OPSET if case.op == "tensor_scatter" else OPSET


def lowering(case):
    s = f"{onnx_op(case)}-{opset_of(case)}"
    if case.op == "tensor_scatter":
        return s + f" axis={case.axis} mode={case.mode}"
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
    inputs = ["data", "indices", "updates"]
    if case.op == "scatter_elements":
        attrs["axis"] = case.axis
    if case.reduction != "none":
        attrs["reduction"] = ONNX_REDUCTION[case.reduction]
    if case.op == "tensor_scatter":
        attrs.update(axis=case.axis, mode=case.mode)
        inputs = ["data", "updates", "indices"]  # past_cache, update, write_indices
    node = h.make_node(onnx_op(case), inputs, ["y"], **attrs)
    g = h.make_graph([node], "scatter",
                     [h.make_tensor_value_info("data", el[case.dtype], None),
                      h.make_tensor_value_info("indices", el[case.index_dtype], None),
                      h.make_tensor_value_info("updates", el[case.dtype], None)],
                     [h.make_tensor_value_info("y", el[case.dtype], None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset_of(case))])
    m.ir_version = 8 if opset_of(case) == OPSET else 10
    return m


def signature(case):
    attrs = (case.axis, case.mode) if case.op == "tensor_scatter" else case.axis if case.op == "scatter_elements" else 0
    return (case.op, case.reduction, attrs, case.dtype, case.index_dtype)


# Shared with the other adapters that lower scatter_update to scatter_nd (tvm).
arrays = update_as_nd


def capabilities(elements, nd, tensor_checks_indices):
    """elements / nd: reduction -> dtype list or "*" (ScatterElements / ScatterND as the framework runs them);
    TensorScatter takes what ScatterND `none` takes. tensor_checks_indices: whether the framework refuses
    every write position the spec refuses."""
    return {
        "ops": {"scatter_elements": elements, "scatter_nd": nd, "scatter_update": {"none": nd["none"]},
                "tensor_scatter": {"none": nd["none"]}},
        "index_dtypes": list(INDEX_DTYPES),
        "negative_indices": True,
        "empty_index_tuple": True,
        "max_rank": 64,
        "use_init_val_false": False,
        "checks_indices": {"scatter_elements": True, "scatter_nd": True, "scatter_update": True,
                           "tensor_scatter": tensor_checks_indices},
        "exclude": [
            {"op": ["scatter_nd", "scatter_update"], "index_dtype": "int32",
             "reason": "ONNX ScatterND takes int64 indices only (an int32 model is invalid)"},
            {"op": "tensor_scatter", "index_dtype": "int32",
             "reason": "ONNX TensorScatter takes int64 write_indices only (an int32 model is invalid)"},
            {"op": "scatter_update", "feature": "negative_indices",
             "reason": "the lowering, ScatterND, accepts negative indices, which scatter_update defines as errors"},
        ],
    }

"""scatterctl import MODEL --out DIR: every scatter node of a model as a scatterctl case.

Run by `scatterctl import` as `PYTHON -m scatterctl_import MODEL --out DIR [--dim NAME=VALUE ...]`
(lib/python on PYTHONPATH), with the interpreter the framework workers use. Reads ONNX models
(`.onnx`, with the onnx package) and OpenVINO IR (`.xml`, with the openvino package).

Each ScatterND, ScatterElements and Scatter node (OpenVINO: ScatterNDUpdate,
ScatterElementsUpdate, ScatterUpdate) becomes one case in DIR/<model>.json, named after the node,
with the node's shapes, dtypes and attributes. An input that is a constant of the model is taken
as it is (inline up to MAX_INLINE elements, else a .npy file beside the cases); any other input is
generated, valid for the op: indices in range, unique targets for `none` where there are enough
targets. Each case's description says which inputs came from where. A dynamic dimension needs
`--dim NAME=VALUE`; a node that cannot become a case is skipped with the reason.

Nothing is written until every node has been read: then the case file and its .npy files are
made afresh (never through a link), each whole or not at all. A file of the same name in DIR is
replaced only with --force. A node that cannot become a case (its shapes, dtypes or attributes,
constant indices out of range, or anything the reader raises on it) is skipped with the reason,
and the other nodes still become cases.

Exit status: 0 cases written; 1 scatter nodes found but none could become a case; 2 a bad argument,
an unreadable or truncated model, or a file in DIR that --force would be needed to replace; 4 no
scatter node in the model; 5 the package that reads the model is not installed.
"""
import argparse
import json
import os
import re
import sys

MAX_INLINE = 4096

ONNX_OPS = {"ScatterND": "scatter_nd", "ScatterElements": "scatter_elements", "Scatter": "scatter_elements",
            "TensorScatter": "tensor_scatter"}
OPENVINO_OPS = {"ScatterNDUpdate": "scatter_nd", "ScatterElementsUpdate": "scatter_elements",
                "ScatterUpdate": "scatter_update"}
# onnx.TensorProto element types
ONNX_DTYPES = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64", 9: "bool", 10: "float16",
               11: "float64", 16: "bfloat16"}
NUMPY_DTYPES = {"float64": "float64", "float32": "float32", "float16": "float16", "int64": "int64", "int32": "int32",
                "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool"}
# a model's reduction names (ONNX: none add mul min max; OpenVINO: none sum prod min max mean) -> the spec's
REDUCTIONS = {"none": "none", "add": "add", "sum": "add", "mul": "mul", "prod": "mul", "min": "min", "max": "max",
              "mean": "mean"}


class Skip(Exception):
    """This node cannot become a case; the message says why."""


class NotAModel(Exception):
    """The file is not a model that can be read; the message says why."""


def fail(message, status):
    print(f"scatterctl import: {message}", file=sys.stderr)
    return status


def case_name(raw, taken):
    """The node's name as a case name ([A-Za-z0-9_.-]+, at most 100 characters), unique within the file."""
    if isinstance(raw, bytes):  # a name that is not UTF-8 comes as bytes
        raw = raw.decode("utf-8", "replace")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(raw)).strip("_")[:100] or "scatter"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


class Input:
    """One input of a node: its dtype and shape, and its constant value when the model has one."""

    def __init__(self, role, dtype, shape, value=None):
        self.role, self.dtype, self.shape, self.value = role, dtype, [int(d) for d in shape], value

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


def shape_of(dims, role, given):
    """A model's dims (ints, or names of dynamic dimensions) -> ints, from --dim for the names."""
    out = []
    for d in dims:
        if isinstance(d, int) and d >= 0:
            out.append(d)
        elif isinstance(d, str) and d in given:
            out.append(given[d])
        elif isinstance(d, str) and d:
            raise Skip(f"{role} has the dynamic dimension '{d}': give --dim {d}=VALUE")
        else:
            raise Skip(f"{role} has a dimension of unknown size: give the model static shapes or name the "
                       "dimension")
    return out


def tensor_json(inp, files, case, seed, generated):
    """The case-file tensor of an input: the constant (inline, or a .npy beside the cases, added to
    `files` to be written once every node is read), or a generator."""
    import numpy as np

    if inp.value is not None:
        arr = np.asarray(inp.value)
        if inp.size <= MAX_INLINE and (arr.dtype.kind not in "f" or np.isfinite(arr).all()):
            return {"dtype": inp.dtype, "shape": inp.shape, "values": arr.tolist()}, "the model's constant"
        file = f"{case}.{inp.role}.npy"
        files[file] = np.ascontiguousarray(arr)
        return {"dtype": inp.dtype, "shape": inp.shape, "file": file}, f"the model's constant ({file})"
    if inp.role == "indices":
        return ({"dtype": inp.dtype, "shape": inp.shape, "generate": dict(generated, seed=seed)},
                "generated in range" + (", unique targets" if generated.get("unique") else ""))
    if inp.dtype == "bool":
        return {"dtype": "bool", "shape": inp.shape, "generate": {"kind": "fill", "value": False}}, "generated: false"
    if inp.dtype.startswith("float") or inp.dtype == "bfloat16":
        return ({"dtype": inp.dtype, "shape": inp.shape,
                 "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": seed}}, "generated: uniform [-1, 1)")
    return ({"dtype": inp.dtype, "shape": inp.shape, "generate": {"kind": "randint", "low": 0, "high": 100, "seed": seed}},
            "generated: randint [0, 100)")


def check_shapes(op, axis, data, indices, updates):
    """The node's shapes as the op needs them, before anything indexes into them (Skip otherwise)."""
    rank = len(data.shape)
    if rank == 0:
        raise Skip("data is a scalar: a scatter needs rank 1 or more")
    if indices is None:
        return
    if op == "scatter_nd":
        if not indices.shape or indices.shape[-1] > rank:
            raise Skip(f"indices of shape {indices.shape} do not fit data of rank {rank}")
    elif op == "scatter_elements":
        if len(indices.shape) != rank or updates.shape != indices.shape:
            raise Skip(f"scatter_elements needs indices and updates of one shape and data's rank {rank} (got "
                       f"{indices.shape} and {updates.shape})")
    elif op == "tensor_scatter" and len(indices.shape) != 1:
        raise Skip(f"write_indices of shape {indices.shape}: one write index per batch row")


def check_constant_indices(op, axis, mode, data, indices, updates):
    """Constant indices must be in range for the node's shapes: the node's problem, said by name."""
    import numpy as np
    from scatterctl_worker.protocol import Case, Tensor, first_out_of_range

    if indices is None or indices.value is None:
        return
    held = lambda inp: Tensor(inp.dtype, np.zeros(inp.shape, dtype=np.uint8))  # noqa: E731  (shapes only)
    case = Case("", op, "none", axis, True, held(data), Tensor(indices.dtype, np.asarray(indices.value)),
                held(updates) if updates is not None else None, mode)
    bad = first_out_of_range(case)
    if bad:
        raise Skip(f"its constant indices are out of range: {bad}")


def index_generator(op, reduction, axis, data, indices):
    """Valid indices: in range, and unique targets for `none` where there are as many targets."""
    if reduction != "none" or op == "tensor_scatter":  # tensor_scatter: valid write positions never collide
        return {"kind": "indices"}
    if op == "scatter_nd":
        k = indices.shape[-1] if indices.shape else 0
        targets, wanted = 1, 1
        for d in data.shape[:k]:
            targets *= d
        for d in indices.shape[:-1]:
            wanted *= d
    elif op == "scatter_elements":
        targets, wanted = data.shape[axis], indices.shape[axis]
    else:
        targets, wanted = data.shape[axis], indices.size
    return {"kind": "indices", "unique": wanted <= targets}


def case_of(name, source, op, reduction, axis, fields, inputs, files):
    """fields: the case's further attributes (use_init_val, mode). inputs: data, indices, updates; a
    tensor_scatter without write_indices has none (zeros, as in ONNX). files: the .npy files the case
    needs, added to."""
    if len(inputs) != 3:
        raise Skip(f"it has {len(inputs)} inputs where data, indices and updates are needed")
    data, indices, updates = inputs
    if data is None or updates is None:
        raise Skip("it lacks data or updates")
    if indices is not None and indices.dtype not in ("int32", "int64"):
        raise Skip(f"indices are {indices.dtype}, not int32 or int64")
    if op != "scatter_nd" and not -len(data.shape) <= axis < len(data.shape):
        raise Skip(f"axis {axis} is outside data's rank {len(data.shape)}")
    axis = axis % len(data.shape) if data.shape else 0
    check_shapes(op, axis, data, indices, updates)
    check_constant_indices(op, axis, fields.get("mode", "linear"), data, indices, updates)
    generated = index_generator(op, reduction, axis, data, indices)
    tensors, said, own = {}, [], {}
    for seed, inp in enumerate((data, indices, updates), start=1):
        if inp is None:
            said.append("no write_indices (zeros)")
            continue
        tensors[inp.role], where = tensor_json(inp, own, name, seed, generated)
        said.append(f"{inp.role} {where}")
    files.update(own)  # only a case that is made adds its files
    case = {"name": name, "description": f"{source}: " + "; ".join(said), "source": source,
            "tags": ["imported"] + (["tensor_scatter"] if op == "tensor_scatter" else []), "op": op,
            "reduction": reduction, "inputs": tensors}
    if op != "scatter_nd":
        case["axis"] = axis
    case.update(fields)
    return case


# ---------------------------------------------------------------------------------------------
# ONNX
# ---------------------------------------------------------------------------------------------

def onnx_nodes(path, given):
    """(node name, source, op, reduction, axis, fields, make_inputs) of every scatter node of an ONNX
    model (fields: the case's further attributes); make_inputs raises Skip when the node cannot become a
    case."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    # A truncated or empty file parses as a model with parts missing: not a model.
    if not model.HasField("graph") or not model.opset_import:
        raise NotAModel("it has no graph or no opset_import (cut short, or not an ONNX model)")
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception:  # a model that shape inference cannot follow keeps the shapes it declares
        pass
    graph = model.graph
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant" and node.output:
            for a in node.attribute:
                if a.name == "value":
                    constants[node.output[0]] = numpy_helper.to_array(a.t)
    types = {vi.name: vi.type.tensor_type for vi in list(graph.input) + list(graph.value_info) + list(graph.output)}
    stem = os.path.basename(path)

    def input_of(role, value_name):
        if value_name in constants:
            arr = constants[value_name]
            dtype = NUMPY_DTYPES.get(str(arr.dtype))
            if dtype is None:
                raise Skip(f"{role} is a constant of dtype {arr.dtype}, which the case format has no name for")
            return Input(role, dtype, arr.shape, arr)
        t = types.get(value_name)
        if t is None or not t.HasField("shape"):
            raise Skip(f"{role} ('{value_name}') has no known shape (shape inference could not reach it)")
        dtype = ONNX_DTYPES.get(t.elem_type)
        if dtype is None:
            raise Skip(f"{role} ('{value_name}') has ONNX element type {t.elem_type}, not one of the case format's")
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim]
        return Input(role, dtype, shape_of(dims, f"{role} ('{value_name}')", given))

    found = []
    for i, node in enumerate(graph.node):
        if node.op_type not in ONNX_OPS:
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        raw = attrs.get("reduction", b"none")
        reduction = raw.decode() if isinstance(raw, bytes) else str(raw)
        label = node.name or (node.output[0] if node.output else f"{node.op_type}_{i}")
        source = f"{node.op_type} node '{label}' of {stem}"
        if node.op_type == "TensorScatter":  # past_cache, update, [write_indices]; axis -2 unless given
            raw_mode = attrs.get("mode", b"linear")
            mode = raw_mode.decode() if isinstance(raw_mode, bytes) else str(raw_mode)

            def make(node=node):
                if len(node.input) < 2:
                    raise Skip(f"it has {len(node.input)} input{'s' if len(node.input) != 1 else ''}: TensorScatter "
                               "needs past_cache and update")
                data, updates = (input_of(role, name) for role, name in zip(("data", "updates"), node.input))
                given_indices = len(node.input) > 2 and node.input[2]
                return [data, input_of("indices", node.input[2]) if given_indices else None, updates]

            found.append((label, source, "tensor_scatter", "none", int(attrs.get("axis", -2)), {"mode": mode}, make))
            continue
        axis = int(attrs.get("axis", 0))

        def make(node=node):
            if len(node.input) < 3:
                raise Skip(f"it has {len(node.input)} inputs, not 3")
            return [input_of(role, name) for role, name in zip(("data", "indices", "updates"), node.input)]

        found.append((label, source, ONNX_OPS[node.op_type], reduction, axis, {}, make))
    return found


# ---------------------------------------------------------------------------------------------
# OpenVINO IR
# ---------------------------------------------------------------------------------------------

def not_constant_axis():
    raise Skip("its axis is not a constant of the model")


def check_weights(path):
    """The .bin beside an IR .xml must be a regular file in the model's folder: a link that points
    out of it (a model archive can hold one) would make another file's bytes the case's constants."""
    weights = os.path.splitext(path)[0] + ".bin"
    if not os.path.lexists(weights):
        return
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if os.path.islink(weights) or not os.path.isfile(weights):
        raise NotAModel(f"its weights {weights} are a link or not a regular file: refused (the ONNX reader refuses "
                        "links too)")
    if os.path.dirname(os.path.realpath(weights)) != folder:
        raise NotAModel(f"its weights {weights} lie outside the model's folder: refused")


def openvino_nodes(path, given):
    """The same for an OpenVINO IR model (.xml and its .bin)."""
    import openvino as ov

    check_weights(path)
    model = ov.Core().read_model(path)
    stem = os.path.basename(path)
    # IR keeps no names for dynamic dimensions: --dim names them PARAMETER.AXIS ("x.0"), and the
    # model is reshaped so that the shapes propagate to the scatter nodes.
    unknown, reshaped = [], {}
    for param in model.get_parameters():
        pshape = param.get_partial_shape()
        if pshape.rank.is_dynamic or pshape.is_static:
            continue
        dims = []
        for j, d in enumerate(pshape):
            key = f"{param.get_friendly_name()}.{j}"
            dims.append(d.get_length() if d.is_static else given.get(key, -1))
            if d.is_dynamic and key not in given:
                unknown.append(key)
        if all(x >= 0 for x in dims):
            reshaped[param.output(0)] = ov.PartialShape(dims)
    if reshaped:
        model.reshape(reshaped)
    hint = f": give --dim {'=VALUE, --dim '.join(unknown)}=VALUE" if unknown else ""
    ov_dtypes = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16", "i64": "int64",
                 "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "boolean": "bool"}
    found = []
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        if kind not in OPENVINO_OPS:
            continue
        attrs = op.get_attributes()
        reduction = str(attrs.get("reduction", "none")).lower()
        axis = 0
        label = op.get_friendly_name()
        source = f"{kind} node '{label}' of {stem}"

        def make(op=op, kind=kind):
            inputs = []
            for role, port in zip(("data", "indices", "updates"), op.inputs()):
                dtype = ov_dtypes.get(port.get_element_type().get_type_name())
                if dtype is None:
                    raise Skip(f"{role} has OpenVINO type {port.get_element_type()}, not one of the case format's")
                pshape = port.get_partial_shape()
                if pshape.rank.is_dynamic:
                    raise Skip(f"{role} has a dynamic rank")
                if pshape.is_dynamic:
                    raise Skip(f"{role} has a dimension of unknown size{hint}")
                dims = [d.get_length() for d in pshape]
                source_op = port.get_source_output().get_node()
                value = source_op.get_data() if source_op.get_type_name() == "Constant" else None
                inputs.append(Input(role, dtype, shape_of(dims, role, given), value))
            return inputs

        if kind in ("ScatterElementsUpdate", "ScatterUpdate"):
            axis_port = op.inputs()[3].get_source_output().get_node()
            if axis_port.get_type_name() != "Constant":
                found.append((label, source, OPENVINO_OPS[kind], reduction, 0, {}, not_constant_axis))
                continue
            axis = int(axis_port.get_data().reshape(-1)[0])
        fields = {} if attrs.get("use_init_val", True) else {"use_init_val": False}
        found.append((label, source, OPENVINO_OPS[kind], reduction, axis, fields, make))
    return found


def write_cases(out_dir, stem, cases, files, force):
    """The case file and its .npy files, all or none: each is written whole to a temporary file
    made afresh in DIR (a name nobody can have planted, never a link followed), and only once all
    of them are written are they renamed over their names (a rename replaces a link rather than
    writing through it). On a failure before that, only the temporary files are removed: what was
    in DIR is as it was. An existing file of the same name is replaced only with `force`.
    -> the case file's path."""
    import io
    import tempfile

    import numpy as np

    made_dir = not os.path.isdir(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    names = [f"{stem}.json"] + sorted(files)
    for name in names:  # every clash said before anything is written
        target = os.path.join(out_dir, name)
        if os.path.lexists(target) and (not force or os.path.isdir(target)):
            raise FileExistsError(f"{target} is there already" + ("" if os.path.isdir(target) else ": --force replaces it"))
    contents = {}
    for name in sorted(files):
        buffer = io.BytesIO()
        np.save(buffer, files[name], allow_pickle=False)
        contents[name] = buffer.getvalue()
    contents[names[0]] = ('{"format": 1, "cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}\n").encode()
    made = {}
    try:
        for name in names:
            fd, tmp = tempfile.mkstemp(prefix=f".{name[:40]}.", suffix=".tmp", dir=out_dir)
            made[name] = tmp
            with os.fdopen(fd, "wb") as f:
                f.write(contents[name])
            os.chmod(tmp, 0o644)
    except BaseException:
        for tmp in made.values():
            if os.path.lexists(tmp):
                os.unlink(tmp)
        if made_dir and not os.listdir(out_dir):
            os.rmdir(out_dir)
        raise
    for name in names:
        os.replace(made[name], os.path.join(out_dir, name))
    return os.path.join(out_dir, names[0])


def main(argv):
    ap = argparse.ArgumentParser(prog="scatterctl import")
    ap.add_argument("model")
    ap.add_argument("--out", required=True)
    ap.add_argument("--dim", action="append", default=[])
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    given = {}
    for d in a.dim:
        name, _, value = d.partition("=")
        # A case's dimensions are 64-bit (docs/case-format.md): a larger one would import and
        # then be refused by run; a name given twice would be last-wins, silently.
        if not name or not value.isdigit() or not 1 <= int(value) <= 2**63 - 1:
            return fail(f"--dim '{d}' is not NAME=VALUE with VALUE in [1, 2^63 - 1]", 2)
        if name in given:
            return fail(f"--dim {name} is given twice ({given[name]} and {value})", 2)
        given[name] = int(value)
    if not os.path.isfile(a.model):
        return fail(f"{a.model}: no such file", 2)
    if os.path.lexists(a.out) and not os.path.isdir(a.out):
        return fail(f"--out {a.out} is there and is not a folder", 2)
    if os.path.getsize(a.model) == 0:
        return fail(f"{a.model}: not a model: the file is empty", 2)
    openvino_ir = a.model.endswith(".xml")
    package = "openvino" if openvino_ir else "onnx"
    try:
        __import__(package)
        import numpy  # noqa: F401
    except ImportError as e:
        return fail(f"unavailable: reading {a.model} needs the {package} package ({e}); scripts/setup.sh "
                    "--frameworks installs it into the project's .venv", 5)
    try:
        nodes = (openvino_nodes if openvino_ir else onnx_nodes)(a.model, given)
    except NotAModel as e:
        return fail(f"{a.model}: not a model: {e}", 2)
    except Exception as e:
        return fail(f"{a.model}: cannot read the model: {type(e).__name__}: {e}", 2)
    cases, skipped, taken, files = [], [], set(), {}
    for label, source, op, reduction, axis, fields, make in nodes:
        name = case_name(label, taken)
        try:
            if reduction not in REDUCTIONS:
                raise Skip(f"reduction '{reduction}' is not one of the case format's")
            cases.append(case_of(name, source, op, REDUCTIONS[reduction], axis, fields, make(), files))
        except Skip as e:
            skipped.append((label, str(e)))
        except Exception as e:  # the reader's own surprise on this node: the node's, never the run's
            skipped.append((label, f"it could not be read: {type(e).__name__}: {e}"))
    stem = os.path.splitext(os.path.basename(a.model))[0]
    if cases:
        try:
            path = write_cases(a.out, stem, cases, files, a.force)
        except FileExistsError as e:
            return fail(f"{e}; nothing written", 2)
        except OSError as e:
            return fail(f"cannot write the cases into {a.out}: {e}; nothing written", 2)
        print(f"import: {len(cases)} case{'s' if len(cases) != 1 else ''} from {a.model} in {path}")
    for label, why in skipped:
        print(f"import: skipped node {ascii(label)}: {why}")
    print(f"import: {len(nodes)} scatter node{'s' if len(nodes) != 1 else ''} found, {len(cases)} written, "
          f"{len(skipped)} skipped")
    if not nodes:
        return fail(f"{a.model} has no scatter node ({', '.join(sorted(OPENVINO_OPS if openvino_ir else ONNX_OPS))})", 4)
    return 0 if cases else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

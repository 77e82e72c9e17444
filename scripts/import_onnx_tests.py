#!/usr/bin/env python3
"""Import the official ONNX backend node tests for Scatter, ScatterElements and ScatterND.

    python3 scripts/import_onnx_tests.py                 # from the installed `onnx` package -> cases/onnx/
    python3 scripts/import_onnx_tests.py --check         # exit 1 if cases/onnx/ differs from what would be written
    python3 scripts/import_onnx_tests.py --wheel onnx-1.22.0-...whl --out /tmp/onnx122
    python3 scripts/import_onnx_tests.py --data-dir .../onnx/backend/test/data/node --out DIR

Where the tests come from, in this order:
  --wheel W     an onnx wheel (zip), read in place: onnx/backend/test/data/node/<test>/model.onnx and
                test_data_set_0/{input_*,output_0}.pb (the wheel's version names the source);
  --data-dir D  such a node directory on disk;
  otherwise     the installed onnx: its backend/test/data/node/ when it ships one (onnx <= 1.22), else the
                test cases regenerated through onnx.backend.test.case (collect_testcases), which is the code
                the shipped .pb files are generated from.

Every node test whose single node is Scatter, ScatterElements or ScatterND becomes one case file
cases/onnx/<test>.json (other ops with "scatter" in their name, such as TensorScatter, are not ours and are
listed as skipped). The case keeps the ONNX op name (an alias), the node's axis and reduction attributes,
the inputs and `expected` = the ONNX output, values written exactly: floats as repr(float(x)) (exact for
every float16/float32/float64 value), NaN and infinities as strings, integers as integers.

ONNX leaves duplicates with reduction none undefined; our comparison accepts any duplicate's value, so
such tests are kept as they are.
"""
import argparse
import io
import json
import math
import os
import re
import sys
import warnings
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "lib", "python"))
from scatterctl_spec import DTYPES  # noqa: E402

DEFAULT_OUT = os.path.join(ROOT, "cases", "onnx")
OPS = {"Scatter", "ScatterElements", "ScatterND"}
REDUCTIONS = {"none": "none", "add": "add", "mul": "mul", "max": "max", "min": "min"}


def die(msg, code=2):
    print(f"import_onnx_tests: {msg}", file=sys.stderr)
    sys.exit(code)


try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:  # pragma: no cover
    die(f"needs numpy and onnx ({e}); pip install onnx")


# TensorProto element type -> case dtype
ELEM_DTYPES = {
    onnx.TensorProto.DOUBLE: "float64",
    onnx.TensorProto.FLOAT: "float32",
    onnx.TensorProto.FLOAT16: "float16",
    onnx.TensorProto.BFLOAT16: "bfloat16",
    onnx.TensorProto.INT64: "int64",
    onnx.TensorProto.INT32: "int32",
    onnx.TensorProto.INT16: "int16",
    onnx.TensorProto.INT8: "int8",
    onnx.TensorProto.UINT8: "uint8",
    onnx.TensorProto.BOOL: "bool",
}
# the case dtypes that numpy names alike (numpy has no bfloat16 of its own)
NP_DTYPES = tuple(d for d in DTYPES if d != "bfloat16")


# ---------------------------------------------------------------------------------------------
# Loading tests
# ---------------------------------------------------------------------------------------------

class NodeTest:
    def __init__(self, name, model, inputs, outputs):
        self.name = name
        self.model = model      # ModelProto
        self.inputs = inputs    # list of (dtype, ndarray)
        self.outputs = outputs


def tensor_to_case(t):
    """TensorProto -> (dtype, ndarray); bfloat16 becomes float32 holding the exact values."""
    dtype = ELEM_DTYPES.get(t.data_type)
    if dtype is None:
        raise ValueError(f"unsupported element type {onnx.TensorProto.DataType.Name(t.data_type)}")
    arr = numpy_helper.to_array(t)
    if dtype == "bfloat16":
        arr = np.asarray(arr).astype(np.float32)
    return dtype, np.asarray(arr)


def ndarray_to_case(a, elem_type=None):
    if isinstance(a, onnx.TensorProto):
        return tensor_to_case(a)
    a = np.asarray(a)
    if elem_type is not None and elem_type in ELEM_DTYPES:
        dtype = ELEM_DTYPES[elem_type]
    else:
        dtype = str(a.dtype)
        if dtype not in NP_DTYPES:
            raise ValueError(f"unsupported numpy dtype {a.dtype}")
    if dtype == "bfloat16":
        a = a.astype(np.float32)
    return dtype, a


def scatter_node(model):
    nodes = list(model.graph.node)
    if len(nodes) != 1 or nodes[0].op_type not in OPS or nodes[0].domain not in ("", "ai.onnx"):
        return None
    return nodes[0]


def load_node_dir(name, read):
    """read(relpath) -> bytes or None; relpath inside the test's directory."""
    model = onnx.load_model_from_string(read("model.onnx"))
    if scatter_node(model) is None:
        return NodeTest(name, model, None, None)
    ins, outs = [], []
    for i in range(len(model.graph.input)):
        t = onnx.TensorProto()
        t.ParseFromString(read(f"test_data_set_0/input_{i}.pb"))
        ins.append(tensor_to_case(t))
    t = onnx.TensorProto()
    t.ParseFromString(read("test_data_set_0/output_0.pb"))
    outs.append(tensor_to_case(t))
    return NodeTest(name, model, ins, outs)


TEST_RE = re.compile(r"^test_scatter[A-Za-z0-9_]*$")


def from_data_dir(d):
    tests = []
    for name in sorted(os.listdir(d)):
        if not TEST_RE.match(name) or "_expanded" in name:
            continue
        base = os.path.join(d, name)
        if not os.path.isfile(os.path.join(base, "model.onnx")):
            continue

        def read(rel, base=base):
            with open(os.path.join(base, rel), "rb") as f:
                return f.read()
        tests.append(load_node_dir(name, read))
    return tests


def from_wheel(path):
    z = zipfile.ZipFile(path)
    prefix = "onnx/backend/test/data/node/"
    names = set(z.namelist())
    dirs = sorted({n[len(prefix):].split("/")[0] for n in names if n.startswith(prefix)})
    tests = []
    for name in dirs:
        if not TEST_RE.match(name) or "_expanded" in name or f"{prefix}{name}/model.onnx" not in names:
            continue
        tests.append(load_node_dir(name, lambda rel, name=name: z.read(f"{prefix}{name}/{rel}")))
    m = re.match(r"onnx-([0-9][^-]*)-", os.path.basename(path))
    version = m.group(1) if m else "unknown"
    return tests, version


def regenerate():
    """The installed onnx's test generators (onnx.backend.test.case), the source of the shipped .pb files."""
    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import contextlib
        with contextlib.redirect_stdout(io.StringIO()):
            cases = collect_testcases(None)
    tests = []
    for tc in cases:
        if not TEST_RE.match(tc.name) or "_expanded" in tc.name or tc.model is None:
            continue
        node = scatter_node(tc.model)
        if node is None:
            tests.append(NodeTest(tc.name, tc.model, None, None))
            continue
        (inputs, outputs), = tc.data_sets
        in_types = [vi.type.tensor_type.elem_type for vi in tc.model.graph.input]
        out_types = [vi.type.tensor_type.elem_type for vi in tc.model.graph.output]
        tests.append(NodeTest(tc.name, tc.model,
                              [ndarray_to_case(a, t) for a, t in zip(inputs, in_types)],
                              [ndarray_to_case(a, t) for a, t in zip(outputs, out_types)]))
    tests.sort(key=lambda t: t.name)
    return tests


# ---------------------------------------------------------------------------------------------
# Writing cases
# ---------------------------------------------------------------------------------------------

def value(x, dtype):
    if dtype == "bool":
        return bool(x)
    if dtype.startswith("float") or dtype == "bfloat16":
        f = float(x)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f  # json writes repr(f): exact, keeps -0.0
    return int(x)


def values(arr, dtype):
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return value(arr[()], dtype)
    return [values(a, dtype) for a in arr]


def tensor(dtype, arr):
    return {"dtype": dtype, "shape": list(arr.shape), "values": values(arr, dtype)}


def duplicates_none(node, indices, axis):
    """True if reduction none has two updates on one output element (ONNX: undefined order)."""
    if node.op_type == "ScatterND":
        tuples = [tuple(t) for t in indices.reshape(-1, indices.shape[-1]).tolist()]
        return len(tuples) != len(set(tuples))
    seen = set()
    for pos in np.ndindex(*indices.shape):
        p = list(pos)
        p[axis] = int(indices[pos])
        if tuple(p) in seen:
            return True
        seen.add(tuple(p))
    return False


def to_case(t, version):
    node = scatter_node(t.model)
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    unknown = set(attrs) - {"axis", "reduction"}
    if unknown:
        raise ValueError(f"{t.name}: node attributes we do not map: {sorted(unknown)}")
    red = attrs.get("reduction", b"none")
    red = red.decode() if isinstance(red, bytes) else red
    if red not in REDUCTIONS:
        raise ValueError(f"{t.name}: reduction {red!r} has no scatterctl equivalent")
    (ddt, data), (idt, indices), (udt, updates) = t.inputs
    (odt, out), = t.outputs
    case = {"format": 1, "name": t.name}
    opset = [o.version for o in t.model.opset_import if o.domain in ("", "ai.onnx")]
    desc = f"{node.op_type}"
    if opset:
        desc += f" (opset {opset[0]})"
    if "axis" in attrs:
        desc += f", axis={attrs['axis']}"
    if red != "none":
        desc += f", reduction={red}"
    axis = int(attrs.get("axis", 0))
    if red == "none" and duplicates_none(node, indices, axis if axis >= 0 else axis + data.ndim):
        desc += "; duplicate targets with reduction none (ONNX: undefined; scatterctl accepts any duplicate's value)"
    case["description"] = desc
    case["source"] = f"ONNX backend node test {t.name} (onnx {version})"
    case["tags"] = ["onnx"]
    case["op"] = node.op_type
    if node.op_type != "ScatterND" and "axis" in attrs:
        case["axis"] = axis
    if red != "none":
        case["reduction"] = REDUCTIONS[red]
    case["inputs"] = {"data": tensor(ddt, data), "indices": tensor(idt, indices),
                      "updates": tensor(udt, updates)}
    case["expected"] = tensor(odt, out)
    return case


def dumps(case):
    """One key per line, tensors on one line each (like the other bundled cases)."""
    lines = ["{"]
    items = list(case.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if k == "inputs":
            lines.append('  "inputs": {')
            sub = list(v.items())
            for j, (kk, vv) in enumerate(sub):
                lines.append(f"    {json.dumps(kk)}: {json.dumps(vv, allow_nan=False)}"
                             + ("," if j + 1 < len(sub) else ""))
            lines.append("  }" + comma)
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, allow_nan=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--wheel", help="read the node tests from this onnx wheel (zip)")
    src.add_argument("--data-dir", help="read the node tests from this onnx/backend/test/data/node directory")
    src.add_argument("--regenerate", action="store_true",
                     help="regenerate through onnx.backend.test.case even if the installed onnx ships data")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default cases/onnx)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if --out differs")
    args = ap.parse_args()

    how = ""
    if args.wheel:
        tests, version = from_wheel(args.wheel)
        how = f"wheel {os.path.basename(args.wheel)}"
    else:
        version = onnx.__version__
        d = args.data_dir or os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
        if not args.regenerate and os.path.isdir(d) and any(TEST_RE.match(n) for n in os.listdir(d)):
            tests, how = from_data_dir(d), f"data files in {d}"
        elif args.data_dir:
            die(f"{args.data_dir}: no test_scatter* node tests there")
        else:
            tests, how = regenerate(), "regenerated through onnx.backend.test.case"
    print(f"onnx {version}: {how}")

    wanted, skipped = {}, []
    for t in tests:
        if t.inputs is None:
            node = list(t.model.graph.node)
            skipped.append(f"{t.name} ({node[0].op_type if len(node) == 1 else 'not a single node'}: not a scatterctl op)")
            continue
        wanted[f"{t.name}.json"] = dumps(to_case(t, version))
    if not wanted:
        die("no Scatter/ScatterElements/ScatterND node tests found", 1)

    if args.check:
        existing = {f for f in os.listdir(args.out) if f.endswith(".json")} if os.path.isdir(args.out) else set()
        bad = sorted(f for f in wanted if f not in existing or open(os.path.join(args.out, f)).read() != wanted[f])
        extra = sorted(existing - set(wanted))
        for f in bad:
            print(f"differs or missing: {f}")
        for f in extra:
            print(f"not produced by this onnx: {f}")
        print(f"{len(wanted)} tests, {len(bad)} differ, {len(extra)} extra")
        return 1 if bad else 0

    os.makedirs(args.out, exist_ok=True)
    for f, text in sorted(wanted.items()):
        with open(os.path.join(args.out, f), "w") as fh:
            fh.write(text)
        print(f"wrote {os.path.relpath(os.path.join(args.out, f))}")
    for s in skipped:
        print(f"skipped {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tvm: Relax scatter_elements / scatter_nd built for the llvm target (the host CPU) and run on the
Relax VirtualMachine. One module per (op, reduction, axis, dtypes, shapes), built once and cached.

  scatter_elements  relax.op.scatter_elements(axis, reduction update/add/mul/mean/min/max)
  scatter_nd        relax.op.scatter_nd(reduction update/add/mul/min/max)
  scatter_update    relax.op.scatter_nd on data with the axis moved to the front (transposes outside
                    the timed region), indices[..., None]

TOPI's scatter kernels do not check indices (out-of-range ones write outside the output), so the worker
declares checks_indices false and never passes them an out-of-range index itself.

TOPI's scatter_elements flattens the positions before and after the axis with indices' extents but
offsets them with data's strides, so it is right only when indices has data's shape in every dimension
but the first, the axis and the one after it (upstream: apache/tvm#20182, fixed in the ONNX frontend by
apache/tvm#20187, not in the op: the op's contract is indices.shape == data.shape). Where indices is
smaller elsewhere, the worker scatters into data[:n0, ..., :, ..., :nr] (indices' extents, the axis
whole), where the op is right, and puts the block back into data with concat (all in the graph)."""
import numpy as np

from scatterctl_spec import DTYPES, FLOAT_DTYPES, INDEX_DTYPES

from .adapter import Adapter, Prepared
from .protocol import Rejected, Tensor, Unsupported, contiguous, first_out_of_range, update_as_nd

TVM_REDUCTION = {"none": "update", "add": "add", "mul": "mul", "min": "min", "max": "max", "mean": "mean"}
MAX_CACHE = 64


class _Prepared(Prepared):
    timing = "perf_counter around the VirtualMachine call (module built and inputs on the device beforehand)"

    def __init__(self, fn, args, undo, case, lowering):
        self.fn, self.args, self.undo, self.case, self.lowering = fn, args, undo, case, lowering
        self.y = None

    def call(self):
        self.y = self.fn(*self.args)

    def result(self):
        arr = self.y.numpy()
        if self.case.dtype == "bfloat16":
            arr = np.ascontiguousarray(arr).view(np.uint16)
        return Tensor(self.case.dtype, self.undo(contiguous(arr)))


class TvmAdapter(Adapter):
    name = "tvm"

    def load(self):
        import tvm
        from tvm import relax
        self.tvm, self.relax = tvm, relax
        self.version = tvm.__version__
        self.versions["tvm"] = tvm.__version__
        self.target = "llvm"
        self.dev = tvm.cpu()
        self.device = "CPU (llvm target, Relax VirtualMachine)"
        self.settings = {"target": self.target, "device": "tvm.cpu()",
                         "pipeline": "relax.build default (legalization to TOPI)"}
        self.make = tvm.runtime.tensor if hasattr(tvm.runtime, "tensor") else tvm.nd.array
        self.cache = {}

    def capabilities(self):
        return CAPS

    def build(self, case, d, i, u):
        relax = self.relax
        TT = relax.TensorType if hasattr(relax, "TensorType") and not hasattr(relax, "TensorStructInfo") \
            else relax.TensorStructInfo
        dt = case.dtype
        vd = relax.Var("data", TT(list(d.shape), dt))
        vi = relax.Var("indices", TT(list(i.shape), case.index_dtype))
        vu = relax.Var("updates", TT(list(u.shape), dt))
        red = TVM_REDUCTION[case.reduction]
        bb = relax.BlockBuilder()
        with bb.function("main", [vd, vi, vu]):
            with bb.dataflow():
                if case.op == "scatter_elements":
                    block = _block_shape(d.shape, i.shape, case.axis)
                    if block is None:
                        y = bb.emit(relax.op.scatter_elements(vd, vi, vu, case.axis, red))
                        low = f"relax.op.scatter_elements(axis={case.axis}, reduction='{red}')"
                    else:
                        y = self.scatter_block(bb, vd, vi, vu, case.axis, red, d.shape, block)
                        low = (f"relax.op.scatter_elements(axis={case.axis}, reduction='{red}') on "
                               f"data[{', '.join(':' + str(n) for n in block)}], put back with concat "
                               "(the op is wrong for indices smaller than data off the axis, apache/tvm#20182)")
                else:
                    y = bb.emit(relax.op.scatter_nd(vd, vi, vu, red))
                    low = f"relax.op.scatter_nd(reduction='{red}')"
                    if case.op == "scatter_update":
                        low += (f" on data with axis {case.axis} moved to the front" if case.axis else "") + \
                            " (scatter_update = scatter_nd with indices[..., None])"
                o = bb.emit_output(y)
            bb.emit_func_output(o)
        ex = relax.build(bb.get(), target=self.target)
        vm = relax.VirtualMachine(ex, self.dev)
        return vm, low + " on llvm"

    def scatter_block(self, bb, vd, vi, vu, axis, red, shape, block):
        """scatter_elements on the block data[:block[0], ..., :block[r-1]] (block[axis] = shape[axis]),
        then the block grown back to data's shape one dimension at a time, innermost first."""
        op = self.relax.op
        r = len(shape)
        part = bb.emit(op.strided_slice(vd, list(range(r)), [0] * r, list(block)))
        y = bb.emit(op.scatter_elements(part, vi, vu, axis, red))
        cur = list(block)
        for dim in reversed(range(r)):
            if cur[dim] == shape[dim]:
                continue
            # the rest of data along dim: dims before it still at the block's extent, dims after it whole
            begin = [0] * r
            begin[dim] = cur[dim]
            end = cur[:dim] + [shape[dim]] + list(shape[dim + 1:])
            rest = bb.emit(op.strided_slice(vd, list(range(r)), begin, end))
            y = bb.emit(op.concat([y, rest], axis=dim))
            cur[dim] = shape[dim]
        return y

    def prepare(self, case, flags):
        # out-of-range indices would be written through unchecked: never hand them to the kernel
        msg = first_out_of_range(case, allow_negative=case.op != "scatter_update")
        if msg:
            raise Rejected("index", "refused before the call (TVM does not check indices): " + msg)
        if case.op == "scatter_nd" and case.indices.array.size and (case.indices.array < 0).any():
            raise Unsupported("negative scatter_nd indices are excluded (TOPI does not normalize them, and "
                              "would write outside the output)")
        d, i, u, undo = update_as_nd(case)
        key = (case.op, case.reduction, case.axis, case.dtype, case.index_dtype, d.shape, i.shape, u.shape)
        ent = self.cache.get(key)
        if ent is None:
            if len(self.cache) >= MAX_CACHE:
                self.cache.clear()
            ent = self.cache[key] = self.build(case, d, i, u)
        vm, low = ent
        if case.dtype == "bfloat16":
            import ml_dtypes
            d, u = d.view(ml_dtypes.bfloat16), u.view(ml_dtypes.bfloat16)
        args = [self.make(contiguous(x), self.dev) for x in (d, i, u)]
        return _Prepared(vm["main"], args, undo, case, low)


def _block_shape(dshape, ishape, axis):
    """None when TOPI's scatter_elements is right for these shapes, else the block of data to scatter
    into: indices' extents, data's along the axis. TOPI flattens the dimensions before the axis and those
    after it with indices' extents and offsets them with data's strides: that is right when indices has
    data's extent in every dimension but the first, the axis and the one after it."""
    if all(a == b for j, (a, b) in enumerate(zip(dshape, ishape)) if j not in (0, axis, axis + 1)):
        return None
    return [dshape[j] if j == axis else ishape[j] for j in range(len(dshape))]


NO_BOOL = [d for d in DTYPES if d != "bool"]
FLOATS = list(FLOAT_DTYPES)
# bool reductions do not build (TOPI's reducers check for a float type); signed integer mean does not
# build (ambiguous integer division); float and uint8 mean build (a running pairwise average, see the docs)
CAPS = {
    "ops": {
        "scatter_elements": {"none": "*", "add": NO_BOOL, "mul": NO_BOOL, "min": NO_BOOL, "max": NO_BOOL,
                             "mean": FLOATS + ["uint8"]},
        "scatter_nd": {"none": "*", "add": NO_BOOL, "mul": NO_BOOL, "min": NO_BOOL, "max": NO_BOOL},
        "scatter_update": {"none": "*"},
    },
    "index_dtypes": list(INDEX_DTYPES),
    "negative_indices": True,
    "empty_index_tuple": True,
    "max_rank": 64,
    "use_init_val_false": False,
    "checks_indices": False,
    "exclude": [
        {"op": ["scatter_nd"], "feature": "negative_indices",
         "reason": "TOPI scatter_nd linearizes indices without normalizing negative ones: they land on the "
                   "wrong element or outside the output"},
    ],
}

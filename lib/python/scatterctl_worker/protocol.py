"""Protocol 1 plumbing shared by every adapter: tensors in .npy files, requests, answers.

Tensors travel as .npy version 1.0, little-endian, C order. bfloat16 has no NumPy dtype: it is
stored as '<V2' (2-byte records) and held here as uint16 bit patterns; bool is '|b1'.
"""
import ast
import os
import struct

import numpy as np

from scatterctl_spec import INDEX_DTYPES, NPY_DESCR, OPS, REDUCTIONS, WRITE_MODES

# descr -> dtype name: as written, and the other spelling ('<' or '|') of the 1-byte and record types
_DESCR = {descr: dtype for dtype, descr in NPY_DESCR.items()}
_DESCR.update({"|V2": "bfloat16", "<i1": "int8", "<u1": "uint8", "<b1": "bool"})
# how a dtype is held in memory here (bfloat16: its bit patterns)
HOLD = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": np.uint16,
        "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8,
        "bool": np.bool_}


class ProtocolError(Exception):
    """A request that does not follow protocol 1 (answered as an error)."""


class Rejected(Exception):
    """The framework refused the case, e.g. an out-of-range index (code 'index')."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Unsupported(Exception):
    """Discovered at run time: the framework has no kernel for this case. declared: the backend's
    own check said so (a user's kernel raising NotImplementedError), so it is no broken promise of
    its capabilities."""

    def __init__(self, reason, declared=False):
        super().__init__(reason)
        self.declared = declared


class Failed(Exception):
    """The backend failed, and the message says all of it (the exception's name adds nothing)."""


class Tensor:
    """An array with its spec dtype name; bfloat16 arrays hold uint16 bit patterns."""

    __slots__ = ("dtype", "array")

    def __init__(self, dtype, array):
        self.dtype = dtype
        self.array = array

    @property
    def shape(self):
        return tuple(self.array.shape)


# ---------------------------------------------------------------------------------------------
# .npy
# ---------------------------------------------------------------------------------------------

def read_npy(path):
    """Reads a .npy (format 1.0-3.0, little-endian, C order) into a Tensor."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if len(magic) != 8 or magic[:6] != b"\x93NUMPY":
            raise ProtocolError(f"{path}: not a .npy file")
        major = magic[6]
        if major == 1:
            (hlen,) = struct.unpack("<H", f.read(2))
        elif major in (2, 3):
            (hlen,) = struct.unpack("<I", f.read(4))
        else:
            raise ProtocolError(f"{path}: unsupported .npy version {major}.{magic[7]}")
        header = f.read(hlen).decode("latin1" if major < 3 else "utf-8")
        try:
            h = ast.literal_eval(header)
            descr, fortran, shape = h["descr"], h["fortran_order"], tuple(int(d) for d in h["shape"])
        except Exception as e:
            raise ProtocolError(f"{path}: malformed .npy header {header.strip()!r}: {e}")
        if not isinstance(descr, str) or descr not in _DESCR:
            raise ProtocolError(f"{path}: unsupported dtype {descr!r}")
        if fortran:
            raise ProtocolError(f"{path}: Fortran order is not supported")
        dtype = _DESCR[descr]
        hold = np.dtype(HOLD[dtype]).newbyteorder("<") if dtype != "bool" else np.dtype(np.bool_)
        count = 1
        for d in shape:
            if d < 0:
                raise ProtocolError(f"{path}: negative dimension in shape {shape}")
            count *= d
        # Read straight into the array: a large case's inputs are GBs, and read() then copy()
        # moved each byte twice more.
        arr = np.empty(count, dtype=hold)
        need = count * hold.itemsize
        got = f.readinto(memoryview(arr.view(np.uint8))) if need else 0
        if got < need:
            raise ProtocolError(f"{path}: {got} bytes of data, {need} needed for shape {shape} {dtype}")
        arr = arr.reshape(shape)
    if dtype == "bool" and arr.size and arr.view(np.uint8).max() > 1:
        raise ProtocolError(f"{path}: bool values other than 0 and 1")
    return Tensor(dtype, arr.astype(HOLD[dtype], copy=False))


def write_npy(path, tensor):
    """Writes a Tensor as .npy version 1.0 (bfloat16 as '<V2')."""
    arr = np.ascontiguousarray(tensor.array, dtype=HOLD[tensor.dtype])
    shape = tuple(arr.shape)
    shape_txt = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (NPY_DESCR[tensor.dtype], shape_txt)
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    if len(header) > 0xFFFF:
        raise ProtocolError("output .npy header too long for version 1.0")
    if arr.dtype.itemsize > 1:
        arr = np.ascontiguousarray(arr.astype(arr.dtype.newbyteorder("<"), copy=False))
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(memoryview(arr.reshape(-1).view(np.uint8)))  # no copy of a GB output into bytes
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# bfloat16 without ml_dtypes
# ---------------------------------------------------------------------------------------------

def bf16_to_f32(bits):
    """uint16 bit patterns -> float32 values (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """float32 -> uint16 bit patterns, rounded to nearest even; NaN stays a (quiet) NaN."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        r = np.where(nan, ((x.view(np.uint32) >> 16).astype(np.uint16) | np.uint16(0x0040)), r)
    return r.astype(np.uint16)


def f64_to_bf16(x):
    """float64 -> bfloat16 bits, one correct rounding (via float32: 24 >= 2*8+2 bits, innocuous)."""
    return f32_to_bf16(np.asarray(x, dtype=np.float64).astype(np.float32))


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------

class Case:
    """One run request, validated: op, reduction, axis (normalized), use_init_val, mode (tensor_scatter),
    and the tensors."""

    def __init__(self, name, op, reduction, axis, use_init_val, data, indices, updates, mode="linear"):
        self.name, self.op, self.reduction = name, op, reduction
        self.axis, self.use_init_val, self.mode = axis, use_init_val, mode
        self.data, self.indices, self.updates = data, indices, updates

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def index_dtype(self):
        return self.indices.dtype

    @property
    def k(self):
        return self.indices.shape[-1] if self.op == "scatter_nd" else None


def _field(obj, key, types, where, default=None, required=True):
    if key not in obj:
        if required:
            raise ProtocolError(f"{where}: missing '{key}'")
        return default
    v = obj[key]
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,))):
        raise ProtocolError(f"{where}: '{key}' has the wrong type ({type(v).__name__})")
    return v


def run_key(req):
    """What a kept case must match for a 'run' request with same_inputs: its attributes, its
    flags and its three input files (the out file is new each request)."""
    return repr((req.get("case"), req.get("flags"), req.get("data"), req.get("indices"), req.get("updates")))


def parse_out(req):
    """A 'run' request's out path."""
    return _field(req, "out", str, "run")


def _bits_view(tensor):
    """The tensor's elements as unsigned integers of their width, a flat view of its array."""
    arr = tensor.array
    return arr.reshape(-1).view(np.dtype(f"<u{arr.dtype.itemsize}"))


def apply_variation(case, vary):
    """Sets the elements a request's 'vary' names ({"data": {"at": [...], "bits": [...]},
    "updates": ..., "indices": ...}: flat positions and new bit patterns) in the case's tensors, in
    place (an index's new bits are another index element's: two targets swapped).
    -> the undo: what undo_variation needs to put the case's own values back."""
    if not isinstance(vary, dict):
        raise ProtocolError("run: 'vary' must be an object")
    undo = []
    for name in ("data", "updates", "indices"):
        delta = vary.get(name, {})
        at, bits = (delta.get("at", []), delta.get("bits", [])) if isinstance(delta, dict) else (None, None)
        if not isinstance(at, list) or not isinstance(bits, list) or len(at) != len(bits):
            raise ProtocolError(f"run: vary.{name} must hold 'at' and 'bits', lists of one length")
        if not at:
            continue
        flat = _bits_view(getattr(case, name))
        width = 8 * flat.dtype.itemsize
        if not all(isinstance(i, int) and 0 <= i < flat.size for i in at):
            raise ProtocolError(f"run: vary.{name}.at holds a position outside the tensor's {flat.size} elements")
        if not all(isinstance(b, int) and 0 <= b < (1 << width) for b in bits):
            raise ProtocolError(f"run: vary.{name}.bits holds a value that is not a {width}-bit pattern")
        # Element by element, with Python ints: a few dozen stores, and no NumPy array allocated,
        # whose malloc'd blocks kept alive between calls measurably slowed the kernels' own large
        # allocations (a fragmented heap: page faults every call).
        for i, b in zip(at, bits):
            undo.append((flat, i, int(flat[i])))
            flat[i] = b
    return undo


def undo_variation(undo):
    """Puts back what apply_variation changed (in reverse: a position set twice gets its own value)."""
    for flat, i, old in reversed(undo or []):
        flat[i] = old


def parse_run(req):
    """A 'run' request -> (Case, out_path, flags). Raises ProtocolError on a bad request."""
    c = _field(req, "case", dict, "run")
    op = _field(c, "op", str, "case")
    if op not in OPS:
        raise ProtocolError(f"case: unknown op {op!r}")
    red = _field(c, "reduction", str, "case", "none", required=False)
    if red not in OPS[op].reductions:
        raise ProtocolError(f"case: reduction {red!r} is not defined for {op}")
    axis = _field(c, "axis", int, "case", 0, required=False)
    init = _field(c, "use_init_val", bool, "case", True, required=False)
    mode = _field(c, "mode", str, "case", "linear", required=False)
    if mode not in WRITE_MODES:
        raise ProtocolError(f"case: mode {mode!r} is not one of {', '.join(WRITE_MODES)}")
    name = _field(c, "name", str, "case", "", required=False)
    paths = {}
    for key in ("data", "indices", "updates"):
        paths[key] = _field(req, key, str, "run")
    paths["out"] = parse_out(req)
    flags = _field(req, "flags", dict, "run", {}, required=False)
    data, indices, updates = (read_npy(paths[k]) for k in ("data", "indices", "updates"))
    if indices.dtype not in INDEX_DTYPES:
        raise ProtocolError(f"run: indices must be int32 or int64 (got {indices.dtype})")
    if updates.dtype != data.dtype:
        raise ProtocolError(f"run: updates are {updates.dtype} but data is {data.dtype}")
    if data.dtype not in REDUCTIONS[red].dtypes:
        raise ProtocolError(f"run: {red} is not defined for {data.dtype}")
    r = len(data.shape)
    if r == 0:
        raise ProtocolError("run: data must have rank >= 1")
    if op == "scatter_nd":
        axis = 0
        ish = indices.shape
        if len(ish) < 1 or ish[-1] > r:
            raise ProtocolError(f"run: scatter_nd indices shape {ish} does not fit data rank {r}")
        want = tuple(ish[:-1]) + tuple(data.shape[ish[-1]:])
        if updates.shape != want:
            raise ProtocolError(f"run: updates shape {updates.shape}, expected {want}")
    else:
        if not -r <= axis < r:
            raise ProtocolError(f"run: axis {axis} out of range for rank {r}")
        axis %= r
        if op == "tensor_scatter":
            fits = len(updates.shape) == r and all(u == d or (j == axis and u <= d)
                                                   for j, (u, d) in enumerate(zip(updates.shape, data.shape)))
            if axis == 0 or not fits or indices.shape != (data.shape[0],):
                raise ProtocolError(f"run: tensor_scatter needs axis >= 1 (got {axis}), updates of data's shape "
                                    f"but a shorter axis (got {updates.shape} for {data.shape}) and one write "
                                    f"index per batch row (got {indices.shape})")
        elif op == "scatter_elements":
            if len(indices.shape) != r or updates.shape != indices.shape:
                raise ProtocolError(f"run: scatter_elements needs indices and updates of one shape and rank {r}"
                                    f" (got {indices.shape} and {updates.shape})")
            for j, (a, b) in enumerate(zip(indices.shape, data.shape)):
                if j != axis and a > b:
                    raise ProtocolError(f"run: indices dimension {j} ({a}) exceeds data's ({b})")
        else:
            want = tuple(data.shape[:axis]) + tuple(indices.shape) + tuple(data.shape[axis + 1:])
            if updates.shape != want:
                raise ProtocolError(f"run: updates shape {updates.shape}, expected {want}")
    case = Case(name, op, red, axis, init, data, indices, updates, mode)
    return case, paths["out"], flags


def check_output(case, out):
    """The adapter's output must be a Tensor of the data's dtype and shape."""
    if not isinstance(out, Tensor):
        raise ProtocolError(f"internal: the adapter returned {type(out).__name__}, not a Tensor")
    if out.dtype != case.dtype:
        raise ProtocolError(f"internal: output dtype {out.dtype}, data is {case.dtype}")
    if out.shape != case.data.shape:
        raise ProtocolError(f"internal: output shape {out.shape}, data is {case.data.shape}")
    want = np.dtype(HOLD[case.dtype])
    if out.array.dtype != want:
        out.array = out.array.astype(want)
    return out


# ---------------------------------------------------------------------------------------------
# Index bounds (used by adapters whose framework does not check, and by numpy)
# ---------------------------------------------------------------------------------------------

def first_out_of_range(case, allow_negative=True):
    """None when every index is in range, else a message naming the first bad index."""
    idx = case.indices.array.astype(np.int64, copy=False)
    shape = case.data.shape
    if idx.size == 0:
        return None
    if case.op == "tensor_scatter":  # write positions: never negative; linear, the sequence must fit
        last = shape[case.axis] - case.updates.shape[case.axis] if case.mode == "linear" else None
        for b, w in enumerate(idx.tolist()):
            if w < 0 or (last is not None and w > last):
                return (f"indices[{b}] = {w} is out of range [0, {'...' if last is None else last}] for "
                        f"{case.mode} writes of {case.updates.shape[case.axis]} into data.shape[{case.axis}] = "
                        f"{shape[case.axis]}")
        return None
    if case.op == "scatter_nd":
        k = idx.shape[-1]
        if k == 0:
            return None
        lim = np.array(shape[:k], dtype=np.int64)
        lo = -lim if allow_negative else np.zeros_like(lim)
        bad = (idx < lo) | (idx >= lim)
        if not bad.any():
            return None
        pos = tuple(int(x) for x in np.argwhere(bad)[0])
        j = pos[-1]
        return (f"indices[{','.join(map(str, pos))}] = {int(idx[pos])} is out of range "
                f"[{int(lo[j])}, {int(lim[j]) - 1}] for data.shape[{j}] = {int(lim[j])}")
    s = shape[case.axis]
    lo = -s if (allow_negative and case.op == "scatter_elements") else 0
    bad = (idx < lo) | (idx >= s)
    if not bad.any():
        return None
    pos = tuple(int(x) for x in np.argwhere(bad)[0])
    return (f"indices[{','.join(map(str, pos))}] = {int(idx[pos])} is out of range [{lo}, {s - 1}] "
            f"for data.shape[{case.axis}] = {s}")


def contiguous(a):
    """a in C order with its shape kept: np.ascontiguousarray returns at least 1-d, which turns a 0-d
    `updates` (scatter_nd with k = rank, scatter_update with scalar indices) into shape [1]."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else np.array(a, order="C")


def update_as_nd(case):
    """(data, indices, updates, undo) as held arrays (bfloat16: uint16 bits) in the layout of a
    scatter_nd lowering: for scatter_update the axis moved to the front and indices given a last
    dimension of 1; undo moves the output back. Other ops pass through."""
    d, i, u = case.data.array, case.indices.array, case.updates.array
    if case.op != "scatter_update":
        return d, i, u, (lambda y: y)
    ax = case.axis
    ir = i.ndim
    d_t = contiguous(np.moveaxis(d, ax, 0))
    u_t = contiguous(np.moveaxis(u, list(range(ax, ax + ir)), list(range(ir))))
    i_t = contiguous(i.reshape(i.shape + (1,)))
    return d_t, i_t, u_t, (lambda y: contiguous(np.moveaxis(y, 0, ax)))

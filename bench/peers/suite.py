"""The built-in bench suite of `scatterctl bench`, mirrored from lib/src/bench/suite.cpp
(same names, groups, ops, reductions, axes, dtypes, shapes, duplicate patterns, in place
or not), its inputs drawn with numpy, the flat target of every update and PERF.md's
byte model computed as lib/src/bench/measure.cpp does.

Inputs come from the same distributions as the suite's generators (uniform [-1, 1) for
floats, [-100, 100) for int32, indices random or unique as declared) but not from the
same generator, so they are not bit-identical to scatterctl's; `--ref-json` checks that
the names and the byte counts match a scatterctl report, which is also the check that
this table still mirrors suite.cpp.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math

import numpy as np

@dataclasses.dataclass
class TensorSpec:
    dtype: str  # float32, float16, bfloat16, int32, int64
    shape: tuple
    kind: str  # uniform, zeros, indices
    seed: int = 0
    unique: bool = False


@dataclasses.dataclass
class Item:
    name: str
    group: str
    op: str  # scatter_nd, scatter_elements, scatter_update
    reduction: str  # none, add, mul, min, max, mean
    axis: int
    data: TensorSpec
    indices: TensorSpec
    updates: TensorSpec
    in_place: bool = False
    deterministic: bool = False


def _uniform(dtype, shape, seed):
    return TensorSpec(dtype, tuple(int(s) for s in shape), "uniform", seed)


def _indices(dtype, shape, unique, seed):
    return TensorSpec(dtype, tuple(int(s) for s in shape), "indices", seed, unique)


def _zeros(dtype, shape):
    return TensorSpec(dtype, tuple(int(s) for s in shape), "zeros")


SHORT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "int32": "i32"}


def base_elements(size: str) -> int:
    return {"small": 1 << 20, "medium": 1 << 24, "large": 1 << 28}[size]


def doc_batch(size: str) -> int:
    return {"small": 8, "medium": 100, "large": 1000}[size]


class _Builder:
    def __init__(self):
        self.items: list[Item] = []

    def add(self, name, group, op, reduction, axis, data, idx, upd) -> Item:
        self.items.append(Item(name, group, op, reduction, axis, data, idx, upd))
        return self.items[-1]

    def both_ways(self):
        last = self.items[-1]
        self.items.append(dataclasses.replace(last, name=last.name + "/in_place", in_place=True))


def _nd_suite(b: _Builder, size: str):
    n = base_elements(size)
    f32, i64 = "float32", "int64"
    b.add("nd/launch/f32", "launch", "scatter_nd", "none", 0, _uniform(f32, [64], 1), _indices(i64, [4, 1], True, 2),
          _uniform(f32, [4], 3))
    batch = doc_batch(size)
    b.add("nd/doc_60B_slices/f32", "doc", "scatter_nd", "none", 0, _uniform(f32, [batch, 256, 10, 15], 1),
          _indices(i64, [batch * 250, 3], True, 2), _uniform(f32, [batch * 250, 15], 3))
    b.add("nd/element/unique/f32", "element", "scatter_nd", "none", 0, _uniform(f32, [n], 1),
          _indices(i64, [n // 4, 1], True, 2), _uniform(f32, [n // 4], 3))
    b.both_ways()
    b.add("nd/element/unique/f32/i32_indices", "index_type", "scatter_nd", "none", 0, _uniform(f32, [n], 1),
          _indices("int32", [n // 4, 1], True, 2), _uniform(f32, [n // 4], 3))
    b.add("nd/element/duplicates/f32", "element", "scatter_nd", "none", 0, _uniform(f32, [n], 1),
          _indices(i64, [n, 1], False, 2), _uniform(f32, [n], 3))
    for row_bytes in (16, 256, 4096):
        width = row_bytes // 4
        rows = n // width
        b.add(f"nd/slice_{row_bytes}B/unique/f32", "slice", "scatter_nd", "none", 0, _uniform(f32, [rows, width], 1),
              _indices(i64, [rows // 2, 1], True, 2), _uniform(f32, [rows // 2, width], 3))
        if row_bytes == 256:
            b.both_ways()
    b.add("nd/contention/one_element/add/f32", "contention", "scatter_nd", "add", 0, _zeros(f32, [1024]),
          _zeros(i64, [n // 4, 1]), _uniform(f32, [n // 4], 3))
    b.add("nd/contention/100_bins/add/f32", "contention", "scatter_nd", "add", 0, _zeros(f32, [100]),
          _indices(i64, [n // 4, 1], False, 2), _uniform(f32, [n // 4], 3))
    for r in ("add", "mul", "min", "max"):
        for d in ("float32", "float16", "bfloat16", "int32"):
            b.add(f"nd/reduce/{r}/{SHORT[d]}", "reduction", "scatter_nd", r, 0, _uniform(d, [n], 1),
                  _indices(i64, [n // 4, 1], False, 2), _uniform(d, [n // 4], 3))
    b.add("nd/reduce/add/f32/deterministic", "reduction", "scatter_nd", "add", 0, _uniform(f32, [n], 1),
          _indices(i64, [n // 4, 1], False, 2), _uniform(f32, [n // 4], 3)).deterministic = True


def _elements_suite(b: _Builder, size: str):
    n = base_elements(size)
    f32, i64 = "float32", "int64"
    cols = 1024
    rows = n // cols
    b.add("elements/launch/f32", "launch", "scatter_elements", "none", 0, _uniform(f32, [64], 1),
          _indices(i64, [4], True, 2), _uniform(f32, [4], 3))
    batch = doc_batch(size)
    eighth = max(batch // 8, 1)
    b.add("elements/doc_example6/f32", "doc", "scatter_elements", "none", 0, _uniform(f32, [batch, 256, 7, 7], 1),
          _indices(i64, [eighth, 20, 7, 6], False, 2), _uniform(f32, [eighth, 20, 7, 6], 3))
    b.add("elements/unique/f32", "element", "scatter_elements", "none", 1, _uniform(f32, [rows, cols], 1),
          _indices(i64, [rows, cols // 4], True, 2), _uniform(f32, [rows, cols // 4], 3))
    b.both_ways()
    b.add("elements/unique/f32/i32_indices", "index_type", "scatter_elements", "none", 1,
          _uniform(f32, [rows, cols], 1), _indices("int32", [rows, cols // 4], True, 2),
          _uniform(f32, [rows, cols // 4], 3))
    b.add("elements/duplicates/f32", "element", "scatter_elements", "none", 1, _uniform(f32, [rows, cols], 1),
          _indices(i64, [rows, cols], False, 2), _uniform(f32, [rows, cols], 3))
    b.add("elements/contention/one_element/add/f32", "contention", "scatter_elements", "add", 0, _zeros(f32, [1]),
          _zeros(i64, [n // 4]), _uniform(f32, [n // 4], 3))
    b.add("elements/contention/100_bins/add/f32", "contention", "scatter_elements", "add", 0, _zeros(f32, [100]),
          _indices(i64, [n // 4], False, 2), _uniform(f32, [n // 4], 3))
    for r in ("add", "mul", "min", "max", "mean"):
        for d in ("float32", "float16", "bfloat16", "int32"):
            b.add(f"elements/reduce/{r}/{SHORT[d]}", "reduction", "scatter_elements", r, 1,
                  _uniform(d, [rows, cols], 1), _indices(i64, [rows, cols // 4], False, 2),
                  _uniform(d, [rows, cols // 4], 3))


def _update_suite(b: _Builder, size: str):
    n = base_elements(size)
    f32, i64 = "float32", "int64"
    b.add("update/launch/f32", "launch", "scatter_update", "none", 0, _uniform(f32, [16, 4], 1),
          _indices(i64, [2], True, 2), _uniform(f32, [2, 4], 3))
    batch = {"small": 2, "medium": 40, "large": 1000}[size]
    b.add("update/doc_example1/f32", "doc", "scatter_update", "none", 1, _uniform(f32, [batch, 256, 10, 15], 1),
          _indices(i64, [125, 20], False, 2), _uniform(f32, [batch, 125, 20, 10, 15], 3))
    for row_bytes in (16, 256, 4096):
        width = row_bytes // 4
        rows = n // width
        b.add(f"update/rows_{row_bytes}B/unique/f32", "slice", "scatter_update", "none", 0,
              _uniform(f32, [rows, width], 1), _indices(i64, [rows // 2], True, 2),
              _uniform(f32, [rows // 2, width], 3))
        if row_bytes == 256:
            b.both_ways()
    b.add("update/rows_256B/unique/f32/i32_indices", "index_type", "scatter_update", "none", 0,
          _uniform(f32, [n // 64, 64], 1), _indices("int32", [n // 128], True, 2), _uniform(f32, [n // 128, 64], 3))


def suite(mode: str, size: str) -> list[Item]:
    """The built-in suite of `scatterctl bench --mode MODE --size SIZE`, in its order."""
    if mode not in ("nd", "elements", "update", "all"):
        raise ValueError(f"mode must be nd, elements, update or all, not {mode!r}")
    if size not in ("small", "medium", "large"):
        raise ValueError(f"size must be small, medium or large, not {size!r}")
    b = _Builder()
    if mode in ("nd", "all"):
        _nd_suite(b, size)
    if mode in ("elements", "all"):
        _elements_suite(b, size)
    if mode in ("update", "all"):
        _update_suite(b, size)
    return b.items


def select(items: list[Item], filters: list[str]) -> list[Item]:
    """--filter GLOB (repeatable; a leading '-' excludes), as scatterctl's."""
    include = [f for f in filters if not f.startswith("-")]
    exclude = [f[1:] for f in filters if f.startswith("-")]
    out = []
    for it in items:
        if include and not any(fnmatch.fnmatchcase(it.name, g) for g in include):
            continue
        if any(fnmatch.fnmatchcase(it.name, g) for g in exclude):
            continue
        out.append(it)
    return out


def numel(shape) -> int:
    return int(math.prod(shape)) if shape else 1


def item_host_bytes(it: Item) -> int:
    return sum(numel(t.shape) * ELEMENT_BYTES[t.dtype] for t in (it.data, it.indices, it.updates))


ELEMENT_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4}

# Inputs: numpy arrays. bfloat16 is held as float32 values that are exact in bfloat16
# (numpy has no bfloat16); each peer converts.


def round_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 -> the nearest bfloat16 (ties to even), still as float32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (rounded & np.uint32(0xFFFF0000)).view(np.float32)


def _make_tensor(spec: TensorSpec, it: Item, rng_base: int) -> np.ndarray:
    rng = np.random.default_rng(rng_base * 1000 + spec.seed)
    shape = spec.shape
    if spec.kind == "zeros":
        dt = np.float32 if spec.dtype == "bfloat16" else np.dtype(spec.dtype)
        return np.zeros(shape, dtype=dt)
    if spec.kind == "uniform":
        if spec.dtype == "int32":
            return rng.integers(-100, 100, size=shape, dtype=np.int32)
        x = rng.uniform(-1.0, 1.0, size=shape)
        if spec.dtype == "bfloat16":
            return round_to_bfloat16(x.astype(np.float32))
        return x.astype(spec.dtype)
    assert spec.kind == "indices"
    return _make_indices(spec, it, rng)


def _make_indices(spec: TensorSpec, it: Item, rng) -> np.ndarray:
    shape = spec.shape
    dshape = it.data.shape
    dt = np.dtype(spec.dtype)
    if it.op == "scatter_nd":
        k = shape[-1]
        tuples = numel(shape[:-1])
        prefix = dshape[:k]
        if spec.unique:
            flat = rng.choice(numel(prefix), size=tuples, replace=False)
            coords = np.stack(np.unravel_index(flat, prefix), axis=-1)
        else:
            coords = np.stack([rng.integers(0, prefix[j], size=tuples) for j in range(k)], axis=-1)
        return coords.reshape(shape).astype(dt)
    extent = dshape[it.axis]
    if not spec.unique:
        return rng.integers(0, extent, size=shape).astype(dt)
    if it.op == "scatter_update":
        return rng.choice(extent, size=numel(shape), replace=False).reshape(shape).astype(dt)
    # scatter_elements, unique: distinct values along the axis on every line.
    ax = it.axis
    m = shape[ax]
    moved = list(shape[:ax]) + list(shape[ax + 1:])
    lines = numel(moved)
    keys = rng.random((lines, extent))
    drawn = np.argpartition(keys, m - 1, axis=1)[:, :m] if m < extent else np.argsort(keys, axis=1)
    drawn = drawn.reshape(tuple(moved) + (m,))
    return np.moveaxis(drawn, -1, ax).astype(dt)


@dataclasses.dataclass
class Inputs:
    data: np.ndarray
    indices: np.ndarray
    updates: np.ndarray


def make_inputs(it: Item, seed: int = 0) -> Inputs:
    return Inputs(_make_tensor(it.data, it, seed), _make_tensor(it.indices, it, seed), _make_tensor(it.updates, it, seed))


# Byte model (PERF.md; lib/src/bench/measure.cpp byte_model)


def elements_coords(idx: np.ndarray, axis: int) -> tuple:
    """The index tuple (broadcastable, nothing materialized) of ScatterElements."""
    r = idx.ndim
    coords = []
    for d in range(r):
        if d == axis:
            coords.append(idx)
        else:
            shp = [1] * r
            shp[d] = idx.shape[d]
            coords.append(np.arange(idx.shape[d]).reshape(shp))
    return tuple(coords)


def flat_targets(it: Item, inp: Inputs) -> np.ndarray:
    """The flat output offset of every update element, in the updates' row-major order
    (the order in which the reference applies them)."""
    dshape = inp.data.shape
    idx = inp.indices.astype(np.int64)
    if it.op == "scatter_nd":
        k = idx.shape[-1]
        prefix = dshape[:k]
        slice_len = numel(dshape[k:])
        rows = np.ravel_multi_index(tuple(np.moveaxis(idx.reshape(-1, k), -1, 0)), prefix) if k else np.zeros(1, np.int64)
        return (rows[:, None] * slice_len + np.arange(slice_len)[None, :]).reshape(-1)
    if it.op == "scatter_elements":
        idx = np.where(idx < 0, idx + dshape[it.axis], idx)
        coords = np.broadcast_arrays(*elements_coords(idx, it.axis))
        return np.ravel_multi_index(tuple(coords), dshape).reshape(-1)
    outer = numel(dshape[:it.axis])
    extent = dshape[it.axis]
    inner = numel(dshape[it.axis + 1:])
    sel = np.where(idx < 0, idx + extent, idx).reshape(-1)
    off = (np.arange(outer)[:, None, None] * extent + sel[None, :, None]) * inner + np.arange(inner)[None, None, :]
    return off.reshape(-1)


def byte_model(it: Item, inp: Inputs) -> dict:
    e = ELEMENT_BYTES[it.data.dtype]
    n = inp.data.size
    hit = np.zeros(n, dtype=bool)
    hit[flat_targets(it, inp)] = True
    distinct = int(hit.sum())
    per_sector = 32 // e
    padded = np.zeros(-(-n // per_sector) * per_sector, dtype=bool)
    padded[:n] = hit
    sectors = int(padded.reshape(-1, per_sector).any(axis=1).sum())
    rmw = it.reduction != "none"
    m = {
        "indices": inp.indices.size * ELEMENT_BYTES[it.indices.dtype],
        "updates": inp.updates.size * e if rmw else distinct * e,
        "writes": sectors * 32 * (2 if rmw else 1),
        "copy": 0 if it.in_place else 2 * n * e,
        "distinct": distinct,
    }
    m["total"] = m["indices"] + m["updates"] + m["writes"] + m["copy"]
    return m

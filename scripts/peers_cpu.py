#!/usr/bin/env python3
"""Peers on the CPU: the built-in bench suite of `scatterctl bench`, timed on numpy,
PyTorch (CPU) and ONNX Runtime (CPU), written in the same Google-Benchmark-style JSON
as `scatterctl bench --json`, so `scatterctl compare` and scripts/plot_bench.py read it.

    scripts/peers_cpu.py --mode all --size small --json peers.json [--ref-json ref.json]
    scripts/peers_cpu.py --list                  # the suite, no timing
    scripts/peers_cpu.py --check --scatterctl build/app/scatterctl   # peers vs the oracle

The suite is a table that mirrors lib/src/bench/suite.cpp (same names, shapes, dtypes,
reductions, axes, in place or not); benchmark names carry the peer as the backend
suffix: "nd/slice_256B/unique/f32@numpy", "@torch", "@onnxruntime". Inputs are drawn
with numpy from the same distributions as the suite's generators (uniform [-1, 1) for
floats, [-100, 100) for int32; indices random or unique as declared), so they are not
bit-identical to scatterctl's; the byte model (PERF.md) is computed here on these inputs
in the same way as lib/src/bench/measure.cpp, and checked against --ref-json's bytes
when given (also a check that this table still mirrors suite.cpp).

Timing is the method of `scatterctl bench`: one warm-up, then samples until the
interquartile range over the median is under 0.5% or --max-seconds is spent (5 samples
at least, 500 at most); "cold" writes a 256 MB buffer before each sample, outside the
timed region. Out of place, the copy of data into the output is timed (as the ref
does); in place, the output is refreshed from data and the caches flushed before the
timed op. The copy bandwidth (the 100% line) is a numpy copy of 256 MB, read + write
counted, best of 5. context.device is the string scatterctl's ref backend reports, so
reports from one machine compare without --allow-device-mismatch.

--check materializes each suite item with `scatterctl dump` (bit-identical inputs and
the reference's output) and compares every peer's output with the reference.

Missing packages are reported and skipped; numpy is required.

This module is also the library of scripts/peers_gpu.py (suite table, inputs, byte
model, timing loop, report writer); it imports no optional package at import time.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import fnmatch
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Callable, Optional

import numpy as np

SCHEMA_VERSION = 1
FLUSH_BYTES = 256 << 20

# --------------------------------------------------------------------------------------
# The suite: a mirror of lib/src/bench/suite.cpp. Keep names and shapes identical.
# --------------------------------------------------------------------------------------


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

# --------------------------------------------------------------------------------------
# Inputs: numpy arrays. bfloat16 is held as float32 values that are exact in bfloat16
# (numpy has no bfloat16); each peer converts.
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Byte model (PERF.md; lib/src/bench/measure.cpp byte_model)
# --------------------------------------------------------------------------------------


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


def hit_mask(it: Item, inp: Inputs) -> np.ndarray:
    data_shape = inp.data.shape
    n = inp.data.size
    hit = np.zeros(n, dtype=bool)
    idx = inp.indices.astype(np.int64)
    if it.op == "scatter_nd":
        k = idx.shape[-1]
        prefix = data_shape[:k]
        flat = np.ravel_multi_index(tuple(np.moveaxis(idx.reshape(-1, k), -1, 0)), prefix) if k else np.zeros(1, np.int64)
        hit.reshape(numel(prefix), -1)[flat] = True
    elif it.op == "scatter_elements":
        idx = np.where(idx < 0, idx + data_shape[it.axis], idx)
        hit.reshape(data_shape)[elements_coords(idx, it.axis)] = True
    else:
        outer = numel(data_shape[:it.axis])
        s = data_shape[it.axis]
        hit.reshape(outer, s, -1)[:, idx.reshape(-1), :] = True
    return hit


def byte_model(it: Item, inp: Inputs) -> dict:
    e = ELEMENT_BYTES[it.data.dtype]
    n = inp.data.size
    hit = hit_mask(it, inp)
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


# --------------------------------------------------------------------------------------
# Timing (lib/src/bench/measure.cpp measure)
# --------------------------------------------------------------------------------------


def quantile(v: list, q: float) -> float:
    s = sorted(v)
    pos = q * (len(s) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


@dataclasses.dataclass
class Timing:
    samples: list  # seconds
    median: float = 0.0
    spread: float = 0.0
    cv: float = 0.0


def stats(samples: list) -> Timing:
    t = Timing(list(samples))
    t.median = quantile(samples, 0.5)
    t.spread = (quantile(samples, 0.75) - quantile(samples, 0.25)) / t.median if t.median > 0 else 0.0
    mean = sum(samples) / len(samples)
    var = sum((s - mean) ** 2 for s in samples) / max(len(samples) - 1, 1)
    t.cv = math.sqrt(var) / mean if mean > 0 else 0.0
    return t


def measure(once: Callable[[], float], before: Optional[Callable[[], None]], max_seconds: float,
            target_spread: float = 0.005, min_samples: int = 5, max_samples: int = 500) -> Timing:
    """`once` returns the seconds of one sample; `before` runs outside the timed region."""
    if before:
        before()
    once()  # warm-up: first touch, lazy init, compilation
    samples = []
    start = time.perf_counter()
    while len(samples) < max_samples:
        if before:
            before()
        samples.append(once())
        if len(samples) >= min_samples:
            med = quantile(samples, 0.5)
            spread = (quantile(samples, 0.75) - quantile(samples, 0.25)) / med if med > 0 else 0.0
            if spread < target_spread or time.perf_counter() - start > max_seconds:
                break
    return stats(samples)


class HostFlush:
    """Writes a 256 MB buffer: evicts every CPU cache level."""

    def __init__(self):
        self.buffer = np.empty(FLUSH_BYTES, dtype=np.uint8)
        self.value = 0

    def __call__(self):
        self.value = (self.value + 1) & 0xFF
        self.buffer.fill(self.value)


def host_copy_bandwidth() -> float:
    """numpy copy of 256 MB, read + write counted, best of 5; bytes/s."""
    src = np.ones(FLUSH_BYTES, dtype=np.uint8)
    dst = np.full(FLUSH_BYTES, 2, dtype=np.uint8)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * FLUSH_BYTES / best


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


def ref_device_string() -> str:
    """What scatterctl's ref backend reports: '<model name> (<hardware threads> threads)'."""
    return f"{cpu_name()} ({os.cpu_count()} threads)"


# --------------------------------------------------------------------------------------
# Report: the JSON of `scatterctl bench --json` (lib/src/bench/report.cpp bench_json)
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Row:
    name: str
    group: str
    backend: str
    in_place: bool
    cold: bool
    timing: Optional[Timing]
    bytes: Optional[dict]
    copy_bandwidth: float
    threads: int = 1
    api: str = ""  # the call timed, e.g. "index_put_(accumulate=True)"
    error: str = ""
    skipped: str = ""


def row_json(r: Row) -> dict:
    t = r.timing if r.timing else Timing([], 0.0, 0.0, 0.0)
    total = r.bytes["total"] if r.bytes else 0
    gbps = total / t.median / 1e9 if t.median > 0 else 0.0
    b = {
        "name": f"{r.name}@{r.backend}",
        "run_name": f"{r.name}@{r.backend}",
        "run_type": "iteration",
        "repetitions": 1,
        "repetition_index": 0,
        "threads": r.threads,
        "iterations": len(t.samples),
        "real_time": t.median * 1e6,
        "cpu_time": t.median * 1e6,
        "time_unit": "us",
        "bytes_per_second": total / t.median if t.median > 0 else 0.0,
        "group": r.group,
        "backend": r.backend,
        "in_place": r.in_place,
        "cache": "cold" if r.cold else "hot",
        "bytes": total,
        "bytes_indices": r.bytes["indices"] if r.bytes else 0,
        "bytes_updates": r.bytes["updates"] if r.bytes else 0,
        "bytes_writes": r.bytes["writes"] if r.bytes else 0,
        "bytes_copy": r.bytes["copy"] if r.bytes else 0,
        "gb_per_s": gbps,
        "percent_of_copy": 100.0 * gbps * 1e9 / r.copy_bandwidth if r.copy_bandwidth > 0 else 0.0,
        "floor_us": total / r.copy_bandwidth * 1e6 if r.copy_bandwidth > 0 else 0.0,
        "spread": t.spread,
        "cv": t.cv,
        "samples_us": [s * 1e6 for s in t.samples],
    }
    if r.api:
        b["api"] = r.api
    if r.error or r.skipped:
        b["error_occurred"] = True
        b["error_message"] = r.error or f"skipped: {r.skipped}"
    return b


def report_json(context: dict, rows: list[Row]) -> str:
    doc = {"context": context, "benchmarks": [row_json(r) for r in rows]}
    return json.dumps(doc, indent=2) + "\n"


def base_context(executable: str, device: str, copy_bandwidth: float, mode: str, size: str) -> dict:
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host_name": socket.gethostname(),
        "executable": executable,
        "library_build_type": "release",
        "device": device,
        "copy_bandwidth_gbps": copy_bandwidth / 1e9,
        "scatterctl_version": "",
        "git_commit": git_commit(),
        "mode": mode,
        "size": size,
        "schema_version": SCHEMA_VERSION,
    }


def git_commit() -> str:
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def write_text(path: str, text: str):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def print_row(r: Row, file=sys.stdout):
    name = f"{r.name}@{r.backend}"
    if r.skipped:
        print(f"{name:<58} skipped: {r.skipped}", file=file, flush=True)
        return
    if r.error:
        print(f"{name:<58} error: {r.error}", file=file, flush=True)
        return
    j = row_json(r)
    noisy = f"  (noisy: cv {r.timing.cv * 100:.1f}%)" if r.timing.cv > 0.025 else ""
    print(f"{name:<58} {j['real_time']:>10.1f} us {r.timing.spread * 100:>7.2f}% {j['gb_per_s']:>8.2f} GB/s "
          f"{j['percent_of_copy']:>6.1f}% {len(r.timing.samples):>4}{noisy}", file=file, flush=True)


def check_ref_bytes(ref_json: Optional[dict], rows: list[Row], tolerance: float = 0.01) -> list[str]:
    """Names missing from the ref report and bytes that differ by more than `tolerance`."""
    if not ref_json:
        return []
    ref = {}
    for b in ref_json.get("benchmarks", []):
        base = b.get("name", "").rsplit("@", 1)[0]
        ref[base] = b.get("bytes", 0)
    problems = []
    for r in rows:
        if not r.bytes:
            continue
        if r.name not in ref:
            problems.append(f"{r.name}: not in the ref report (does this table still mirror suite.cpp?)")
            continue
        # Random indices hit slightly different sectors; tiny cases are all noise.
        if ref[r.name] > (1 << 16) and abs(r.bytes["total"] / ref[r.name] - 1) > tolerance:
            problems.append(f"{r.name}: bytes {r.bytes['total']} here, {ref[r.name]} in the ref report")
    return problems


class Skip(Exception):
    """A peer has no form of this benchmark (the reason is reported)."""


# --------------------------------------------------------------------------------------
# CPU peers. prepare() returns (run, api): run(out_of_place_fresh: bool) -> output.
# --------------------------------------------------------------------------------------

NP_UFUNC = {"add": "add", "mul": "multiply", "min": "minimum", "max": "maximum"}


class NumpyPeer:
    name = "numpy"

    def __init__(self, threads: Optional[int]):
        self.version = np.__version__
        self.threads = 1
        try:
            import ml_dtypes  # noqa: F401  (bfloat16 for numpy)
            self.bf16 = ml_dtypes.bfloat16
        except ImportError:
            self.bf16 = None

    def convert(self, it: Item, inp: Inputs):
        if it.data.dtype == "bfloat16":
            if self.bf16 is None:
                raise Skip("numpy has no bfloat16 (pip install ml_dtypes)")
            return inp.data.astype(self.bf16), inp.indices, inp.updates.astype(self.bf16)
        return inp.data, inp.indices, inp.updates

    def prepare(self, it: Item, inp: Inputs):
        data, idx, upd = self.convert(it, inp)
        red = it.reduction
        if it.op == "scatter_nd":
            if red == "none":
                api = "out[tuple(idx.T)] = upd"

                def op(out):
                    out[tuple(np.moveaxis(idx, -1, 0))] = upd
                    return out
            else:
                uf = getattr(np, NP_UFUNC[red])
                api = f"np.{NP_UFUNC[red]}.at(out, tuple(idx.T), upd)"

                def op(out):
                    uf.at(out, tuple(np.moveaxis(idx, -1, 0)), upd)
                    return out
        elif it.op == "scatter_elements":
            ax = it.axis
            if red == "none":
                api = "out[grid with idx on axis] = upd"

                def op(out):
                    out[elements_coords(idx, ax)] = upd
                    return out
            elif red == "mean":
                api = "np.add.at sum and count, then divide"
                integer = np.issubdtype(data.dtype, np.integer)

                def op(out):
                    coords = elements_coords(idx, ax)
                    count = np.ones(out.shape, dtype=np.int64)
                    np.add.at(count, coords, 1)
                    if integer:
                        total = out.astype(np.int64)
                        np.add.at(total, coords, upd)
                        np.floor_divide(total, count, out=total)
                        out[...] = total
                    else:
                        np.add.at(out, coords, upd)
                        out[...] = (out.astype(np.float64) / count).astype(out.dtype)
                    return out
            else:
                uf = getattr(np, NP_UFUNC[red])
                api = f"np.{NP_UFUNC[red]}.at(out, grid with idx on axis, upd)"

                def op(out):
                    uf.at(out, elements_coords(idx, ax), upd)
                    return out
        else:
            ax = it.axis
            api = "out[(:,)*axis + (idx,)] = upd"

            def op(out):
                out[(slice(None),) * ax + (idx,)] = upd
                return out

        if it.in_place:
            work = data.copy()

            def refresh():
                np.copyto(work, data)

            return (lambda: op(work)), refresh, api
        return (lambda: op(data.copy())), None, api

    def to_numpy(self, out):
        return np.asarray(out, dtype=np.float64) if out.dtype == self.bf16 else out


TORCH_REDUCE = {"add": "sum", "mul": "prod", "min": "amin", "max": "amax", "mean": "mean"}


class TorchPeer:
    """PyTorch on the CPU (scatter_, scatter_reduce_, index_put_, index_copy_)."""

    name = "torch"

    def __init__(self, threads: Optional[int]):
        import torch

        self.torch = torch
        self.version = torch.__version__
        if threads:
            torch.set_num_threads(threads)
        self.threads = torch.get_num_threads()
        self.device = "cpu"

    def tensor(self, a: np.ndarray, dtype: str):
        t = self.torch.from_numpy(np.ascontiguousarray(a))
        if dtype == "bfloat16":
            t = t.to(self.torch.bfloat16)
        return t.to(self.device)

    def sync(self):
        pass

    def prepare(self, it: Item, inp: Inputs):
        torch = self.torch
        data = self.tensor(inp.data, it.data.dtype)
        idx = self.tensor(inp.indices, it.indices.dtype)
        upd = self.tensor(inp.updates, it.updates.dtype)
        red = it.reduction
        ax = it.axis
        if it.op == "scatter_nd":
            k = idx.shape[-1]
            if red in ("none", "add"):
                acc = red == "add"
                api = f"index_put_(tuple(idx.unbind(-1)), upd, accumulate={acc})"

                def op(out):
                    return out.index_put_(tuple(idx.unbind(-1)), upd, accumulate=acc)
            else:
                if k != data.dim():
                    raise Skip(f"no {red} form of index_put_ for slices")
                strides = torch.tensor(data.stride(), dtype=torch.int64, device=data.device)
                reduce = TORCH_REDUCE[red]
                api = f"view(-1).scatter_reduce_(0, linear(idx), upd, '{reduce}')"

                def op(out):
                    lin = (idx.to(torch.int64) * strides).sum(-1).reshape(-1)
                    out.view(-1).scatter_reduce_(0, lin, upd.reshape(-1), reduce, include_self=True)
                    return out
        elif it.op == "scatter_elements":
            conv = idx.dtype != torch.int64  # scatter_ takes int64 indices only: the cast is timed
            if red == "none":
                api = "scatter_(axis, idx, upd)" + (" (idx cast to int64, timed)" if conv else "")

                def op(out):
                    return out.scatter_(ax, idx.to(torch.int64) if conv else idx, upd)
            else:
                reduce = TORCH_REDUCE[red]
                api = f"scatter_reduce_(axis, idx, upd, '{reduce}', include_self=True)"

                def op(out):
                    return out.scatter_reduce_(ax, idx.to(torch.int64) if conv else idx, upd, reduce,
                                               include_self=True)
        else:
            flat = idx.reshape(-1)
            shp = tuple(data.shape[:ax]) + (flat.numel(),) + tuple(data.shape[ax + 1:])
            u = upd.reshape(shp)
            conv = flat.dtype != torch.int64
            api = "index_copy_(axis, idx, upd)" + (" (idx cast to int64, timed)" if conv else "")

            def op(out):
                return out.index_copy_(ax, flat.to(torch.int64) if conv else flat, u)

        det = it.deterministic

        def guarded(fn):
            if not det:
                return fn

            def run():
                prev = torch.are_deterministic_algorithms_enabled()
                torch.use_deterministic_algorithms(True)
                try:
                    return fn()
                finally:
                    torch.use_deterministic_algorithms(prev)
            return run

        if it.in_place:
            work = data.clone()
            return guarded(lambda: op(work)), (lambda: work.copy_(data)), api + (" [deterministic]" if det else "")
        return guarded(lambda: op(data.clone())), None, api + (" [deterministic]" if det else "")

    def to_numpy(self, out):
        if out.dtype == self.torch.bfloat16:
            out = out.to(self.torch.float32)
        return out.cpu().numpy()


ORT_TYPES = {"float32": 1, "int32": 6, "int64": 7, "float16": 10, "bfloat16": 16}


class OnnxRuntimePeer:
    """ONNX Runtime (CPU): one-node ScatterND / ScatterElements models, opset 18."""

    name = "onnxruntime"

    def __init__(self, threads: Optional[int]):
        import onnx  # noqa: F401
        import onnxruntime as ort

        self.ort = ort
        self.version = ort.__version__
        self.threads_opt = threads
        so = ort.SessionOptions()
        if threads:
            so.intra_op_num_threads = threads
        self.options = so
        self.threads = threads or os.cpu_count() or 1

    def value(self, a: np.ndarray, dtype: str, keep: list):
        """An OrtValue over `a`'s memory; the array it wraps is appended to `keep`, which
        must outlive the OrtValue (OrtValue does not own numpy memory)."""
        if dtype == "bfloat16":
            a = (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
            keep.append(a)
            return self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(a, ORT_TYPES["bfloat16"])
        a = np.ascontiguousarray(a)
        keep.append(a)
        return self.ort.OrtValue.ortvalue_from_numpy(a)

    def prepare(self, it: Item, inp: Inputs):
        from onnx import TensorProto, helper

        if it.in_place:
            raise Skip("ONNX Runtime ops are out of place")
        if it.reduction == "mean":
            raise Skip("ONNX has no mean reduction")
        data, idx, upd = inp.data, inp.indices, inp.updates
        nodes = []
        if it.op == "scatter_nd":
            opname = "ScatterND"
            if it.indices.dtype != "int64":  # ScatterND takes int64 only: a Cast node, timed
                nodes.append(helper.make_node("Cast", ["indices"], ["indices64"], to=TensorProto.INT64))
            api = "ScatterND" + (" (Cast of int32 indices, timed)" if nodes else "")
            attrs = {}
        elif it.op == "scatter_elements":
            opname = "ScatterElements"
            api = "ScatterElements"
            attrs = {"axis": it.axis}
        else:
            if it.axis != 0:
                raise Skip("ScatterUpdate along axis > 0 is no single ONNX op")
            opname = "ScatterND"
            idx = idx.reshape(-1, 1)
            upd = upd.reshape((idx.shape[0],) + data.shape[1:])
            if it.indices.dtype != "int64":
                nodes.append(helper.make_node("Cast", ["indices"], ["indices64"], to=TensorProto.INT64))
            api = "ScatterND with [M, 1] indices" + (" (Cast of int32 indices, timed)" if nodes else "")
            attrs = {}
        if it.reduction != "none":
            attrs["reduction"] = it.reduction
            api += f"(reduction='{it.reduction}')"
        ind_name = "indices64" if nodes else "indices"
        nodes.append(helper.make_node(opname, ["data", ind_name, "updates"], ["out"], **attrs))
        et = ORT_TYPES[it.data.dtype]
        graph = helper.make_graph(
            nodes, "scatter",
            [helper.make_tensor_value_info("data", et, list(data.shape)),
             helper.make_tensor_value_info("indices", ORT_TYPES[it.indices.dtype], list(idx.shape)),
             helper.make_tensor_value_info("updates", et, list(upd.shape))],
            [helper.make_tensor_value_info("out", et, list(data.shape))])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        model.ir_version = 8
        try:
            sess = self.ort.InferenceSession(model.SerializeToString(), sess_options=self.options,
                                             providers=["CPUExecutionProvider"])
            keep: list = []
            feeds = {"data": self.value(data, it.data.dtype, keep), "indices": self.value(idx, it.indices.dtype, keep),
                     "updates": self.value(upd, it.updates.dtype, keep)}
            sess.run_with_ort_values(["out"], feeds)  # rejects unsupported type/reduction pairs here
        except Exception as e:  # noqa: BLE001  (onnxruntime raises its own exception types)
            raise Skip(f"onnxruntime: {str(e).splitlines()[0][:160]}")
        self.dtype = it.data.dtype

        def run(keep=keep):  # keep: the arrays under the feeds stay alive with the closure
            return sess.run_with_ort_values(["out"], feeds)[0]

        return run, None, api

    def to_numpy(self, out):
        if self.dtype == "bfloat16":
            bits = np.asarray(out.numpy()).view(np.uint16).astype(np.uint32) << np.uint32(16)
            return bits.view(np.float32)
        return out.numpy()


CPU_PEERS = {"numpy": NumpyPeer, "torch": TorchPeer, "onnxruntime": OnnxRuntimePeer}


def make_peers(names: list[str], table: dict, threads: Optional[int]):
    peers, missing = [], []
    for n in names:
        try:
            peers.append(table[n](threads))
        except ImportError as e:
            missing.append(f"{n} ({e.name or e} is not installed)")
        except Exception as e:  # noqa: BLE001  (a broken install: report, go on)
            missing.append(f"{n} ({type(e).__name__}: {e})")
    return peers, missing


# --------------------------------------------------------------------------------------
# --check: peers against the reference's output on bit-identical inputs (scatterctl dump)
# --------------------------------------------------------------------------------------

OP_NAMES = {"scatter_nd": "scatter_nd", "scatter_elements": "scatter_elements", "scatter_update": "scatter_update"}


def case_json(it: Item) -> dict:
    def tensor(spec: TensorSpec) -> dict:
        if spec.kind == "zeros":
            gen = {"kind": "fill", "value": 0}
        elif spec.kind == "uniform":
            lo, hi = (-100, 100) if spec.dtype == "int32" else (-1, 1)
            gen = {"kind": "uniform", "low": lo, "high": hi, "seed": spec.seed}
        else:
            gen = {"kind": "indices", "unique": spec.unique, "seed": spec.seed}
        return {"dtype": spec.dtype, "shape": list(spec.shape), "generate": gen}

    case = {"name": "bench_item", "op": OP_NAMES[it.op], "reduction": it.reduction,
            "inputs": {"data": tensor(it.data), "indices": tensor(it.indices), "updates": tensor(it.updates)}}
    if it.op != "scatter_nd":
        case["axis"] = it.axis
    return {"format": 1, "cases": [case]}


def load_npy(path: str, dtype: str) -> np.ndarray:
    a = np.load(path)
    if dtype == "bfloat16":  # '<V2' records
        return (a.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(a.shape)
    return a


def run_check(items: list[Item], peers, scatterctl: str) -> int:
    """Each peer's output vs the reference on scatterctl's own inputs. Returns failures."""
    failures = 0
    tmp = tempfile.mkdtemp(prefix="peers_check_")
    try:
        for it in items:
            if it.in_place:
                continue  # same op as the out-of-place item
            case_path = os.path.join(tmp, "case.json")
            with open(case_path, "w") as f:
                json.dump(case_json(it), f)
            out_dir = os.path.join(tmp, "out")
            shutil.rmtree(out_dir, ignore_errors=True)
            p = subprocess.run([scatterctl, "dump", case_path, "--out", out_dir], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{it.name}: scatterctl dump failed: {p.stderr.strip()}")
                failures += 1
                continue
            d = os.path.join(out_dir, "bench_item")
            inp = Inputs(load_npy(os.path.join(d, "data.npy"), it.data.dtype),
                         load_npy(os.path.join(d, "indices.npy"), it.indices.dtype),
                         load_npy(os.path.join(d, "updates.npy"), it.updates.dtype))
            ref = load_npy(os.path.join(d, "reference.npy"), it.data.dtype).astype(np.float64)
            dup_none = it.reduction == "none" and not it.indices.unique
            for peer in peers:
                try:
                    run, before, _ = peer.prepare(it, inp)
                    if before:
                        before()
                    out = np.asarray(peer.to_numpy(run()), dtype=np.float64)
                except Skip as e:
                    print(f"{it.name}@{peer.name}: skipped: {e}")
                    continue
                except Exception as e:  # noqa: BLE001
                    print(f"{it.name}@{peer.name}: ERROR {type(e).__name__}: {e}")
                    failures += 1
                    continue
                rtol, atol = tolerance_for(it)
                bad = ~np.isclose(out, ref, rtol=rtol, atol=atol, equal_nan=True)
                nbad = int(bad.sum())
                if nbad == 0:
                    print(f"{it.name}@{peer.name}: ok")
                elif dup_none:
                    print(f"{it.name}@{peer.name}: {nbad} elements differ (duplicates with 'none': the winner "
                          f"is unspecified outside the reference's last-writer rule)")
                else:
                    where = np.argwhere(bad)[0]
                    print(f"{it.name}@{peer.name}: FAIL {nbad} of {out.size} differ, first at {tuple(where)}: "
                          f"{out[tuple(where)]} vs reference {ref[tuple(where)]}")
                    failures += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return failures


def tolerance_for(it: Item) -> tuple:
    """(rtol, atol): sums in another order (threads, pairwise) differ in the last bits,
    more for long sums (contention: 262144 terms into one element) and half types."""
    if it.reduction in ("add", "mean"):
        return {"float16": (2e-2, 2e-2), "bfloat16": (1e-1, 1e-1)}.get(it.data.dtype, (1e-3, 1e-2))
    if it.reduction == "mul":
        return {"float16": (1e-2, 1e-3), "bfloat16": (5e-2, 1e-3)}.get(it.data.dtype, (1e-5, 1e-6))
    return (0.0, 0.0)


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


def bench_peers(items: list[Item], peers, options, copy_bandwidth: float, flush, timer) -> list[Row]:
    """Times every item on every peer. `timer(run)` returns the seconds of one call."""
    rows = []
    for it in items:
        inp = make_inputs(it)
        model = byte_model(it, inp)
        for peer in peers:
            row = Row(it.name, it.group, peer.name, it.in_place, not options.hot, None, model, copy_bandwidth,
                      threads=peer.threads)
            try:
                run, refresh, api = peer.prepare(it, inp)
                row.api = api

                def before(refresh=refresh):
                    if refresh:
                        refresh()
                    if flush:
                        flush()

                row.timing = measure(lambda run=run: timer(run), before if (refresh or flush) else None,
                                     options.max_seconds)
            except Skip as e:
                row.skipped = str(e)
            except Exception as e:  # noqa: BLE001  (a peer's failure is a row, not the end of the run)
                row.error = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            print_row(row)
            rows.append(row)
        del inp
    return rows


def parse_args(argv, peer_names: list[str], description: str):
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", default="all", choices=["nd", "elements", "update", "all"])
    p.add_argument("--size", default="small", choices=["small", "medium", "large"])
    p.add_argument("--peers", default=",".join(peer_names), help=f"comma-separated, of {', '.join(peer_names)}")
    p.add_argument("--filter", action="append", default=[], help="glob on names; a leading '-' excludes (repeatable)")
    p.add_argument("--json", help="write the report (scatterctl bench's JSON schema) here")
    p.add_argument("--ref-json", help="a `scatterctl bench --json` report of the same suite: its device string "
                                      "is used, and its names and bytes are checked against this table")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="sampling time per benchmark (default 0.25 small, 2 otherwise, as scatterctl)")
    p.add_argument("--hot", action="store_true", help="do not flush caches between samples")
    p.add_argument("--threads", type=int, default=None, help="intra-op threads for torch/onnxruntime "
                                                             "(default: the library's own)")
    p.add_argument("--list", action="store_true", help="print the suite and exit")
    return p


def list_suite(items: list[Item], file=sys.stdout):
    for it in items:
        shapes = " ".join(f"{t}={getattr(it, t).dtype}{list(getattr(it, t).shape)}"
                          for t in ("data", "indices", "updates"))
        flags = (" in_place" if it.in_place else "") + (" deterministic" if it.deterministic else "")
        axis = f" axis={it.axis}" if it.op != "scatter_nd" else ""
        print(f"{it.name:<46} {it.group:<10} {it.op} {it.reduction}{axis}{flags}  {shapes}", file=file)


def main(argv=None) -> int:
    p = parse_args(argv, list(CPU_PEERS), __doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare each peer's output with the reference "
                                                        "(inputs from `scatterctl dump`) instead of timing")
    p.add_argument("--scatterctl", default=None, help="the scatterctl binary for --check "
                                                      "(default build/app/scatterctl)")
    args = p.parse_args(argv)
    items = select(suite(args.mode, args.size), args.filter)
    if not items:
        print("peers_cpu: nothing selected", file=sys.stderr)
        return 4
    if args.list:
        list_suite(items)
        return 0
    names = [n for n in args.peers.split(",") if n]
    unknown = [n for n in names if n not in CPU_PEERS]
    if unknown:
        print(f"peers_cpu: unknown peer(s) {', '.join(unknown)}; known: {', '.join(CPU_PEERS)}", file=sys.stderr)
        return 2
    peers, missing = make_peers(names, CPU_PEERS, args.threads)
    for m in missing:
        print(f"peers_cpu: skipping {m}", file=sys.stderr)
    if not peers:
        print("peers_cpu: no peer available", file=sys.stderr)
        return 5
    for peer in peers:
        print(f"peers_cpu: {peer.name} {peer.version}, {peer.threads} thread(s)", file=sys.stderr)

    if args.check:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        exe = args.scatterctl or os.path.join(root, "build", "app", "scatterctl")
        if not os.access(exe, os.X_OK):
            print(f"peers_cpu: --check needs scatterctl ({exe} not found; build it or pass --scatterctl)",
                  file=sys.stderr)
            return 5
        failures = run_check(items, peers, exe)
        print(f"peers_cpu check: {failures} failure(s)")
        return 1 if failures else 0

    ref = None
    if args.ref_json:
        with open(args.ref_json) as f:
            ref = json.load(f)
    device = ref_device_string()
    if ref and ref.get("context", {}).get("device"):
        if ref["context"]["device"] != device:
            print(f"peers_cpu: note: the ref report's device is {ref['context']['device']!r}, "
                  f"this machine's {device!r}; using the ref report's", file=sys.stderr)
        device = ref["context"]["device"]
    max_seconds = args.max_seconds if args.max_seconds is not None else (0.25 if args.size == "small" else 2.0)
    args.max_seconds = max_seconds
    copy_bw = host_copy_bandwidth()
    print(f"device: {device}; copy bandwidth {copy_bw / 1e9:.1f} GB/s (numpy copy, read + write); "
          f"{'hot' if args.hot else 'cold'} cache")
    flush = None if args.hot else HostFlush()

    def timer(run):
        t0 = time.perf_counter()
        run()
        return time.perf_counter() - t0

    rows = bench_peers(items, peers, args, copy_bw, flush, timer)
    for problem in check_ref_bytes(ref, rows):
        print(f"peers_cpu: warning: {problem}", file=sys.stderr)
    if args.json:
        ctx = base_context("scripts/peers_cpu.py", device, copy_bw, args.mode, args.size)
        ctx["peers"] = {peer.name: peer.version for peer in peers}
        ctx["peer_threads"] = {peer.name: peer.threads for peer in peers}
        ctx["skipped_peers"] = missing
        ctx["cache"] = "hot" if args.hot else "cold"
        ctx["copy_method"] = "numpy copyto of 256 MB, read + write, best of 5"
        write_text(args.json, report_json(ctx, rows))
    errors = [r for r in rows if r.error]
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

"""Timing and reports, as `scatterctl bench` does them (lib/src/bench/measure.cpp,
report.cpp): one warm-up, then samples until the interquartile range over the median is
under 0.5% or the time is spent (5 samples at least, 500 at most), the median, the
spread and the coefficient of variation; the report in Google Benchmark's JSON schema
with scatterctl's counters, so `scatterctl compare` and scripts/plot_bench.py read it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import os
import socket
import subprocess
import sys
import time
from typing import Callable, Optional

import numpy as np

SCHEMA_VERSION = 1
FLUSH_BYTES = 256 << 20


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


# Report: the JSON of `scatterctl bench --json` (lib/src/bench/report.cpp bench_json)


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
    note: str = ""  # e.g. duplicates resolved to another winner than the reference's


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
    if r.note:
        b["note"] = r.note
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

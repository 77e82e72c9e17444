"""Reading bench reports (scatterctl's and the peers', one JSON schema) for the plots
and the summary: rows by benchmark and backend, the copy line, per-class aggregates."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import defaultdict

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@dataclasses.dataclass
class Entry:
    name: str  # without "@backend"
    group: str
    backend: str
    seconds: float  # median; 0 when not timed
    bytes: int
    gbps: float
    spread: float
    samples: int
    error: str  # "skipped: ..." or an error; empty when timed
    api: str
    note: str


@dataclasses.dataclass
class Reports:
    contexts: list
    entries: list  # Entry, in file order
    copy_gbps: float
    copy_from: str

    def backends(self) -> list:
        seen = []
        for e in self.entries:
            if e.backend not in seen:
                seen.append(e.backend)
        return seen

    def names(self) -> list:
        seen = []
        for e in self.entries:
            if e.name not in seen:
                seen.append(e.name)
        return seen

    def table(self) -> dict:
        """{(name, backend): Entry}"""
        return {(e.name, e.backend): e for e in self.entries}


def load(paths: list) -> Reports:
    contexts, entries = [], []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        ctx = dict(doc.get("context", {}))
        ctx["_path"] = path
        contexts.append(ctx)
        for b in doc.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration":
                continue
            name, _, backend = b["name"].rpartition("@")
            backend = b.get("backend", backend)
            timed = not b.get("error_occurred", False)
            entries.append(Entry(name or b["name"], b.get("group", ""), backend,
                                 b.get("real_time", 0.0) * UNIT.get(b.get("time_unit", "ns"), 1e-9) if timed else 0.0,
                                 int(b.get("bytes", 0)), b.get("gb_per_s", 0.0) if timed else 0.0,
                                 b.get("spread", 0.0), int(b.get("iterations", 0)),
                                 "" if timed else b.get("error_message", "error"), b.get("api", ""), b.get("note", "")))
    copy_gbps, copy_from = copy_line(contexts)
    return Reports(contexts, entries, copy_gbps, copy_from)


def copy_line(contexts: list) -> tuple:
    """The 100% line: the device-to-device copy a GPU peers report measured beside the
    peers when there is one, else the copy scatterctl bench measured on its first
    backend's device (a host memcpy for ref, a device-to-device copy for cuda)."""
    for c in contexts:
        if "device-to-device" in c.get("copy_method", "") and c.get("measured_copy_bandwidth_gbps"):
            return float(c["measured_copy_bandwidth_gbps"]), f"{c['copy_method']} ({c['_path']})"
    for c in contexts:
        if c.get("executable") == "scatterctl bench" and c.get("copy_bandwidth_gbps"):
            return float(c["copy_bandwidth_gbps"]), f"scatterctl bench's copy on {c.get('device', 'its device')} ({c['_path']})"
    for c in contexts:
        if c.get("copy_bandwidth_gbps"):
            return float(c["copy_bandwidth_gbps"]), c.get("copy_method", c["_path"])
    return 0.0, "none"


def geomean(values: list) -> float:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


@dataclasses.dataclass
class ClassRow:
    group: str
    cases: int
    gbps: float  # geometric mean over the class's timed cases
    percent_of_copy: float
    speedup: dict  # peer -> geometric mean of peer time / our time over cases both timed
    compared: dict  # peer -> number of cases in that mean


def by_class(r: Reports, ours: str, peers: list) -> list:
    t = r.table()
    groups = defaultdict(list)
    for name in r.names():
        e = t.get((name, ours))
        if e and not e.error:
            groups[e.group].append(name)
    rows = []
    for group, names in groups.items():
        gbps = geomean([t[(n, ours)].gbps for n in names])
        speed, count = {}, {}
        for p in peers:
            ratios = [t[(n, p)].seconds / t[(n, ours)].seconds for n in names
                      if (n, p) in t and not t[(n, p)].error and t[(n, p)].seconds > 0 and t[(n, ours)].seconds > 0]
            speed[p], count[p] = geomean(ratios), len(ratios)
        rows.append(ClassRow(group, len(names), gbps, 100.0 * gbps / r.copy_gbps if r.copy_gbps else 0.0, speed, count))
    return rows

"""Reading `scatterctl bench --json` reports for scripts/plot_bench.py and bench/summarize.py.

One report holds every backend of the run (`scatterctl bench --backend ref,numpy,...`):
each benchmark row names its backend and carries its own 100% line (`copy_line_gbps`,
`percent_of_copy`), how it was timed (`timed_by`) and, when it was not timed, why
(`error_message`; `failed` when its output differed from the reference). Several reports
may be given (e.g. a CPU and a GPU run); their rows are pooled. The row fields are those of
bench_json() in lib/src/bench/report.cpp.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import defaultdict

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

# scatterctl's own backends, in the order one of them is taken as "ours".
OURS = ("cuda", "cpu", "ref")


@dataclasses.dataclass
class Entry:
    name: str  # without "@backend"
    group: str
    backend: str
    seconds: float  # median; 0 when not timed
    bytes: int
    gbps: float
    percent_of_copy: float
    copy_line_gbps: float  # this row's 100% line; 0 when unknown
    floor_seconds: float
    spread: float
    samples: int
    timed_by: str
    error: str  # why the row was not timed; empty when timed
    failed: bool  # the output differed from the reference
    xfail: str = ""  # a known divergence (expectations entry id) covers that difference


@dataclasses.dataclass
class Reports:
    contexts: list
    entries: list  # Entry, in file order

    def backends(self) -> list:
        """The backends, in the order they first appear."""
        return list(dict.fromkeys(e.backend for e in self.entries))

    def names(self) -> list:
        """The benchmarks' names, in the order they first appear."""
        return list(dict.fromkeys(e.name for e in self.entries))

    def table(self) -> dict:
        """{(name, backend): Entry}"""
        return {(e.name, e.backend): e for e in self.entries}

    def ours(self) -> str:
        """scatterctl's own backend in the reports (cuda, else cpu, else ref); else the first one."""
        backends = self.backends()
        return next((b for b in OURS if b in backends), backends[0] if backends else "")

    def device_copy_gbps(self) -> float:
        """The device copy bandwidth of the first report (its first backend's device)."""
        return next((float(c["copy_bandwidth_gbps"]) for c in self.contexts if c.get("copy_bandwidth_gbps")), 0.0)

    def timed_by(self) -> dict:
        """{backend: how its rows were timed}, from the first row that says."""
        out = {}
        for e in self.entries:
            if e.timed_by and e.backend not in out:
                out[e.backend] = e.timed_by
        return out


def load(paths: list) -> Reports:
    contexts, entries = [], []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        ctx = dict(doc.get("context", {}))
        ctx["_path"] = path
        contexts.append(ctx)
        ctx_copy = float(ctx.get("copy_bandwidth_gbps") or 0.0)
        for b in doc.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration":
                continue
            name, _, backend = b["name"].rpartition("@")
            backend = b.get("backend", backend)
            timed = not b.get("error_occurred", False)
            unit = UNIT.get(b.get("time_unit", "ns"), 1e-9)
            gbps = float(b.get("gb_per_s", 0.0)) if timed else 0.0
            pct = float(b.get("percent_of_copy", 0.0)) if timed else 0.0
            line = float(b.get("copy_line_gbps") or 0.0)
            if not line:
                line = gbps * 100.0 / pct if gbps > 0 and pct > 0 else ctx_copy
            entries.append(Entry(
                name=name or b["name"], group=b.get("group", ""), backend=backend,
                seconds=float(b.get("real_time", 0.0)) * unit if timed else 0.0,
                bytes=int(b.get("bytes", 0)), gbps=gbps, percent_of_copy=pct, copy_line_gbps=line,
                floor_seconds=float(b.get("floor_us", 0.0)) * 1e-6, spread=float(b.get("spread", 0.0)),
                samples=int(b.get("iterations", 0)), timed_by=b.get("timed_by", ""),
                error="" if timed else b.get("error_message", "error"), failed=bool(b.get("failed", False)),
                xfail=str(b.get("xfail", ""))))
    return Reports(contexts, entries)


def geomean(values: list) -> float:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


@dataclasses.dataclass
class ClassRow:
    group: str
    cases: int
    gbps: float  # geometric mean over the class's timed cases
    percent_of_copy: float  # geometric mean of the rows' own % of copy
    speedup: dict  # other backend -> geometric mean of its time / our time over cases both timed
    compared: dict  # other backend -> number of cases in that mean
    fastest_peer: float = 0.0  # geometric mean of the fastest framework's time / our time, case by case
    fastest_compared: int = 0  # cases in that mean (those a framework timed)


def speedup(t: dict, name: str, peer: str, ours: str):
    """The peer's time / ours on one case, or None unless both timed it."""
    a, b = t.get((name, peer)), t.get((name, ours))
    if a is None or b is None or a.error or b.error or a.seconds <= 0 or b.seconds <= 0:
        return None
    return a.seconds / b.seconds


def fastest_peer(t: dict, name: str, ours: str, others: list):
    """(the fastest framework's time / ours on one case, that framework), or None where no framework
    timed it (scatterctl's own backends are no peers)."""
    times = [(t[(name, p)].seconds, p) for p in others
             if p not in OURS and (name, p) in t and not t[(name, p)].error and t[(name, p)].seconds > 0]
    e = t.get((name, ours))
    if not times or e is None or e.error or e.seconds <= 0:
        return None
    seconds, peer = min(times)
    return seconds / e.seconds, peer


def suite_speedup(r: Reports, ours: str, peer: str):
    """(geometric mean of the peer's time / ours over every case both timed, their number)."""
    t = r.table()
    ratios = [x for x in (speedup(t, n, peer, ours) for n in r.names()) if x is not None]
    return geomean(ratios), len(ratios)


def by_class(r: Reports, ours: str, others: list) -> list:
    t = r.table()
    groups = defaultdict(list)
    for name in r.names():
        e = t.get((name, ours))
        if e and not e.error:
            groups[e.group].append(name)
    rows = []
    for group, names in groups.items():
        speed, count = {}, {}
        for p in others:
            ratios = [x for x in (speedup(t, n, p, ours) for n in names) if x is not None]
            speed[p], count[p] = geomean(ratios), len(ratios)
        best = [x[0] for x in (fastest_peer(t, n, ours, others) for n in names) if x is not None]
        rows.append(ClassRow(group, len(names), geomean([t[(n, ours)].gbps for n in names]),
                             geomean([t[(n, ours)].percent_of_copy for n in names]), speed, count,
                             geomean(best), len(best)))
    return rows

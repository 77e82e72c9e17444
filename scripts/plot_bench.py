#!/usr/bin/env python3
"""Charts of `scatterctl bench --json` reports (usually one, with every backend of the run:
`scatterctl bench --backend ref,numpy,onnxruntime,... --json REPORT.json`): GB/s per case
for every backend against the copy line, and time against bytes moved (the byte model)
with the copy floor. PNG and SVG.

    scripts/plot_bench.py REPORT.json... --out DIR [--title TEXT]

Writes DIR/gbps_per_case.{png,svg} and DIR/time_vs_size.{png,svg}. Untimed rows
(FAILED, unsupported, errors) are left out of the charts. Needs matplotlib; without it
the charts are skipped with a message (exit 0).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from bench_reports import OURS, load  # noqa: E402


def style(backends):
    """scatterctl's own backends first and dark, the frameworks after in the default cycle."""
    ours = [b for b in backends if b in OURS]
    colors = {b: c for b, c in zip(ours, ["#1f3b73", "#0b7a3e", "#4a4a4a"])}
    cycle = ["#e07b00", "#c0392b", "#8e44ad", "#7f8c8d", "#16a085", "#d35400", "#2980b9", "#b7950b"]
    for i, b in enumerate([b for b in backends if b not in ours]):
        colors[b] = cycle[i % len(cycle)]
    return ours + [b for b in backends if b not in ours], colors


def gbps_chart(plt, r, order, colors, title):
    names = r.names()
    t = r.table()
    height = max(6.0, 0.32 * len(names) * max(1, len(order)) / 2.5)
    fig, ax = plt.subplots(figsize=(11, height))
    bar = 0.8 / len(order)
    for i, b in enumerate(order):
        ys, xs = [], []
        for j, n in enumerate(names):
            e = t.get((n, b))
            if e and not e.error and e.gbps > 0:
                ys.append(j + (i - (len(order) - 1) / 2) * bar)
                xs.append(e.gbps)
        ax.barh(ys, xs, height=bar, color=colors[b], label=b)
    ours = r.ours()
    device = r.device_copy_gbps()
    if device:
        ax.axvline(device, color="black", linestyle="--", linewidth=1.2,
                   label=f"device copy bandwidth {device:.1f} GB/s")
    marks = [(j, t[(n, ours)].copy_line_gbps) for j, n in enumerate(names)
             if (n, ours) in t and not t[(n, ours)].error and t[(n, ours)].copy_line_gbps > 0]
    if marks and any(abs(m[1] - device) > 1e-6 * max(device, 1.0) for m in marks):
        ax.scatter([m[1] for m in marks], [m[0] for m in marks], marker="|", s=120, color="black", zorder=3,
                   label=f"the case's own copy line (100% for {ours})")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=7)
    ax.set_ylim(len(names) - 0.5, -0.5)  # first case on top
    ax.set_xscale("log")
    ax.set_xlabel("GB/s under the byte model (docs/perf-model.md), log scale; right of the copy line is impossible "
                  "unless the data stayed in cache")
    ax.set_title(title + ": bandwidth per case")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def time_chart(plt, r, order, colors, title):
    fig, ax = plt.subplots(figsize=(9, 6.5))
    lo, hi = float("inf"), 0.0
    for b in order:
        pts = [(e.bytes, e.seconds * 1e6) for e in r.entries if e.backend == b and not e.error and e.seconds > 0
               and e.bytes > 0]
        if not pts:
            continue
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=18, color=colors[b], label=b, alpha=0.8)
        lo, hi = min(lo, min(p[0] for p in pts)), max(hi, max(p[0] for p in pts))
    device = r.device_copy_gbps()
    if device and hi > 0:
        xs = [lo, hi]
        ax.plot(xs, [x / (device * 1e9) * 1e6 for x in xs], color="black", linestyle="--", linewidth=1.2,
                label=f"floor: bytes / device copy bandwidth ({device:.1f} GB/s)")
    ours = r.ours()
    floors = [(e.bytes, e.floor_seconds * 1e6) for e in r.entries
              if e.backend == ours and not e.error and e.bytes > 0 and e.floor_seconds > 0]
    if floors and device and any(abs(f[1] - f[0] / (device * 1e9) * 1e6) > 1e-3 * f[1] for f in floors):
        ax.scatter([f[0] for f in floors], [f[1] for f in floors], marker="_", s=60, color="black",
                   label=f"floor of each {ours} row: bytes / its own copy line")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bytes moved under the byte model")
    ax.set_ylabel("median time per call (us)")
    ax.set_title(title + ": time against size")
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+", help="bench JSON reports")
    p.add_argument("--out", required=True, help="folder for the charts")
    p.add_argument("--title", default=None, help="chart title (default: the device)")
    args = p.parse_args(argv)
    r = load(args.reports)
    if not r.entries:
        print("plot_bench: no benchmarks in the reports", file=sys.stderr)
        return 4
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"plot_bench: skipped, no charts written: matplotlib is not installed for {sys.executable} "
              "(pip install matplotlib)")
        return 0
    title = args.title or next((c.get("device") for c in r.contexts if c.get("device")), "bench")
    order, colors = style(r.backends())
    os.makedirs(args.out, exist_ok=True)
    for stem, make in (("gbps_per_case", gbps_chart), ("time_vs_size", time_chart)):
        fig = make(plt, r, order, colors, title)
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(args.out, f"{stem}.{ext}"), dpi=110)
        plt.close(fig)
        print(f"plot_bench: wrote {os.path.join(args.out, stem)}.png and .svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())

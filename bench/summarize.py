#!/usr/bin/env python3
"""The Markdown summary of one results folder from `scatterctl bench --json` reports: the
machine, date, commit and load, how each backend was timed, per case class scatterctl's
GB/s, % of the copy line and its speed-up over each other backend of the run, every
case's times, and the rows that were not timed and why.

    bench/summarize.py REPORT.json... --out README.md [--note TEXT]...

Usually one report: `scatterctl bench --backend ref,numpy,onnxruntime,... --json REPORT.json`.
"Ours" is scatterctl's own backend in the reports (cuda, else cpu, else ref). Speed-up =
geometric mean, over the class's cases timed on both, of the other backend's time / our
time (above 1: scatterctl is faster). GB/s and % of copy per class are geometric means;
% of copy is each row's own (a host row's line is a cold copy of its own working set).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_reports import by_class, fastest_peer, load, speedup, suite_speedup  # noqa: E402


def short_commit(commit):
    """12 hex digits, and what the build recorded about uncommitted changes ("+dirty")."""
    head, _, rest = commit.partition("+")
    return head[:12] + (" (built with uncommitted changes)" if rest == "dirty" else "")


def fmt_us(e) -> str:
    if e is None:
        return ""
    if e.failed:
        return "xfail" if e.xfail else "FAILED"
    return "-" if e.error else f"{e.seconds * 1e6:.1f}"


def load_text(ctx, key) -> str:
    avg = ctx.get(key, {}).get("load_avg")
    return " ".join(f"{x:.2f}" for x in avg) if avg and avg[0] >= 0 else "unknown"


def summary(r, notes: list, charts: bool = True) -> str:
    ours = r.ours()
    others = [b for b in r.backends() if b != ours]
    ctx = r.contexts[0] if r.contexts else {}
    lines = [f"# Bench results: {ctx.get('device', '?')}", ""]
    lines += [f"- machine: {ctx.get('device', '?')}, host {ctx.get('host_name', '?')}",
              f"- date: {ctx.get('date', '?')}",
              f"- scatterctl {ctx.get('scatterctl_version', '?')}, commit {short_commit(ctx.get('git_commit', '?'))}, "
              f"{ctx.get('library_build_type', '?')} build; suite --mode {ctx.get('mode', '?')} "
              f"--size {ctx.get('size', '?')}"
              + (f", {ctx['repetitions']} repetition(s)" if "repetitions" in ctx else ""),
              f"- backends: `{ours}` (scatterctl's own){''.join(f', `{b}`' for b in others)}",
              f"- 100% line: each row's own (`copy_line_gbps`): on the CPU a cold copy of the row's own working "
              f"set, on a GPU the device-to-device copy ({r.device_copy_gbps():.1f} GB/s on {ctx.get('device', '?')})"]
    if "load_start" in ctx:
        lines.append(f"- load: {load_text(ctx, 'load_start')} at start, {load_text(ctx, 'load_end')} at end, "
                     f"{ctx.get('num_cpus', '?')} CPUs" + (" (**busy**: timings are noisy)" if ctx.get("busy") else ""))
    for b, how in r.timed_by().items():
        lines.append(f"- `{b}` timed by: {how}")
    if len(r.contexts) > 1:
        lines.append("- reports: " + ", ".join(f"`{c['_path']}` ({c.get('device', '?')})" for c in r.contexts))
    lines += [f"- {n}" for n in notes]
    if charts:
        lines += ["", "Charts: [GB/s per case](gbps_per_case.svg) ([PNG](gbps_per_case.png)), "
                  "[time against size](time_vs_size.svg) ([PNG](time_vs_size.png)). How to read them: "
                  "[docs/benchmarks.md](../../../docs/benchmarks.md)."]
    else:
        lines += ["", "Charts: none in this folder (`scripts/plot_bench.py REPORT.json --out DIR` makes them; "
                  "it needs matplotlib)."]
    lines += ["", "## Whole suite", ""]
    for p in others:
        ratio, count = suite_speedup(r, ours, p)
        lines.append(f"- {ours} against {p}: {ratio:.2f}x, the geometric mean of {p}'s time / {ours}'s over the "
                     f"{count} cases both timed" if count else f"- {ours} against {p}: no case timed on both")
    lines += ["", "## Per case class", "",
              "| class | cases | GB/s | % of copy | vs fastest peer | "
              + " | ".join(f"speed-up vs {p}" for p in others) + " |",
              "|---|---|---|---|---|" + "---|" * len(others)]
    for c in by_class(r, ours, others):
        sp = " | ".join(f"{c.speedup[p]:.2f}x ({c.compared[p]})" if c.compared[p] else "-" for p in others)
        fastest = f"{c.fastest_peer:.2f}x ({c.fastest_compared})" if c.fastest_compared else "-"
        lines.append(f"| {c.group} | {c.cases} | {c.gbps:.2f} | {c.percent_of_copy:.1f}% | {fastest} | {sp} |")
    lines += ["", f"Speed-up: geometric mean of the other backend's time / {ours} time over the cases both timed "
              "(their number in parentheses); above 1 scatterctl is faster. vs fastest peer: the same, against the "
              "fastest framework of each case (scatterctl's own backends are no peers).", "",
              "## Every case (median us; - = not timed, FAILED = output differed from the reference, xfail = a known divergence)", "",
              f"| case | {ours} us | {ours} GB/s | % of copy | fastest peer/{ours} | "
              + " | ".join(f"{p} us | {p}/{ours}" for p in others) + " |",
              "|---|---|---|---|---|" + "---|---|" * len(others)]
    t = r.table()
    for n in r.names():
        e = t.get((n, ours))
        if e is None:
            continue
        gbps = "-" if e.error else f"{e.gbps:.2f}"
        pct = "-" if e.error else f"{e.percent_of_copy:.1f}%"
        ratios = [speedup(t, n, p, ours) for p in others]
        best = fastest_peer(t, n, ours, others)
        lines.append(f"| {n} | {fmt_us(e)} | {gbps} | {pct} | {'-' if best is None else f'{best[0]:.2f}x ({best[1]})'} | "
                     + " | ".join(f"{fmt_us(t.get((n, p)))} | {'-' if x is None else f'{x:.2f}x'}"
                                  for p, x in zip(others, ratios)) + " |")
    failed = [e for e in r.entries if e.failed and not e.xfail]
    xfailed = [e for e in r.entries if e.xfail]
    untimed = [e for e in r.entries if e.error and not e.failed]
    lines += ["", "## Rows whose output differed from the reference (FAILED, not timed)", ""]
    lines += [f"- `{e.name}@{e.backend}`: {e.error}" for e in failed] or ["- none"]
    lines += ["", "## Known divergences (xfail: the output differed as lib/expectations/ records; not timed)", ""]
    lines += [f"- `{e.name}@{e.backend}`: [{e.xfail}]" for e in xfailed] or ["- none"]
    lines += ["", "## Other rows not timed, and why", ""]
    lines += [f"- `{e.name}@{e.backend}`: {e.error}" for e in untimed] or ["- none"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+", help="scatterctl bench --json reports")
    p.add_argument("--out", required=True, help="the Markdown file to write")
    p.add_argument("--note", action="append", default=[], help="a line for the header (repeatable)")
    args = p.parse_args(argv)
    r = load(args.reports)
    if not r.entries:
        print("summarize: no benchmarks in the reports", file=sys.stderr)
        return 4
    with open(args.out, "w") as f:
        f.write(summary(r, args.note, os.path.exists(os.path.join(os.path.dirname(args.out) or ".", "gbps_per_case.svg"))))
    print(f"summarize: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Markdown summary of one results folder: the machine, date and commit, the copy
line, per case class scatterctl's GB/s, % of the copy bandwidth and its speed-up over
each peer, every case's times, and the peer rows that were skipped and why.

    bench/summarize.py REPORT.json... --ours ref --out README.md [--note TEXT]...

Speed-up = geometric mean over the class's cases timed on both of peer time / our
time (above 1: scatterctl is faster). GB/s per class is the geometric mean.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peers.reports import by_class, load  # noqa: E402



def short_commit(commit):
    """12 hex digits, and what the build recorded about uncommitted changes ("+dirty")."""
    head, _, rest = commit.partition("+")
    return head[:12] + (" (built with uncommitted changes)" if rest == "dirty" else "")

def fmt_us(e) -> str:
    return "" if e is None else ("-" if e.error else f"{e.seconds * 1e6:.1f}")


def summary(r, ours: str, notes: list) -> str:
    peers = [b for b in r.backends() if b != ours]
    ctx = next((c for c in r.contexts if c.get("executable") == "scatterctl bench"), r.contexts[0])
    lines = [f"# Bench results: {ctx.get('device', '?')}", ""]
    lines += [f"- machine: {ctx.get('device', '?')}, host {ctx.get('host_name', '?')}",
              f"- date: {ctx.get('date', '?')}",
              f"- scatterctl {ctx.get('scatterctl_version', '?')}, commit {short_commit(ctx.get('git_commit', '?'))}, "
              f"{ctx.get('library_build_type', '?')} build; suite --mode {ctx.get('mode', '?')} "
              f"--size {ctx.get('size', '?')}, backend `{ours}`",
              f"- 100% line: {r.copy_gbps:.1f} GB/s, {r.copy_from}"]
    for c in r.contexts:
        if c.get("peers"):
            versions = ", ".join(f"{k} {v} ({c.get('peer_threads', {}).get(k, '?')} threads)"
                                 for k, v in c["peers"].items())
            lines.append(f"- peers ({c.get('executable')}): {versions}")
            for m in c.get("skipped_peers", []):
                lines.append(f"- peer not run: {m}")
    lines += [f"- {n}" for n in notes]
    lines += ["", "Charts: [GB/s per case](gbps_per_case.svg) ([PNG](gbps_per_case.png)), "
              "[time against size](time_vs_size.svg) ([PNG](time_vs_size.png)). How to read them: "
              "[docs/benchmarks.md](../../../docs/benchmarks.md).", "",
              "## Per case class", "",
              "| class | cases | GB/s | % of copy | " + " | ".join(f"speed-up vs {p}" for p in peers) + " |",
              "|---|---|---|---|" + "---|" * len(peers)]
    for c in by_class(r, ours, peers):
        sp = " | ".join(f"{c.speedup[p]:.2f}x ({c.compared[p]})" if c.compared[p] else "-" for p in peers)
        lines.append(f"| {c.group} | {c.cases} | {c.gbps:.2f} | {c.percent_of_copy:.1f}% | {sp} |")
    lines += ["", "Speed-up: geometric mean of peer time / scatterctl time over the cases both timed (their "
              "number in parentheses); above 1 scatterctl is faster.", "",
              "## Every case (median us; - = not timed)", "",
              f"| case | {ours} us | {ours} GB/s | % of copy | " + " | ".join(f"{p} us" for p in peers) + " |",
              "|---|---|---|---|" + "---|" * len(peers)]
    t = r.table()
    for n in r.names():
        e = t.get((n, ours))
        if e is None:
            continue
        pct = f"{100 * e.gbps / r.copy_gbps:.1f}%" if r.copy_gbps and not e.error else "-"
        lines.append(f"| {n} | {fmt_us(e)} | {e.gbps:.2f} | {pct} | "
                     + " | ".join(fmt_us(t.get((n, p))) for p in peers) + " |")
    skipped = [e for e in r.entries if e.error]
    lines += ["", "## Rows not timed, and why", ""]
    lines += [f"- `{e.name}@{e.backend}`: {e.error}" for e in skipped] or ["- none"]
    notes_rows = [e for e in r.entries if e.note]
    if notes_rows:
        lines += ["", "## Notes from the oracle check", ""]
        lines += [f"- `{e.name}@{e.backend}`: {e.note}" for e in notes_rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+")
    p.add_argument("--ours", default="ref", help="scatterctl's backend in the reports (ref or cuda)")
    p.add_argument("--out", required=True)
    p.add_argument("--note", action="append", default=[], help="a line for the header (repeatable)")
    args = p.parse_args(argv)
    r = load(args.reports)
    with open(args.out, "w") as f:
        f.write(summary(r, args.ours, args.note))
    print(f"summarize: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

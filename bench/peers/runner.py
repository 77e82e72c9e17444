"""The run shared by scripts/peers_cpu.py and scripts/peers_gpu.py: flags, the peers,
each item checked against the numpy oracle and then timed on each peer, the report.

A platform says how to time and where: timer(run) -> seconds of one call (wall clock on
the CPU, CUDA events on the GPU), flush() (outside the timed region, for "cold"),
copy_bandwidth() (the 100% line, read + write, bytes/s) and device (the string
scatterctl's backend on that machine reports, so `compare` needs no device override).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Optional

import numpy as np

from . import oracle
from .measure import Row, Skip, base_context, check_ref_bytes, measure, print_row, report_json, write_text
from .suite import Item, byte_model, make_inputs, select, suite


def parse_args(argv, peer_names: list[str], description: str, prog: str):
    p = argparse.ArgumentParser(prog=prog, description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", default="all", choices=["nd", "elements", "update", "all"])
    p.add_argument("--size", default="small", choices=["small", "medium", "large"])
    p.add_argument("--peers", default=",".join(peer_names), help=f"comma-separated, of {', '.join(peer_names)}")
    p.add_argument("--filter", action="append", default=[], help="glob on names; a leading '-' excludes (repeatable)")
    p.add_argument("--json", help="write the report (scatterctl bench's JSON schema) here")
    p.add_argument("--ref-json", help="the `scatterctl bench --json` report of the same suite on this machine: its "
                                      "device string and copy bandwidth are used, its names and bytes checked")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="sampling time per benchmark (default 0.25 small, 2 otherwise, as scatterctl)")
    p.add_argument("--hot", action="store_true", help="do not flush caches between samples")
    p.add_argument("--threads", type=int, default=None, help="intra-op threads for torch/onnxruntime "
                                                             "(default: the library's own)")
    p.add_argument("--no-check", action="store_true", help="time without first checking each peer's output on "
                                                          "the item's small instance against the numpy oracle")
    p.add_argument("--list", action="store_true", help="print the suite and exit")
    return p


def list_suite(items: list[Item], file=sys.stdout):
    for it in items:
        shapes = " ".join(f"{t}={getattr(it, t).dtype}{list(getattr(it, t).shape)}"
                          for t in ("data", "indices", "updates"))
        flags = (" in_place" if it.in_place else "") + (" deterministic" if it.deterministic else "")
        axis = f" axis={it.axis}" if it.op != "scatter_nd" else ""
        print(f"{it.name:<46} {it.group:<10} {it.op} {it.reduction}{axis}{flags}  {shapes}", file=file)


def make_peers(names: list[str], table: dict, threads: Optional[int]):
    """The peers that import; (peers, ['name (why not)', ...])."""
    peers, missing = [], []
    for n in names:
        try:
            peers.append(table[n](threads))
        except ImportError as e:
            missing.append(f"{n} ({e.name or e} is not installed)")
        except Exception as e:  # noqa: BLE001  (a broken install: report it, go on)
            missing.append(f"{n} ({type(e).__name__}: {e})")
    return peers, missing


def first_line(e: Exception) -> str:
    text = str(e).splitlines()[0][:200] if str(e) else ""
    return f"{type(e).__name__}: {text}"


def check_peer(peer, small: Item) -> str:
    """Runs the peer once on the small instance of an item and compares with the
    oracle. Returns a note (duplicates resolved otherwise); raises Skip when wrong."""
    inp = make_inputs(small)
    run, refresh, _ = peer.prepare(small, inp)
    if refresh:
        refresh()
    failure, note = oracle.check(small, oracle.expected(small, inp), np.asarray(peer.to_numpy(run())))
    if failure:
        raise Skip(f"wrong result on the small instance, not timed: {failure}")
    return f"small instance: {note}" if note else ""


def bench_item(it: Item, small: Optional[Item], peers, platform, cold: bool, max_seconds: float,
               copy_bandwidth: float) -> list[Row]:
    """`small`: the same item at --size small, checked against the oracle first (None: no check)."""
    inp = make_inputs(it)
    model = byte_model(it, inp)
    rows = []
    for peer in peers:
        row = Row(it.name, it.group, peer.name, it.in_place, cold, None, model, copy_bandwidth, threads=peer.threads)
        try:
            if small is not None:
                row.note = check_peer(peer, small)
            run, refresh, row.api = peer.prepare(it, inp)

            def before(refresh=refresh):
                if refresh:
                    refresh()
                if cold:
                    platform.flush()

            timer = getattr(peer, "timer", platform.timer)  # a peer on its own stream times itself
            row.timing = measure(lambda run=run: timer(run), before if (refresh or cold) else None,
                                 max_seconds)
        except Skip as e:
            row.skipped = str(e)
        except Exception as e:  # noqa: BLE001  (a peer's failure is a row, not the end of the run)
            row.error = first_line(e)
        print_row(row)
        rows.append(row)
    return rows


def run(argv, prog: str, description: str, table: dict, make_platform: Callable, executable: str) -> int:
    p = parse_args(argv, list(table), description, prog)
    args = p.parse_args(argv)
    items = select(suite(args.mode, args.size), args.filter)
    if not items:
        print(f"{prog}: nothing selected", file=sys.stderr)
        return 4
    if args.list:
        list_suite(items)
        return 0
    names = [n for n in args.peers.split(",") if n]
    unknown = [n for n in names if n not in table]
    if unknown:
        print(f"{prog}: unknown peer(s) {', '.join(unknown)}; known: {', '.join(table)}", file=sys.stderr)
        return 2
    platform = make_platform()  # may exit 5 with the reason (no GPU)
    peers, missing = make_peers(names, table, args.threads)
    for m in missing:
        print(f"{prog}: skipping {m}", file=sys.stderr)
    if not peers:
        print(f"{prog}: no peer available", file=sys.stderr)
        return 5
    for peer in peers:
        print(f"{prog}: {peer.name} {peer.version}, {peer.threads} thread(s)", file=sys.stderr)

    ref = None
    if args.ref_json:
        with open(args.ref_json) as f:
            ref = json.load(f)
    device = platform.device
    own_copy = platform.copy_bandwidth()
    copy_bw = own_copy
    ref_ctx = (ref or {}).get("context", {})
    if ref_ctx.get("device"):
        if ref_ctx["device"] != device:
            print(f"{prog}: warning: the ref report's device is {ref_ctx['device']!r}, this one {device!r}",
                  file=sys.stderr)
        device = ref_ctx["device"]
    if platform.use_ref_copy_line and ref_ctx.get("copy_bandwidth_gbps"):
        copy_bw = float(ref_ctx["copy_bandwidth_gbps"]) * 1e9
    max_seconds = args.max_seconds if args.max_seconds is not None else (0.25 if args.size == "small" else 2.0)
    print(f"device: {device}; copy bandwidth {copy_bw / 1e9:.1f} GB/s (measured here: {own_copy / 1e9:.1f}, "
          f"{platform.copy_method}); {'hot' if args.hot else 'cold'} cache")

    small = {it.name: it for it in suite(args.mode, "small")}
    rows = []
    for it in items:
        rows += bench_item(it, None if args.no_check else small[it.name], peers, platform, not args.hot,
                           max_seconds, copy_bw)
    for problem in check_ref_bytes(ref, rows):
        print(f"{prog}: warning: {problem}", file=sys.stderr)
    if args.json:
        ctx = base_context(executable, device, copy_bw, args.mode, args.size)
        ctx["peers"] = {peer.name: peer.version for peer in peers}
        ctx["peer_threads"] = {peer.name: peer.threads for peer in peers}
        ctx["skipped_peers"] = missing
        ctx["cache"] = "hot" if args.hot else "cold"
        ctx["copy_method"] = platform.copy_method
        ctx["measured_copy_bandwidth_gbps"] = own_copy / 1e9
        ctx["copy_line_from"] = "ref report" if copy_bw != own_copy else "this run"
        ctx["timer"] = platform.timer_method
        ctx["checked_against_oracle"] = not args.no_check
        write_text(args.json, report_json(ctx, rows))
    skipped = [r for r in rows if r.skipped]
    errors = [r for r in rows if r.error]
    print(f"{prog}: {len(rows) - len(skipped) - len(errors)} timed, {len(skipped)} skipped, {len(errors)} errors")
    return 1 if errors else 0

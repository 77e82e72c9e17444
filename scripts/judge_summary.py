#!/usr/bin/env python3
"""The judge's margins in bench reports: for each timed row, how far its median and fastest sample
lie above the physics check's floor (the byte model over the fastest rate measured in the run), and
for each worker row, how close its closest sample came to scatterctl's own clock (less the signals'
round trip). Honest rows must stay clear of the limits: 1/3 of the floor cold, 1/6 hot host rows,
and 250 us + 2% (closest sample) and 500 us + 5% (median) for the clock (docs/benchmarks.md, "Measurements a kernel cannot game").

    scripts/judge_summary.py REPORT.json [REPORT.json ...]
"""
import json
import statistics
import sys


def rows(path):
    doc = json.load(open(path))
    for b in doc["benchmarks"]:
        if b.get("status") not in ("passed", "XPASS") or "samples_us" not in b:
            continue
        rate = max(b.get("fastest_rate_gbps", 0), b.get("copy_line_gbps", 0))
        floor = b["bytes"] / (rate * 1e9) * 1e6 if rate > 0 else None
        gap = None
        if b.get("outer_us"):
            trip = statistics.median(b["round_trip_us"])
            gap = min(o - trip - s for o, s in zip(b["outer_us"], b["samples_us"]))
        yield b["name"], b["cache"], b["real_time"], min(b["samples_us"]), floor, gap


def main(paths):
    print(f"{'row':<64} {'cache':<5} {'median/floor':>12} {'fastest/floor':>13} {'closest gap us':>14}")
    worst_floor, worst_gap = {}, None
    for path in paths:
        for name, cache, median, fastest, floor, gap in rows(path):
            ratio = fastest / floor if floor else None
            backend = name.split("@", 1)[1]
            if ratio is not None and (backend not in worst_floor or ratio < worst_floor[backend][0]):
                worst_floor[backend] = (ratio, name, cache)
            if gap is not None and (worst_gap is None or gap > worst_gap[0]):
                worst_gap = (gap, name)
            print(f"{name[:64]:<64} {cache:<5} {median / floor if floor else float('nan'):>12.2f} "
                  f"{ratio if ratio else float('nan'):>13.2f} {gap if gap is not None else float('nan'):>14.1f}")
    print("\nclosest to the physics floor, per backend (fastest sample / floor):")
    for backend, (ratio, name, cache) in sorted(worst_floor.items()):
        print(f"  {backend}: {ratio:.2f} ({name}, {cache})")
    if worst_gap:
        print(f"widest closest-sample gap to scatterctl's clock: {worst_gap[0]:.1f} us ({worst_gap[1]})")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env bash
# The NumPy example kernel benched with 0, 1 and 2 cores spinning beside scatterctl: the rows'
# cpu_pressure, and the gaps between the worker's samples and scatterctl's clock of them.
# Usage: bench/results/judge-cpu-2026-11-29/run.sh [SCATTERCTL]   (from the repository root)
set -euo pipefail
here=$(dirname "$0")
bin=${1:-build/app/scatterctl}
for load in 0 1 2; do
  pids=()
  for _ in $(seq 1 "$load"); do sh -c 'while :; do :; done' & pids+=($!); done
  sleep 1
  "$bin" bench "$here/case.json" --backend python:examples/python-kernel/numpy_kernel.py --max-seconds 0.3 \
    --min-samples 16 --repetitions 1 --json "$here/spinning-$load.json" >/dev/null 2>&1 || true
  for p in "${pids[@]}"; do kill "$p"; done
done
python3 - "$here" <<'PY'
import json, statistics as st, sys
print("| cores spinning | cpu_pressure | samples | worker median | scatterctl median | round trip | median gap | closest gap | widest gap |")
print("|---|---|---|---|---|---|---|---|---|")
for load in (0, 1, 2):
    for b in json.load(open(f"{sys.argv[1]}/spinning-{load}.json"))["benchmarks"]:
        if not b.get("outer_us"):
            continue
        gaps = [o - r - i for i, o, r in zip(b["samples_us"], b["outer_us"], b["round_trip_us"])]
        print(f"| {load} | {b['cpu_pressure']:.4f} | {len(gaps)} | {st.median(b['samples_us']):.0f} us | "
              f"{st.median(b['outer_us']):.0f} us | {st.median(b['round_trip_us']):.0f} us | {st.median(gaps):.0f} us | "
              f"{min(gaps):.0f} us | {max(gaps):.0f} us |")
PY

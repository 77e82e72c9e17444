#!/usr/bin/env bash
# The cpu backend's workload rows alone, and beside every CPU framework, with this build (its
# workers stopped between their requests) and with the base (37637dc: workers left running).
# Usage: bench/results/neighbours-cpu-2026-11-29/run.sh NEW_SCATTERCTL BASE_SCATTERCTL  (from the repository root)
set -euo pipefail
here=$(dirname "$0")
new=$1 base=$2
frameworks=onnxruntime,openvino,tvm,jax
common=(--mode workload --size small --repetitions 3)
"$new" bench "${common[@]}" --backend cpu --json "$here/new-alone.json" > "$here/new-alone.txt" 2>&1 || true
"$new" bench "${common[@]}" --backend "cpu,$frameworks" --json "$here/new-beside.json" > "$here/new-beside.txt" 2>&1 || true
"$base" bench "${common[@]}" --backend "cpu,$frameworks" --json "$here/base-beside.json" > "$here/base-beside.txt" 2>&1 || true
"$new" bench "${common[@]}" --backend cpu --json "$here/new-alone-after.json" > "$here/new-alone-after.txt" 2>&1 || true
python3 - "$here" <<'PY'
import json, sys
here = sys.argv[1]
def cpu_rows(name):
    rows = {}
    for b in json.load(open(f"{here}/{name}.json"))["benchmarks"]:
        if b.get("backend") == "cpu" and b.get("real_time"):
            rows[b["name"].rsplit("@", 1)[0]] = (b["real_time"], b.get("cpu_pressure", -1))
    return rows
runs = ["new-alone", "new-beside", "base-beside", "new-alone-after"]
data = {r: cpu_rows(r) for r in runs}
print("| row | cpu alone | beside the frameworks, stopped between requests | beside them, left running (37637dc) | alone again |")
print("|---|---|---|---|---|")
for row in data["new-alone"]:
    cells = []
    for r in runs:
        t = data[r].get(row)
        cells.append(f"{t[0]:.1f} us (pressure {t[1]:.2f})" if t else "-")
    print(f"| {row} | " + " | ".join(cells) + " |")
PY

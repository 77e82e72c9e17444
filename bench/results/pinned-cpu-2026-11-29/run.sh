#!/usr/bin/env bash
# The cpu backend's workload rows alone and beside every CPU framework, with this build (its pool
# pinned: a CPU a thread) and with the base (8656d5a: threads placed by the scheduler).
# Usage: bench/results/pinned-cpu-2026-11-29/run.sh NEW_SCATTERCTL BASE_SCATTERCTL  (from the repository root)
set -euo pipefail
here=$(dirname "$0")
new=$1 base=$2
frameworks=onnxruntime,openvino,tvm,jax
common=(--mode workload --size small --repetitions 3)
runs=(new-alone new-beside base-alone base-beside new-alone-after)
for run in "${runs[@]}"; do
  case $run in new*) exe=$new ;; *) exe=$base ;; esac
  case $run in *beside) backends=cpu,$frameworks ;; *) backends=cpu ;; esac
  "$exe" bench "${common[@]}" --backend "$backends" --json "$here/$run.json" > "$here/$run.txt" 2>&1 || true
done
python3 - "$here" "${runs[@]}" <<'PY'
import json, sys
here, runs = sys.argv[1], sys.argv[2:]
def cpu_rows(name):
    rows = {}
    for b in json.load(open(f"{here}/{name}.json"))["benchmarks"]:
        if b.get("backend") == "cpu" and b.get("real_time"):
            rows[b["name"].rsplit("@", 1)[0]] = b["real_time"]
    return rows
data = {r: cpu_rows(r) for r in runs}
print("| row | " + " | ".join(runs) + " | new beside / alone | base beside / alone |")
print("|---|" + "---|" * (len(runs) + 2))
for row in data["new-alone"]:
    t = [data[r].get(row) for r in runs]
    new_ratio = t[1] / min(t[0], t[4]) if all(t[i] for i in (0, 1, 4)) else float("nan")
    base_ratio = t[3] / t[2] if t[2] and t[3] else float("nan")
    print(f"| {row} | " + " | ".join(f"{x:.1f} us" if x else "-" for x in t) + f" | {new_ratio:.2f}x | {base_ratio:.2f}x |")
PY

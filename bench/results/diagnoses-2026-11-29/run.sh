#!/usr/bin/env bash
# Repeats table.md: each kernel of kernels/ (one known bug each, written outside the test suite;
# k_none.py is right) fuzzed with 200 cases of seed 1, failures shrunk and grouped by cause.
# Usage: bench/results/diagnoses-2026-11-29/run.sh [SCATTERCTL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctl=${1:-$here/../../../build/app/scatterctl}
out=$(mktemp -d)
for k in "$here"/kernels/k_*.py; do
  b=$(basename "$k" .py)
  "$ctl" fuzz --backend "python:$k" --iterations 200 --seed 1 --out "$out/$b" --json "$out/$b.json" >"$out/$b.log" 2>&1 || true
  grep -E '^fuzz: ([0-9]+ failures:|200 cases)' "$out/$b.log" | sed "s|^|$b: |"
done
echo "reports under $out"

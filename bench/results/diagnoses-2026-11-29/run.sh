#!/usr/bin/env bash
# Repeats table.md: each kernel of kernels.py (one known bug each, written outside the test suite;
# `right` has none) fuzzed with 200 cases of seed 1, failures shrunk and grouped by cause.
# Usage: bench/results/diagnoses-2026-11-29/run.sh [SCATTERCTL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctl=${1:-$here/../../../build/app/scatterctl}
out=$(mktemp -d)
for k in right buffered clamp skipneg init fmax trunc; do
  "$ctl" fuzz --backend "python:$here/kernels.py:$k" --iterations 200 --seed 1 --out "$out/$k" --json "$out/$k.json" \
    >"$out/$k.log" 2>&1 || true
  grep -E '^fuzz: ([0-9]+ failures:|200 cases)' "$out/$k.log" | sed "s|^|$k: |"
done
echo "reports under $out"

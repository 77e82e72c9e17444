#!/usr/bin/env bash
# A bounded cross-check of the reference against ONNX (reference evaluator), onnxruntime and torch
# (scripts/crosscheck.py): fixed seed, 200 random cases plus 2 big duplicate-heavy ones.
# Exits 0 when every disagreement is a known one (scripts/crosscheck_expectations.json).
# ctest has no skip code for these scripts, so a missing numpy or a machine without any of the
# frameworks prints "skipped: ..." and exits 0.
# Usage: bash crosscheck.sh /path/to/scatterctl /path/to/repo
set -u
BIN=$1
REPO=$2
PY=${PYTHON:-python3}

if ! command -v "$PY" >/dev/null 2>&1; then
  echo "skipped: $PY not found"
  exit 0
fi
if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
  echo "skipped: numpy not installed"
  exit 0
fi
if ! "$PY" -c '
import importlib.util, sys
sys.exit(0 if any(importlib.util.find_spec(m) for m in ("onnx", "onnxruntime", "torch")) else 1)' >/dev/null 2>&1; then
  echo "skipped: no framework installed (pip install onnx onnxruntime torch)"
  exit 0
fi

TMP=$(mktemp -d)
"$PY" "$REPO/scripts/crosscheck.py" --scatterctl "$BIN" --seed 20240601 --iterations 200 --stress 2 \
  --keep "$TMP" -q --no-probe >"$TMP/out" 2>"$TMP/err"
rc=$?
case $rc in
  0)
    tail -n 12 "$TMP/out"
    rm -rf "$TMP"
    exit 0 ;;
  77)
    cat "$TMP/out"
    echo "skipped: no framework installed (pip install onnx onnxruntime torch)"
    rm -rf "$TMP"
    exit 0 ;;
  *)
    echo "FAIL: scripts/crosscheck.py exited $rc (case files kept in $TMP/cases)"
    echo "--- stdout"; cat "$TMP/out"
    echo "--- stderr"; tail -n 40 "$TMP/err"
    exit 1 ;;
esac

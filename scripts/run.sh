#!/usr/bin/env bash
# README command 1: set up, build, and run every bundled case on every available backend;
# then say where the binary is.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
status=0
build/app/scatterctl run cases/ "$@" || status=$?
echo "scatterctl is $(pwd)/build/app/scatterctl (put it on PATH: export PATH=\"$(pwd)/build/app:\$PATH\")"
exit "$status"

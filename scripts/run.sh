#!/usr/bin/env bash
# README command 1: set up, build, and run every bundled case on every available backend;
# then say where the binary is. It builds the scatterctl target alone (the library, the CUDA
# kernels where nvcc is, the CLI): the tests, test plugins and benchmarks are scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_TARGETS=scatterctl scripts/setup.sh
status=0
build/app/scatterctl run cases/ "$@" || status=$?
echo "scatterctl is $(pwd)/build/app/scatterctl (put it on PATH: export PATH=\"$(pwd)/build/app:\$PATH\")"
exit "$status"

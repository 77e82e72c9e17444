#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (unit, CLI, all cases).
set -euo pipefail
cd "$(dirname "$0")/.."
# With the CUDA kernels wherever nvcc is: scripts/run.sh may have left them out of a first build.
scripts/setup.sh -- -DSCATTER_ENABLE_CUDA=ON
cd build
exec ctest --output-on-failure -j"$(nproc)" "$@"

#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (unit, CLI, all cases).
set -euo pipefail
cd "$(dirname "$0")/.."
# With the CUDA kernels wherever nvcc is, when scripts/run.sh left them out of its first build.
if [ -f build/.cuda-left-out-by-run-sh ]; then
  scripts/setup.sh -- -DSCATTER_ENABLE_CUDA=ON
  rm -f build/.cuda-left-out-by-run-sh
else
  scripts/setup.sh
fi
cd build
exec ctest --output-on-failure -j"$(nproc)" "$@"

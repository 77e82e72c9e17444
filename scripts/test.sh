#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (unit, CLI, all cases).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
exec ctest --output-on-failure -j"$(nproc)" "$@"

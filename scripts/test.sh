#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (unit, CLI, all cases).
# It sets up what every test needs, as CI's first step does: the Debian packages, and .venv/
# with the framework backends (scripts/setup.sh --frameworks: NumPy for the oracle, the workers
# and the Python kernels, the frameworks, cuobjdump for the SASS test). Once done, a second run
# checks a stamp and calls no pip. Without a package registry the build still runs, and the
# tests that need .venv skip, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
configure=()
# With the CUDA kernels wherever nvcc is, when scripts/run.sh left them out of its first build.
[ -f build/.cuda-left-out-by-run-sh ] && configure=(-- -DSCATTER_ENABLE_CUDA=ON)
if ! scripts/setup.sh --frameworks "${configure[@]}"; then
  echo "test: the framework backends could not be installed into .venv (no package registry?); the tests that need them will skip"
  scripts/setup.sh "${configure[@]}"
fi
rm -f build/.cuda-left-out-by-run-sh
cd build
exec ctest --output-on-failure -j"$(nproc)" "$@"

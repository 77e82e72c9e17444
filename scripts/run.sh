#!/usr/bin/env bash
# README command 1: set up, build, and run every bundled case on every available backend;
# then say where the binary is. It builds the scatterctl target alone (the library and the
# CLI): the tests, test plugins and benchmarks are scripts/test.sh's. A first build on a machine
# without a GPU leaves the CUDA kernels out too (40 s of nvcc for a backend that could only be
# skipped here); scripts/test.sh builds them. A build directory that exists keeps its choice.
set -euo pipefail
cd "$(dirname "$0")/.."
gpu_present() { [ -e /dev/nvidiactl ] || nvidia-smi -L >/dev/null 2>&1; }
configure=()
if [ ! -f build/CMakeCache.txt ] && ! gpu_present; then configure=(-- -DSCATTER_ENABLE_CUDA=OFF); fi
BUILD_TARGETS=scatterctl scripts/setup.sh "${configure[@]}"
# The mark by which scripts/test.sh knows to turn them on (an OFF of the user's own it keeps).
[ ${#configure[@]} -eq 0 ] || touch build/.cuda-left-out-by-run-sh
status=0
build/app/scatterctl run cases/ "$@" || status=$?
echo "scatterctl is $(pwd)/build/app/scatterctl (put it on PATH: export PATH=\"$(pwd)/build/app:\$PATH\")"
exit "$status"

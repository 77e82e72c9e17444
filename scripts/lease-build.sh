#!/usr/bin/env bash
# Builds here what a GPU loan runs, so that the loan's minutes go to the GPU and not to nvcc
# (the build took 177 of the 2026-11-26 loan's seconds): Release, CUDA on, sm_90 (H100, H200),
# into .lease/build; then .lease/carry, what the loan needs of it, stripped: the executables,
# the plugins and ctest's files, with libfmt (a Debian package the GPU machine's image lacks).
#
#   scripts/lease-build.sh            then, on the device: scripts/gpu-lease.sh (it finds .lease/carry)
#
# The device call names .lease/carry in `carry`. Paths are compiled into the binaries and ctest's
# files (this checkout's, for the cases and the Python workers; the build's, for the tests), so
# gpu-lease.sh links .lease/build to .lease/carry there, and this checkout's path to the copy's
# when they differ (.lease/carry/SOURCE_DIR names it). Exit 1 when the tree and the carried files
# pass the device's 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
build=.lease/build
carry=.lease/carry
limit=$((64 * 1048576))

BUILD_DIR=$build BUILD_TYPE=Release scripts/setup.sh -- -DSCATTER_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90
grep -q '^SCATTER_ENABLE_CUDA:BOOL=ON' "$build/CMakeCache.txt" && command -v nvcc >/dev/null ||
  { echo "lease-build: the build has no CUDA (nvcc not found?): nothing worth carrying" >&2; exit 1; }

rm -rf "$carry"
mkdir -p "$carry/lib"
# Executables, shared objects and ctest's files, where the build put them; no objects, archives
# or CMake's own files, and not scatter_bench (13 MiB for the one CPU test, bench.list, that the
# loan does not run).
(cd "$build" && find . -path ./CMakeFiles -prune -o -path '*/CMakeFiles' -prune -o -type f \
  \( -name CTestTestfile.cmake -o -name '*.so' -o -name '*_tests' -o -name scatterctl \
     -o -name '*_include.cmake' -o -name '*_tests.cmake' \) -print) |
  while IFS= read -r f; do
    mkdir -p "$carry/$(dirname "$f")"
    cp -p "$build/$f" "$carry/$f"
  done
find "$carry" -type f \( -name scatterctl -o -name '*_tests' -o -name '*.so' \) -exec strip --strip-unneeded {} +
# The shared libraries the GPU machine's image may lack (Debian's): found by ldd, copied whole.
ldd "$carry/app/scatterctl" "$carry/tests/scatter_tests" 2>/dev/null | awk '/libfmt|libbenchmark|libgtest/ { print $3 }' |
  sort -u | while read -r lib; do cp -L "$lib" "$carry/lib/"; done
pwd > "$carry/SOURCE_DIR"
git rev-parse HEAD > "$carry/COMMIT" 2>/dev/null || echo unknown > "$carry/COMMIT"
git status --porcelain --untracked-files=no | grep -q . && echo "lease-build: warning: built from a tree with uncommitted changes" >&2

tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
carried=$(du -cb "$carry" | tail -n 1 | cut -f1)
echo "lease-build: $carry holds $(find "$carry" -type f | wc -l) files, $((carried / 1048576)) MiB; with the tree ($((tree / 1048576)) MiB), $(((tree + carried) / 1048576)) of the device's 64 MiB"
(cd "$carry" && find . -type f -size +1M -exec du -h {} + | sort -rh)
[ $((tree + carried)) -le "$limit" ] || { echo "lease-build: over 64 MiB: the device call would be refused" >&2; exit 1; }

#!/usr/bin/env bash
# Proves, without a GPU, that `scripts/setup.sh --offline` builds scatterctl and passes the CPU
# tests from the .deb files of scripts/fetch-deps.sh alone (docs/offline-build.md).
#
# In private user, mount and network namespaces (`unshare -rmn`, no root needed) it hides the
# system's copies of those packages (every path `dpkg -L` names: the header folders, the CMake
# config folders and the libraries, runtime ones included) and cuts the network, then
#   1. checks that the hiding works: their headers do not compile and a plain configure fails;
#   2. checks that setup.sh --offline refuses a .deb whose sha256 differs from the manifest;
#   3. runs `scripts/setup.sh --offline` into BUILD_DIR (-O0 with assertions on), CUDA off
#      (OFFLINE_CUDA=1 turns it on where nvcc is found, as a GPU machine that cannot take
#      carried binaries builds: the kernels use none of the five packages, and CI's test step
#      compiles them already), with
#      apt-get and sudo replaced by stubs that record any call (none may come), and checks that
#      the binaries load libfmt from the unpacked prefix (and, with CUDA, that the cuda backend
#      was compiled in);
#   4. runs there what the five packages make work: the unit tests (GoogleTest), every bundled
#      case through scatterctl (CLI11, nlohmann/json, fmt), the layer and expectations checks,
#      and scatter_bench's list (Google Benchmark); without a GPU the GPU tests skip with the
#      reason. The CLI scripts (cli.*) and the Python tests are left to CI's test step: they
#      test the same sources built against the same package versions, and here would only
#      repeat it, at two thirds of this step's test time.
#
#   scripts/fetch-deps.sh && tests/offline_build.sh     (fetches first itself if deps/debs has no manifest)
#   tests/offline_build.sh --build-only -- CMAKE_ARGS   steps 1 to 3, the build configured with
#       CMAKE_ARGS instead of -O0 (scripts/sanitize.sh --offline: CI's sanitizer build is its
#       offline build, and the sanitizer step runs the whole suite on it, step 4 included)
# Environment: BUILD_DIR (default build-offline), BUILD_TYPE (default Debug), DEPS_DIR (default deps/debs).
# Exit: 0 passed, 1 failed, 77 skipped (user namespaces are not permitted here).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build-offline}
deps_dir=${DEPS_DIR:-deps/debs}
build_type=${BUILD_TYPE:-Debug}
export BUILD_DIR=$build_dir DEPS_DIR=$deps_dir BUILD_TYPE=$build_type

args=("$@")
inside=0
build_only=0
configure=()
while [ $# -gt 0 ]; do
  case "$1" in
    --inside) inside=1 ;;
    --build-only) build_only=1 ;;
    --) shift; configure=("$@"); break ;;
    *) echo "offline_build: unknown argument $1 (known: --build-only, -- CMAKE_ARGS)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$inside" -eq 0 ]; then
  [ -f "$deps_dir/manifest.tsv" ] || scripts/fetch-deps.sh
  if ! command -v unshare >/dev/null || ! unshare -rmn true 2>/dev/null; then
    echo "offline_build: skipped: unshare -rmn (user, mount and network namespaces) is not permitted here"
    exit 77
  fi
  exec unshare -rmn bash "$0" --inside "${args[@]}"
fi

start=$SECONDS
say() { echo "offline_build: [$((SECONDS - start)) s] $*"; }
fail() { echo "offline_build: FAILED: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ip link set lo up 2>/dev/null || true  # loopback only: the workers' pipes need no more

# --- Hide the system's copies. -------------------------------------------------------------
mapfile -t packages < <(grep -v '^#' "$deps_dir/manifest.tsv" | cut -f1)
packages+=(libgmock-dev)  # installs into GTest's CMake folder and would keep GTestConfig's company
declare -A dirs=()
files=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || continue
  while read -r path; do
    case "$path" in
      /usr/share/doc/*|/usr/share/lintian/*) ;;
      /usr/include/*/*) d=${path#/usr/include/}; dirs[/usr/include/${d%%/*}]=1 ;;
      */cmake/*/*) d=${path%%/cmake/*}; r=${path#"$d"/cmake/}; dirs[$d/cmake/${r%%/*}]=1 ;;
      *) if [ -f "$path" ]; then files+=("$path"); fi ;;
    esac
  done < <(dpkg -L "$p")
done
for d in "${!dirs[@]}"; do
  if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
done
for f in "${files[@]}"; do
  mount --bind /dev/null "$f"
done
say "hid ${#dirs[@]} folders and ${#files[@]} files of the system's ${packages[*]}"

# --- 1. The hiding works. ------------------------------------------------------------------
for h in nlohmann/json.hpp fmt/format.h CLI/CLI.hpp gtest/gtest.h benchmark/benchmark.h; do
  if printf '#include <%s>\n' "$h" | c++ -std=c++20 -fsyntax-only -x c++ - 2>/dev/null; then
    fail "<$h> still compiles with the system's copy hidden"
  fi
done
if cmake -S . -B "$tmp/plain" -DSCATTER_DEPS_PREFIX= -DSCATTER_ENABLE_CUDA=OFF >"$tmp/plain.log" 2>&1; then
  fail "a configure without the unpacked packages succeeded; the system's copies are not hidden"
fi
for deb in nlohmann-json3-dev libfmt-dev libcli11-dev libbenchmark-dev libgtest-dev; do
  grep -q "(Debian: $deb)" "$tmp/plain.log" || { cat "$tmp/plain.log"; fail "the failed configure does not name $deb"; }
done
say "1. without the .deb files: the headers do not compile, configure fails naming all 5 packages"

# --- 2. A .deb that differs from the manifest is refused before anything is unpacked. --------
mkdir "$tmp/bad"
cp "$deps_dir"/*.deb "$deps_dir/manifest.tsv" "$tmp/bad/"
victim=$(grep -v '^#' "$deps_dir/manifest.tsv" | head -n 1 | cut -f4)
printf 'x' >> "$tmp/bad/$victim"
if DEPS_DIR=$tmp/bad DEPS_PREFIX=$tmp/bad-prefix BUILD_DIR=$tmp/bad-build scripts/setup.sh --offline \
     >"$tmp/bad.log" 2>&1; then
  fail "setup.sh --offline accepted $victim with one byte appended"
fi
grep -q "$victim does not match the sha256" "$tmp/bad.log" || { cat "$tmp/bad.log"; fail "no sha256 message for $victim"; }
[ ! -e "$tmp/bad-prefix" ] && [ ! -e "$tmp/bad-build" ] || fail "setup.sh unpacked or configured despite the bad sha256"
say "2. $victim with one byte appended: refused (sha256), nothing unpacked or configured"

# --- 3. The offline build, with stubs that record any registry call. ----------------------
mkdir "$tmp/stubs"
for tool in apt-get apt sudo; do
  printf '#!/bin/sh\necho "%s $*" >> %s/calls\nexit 1\n' "$tool" "$tmp" > "$tmp/stubs/$tool"
  chmod +x "$tmp/stubs/$tool"
done
prefix=$build_dir/deps-prefix
rm -rf "$prefix"  # unpacked afresh every time: the unpacking is part of what is tested
t=$SECONDS
cuda=OFF
if [ "${OFFLINE_CUDA:-0}" = 1 ] && { command -v nvcc >/dev/null || [ -n "${CUDACXX:-}" ] || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  cuda=ON
fi
# -O0 with assertions on (Debug, without -g): the packages' work does not depend on the
# optimiser, the build takes a quarter of Release's time, and the tests run on a second build
# beside CI's Release one (docs/offline-build.md, step 3, has the numbers).
[ ${#configure[@]} -gt 0 ] || configure=(-DCMAKE_CXX_FLAGS_DEBUG=-O0)
PATH="$tmp/stubs:$PATH" DEPS_PREFIX=$prefix scripts/setup.sh --offline -- \
  -DSCATTER_ENABLE_CUDA=$cuda "${configure[@]}" ||
  fail "scripts/setup.sh --offline failed"
[ ! -s "$tmp/calls" ] || fail "setup.sh --offline called the registry: $(cat "$tmp/calls")"
grep -q "^SCATTER_DEPS_PREFIX:PATH=$(cd "$prefix" && pwd)\$" "$build_dir/CMakeCache.txt" ||
  fail "$build_dir was not configured with SCATTER_DEPS_PREFIX=$prefix"
lib=$(ldd "$build_dir/app/scatterctl" | awk '/libfmt/ { print $3 }')
[[ "$lib" == "$(cd "$prefix" && pwd)"/* ]] || fail "scatterctl loads libfmt from '$lib', not from $prefix"
"$build_dir/app/scatterctl" info >/dev/null || fail "scatterctl info failed"
if [ "$cuda" = ON ]; then
  grep -q '^CMAKE_CUDA_COMPILER:[A-Z]*=/' "$build_dir/CMakeCache.txt" || fail "configure with CUDA on found no CUDA compiler"
  "$build_dir/app/scatterctl" info | grep -q '^build: .*CUDA compiled in: yes' || fail "scatterctl info: CUDA not compiled in"
fi
say "3. setup.sh --offline built $build_dir (CUDA $cuda) in $((SECONDS - t)) s ($(grep -m1 CMAKE_GENERATOR:INTERNAL "$build_dir/CMakeCache.txt" | cut -d= -f2)); no registry call; libfmt from $lib"

# --- 4. The CPU tests. ---------------------------------------------------------------------
if [ "$build_only" -eq 1 ]; then
  say "passed (--build-only: the tests are the caller's)"
  exit 0
fi
t=$SECONDS
(cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" -E '^(cli|python)\.|^cases\.oracle$') ||
  fail "ctest failed in $build_dir"
"$build_dir/bench/scatter_bench" --benchmark_list_tests >/dev/null || fail "scatter_bench --benchmark_list_tests failed"
say "4. ctest in $build_dir passed in $((SECONDS - t)) s"

say "passed"

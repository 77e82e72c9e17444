#!/usr/bin/env bash
# The library, the CLI and the tests built with AddressSanitizer and
# UndefinedBehaviorSanitizer (g++, CUDA off) in build-asan/, then the whole ctest suite
# (unit, CLI, bad inputs, every case) and `scatterctl run cases/` on that build.
# Every sanitizer report is fatal and exits 86, an exit code no test accepts (a case
# failure is 1, an invalid file 3). AddressSanitizer also writes each report to a log
# file that fails this script whatever the test made of the exit code; gcc's
# UndefinedBehaviorSanitizer, beside ASan, ignores log_path and prints to stderr.
# Usage: scripts/sanitize.sh [--offline] [CTEST ARGS...]
#   --offline  build-asan/ is built by tests/offline_build.sh --build-only, from the .deb files of
#              scripts/fetch-deps.sh with the system's copies hidden: one build proves the
#              offline build and runs the suite sanitized (CI). Where that test is not permitted
#              (its exit 77) the build is the usual one, and the script says so.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# -O1 -g1: what the sanitizers' documentation suggests (line tables are enough for their stack
# traces); it halves the build of the template-heavy sources against -O2 -g (the cpu backend's
# instantiations, then one file: 188 s against 393 s on a 2-core machine), the longest part of
# this script. Assertions on (no -DNDEBUG): the test step has the Release build, and this one
# is the second build whose unit tests show a result that hangs on the optimiser or an assert.
configure=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DSCATTER_SANITIZE=ON -DSCATTER_ENABLE_CUDA=OFF)
if [ "${1:-}" = --offline ]; then
  shift
  rc=0
  BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo tests/offline_build.sh --build-only -- "${configure[@]}" || rc=$?
  if [ "$rc" -eq 77 ]; then
    echo "sanitize: the offline build could not be tested here (above); building build-asan as usual"
  elif [ "$rc" -ne 0 ]; then
    echo "sanitize: FAILED: the offline build (tests/offline_build.sh) exited $rc"
    exit 1
  fi
fi
# Ninja where the build directory is new (a directory keeps the generator it was made with): it
# starts the longest files first (lib/CMakeLists.txt, scatter_compiled_first).
generator=()
[ -f build-asan/CMakeCache.txt ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
cmake -S . -B build-asan "${generator[@]}" "${configure[@]}" >/dev/null
# scatter_bench too: bench.list runs it (its exit freed a static twice, which no test saw).
cmake --build build-asan -j"$(nproc)" --target scatterctl scatter_tests scatter_bench

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# exitcode=86: a report must not pass for a case failure (1) or an invalid file (3).
# handle_segv=0: the broken test plugins crash on purpose (tests/plugins/crash.cpp) and must die
# by their signal, as they do without sanitizers; a SEGV in scatterctl's own code still kills
# the test or the run by that signal, which fails it.
# intercept_tls_get_addr=0: the interceptor's record of a dlopened plugin's dynamic TLS (the example
# plugin's thread_local last error) came out as a bogus range, and LeakSanitizer's exit scan crashed
# reading it ("Tracer caught signal 11", cli.plugins --in-process); static TLS is still scanned.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86:handle_segv=0:intercept_tls_get_addr=0:log_path=$logs/asan:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86:${UBSAN_OPTIONS:-}"

status=0
(cd build-asan && ctest --output-on-failure -j"$(nproc)" "$@") || status=1
echo "sanitize: scatterctl run cases/"
build-asan/app/scatterctl run -q "$repo/cases" || status=1

if compgen -G "$logs/*" >/dev/null; then
  echo "sanitize: FAILED: sanitizer reports:"
  for f in "$logs"/*; do
    echo "--- $f"
    head -n 60 "$f"
  done
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize: FAILED (see the tests above)"
  exit 1
fi
echo "sanitize: no sanitizer report; every test passed"

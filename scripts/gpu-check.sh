#!/usr/bin/env bash
# Everything that needs a GPU, in one call, on a machine with an NVIDIA GPU and nvcc:
#   1. builds with CUDA in build-gpu/ (sm_90 + PTX unless CMAKE_CUDA_ARCHITECTURES is set);
#   2. the whole test suite with SCATTER_REQUIRE_GPU=1 (a skipped GPU test fails);
#   3. every bundled case, large ones included, on ref and cuda: out of place, in place,
#      and --deterministic (bit-identical to ref), with JSON and Markdown reports;
#   4. scatterctl fuzz --iterations N on cuda, free order and deterministic;
#   5. compute-sanitizer memcheck and racecheck over a representative subset
#      (every op x reduction on small cases, plus a short fuzz run);
#   6. unless STAGES excludes it, the GPU benchmark: cuda, torch and jax in one
#      `scatterctl bench` report (scripts/bench_gpu.sh).
# Results go to bench/results/<device>-<date>/: conformance.json (the run's report:
# device, commit, counts), conformance.md, fuzz.txt, sanitizer.txt and README.md.
#
#   scripts/gpu-check.sh                       # all stages
#   STAGES="build test cases fuzz sanitize" scripts/gpu-check.sh
#   FUZZ_ITERATIONS=500 scripts/gpu-check.sh    # quicker
# Exit: 0 when every stage passed, 1 when one failed (all stages still run), 5 without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."

stages=${STAGES:-build test cases fuzz sanitize bench}
iterations=${FUZZ_ITERATIONS:-5000}
jobs=${JOBS:-$(nproc)}
has() { [[ " $stages " == *" $1 "* ]]; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi finds none)" >&2
  exit 5
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
slug=$(echo "$gpu" | tr '[:upper:] ' '[:lower:]-' | tr -cd 'a-z0-9-')
out=${OUT:-bench/results/${slug:-gpu}-$(date -u +%Y-%m-%d)}
mkdir -p "$out"
bin=build-gpu/app/scatterctl
status=0
declare -A verdict
stage() {  # stage NAME COMMAND...: runs it, records pass/fail, never stops the script
  local name=$1
  shift
  echo "== gpu-check: $name"
  local start=$SECONDS
  if "$@"; then verdict[$name]="passed"; else verdict[$name]="FAILED (exit $?)"; status=1; fi
  verdict[$name]+=" in $((SECONDS - start)) s"
  echo "== gpu-check: $name ${verdict[$name]}"
}

export PATH=/usr/local/cuda/bin:$PATH
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)

build() {
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSCATTER_ENABLE_CUDA=ON >/dev/null &&
    cmake --build build-gpu -j"$jobs" 2>&1 | tail -n 3 &&
    "$bin" info | tee "$out/info.txt" &&
    grep -q "cuda   available" "$out/info.txt"
}
unit_tests() {
  (cd build-gpu && SCATTER_REQUIRE_GPU=1 ctest --output-on-failure -j"$jobs") > "$out/ctest.txt" 2>&1
  local rc=$?
  tail -n 5 "$out/ctest.txt"
  return $rc
}
cases() {
  local rc=0
  "$bin" run cases --backend ref,cuda --include-large -q --json "$out/conformance.json" \
    --markdown "$out/conformance.md" --save-failures "$out/failures" || rc=1
  "$bin" run cases --backend cuda --include-large -q --in-place --json "$out/conformance-in-place.json" || rc=1
  "$bin" run cases --backend cuda --include-large -q --deterministic --json "$out/conformance-deterministic.json" || rc=1
  return $rc
}
fuzz() {
  local rc=0
  {
    "$bin" fuzz --backend cuda --iterations "$iterations" --seed 1 --out "$out/fuzz-failures" || rc=1
    "$bin" fuzz --backend cuda --iterations "$iterations" --seed 2 --deterministic --out "$out/fuzz-failures" || rc=1
    "$bin" fuzz --backend cuda --iterations "$iterations" --seed 3 --in-place --max-elements 65536 \
      --out "$out/fuzz-failures" || rc=1
  } 2>&1 | tee "$out/fuzz.txt" | grep -E "^fuzz:|^FAIL" | head -n 40
  return $rc
}
sanitize() {
  [ -n "$sanitizer" ] || { echo "compute-sanitizer not found" | tee "$out/sanitizer.txt"; return 1; }
  local rc=0
  : > "$out/sanitizer.txt"
  for tool in memcheck racecheck; do
    # Every op x reduction x a spread of dtypes: the bundled per-op cases (not large),
    # then fuzzed cases with heavy duplicates and negative indices.
    for args in "run cases/scatter_elements cases/scatter_nd cases/scatter_update --backend cuda -q" \
                "run cases/scatter_nd cases/scatter_elements --backend cuda -q --deterministic" \
                "fuzz --backend cuda --iterations 300 --seed 9 --out $out/fuzz-failures"; do
      echo "--- compute-sanitizer --tool $tool scatterctl $args" >> "$out/sanitizer.txt"
      # shellcheck disable=SC2086
      "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20 "$bin" $args >> "$out/sanitizer.txt" 2>&1
      local r=$?
      echo "--- exit $r" >> "$out/sanitizer.txt"
      [ $r -eq 0 ] || rc=1
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^--- " "$out/sanitizer.txt"
  return $rc
}
bench() { OUT="$out" scripts/bench_gpu.sh; }

has build && stage build build
has test && stage test unit_tests
has cases && stage cases cases
has fuzz && stage fuzz fuzz
has sanitize && stage sanitize sanitize
has bench && stage bench bench

{
  echo "# GPU check: $gpu"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- commit: $(git rev-parse HEAD 2>/dev/null)$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' (plus uncommitted changes)')"
  echo "- driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1), $(nvcc --version | tail -n 2 | head -n 1)"
  echo "- command: \`STAGES=\"$stages\" FUZZ_ITERATIONS=$iterations scripts/gpu-check.sh\`"
  echo
  echo "| stage | result |"
  echo "|---|---|"
  for s in build test cases fuzz sanitize bench; do
    [ -n "${verdict[$s]:-}" ] && echo "| $s | ${verdict[$s]} |"
  done
  echo
  echo "conformance.json is \`scatterctl run cases --backend ref,cuda --include-large\`; the in-place and"
  echo "deterministic runs are beside it. fuzz.txt: $iterations cases per stream on cuda. sanitizer.txt:"
  echo "compute-sanitizer memcheck and racecheck summaries. Benchmarks: README of bench_gpu.sh in this folder."
  [ -f "$out/conformance.md" ] && { echo; cat "$out/conformance.md"; }
} > "$out/SUMMARY.md"
[ -f "$out/README.md" ] || cp "$out/SUMMARY.md" "$out/README.md"
cat "$out/SUMMARY.md" | head -n 20
echo "gpu-check: results in $out"
exit $status

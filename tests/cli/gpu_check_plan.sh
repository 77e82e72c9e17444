#!/usr/bin/env bash
# scripts/gpu-check.sh without a GPU: its usage, the no-GPU exit, and the plan of the
# sanitize stage (--dry-run): memcheck, synccheck and initcheck over every op, each run
# with --check-launches; racecheck on the six paths that use shared memory: CUB's radix
# sort under --deterministic, k_reduce_bins and k_reduce_block (the contention cases), k_row_tile (the
# scatter_elements cases), k_update_gather (the scatter_update cases) and the chunked path's
# k_chunk_count and k_chunk_partition (a fuzz stream under a pretend L2), the kernels of
# lib/src/cuda that declare __shared__.
# Usage: gpu_check_plan.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"
cd "$REPO" || fail "no repository at $REPO"
build=$(dirname "$(dirname "$BIN")")
gc() { scripts/gpu-check.sh "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

gc --help
check "--help: exit 0" rc_is 0
for stage in build test cases fuzz sanitize bench; do
  check "--help lists $stage" grep -Eq "^ +$stage " "$TMP/out"
done
gc nosuchstage
check "an unknown stage: exit 2" rc_is 2

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  gc sanitize --out "$TMP/res"
  check "no GPU: exit 5" rc_is 5
fi

GPU_CHECK_ASSUME_GPU=1 BUILD_DIR=$build scripts/gpu-check.sh sanitize --dry-run --out "$TMP/res" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "sanitize --dry-run: exit 0" rc_is 0
plan=$(grep '^+ ' "$TMP/out")
for tool in memcheck synccheck initcheck; do
  check "sanitize runs $tool" grep -q -- "--tool $tool .* run " <<<"$plan"
done
check "every scatterctl run and fuzz under a sanitizer checks each launch" \
  test "$(grep -Ec 'scatterctl (run|fuzz) ' <<<"$plan")" -eq "$(grep -c -- '--check-launches' <<<"$plan")"
check "racecheck runs the deterministic float reductions (the CUB sort: shared memory)" \
  grep -q -- "--tool racecheck .*--deterministic" <<<"$plan"
check "racecheck runs the contention cases (k_reduce_bins' bins and k_reduce_block's table in shared memory)" \
  grep -q -- "--tool racecheck .*--tag contention" <<<"$plan"
check "racecheck runs the scatter_elements and scatter_update cases (k_row_tile's rows, k_update_gather's winners)" \
  grep -q -- "--tool racecheck .* run cases/scatter_elements cases/scatter_update --backend" <<<"$plan"
check "racecheck and memcheck run a fuzz stream under a pretend L2 (the chunked path's histograms and runs)" \
  test "$(grep -Ec -- 'env SCATTER_CUDA_L2_BYTES=16 .*--tool (racecheck|memcheck) .* fuzz ' <<<"$plan")" -eq 2
check "every racecheck run is one of those four" \
  test -z "$(grep -- '--tool racecheck' <<<"$plan" | grep -v -e '--deterministic' -e '--tag contention' -e 'run cases/scatter_elements cases/scatter_update --backend' -e 'SCATTER_CUDA_L2_BYTES=16')"
shared=$(awk '/__global__/ { if (match($0, /k_[a-z_0-9]+\(/)) kernel = substr($0, RSTART, RLENGTH - 1) }
              /__shared__/ { print kernel }' lib/src/cuda/*.cu lib/src/cuda/*.cuh | sort -u | tr '\n' ' ')
check "only k_chunk_count, k_chunk_partition, k_reduce_bins, k_reduce_block, k_row_tile and k_update_gather declare __shared__ (else racecheck must cover the new kernel): $shared" \
  test "$shared" = "k_chunk_count k_chunk_partition k_reduce_bins k_reduce_block k_row_tile k_update_gather "
check "some bundled case is tagged contention" test -n "$("$BIN" list cases --tag contention 2>/dev/null)"
check "a dry run writes nothing" test ! -e "$TMP/res/sanitize.md"

GPU_CHECK_ASSUME_GPU=1 BUILD_DIR=$build scripts/gpu-check.sh bench --dry-run --out "$TMP/res" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "bench --dry-run: exit 0" rc_is 0
check "bench runs each mode on its own, the workloads too" test "$(grep -Ec '^\+ .* bench .*--mode (nd|elements|update|workload) ' "$TMP/out")" -eq 4
GPU_CHECK_ASSUME_GPU=1 BUILD_DIR=$build BENCH_FILTERS="nd/element/* update/rows_4096B/*" \
  scripts/gpu-check.sh bench --dry-run --out "$TMP/res" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "bench with BENCH_FILTERS --dry-run: exit 0" rc_is 0
check "BENCH_FILTERS: one run of every mode, with each glob as it was given" \
  grep -Eq -- '--mode all .*--filter nd/element/\\\* --filter update/rows_4096B/\\\*' "$TMP/out"
check "BENCH_FILTERS: no run per mode" test "$(grep -Ec -- '--mode (nd|elements|update) ' "$TMP/out")" -eq 0

# gpu-lease.sh --dry-run: the plan of a loan, each stage's budget and bench's share, then each
# stage's commands; it runs nothing. Without carried binaries the plan builds first, and bench
# gets 540 - 380 - 25 = 135 s; with them (scripts/lease-build.sh) it does not, and gets
# 540 - 180 - 25 = 335 s. A call of 300 s with a build does not fit, and says so (exit 1).
gl() { OUT=$TMP/lease-out scripts/gpu-lease.sh "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
CARRIED=$TMP/none BUILD_DIR=$build gl --dry-run
check "gpu-lease --dry-run: exit 0" rc_is 0
check "gpu-lease --dry-run: no carried binaries, so a build" grep -q '^gpu-lease: no carried binaries' "$TMP/out"
check "gpu-lease --dry-run: the plan's first line" grep -q '^gpu-lease: the plan for 540 s:$' "$TMP/out"
check "gpu-lease --dry-run: build 200 s first" grep -Eq '^  build +200 s$' "$TMP/out"
check "gpu-lease --dry-run: bench 540 - 380 - 25 = 135 s at least" grep -Eq '^  bench +135 s at least' "$TMP/out"
check "gpu-lease --dry-run: bench's benchmarks counted" grep -Eq '^  bench .*: [1-9][0-9]* benchmarks of --size large on cuda,torch$' "$TMP/out"
check "gpu-lease --dry-run: each stage's commands" grep -q '^  gpu-check sanitize: .*dry run' "$TMP/out"
check "gpu-lease --dry-run: nothing written" test -z "$(ls -A "$TMP/lease-out" 2>/dev/null)"
mkdir -p "$TMP/carry/app"
printf '#!/bin/sh\necho carried\n' > "$TMP/carry/app/scatterctl"
chmod +x "$TMP/carry/app/scatterctl"
echo 0123abc > "$TMP/carry/COMMIT"
CARRIED=$TMP/carry gl --dry-run
check "gpu-lease --dry-run, carried: exit 0" rc_is 0
check "gpu-lease --dry-run, carried: says so" grep -q '^gpu-lease: carried binaries of commit 0123abc: no build' "$TMP/out"
check "gpu-lease --dry-run, carried: no build stage" test "$(grep -Ec '^  build ' "$TMP/out")" -eq 0
check "gpu-lease --dry-run, carried: the checks 3 minutes, bench 335 s" grep -Eq '^  bench +335 s at least' "$TMP/out"
check "gpu-lease --dry-run, carried: the GPU tests only" grep -q -- 'ctest .*-R .*Cc.*uda.*Dd.*evice' "$TMP/out"
CARRIED=$TMP/none gl --dry-run 300
check "gpu-lease --dry-run 300: exit 1" rc_is 1
check "gpu-lease --dry-run 300: does not fit, says bench's -105 s" grep -q 'the plan does not fit: bench would get -105 s' "$TMP/out"
echo "gpu_check_plan: ok"

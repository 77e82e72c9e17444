#!/usr/bin/env bash
# scripts/gpu-check.sh without a GPU: its usage, the no-GPU exit, and the plan of the
# sanitize stage (--dry-run): memcheck, synccheck and initcheck over every op, each run
# with --check-launches; racecheck only on the one path that uses shared memory (CUB's
# radix sort under --deterministic), since kernels.cu declares no __shared__.
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
check "racecheck runs only deterministic cases (the CUB sort: shared memory)" \
  test -z "$(grep -- '--tool racecheck' <<<"$plan" | grep -v -- '--deterministic')"
check "the kernels declare no __shared__ (else racecheck must cover them)" \
  test -z "$(grep -l '__shared__' lib/src/cuda/*.cu lib/src/cuda/*.hpp 2>/dev/null)"
check "a dry run writes nothing" test ! -e "$TMP/res/sanitize.md"
echo "gpu_check_plan: ok"

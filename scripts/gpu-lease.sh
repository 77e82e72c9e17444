#!/usr/bin/env bash
# Every gpu-check stage in one call, for a GPU lent for a few minutes: test, cases, sanitize,
# fuzz, then bench with whatever time is left; from binaries built here and carried
# (scripts/lease-build.sh), else after a build there.
#
#   scripts/gpu-lease.sh [--dry-run] [TOTAL_SECONDS]      (default 540: 9 minutes)
#
# --dry-run prints the plan and runs nothing (no GPU needed): each stage's budget in its order,
# what bench gets of the rest and how many benchmarks it has, and the commands of each stage
# (gpu-check.sh STAGE --dry-run). The real run prints the same plan before it starts.
#
# Carried binaries (.lease/carry, or CARRIED): the device call names .lease/carry in `carry`.
# This script links .lease/build to it and, where this copy of the tree is not at the path the
# binaries were built in (.lease/carry/SOURCE_DIR), that path to this copy; libfmt comes from
# .lease/carry/lib. If the carried scatterctl does not start there (another image's libraries),
# the plan falls back to a build there and says so. The checks (test: the GPU tests, by
# CTEST_ARGS; cases; sanitize; fuzz) take 3 minutes at most, and bench the rest, 5 or more.
#
# Each stage runs under its own budget (scripts/gpu-check.sh); bench gets the rest, less 25 s
# for packing, and a bench mode the budget stops still writes the rows it finished. The
# stages' files go to a scratch folder and come back packed as $OUT/gpu-check.tar.gz (split
# into 15 MiB parts, gpu-check.tar.gz.part-aa and on, when larger), so that a machine that
# hands back only a few files gives back everything; `tar -xzf` it (after `cat` of the parts) into a folder and
# run scripts/assemble-results.sh on that folder.
# Environment: STAGES (the stages in their order; default "test cases sanitize fuzz bench" with
# carried binaries, "build test ..." without; bench takes the time left wherever it stands, less
# 30 s, the least budget, for each stage after it), STAGE_BUDGETS ("build=200 test=45 cases=45
# sanitize=60 fuzz=30"), CARRIED (.lease/carry), and everything gpu-check.sh reads (COMMIT,
# CTEST_ARGS, BENCH_BACKENDS (here cuda,torch), BENCH_MAX_SECONDS, BENCH_FILTERS, ...).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
dry_run=false
if [ "${1:-}" = --dry-run ]; then
  dry_run=true
  shift
fi
total=${1:-540}
[[ "$total" =~ ^[0-9]+$ ]] || { echo "gpu-lease: TOTAL_SECONDS must be a whole number, not '$total'" >&2; exit 2; }
out=${OUT:-build-gpu-results}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpu-lease.XXXXXX")
# Budgets from the 2026-11-26 lease (16 cores): it built in 177 s, ran the whole ctest suite in
# 48, the cases in 10 and sanitized in 19. With the binaries carried, the test stage runs the GPU
# tests only (the rest pass in CI), and the four checks fit 3 minutes.
declare -A budget=([build]=200 [test]=45 [cases]=45 [sanitize]=60 [fuzz]=30)
for pair in ${STAGE_BUDGETS:-}; do budget[${pair%%=*}]=${pair#*=}; done
# gpu-check.sh takes 30 to 3600 s a stage: a wrong budget is found here, not after the build.
for stage in "${!budget[@]}"; do
  [[ "${budget[$stage]}" =~ ^[0-9]+$ ]] && [ "${budget[$stage]}" -ge 30 ] && [ "${budget[$stage]}" -le 3600 ] ||
    { echo "gpu-lease: the $stage budget must be 30 to 3600 s, not '${budget[$stage]}'" >&2; exit 2; }
done

# Carried binaries, set up where their compiled-in paths point; "" when there are none, or
# when they do not start here (the reason is printed, and the plan builds instead).
carried=${CARRIED:-.lease/carry}
use_carried() {
  [ -x "$carried/app/scatterctl" ] || { echo "gpu-lease: no carried binaries ($carried/app/scatterctl): the plan builds here first"; return 1; }
  export BUILD_DIR=.lease/build COMMIT=${COMMIT:-$(cat "$carried/COMMIT" 2>/dev/null || echo unknown)}
  $dry_run && return 0
  local source_dir
  source_dir=$(cat "$carried/SOURCE_DIR" 2>/dev/null || echo "$PWD")
  [ -e .lease/build ] || ln -s "$(realpath "$carried")" .lease/build
  if [ "$source_dir" != "$PWD" ] && [ ! -e "$source_dir" ]; then
    mkdir -p "$(dirname "$source_dir")" && ln -s "$PWD" "$source_dir"
  fi
  export LD_LIBRARY_PATH="$(realpath "$carried")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local why
  if ! why=$(.lease/build/app/scatterctl --version 2>&1); then
    echo "gpu-lease: the carried scatterctl does not start here ($why): the plan builds here first"
    unset BUILD_DIR
    return 1
  fi
}
if use_carried; then
  default_stages="test cases sanitize fuzz bench"
  export CTEST_ARGS=${CTEST_ARGS:--R [Cc]uda|[Dd]evice|[Gg]pu|[Pp]lugin}
  echo "gpu-lease: carried binaries of commit $(cat "$carried/COMMIT" 2>/dev/null || echo unknown): no build"
else
  default_stages="build test cases sanitize fuzz bench"
fi
export BENCH_BACKENDS=${BENCH_BACKENDS:-cuda,torch} BENCH_MAX_SECONDS=${BENCH_MAX_SECONDS:-0.2}

stages=(${STAGES:-$default_stages})
for stage in "${stages[@]}"; do
  [[ " build test cases sanitize fuzz bench " == *" $stage "* ]] || { echo "gpu-lease: unknown stage '$stage'" >&2; exit 2; }
done
# The plan: each stage's budget in its order; bench has what the stages before it leave, less
# 25 s for packing and 30 s (the least budget) for each stage after it.
planned=0
echo "gpu-lease: the plan for ${total} s:"
for i in "${!stages[@]}"; do
  stage=${stages[$i]}
  if [ "$stage" = bench ]; then
    after=$((${#stages[@]} - i - 1))
    bench_plan=$((total - planned - 25 - 30 * after))
    read -ra globs <<< "${BENCH_FILTERS:-}"
    chosen=(--mode all --size "${BENCH_SIZE:-large}")
    for glob in "${globs[@]}"; do chosen+=(--filter "$glob"); done
    rows=$("${BUILD_DIR:-build}/app/scatterctl" bench --list "${chosen[@]}" 2>/dev/null | grep -c '^[a-z_]*/' || true)
    echo "  bench     ${bench_plan} s at least (what the stages before leave, less packing and 30 s for each stage after): $rows benchmarks of --size large on $BENCH_BACKENDS"
    planned=$((planned + 30))
  else
    printf '  %-9s %s s\n' "$stage" "${budget[$stage]}"
    planned=$((planned + budget[$stage]))
  fi
done
echo "  packing   25 s"
fits=true
if [ -n "${bench_plan:-}" ] && [ "$bench_plan" -lt 30 ]; then
  fits=false
  echo "gpu-lease: the plan does not fit: bench would get ${bench_plan} s, under its least 30 s (shorten STAGE_BUDGETS or STAGES)"
fi
if $dry_run; then
  for stage in "${stages[@]}"; do
    echo
    scripts/gpu-check.sh "$stage" --dry-run --budget "${budget[$stage]:-420}" 2>&1 | sed 's/^/  /'
  done
  $fits
  exit
fi

verdicts=""
for i in "${!stages[@]}"; do
  stage=${stages[$i]}
  if [ "$stage" = bench ]; then
    after=$((${#stages[@]} - i - 1))
    left=$((total - SECONDS - 25 - 30 * after))
    [ "$left" -ge 30 ] || { verdicts+="bench: no time left ($left s); "; continue; }
    budget[bench]=$left
  fi
  scripts/gpu-check.sh "$stage" --out "$scratch" --budget "${budget[$stage]}"
  rc=$?
  verdicts+="$stage: exit $rc; "
  # Without a build no later stage can run.
  [ "$stage" = build ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && break
done

mkdir -p "$out"
tar -czf "$out/gpu-check.tar.gz" -C "$scratch" .
if [ "$(stat -c %s "$out/gpu-check.tar.gz")" -gt $((15 * 1048576)) ]; then
  split -b 15M "$out/gpu-check.tar.gz" "$out/gpu-check.tar.gz.part-" && rm "$out/gpu-check.tar.gz"
fi
echo "gpu-lease: ${verdicts% } in ${SECONDS} s"
for stage in "${stages[@]}"; do
  [ -e "$scratch/$stage.md" ] && head -n 80 "$scratch/$stage.md"
done | grep -E '^(# gpu-check|\| |ctest|fuzz|gpu-check|- \*\*|\*\*)' | head -n 120

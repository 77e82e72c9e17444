#!/usr/bin/env bash
# Every gpu-check stage in one call, for a GPU lent for a few minutes: build, test, cases,
# sanitize, fuzz, then bench with whatever time is left.
#
#   scripts/gpu-lease.sh [--dry-run] [TOTAL_SECONDS]      (default 560)
#
# --dry-run prints the plan and runs nothing (no GPU needed): each stage's budget in its order,
# what bench gets of the rest, and the commands of each stage (gpu-check.sh STAGE --dry-run).
# The real run prints the same plan before it starts.
#
# Each stage runs under its own budget (scripts/gpu-check.sh); bench gets the rest, less 25 s
# for packing, and a bench mode the budget stops still writes the rows it finished. The
# stages' files go to a scratch folder and come back packed as $OUT/gpu-check.tar.gz (split
# into 15 MiB parts, gpu-check.tar.gz.part-aa and on, when larger), so that a machine that
# hands back only a few files gives back everything; `tar -xzf` it (after `cat` of the parts) into a folder and
# run scripts/assemble-results.sh on that folder.
# Environment: STAGES (the stages in their order, default "build test cases sanitize fuzz
# bench"; bench takes the time left wherever it stands, less 60 s, the least budget, for each
# stage after it),
# STAGE_BUDGETS ("build=200 test=60 cases=60 sanitize=60 fuzz=60"), and everything
# gpu-check.sh reads (COMMIT, BENCH_BACKENDS, BENCH_MAX_SECONDS, ...).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
dry_run=false
if [ "${1:-}" = --dry-run ]; then
  dry_run=true
  shift
fi
total=${1:-560}
[[ "$total" =~ ^[0-9]+$ ]] || { echo "gpu-lease: TOTAL_SECONDS must be a whole number, not '$total'" >&2; exit 2; }
out=${OUT:-build-gpu-results}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpu-lease.XXXXXX")
# Budgets that leave bench time in a call of 560 s: the 2026-11-26 lease built in 177 s, tested
# in 48, ran the cases in 10 and sanitized in 19 (16 cores); test 120 and sanitize 120 left
# bench less than nothing, and it was skipped.
declare -A budget=([build]=200 [test]=60 [cases]=60 [sanitize]=60 [fuzz]=60)
for pair in ${STAGE_BUDGETS:-}; do budget[${pair%%=*}]=${pair#*=}; done
# gpu-check.sh takes 60 to 3600 s a stage: a wrong budget is found here, not after the build.
for stage in "${!budget[@]}"; do
  [[ "${budget[$stage]}" =~ ^[0-9]+$ ]] && [ "${budget[$stage]}" -ge 60 ] && [ "${budget[$stage]}" -le 3600 ] ||
    { echo "gpu-lease: the $stage budget must be 60 to 3600 s, not '${budget[$stage]}'" >&2; exit 2; }
done

stages=(${STAGES:-build test cases sanitize fuzz bench})
for stage in "${stages[@]}"; do
  [[ " build test cases sanitize fuzz bench " == *" $stage "* ]] || { echo "gpu-lease: unknown stage '$stage'" >&2; exit 2; }
done
# The plan: each stage's budget in its order; bench has what the stages before it leave, less
# 25 s for packing and 60 s (the least budget) for each stage after it.
planned=0
echo "gpu-lease: the plan for ${total} s:"
for i in "${!stages[@]}"; do
  stage=${stages[$i]}
  if [ "$stage" = bench ]; then
    after=$((${#stages[@]} - i - 1))
    bench_plan=$((total - planned - 25 - 60 * after))
    echo "  bench     ${bench_plan} s at least (what the stages before leave, less packing and 60 s for each stage after)"
    planned=$((planned + 60))
  else
    printf '  %-9s %s s\n' "$stage" "${budget[$stage]}"
    planned=$((planned + budget[$stage]))
  fi
done
echo "  packing   25 s"
fits=true
if [ -n "${bench_plan:-}" ] && [ "$bench_plan" -lt 60 ]; then
  fits=false
  echo "gpu-lease: the plan does not fit: bench would get ${bench_plan} s, under its least 60 s (shorten STAGE_BUDGETS or STAGES)"
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
    left=$((total - SECONDS - 25 - 60 * after))
    [ "$left" -ge 60 ] || { verdicts+="bench: no time left ($left s); "; continue; }
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

#!/usr/bin/env bash
# The paired regression gate of a pull request: builds BASE_REV in a git worktree, then times
# the base build's backend against this checkout's build in one run, interleaved round by
# round (docs/benchmarks.md, "Paired A/B"), and exits with the gate's code:
#   0 passed, 1 a benchmark is slower (or lost its timing), 6 undecided within the budget.
# Both sides are driven the same way, as exe: workers, so that neither has a home advantage.
#
#   scripts/ab_gate.sh BASE_REV [BENCH ARGS...]
#     e.g. scripts/ab_gate.sh origin/main --mode nd --threshold 5%
#          scripts/ab_gate.sh origin/main --mode nd --counter instructions --threads 1
#          (instruction counts under valgrind: exact on a busy runner; the base must have the
#          counted regions, lib/src/platform/counted.hpp, or its rows say it answered without counts)
# Environment: BACKEND (cpu; ref, or cuda on a GPU machine), BUILD_DIR (build: this checkout's
# build, made if missing), AB_DIR (where the base worktree and its build go; default
# build-ab/), OUT (the report and verdict: default $AB_DIR/gate).
# BASE_REV must have `scatterctl backend-host` (the exe: worker mode): an older base cannot be
# driven this way; compare two reports of it with the unpaired `scatterctl compare` instead.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  [ $# -ge 1 ] && exit 0 || exit 2
fi
base_rev=$1
shift
backend=${BACKEND:-cpu}
build_dir=${BUILD_DIR:-build}
ab_dir=${AB_DIR:-build-ab}
out=${OUT:-$ab_dir/gate}
base_sha=$(git rev-parse --verify "$base_rev^{commit}") || { echo "ab_gate: '$base_rev' is not a commit" >&2; exit 2; }
# Said before building anything: a base without the exe: worker mode cannot be driven.
if ! git cat-file -e "$base_sha:app/cmd_backend_host.cpp" 2>/dev/null; then
  echo "ab_gate: the base $base_rev ($base_sha) has no backend-host mode (app/cmd_backend_host.cpp): it predates" \
       "the paired gate; compare two reports of it with the unpaired scatterctl compare instead (docs/benchmarks.md)" >&2
  exit 2
fi

# This checkout's build.
[ -x "$build_dir/app/scatterctl" ] || BUILD_DIR=$build_dir scripts/setup.sh
new_exe=$(realpath "$build_dir/app/scatterctl")

# The base: a worktree at BASE_REV with its own build, kept between runs (rebuilt when the
# revision changes).
worktree=$ab_dir/base
if [ -d "$worktree" ] && [ "$(git -C "$worktree" rev-parse HEAD 2>/dev/null)" != "$base_sha" ]; then
  git worktree remove --force "$worktree"
fi
if [ ! -d "$worktree" ]; then
  mkdir -p "$ab_dir"
  git worktree add --detach "$worktree" "$base_sha"
fi
# Only the base's scatterctl, configured here (this checkout's setup installed what the build
# needs): the base's own setup.sh may predate BUILD_TARGETS and build every test and kernel.
generator=()
[ -d "$worktree/build" ] || ! command -v ninja > /dev/null || generator=(-G Ninja)
cmake -S "$worktree" -B "$worktree/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$worktree/build" -j"$(nproc)" --target scatterctl
base_exe=$(realpath "$worktree/build/app/scatterctl")

mkdir -p "$out"
echo "ab_gate: base $base_rev ($base_sha) against $(git rev-parse --short HEAD)$(git diff --quiet || echo ' with local changes'), backend $backend"
rc=0
"$new_exe" bench --backend "base=exe:$base_exe:$backend,new=exe:$new_exe:$backend" --gate base,new \
  --json "$out/bench.json" --markdown "$out/gate.md" "$@" || rc=$?
"$new_exe" compare "$out/bench.json" --base base --new new --json "$out/verdict.json" > /dev/null || true
echo "ab_gate: exit $rc; report $out/bench.json, verdict $out/verdict.json, summary $out/gate.md"
exit $rc

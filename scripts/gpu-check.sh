#!/usr/bin/env bash
# One GPU stage per call, each within a time budget, so that a call fits in 8 minutes on a
# machine lent for a short while (NVIDIA GPU, nvcc, compute-sanitizer, CMake, Python; no
# package registry):
#
#   scripts/gpu-check.sh STAGE [--out DIR] [--budget SECONDS] [--dry-run]
#
# Stages, with their expected minutes on a 16-core H100 machine (estimates: no stage has
# run on a GPU yet; fuzz and sanitize take what the budget gives them):
#   build      3  configure and build with CUDA into build-gpu/ through scripts/setup.sh --offline
#                 (the .deb files of scripts/fetch-deps.sh, else the system's packages);
#                 nvcc and driver versions, `scatterctl info`
#   test       3  ctest in build-gpu/ with SCATTER_REQUIRE_GPU=1 (a skipped GPU test fails)
#   cases      1  every bundled case, large ones included, on ref,cuda: out of place,
#                 --in-place, --deterministic; JSON and Markdown reports
#   fuzz       7  scatterctl fuzz --backend cuda, free order then --deterministic, until the
#                 budget (or FUZZ_ITERATIONS per stream) ends it
#   sanitize   6  compute-sanitizer memcheck, racecheck, synccheck and initcheck (see the stage)
#   bench      6  scatterctl bench --backend cuda,torch,jax --size large, one run per mode
# Stages after build reuse build-gpu/ (BUILD_DIR) and stop if it has no scatterctl.
#
# Results: at most 3 files in DIR: STAGE.md (device, date, commit, verdict, each command with
# its exit code and time), STAGE.json (machine-readable: counts; for bench the merged
# `scatterctl bench` report with the stage's facts under context.gpu_check), and STAGE.tar.gz
# (logs, reports, failing cases; capped). scripts/assemble-results.sh makes
# bench/results/<device>-<date>/ of them (bench/results/README.md).
#
# Options:
#   --out DIR         where the results go (default: $OUT, else build-gpu-results)
#   --budget SECONDS  the stage's time budget (default: $GPU_CHECK_BUDGET, else 420). Long
#                     commands run under `timeout` with their share of what is left; 20 s (a
#                     quarter of a budget under 80 s) are kept for writing the results
#   --dry-run         print the commands the stage would run; runs nothing, needs no GPU
#   -h, --help        this text
# Environment: BUILD_DIR (build-gpu), CUDA_ARCH (90), JOBS (nproc), COMMIT (the commit under
# test, for a copy of the tree without .git), CMAKE_ARGS (more configure arguments),
# CTEST_ARGS (e.g. "-R cuda"), FUZZ_ITERATIONS (per stream, default 100000: the budget ends
# it first), FUZZ_SEED (1), BENCH_BACKENDS (cuda,torch,jax), BENCH_SIZE (large),
# BENCH_REPETITIONS (1), BENCH_MAX_SECONDS (bench's --max-seconds; its default when unset),
# BENCH_FILTERS (globs, space-separated, each a bench --filter: one run of the chosen
# benchmarks of every mode, so that a short loan measures the rows still missing),
# PYTHON (python3), COMPUTE_SANITIZER (its path).
# Without a GPU, for testing this script: GPU_CHECK_ASSUME_GPU=1 skips the nvidia-smi check,
# GPU_CHECK_BACKEND=ref runs the stages on ref instead of cuda.
#
# Exit: 0 passed, 1 failed, 2 usage error, 3 partial (the budget ended the stage early and
# nothing failed in what ran; a fuzz stream ended by the budget is complete, not partial),
# 5 no GPU.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
die_usage() { echo "gpu-check: $1 (scripts/gpu-check.sh --help)" >&2; exit 2; }

stages=" build test cases fuzz sanitize bench "
stage=""
out=${OUT:-build-gpu-results}
budget=${GPU_CHECK_BUDGET:-420}
dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --out) [ $# -ge 2 ] && [ -n "$2" ] || die_usage "--out needs a folder"; out=$2; shift ;;
    --out=*) out=${1#--out=} ;;
    --budget) [ $# -ge 2 ] || die_usage "--budget needs a number of seconds"; budget=$2; shift ;;
    --budget=*) budget=${1#--budget=} ;;
    --dry-run) dry=1 ;;
    -*) die_usage "unknown option $1" ;;
    *)
      [ -z "$stage" ] || die_usage "one stage per call ($stage and $1 given)"
      [[ "$stages" == *" $1 "* ]] || die_usage "unknown stage '$1' (stages:$stages)"
      stage=$1 ;;
  esac
  shift
done
[ -n "$stage" ] || die_usage "which stage? one of:$stages"
[[ "$budget" =~ ^[0-9]+$ ]] && [ "$budget" -ge 30 ] && [ "$budget" -le 3600 ] ||
  die_usage "--budget must be whole seconds from 30 to 3600, not '$budget'"
[ -n "$out" ] || die_usage "the output folder is empty"
command -v python3 >/dev/null || { echo "gpu-check: python3 is needed to write the results" >&2; exit 1; }

build_dir=${BUILD_DIR:-build-gpu}
bin=$build_dir/app/scatterctl
cuda_arch=${CUDA_ARCH:-90}
jobs=${JOBS:-$(nproc)}
backend=${GPU_CHECK_BACKEND:-cuda}
export PATH=$PATH:/usr/local/cuda/bin

# --- the device ------------------------------------------------------------------------
device="" driver=""
if [ "${GPU_CHECK_ASSUME_GPU:-0}" = 1 ]; then
  device="no GPU (GPU_CHECK_ASSUME_GPU=1)" driver="none"
elif command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
elif [ "$dry" -eq 1 ]; then
  device="no GPU (dry run)" driver="none"
else
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi finds none); GPU_CHECK_ASSUME_GPU=1 to test this script anyway" >&2
  exit 5
fi
nvcc_version=$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' | head -n 1)
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
dirty=false
[ -z "${COMMIT:-}" ] && git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && dirty=true
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

mkdir -p "$out" || die_usage "cannot make $out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-$stage.XXXXXX")
trap 'rm -rf "$work"' EXIT
files=$work/$stage        # what goes into STAGE.tar.gz
mkdir -p "$files"
: > "$work/steps.tsv"
: > "$work/notes.md"
echo '{}' > "$work/counts.json"
forced=""                 # "failed" or "partial" when the stage's own checks say so

# Kept for writing the results: 20 s, or a quarter of a short budget.
keep=$((budget / 4 < 20 ? budget / 4 : 20))
deadline=$((SECONDS + budget - keep))
note() { echo "$*" >> "$work/notes.md"; echo "gpu-check: $*"; }
fail() { forced=failed; note "**FAILED**: $*"; }

# step NAME SHARE LOG COMMAND...: runs COMMAND under `timeout` with 1/SHARE of the time left,
# its output appended to LOG and shown; records the exit code, time and whether the budget
# stopped it (timeout's 124, or 137 after the kill that follows a command ignoring TERM).
last_rc=0 last_timed_out=0
step() {
  local name=$1 share=$2 log=$3
  shift 3
  local left=$((deadline - SECONDS)) cmd="" arg
  for arg in "$@"; do  # as a shell would read it, without escaping what needs none
    if [[ "$arg" =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then cmd+=" $arg"; else cmd+=" $(printf '%q' "$arg")"; fi
  done
  cmd=${cmd# }
  local slice=$((left / share))
  if [ "$dry" -eq 1 ]; then
    echo "+ [$name, at most 1/$share of the time left] ${cmd//$work\//}"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" 0 0 0 "$cmd" >> "$work/steps.tsv"
    last_rc=0 last_timed_out=0
    return 0
  fi
  if [ "$slice" -lt 5 ]; then
    echo "gpu-check: $name: no time left in the budget; not run"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" -1 0 1 "$cmd" >> "$work/steps.tsv"
    last_rc=124 last_timed_out=1
    return 124
  fi
  echo "== gpu-check $stage: $name (at most ${slice}s): $cmd"
  local start=$SECONDS
  timeout --kill-after=15 "$slice" "$@" 2>&1 | tee -a "$log"
  last_rc=${PIPESTATUS[0]}
  last_timed_out=0
  [ "$last_rc" -eq 124 ] || [ "$last_rc" -eq 137 ] && last_timed_out=1
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$last_rc" "$((SECONDS - start))" "$last_timed_out" "$cmd" >> "$work/steps.tsv"
  echo "== gpu-check $stage: $name: exit $last_rc in $((SECONDS - start))s$([ "$last_timed_out" -eq 1 ] && echo ', stopped by the budget')"
  return "$last_rc"
}

need_build() {
  [ -x "$bin" ] && return 0
  if [ "$dry" -eq 1 ]; then
    echo "gpu-check: (dry run) $bin is missing: this stage would stop here; run the build stage first"
    return 0
  fi
  fail "$bin is missing: run \`scripts/gpu-check.sh build\` first on this machine (build output does not travel between machines)"
  return 1
}

# keep_capped SRC DEST MAX_FILES MAX_BYTES: copies at most MAX_FILES files (by name) of at most
# MAX_BYTES each from SRC into DEST, and lists every file of SRC in DEST.txt, so that a run with
# thousands of failing cases still gives a small archive.
keep_capped() {
  local src=$1 dest=$2 max_files=$3 max_bytes=$4 n=0 f
  [ -d "$src" ] || return 0
  mkdir -p "$dest"
  (cd "$src" && find . -type f | LC_ALL=C sort) > "$dest.txt"
  while IFS= read -r f; do
    [ "$n" -lt "$max_files" ] || break
    [ "$(stat -c %s "$src/$f")" -le "$max_bytes" ] || continue
    mkdir -p "$dest/$(dirname "$f")"
    cp "$src/$f" "$dest/$f"
    n=$((n + 1))
  done < "$dest.txt"
  note "$(wc -l < "$dest.txt") files under $(basename "$src"); the first $n (of at most $max_bytes bytes each) are in $stage.tar.gz, all named in $(basename "$dest").txt"
}

# --- stages ----------------------------------------------------------------------------

stage_build() {
  local args=(-DSCATTER_ENABLE_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$cuda_arch") extra=()
  read -r -a extra <<< "${CMAKE_ARGS:-}"
  args+=("${extra[@]}")
  # setup.sh --offline never calls apt-get: it builds from deps/debs/ (scripts/fetch-deps.sh)
  # when that folder has a manifest, else from the system's packages, and names what is missing.
  step "configure and build" 1 "$files/build.log" \
    env BUILD_DIR="$build_dir" BUILD_TYPE=Release SCATTER_GIT_COMMIT="${COMMIT:-}" scripts/setup.sh --offline -- "${args[@]}" ||
    fail "the build failed (the end of build.log is above)"
  step "nvcc --version" 1 "$files/versions.txt" nvcc --version || fail "nvcc --version failed"
  if [ "${GPU_CHECK_ASSUME_GPU:-0}" != 1 ]; then
    step "nvidia-smi" 1 "$files/nvidia-smi.txt" nvidia-smi || true
  fi
  [ "$forced" = failed ] && return
  step "scatterctl info" 1 "$files/info.txt" "$bin" info || fail "scatterctl info failed"
  [ "$dry" -eq 1 ] && return
  if grep -Eq "^ *$backend +available" "$files/info.txt"; then
    note "scatterctl info: $(grep -E "^ *$backend " "$files/info.txt" | sed 's/^ *//; s/  */ /g')"
  else
    fail "scatterctl info does not list $backend as available: $(grep -E "^ *$backend " "$files/info.txt" | sed 's/^ *//')"
  fi
  if "$bin" run --help | grep -q -- --check-launches; then
    note "scatterctl run has --check-launches: the sanitize stage uses it"
  else
    note "scatterctl run has no --check-launches yet: the sanitize stage runs without it"
  fi
  python3 - "$files/build.log" "$work/counts.json" "$cuda_arch" "$build_dir" <<'EOF'
import json, sys
log, counts, arch, build_dir = sys.argv[1:]
text = open(log, errors="replace").read() if log else ""
json.dump({"cuda_architectures": arch, "build_dir": build_dir,
           "warnings": sum(1 for l in text.splitlines() if "warning" in l.lower())}, open(counts, "w"))
EOF
}

stage_test() {
  need_build || return
  local extra=()
  read -r -a extra <<< "${CTEST_ARGS:-}"
  step ctest 1 "$files/ctest.log" env SCATTER_REQUIRE_GPU=1 ctest --test-dir "$build_dir" --output-on-failure \
    -j"$jobs" --output-junit "$files/ctest-junit.xml" "${extra[@]}"
  [ "$dry" -eq 1 ] && return
  python3 - "$files/ctest.log" "$work/counts.json" "$work/notes.md" <<'EOF'
import json, re, sys
log, counts, notes = sys.argv[1:]
text = open(log, errors="replace").read() if log else ""
status = {}
for m in re.finditer(r"Test\s+#\d+: (\S+) \.*\s*(\*{0,3}[A-Za-z][A-Za-z ]*?)\s+[0-9.]+ sec", text):
    status[m.group(1)] = m.group(2).strip("* ")
passed = sorted(n for n, s in status.items() if s == "Passed")
failed = sorted(n for n, s in status.items() if s != "Passed" and s != "Skipped")
skipped = sorted(n for n, s in status.items() if s == "Skipped")
# "100% tests passed out of 480" when none failed, "..., 2 tests failed out of 480" otherwise
m = re.search(r"tests passed(?:, \d+ tests? failed)? out of (\d+)", text)
total = int(m.group(1)) if m else None
json.dump({"total": total, "finished": len(status), "passed": len(passed), "failed": len(failed),
           "skipped": len(skipped), "failed_tests": failed[:100]}, open(counts, "w"))
with open(notes, "a") as f:
    f.write(f"ctest: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped of "
            f"{total if total is not None else 'an unknown number (ctest did not finish)'}\n")
    for n in failed[:40]:
        f.write(f"- failed: `{n}` ({status[n]})\n")
EOF
}

stage_cases() {
  need_build || return
  local backends=ref,$backend mode flag
  [ "$backend" = ref ] && backends=ref
  local -a modes=(out-of-place in-place deterministic)
  local i=${#modes[@]}
  for mode in "${modes[@]}"; do
    flag=()
    [ "$mode" = in-place ] && flag=(--in-place)
    [ "$mode" = deterministic ] && flag=(--deterministic)
    step "run $mode" "$i" "$files/cases-$mode.log" "$bin" run cases --backend "$backends" --include-large -q \
      "${flag[@]}" --json "$files/cases-$mode.json" --markdown "$files/cases-$mode.md" \
      --junit "$files/cases-$mode.xml" --save-failures "$work/failures/$mode"
    i=$((i - 1))
  done
  [ "$dry" -eq 1 ] && return
  # Saved failures hold the tensors: a failing large case is hundreds of MB.
  keep_capped "$work/failures" "$files/failures" 200 1048576
  python3 - "$files" "$work/counts.json" "$work/notes.md" "${modes[@]}" <<'EOF'
import json, os, sys
files, counts, notes, *modes = sys.argv[1:]
runs, lines = {}, []
for mode in modes:
    path = os.path.join(files, f"cases-{mode}.json")
    if not os.path.exists(path):
        runs[mode] = None
        lines.append(f"| {mode} | no report | |")
        continue
    r = json.load(open(path))
    s = r.get("summary", {})
    runs[mode] = s
    bad = [x for x in r.get("results", []) if x.get("status") not in ("passed", "skipped", "xfail")]
    lines.append(f"| {mode} | {s.get('closing_line', '?')} | "
                 + ", ".join(f"`{x['case']}` on {x['backend']} ({x['status']})" for x in bad[:15])
                 + (f", and {len(bad) - 15} more" if len(bad) > 15 else "") + " |")
json.dump({"runs": runs}, open(counts, "w"))
with open(notes, "a") as f:
    f.write("\n| run | result | not passed |\n|---|---|---|\n" + "\n".join(lines) + "\n\n"
            "The reports of each run (JSON, Markdown, JUnit) are in cases.tar.gz.\n")
EOF
}

fuzz_counts() {  # LOG: the last summary line of a fuzz run, as "cases failures interrupted"
  python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read() if sys.argv[1] else ""
m = re.findall(r"^fuzz: (\d+) cases, (\d+) runs, (\d+) failures, (\d+) xfail, (\d+) unsupported(.*)$", text, re.M)
print(" ".join(m[-1][:5]) + (" interrupted" if m and "interrupted" in m[-1][5] else " done") if m else "")
EOF
}

stage_fuzz() {
  need_build || return
  local iterations=${FUZZ_ITERATIONS:-100000} seed=${FUZZ_SEED:-1} stream flag share=2 counts rows=""
  for stream in free-order deterministic; do
    flag=()
    [ "$stream" = deterministic ] && flag=(--deterministic)
    # The budget ends the stream: scatterctl fuzz stops on SIGTERM after the case in hand and
    # prints its summary, so a stream ended by `timeout` is complete, not partial.
    step "fuzz $stream" "$share" "$files/fuzz-$stream.log" "$bin" fuzz --backend "$backend" \
      --iterations "$iterations" --seed "$seed" "${flag[@]}" --out "$work/failures/$stream"
    local rc=$last_rc timed_out=$last_timed_out
    share=1
    seed=$((seed + 1))
    [ "$dry" -eq 1 ] && continue
    counts=$(fuzz_counts "$files/fuzz-$stream.log")
    # shellcheck disable=SC2086
    set -- $counts
    if [ $# -lt 6 ]; then
      fail "fuzz $stream printed no summary (exit $rc)"
      rows+="\"$stream\": {\"exit\": $rc},"
      continue
    fi
    rows+="\"$stream\": {\"exit\": $rc, \"cases\": $1, \"runs\": $2, \"failures\": $3, \"xfail\": $4, \"unsupported\": $5, \"ended_by_budget\": $([ "$timed_out" -eq 1 ] && echo true || echo false)},"
    note "fuzz $stream: $1 cases (seed $((seed - 1))), $3 failures, $4 xfail, $5 unsupported$([ "$timed_out" -eq 1 ] && echo ', ended by the budget')"
    [ "$3" -eq 0 ] || fail "fuzz $stream: $3 failing cases"
    [ "$rc" -eq 0 ] || [ "$timed_out" -eq 1 ] || [ "$3" -gt 0 ] || fail "fuzz $stream exited $rc"
  done
  [ "$dry" -eq 1 ] && return
  echo "{${rows%,}}" > "$work/counts.json"
  keep_capped "$work/failures" "$files/failures" 100 262144
}

stage_sanitize() {
  need_build || return
  local sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
  if [ "$dry" -eq 0 ] && [ ! -x "$sanitizer" ]; then
    fail "compute-sanitizer not found (COMPUTE_SANITIZER names it)"
    return
  fi
  # Every op x reduction x a spread of dtypes: the bundled per-op cases (none of them large).
  local sel=(cases/scatter_elements cases/scatter_nd cases/scatter_update) cl=() race=()
  if [ -x "$bin" ] && "$bin" run --help | grep -q -- --check-launches; then
    cl=(--check-launches)   # synchronize and check after every launch: an error names its kernel
  else
    note "scatterctl run has no --check-launches: an asynchronous error is reported at the next synchronization"
  fi
  # racecheck finds hazards on shared memory only. Six paths use it: CUB's radix sort under
  # --deterministic (float add, sub, mul and mean); the contention paths, which the cases
  # tagged `contention` reach: k_reduce_bins on small outputs (each warp's bins, read and
  # stored by one lane at a time between warp syncs; the block's hit counts) and
  # k_reduce_block on few targets in larger ones (its table of targets and partials);
  # k_row_tile, which every bundled scatter_elements case along the last axis takes;
  # k_update_gather, which the bundled scatter_update cases take out of place; and the
  # chunked path's k_chunk_count and k_chunk_partition (histograms, ranks, runs), which only
  # outputs of several L2s take, so a fuzz stream runs it under a pretend 16-byte L2
  # (SCATTER_CUDA_L2_BYTES=16: about one case in 20 takes it), under memcheck too. Any other kernel that declares __shared__ is
  # named here, since racecheck would not cover it.
  local shared
  shared=$(awk '/__global__/ { if (match($0, /k_[a-z_0-9]+\(/)) kernel = substr($0, RSTART, RLENGTH - 1) }
                /__shared__/ { print kernel }' lib/src/cuda/*.cu 2>/dev/null | sort -u |
           grep -vx -e k_reduce_bins -e k_reduce_block -e k_row_tile -e k_update_gather -e k_chunk_count -e k_chunk_partition | tr '\n' ' ')
  if [ -n "$shared" ]; then
    note "**note**: kernels other than k_reduce_bins, k_reduce_block, k_row_tile, k_update_gather, k_chunk_count and k_chunk_partition declare \`__shared__\` ($shared): racecheck does not cover them; widen it"
  fi
  local chunks=(env SCATTER_CUDA_L2_BYTES=16)
  if [ -x "$bin" ]; then
    while read -r name; do race+=(--filter "$name"); done < <("$bin" list "${sel[@]}" 2>/dev/null |
      awk '$3 ~ /^(add|sub|mul|mean)$/ && $4 ~ /^(float64|float32|float16|bfloat16)$/ { print $1 }')
    [ ${#race[@]} -gt 0 ] || fail "scatterctl list found no float add/sub/mul/mean case for racecheck"
  else
    race=(--filter "<each float add/sub/mul/mean case>")
  fi
  local san=("$sanitizer" --error-exitcode 86 --print-limit 20)
  step "memcheck, free order" 9 "$files/memcheck-run.log" "${san[@]}" --tool memcheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q "${cl[@]}"
  step "memcheck, deterministic in place" 8 "$files/memcheck-deterministic.log" "${san[@]}" --tool memcheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q --deterministic --in-place "${cl[@]}"
  step "memcheck, fuzz" 7 "$files/memcheck-fuzz.log" "${san[@]}" --tool memcheck \
    "$bin" fuzz --backend "$backend" --iterations 200 --seed 9 --out "$work/failures/memcheck-fuzz" "${cl[@]}"
  step "memcheck, chunks" 6 "$files/memcheck-chunks.log" "${chunks[@]}" "${san[@]}" --tool memcheck \
    "$bin" fuzz --backend "$backend" --iterations 400 --seed 20261126 --out "$work/failures/memcheck-chunks" "${cl[@]}"
  step "racecheck, deterministic float reductions" 5 "$files/racecheck.log" "${san[@]}" --tool racecheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q --deterministic "${race[@]}" "${cl[@]}"
  step "racecheck, contention" 5 "$files/racecheck-contention.log" "${san[@]}" --tool racecheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q --tag contention "${cl[@]}"
  step "racecheck, row tile and gather" 4 "$files/racecheck-tiles.log" "${san[@]}" --tool racecheck \
    "$bin" run cases/scatter_elements cases/scatter_update --backend "$backend" -q "${cl[@]}"
  step "racecheck, chunks" 4 "$files/racecheck-chunks.log" "${chunks[@]}" "${san[@]}" --tool racecheck \
    "$bin" fuzz --backend "$backend" --iterations 200 --seed 20261126 --out "$work/failures/racecheck-chunks" "${cl[@]}"
  step "synccheck" 3 "$files/synccheck.log" "${san[@]}" --tool synccheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q "${cl[@]}"
  step "initcheck" 2 "$files/initcheck.log" "${san[@]}" --tool initcheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q "${cl[@]}"
  step "initcheck, deterministic" 1 "$files/initcheck-deterministic.log" "${san[@]}" --tool initcheck \
    "$bin" run "${sel[@]}" --backend "$backend" -q --deterministic "${cl[@]}"
  [ "$dry" -eq 1 ] && return
  keep_capped "$work/failures" "$files/failures" 50 262144
  python3 - "$work/steps.tsv" "$files" "$work/counts.json" "$work/notes.md" <<'EOF'
import json, re, sys
steps, files, counts, notes = sys.argv[1:]
logs = {"memcheck, free order": "memcheck-run", "memcheck, deterministic in place": "memcheck-deterministic",
        "memcheck, fuzz": "memcheck-fuzz", "memcheck, chunks": "memcheck-chunks",
        "racecheck, deterministic float reductions": "racecheck",
        "racecheck, contention": "racecheck-contention", "racecheck, row tile and gather": "racecheck-tiles",
        "racecheck, chunks": "racecheck-chunks",
        "synccheck": "synccheck", "initcheck": "initcheck", "initcheck, deterministic": "initcheck-deterministic"}
out, lines = [], []
for row in open(steps):
    name, rc, secs, timed_out, _ = row.rstrip("\n").split("\t", 4)
    try:
        text = open(f"{files}/{logs[name]}.log", errors="replace").read()
    except (KeyError, OSError):
        text = ""
    summary = re.findall(r"^=+ (?:ERROR|RACECHECK) SUMMARY: .*$", text, re.M)
    errors = sum(int(x) for x in re.findall(r"^=+ ERROR SUMMARY: (\d+) error", text, re.M))
    errors += sum(int(x) for x in re.findall(r"^=+ RACECHECK SUMMARY: .*?\((\d+) error", text, re.M))
    closing = re.findall(r"^(?:scatterctl|fuzz): \d+ (?:passed|cases).*$", text, re.M)
    out.append({"step": name, "exit": int(rc), "seconds": int(secs), "timed_out": timed_out == "1",
                "sanitizer_errors": errors, "summary": summary[-1].lstrip("= ") if summary else None,
                "closing_line": closing[-1] if closing else None})
    lines.append(f"| {name} | {out[-1]['summary'] or 'no summary'} | {out[-1]['closing_line'] or ''} |")
json.dump({"steps": out, "sanitizer_errors": sum(s["sanitizer_errors"] for s in out)}, open(counts, "w"))
with open(notes, "a") as f:
    f.write("\n| step | sanitizer | scatterctl |\n|---|---|---|\n" + "\n".join(lines) + "\n\n"
            "Exit 86 is a sanitizer report; 1 a case that failed under the sanitizer. "
            "The logs (at most 20 reports each) are in sanitize.tar.gz.\n")
EOF
}

stage_bench() {
  need_build || return
  local want=${BENCH_BACKENDS:-cuda,torch,jax} size=${BENCH_SIZE:-large} reps=${BENCH_REPETITIONS:-1}
  local py=${PYTHON:-python3} mode share=4 list=$want sampling=() modes=(nd elements update workload)
  [ -n "${BENCH_MAX_SECONDS:-}" ] && sampling=(--max-seconds "$BENCH_MAX_SECONDS")
  local globs=()
  read -ra globs <<< "${BENCH_FILTERS:-}"  # not expanded against this folder's files
  for glob in "${globs[@]}"; do sampling+=(--filter "$glob"); done
  # Chosen benchmarks run as one report: shares per mode would leave time unused.
  [ -n "${BENCH_FILTERS:-}" ] && modes=(all) share=1
  [ "$backend" = cuda ] || want=${want//cuda/$backend}
  [ "$backend" = cuda ] || list=$want
  if [ "$dry" -eq 0 ]; then
    step "scatterctl info" 1 "$files/info.txt" "$bin" info --python "$py" || { fail "scatterctl info failed"; return; }
    grep -Eq "^ *$backend +available" "$files/info.txt" || { fail "$backend is unavailable: $(grep -E "^ *$backend " "$files/info.txt")"; return; }
    notes=()
    # shellcheck source=scripts/bench_common.bash
    source scripts/bench_common.bash
    choose_backends gpu-check "$files/info.txt" "$want" > "$files/backends.txt"
    cat "$files/backends.txt"
    for n in "${notes[@]}"; do note "$n"; done
    nvidia-smi > "$files/nvidia-smi.txt" 2>&1 || true
  fi
  # One run per mode, each with its share of the budget. A run the budget stops writes the
  # rows it finished (bench stops on SIGTERM after the benchmark in hand).
  for mode in "${modes[@]}"; do
    step "bench $mode" "$share" "$files/bench-$mode.txt" "$bin" bench --backend "$list" --python "$py" \
      --mode "$mode" --size "$size" --repetitions "$reps" --json "$files/bench-$mode.json" \
      --markdown "$files/bench-$mode.md" --progress "${sampling[@]}"
    share=$((share - 1))
  done
  [ "$dry" -eq 1 ] && { echo "+ merge the reports; $py bench/summarize.py; $py scripts/plot_bench.py"; return; }
  python3 - "$files" "$work/report.json" <<'EOF'
import json, os, sys
files, merged = sys.argv[1:]
reports = [(m, json.load(open(f"{files}/bench-{m}.json"))) for m in ("nd", "elements", "update", "workload", "all")
           if os.path.exists(f"{files}/bench-{m}.json")]
if reports:
    context = dict(reports[0][1]["context"])
    context["mode"] = "all" if len(reports) == 4 else ",".join(m for m, _ in reports)
    json.dump({"context": context, "benchmarks": [b for _, r in reports for b in r["benchmarks"]]},
              open(merged, "w"), indent=1)
EOF
  if [ ! -s "$work/report.json" ]; then
    fail "no bench mode wrote a report"
    return
  fi
  "$py" bench/summarize.py "$work/report.json" --out "$files/summary.md" \
    --note "command: \`scripts/gpu-check.sh bench\`: \`scatterctl bench --backend $list --python $py --size $size --repetitions $reps\`, one run per mode" \
    > /dev/null 2>&1 || note "bench/summarize.py failed"
  "$py" scripts/plot_bench.py "$work/report.json" --out "$files" > "$files/plot.txt" 2>&1 ||
    note "no charts: scripts/plot_bench.py failed ($(tail -n 1 "$files/plot.txt"))"
  [ -s "$files/summary.md" ] && { echo; cat "$files/summary.md"; } >> "$work/notes.md"
}

echo "gpu-check $stage: $device, commit ${commit:0:12}$($dirty && echo ' (plus uncommitted changes)'), budget ${budget}s$([ "$dry" -eq 1 ] && echo ', dry run')"
"stage_$stage"

# --- results ---------------------------------------------------------------------------
[ "$dry" -eq 1 ] && { echo "gpu-check: dry run: nothing written; results would go to $out/$stage.{md,json,tar.gz}"; exit 0; }
elapsed=$((SECONDS))
# Logs over 2 MiB keep their first and last MiB.
find "$files" -type f -size +2M -name '*.log' | while IFS= read -r f; do
  { head -c 1048576 "$f"; printf '\n[... cut by gpu-check ...]\n'; tail -c 1048576 "$f"; } > "$f.cut" && mv "$f.cut" "$f"
done
rm -f "$out/$stage.md" "$out/$stage.json" "$out/$stage.tar.gz"
tarball=""
if [ -n "$(ls -A "$files")" ]; then
  tar -czf "$out/$stage.tar.gz" -C "$work" "$stage"
  if [ "$(stat -c %s "$out/$stage.tar.gz")" -gt $((15 * 1048576)) ]; then
    rm -f "$out/$stage.tar.gz"
    note "$stage.tar.gz was over 15 MiB and was left out"
  else
    tarball=$stage.tar.gz
  fi
fi
GC_DEVICE=$device GC_DRIVER=$driver GC_NVCC=$nvcc_version GC_STARTED=$started GC_COMMIT=$commit \
GC_DIRTY=$dirty GC_BACKEND=$backend GC_BUDGET=$budget GC_ELAPSED=$elapsed \
  python3 - "$work" "$out" "$stage" "$forced" "$tarball" <<'EOF'
import json, os, sys
work, out, stage, forced, tarball = sys.argv[1:]
env = os.environ
steps = []
for row in open(os.path.join(work, "steps.tsv")):
    name, rc, secs, timed_out, cmd = row.rstrip("\n").split("\t", 4)
    cmd = cmd.replace(work + "/", "")  # the paths of the archive
    steps.append({"step": name, "command": cmd, "exit": int(rc), "seconds": int(secs), "timed_out": timed_out == "1"})
# A fuzz stream ended by the budget is complete: that is how its length is bounded.
budget_bounded = stage == "fuzz"
failed = forced == "failed" or any(s["exit"] != 0 and not s["timed_out"] for s in steps)
partial = forced == "partial" or (not budget_bounded and any(s["timed_out"] for s in steps))
verdict = "failed" if failed else "partial" if partial else "passed"
meta = {
    "schema": "scatterctl-gpu-check/1", "stage": stage, "verdict": verdict,
    "exit_code": {"passed": 0, "failed": 1, "partial": 3}[verdict],
    "device": env["GC_DEVICE"], "driver": env["GC_DRIVER"], "nvcc": env["GC_NVCC"],
    "date": env["GC_STARTED"][:10], "started": env["GC_STARTED"], "commit": env["GC_COMMIT"],
    "uncommitted_changes": env["GC_DIRTY"] == "true", "backend": env["GC_BACKEND"],
    "budget_s": int(env["GC_BUDGET"]), "elapsed_s": int(env["GC_ELAPSED"]), "host": os.uname().nodename,
    "steps": steps, "counts": json.load(open(os.path.join(work, "counts.json"))),
    "files": [f"{stage}.md", f"{stage}.json"] + ([tarball] if tarball else []),
}
report = os.path.join(work, "report.json")
if stage == "bench" and os.path.exists(report):
    doc = json.load(open(report))
    doc["context"]["gpu_check"] = meta
else:
    doc = meta
json.dump(doc, open(os.path.join(out, f"{stage}.json"), "w"), indent=1)
md = [f"# gpu-check {stage}: {verdict.upper()}", "",
      f"- device: {meta['device']}, driver {meta['driver']}, nvcc {meta['nvcc'] or 'not found'}",
      f"- date: {meta['started']}, host {meta['host']}",
      f"- commit: {meta['commit']}" + (" (plus uncommitted changes)" if meta["uncommitted_changes"] else ""),
      f"- command: `scripts/gpu-check.sh {stage}`, budget {meta['budget_s']} s, took {meta['elapsed_s']} s"
      + ("" if meta["backend"] == "cuda" else f", backend {meta['backend']} (a test of the script, not of the GPU)"),
      "", "| step | exit | time | command |", "|---|---|---|---|"]
if not steps:
    md.append("| (none run) | | | |")
for s in steps:
    code = "not run (no time left)" if s["exit"] < 0 else str(s["exit"]) + (", stopped by the budget" if s["timed_out"] else "")
    cmd = s["command"] if len(s["command"]) <= 400 else s["command"][:400] + f" ...` (in full in {stage}.json)`"
    md.append(f"| {s['step']} | {code} | {s['seconds']} s | `{cmd.replace('|', chr(92) + '|')}` |")
notes = open(os.path.join(work, "notes.md")).read().strip()
if notes:
    md += ["", notes]
md += ["", f"Files: {', '.join(meta['files'])}."]
open(os.path.join(out, f"{stage}.md"), "w").write("\n".join(md) + "\n")
print(f"gpu-check {stage}: {verdict.upper()} in {meta['elapsed_s']} s; results in {out}: {', '.join(meta['files'])}")
sys.exit(meta["exit_code"])
EOF

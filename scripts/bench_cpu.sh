#!/usr/bin/env bash
# The CPU benchmark in one command: builds scatterctl (Release, no CUDA) in build-bench/,
# runs one `scatterctl bench --backend ref,cpu,numpy,onnxruntime,openvino,tvm,jax` (plus torch
# when it imports) into one JSON report, then the charts (scripts/plot_bench.py) and the
# summary (bench/summarize.py) into bench/results/cpu-<date>/.
#
#   scripts/bench_cpu.sh                  # --size small, all ops
#   SIZE=medium MODE=nd scripts/bench_cpu.sh
#   FILTER='*slice*' scripts/bench_cpu.sh  # a subset, while developing
#   BACKENDS=ref,numpy scripts/bench_cpu.sh
#   OUT=/tmp/try scripts/bench_cpu.sh      # another folder
#   ARGS='--min-samples 3 --repetitions 1' scripts/bench_cpu.sh   # more flags for scatterctl bench
#   BUILD_DIR=build-exp scripts/bench_cpu.sh   # a Release, CUDA-off build you already have
#
# The frameworks run in scatterctl's worker processes (docs/backends.md) under the
# project's .venv, which scatterctl finds by itself (made by `scripts/setup.sh --frameworks`;
# torch with `--with-torch`); PYTHON=... picks another interpreter. A framework that
# interpreter cannot import is left out with the reason, printed and in the summary.
# The charts need matplotlib in that interpreter; without it they are skipped.
# Run it on a quiet machine: the load average before and after goes into the README.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench_common.bash
source scripts/bench_common.bash

size=${SIZE:-small}
mode=${MODE:-all}
jobs=${JOBS:-2}
want=${BACKENDS:-ref,cpu,numpy,onnxruntime,openvino,tvm,jax,torch}
read -r -a extra <<< "${ARGS:-}"
out=${OUT:-bench/results/cpu-$(date -u +%Y-%m-%d)}
filter=()
[ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")
python=()
[ -n "${PYTHON:-}" ] && python=(--python "$PYTHON")
# The interpreter for the charts and the summary: the workers' one when it is known.
py=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && py=.venv/bin/python
[ -z "${PYTHON:-}" ] && [ ! -x .venv/bin/python ] &&
  echo "bench_cpu: no .venv (scripts/setup.sh --frameworks makes it): the frameworks run on python3 if it has them"

build=${BUILD_DIR:-build-bench}
cmake -S . -B "$build" -DSCATTER_ENABLE_CUDA=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs" --target scatterctl scatter_bench >/dev/null
mkdir -p "$out"
scatterctl=$build/app/scatterctl

# One run over the backends that are available; the others are named with the reason.
"$scatterctl" info "${python[@]}" | tee "$out/info.txt"
choose_backends bench_cpu "$out/info.txt" "$want"

load_before=$(uptime)
echo "bench_cpu: $load_before"
set +e
"$scatterctl" bench --backend "$list" "${python[@]}" --mode "$mode" --size "$size" "${filter[@]}" \
  "${extra[@]}" --json "$out/scatterctl.json" --markdown "$out/scatterctl.md" | tee "$out/scatterctl.txt"
rc=${PIPESTATUS[0]}
set -e
load_after=$(uptime)
echo "bench_cpu: $load_after"
write_results bench_cpu "$out" "$rc" \
  "\`SIZE=$size MODE=$mode${FILTER:+ FILTER='$FILTER'}${BACKENDS:+ BACKENDS=$BACKENDS}${ARGS:+ ARGS='$ARGS'} scripts/bench_cpu.sh\`: \`scatterctl bench --backend $list${ARGS:+ $ARGS}\`" \
  --note "uptime before: \`${load_before# }\`" --note "uptime after: \`${load_after# }\`" \
  --note "GPU numbers: scripts/bench_gpu.sh on a GPU machine"

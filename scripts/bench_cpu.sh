#!/usr/bin/env bash
# The CPU benchmark in one command: builds scatterctl (Release, no CUDA) in build-bench/,
# runs `scatterctl bench` on the ref backend, the same suite on numpy / torch (CPU) /
# onnxruntime (scripts/peers_cpu.py), the charts (scripts/plot_bench.py) and the summary
# (bench/summarize.py) into bench/results/cpu-<date>/.
#
#   scripts/bench_cpu.sh                  # --size small, all ops: about 5 minutes on 2 cores
#   SIZE=medium MODE=nd scripts/bench_cpu.sh
#   FILTER='*slice*' scripts/bench_cpu.sh  # a subset, while developing
#   OUT=/tmp/try scripts/bench_cpu.sh      # another folder
#
# Missing Python packages are installed with pip unless SCATTER_BENCH_NO_INSTALL=1.
# Run it on a quiet machine: the load average before and after goes into the README.
set -euo pipefail
cd "$(dirname "$0")/.."

size=${SIZE:-small}
mode=${MODE:-all}
jobs=${JOBS:-2}
out=${OUT:-bench/results/cpu-$(date -u +%Y-%m-%d)}
filter=()
[ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")

if [ "${SCATTER_BENCH_NO_INSTALL:-0}" != 1 ]; then
  bench/install_deps.sh cpu
fi

cmake -S . -B build-bench -DSCATTER_ENABLE_CUDA=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$jobs" --target scatterctl scatter_bench >/dev/null
mkdir -p "$out"
load_before=$(uptime)
echo "bench_cpu: $load_before"

set +e
build-bench/app/scatterctl bench --backend ref --mode "$mode" --size "$size" "${filter[@]}" \
  --json "$out/scatterctl_ref.json" --markdown "$out/scatterctl_ref.md" | tee "$out/scatterctl_ref.txt"
ours=${PIPESTATUS[0]}
python3 scripts/peers_cpu.py --mode "$mode" --size "$size" "${filter[@]}" --ref-json "$out/scatterctl_ref.json" \
  --json "$out/peers_cpu.json" 2>&1 | tee "$out/peers_cpu.txt"
peers=${PIPESTATUS[0]}
set -e
load_after=$(uptime)
echo "bench_cpu: $load_after"

python3 scripts/plot_bench.py "$out/scatterctl_ref.json" "$out/peers_cpu.json" --out "$out"
python3 bench/summarize.py "$out/scatterctl_ref.json" "$out/peers_cpu.json" --ours ref --out "$out/README.md" \
  --note "command: \`SIZE=$size MODE=$mode${FILTER:+ FILTER='$FILTER'} scripts/bench_cpu.sh\`" \
  --note "uptime before: \`${load_before# }\`" --note "uptime after: \`${load_after# }\`" \
  --note "exit codes: scatterctl bench $ours, peers_cpu.py $peers (1 = a row errored, see the tables)" \
  --note "GPU numbers: pending (scripts/bench_gpu.sh on a GPU machine)"
echo "bench_cpu: results in $out"

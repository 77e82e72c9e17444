#!/usr/bin/env bash
# The GPU benchmark in one command, on a machine with an NVIDIA GPU, nvcc and PyTorch
# with CUDA (CuPy and JAX are used when installed): builds scatterctl with CUDA in
# build-bench-cuda/, runs `scatterctl bench --mode all --size large --backend cuda`, the
# same suite on torch / torch_deterministic / cupy / jax (scripts/peers_gpu.py), the
# charts and the summary into bench/results/<device>-<date>/.
#
#   scripts/bench_gpu.sh
#   SIZE=medium FILTER='nd/*' scripts/bench_gpu.sh   # a quicker subset
#
# The 100% line of the summary and charts is the device-to-device copy: scatterctl bench
# measures it on the cuda backend (copy_bandwidth_gbps in its context) and peers_gpu.py
# measures it again beside the peers.
set -euo pipefail
cd "$(dirname "$0")/.."

size=${SIZE:-large}
mode=${MODE:-all}
jobs=${JOBS:-$(nproc)}
filter=()
[ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")
command -v nvidia-smi >/dev/null || { echo "bench_gpu: no nvidia-smi: not a GPU machine" >&2; exit 5; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr '[:upper:] ' '[:lower:]-' | tr -cd 'a-z0-9-')
out=${OUT:-bench/results/${device:-gpu}-$(date -u +%Y-%m-%d)}

[ "${SCATTER_BENCH_NO_INSTALL:-0}" = 1 ] || bench/install_deps.sh gpu

cmake -S . -B build-bench-cuda -DSCATTER_ENABLE_CUDA=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench-cuda -j"$jobs" --target scatterctl scatter_bench >/dev/null
build-bench-cuda/app/scatterctl info
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" || true

set +e
build-bench-cuda/app/scatterctl bench --backend cuda --mode "$mode" --size "$size" "${filter[@]}" \
  --json "$out/scatterctl_cuda.json" --markdown "$out/scatterctl_cuda.md" | tee "$out/scatterctl_cuda.txt"
ours=${PIPESTATUS[0]}
python3 scripts/peers_gpu.py --mode "$mode" --size "$size" "${filter[@]}" --ref-json "$out/scatterctl_cuda.json" \
  --json "$out/peers_gpu.json" 2>&1 | tee "$out/peers_gpu.txt"
peers=${PIPESTATUS[0]}
set -e
[ -s "$out/scatterctl_cuda.json" ] || { echo "bench_gpu: scatterctl bench wrote no report (exit $ours)" >&2; exit 1; }
reports=("$out/scatterctl_cuda.json")
[ -s "$out/peers_gpu.json" ] && reports+=("$out/peers_gpu.json")

python3 scripts/plot_bench.py "${reports[@]}" --out "$out"
python3 bench/summarize.py "${reports[@]}" --ours cuda --out "$out/README.md" \
  --note "command: \`SIZE=$size MODE=$mode${FILTER:+ FILTER='$FILTER'} scripts/bench_gpu.sh\`" \
  --note "exit codes: scatterctl bench $ours, peers_gpu.py $peers (1 = a row errored, see the tables)"
echo "bench_gpu: results in $out"

#!/usr/bin/env bash
# The GPU benchmark in one command, on a machine with an NVIDIA GPU, nvcc, and PyTorch and
# JAX (with CUDA) preinstalled for python3: builds scatterctl with CUDA in
# build-bench-cuda/, runs one `scatterctl bench --backend cuda,torch,jax --python python3
# --mode all --size large` into one JSON report, then the charts (scripts/plot_bench.py)
# and the summary (bench/summarize.py) into bench/results/<device>-<date>/.
#
#   scripts/bench_gpu.sh
#   SIZE=medium FILTER='nd/*' scripts/bench_gpu.sh   # a quicker subset
#   BACKENDS=cuda,torch PYTHON=/opt/conda/bin/python scripts/bench_gpu.sh
#
# torch and jax run in scatterctl's worker processes (docs/backends.md) on the GPU when
# their CUDA build sees it; one that python3 cannot import is left out with the reason.
# CuPy has no framework backend, so it is not benchmarked any more, and neither is
# PyTorch with deterministic algorithms. The 100% line of the summary and charts is the
# device-to-device copy that scatterctl bench measures on the cuda backend
# (copy_bandwidth_gbps in the report's context).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench_common.bash
source scripts/bench_common.bash

size=${SIZE:-large}
mode=${MODE:-all}
jobs=${JOBS:-$(nproc)}
want=${BACKENDS:-cuda,torch,jax}
py=${PYTHON:-python3}
filter=()
[ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")
command -v nvidia-smi >/dev/null || { echo "bench_gpu: no nvidia-smi: not a GPU machine" >&2; exit 5; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr '[:upper:] ' '[:lower:]-' | tr -cd 'a-z0-9-')
out=${OUT:-bench/results/${device:-gpu}-$(date -u +%Y-%m-%d)}

cmake -S . -B build-bench-cuda -DSCATTER_ENABLE_CUDA=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench-cuda -j"$jobs" --target scatterctl scatter_bench >/dev/null
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" || true
scatterctl=build-bench-cuda/app/scatterctl

# One run over the backends that are available; the others are named with the reason.
"$scatterctl" info --python "$py" | tee "$out/info.txt"
choose_backends bench_gpu "$out/info.txt" "$want"
case ",$want," in
  *,cuda,*) case ",$list," in *,cuda,*) ;; *) echo "bench_gpu: the cuda backend is unavailable" >&2; exit 5 ;; esac ;;
esac

set +e
"$scatterctl" bench --backend "$list" --python "$py" --mode "$mode" --size "$size" "${filter[@]}" \
  --json "$out/scatterctl.json" --markdown "$out/scatterctl.md" | tee "$out/scatterctl.txt"
rc=${PIPESTATUS[0]}
set -e
write_results bench_gpu "$out" "$rc" \
  "\`SIZE=$size MODE=$mode${FILTER:+ FILTER='$FILTER'}${BACKENDS:+ BACKENDS=$BACKENDS} scripts/bench_gpu.sh\`: \`scatterctl bench --backend $list --python $py\`"

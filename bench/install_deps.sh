#!/usr/bin/env bash
# Installs the Python packages the peers, charts and summary need, only those missing.
#   bench/install_deps.sh cpu   numpy, ml_dtypes, onnx, onnxruntime, matplotlib, torch (CPU wheel first)
#   bench/install_deps.sh gpu   numpy, ml_dtypes, matplotlib (torch, CuPy and JAX are the GPU machine's own)
set -uo pipefail
kind=${1:-cpu}
has() { python3 -c "import $1" 2>/dev/null; }
want=()
for m in numpy ml_dtypes matplotlib; do has "$m" || want+=("$m"); done
if [ "$kind" = cpu ]; then
  for m in onnx onnxruntime; do has "$m" || want+=("$m"); done
fi
if [ ${#want[@]} -gt 0 ]; then
  echo "install_deps: pip install ${want[*]}"
  python3 -m pip install -q "${want[@]}" || echo "install_deps: pip failed; the peers that need them are skipped"
fi
if [ "$kind" = cpu ] && ! has torch; then
  echo "install_deps: pip install torch (CPU wheel, else the default one)"
  python3 -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu 2>/dev/null \
    || python3 -m pip install -q torch || echo "install_deps: no torch; the torch peer is skipped"
fi
exit 0

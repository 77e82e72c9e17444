#!/usr/bin/env bash
# The machine code (SASS) of the built kernels, read with cuobjdump, checked by
# ptx_kernels_store.py --sass: every kernel stores, and each --require holds (the packed
# float16/bfloat16 atomics are ATOM.E.ADD.F16x2/BF16x2, not a CAS loop). No GPU needed.
#
#   sass_check.sh OBJECT NVCC PYTHON SOURCE_DIR [ptx_kernels_store.py arguments...]
#
# cuobjdump and nvdisasm come from the CUDA toolkit beside NVCC or, where the toolkit lacks
# them, from the nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels in SOURCE_DIR/.venv
# (scripts/requirements-frameworks.txt). Without either: exit 77 (skipped), saying so.
set -uo pipefail
object=$1 nvcc=$2 python=$3 source_dir=$4
shift 4
bin=""
for dir in "$(dirname "$nvcc")" "$source_dir"/.venv/lib/python3*/site-packages/nvidia/cu*/bin; do
  if [ -x "$dir/cuobjdump" ] && [ -x "$dir/nvdisasm" ]; then
    bin=$dir
    break
  fi
done
if [ -z "$bin" ]; then
  echo "skipped: no cuobjdump and nvdisasm (not in the CUDA toolkit at $(dirname "$nvcc"); scripts/setup.sh --frameworks installs them into .venv)"
  exit 77
fi
sass=$(mktemp)
trap 'rm -f "$sass"' EXIT
PATH=$bin:$PATH cuobjdump -sass "$object" > "$sass" || { echo "cuobjdump -sass $object failed"; exit 1; }
echo "SASS of $object by $bin/cuobjdump ($(grep -c 'Function : ' "$sass") functions)"
exec "$python" "$source_dir/tests/cuda/ptx_kernels_store.py" --sass "$sass" "$@"

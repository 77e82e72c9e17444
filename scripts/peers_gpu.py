#!/usr/bin/env python3
"""Peers on the GPU: the built-in suite of `scatterctl bench` on the same GPU with
PyTorch (index_put_, scatter_, scatter_reduce_, index_copy_; "torch" with the default
algorithms, "torch_deterministic" under torch.use_deterministic_algorithms(True)), CuPy
(fancy assignment, add/maximum/minimum.at) and JAX (jit of .at[...].set/add/multiply/
min/max), written in the JSON of `scatterctl bench --json`, so `scatterctl compare` and
scripts/plot_bench.py read it.

    scripts/peers_gpu.py --size large --json peers.json --ref-json cuda.json
    scripts/peers_gpu.py --list

Timing as PERF.md asks: CUDA events around the op only (JAX: wall clock around the
jitted call and block_until_ready, since XLA runs on its own stream), one warm-up, an L2
flush (memset of twice the L2) before each sample outside the timed region ("cold";
--hot: back to back), samples until the interquartile spread is under 0.5% or
--max-seconds, the median with spread and sample count. Out of place, the copy of data
into the output is timed. Each peer's output is first checked against a numpy oracle on
the same inputs; wrong results and missing forms are skipped with the reason. The 100%
line is the device-to-device copy bandwidth measured here (torch copy_, 1 GiB). Needs
torch with CUDA; CuPy and JAX are used when installed. Without a GPU it exits 5.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from peers.gpu import GPU_PEERS, GpuPlatform  # noqa: E402
from peers.runner import run  # noqa: E402

if __name__ == "__main__":
    sys.exit(run(sys.argv[1:], "peers_gpu", __doc__.split("\n\n")[0], GPU_PEERS, GpuPlatform,
                 "scripts/peers_gpu.py"))

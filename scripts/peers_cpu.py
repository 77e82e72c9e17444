#!/usr/bin/env python3
"""Peers on the CPU: the built-in suite of `scatterctl bench`, timed on numpy, PyTorch
(CPU) and ONNX Runtime (CPU), written in the JSON of `scatterctl bench --json`, so
`scatterctl compare` and scripts/plot_bench.py read it.

    scripts/peers_cpu.py --size small --json peers.json --ref-json ref.json
    scripts/peers_cpu.py --list

Names carry the peer as the backend: "nd/slice_256B/unique/f32@numpy", "@torch",
"@onnxruntime". Before timing, each peer's output is checked against a numpy oracle on
the same inputs (bench/peers/oracle.py); a wrong result is skipped with the reason.
Timing is scatterctl's: wall clock around the op (out of place, the copy of data into
the output included), one warm-up, samples until the interquartile spread is under 0.5%
or --max-seconds, a 256 MB write before each sample outside the timed region ("cold").
With --ref-json, the 100% line is the ref report's copy bandwidth (its own measurement
is kept in the context) and its device string is used. Missing packages are skipped and
named; numpy is required.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from peers.cpu import CPU_PEERS  # noqa: E402
from peers.measure import HostFlush, host_copy_bandwidth, ref_device_string  # noqa: E402
from peers.runner import run  # noqa: E402


class CpuPlatform:
    copy_method = "numpy copyto of 256 MB, read + write, best of 5"
    timer_method = "time.perf_counter around the call"
    use_ref_copy_line = True

    def __init__(self):
        self.device = ref_device_string()
        self.flush = HostFlush()

    @staticmethod
    def copy_bandwidth():
        return host_copy_bandwidth()

    @staticmethod
    def timer(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:], "peers_cpu", __doc__.split("\n\n")[0], CPU_PEERS, CpuPlatform,
                 "scripts/peers_cpu.py"))

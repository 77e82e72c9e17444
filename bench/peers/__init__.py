"""Peers of `scatterctl bench`: the same suite timed on other libraries, written in the
same JSON. Used by scripts/peers_cpu.py and scripts/peers_gpu.py."""

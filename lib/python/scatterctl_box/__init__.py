"""The box runtime for Python kernels: python -u -m scatterctl_box SPEC."""

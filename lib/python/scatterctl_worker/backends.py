"""Backend name -> adapter (imported lazily, so a missing framework only affects its own worker)."""
import importlib

ADAPTERS = {
    "numpy": ("numpy_backend", "NumpyAdapter"),
    "onnx": ("onnx_backend", "OnnxReferenceAdapter"),
    "onnxruntime": ("onnxruntime_backend", "OnnxRuntimeAdapter"),
    "openvino": ("openvino_backend", "OpenVinoAdapter"),
    "tvm": ("tvm_backend", "TvmAdapter"),
    "torch": ("torch_backend", "TorchAdapter"),
    "jax": ("jax_backend", "JaxAdapter"),
}


def make_adapter(name):
    if name.startswith("python:"):  # a user's kernel (kernel_backend.py)
        from .kernel_backend import KernelAdapter
        return KernelAdapter(name)
    if name not in ADAPTERS:
        raise ValueError(f"unknown backend {name!r} (known: {', '.join(ADAPTERS)})")
    mod, cls = ADAPTERS[name]
    return getattr(importlib.import_module(f".{mod}", __package__), cls)()

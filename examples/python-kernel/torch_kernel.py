"""A scatter kernel in PyTorch, on the GPU where torch sees one (else on the CPU):

    scatterctl run cases/ --backend python:examples/python-kernel/torch_kernel.py

ARRAYS = "torch" asks scatterctl's worker for torch tensors: it moves each input to the device
through DLPack before the call, and times the call with CUDA events, the stop recorded after a
device-wide synchronisation (on the CPU, with the worker's clock). The function returns a torch
tensor of data's shape and dtype.

Runs only where the chosen Python can import torch (scripts/setup.sh --frameworks --torch).
"""
import torch

NAME = "torch-example"
VERSION = "1.0"
ARRAYS = "torch"

_DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32"]
CAPABILITIES = {
    "ops": {
        "scatter_elements": {"none": _DTYPES, "add": _DTYPES},
        "scatter_nd": {"none": _DTYPES, "add": _DTYPES},
    },
    "empty_index_tuple": False,
    "use_init_val_false": False,
    "checks_indices": True,
}


def _normalized(indices, size, what):
    idx = indices.to(torch.int64)
    if idx.numel() and (bool((idx < -size).any()) or bool((idx >= size).any())):
        raise IndexError(f"{what}: an index is outside [{-size}, {size - 1}]")  # rejected with code 'index'
    return torch.where(idx < 0, idx + size, idx)


def scatter(op, data, indices, updates, *, axis, reduction, use_init_val):
    out = data.clone()
    add = reduction == "add"
    if op == "scatter_elements":
        idx = _normalized(indices, data.shape[axis], f"axis {axis}")
        if add:
            out.scatter_add_(axis, idx, updates)
        else:
            out.scatter_(axis, idx, updates)
        return out
    if op == "scatter_nd":
        k = indices.shape[-1]
        tuples = indices.reshape(-1, k)
        columns = tuple(_normalized(tuples[:, j], data.shape[j], f"dimension {j}") for j in range(k))
        out.index_put_(columns, updates.reshape((tuples.shape[0],) + tuple(data.shape[k:])), accumulate=add)
        return out
    raise NotImplementedError(op)

"""A right kernel on JAX arrays (ARRAYS = "jax"): scatter_elements and scatter_nd, none and add,
through .at[].set / .at[].add. Run by python_kernels.sh where the chosen Python imports jax."""
import jax.numpy as jnp

ARRAYS = "jax"
_DTYPES = ["float64", "float32", "int64", "int32"]
CAPABILITIES = {
    "ops": {"scatter_elements": {"none": _DTYPES, "add": _DTYPES}, "scatter_nd": {"none": _DTYPES, "add": _DTYPES}},
    "empty_index_tuple": False,
    "use_init_val_false": False,
    "checks_indices": False,
}


def scatter(op, data, indices, updates, *, axis, reduction, use_init_val):
    if op == "scatter_elements":
        coords = list(jnp.indices(indices.shape, sparse=True))
        coords[axis] = jnp.where(indices < 0, indices + data.shape[axis], indices)
        where = tuple(coords)
    else:
        k = indices.shape[-1]
        tuples = indices.reshape(-1, k)
        where = tuple(jnp.where(tuples[:, j] < 0, tuples[:, j] + data.shape[j], tuples[:, j]) for j in range(k))
        updates = updates.reshape((tuples.shape[0],) + data.shape[k:])
    return data.at[where].add(updates) if reduction == "add" else data.at[where].set(updates)

"""jax: jax.Array.at[...] updates, jitted once per signature (jax_enable_x64 on, so float64/int64 stay).

  scatter_elements  data.at[index arrays (the axis' from indices, the others from positions)].set / add /
                    multiply / min / max
  scatter_nd        data.at[tuple(indices[..., j])].set / add / subtract / multiply / min / max
  scatter_update    data.at[(:,) * axis + (indices,)].set

JAX indexing counts negative indices from the end and drops out-of-range updates (mode='drop'): it never
rejects an index, so checks_indices is false and scatter_update (where negative is an error) excludes
negative indices."""
import numpy as np

from scatterctl_spec import INDEX_DTYPES

from .adapter import Adapter, Prepared
from .protocol import Tensor

AT_METHOD = {"none": "set", "add": "add", "sub": "subtract", "mul": "multiply", "min": "min", "max": "max"}


class _Prepared(Prepared):
    timing = "perf_counter around the jitted function and block_until_ready (compiled and inputs on the device beforehand)"

    def __init__(self, fn, args, case, lowering):
        self.fn, self.args, self.case, self.lowering = fn, args, case, lowering
        self.y = None

    def call(self):
        self.y = self.fn(*self.args)
        self.y.block_until_ready()

    def result(self):
        arr = np.asarray(self.y)
        if self.case.dtype == "bfloat16":
            arr = arr.view(np.uint16)
        return Tensor(self.case.dtype, np.ascontiguousarray(arr).copy())


class JaxAdapter(Adapter):
    name = "jax"

    def load(self):
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.version = jax.__version__
        import jaxlib
        self.versions.update({"jax": jax.__version__, "jaxlib": getattr(jaxlib, "__version__", "?")})
        d = jax.devices()[0]
        self.dev = d
        self.device = f"{d.platform.upper()} ({d.device_kind})"
        self.settings = {"jax_enable_x64": "True", "platform": d.platform, "mode": "drop", "jit": "True"}
        self.has_subtract = hasattr(jnp.zeros(1).at[0], "subtract")
        self.cache = {}

    def capabilities(self):
        nd = {r: "*" for r in ("none", "add", "mul", "min", "max")}
        if self.has_subtract:
            nd["sub"] = "*"
        return {
            "ops": {"scatter_elements": {r: "*" for r in ("none", "add", "mul", "min", "max")},
                    "scatter_nd": nd,
                    "scatter_update": {"none": "*"}},
            "index_dtypes": list(INDEX_DTYPES),
            "negative_indices": True,
            "empty_index_tuple": False,
            "max_rank": 64,
            "use_init_val_false": False,
            "checks_indices": False,
            "exclude": [
                {"op": "scatter_update", "feature": "negative_indices",
                 "reason": "JAX indexing counts negative indices from the end; scatter_update defines them as errors"},
                {"op": ["scatter_elements", "scatter_nd"], "reduction": ["add", "sub", "mul"], "dtype": "bool",
                 "reason": "jax scatter add / subtract / multiply reject bool ('add does not accept dtype bool')"},
            ],
        }

    def prepare(self, case, flags):
        jax, jnp = self.jax, self.jnp
        meth = AT_METHOD[case.reduction]
        d, u = case.data.array, case.updates.array
        if case.dtype == "bfloat16":
            d, u = d.view(jnp.bfloat16), u.view(jnp.bfloat16)
        i = case.indices.array
        if case.op == "scatter_elements":
            ax = case.axis
            parts = []
            for j, c in enumerate(np.indices(i.shape, sparse=True)):
                parts.append(i if j == ax else np.broadcast_to(c, i.shape).astype(i.dtype))
            idx = tuple(parts)
            low = f"jax.Array.at[per-element index arrays, axis {ax}].{meth}(mode='drop')"
        elif case.op == "scatter_nd":
            k = i.shape[-1]
            idx = tuple(np.array(i[..., j], order="C") for j in range(k))  # keeps 0-d index arrays 0-d
            low = f"jax.Array.at[tuple of {k} index arrays].{meth}(mode='drop')"
        else:
            idx = (i,)
            low = f"jax.Array.at[(:,)*{case.axis} + (indices,)].set(mode='drop')"
        ax = case.axis if case.op == "scatter_update" else 0
        key = (case.op, case.reduction, ax, case.dtype, case.index_dtype, d.shape, tuple(x.shape for x in idx))
        fn = self.cache.get(key)
        if fn is None:
            pre = (slice(None),) * ax

            def f(data, idx, upd):
                return getattr(data.at[pre + tuple(idx)], meth)(upd, mode="drop")
            fn = self.cache[key] = jax.jit(f)
        args = (jax.device_put(d), tuple(jax.device_put(x) for x in idx), jax.device_put(u))
        return _Prepared(fn, args, case, low + " (jitted)")

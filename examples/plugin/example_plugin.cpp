// An example scatterctl plugin: a plain CPU implementation of the C ABI in
// scatter/plugin_abi.h. It supports scatter_elements and scatter_nd with none, add, mul,
// min and max, and scatter_update (none), on float32, float64, int32 and int64 data with
// int32 or int64 indices. It is written to be read, not to be fast: copy it and replace
// the loops in scatter_elements(), scatter_nd() and scatter_update() with your kernel.
//
// The rules (docs/case-format.md, "Semantics"): `out` already holds a copy of data;
// updates apply one at a time in row-major order, out = f(out, u); negative indices count
// from the end; an index out of range is rejected with the error code "index".

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "scatter/plugin_abi.h"

namespace {

// What this plugin declares (docs/backends.md, "Capabilities"); scatterctl skips any
// case outside it without calling the plugin.
constexpr const char* kCapabilities = R"({
  "ops": {
    "scatter_elements": {
      "none": ["float32", "float64", "int32", "int64"],
      "add": ["float32", "float64", "int32", "int64"],
      "mul": ["float32", "float64", "int32", "int64"],
      "min": ["float32", "float64", "int32", "int64"],
      "max": ["float32", "float64", "int32", "int64"]
    },
    "scatter_nd": {
      "none": ["float32", "float64", "int32", "int64"],
      "add": ["float32", "float64", "int32", "int64"],
      "mul": ["float32", "float64", "int32", "int64"],
      "min": ["float32", "float64", "int32", "int64"],
      "max": ["float32", "float64", "int32", "int64"]
    },
    "scatter_update": {"none": ["float32", "float64", "int32", "int64"]}
  },
  "index_dtypes": ["int32", "int64"],
  "negative_indices": true,
  "empty_index_tuple": true,
  "use_init_val_false": false,
  "checks_indices": true
})";

// The message and error code of the last non-OK status, per thread (the ABI's rule).
thread_local std::string g_error;
thread_local std::string g_error_code;

sp_status fail(sp_status status, const char* code, const std::string& message) {
  g_error = message;
  g_error_code = code;
  return status;
}

std::int64_t numel(const sp_tensor* t, int first = 0, int last = -1) {
  if (last < 0) last = t->ndim;
  std::int64_t n = 1;
  for (int d = first; d < last; ++d) n *= t->shape[d];
  return n;
}

std::int64_t index_at(const sp_tensor* indices, std::int64_t i) {
  if (indices->dtype.bits == 32) return static_cast<const std::int32_t*>(indices->data)[i];
  return static_cast<const std::int64_t*>(indices->data)[i];
}

bool is_dtype(sp_dtype t, sp_type_code code, int bits) { return t.code == code && t.bits == bits && t.lanes == 1; }

// nullptr when supported; otherwise why not.
const char* unsupported_reason(const sp_case* c) {
  if (c->data->device.device_type != SP_DEVICE_CPU) return "the example plugin runs on the CPU only";
  const sp_dtype d = c->data->dtype;
  if (!is_dtype(d, SP_CODE_FLOAT, 32) && !is_dtype(d, SP_CODE_FLOAT, 64) && !is_dtype(d, SP_CODE_INT, 32) &&
      !is_dtype(d, SP_CODE_INT, 64)) {
    return "the example plugin supports float32, float64, int32 and int64 data only";
  }
  if (!is_dtype(c->indices->dtype, SP_CODE_INT, 32) && !is_dtype(c->indices->dtype, SP_CODE_INT, 64)) {
    return "indices must be int32 or int64";
  }
  switch (c->reduction) {
    case SP_REDUCTION_NONE:
      break;
    case SP_REDUCTION_ADD:
    case SP_REDUCTION_MUL:
    case SP_REDUCTION_MIN:
    case SP_REDUCTION_MAX:
      if (c->op == SP_OP_SCATTER_UPDATE) return "scatter_update has no reductions";
      break;
    default:
      return "the example plugin implements none, add, mul, min and max only";
  }
  if (c->op != SP_OP_SCATTER_ELEMENTS && c->op != SP_OP_SCATTER_ND && c->op != SP_OP_SCATTER_UPDATE) {
    return "unknown op";
  }
  // With `none`, use_init_val = false changes nothing; reductions would start from their identity.
  if (!c->use_init_val && c->reduction != SP_REDUCTION_NONE) return "use_init_val = false is not implemented";
  return nullptr;
}

// IEEE 754-2019 minimum (min = true) and maximum: a NaN wins, and -0 < +0.
template <class T>
T ieee_min_max(T a, T b, bool min) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) == min ? a : b;  // equal, or zeros of either sign
  return (a < b) == min ? a : b;
}

// out = f(out, u). Integers wrap on overflow: computed in the unsigned type.
template <class T>
T combine(int reduction, T out, T u) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (reduction) {
      case SP_REDUCTION_ADD:
        return out + u;
      case SP_REDUCTION_MUL:
        return out * u;
      case SP_REDUCTION_MIN:
        return ieee_min_max(out, u, true);
      case SP_REDUCTION_MAX:
        return ieee_min_max(out, u, false);
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (reduction) {
      case SP_REDUCTION_ADD:
        return static_cast<T>(static_cast<U>(out) + static_cast<U>(u));
      case SP_REDUCTION_MUL:
        return static_cast<T>(static_cast<U>(out) * static_cast<U>(u));
      case SP_REDUCTION_MIN:
        return u < out ? u : out;
      case SP_REDUCTION_MAX:
        return out < u ? u : out;
    }
  }
  return u;  // none
}

// Every index in range, checked before anything is written. `extent(i)` is the dimension
// that index element i addresses; scatter_update allows no negative indices.
template <class Extent>
sp_status check_indices(const sp_case* c, Extent extent, bool negative_allowed) {
  const std::int64_t n = numel(c->indices);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = index_at(c->indices, i);
    const std::int64_t s = extent(i);
    const std::int64_t low = negative_allowed ? -s : 0;
    if (v < low || v >= s) {
      return fail(SP_REJECTED, "index",
                  "indices element " + std::to_string(i) + " = " + std::to_string(v) + " is out of range [" +
                      std::to_string(low) + ", " + std::to_string(s - 1) + "] for a dimension of " + std::to_string(s));
    }
  }
  return SP_OK;
}

// out[i0, .., idx[i0, .., ir-1], .., ir-1] = f(out[...], updates[i0, .., ir-1])  (idx at `axis`)
template <class T>
void scatter_elements(const sp_case* c) {
  T* out = static_cast<T*>(c->out->data);
  const T* updates = static_cast<const T*>(c->updates->data);
  const int rank = c->indices->ndim;
  const std::int64_t n = numel(c->indices);
  const std::int64_t extent = c->out->shape[c->axis];
  std::int64_t coord[64] = {};  // the update's coordinate, row-major
  for (std::int64_t u = 0; u < n; ++u) {
    std::int64_t target = 0;
    for (int d = 0; d < rank; ++d) {
      std::int64_t x = coord[d];
      if (d == c->axis) {
        x = index_at(c->indices, u);
        if (x < 0) x += extent;
      }
      target += x * c->out->strides[d];
    }
    out[target] = combine(c->reduction, out[target], updates[u]);
    for (int d = rank - 1; d >= 0; --d) {  // next coordinate
      if (++coord[d] < c->indices->shape[d]) break;
      coord[d] = 0;
    }
  }
}

// out[indices[m, :k]] = f(out[...], updates[m])  (a slice of data.shape[k:])
template <class T>
void scatter_nd(const sp_case* c) {
  T* out = static_cast<T*>(c->out->data);
  const T* updates = static_cast<const T*>(c->updates->data);
  const int k = static_cast<int>(c->indices->shape[c->indices->ndim - 1]);
  const std::int64_t tuples = numel(c->indices, 0, c->indices->ndim - 1);
  const std::int64_t slice = numel(c->out, k);
  for (std::int64_t m = 0; m < tuples; ++m) {
    std::int64_t base = 0;
    for (int j = 0; j < k; ++j) {
      std::int64_t x = index_at(c->indices, m * k + j);
      if (x < 0) x += c->out->shape[j];
      base += x * c->out->strides[j];
    }
    for (std::int64_t s = 0; s < slice; ++s) {
      out[base + s] = combine(c->reduction, out[base + s], updates[m * slice + s]);
    }
  }
}

// out[o, indices[i], ...] = updates[o, i, ...]  (o over data.shape[:axis], i over indices)
template <class T>
void scatter_update(const sp_case* c) {
  T* out = static_cast<T*>(c->out->data);
  const T* updates = static_cast<const T*>(c->updates->data);
  const std::int64_t outer = numel(c->out, 0, c->axis);
  const std::int64_t inner = numel(c->out, c->axis + 1);
  const std::int64_t extent = c->out->shape[c->axis];
  const std::int64_t count = numel(c->indices);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t target = (o * extent + index_at(c->indices, i)) * inner;
      const std::int64_t source = (o * count + i) * inner;
      for (std::int64_t s = 0; s < inner; ++s) out[target + s] = updates[source + s];
    }
  }
}

template <class T>
void scatter(const sp_case* c) {
  switch (c->op) {
    case SP_OP_SCATTER_ELEMENTS:
      scatter_elements<T>(c);
      break;
    case SP_OP_SCATTER_ND:
      scatter_nd<T>(c);
      break;
    case SP_OP_SCATTER_UPDATE:
      scatter_update<T>(c);
      break;
  }
}

sp_status example_supports(const sp_case* c, char* reason, size_t reason_len) {
  const char* why = unsupported_reason(c);
  if (why == nullptr) return SP_OK;
  std::snprintf(reason, reason_len, "%s", why);
  return fail(SP_UNSUPPORTED, "", why);
}

sp_status example_run(const sp_case* c) {
  // Never throw across the boundary: std::string can throw bad_alloc.
  try {
    if (const char* why = unsupported_reason(c)) return fail(SP_UNSUPPORTED, "", why);
    sp_status status = SP_OK;
    if (c->op == SP_OP_SCATTER_ND) {
      const std::int64_t k = c->indices->shape[c->indices->ndim - 1];
      status = check_indices(c, [&](std::int64_t i) { return c->out->shape[i % k]; }, true);
    } else {
      const std::int64_t extent = c->out->shape[c->axis];
      status = check_indices(c, [&](std::int64_t) { return extent; }, c->op != SP_OP_SCATTER_UPDATE);
    }
    if (status != SP_OK) return status;

    const sp_dtype d = c->data->dtype;
    if (is_dtype(d, SP_CODE_FLOAT, 32)) scatter<float>(c);
    if (is_dtype(d, SP_CODE_FLOAT, 64)) scatter<double>(c);
    if (is_dtype(d, SP_CODE_INT, 32)) scatter<std::int32_t>(c);
    if (is_dtype(d, SP_CODE_INT, 64)) scatter<std::int64_t>(c);
    return SP_OK;
  } catch (...) {
    g_error = "out of memory";  // fits the string's existing buffer: no allocation
    return SP_ERROR;
  }
}

const char* example_last_error() { return g_error.c_str(); }
const char* example_last_error_code() { return g_error_code.c_str(); }

}  // namespace

extern "C" SP_EXPORT const sp_plugin_api* scatter_plugin_get_api(uint32_t host_abi_major, uint32_t /*host_abi_minor*/) {
  static const sp_plugin_api api = {
      sizeof(sp_plugin_api),
      SP_ABI_MAJOR,
      SP_ABI_MINOR,
      "example",
      "1.0.0",
      kCapabilities,
      example_supports,
      example_run,
      example_last_error,
      example_last_error_code,
      SP_MEMORY_HOST,  // host tensors (example_cuda_plugin.cu takes them on the GPU)
  };
  return host_abi_major == SP_ABI_MAJOR ? &api : nullptr;
}

// A scatter kernel on the GPU as a scatterctl plugin (ABI 1.1, device tensors): scatter_elements
// and scatter_nd with `none` and `add` on float32 data, int32 or int64 indices. scatterctl
// uploads the inputs, gives `out` (a copy of data) on the device and its stream, and times from
// before run() until the whole device is idle.
//
//     build/app/scatterctl run cases/ --backend plugin:build/examples/plugin/libscatter_example_cuda_plugin.so
//
// One thread per update element. `none` with duplicate targets stores in no fixed order, and
// `add` adds with atomicAdd in no fixed order: the spec's comparison accepts either (any
// duplicate's value; a tolerance for float sums). SP_FLAG_DETERMINISTIC asks for the same bits on
// every run, which this kernel does not give, so supports() declines those cases. It does not check
// indices (it declares "checks_indices": false); an out-of-range index is skipped, never written.

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "scatter/plugin_abi.h"

namespace {

constexpr int kMaxRank = 8;
constexpr int kThreads = 256;

const char* const kCapabilities = R"({
  "ops": {
    "scatter_elements": {"none": ["float32"], "add": ["float32"]},
    "scatter_nd": {"none": ["float32"], "add": ["float32"]}
  },
  "max_rank": 8,
  "use_init_val_false": false,
  "checks_indices": false
})";

thread_local char last_error[512];

// Shapes and strides travel by value, in kernel parameters.
struct Dims {
  int rank;
  int64_t shape[kMaxRank];
  int64_t stride[kMaxRank];  // in elements, row-major
};

Dims dims_of(const sp_tensor* t) {
  Dims d{};
  d.rank = t->ndim;
  for (int i = 0; i < t->ndim; ++i) {
    d.shape[i] = t->shape[i];
    d.stride[i] = t->strides[i];
  }
  return d;
}

int64_t numel(const sp_tensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

template <class Index>
__device__ int64_t load_index(const Index* indices, int64_t i) {
  return static_cast<int64_t>(indices[i]);
}

__device__ void apply(float* out, int64_t target, float update, bool add) {
  if (add) {
    atomicAdd(out + target, update);
  } else {
    out[target] = update;
  }
}

// out[.., indices[e], ..] (axis) op= updates[e], e over the indices' elements.
template <class Index>
__global__ void scatter_elements(float* out, Dims data, const Index* indices, Dims index, const float* updates,
                                 int axis, int64_t count, bool add) {
  const int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (e >= count) return;
  int64_t rest = e;
  int64_t target = 0;
  for (int d = index.rank - 1; d >= 0; --d) {
    int64_t coord = rest % index.shape[d];
    rest /= index.shape[d];
    if (d == axis) {
      coord = load_index(indices, e);
      if (coord < 0) coord += data.shape[d];
      if (coord < 0 || coord >= data.shape[d]) return;  // out of range: not written
    }
    target += coord * data.stride[d];
  }
  apply(out, target, updates[e], add);
}

// out[indices[m]] op= updates[m], a slice of `slice` elements per index tuple of k.
template <class Index>
__global__ void scatter_nd(float* out, Dims data, const Index* indices, int k, const float* updates, int64_t slice,
                           int64_t count, bool add) {
  const int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (e >= count) return;
  const int64_t m = e / slice;
  int64_t target = e % slice;
  for (int d = 0; d < k; ++d) {
    int64_t coord = load_index(indices, m * k + d);
    if (coord < 0) coord += data.shape[d];
    if (coord < 0 || coord >= data.shape[d]) return;
    target += coord * data.stride[d];
  }
  apply(out, target, updates[e], add);
}

sp_status fail(const char* what, cudaError_t e) {
  std::snprintf(last_error, sizeof last_error, "%s: %s", what, cudaGetErrorString(e));
  return SP_ERROR;
}

sp_status example_supports(const sp_case* c, char* reason, size_t reason_len) {
  if (c->flags & SP_FLAG_DETERMINISTIC) {
    std::snprintf(reason, reason_len, "no fixed order (atomicAdd, racing stores to duplicate targets): "
                                      "--deterministic is not implemented");
    return SP_UNSUPPORTED;
  }
  return SP_OK;
}

template <class Index>
sp_status launch(const sp_case* c) {
  auto* out = static_cast<float*>(c->out->data);
  const auto* indices = static_cast<const Index*>(c->indices->data);
  const auto* updates = static_cast<const float*>(c->updates->data);
  const bool add = c->reduction == SP_REDUCTION_ADD;
  const int64_t count = numel(c->updates);
  if (count == 0) return SP_OK;
  const auto blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
  auto stream = static_cast<cudaStream_t>(c->stream);
  if (c->op == SP_OP_SCATTER_ELEMENTS) {
    scatter_elements<Index><<<blocks, kThreads, 0, stream>>>(out, dims_of(c->out), indices, dims_of(c->indices), updates,
                                                             c->axis, count, add);
  } else {
    const int k = static_cast<int>(c->indices->shape[c->indices->ndim - 1]);
    int64_t slice = 1;
    for (int d = k; d < c->out->ndim; ++d) slice *= c->out->shape[d];
    scatter_nd<Index><<<blocks, kThreads, 0, stream>>>(out, dims_of(c->out), indices, k, updates, slice, count, add);
  }
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? SP_OK : fail("kernel launch", e);
}

sp_status example_run(const sp_case* c) {
  if (c->data->device.device_type != SP_DEVICE_CUDA) {
    std::snprintf(last_error, sizeof last_error, "expected device tensors (this plugin declares SP_MEMORY_CUDA)");
    return SP_ERROR;
  }
  if (c->op != SP_OP_SCATTER_ELEMENTS && c->op != SP_OP_SCATTER_ND) return SP_UNSUPPORTED;
  return c->indices->dtype.bits == 32 ? launch<int32_t>(c) : launch<int64_t>(c);
}

const char* example_last_error() { return last_error; }
const char* example_last_error_code() { return ""; }

}  // namespace

extern "C" SP_EXPORT const sp_plugin_api* scatter_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  static const sp_plugin_api api = {
      sizeof(sp_plugin_api),
      SP_ABI_MAJOR,
      SP_ABI_MINOR,
      "example-cuda",
      "1.0.0",
      kCapabilities,
      example_supports,
      example_run,
      example_last_error,
      example_last_error_code,
      SP_MEMORY_CUDA,
  };
  // Device tensors came with ABI 1.1: an older scatterctl would hand this plugin host memory.
  return host_abi_major == SP_ABI_MAJOR && host_abi_minor >= 1 ? &api : nullptr;
}

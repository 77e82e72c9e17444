#pragma once
// Path::sorted and mean: --deterministic's sort of (key, update bits) and its levels of runs,
// and mean's division: kernels and launcher.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

template <class T>
__global__ void k_mean(std::int64_t n, T* out, const unsigned int* count, int init) {
  for (std::int64_t i = thread_start(); i < n; i += grid_stride()) {
    if (count[i] > 0) out[i] = mean_of(out[i], static_cast<std::int64_t>(count[i]) + init);
  }
}

// --deterministic (float add, sub, mul, mean): each update's target as a sort key (K: 32
// bits when the targets and the guard's sentinel fit, else 64), then a stable radix sort
// of keys with the update values themselves (no later gather), then the levels of
// sorted_runs.hpp.
template <class K, class Off, class IndexT>
__global__ void k_keys(Geometry g, const IndexT* idx, K* keys, int* guard) {
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = guarded(target_of<Off>(g, idx, i), n, guard);
    keys[i] = static_cast<K>(o < 0 ? n : o);  // a guarded target sorts last; the levels skip it
  }
}

// Level 0: a thread per chunk of sorted updates; short runs finish here in update order.
template <class T, class K>
__global__ void k_runs_first(std::int64_t u, std::int64_t n, const K* key, const T* value, T* out, Reduction r,
                             int init, Pieces<T, K> up) {
  const std::int64_t chunks = (u + kRunChunk - 1) / kRunChunk;
  for (std::int64_t c = thread_start(); c < chunks; c += grid_stride()) {
    reduce_runs_first(c, u, n, kRunChunk, kSerialRun, key, value, out, r, init, up);
  }
}

// Level 1 and up: a thread per chunk of the pieces of long runs.
template <class T, class K>
__global__ void k_runs_next(std::int64_t m, Pieces<T, K> in, T* out, Reduction r, int init, Pieces<T, K> up) {
  const std::int64_t chunks = (m + kRunChunk - 1) / kRunChunk;
  for (std::int64_t c = thread_start(); c < chunks; c += grid_stride()) {
    reduce_runs_next(c, m, kRunChunk, in, out, r, init, up);
  }
}

// --deterministic: keys, the stable sort of (key, update bits), then the levels, ping-ponging
// between the two piece buffers (one level when u <= kSerialRun: every run is short).
template <class T, class K, class Off, class IndexT>
cudaError_t run_sorted(const Launch& l, const Buffers& b, const Scratch& s, int init, Queue& q) {
  using Bits = BitsOf<T>;
  const auto& g = l.geometry;
  auto* keys_in = static_cast<K*>(s.keys[0]);
  auto* keys = static_cast<K*>(s.keys[1]);
  auto* sorted = static_cast<Bits*>(s.sorted);
  auto* out = static_cast<T*>(b.out);
  k_keys<K, Off, IndexT><<<blocks_for(g.u, l.sm_count), kThreads, 0, q.stream>>>(
      g, static_cast<const IndexT*>(b.indices), keys_in, b.guard);
  if (cudaError_t e = q.launched("k_keys")) return e;
  std::size_t bytes = s.cub_bytes;
  if (cudaError_t e = cub::DeviceRadixSort::SortPairs(s.cub, bytes, keys_in, keys, static_cast<const Bits*>(b.updates),
                                                      sorted, static_cast<int>(g.u), 0, key_bits(g.n), q.stream)) {
    return e;
  }
  if (cudaError_t e = q.launched("cub::DeviceRadixSort::SortPairs")) return e;
  Pieces<T, K> pieces[2];
  for (int i = 0; i < 2; ++i) {
    pieces[i] = {static_cast<K*>(s.piece_key[i]), static_cast<T*>(s.piece_value[i]), s.piece_count[i]};
  }
  std::int64_t chunks = (g.u + kRunChunk - 1) / kRunChunk;
  k_runs_first<T, K><<<blocks_for(chunks, l.sm_count), kThreads, 0, q.stream>>>(
      g.u, g.n, keys, reinterpret_cast<const T*>(sorted), out, l.reduction, init, pieces[0]);
  if (cudaError_t e = q.launched("k_runs_first")) return e;
  const int levels = run_levels(g.u, kRunChunk, kSerialRun);
  for (int level = 1; level < levels; ++level) {
    const std::int64_t m = 2 * chunks;
    chunks = (m + kRunChunk - 1) / kRunChunk;
    k_runs_next<T, K><<<blocks_for(chunks, l.sm_count), kThreads, 0, q.stream>>>(
        m, pieces[(level - 1) % 2], out, l.reduction, init, pieces[level % 2]);
    if (cudaError_t e = q.launched("k_runs_next")) return e;
  }
  return cudaSuccess;
}

}  // namespace
}  // namespace scatter::cuda

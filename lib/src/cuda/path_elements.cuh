#pragma once
// Path::elements (one thread per update element): the direct write of `none`, its winners
// under duplicates, and the launcher.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/path_rows.cuh"  // the last-writer winners, shared with the slice ops
#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

// Element `none`, pass 1, the only one when the targets are unique: every update writes
// its element and marks it in a bitmap of the output; an element marked twice raises
// `duplicate`. Only then do the winner passes below do any work (each returns at once
// otherwise) and make the last update win, as in the reference.
template <class T, class Off, class IndexT>
__global__ void k_write_direct(Geometry g, const IndexT* __restrict__ idx, const T* __restrict__ upd,
                               T* __restrict__ out, unsigned int* __restrict__ seen, int* duplicate, int* guard) {
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = guarded(target_of<Off>(g, idx, i), n, guard);
    if (o < 0) continue;
    out[o] = upd[i];
    const unsigned int bit = 1u << (static_cast<unsigned int>(o) & 31u);
    if (atomicOr(seen + (o >> 5), bit) & bit) *duplicate = 1;
  }
}

// Element `none` in free order (Path::elements_free): plain stores, no bitmap, no scratch.
// Each thread takes kFreePerThread updates a block-width apart (coalesced), issues all their
// index and value loads, then stores: the loads of one update no longer wait on another's
// store. A duplicate target keeps one of its candidates, whichever store lands last.
constexpr int kFreePerThread = 4;

template <class T, class Off, class IndexT>
__global__ void __launch_bounds__(kThreads) k_scatter_free(Geometry g, const IndexT* __restrict__ idx,
                                                           const T* __restrict__ upd, T* __restrict__ out, int* guard) {
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  const Off block = static_cast<Off>(blockDim.x);
  // Fits: offsets_fit_32 leaves 2^24 past u, and blocks_for caps the grid at 32 blocks an SM
  // (1 M updates a step per 128 SMs).
  const Off step = grid_stride<Off>() * kFreePerThread;
  for (Off base = static_cast<Off>(blockIdx.x) * block * kFreePerThread + static_cast<Off>(threadIdx.x); base < u;
       base += step) {
    Off target[kFreePerThread];
    T value[kFreePerThread];
#pragma unroll
    for (int k = 0; k < kFreePerThread; ++k) {
      const Off i = base + k * block;
      target[k] = i < u ? element_target_of<Off>(g, idx, i) : Off{-2};  // -2: no such update (-1: out of range)
      if (i < u) value[k] = upd[i];
    }
#pragma unroll
    for (int k = 0; k < kFreePerThread; ++k) {
      if (target[k] >= 0 && target[k] < n) {
        out[target[k]] = value[k];
      } else if (target[k] != -2) {
        *guard = 1;  // out of range (-1), or past the output: never written
      }
    }
  }
}

// Path::tiny (out of place, `none` in free order, a few KiB): data copied, the block's
// barrier, then the updates' plain stores, all in one block and one launch.
template <class T, class IndexT>
__global__ void __launch_bounds__(kThreads) k_tiny(Geometry g, const T* __restrict__ data,
                                                   const IndexT* __restrict__ idx, const T* __restrict__ upd,
                                                   T* __restrict__ out, int* guard) {
  const int n = static_cast<int>(g.n);
  for (int e = threadIdx.x; e < n; e += kThreads) out[e] = data[e];
  __syncthreads();  // the block's copies come before its stores
  const int u = static_cast<int>(g.u);
  for (int f = threadIdx.x; f < u; f += kThreads) {
    const int o = guarded(target_of<int>(g, idx, f), n, guard);
    if (o >= 0) out[o] = upd[f];
  }
}

// Element `none`: the direct write, then (only with a duplicate target) the winners.
template <class T, class Off, class IndexT, class W>
cudaError_t elements_none(const Launch& l, const Buffers& b, const Scratch& s, Queue& q) {
  const auto& g = l.geometry;
  auto* out = static_cast<T*>(b.out);
  const auto* upd = static_cast<const T*>(b.updates);
  const auto* idx = static_cast<const IndexT*>(b.indices);
  auto* winner = static_cast<W*>(s.winner);
  const int blocks = blocks_for(g.u, l.sm_count);
  if (cudaError_t e = clear_seen(s, q)) return e;
  k_write_direct<T, Off, IndexT><<<blocks, kThreads, 0, q.stream>>>(g, idx, upd, out, s.seen, s.duplicate, b.guard);
  if (cudaError_t e = q.launched("k_write_direct")) return e;
  k_clear_winners<W><<<blocks_for(g.n, l.sm_count), kThreads, 0, q.stream>>>(g.n, winner, s.duplicate);
  if (cudaError_t e = q.launched("k_clear_winners")) return e;
  k_winners<Off, IndexT, W><<<blocks, kThreads, 0, q.stream>>>(g, idx, winner, s.duplicate, b.guard);
  if (cudaError_t e = q.launched("k_winners")) return e;
  k_write_winners<T, Off, IndexT, W><<<blocks, kThreads, 0, q.stream>>>(g, idx, winner, upd, out, s.duplicate);
  return q.launched("k_write_winners");
}

}  // namespace
}  // namespace scatter::cuda

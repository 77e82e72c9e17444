#pragma once
// The atomic reductions: the identity fill (use_init_val = false), element and block-aggregated
// atomics.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

template <class T, class Off, class IndexT>
__global__ void k_identity(Geometry g, const IndexT* idx, T* out, Reduction r) {
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = target_of<Off>(g, idx, i);
    if (o >= 0 && o < n) out[o] = identity<T>(r);
  }
}

template <class T>
struct CombineOp {
  Reduction r;
  __device__ T operator()(T a, T b) const { return combine(r, a, b); }
};

// Reductions: one atomic (native or CAS) per update. With kAggregate (chosen on the host
// when a sample shows duplicate targets inside warps, and only where may_aggregate: no
// float add, sub, mul or mean), the threads of a warp that share a target first combine
// their updates in registers and one of them does the atomic: under contention, up to
// 32 times fewer atomics on one address. The updates merge with merge_of(r) (sub merges
// by adding), exact for the integers (wrapping), bool, min and max.
template <class T, class Off, class IndexT, bool kAggregate>
__global__ void k_reduce(Geometry g, const IndexT* idx, const T* upd, T* out, unsigned int* count, Reduction r,
                         bool native_add, int* guard) {
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = guarded(target_of<Off>(g, idx, i), n, guard);
    if (o < 0) continue;
    if constexpr (kAggregate) {
      const auto active = cg::coalesced_threads();
      const auto peers = cg::labeled_partition(active, static_cast<unsigned long long>(o));
      const T sum = cg::reduce(peers, upd[i], CombineOp<T>{merge_of<T>(r)});
      if (peers.thread_rank() == 0) {
        atomic_combine(out + o, sum, r, native_add);
        if (count != nullptr) atomicAdd(count + o, static_cast<unsigned int>(peers.size()));
      }
    } else {
      atomic_combine(out + o, upd[i], r, native_add);
      if (count != nullptr) atomicAdd(count + o, 1u);
    }
  }
}

// Reductions under contention (chosen on the host when a sample shows few distinct
// targets, see few_targets_likely): each block merges its updates per target in a
// shared-memory table (slot_of: open addressing, one CAS per probe), then issues one
// atomic per target it met. Updates whose target finds no slot go straight to the output.
// With kWarpMerge, a warp's updates to one target merge in registers first (as k_reduce's
// kAggregate), so one thread per target and warp touches the table. The partials merge
// with merge_of(r) from partial_start (-0.0 for float add: a target hit once keeps its
// update's bits); `mean` counts hits per slot.
template <class T, class Off, class IndexT, bool kWarpMerge>
__global__ void __launch_bounds__(kThreads) k_reduce_block(Geometry g, const IndexT* idx, const T* upd, T* out,
                                                           unsigned int* count, Reduction r, bool native_add,
                                                           int* guard) {
  __shared__ long long keys[kBlockSlots];
  __shared__ alignas(8) unsigned char partial_bytes[kBlockSlots * sizeof(T)];
  __shared__ unsigned int hits[kBlockSlots];
  T* partial = reinterpret_cast<T*>(partial_bytes);
  const Reduction merge = merge_of<T>(r);
  for (int s = static_cast<int>(threadIdx.x); s < kBlockSlots; s += static_cast<int>(blockDim.x)) {
    keys[s] = kNoTarget;
    partial[s] = partial_start<T>(merge);
    hits[s] = 0;
  }
  __syncthreads();
  auto cas = [](long long* key, long long expected, long long desired) {
    return static_cast<long long>(atomicCAS(reinterpret_cast<unsigned long long*>(key),
                                            static_cast<unsigned long long>(expected),
                                            static_cast<unsigned long long>(desired)));
  };
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = guarded(target_of<Off>(g, idx, i), n, guard);
    if (o < 0) continue;
    T v = upd[i];
    unsigned int k = 1;
    if constexpr (kWarpMerge) {
      const auto peers = cg::labeled_partition(cg::coalesced_threads(), static_cast<unsigned long long>(o));
      v = cg::reduce(peers, v, CombineOp<T>{merge});
      k = peers.size();
      if (peers.thread_rank() != 0) continue;
    }
    const int s = slot_of(keys, kBlockSlots, static_cast<long long>(o), cas);
    if (s < 0) {
      atomic_combine(out + o, v, r, native_add);
      if (count != nullptr) atomicAdd(count + o, k);
      continue;
    }
    atomic_combine(partial + s, v, merge, native_add);
    if (count != nullptr) atomicAdd(hits + s, k);
  }
  __syncthreads();
  for (int s = static_cast<int>(threadIdx.x); s < kBlockSlots; s += static_cast<int>(blockDim.x)) {
    const long long o = keys[s];
    if (o == kNoTarget) continue;
    atomic_combine(out + o, partial[s], r, native_add);
    if (count != nullptr) atomicAdd(count + o, hits[s]);
  }
}

}  // namespace
}  // namespace scatter::cuda

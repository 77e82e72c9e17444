// The kernels, one path each as plan.hpp's plan_of chooses (docs/cuda.md): row tiles and
// ScatterUpdate's gather in shared memory; elsewhere one thread per update element
// (grid-stride), the target from the op's mapper, the reduction from element.hpp. Native
// atomics where they exist, CAS loops elsewhere. `none` is plain stores in free order and
// last-writer-wins (the largest update index per element, as the reference) under
// --deterministic, in the tiles and in the gather.
//
// One translation unit, one file a path family (plan.hpp's Path): each holds its kernels and
// their launcher. Here: the plan's switch over them, and the dtype dispatch.

#include "core/dispatch.hpp"
#include "cuda/path_bins.cuh"
#include "cuda/path_chunked.cuh"
#include "cuda/path_elements.cuh"
#include "cuda/path_reduce.cuh"
#include "cuda/path_row_tile.cuh"
#include "cuda/path_rows.cuh"
#include "cuda/path_sorted.cuh"
#include "cuda/probe_kernels.cuh"

namespace scatter::cuda {
namespace {

template <class T, class IndexT, class Off>
cudaError_t run_typed(const Launch& l, const Buffers& b, Queue& q) {
  const auto& g = l.geometry;
  auto* out = static_cast<T*>(b.out);
  const auto* upd = static_cast<const T*>(b.updates);
  const auto* idx = static_cast<const IndexT*>(b.indices);
  const Plan plan = plan_of(l);
  const Scratch s = layout(l, plan, b.scratch);
  const int blocks = blocks_for(g.u, l.sm_count);
  switch (plan.path) {
    case Path::nothing:
      return cudaSuccess;
    case Path::tiny:
      k_tiny<T, IndexT><<<1, kThreads, 0, q.stream>>>(g, static_cast<const T*>(b.data), idx, upd, out, b.guard);
      return q.launched("k_tiny");
    case Path::row_tile:
      return row_tile<T, IndexT>(l, plan.tile, b, q);
    case Path::update_gather:
      return update_gather<IndexT>(l, b, sizeof(T), q);
    case Path::rows_fused:
      return rows_fused<IndexT>(l, b, s, sizeof(T), q);
    case Path::rows_free:
    case Path::rows_direct:
      return run_rows<Off, IndexT>(l, b, s, sizeof(T), plan.path == Path::rows_direct, q);
    case Path::elements_free:
      k_scatter_free<T, Off, IndexT><<<blocks_for((g.u + kFreePerThread - 1) / kFreePerThread, l.sm_count), kThreads, 0,
                                       q.stream>>>(g, idx, upd, out, b.guard);
      return q.launched("k_scatter_free");
    case Path::elements_direct:
      return narrow_winners(g.u) ? elements_none<T, Off, IndexT, int>(l, b, s, q)
                                 : elements_none<T, Off, IndexT, long long>(l, b, s, q);
    case Path::chunked:
      if constexpr (sizeof(Off) == 4) {
        return chunked_path<T, IndexT>(l, plan.chunks, b, s, q);
      } else {
        return cudaErrorInvalidValue;  // chunked_for takes 32-bit offsets only
      }
    case Path::reduce:
    case Path::reduce_block:
    case Path::reduce_bins:
    case Path::sorted:
      break;  // below
  }
  if (!l.use_init_val) {
    k_identity<T, Off, IndexT><<<blocks, kThreads, 0, q.stream>>>(g, idx, out, l.reduction);
    if (cudaError_t e = q.launched("k_identity")) return e;
  }
  const int init = l.use_init_val ? 1 : 0;
  if constexpr (kIsFloat<T>) {
    if (plan.path == Path::sorted) {
      return narrow_keys(g.n) ? run_sorted<T, unsigned int, Off, IndexT>(l, b, s, init, q)
                              : run_sorted<T, unsigned long long, Off, IndexT>(l, b, s, init, q);
    }
  }
  if (l.reduction == Reduction::mean) {
    if (cudaError_t e = cudaMemsetAsync(s.count, 0, static_cast<std::size_t>(g.n) * sizeof(unsigned int), q.stream)) return e;
  }
  if (plan.path == Path::reduce_bins) {
    if (cudaError_t e = cudaMemsetAsync(s.bin_ticket, 0, sizeof(unsigned int), q.stream)) return e;
    const BinScratch<T> scratch{static_cast<T*>(s.bin_partial), s.bin_hits, s.bin_ticket};
    const auto shared = static_cast<std::size_t>(bin_shared_bytes(g.n, sizeof(T)));
    k_reduce_bins<T, Off, IndexT><<<bin_blocks(g.u), kThreads, shared, q.stream>>>(g, idx, upd, out, s.count,
                                                                                  l.reduction, scratch, b.guard);
    if (cudaError_t e = q.launched("k_reduce_bins")) return e;
  } else if (plan.path == Path::reduce_block) {
    // Few targets: one atomic per target per block, from kBlocksPerSm blocks per SM.
    const int block_count = std::min(blocks, l.sm_count * kBlocksPerSm);
    if (l.aggregate) {
      k_reduce_block<T, Off, IndexT, true><<<block_count, kThreads, 0, q.stream>>>(g, idx, upd, out, s.count,
                                                                                    l.reduction, l.native_add, b.guard);
    } else {
      k_reduce_block<T, Off, IndexT, false><<<block_count, kThreads, 0, q.stream>>>(g, idx, upd, out, s.count,
                                                                                     l.reduction, l.native_add, b.guard);
    }
    if (cudaError_t e = q.launched("k_reduce_block")) return e;
  } else {
    if (l.aggregate) {
      k_reduce<T, Off, IndexT, true><<<blocks, kThreads, 0, q.stream>>>(g, idx, upd, out, s.count, l.reduction,
                                                                        l.native_add, b.guard);
    } else {
      k_reduce<T, Off, IndexT, false><<<blocks, kThreads, 0, q.stream>>>(g, idx, upd, out, s.count, l.reduction,
                                                                         l.native_add, b.guard);
    }
    if (cudaError_t e = q.launched("k_reduce")) return e;
  }
  if (l.reduction == Reduction::mean) {
    if constexpr (!__is_same(T, Bool)) {
      k_mean<T><<<blocks_for(g.n, l.sm_count), kThreads, 0, q.stream>>>(g.n, out, s.count, init);
      return q.launched("k_mean");
    }
  }
  return cudaSuccess;
}

// 32-bit offsets when every offset fits (the common case), 64-bit otherwise.
template <class T, class IndexT>
cudaError_t run_offsets(const Launch& l, const Buffers& b, Queue& q) {
  return offsets_fit_32(l.geometry) ? run_typed<T, IndexT, int>(l, b, q)
                                    : run_typed<T, IndexT, long long>(l, b, q);
}

template <class T>
cudaError_t run_index(const Launch& l, const Buffers& b, Queue& q) {
  return l.index64 ? run_offsets<T, std::int64_t>(l, b, q) : run_offsets<T, std::int32_t>(l, b, q);
}

}  // namespace

std::size_t scratch_bytes(const Launch& launch) { return layout(launch, plan_of(launch), nullptr).total; }

cudaError_t enqueue_scatter(const Launch& l, const Buffers& b, cudaStream_t stream, LaunchTrace& trace) {
  if (l.geometry.u == 0) return cudaSuccess;  // nothing to scatter: the output is data
  Queue q{stream, trace};
  return detail::dispatch(l.type, [&](auto tag) { return run_index<typename decltype(tag)::type>(l, b, q); });
}

}  // namespace scatter::cuda

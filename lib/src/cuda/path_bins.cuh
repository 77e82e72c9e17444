#pragma once
// Path::bins: few distinct targets, reduced per block in shared memory, then merged.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

// The bits of *p as another block left them (ld.global.cg: past this SM's L1, which the
// other blocks' stores never reach).
template <class T>
__device__ T load_from_l2(const T* p) {
  return bits_as<T>(__ldcg(reinterpret_cast<const BitsOf<T>*>(p)));
}

static_assert(kThreads == 32 * kBinWarps, "k_reduce_bins keeps a bin row per warp");

// Where k_reduce_bins leaves its blocks' partials for the fold: per block a value and a
// hit count per output element, and the ticket that finds the last block.
template <class T>
struct BinScratch {
  T* partial;
  unsigned int* hits;
  unsigned int* ticket;
};

// A warp-wide shuffle of any element type, by its bits.
template <class T>
__device__ T shuffle(T v, int lane) {
  if constexpr (sizeof(T) == 8) {
    return bits_as<T>(__shfl_sync(0xFFFFFFFFu, bits_as<unsigned long long>(v), lane));
  } else {
    const auto word = static_cast<unsigned int>(bits_as<BitsOf<T>>(v));
    return bits_as<T>(static_cast<BitsOf<T>>(__shfl_sync(0xFFFFFFFFu, word, lane)));
  }
}

// The merge of `v` over the lanes of `peers` (this lane among them) in the fixed pairwise
// tree of takes_at: the group's rank 0 ends with it. All 32 lanes call it together (five
// shuffles each, whatever the groups). Not cg::reduce: its tree depends on the group's
// size (a butterfly for 32 lanes, a scan otherwise) and on the toolkit's headers, and the
// emulation could not predict its bits.
template <class T>
__device__ T merge_peers(unsigned int peers, T v, Reduction merge) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int rank = bit_count(peers & ((1u << lane) - 1u));
  const int size = bit_count(peers);
#pragma unroll
  for (int stride = 1; stride < 32; stride *= 2) {
    const bool takes = takes_at(rank, size, stride);
    const T other = shuffle(v, takes ? lane_of_rank(peers, rank + stride) : lane);
    if (takes) v = combine(merge, v, other);
  }
  return v;
}

// Reductions onto a small output (Path::reduce_bins, bins_fit): each warp keeps a bin per
// output element in shared memory, the element itself its bin (no keys, no probes). A
// warp steps through 32 consecutive updates at a time (kBinBatch steps' loads issued
// first); the updates of a step to one target merge in registers (merge_peers: a fixed
// tree over the group's lanes), and the group's lowest lane combines the result into the
// warp's own bin with a plain read and store: no other warp touches that row, and the warp syncs
// after every step. So no atomic orders anything a float depends on: the block folds its
// warps' rows in warp order, writes the result and its hit counts to `scratch`, and the
// last block to take a ticket folds every block's in block order into the output. The
// grid depends on the update count alone (bin_blocks), so the result is the same on every
// run and every GPU. The hit counts (integer shared atomics: any order gives the same
// sum) tell which elements were met: the others keep data's bits, NaN payloads included.
template <class T, class Off, class IndexT>
__global__ void __launch_bounds__(kThreads) k_reduce_bins(Geometry g, const IndexT* idx, const T* upd, T* out,
                                                          unsigned int* count, Reduction r, BinScratch<T> scratch,
                                                          int* guard) {
  extern __shared__ uint4 shared[];
  const int bins = static_cast<int>(g.n);
  auto* hits = reinterpret_cast<unsigned int*>(shared);
  T* warp_bins = reinterpret_cast<T*>(hits + (bins + 1) / 2 * 2);
  const Reduction merge = merge_of<T>(r);
  const T start = partial_start<T>(merge);
  const int tid = static_cast<int>(threadIdx.x);
  for (int s = tid; s < kBinWarps * bins; s += kThreads) warp_bins[s] = start;
  for (int s = tid; s < bins; s += kThreads) hits[s] = 0;
  __syncthreads();
  T* own = warp_bins + (tid / 32) * bins;
  const Off lane = static_cast<Off>(tid & 31);
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  const Off stride = static_cast<Off>(gridDim.x) * kThreads;
  // A warp-uniform loop: every lane reaches the match, the shuffles and the sync in every step.
  for (Off first = static_cast<Off>(blockIdx.x) * kThreads + (tid & ~31); first < u; first += kBinBatch * stride) {
    Off target[kBinBatch];
    T value[kBinBatch];
#pragma unroll
    for (int k = 0; k < kBinBatch; ++k) {  // every load of the batch before the first merge
      const Off i = first + k * stride + lane;
      target[k] = i < u ? guarded(target_of<Off>(g, idx, i), n, guard) : Off{-1};
      value[k] = start;
      if (target[k] >= 0) value[k] = upd[i];
    }
#pragma unroll
    for (int k = 0; k < kBinBatch; ++k) {
      const Off o = target[k];
      // A lane with no target gets a label of its own, past every element.
      const auto label = o >= 0 ? static_cast<unsigned long long>(o) : ~0ull - static_cast<unsigned long long>(lane);
      const unsigned int peers = __match_any_sync(0xFFFFFFFFu, label);
      const T sum = merge_peers(peers, value[k], merge);
      if (o >= 0 && (peers & ((1u << lane) - 1u)) == 0) {  // the group's lowest lane
        own[o] = combine(merge, own[o], sum);
        atomicAdd(hits + o, static_cast<unsigned int>(__popc(peers)));
      }
      __syncwarp();
    }
  }
  __syncthreads();
  T* block_partial = scratch.partial + static_cast<long long>(blockIdx.x) * bins;
  unsigned int* block_hits = scratch.hits + static_cast<long long>(blockIdx.x) * bins;
  for (int t = tid; t < bins; t += kThreads) {
    T acc = warp_bins[t];
    for (int w = 1; w < kBinWarps; ++w) acc = combine(merge, acc, warp_bins[w * bins + t]);
    block_partial[t] = acc;
    block_hits[t] = hits[t];
  }
  // The last block folds: every block's stores are visible before its ticket, and the last
  // block's fence after it orders its reads after every other block's stores.
  __threadfence();
  __syncthreads();
  __shared__ bool last;
  if (tid == 0) {
    last = atomicAdd(scratch.ticket, 1u) == gridDim.x - 1;
    __threadfence();
  }
  __syncthreads();
  if (!last) return;
  for (int t = tid; t < bins; t += kThreads) {
    T acc = start;
    unsigned long long met = 0;  // 64-bit: 2^32 hits must not read as none
#pragma unroll 8
    for (unsigned int b = 0; b < gridDim.x; ++b) {  // both loads unconditional: eight blocks' in flight
      const long long at = static_cast<long long>(b) * bins + t;
      const unsigned int h = load_from_l2(scratch.hits + at);
      const T p = load_from_l2(scratch.partial + at);
      if (h != 0) acc = combine(merge, acc, p);
      met += h;
    }
    if (met == 0) continue;
    out[t] = combine(r, out[t], acc);
    if (count != nullptr) count[t] += static_cast<unsigned int>(met);
  }
}

}  // namespace
}  // namespace scatter::cuda

// The kernels, one path each as plan.hpp's plan_of chooses (docs/cuda.md): row tiles and
// ScatterUpdate's gather in shared memory; elsewhere one thread per update element
// (grid-stride), the target from the op's mapper, the reduction from element.hpp. Native
// atomics where they exist, CAS loops elsewhere. `none` is plain stores in free order and
// last-writer-wins (the largest update index per element, as the reference) under
// --deterministic, in the tiles and in the gather.

#include <algorithm>
#include <initializer_list>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/device/device_radix_sort.cuh>

#include "launch.hpp"
#include "sorted_runs.hpp"

namespace scatter::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // k_reduce_block: 8 x 256 threads and up to 20 KB of shared memory each

std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The stream a launch enqueues on, and its trace: every kernel is named as it is
// enqueued, and under --check-launches waited for and checked at once, so that a
// fault names its kernel.
struct Queue {
  cudaStream_t stream;
  LaunchTrace& trace;

  cudaError_t launched(const char* kernel) {
    trace.record(kernel);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && trace.check) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) trace.failed = kernel;
    return e;
  }
};

// The unsigned word as wide as T: the bits the sort and the partition move.
template <class T>
using BitsOf = std::conditional_t<
    sizeof(T) == 8, unsigned long long,
    std::conditional_t<sizeof(T) == 4, unsigned int, std::conditional_t<sizeof(T) == 2, unsigned short, unsigned char>>>;

template <class To, class From>
__device__ __forceinline__ To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  memcpy(&out, &v, sizeof(To));
  return out;
}

// Compare-and-swap loop on a word as wide as the element. A step that leaves the bits as
// they are (a min or max update that loses, most of them under contention) stores nothing.
template <class Word, class T>
__device__ void cas_loop(T* p, T v, Reduction r) {
  auto* a = reinterpret_cast<Word*>(p);
  Word old = *a, assumed;
  do {
    assumed = old;
    const Word next = bits_as<Word>(combine(r, bits_as<T>(assumed), v));
    if (next == assumed) return;
    old = atomicCAS(a, assumed, next);
  } while (old != assumed);
}

// Compare-and-swap for any element size: 1-byte elements through their 32-bit word.
template <class T>
__device__ void cas_combine(T* p, T v, Reduction r) {
  if constexpr (sizeof(T) == 8) {
    cas_loop<unsigned long long>(p, v, r);
  } else if constexpr (sizeof(T) == 4) {
    cas_loop<unsigned int>(p, v, r);
  } else if constexpr (sizeof(T) == 2) {
    cas_loop<unsigned short>(p, v, r);
  } else {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const auto lane = static_cast<std::uint8_t>((assumed >> shift) & 0xFF);
      const auto next = bits_as<std::uint8_t>(combine(r, bits_as<T>(lane), v));
      if (next == lane) return;  // unchanged, as in cas_loop
      old = atomicCAS(word, assumed, with_lane(assumed, shift, next));
    } while (old != assumed);
  }
}

// A 16-bit float's aligned 4-byte pair and the two lanes to add to it: the value in the
// element's lane, -0.0 in the other (x + -0.0 is x, for +0.0 too). The output buffer is
// padded to 4 bytes, so the last element's pair is inside it. The hardware gives a NaN in
// the other lane its canonical bits, which an element no update targets must not change:
// the host takes this path only where data holds no NaN (native_add).
template <class T>
__device__ __forceinline__ auto packed_pair(T* p, unsigned short bits) {
  struct Pair {
    unsigned int* pair;
    unsigned int lanes;
  };
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const bool high = (address & 2) != 0;
  const unsigned int lanes = high ? (static_cast<unsigned int>(bits) << 16) | 0x8000u : 0x80000000u | bits;
  return Pair{reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3}), lanes};
}

// out = f(out, v) atomically: native instructions where the hardware has them.
// native_add false: float32 add/sub go through the CAS loop (atom.add.f32 flushes
// subnormals; see f32_native_add_exact), and float16/bfloat16 too (data with a NaN).
template <class T>
__device__ void atomic_combine(T* p, T v, Reduction r, bool native_add) {
  const bool add = r == Reduction::add || r == Reduction::mean;
  const bool sub = r == Reduction::sub;
  if constexpr (__is_same(T, double) || __is_same(T, float)) {
    if (__is_same(T, float) && !native_add) return cas_combine(p, v, r);
    if (add) return static_cast<void>(atomicAdd(p, v));
    if (sub) return static_cast<void>(atomicAdd(p, -v));  // negation is exact
  } else if constexpr (__is_same(T, Float16)) {
    if ((add || sub) && native_add) {  // the packed atomic on the aligned pair (a lone __half add is a CAS loop)
      const auto bits = static_cast<unsigned short>(sub ? v.bits ^ 0x8000u : v.bits);
      const auto [pair, lanes] = packed_pair(p, bits);
      return static_cast<void>(atomicAdd(reinterpret_cast<__half2*>(pair), bits_as<__half2>(lanes)));
    }
  } else if constexpr (__is_same(T, BFloat16)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if ((add || sub) && native_add) {
      const auto bits = static_cast<unsigned short>(sub ? v.bits ^ 0x8000u : v.bits);
      const auto [pair, lanes] = packed_pair(p, bits);
      return static_cast<void>(atomicAdd(reinterpret_cast<__nv_bfloat162*>(pair), bits_as<__nv_bfloat162>(lanes)));
    }
#endif
  } else if constexpr (__is_same(T, std::int32_t)) {
    if (add || sub) {
      const auto u = static_cast<unsigned int>(v);
      return static_cast<void>(atomicAdd(reinterpret_cast<unsigned int*>(p), sub ? 0u - u : u));
    }
    if (r == Reduction::min) return static_cast<void>(atomicMin(reinterpret_cast<int*>(p), static_cast<int>(v)));
    if (r == Reduction::max) return static_cast<void>(atomicMax(reinterpret_cast<int*>(p), static_cast<int>(v)));
  } else if constexpr (__is_same(T, std::int64_t)) {
    if (add || sub) {
      const auto u = static_cast<unsigned long long>(v);
      return static_cast<void>(atomicAdd(reinterpret_cast<unsigned long long*>(p), sub ? 0ull - u : u));
    }
    if (r == Reduction::min) return static_cast<void>(atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
    if (r == Reduction::max) return static_cast<void>(atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
  } else if constexpr (__is_same(T, Bool)) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned bit = static_cast<unsigned>(v.value) << shift;
    if (r == Reduction::add || r == Reduction::max) return static_cast<void>(atomicOr(word, bit));
    if (r == Reduction::sub) return static_cast<void>(atomicXor(word, bit));
    if (r == Reduction::mul || r == Reduction::min) return static_cast<void>(atomicAnd(word, and_mask(shift, v.value)));
  }
  cas_combine(p, v, r);
}

template <class Off = std::int64_t>
__device__ __forceinline__ Off thread_start() {
  return static_cast<Off>(blockIdx.x) * static_cast<Off>(blockDim.x) + static_cast<Off>(threadIdx.x);
}
template <class Off = std::int64_t>
__device__ __forceinline__ Off grid_stride() { return static_cast<Off>(gridDim.x) * static_cast<Off>(blockDim.x); }

// The device-side guard: a target outside [0, n) raises the flag the backend reports and
// comes back as -1, so no kernel ever writes there.
template <class Off>
__device__ __forceinline__ Off guarded(Off target, Off n, int* guard) {
  if (target >= 0 && target < n) return target;
  *guard = 1;  // a plain store: every thread that stores, stores 1
  return -1;
}

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

// Path::chunked (docs/cuda.md): the update units partitioned by L2-sized chunks of the
// output, then one step per chunk that meets the chunk in L2. An out-of-range target raises
// the guard in the count and is dropped there and in the partition alike.
constexpr int kChunkPerThread = 8;  // update units a thread takes per tile of the partition
constexpr int kChunkTile = kThreads * kChunkPerThread;
// The count's and the partition's grid at most: a tile loop's stride, kMaxTileBlocks x
// kChunkTile = 2^23, stays within the 2^24 that offsets_fit_32 leaves past the updates.
constexpr std::int64_t kMaxTileBlocks = 4096;

// The targets of a thread's update units in the tile that starts at `tile` (units tile +
// k x kThreads + threadIdx.x), every index load issued before the first target is used;
// -1 past the end or out of range (which raises `guard`, where given).
template <class IndexT>
__device__ __forceinline__ void tile_targets(const Geometry& g, const ChunkShape& shape, const IndexT* __restrict__ idx,
                                             int tile, int (&target)[kChunkPerThread], int* guard) {
  const int units = static_cast<int>(shape.units);
  const int updates = static_cast<int>(shape.updates);
#pragma unroll
  for (int k = 0; k < kChunkPerThread; ++k) {
    const int m = tile + k * kThreads + static_cast<int>(threadIdx.x);
    target[k] = m < updates ? unit_target_of<int>(g, idx, m) : -2;
  }
#pragma unroll
  for (int k = 0; k < kChunkPerThread; ++k) {
    if (target[k] == -2) {
      target[k] = -1;
    } else if (target[k] < 0 || target[k] >= units) {
      target[k] = -1;
      if (guard) *guard = 1;
    }
  }
}

// Pass 1: each chunk's update units, through a shared histogram per block: one global
// atomic per chunk per block.
template <class IndexT>
__global__ void __launch_bounds__(kThreads) k_chunk_count(Geometry g, ChunkShape shape, const IndexT* __restrict__ idx,
                                                          unsigned int* __restrict__ count, int* guard) {
  extern __shared__ unsigned int histogram[];
  for (int c = threadIdx.x; c < shape.chunks; c += kThreads) histogram[c] = 0;
  __syncthreads();
  const int updates = static_cast<int>(shape.updates);
  // Fits: the grid is at most kMaxTileBlocks.
  for (int tile = static_cast<int>(blockIdx.x) * kChunkTile; tile < updates; tile += static_cast<int>(gridDim.x) * kChunkTile) {
    int target[kChunkPerThread];
    tile_targets(g, shape, idx, tile, target, guard);
#pragma unroll
    for (int k = 0; k < kChunkPerThread; ++k) {
      if (target[k] >= 0) atomicAdd(histogram + (static_cast<unsigned int>(target[k]) >> shape.shift), 1u);
    }
  }
  __syncthreads();
  for (int c = threadIdx.x; c < shape.chunks; c += kThreads) {
    if (histogram[c] != 0) atomicAdd(count + c, histogram[c]);
  }
}

// Pass 2: every block turns the counts into each chunk's first entry (block 0 also keeps
// them, for the steps), then takes tiles of kChunkTile update units: all their index and value
// loads first, each unit's rank among the tile's units of its chunk (a shared atomic), one
// global atomic per chunk the tile meets to reserve its run there, and the (offset in the
// chunk, value) pairs written into the runs. A run holds a tile's units of one chunk (32 on
// average for 64 chunks), so the pairs go out in whole sectors. Free order: the runs of a
// chunk land in the order their tiles reserve them.
template <class IndexT, class W>
__global__ void __launch_bounds__(kThreads) k_chunk_partition(Geometry g, ChunkShape shape,
                                                              const IndexT* __restrict__ idx, const W* __restrict__ upd,
                                                              const unsigned int* __restrict__ count,
                                                              unsigned int* __restrict__ fill,
                                                              unsigned int* __restrict__ first_entry,
                                                              unsigned int* __restrict__ offset, W* __restrict__ value) {
  using Scan = cub::BlockScan<unsigned int, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  extern __shared__ unsigned int counters[];
  unsigned int* start = counters;                       // chunks + 1
  unsigned int* in_tile = start + shape.chunks + 1;     // chunks
  unsigned int* run = in_tile + shape.chunks;           // chunks
  constexpr int kChunksPerThread = (kMaxChunks + kThreads - 1) / kThreads;
  unsigned int sums[kChunksPerThread];
#pragma unroll
  for (int k = 0; k < kChunksPerThread; ++k) {
    const int c = static_cast<int>(threadIdx.x) * kChunksPerThread + k;
    sums[k] = c < shape.chunks ? count[c] : 0u;
  }
  unsigned int total = 0;
  Scan(scan).ExclusiveSum(sums, sums, total);
#pragma unroll
  for (int k = 0; k < kChunksPerThread; ++k) {
    const int c = static_cast<int>(threadIdx.x) * kChunksPerThread + k;
    if (c < shape.chunks) start[c] = sums[k];
  }
  if (threadIdx.x == 0) start[shape.chunks] = total;
  __syncthreads();
  if (blockIdx.x == 0) {
    for (int c = threadIdx.x; c <= shape.chunks; c += kThreads) first_entry[c] = start[c];
  }
  const int updates = static_cast<int>(shape.updates);
  const unsigned int within = (1u << shape.shift) - 1u;
  for (int tile = static_cast<int>(blockIdx.x) * kChunkTile; tile < updates; tile += static_cast<int>(gridDim.x) * kChunkTile) {
    for (int c = threadIdx.x; c < shape.chunks; c += kThreads) in_tile[c] = 0;
    __syncthreads();
    int target[kChunkPerThread];
    tile_targets(g, shape, idx, tile, target, nullptr);  // the count raised the guard
    W v[kChunkPerThread];
#pragma unroll
    for (int k = 0; k < kChunkPerThread; ++k) {
      if (target[k] >= 0) v[k] = upd[tile + k * kThreads + static_cast<int>(threadIdx.x)];
    }
    unsigned int rank[kChunkPerThread];
#pragma unroll
    for (int k = 0; k < kChunkPerThread; ++k) {
      if (target[k] >= 0) rank[k] = atomicAdd(in_tile + (static_cast<unsigned int>(target[k]) >> shape.shift), 1u);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < shape.chunks; c += kThreads) {
      if (in_tile[c] != 0) run[c] = start[c] + atomicAdd(fill + c, in_tile[c]);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kChunkPerThread; ++k) {
      if (target[k] < 0) continue;
      const auto t = static_cast<unsigned int>(target[k]);
      const unsigned int p = run[t >> shape.shift] + rank[k];
      offset[p] = t & within;
      value[p] = v[k];
    }
    __syncthreads();  // the next tile clears in_tile and run
  }
}

// Pass 3, step j: chunk j's bytes copied from data into the output (out of place), or read
// into L2 (in place: volatile loads whose values nothing uses), and chunk j - 1's pairs applied,
// plain stores for `none` (kReduce false, T = W) and atomic_combine for the reductions.
// The two chunks are disjoint (a unit, and a 1- or 2-byte element's 4-byte atomic word,
// never crosses a chunk: chunks are a power of two of at least 64 bytes), and both fit in L2,
// where step j - 1 left chunk j - 1: its stores and atomics hit L2, and each of its lines
// goes back to DRAM once.
template <class W, class T, bool kReduce>
__global__ void __launch_bounds__(kThreads) k_chunk_step(ChunkShape shape, int j, std::int64_t bytes,
                                                         const unsigned char* __restrict__ data, unsigned char* out,
                                                         const unsigned int* __restrict__ first_entry,
                                                         const unsigned int* __restrict__ offset,
                                                         const W* __restrict__ value, Reduction r, bool native_add) {
  if (j < shape.chunks) {
    const ByteRange range = chunk_bytes_of(shape, j, bytes);
    const auto vectors = static_cast<unsigned int>((range.end - range.first) / 16);
    auto* to = reinterpret_cast<uint4*>(out + range.first);
    if (data) {
      const auto* from = reinterpret_cast<const uint4*>(data + range.first);
      for (unsigned int i = thread_start<unsigned int>(); i < vectors; i += grid_stride<unsigned int>()) {
        to[i] = __ldcs(from + i);  // data and the pairs are read once: evict them first, keep the chunks
      }
    } else {
      for (unsigned int i = thread_start<unsigned int>(); i < vectors; i += grid_stride<unsigned int>()) {
        // In place: the load alone, into L2. A volatile load (LDG.E.128.STRONG.SYS): ptxas
        // drops a plain or relaxed one whose value nothing uses, even from an asm volatile.
        unsigned int x, y, z, w;
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "l"(__cvta_generic_to_global(to + i)));
      }
    }
    const std::int64_t tail = range.first + std::int64_t{vectors} * 16;  // the output's last bytes past a 16-byte multiple
    if (data && blockIdx.x == 0 && tail + threadIdx.x < range.end) out[tail + threadIdx.x] = data[tail + threadIdx.x];
  }
  if (j == 0) return;
  const unsigned int first = first_entry[j - 1];
  const unsigned int end = first_entry[j];
  const unsigned int base = static_cast<unsigned int>(j - 1) << shape.shift;
  for (unsigned int p = first + thread_start<unsigned int>(); p < end; p += grid_stride<unsigned int>()) {
    const unsigned int o = base + __ldcs(offset + p);
    if constexpr (kReduce) {
      atomic_combine(reinterpret_cast<T*>(out) + o, bits_as<T>(__ldcs(value + p)), r, native_add);
    } else {
      reinterpret_cast<W*>(out)[o] = __ldcs(value + p);
    }
  }
}

// ScatterUpdate as a gather (Path::update_gather, out of place): each block first finds
// every axis position's winner, the largest i whose index names it (shared atomicMax over
// the whole, small, index tensor), then writes output rows in Chunks, each from its winning
// update row or from data (gather_source): exact last-writer-wins, every output byte written
// once, losing update rows never read, the copy fused in.
template <class IndexT, class Chunk>
__global__ void __launch_bounds__(kThreads) k_update_gather(Geometry g, int chunks, int chunks_per_row,
                                                            FastDivide by_chunks_per_row,
                                                            FastDivide by_extent, const Chunk* __restrict__ data,
                                                            const IndexT* __restrict__ idx, const Chunk* __restrict__ upd,
                                                            Chunk* __restrict__ out, int* guard) {
  extern __shared__ int winner[];
  const int extent = static_cast<int>(g.extent);
  const int count = static_cast<int>(g.count);
  // Strides of kThreads (the launch's block), not blockDim.x: the compiler's trip counts then
  // divide by a constant, a shift.
  for (int e = static_cast<int>(threadIdx.x); e < extent; e += kThreads) winner[e] = -1;
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < count; i += kThreads) {
    const int e = static_cast<int>(guarded(update_position(g, static_cast<std::int64_t>(idx[i])), g.extent, guard));
    if (e >= 0) atomicMax(winner + e, i);
  }
  __syncthreads();
#pragma unroll 1  // unrolled, the trip count would cost a division by the grid's stride
  for (int c = thread_start<int>(); c < chunks; c += grid_stride<int>()) {
    const int row = static_cast<int>(by_chunks_per_row.quotient(static_cast<std::uint32_t>(c)));
    const int j = c - row * chunks_per_row;
    const int from = gather_source(winner, g, by_extent, row);
    out[c] = from < 0 ? data[c] : upd[from * chunks_per_row + j];
  }
}

// Path::rows_fused, out of place: the bitmap of the output rows some update row lands in,
// then one launch whose first chunks copy data's rows outside the bitmap and whose others
// copy the update rows to their targets (free order: a duplicate row lands in any order).
// So a row that an update overwrites is never copied from data first.
template <class IndexT>
__global__ void k_mark_rows(Geometry g, int rows_n, int rows_u, const IndexT* __restrict__ idx,
                            unsigned int* __restrict__ seen, int* guard) {
  for (int m = thread_start<int>(); m < rows_u; m += grid_stride<int>()) {
    const int t = guarded(row_target_of<int>(g, idx, m), rows_n, guard);
    if (t >= 0) atomicOr(seen + (t >> 5), 1u << (t & 31));
  }
}

template <class IndexT, class Chunk>
__global__ void k_rows_fused(Geometry g, int rows_n, int data_chunks, int chunks, int chunks_per_row,
                             FastDivide by_chunks_per_row,
                             const Chunk* __restrict__ data, const IndexT* __restrict__ idx,
                             const Chunk* __restrict__ upd, Chunk* __restrict__ out, const unsigned int* __restrict__ seen) {
#pragma unroll 1
  for (int c = thread_start<int>(); c < chunks; c += grid_stride<int>()) {
    if (c < data_chunks) {
      const int row = static_cast<int>(by_chunks_per_row.quotient(static_cast<std::uint32_t>(c)));
      if ((seen[row >> 5] & (1u << (row & 31))) == 0) out[c] = data[c];
      continue;
    }
    const int k = c - data_chunks;
    const int m = static_cast<int>(by_chunks_per_row.quotient(static_cast<std::uint32_t>(k)));
    const int t = row_target_of<int>(g, idx, m);  // out of range: k_mark_rows raised the guard
    if (t >= 0 && t < rows_n) out[t * chunks_per_row + (k - m * chunks_per_row)] = upd[k];
  }
}

// With duplicates only: every winner slot to -1 ("no update").
template <class W>
__global__ void k_clear_winners(std::int64_t n, W* winner, const int* duplicate) {
  if (*duplicate == 0) return;
  for (std::int64_t i = thread_start(); i < n; i += grid_stride()) winner[i] = W{-1};
}

// `none` with duplicates, pass 2: the largest update index per target wins (W: int when
// the update count fits, else long long).
template <class Off, class IndexT, class W>
__global__ void k_winners(Geometry g, const IndexT* idx, W* winner, const int* duplicate, int* guard) {
  if (*duplicate == 0) return;
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = guarded(target_of<Off>(g, idx, i), n, guard);
    if (o >= 0) atomicMax(&winner[o], static_cast<W>(i));
  }
}

// Pass 3: only the winners read their update, so heavy duplicates cost no bandwidth.
template <class T, class Off, class IndexT, class W>
__global__ void k_write_winners(Geometry g, const IndexT* idx, const W* winner, const T* upd, T* out,
                                const int* duplicate) {
  if (*duplicate == 0) return;
  const Off u = static_cast<Off>(g.u);
  const Off n = static_cast<Off>(g.n);
  for (Off i = thread_start<Off>(); i < u; i += grid_stride<Off>()) {
    const Off o = target_of<Off>(g, idx, i);
    if (o >= 0 && o < n && winner[o] == static_cast<W>(i)) out[o] = upd[i];
  }
}

// The slice ops' `none`, pass 1, the only one when the target rows are unique: the update
// rows are copied in `Chunk`s (16 bytes when the row's bytes allow: the buffers are
// 256-byte aligned and rows start at multiples of the row size), consecutive threads on
// consecutive chunks of a row; each row's first chunk marks its output row in a bitmap,
// and a row marked twice raises `duplicate` for the winner passes below.
// Without kMark (Path::rows_free) the copy is all: duplicate rows land in any order.
template <class Off, class IndexT, class Chunk, bool kMark>
__global__ void k_row_direct(Geometry g, Off rows_n, Off chunks_per_row, FastDivide by_chunks_per_row, Off chunks,
                             const IndexT* __restrict__ idx, const Chunk* __restrict__ upd, Chunk* __restrict__ out,
                             unsigned int* __restrict__ seen, int* duplicate, int* guard) {
  for (Off c = thread_start<Off>(); c < chunks; c += grid_stride<Off>()) {
    const Off m = quotient(c, chunks_per_row, by_chunks_per_row);
    const Off j = c - m * chunks_per_row;
    const Off t = guarded(row_target_of<Off>(g, idx, m), rows_n, guard);
    if (t < 0) continue;
    out[t * chunks_per_row + j] = upd[c];
    if (kMark && j == 0) {
      const unsigned int bit = 1u << (static_cast<unsigned int>(t) & 31u);
      if (atomicOr(seen + (t >> 5), bit) & bit) *duplicate = 1;
    }
  }
}

// With duplicate rows, pass 2: one thread per update row finds its output row, keeps it
// for pass 3 and bids for it.
template <class Off, class IndexT, class W>
__global__ void k_row_winners(Geometry g, Off rows_n, Off rows_u, const IndexT* idx, W* winner, long long* row_target,
                              const int* duplicate, int* guard) {
  if (*duplicate == 0) return;
  for (Off m = thread_start<Off>(); m < rows_u; m += grid_stride<Off>()) {
    const Off t = guarded(row_target_of<Off>(g, idx, m), rows_n, guard);
    if (t >= 0) atomicMax(&winner[t], static_cast<W>(m));
    row_target[m] = t;
  }
}

// Pass 3: the winning rows are copied again, chunk by chunk as in pass 1.
template <class Off, class Chunk, class W>
__global__ void k_row_copy(Off chunks_per_row, Off chunks, const W* winner, const long long* row_target,
                           const Chunk* upd, Chunk* out, const int* duplicate) {
  if (*duplicate == 0) return;
  for (Off c = thread_start<Off>(); c < chunks; c += grid_stride<Off>()) {
    const Off m = c / chunks_per_row;
    const Off t = static_cast<Off>(row_target[m]);
    if (t >= 0 && winner[t] == static_cast<W>(m)) out[t * chunks_per_row + c % chunks_per_row] = upd[c];
  }
}

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

// k_row_tile: the updates a thread loads before it applies them (4 of 8-byte types: with 8,
// k_row_tile<double> spilled a register around mean's out-of-line division).
template <class T>
constexpr int kTileBatch = sizeof(T) == 8 ? 4 : 8;

// ScatterElements along a contiguous last axis (Path::row_tile): each block takes
// tile.rows whole rows of data at a time into shared memory (16-byte loads where the rows'
// bytes allow), applies their updates there and stores the rows back in address order, so
// every output sector is written once and whole. Out of place the rows come from data: the
// copy is fused in. Update row q is data row q (row_tile_for), so every row has updates and
// an update's place in the
// tile is its row's times the row length plus its column: one fast division per update.
// `none` is last-writer-wins, exactly: the largest update position per element (an int
// beside it, shared atomicMax), then that update alone writes. Reductions use the same
// atomics as k_reduce on the shared copy; mean and use_init_val = false count hits there.
template <class T, class IndexT>
__global__ void __launch_bounds__(kThreads) k_row_tile(TileShape shape, FastDivide by_row_updates, bool wide,
                                                       const T* data, const IndexT* __restrict__ idx,
                                                       const T* __restrict__ upd, T* out, Reduction r,
                                                       bool use_init_val, bool native_add, int* guard) {
  extern __shared__ uint4 shared[];
  T* tile = reinterpret_cast<T*>(shared);
  int* side = reinterpret_cast<int*>(reinterpret_cast<char*>(shared) + shape.value_bytes);
  const T* src = data != nullptr ? data : out;
  const int columns = shape.columns;
  const int row_updates = static_cast<int>(by_row_updates.divisor);
  const bool mean = r == Reduction::mean;
  const bool counts = mean || !use_init_val;
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  for (int group = static_cast<int>(blockIdx.x); group < shape.groups; group += static_cast<int>(gridDim.x)) {
    const int row0 = group * shape.rows;
    const int rows = min(shape.rows, shape.data_rows - row0);
    const int elements = rows * columns;
    const int base = row0 * columns;
    const int bytes = elements * static_cast<int>(sizeof(T));
    if (wide) {
      const auto* from = reinterpret_cast<const uint4*>(src + base);
      for (int c = tid; c < bytes / 16; c += threads) shared[c] = from[c];
    } else {
      for (int c = tid; c < elements; c += threads) tile[c] = src[base + c];
    }
    if (shape.side) {
      for (int c = tid; c < elements; c += threads) side[c] = r == Reduction::none ? -1 : 0;
    }
    __syncthreads();
    const int first = row0 * row_updates;  // the group's first update: update row q is data row q
    const int updates = rows * row_updates;  // every row has its row of updates
    // A thread's updates of the group go kTileBatch at a time, every index (and value) load
    // of a batch issued before its first shared atomic: one update an iteration left each
    // iteration waiting on a load (the SASS read LDG, ATOMS, LDG, ATOMS...). `place` puts in
    // e[k] where update f0 + k x threads lands in the tile: -2 past the group's end, -1 out
    // of range (which raises the guard).
    int e[kTileBatch<T>];
    T v[kTileBatch<T>];
    auto place = [&](int f0) {
#pragma unroll
      for (int k = 0; k < kTileBatch<T>; ++k) {
        const int f = f0 + k * threads;
        e[k] = f < updates ? tile_place(static_cast<std::int64_t>(idx[first + f]), columns, by_row_updates, f) : -2;
      }
#pragma unroll
      for (int k = 0; k < kTileBatch<T>; ++k) {
        if (e[k] == -1) *guard = 1;
      }
    };
    const int batch = threads * kTileBatch<T>;
    if (r == Reduction::none) {
      for (int f0 = tid; f0 < updates; f0 += batch) {
        place(f0);
#pragma unroll
        for (int k = 0; k < kTileBatch<T>; ++k) {
          if (e[k] >= 0) atomicMax(side + e[k], f0 + k * threads);
        }
      }
      __syncthreads();
      for (int f0 = tid; f0 < updates; f0 += batch) {
        place(f0);
#pragma unroll
        for (int k = 0; k < kTileBatch<T>; ++k) {  // only the winners' values are read, all of them at once
          if (e[k] >= 0 && side[e[k]] == f0 + k * threads) {
            v[k] = upd[first + f0 + k * threads];
          } else {
            e[k] = -2;
          }
        }
#pragma unroll
        for (int k = 0; k < kTileBatch<T>; ++k) {
          if (e[k] >= 0) tile[e[k]] = v[k];
        }
      }
    } else {
      if (counts) {
        for (int f0 = tid; f0 < updates; f0 += batch) {
          place(f0);
#pragma unroll
          for (int k = 0; k < kTileBatch<T>; ++k) {
            if (e[k] >= 0) atomicAdd(side + e[k], 1);
          }
        }
        __syncthreads();
        if (!use_init_val) {
          for (int c = tid; c < elements; c += threads) {
            if (side[c] > 0) tile[c] = identity<T>(r);
          }
          __syncthreads();
        }
      }
      for (int f0 = tid; f0 < updates; f0 += batch) {
        place(f0);
#pragma unroll
        for (int k = 0; k < kTileBatch<T>; ++k) {
          if (e[k] >= 0) v[k] = upd[first + f0 + k * threads];
        }
#pragma unroll
        for (int k = 0; k < kTileBatch<T>; ++k) {
          if (e[k] >= 0) atomic_combine(tile + e[k], v[k], r, native_add);
        }
      }
      if constexpr (!__is_same(T, Bool)) {
        if (mean) {
          __syncthreads();
          const int init = use_init_val ? 1 : 0;
          for (int c = tid; c < elements; c += threads) {
            if (side[c] > 0) tile[c] = mean_of(tile[c], static_cast<std::int64_t>(side[c]) + init);
          }
        }
      }
    }
    __syncthreads();
    if (wide) {
      auto* to = reinterpret_cast<uint4*>(out + base);
      for (int c = tid; c < bytes / 16; c += threads) to[c] = shared[c];
    } else {
      for (int c = tid; c < elements; c += threads) out[base + c] = tile[c];
    }
    __syncthreads();  // the next group's rows overwrite the tile
  }
}

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

int blocks_for(std::int64_t items, int sm_count) {
  const std::int64_t wanted = (items + kThreads - 1) / kThreads;
  const std::int64_t cap = static_cast<std::int64_t>(sm_count) * 32;
  return static_cast<int>(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
}

struct Scratch {
  void* winner = nullptr;       // int or long long per target (element, or row for the slice ops)
  long long* row_target = nullptr;
  unsigned int* seen = nullptr;  // `none`: one bit per output element (row, for the slice ops)
  int* duplicate = nullptr;      // `none`: set when an element (row) is targeted twice
  unsigned int* count = nullptr;
  void* keys[2] = {nullptr, nullptr};  // --deterministic: K per update, before and after the sort
  void* sorted = nullptr;              // the update values in key order
  void* piece_key[2] = {nullptr, nullptr};  // the levels' pieces, 2 slots per level-0 chunk, two levels' worth
  void* piece_value[2] = {nullptr, nullptr};
  std::uint32_t* piece_count[2] = {nullptr, nullptr};
  void* cub = nullptr;
  std::size_t cub_bytes = 0;
  unsigned int* chunk_count = nullptr;   // Path::chunked: per chunk its units, then (adjacent) the partition's fill
  unsigned int* chunk_first = nullptr;   // chunks + 1: each chunk's first entry, and the end
  unsigned int* chunk_offset = nullptr;  // per update unit: its unit's offset in its chunk
  void* chunk_value = nullptr;           // per update unit: its bits, unit_bytes each
  void* bin_partial = nullptr;           // Path::reduce_bins: per block, a partial per output element
  unsigned int* bin_hits = nullptr;      // ... and its hit count
  unsigned int* bin_ticket = nullptr;    // the blocks' tickets: the last one folds
  std::size_t total = 0;
};

// 32-bit sort keys when every target and the sentinel n fit below the empty key.
bool narrow_keys(std::int64_t n) { return n < static_cast<std::int64_t>(UINT32_MAX); }

// The sort moves values as unsigned words of the element's size (the float types: 8, 4, 2).
template <class Bits, class K>
std::size_t cub_sort_bytes(std::int64_t u, int bits) {
  std::size_t bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                  static_cast<const Bits*>(nullptr), static_cast<Bits*>(nullptr), static_cast<int>(u),
                                  0, bits);
  return bytes;
}

template <class K>
std::size_t cub_sort_bytes_for(std::size_t element, std::int64_t u, int bits) {
  if (element == 8) return cub_sort_bytes<unsigned long long, K>(u, bits);
  if (element == 4) return cub_sort_bytes<unsigned int, K>(u, bits);
  return cub_sort_bytes<unsigned short, K>(u, bits);
}

int key_bits(std::int64_t n) {
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) <= n) ++bits;
  return bits;
}

// Winners are ints when every bidder's index fits.
bool narrow_winners(std::int64_t bidders) { return bidders <= INT32_MAX; }
std::size_t winner_size(std::int64_t bidders) { return narrow_winners(bidders) ? sizeof(int) : sizeof(long long); }

// Lays out the scratch parts of the plan's path; with base == nullptr it only measures.
Scratch layout(const Launch& l, const Plan& plan, void* base) {
  Scratch s;
  const auto& g = l.geometry;
  const Path path = plan.path;
  if (path == Path::nothing || path == Path::tiny || path == Path::row_tile || path == Path::elements_free ||
      path == Path::rows_free || path == Path::update_gather) {
    return s;  // nothing runs, it all happens in shared memory, or plain stores
  }
  const bool by_rows = path == Path::rows_direct;
  auto take = [&](std::size_t bytes) {
    void* p = base ? static_cast<char*>(base) + s.total : nullptr;
    s.total += align256(bytes);
    return p;
  };
  if (path == Path::chunked) {
    const auto& shape = plan.chunks;
    const auto chunks = static_cast<std::size_t>(shape.chunks);
    const auto updates = static_cast<std::size_t>(shape.updates);
    s.chunk_count = static_cast<unsigned int*>(take(2 * chunks * sizeof(unsigned int)));  // count and fill: one memset
    s.chunk_first = static_cast<unsigned int*>(take((chunks + 1) * sizeof(unsigned int)));
    s.chunk_offset = static_cast<unsigned int*>(take(updates * sizeof(unsigned int)));
    s.chunk_value = take(updates * static_cast<std::size_t>(shape.unit_bytes));
    return s;
  }
  if (path == Path::rows_fused) {  // one bit per output row
    s.seen = static_cast<unsigned int*>(take(static_cast<std::size_t>((g.n / g.slice + 31) / 32) * sizeof(unsigned int)));
    return s;
  }
  if (l.reduction == Reduction::none) {
    if (by_rows) {
      s.winner = take(static_cast<std::size_t>(g.n / g.slice) * winner_size(g.u / g.slice));
      s.row_target = static_cast<long long*>(take(static_cast<std::size_t>(g.u / g.slice) * sizeof(long long)));
    } else {
      s.winner = take(static_cast<std::size_t>(g.n) * winner_size(g.u));
    }
    // One bit per output element (or row), then the flag: one span, cleared by one memset.
    const std::int64_t targets = by_rows ? g.n / g.slice : g.n;
    s.seen = static_cast<unsigned int*>(take(static_cast<std::size_t>((targets + 31) / 32) * sizeof(unsigned int)));
    s.duplicate = static_cast<int*>(take(sizeof(int)));
  } else if (path == Path::sorted) {
    const std::size_t key = narrow_keys(g.n) ? sizeof(unsigned int) : sizeof(unsigned long long);
    const std::size_t element = static_cast<std::size_t>(info_of(l.type).bytes);
    const auto u = static_cast<std::size_t>(g.u);
    const auto slots = static_cast<std::size_t>(2 * ((g.u + kRunChunk - 1) / kRunChunk));
    for (int i = 0; i < 2; ++i) s.keys[i] = take(u * key);
    s.sorted = take(u * element);
    for (int i = 0; i < 2; ++i) {
      s.piece_key[i] = take(slots * key);
      s.piece_value[i] = take(slots * element);
      s.piece_count[i] = static_cast<std::uint32_t*>(take(slots * sizeof(std::uint32_t)));
    }
    s.cub_bytes = narrow_keys(g.n) ? cub_sort_bytes_for<unsigned int>(element, g.u, key_bits(g.n))
                                   : cub_sort_bytes_for<unsigned long long>(element, g.u, key_bits(g.n));
    s.cub = take(s.cub_bytes);
  } else {
    if (path == Path::reduce_bins) {
      const auto bins = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(bin_blocks(g.u));
      s.bin_partial = take(bins * static_cast<std::size_t>(info_of(l.type).bytes));
      s.bin_hits = static_cast<unsigned int*>(take(bins * sizeof(unsigned int)));
      s.bin_ticket = static_cast<unsigned int*>(take(sizeof(unsigned int)));
    }
    if (l.reduction == Reduction::mean) {
      s.count = static_cast<unsigned int*>(take(static_cast<std::size_t>(g.n) * sizeof(unsigned int)));
    }
  }
  return s;
}

// Clears the bitmap and the flag of element and row `none` (adjacent in the layout).
cudaError_t clear_seen(const Scratch& s, Queue& q) {
  const auto bytes = static_cast<std::size_t>(reinterpret_cast<char*>(s.duplicate) - reinterpret_cast<char*>(s.seen));
  return cudaMemsetAsync(s.seen, 0, bytes + sizeof(int), q.stream);
}

// The slice ops' `none` in `Chunk`s: the direct copy, alone in free order; under
// --deterministic the bitmap, then (only with duplicate rows) the winners and the copy of the
// winning rows.
template <class Off, class IndexT, class Chunk, class W>
cudaError_t rows_in(const Launch& l, const Buffers& b, const Scratch& s, std::size_t row_bytes, bool last_writer,
                    Queue& q) {
  const auto& g = l.geometry;
  const auto rows_n = static_cast<Off>(g.n / g.slice);
  const auto rows_u = static_cast<Off>(g.u / g.slice);
  const auto chunks_per_row = static_cast<Off>(row_bytes / sizeof(Chunk));
  const Off chunks = rows_u * chunks_per_row;  // <= u bytes / chunk: fits Off as u does
  const auto* idx = static_cast<const IndexT*>(b.indices);
  const auto* upd = static_cast<const Chunk*>(b.updates);
  auto* out = static_cast<Chunk*>(b.out);
  const FastDivide by_chunks_per_row = fast_divide_by(chunks_per_row);
  if (!last_writer) {
    k_row_direct<Off, IndexT, Chunk, false><<<blocks_for(chunks, l.sm_count), kThreads, 0, q.stream>>>(
        g, rows_n, chunks_per_row, by_chunks_per_row, chunks, idx, upd, out, nullptr, nullptr, b.guard);
    return q.launched("k_row_direct");
  }
  auto* winner = static_cast<W*>(s.winner);
  if (cudaError_t e = clear_seen(s, q)) return e;
  k_row_direct<Off, IndexT, Chunk, true><<<blocks_for(chunks, l.sm_count), kThreads, 0, q.stream>>>(
      g, rows_n, chunks_per_row, by_chunks_per_row, chunks, idx, upd, out, s.seen, s.duplicate, b.guard);
  if (cudaError_t e = q.launched("k_row_direct")) return e;
  k_clear_winners<W><<<blocks_for(rows_n, l.sm_count), kThreads, 0, q.stream>>>(rows_n, winner, s.duplicate);
  if (cudaError_t e = q.launched("k_clear_winners")) return e;
  k_row_winners<Off, IndexT, W><<<blocks_for(rows_u, l.sm_count), kThreads, 0, q.stream>>>(
      g, rows_n, rows_u, idx, winner, s.row_target, s.duplicate, b.guard);
  if (cudaError_t e = q.launched("k_row_winners")) return e;
  k_row_copy<Off, Chunk, W><<<blocks_for(chunks, l.sm_count), kThreads, 0, q.stream>>>(
      chunks_per_row, chunks, winner, s.row_target, upd, out, s.duplicate);
  return q.launched("k_row_copy");
}

// A row's bytes or'ed with the addresses of the buffers it is copied between (a null one,
// data in place, counts as aligned): every power of two that divides it divides them all.
// cudaMalloc's bases are 256-aligned; a framework's view or an arena's need not be.
std::uintptr_t alignment_of(std::size_t row_bytes, std::initializer_list<const void*> buffers) {
  std::uintptr_t bits = row_bytes;
  for (const void* p : buffers) bits |= reinterpret_cast<std::uintptr_t>(p);
  return bits;
}

// Calls run(Chunk{}) with the widest chunk that `alignment` (alignment_of) is a multiple of. 16 and 8 bytes move as 64-bit lanes, so that no 8-byte
// element is ever written in two halves (the PTX memory model splits a v4.u32 store into
// 32-bit ones; two racing duplicate rows could leave an element from neither).
template <class Run>
cudaError_t with_widest_chunk(std::uintptr_t alignment, Run&& run) {
  if (alignment % 16 == 0) return run(ulonglong2{});
  if (alignment % 8 == 0) return run(static_cast<unsigned long long>(0));
  if (alignment % 4 == 0) return run(0u);
  if (alignment % 2 == 0) return run(static_cast<unsigned short>(0));
  return run(static_cast<unsigned char>(0));
}

template <class Off, class IndexT, class W>
cudaError_t rows_widest(const Launch& l, const Buffers& b, const Scratch& s, std::size_t row_bytes, bool last_writer,
                        Queue& q) {
  return with_widest_chunk(alignment_of(row_bytes, {b.out, b.updates}), [&](auto chunk) {
    return rows_in<Off, IndexT, decltype(chunk), W>(l, b, s, row_bytes, last_writer, q);
  });
}

// ScatterUpdate's gather in the widest chunk the row's bytes and the three buffers allow.
template <class IndexT, class Chunk>
cudaError_t gather_in(const Launch& l, const Buffers& b, std::size_t row_bytes, Queue& q) {
  const auto& g = l.geometry;
  const auto chunks_per_row = static_cast<int>(row_bytes / sizeof(Chunk));
  const auto chunks = (g.n / g.slice) * chunks_per_row;  // every output row: fits int (offsets_fit_32)
  k_update_gather<IndexT, Chunk><<<blocks_for(chunks, l.sm_count), kThreads,
                                   static_cast<std::size_t>(g.extent) * sizeof(int), q.stream>>>(
      g, static_cast<int>(chunks), chunks_per_row, fast_divide_by(chunks_per_row), fast_divide_by(g.extent),
      static_cast<const Chunk*>(b.data),
      static_cast<const IndexT*>(b.indices), static_cast<const Chunk*>(b.updates), static_cast<Chunk*>(b.out), b.guard);
  return q.launched("k_update_gather");
}

template <class IndexT>
cudaError_t update_gather(const Launch& l, const Buffers& b, std::size_t element_bytes, Queue& q) {
  const std::size_t row_bytes = static_cast<std::size_t>(l.geometry.slice) * element_bytes;
  return with_widest_chunk(alignment_of(row_bytes, {b.out, b.updates, b.data}),
                           [&](auto chunk) { return gather_in<IndexT, decltype(chunk)>(l, b, row_bytes, q); });
}

// Path::rows_fused: the target rows' bitmap (cleared, then marked), then the fused copy in the
// widest chunk the row's bytes and the three buffers allow.
template <class IndexT>
cudaError_t rows_fused(const Launch& l, const Buffers& b, const Scratch& s, std::size_t element_bytes, Queue& q) {
  const auto& g = l.geometry;
  const std::size_t row_bytes = static_cast<std::size_t>(g.slice) * element_bytes;
  const auto rows_n = static_cast<int>(g.n / g.slice);
  const auto rows_u = static_cast<int>(g.u / g.slice);
  const auto* idx = static_cast<const IndexT*>(b.indices);
  if (cudaError_t e = cudaMemsetAsync(s.seen, 0, static_cast<std::size_t>((rows_n + 31) / 32) * sizeof(unsigned int),
                                      q.stream)) {
    return e;
  }
  k_mark_rows<IndexT><<<blocks_for(rows_u, l.sm_count), kThreads, 0, q.stream>>>(g, rows_n, rows_u, idx, s.seen, b.guard);
  if (cudaError_t e = q.launched("k_mark_rows")) return e;
  return with_widest_chunk(alignment_of(row_bytes, {b.out, b.updates, b.data}), [&](auto chunk) {
    using Chunk = decltype(chunk);
    const auto chunks_per_row = static_cast<int>(row_bytes / sizeof(Chunk));
    const int data_chunks = rows_n * chunks_per_row;
    const int chunks = data_chunks + rows_u * chunks_per_row;  // fits: rows_fused_fit
    k_rows_fused<IndexT, Chunk><<<blocks_for(chunks, l.sm_count), kThreads, 0, q.stream>>>(
        g, rows_n, data_chunks, chunks, chunks_per_row, fast_divide_by(chunks_per_row), static_cast<const Chunk*>(b.data),
        idx, static_cast<const Chunk*>(b.updates), static_cast<Chunk*>(b.out), s.seen);
    return q.launched("k_rows_fused");
  });
}

// Path::chunked: the counters' memset, the count, the partition, then chunks + 1 steps (step
// j copies chunk j and applies chunk j - 1's pairs). W moves a unit's bits; T and kReduce as
// in k_chunk_step. The steps move the output in 16-byte vectors and the partition the updates
// in W: cudaMalloc's 256-byte bases always allow both, and other bases are refused.
template <class IndexT, class W, class T, bool kReduce>
cudaError_t chunked(const Launch& l, const ChunkShape& shape, const Buffers& b, const Scratch& s, Queue& q) {
  if (alignment_of(16, {b.out, b.data}) % 16 != 0 || alignment_of(sizeof(W), {b.updates}) % sizeof(W) != 0) {
    return cudaErrorMisalignedAddress;
  }
  const auto& g = l.geometry;
  const auto* idx = static_cast<const IndexT*>(b.indices);
  const std::size_t counters = static_cast<std::size_t>(shape.chunks) * sizeof(unsigned int);
  if (cudaError_t e = cudaMemsetAsync(s.chunk_count, 0, 2 * counters, q.stream)) return e;
  const std::int64_t tiles = (shape.updates + kChunkTile - 1) / kChunkTile;
  const auto tile_blocks = static_cast<int>(std::min<std::int64_t>(
      {tiles, std::int64_t{l.sm_count} * kBlocksPerSm, kMaxTileBlocks}));
  k_chunk_count<IndexT><<<tile_blocks, kThreads, counters, q.stream>>>(g, shape, idx, s.chunk_count, b.guard);
  if (cudaError_t e = q.launched("k_chunk_count")) return e;
  k_chunk_partition<IndexT, W><<<tile_blocks, kThreads, 3 * counters + sizeof(unsigned int), q.stream>>>(
      g, shape, idx, static_cast<const W*>(b.updates), s.chunk_count, s.chunk_count + shape.chunks, s.chunk_first,
      s.chunk_offset, static_cast<W*>(s.chunk_value));
  if (cudaError_t e = q.launched("k_chunk_partition")) return e;
  const std::int64_t bytes = shape.units * shape.unit_bytes;
  const int step_blocks = blocks_for((std::int64_t{shape.unit_bytes} << shape.shift) / 16, l.sm_count);
  for (int j = 0; j <= shape.chunks; ++j) {
    k_chunk_step<W, T, kReduce><<<step_blocks, kThreads, 0, q.stream>>>(
        shape, j, bytes, static_cast<const unsigned char*>(b.data), static_cast<unsigned char*>(b.out), s.chunk_first,
        s.chunk_offset, static_cast<const W*>(s.chunk_value), l.reduction, l.native_add);
    if (cudaError_t e = q.launched("k_chunk_step")) return e;
  }
  return cudaSuccess;
}

// Path::chunked by what a unit is: `none` moves a unit's bytes as one word whatever the dtype
// (with_widest_chunk of a power of two is the word of that size), a reduction combines Ts.
template <class T, class IndexT>
cudaError_t chunked_path(const Launch& l, const ChunkShape& shape, const Buffers& b, const Scratch& s, Queue& q) {
  if (l.reduction != Reduction::none) return chunked<IndexT, BitsOf<T>, T, true>(l, shape, b, s, q);
  return with_widest_chunk(static_cast<std::uintptr_t>(shape.unit_bytes), [&](auto word) {
    using W = decltype(word);
    return chunked<IndexT, W, W, false>(l, shape, b, s, q);
  });
}

// The slice ops' `none`: it moves bytes, so it depends on the row's size, not the dtype.
template <class Off, class IndexT>
cudaError_t run_rows(const Launch& l, const Buffers& b, const Scratch& s, std::size_t element_bytes, bool last_writer,
                     Queue& q) {
  const auto& g = l.geometry;
  const std::size_t row_bytes = static_cast<std::size_t>(g.slice) * element_bytes;
  return narrow_winners(g.u / g.slice) ? rows_widest<Off, IndexT, int>(l, b, s, row_bytes, last_writer, q)
                                       : rows_widest<Off, IndexT, long long>(l, b, s, row_bytes, last_writer, q);
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

// ScatterElements along the last axis in row tiles: one launch, the copy fused in out of
// place. 16-byte rows in and out where each row's bytes and both buffers allow it.
template <class T, class IndexT>
cudaError_t row_tile(const Launch& l, const TileShape& shape, const Buffers& b, Queue& q) {
  const auto* data = static_cast<const T*>(b.data);
  auto* out = static_cast<T*>(b.out);
  const bool wide = alignment_of(static_cast<std::size_t>(shape.columns) * sizeof(T), {b.out, b.data}) % 16 == 0;
  const int blocks = std::max(1, std::min(shape.groups, l.sm_count * kBlocksPerSm));
  k_row_tile<T, IndexT><<<blocks, kThreads, shape.shared_bytes, q.stream>>>(
      shape, FastDivide(static_cast<std::uint32_t>(shape.row_updates)), wide, data,
      static_cast<const IndexT*>(b.indices), static_cast<const T*>(b.updates), out, l.reduction, l.use_init_val,
      l.native_add, b.guard);
  return q.launched("k_row_tile");
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

namespace {
__global__ void k_sector_writes(unsigned int* buffer, unsigned long long sectors, long long stores) {
  for (long long i = thread_start(); i < stores; i += grid_stride()) {
    unsigned long long x = static_cast<unsigned long long>(i) * 0x9E3779B97F4A7C15ull;  // a scrambled i
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    buffer[(x % sectors) * 8] = static_cast<unsigned int>(i);
  }
}
}  // namespace

namespace {
__global__ void k_l2_flush(const uint4* buffer, long long chunks, int* sink) {
  unsigned int x = 0;
  for (long long i = thread_start(); i < chunks; i += grid_stride()) {
    const uint4 v = buffer[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0xFFFFFFFFu) *sink = 1;  // keeps the loads; a zeroed buffer never gets here
}
}  // namespace

cudaError_t enqueue_l2_flush(const void* buffer, std::size_t bytes, int* sink, int sm_count, cudaStream_t stream) {
  const auto chunks = static_cast<long long>(bytes / 16);
  k_l2_flush<<<blocks_for(chunks, sm_count), kThreads, 0, stream>>>(static_cast<const uint4*>(buffer), chunks, sink);
  return cudaGetLastError();
}

cudaError_t enqueue_sector_writes(void* buffer, std::size_t bytes, std::int64_t stores, int sm_count,
                                  cudaStream_t stream) {
  k_sector_writes<<<blocks_for(stores, sm_count), kThreads, 0, stream>>>(static_cast<unsigned int*>(buffer), bytes / 32,
                                                                         stores);
  return cudaGetLastError();
}

cudaError_t enqueue_scatter(const Launch& l, const Buffers& b, cudaStream_t stream, LaunchTrace& trace) {
  if (l.geometry.u == 0) return cudaSuccess;  // nothing to scatter: the output is data
  Queue q{stream, trace};
  switch (l.type) {
    case DType::float64:
      return run_index<double>(l, b, q);
    case DType::float32:
      return run_index<float>(l, b, q);
    case DType::float16:
      return run_index<Float16>(l, b, q);
    case DType::bfloat16:
      return run_index<BFloat16>(l, b, q);
    case DType::int64:
      return run_index<std::int64_t>(l, b, q);
    case DType::int32:
      return run_index<std::int32_t>(l, b, q);
    case DType::int16:
      return run_index<std::int16_t>(l, b, q);
    case DType::int8:
      return run_index<std::int8_t>(l, b, q);
    case DType::uint8:
      return run_index<std::uint8_t>(l, b, q);
    case DType::boolean:
      return run_index<Bool>(l, b, q);
  }
  return cudaErrorInvalidValue;
}

}  // namespace scatter::cuda

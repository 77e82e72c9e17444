#pragma once
// Path::chunked (the output in chunks, the updates partitioned by chunk) and ScatterUpdate's
// gather: their kernels and launchers.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

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

}  // namespace
}  // namespace scatter::cuda

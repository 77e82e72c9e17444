#pragma once
// Path::row_tile: ScatterElements along the last axis in shared-memory row tiles, the copy
// fused in: kernel and launcher.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

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

}  // namespace
}  // namespace scatter::cuda

#pragma once
// The slice ops' `none` (Path::rows, rows_fused): row copies, last-writer winners under
// --deterministic, the fused copy: kernels and launchers.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include "cuda/scratch.cuh"

namespace scatter::cuda {
namespace {

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


template <class Off, class IndexT, class W>
cudaError_t rows_widest(const Launch& l, const Buffers& b, const Scratch& s, std::size_t row_bytes, bool last_writer,
                        Queue& q) {
  return with_widest_chunk(alignment_of(row_bytes, {b.out, b.updates}), [&](auto chunk) {
    return rows_in<Off, IndexT, decltype(chunk), W>(l, b, s, row_bytes, last_writer, q);
  });
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

// The slice ops' `none`: it moves bytes, so it depends on the row's size, not the dtype.
template <class Off, class IndexT>
cudaError_t run_rows(const Launch& l, const Buffers& b, const Scratch& s, std::size_t element_bytes, bool last_writer,
                     Queue& q) {
  const auto& g = l.geometry;
  const std::size_t row_bytes = static_cast<std::size_t>(g.slice) * element_bytes;
  return narrow_winners(g.u / g.slice) ? rows_widest<Off, IndexT, int>(l, b, s, row_bytes, last_writer, q)
                                       : rows_widest<Off, IndexT, long long>(l, b, s, row_bytes, last_writer, q);
}

}  // namespace
}  // namespace scatter::cuda

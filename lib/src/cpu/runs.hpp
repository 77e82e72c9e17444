#pragma once
// Where the cpu backend's runs go. A run is `len` contiguous updates landing on `len`
// contiguous output elements: one element for ScatterElements, a slice for ScatterND, an
// inner block for ScatterUpdate. Run r starts at update r * len; its output offset comes
// from the indices, read in their own type and normalized (negative + extent) on the
// fly, in row-major update order: targets.hpp's visitors, without their int64 copy of
// the indices. The Geometry is worked out once per case, before the timed region.

#include <algorithm>
#include <array>
#include <cstdint>

#include "scatter/case.hpp"

namespace scatter::detail::cpu {

struct Geometry {
  Op op = Op::scatter_elements;
  std::int64_t len = 0;   ///< elements per run
  std::int64_t runs = 0;  ///< runs in all
  std::int64_t numel = 0; ///< output elements
  // scatter_elements: rows of `row` updates; out = base(row) + j * col_stride + index * index_stride
  int rank = 0;
  std::int64_t row = 0;
  std::int64_t axis = 0;
  std::int64_t extent = 0;  ///< data.shape[axis] (also scatter_update's)
  std::int64_t col_stride = 0;
  std::int64_t index_stride = 0;
  std::array<std::int64_t, kMaxRank> ushape{};
  std::array<std::int64_t, kMaxRank> ostride{};
  // scatter_nd: out = sum of index[j] * ostride[j], j < k; the extents are data's
  std::int64_t k = 0;
  std::array<std::int64_t, kMaxRank> extents{};
  // scatter_update: out = (o * extent + index[i]) * len, o < outer, i < count
  // tensor_scatter: out = (o * extent + position(w[o / per_batch], i)) * len, i < count (the
  // sequence), position w + i, or (w mod extent + i) mod extent when circular
  std::int64_t outer = 0;
  std::int64_t count = 0;
  std::int64_t per_batch = 1;
  bool circular = false;
  /// scatter_update `none`: nonzero for the indices that are their value's last
  /// occurrence (the rows that win in every block o); the others are skipped. Null: all.
  const std::uint8_t* last = nullptr;
};

Geometry geometry_of(const Case& c);

template <class I>
inline std::int64_t normalized(I v, std::int64_t extent) {
  const auto w = static_cast<std::int64_t>(v);
  return w < 0 ? w + extent : w;
}

/// ScatterElements' rows of updates (the last dimension) in order, from the row holding update
/// r0: `base` is the output offset of the row's first element, less the axis's term.
struct ElementRows {
  std::array<std::int64_t, kMaxRank> coord{};  // over dims 0..rank-2
  std::int64_t base = 0;

  ElementRows(const Geometry& g, std::int64_t r0) {
    for (std::int64_t d = g.rank - 1, q = r0 / g.row; d-- > 0;) {
      coord[d] = q % g.ushape[d];
      q /= g.ushape[d];
      if (d != g.axis) base += coord[d] * g.ostride[d];
    }
  }
  void next(const Geometry& g) {
    for (int d = g.rank - 1; d-- > 0;) {
      if (d != g.axis) base += g.ostride[d];
      if (++coord[d] < g.ushape[d]) break;
      if (d != g.axis) base -= coord[d] * g.ostride[d];
      coord[d] = 0;
    }
  }
  std::int64_t target(const Geometry& g, std::int64_t j, std::int64_t index) const {
    return base + j * g.col_stride + index * g.index_stride;
  }
};

// out[i0, .., idx[i0, .., ir-1], .., ir-1] = f(out[...], updates[i0, .., ir-1])  (idx at `axis`)
// A row of updates lands within [base, base + reach): rows that cannot reach the window
// [lo, hi) are skipped without reading their indices (along a row, axis = rank - 1, every
// thread reads only its own rows); rows wholly inside it go to `inside` instead of `emit`
// (no filter needed).
template <class I, class Emit, class Inside>
void elements_runs(const Geometry& g, const I* idx, std::int64_t r0, std::int64_t r1, std::int64_t lo,
                   std::int64_t hi, Emit&& emit, Inside&& inside) {
  if (r0 >= r1) return;
  const auto reach = (g.row - 1) * g.col_stride + (g.extent - 1) * g.index_stride + 1;
  std::array<std::int64_t, kMaxRank> coord{};  // over dims 0..rank-2, of the row holding r0
  std::int64_t base = 0;
  for (std::int64_t d = g.rank - 1, q = r0 / g.row; d-- > 0;) {
    coord[d] = q % g.ushape[d];
    q /= g.ushape[d];
    if (d != g.axis) base += coord[d] * g.ostride[d];
  }
  for (std::int64_t u0 = r0 - r0 % g.row, j0 = r0 % g.row; u0 < r1; u0 += g.row, j0 = 0) {
    const auto j1 = std::min(g.row, r1 - u0);
    if (base >= lo && base + reach <= hi) {
      for (std::int64_t j = j0; j < j1; ++j) {
        inside(u0 + j, base + j * g.col_stride + normalized(idx[u0 + j], g.extent) * g.index_stride);
      }
    } else if (base < hi && base + reach > lo) {
      for (std::int64_t j = j0; j < j1; ++j) {
        emit(u0 + j, base + j * g.col_stride + normalized(idx[u0 + j], g.extent) * g.index_stride);
      }
    }
    for (int d = g.rank - 1; d-- > 0;) {
      if (d != g.axis) base += g.ostride[d];
      if (++coord[d] < g.ushape[d]) break;
      if (d != g.axis) base -= coord[d] * g.ostride[d];
      coord[d] = 0;
    }
  }
}

/// ScatterElements with its axis before the last dimension (GNN aggregation, voxels): column
/// j of every row lands in column j of the output, wherever along the axis. So columns
/// [j0, j1) of every row, in update order, reach only elements of those columns: tasks that
/// split the columns write disjoint elements, each in the reference's order, and each reads
/// only its columns of the indices and updates.
/// ahead(o) is told the target of the first column of the row kAheadRows on, where the rows
/// are those of a matrix (rank 2: every row's base is 0), for the caller to prefetch.
/// A row whose columns [j0, j1) share one index (GNN's and voxels' index, expanded along the
/// row) lands on contiguous elements (the axis is not the last dimension, whose stride is 1):
/// it goes to emit_run(u, o, j1 - j0) at once, a loop the compiler vectorizes.
template <class I, class Emit, class EmitRun, class Ahead>
void elements_columns(const Geometry& g, const I* idx, std::int64_t j0, std::int64_t j1, Emit&& emit,
                      EmitRun&& emit_run, Ahead&& ahead) {
  constexpr std::int64_t kAheadRows = 8;
  if (j0 >= j1) return;
  const auto ahead_end = g.rank == 2 ? g.runs - kAheadRows * g.row : 0;
  ElementRows rows(g, 0);
  for (std::int64_t u0 = 0; u0 < g.runs; u0 += g.row, rows.next(g)) {
    if (u0 < ahead_end) {
      const auto u = u0 + kAheadRows * g.row + j0;
      ahead(j0 * g.col_stride + normalized(idx[u], g.extent) * g.index_stride);
    }
    const I* row = idx + u0;
    bool shared = true;
    for (std::int64_t j = j0 + 1; j < j1; ++j) shared &= row[j] == row[j0];
    if (shared) {
      emit_run(u0 + j0, rows.target(g, j0, normalized(row[j0], g.extent)), j1 - j0);
      continue;
    }
    for (std::int64_t j = j0; j < j1; ++j) emit(u0 + j, rows.target(g, j, normalized(row[j], g.extent)));
  }
}

/// Whether elements_columns applies: ScatterElements whose axis is not the last dimension.
inline bool splits_by_column(const Geometry& g) {
  return g.op == Op::scatter_elements && g.rank > 1 && g.axis != g.rank - 1;
}

/// A histogram: one-dimensional ScatterElements, one row of targets and no coordinates to walk.
inline bool is_histogram(const Geometry& g) { return g.op == Op::scatter_elements && g.rank == 1; }

// output[indices[m, :k]] = f(output[...], updates[m])  (a slice of data.shape[k:])
template <class I, class Emit>
void nd_runs(const Geometry& g, const I* idx, std::int64_t r0, std::int64_t r1, Emit&& emit) {
  if (g.k == 1) {
    for (std::int64_t m = r0; m < r1; ++m) emit(m * g.len, normalized(idx[m], g.extents[0]) * g.ostride[0]);
    return;
  }
  for (std::int64_t m = r0; m < r1; ++m) {
    std::int64_t o = 0;
    for (std::int64_t j = 0; j < g.k; ++j) o += normalized(idx[m * g.k + j], g.extents[j]) * g.ostride[j];
    emit(m * g.len, o);
  }
}

// The block ops: run (o, i), o over data.shape[:axis] and i < count, lands on row row_of(o, i)
// of block o (nowhere when negative). Block o lands within [o * extent * len, (o + 1) * extent *
// len): blocks outside the window [lo, hi) are skipped.
template <class RowOf, class Emit>
void block_runs(const Geometry& g, std::int64_t r0, std::int64_t r1, std::int64_t lo, std::int64_t hi, RowOf&& row_of,
                Emit&& emit) {
  if (r0 >= r1 || g.count == 0) return;
  const auto block = g.extent * g.len;
  for (std::int64_t o = r0 / g.count; o * g.count < r1; ++o) {
    if (o * block >= hi || (o + 1) * block <= lo) continue;
    const auto i1 = std::min(g.count, r1 - o * g.count);
    for (std::int64_t i = std::max<std::int64_t>(0, r0 - o * g.count); i < i1; ++i) {
      const auto row = row_of(o, i);
      if (row >= 0) emit((o * g.count + i) * g.len, (o * g.extent + row) * g.len);
    }
  }
}

// data[o, indices[i], ...] = updates[o, i, ...]  (o over data.shape[:axis], i over indices),
// but for the runs that a later index overwrites (g.last).
template <class I, class Emit>
void update_runs(const Geometry& g, const I* idx, std::int64_t r0, std::int64_t r1, std::int64_t lo,
                 std::int64_t hi, Emit&& emit) {
  block_runs(g, r0, r1, lo, hi, [&](std::int64_t, std::int64_t i) -> std::int64_t {
    return g.last != nullptr && g.last[i] == 0 ? -1 : normalized(idx[i], g.extent);
  }, emit);
}

// present[o, position(w[o / per_batch], i), ...] = update[o, i, ...]: one write position per
// batch row; position w + i, wrapped once at most when circular (w taken modulo extent first).
template <class I, class Emit>
void tensor_scatter_runs(const Geometry& g, const I* idx, std::int64_t r0, std::int64_t r1, std::int64_t lo,
                         std::int64_t hi, Emit&& emit) {
  block_runs(g, r0, r1, lo, hi, [&](std::int64_t o, std::int64_t i) {
    const auto w = static_cast<std::int64_t>(idx[o / g.per_batch]);
    const auto at = (g.circular ? w % g.extent : w) + i;
    return at < g.extent ? at : at - g.extent;
  }, emit);
}

/// Calls emit(update_offset, output_offset) for runs [r0, r1) that may land in [lo, hi)
/// (and some that do not: the caller filters), in update order; or inside(...) instead
/// for runs known to land in it (ScatterElements rows wholly inside the window).
template <class I, class Emit, class Inside>
void for_each_run(const Geometry& g, const I* idx, std::int64_t r0, std::int64_t r1, std::int64_t lo,
                  std::int64_t hi, Emit&& emit, Inside&& inside) {
  switch (g.op) {
    case Op::scatter_elements:
      elements_runs(g, idx, r0, r1, lo, hi, emit, inside);
      break;
    case Op::scatter_nd:
      nd_runs(g, idx, r0, r1, emit);
      break;
    case Op::scatter_update:
      update_runs(g, idx, r0, r1, lo, hi, emit);
      break;
    case Op::tensor_scatter:
      tensor_scatter_runs(g, idx, r0, r1, lo, hi, emit);
      break;
  }
}

template <class I, class Emit>
void for_each_run(const Geometry& g, const I* idx, std::int64_t r0, std::int64_t r1, std::int64_t lo,
                  std::int64_t hi, Emit&& emit) {
  for_each_run(g, idx, r0, r1, lo, hi, emit, emit);
}

/// Whether a thread's window of the output bounds which runs it reads: ScatterElements
/// along its last axis (each row of updates stays in its row), ScatterUpdate below its
/// first axis. Elsewhere any run can land anywhere.
inline bool runs_are_local(const Geometry& g) {
  return (g.op == Op::scatter_elements && g.axis == g.rank - 1 && g.rank > 1) ||
         ((g.op == Op::scatter_update || g.op == Op::tensor_scatter) && g.outer > 1);
}

/// ScatterUpdate `none` writes the same rows of indices in every block o, so the winner of
/// each output row is the last index with its value, for every o. Marks those in `last`
/// (count entries), using `seen` (extent entries) as scratch: O(count + extent), against
/// the outer x count x len elements the skipped duplicates would have copied (the
/// OpenVINO example: 2500 indices into 256 rows, so about 10 copies of each row saved).
template <class I>
void mark_last_indices(const Geometry& g, const I* idx, std::uint8_t* last, std::int32_t* seen) {
  std::fill(seen, seen + g.extent, std::int32_t{-1});
  for (std::int64_t i = 0; i < g.count; ++i) seen[normalized(idx[i], g.extent)] = static_cast<std::int32_t>(i);
  for (std::int64_t i = 0; i < g.count; ++i) last[i] = seen[normalized(idx[i], g.extent)] == i ? 1 : 0;
}

/// Whether marking the winners (mark_last_indices) pays: ScatterUpdate `none` with a
/// second index, a table of targets no larger than a few times the indices, and scratch
/// (count + 4 x extent bytes) under a sixteenth of the update elements (the memory budget).
inline bool marks_last_indices(const Geometry& g, Reduction r) {
  return g.op == Op::scatter_update && r == Reduction::none && g.count > 1 && g.count < (std::int64_t{1} << 31) &&
         g.extent <= 4 * g.count && 16 * (g.count + 4 * g.extent) <= g.runs * g.len;
}

}  // namespace scatter::detail::cpu

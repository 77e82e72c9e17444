#pragma once
// Where the cpu backend's runs go. A run is `len` contiguous updates landing on `len`
// contiguous output elements: one element for ScatterElements, a slice for ScatterND, an
// inner block for ScatterUpdate. Run r starts at update r * len; its output offset comes
// from the indices, read in their own type and normalized (negative + extent) on the
// fly, in row-major update order: targets.hpp's visitors, without their int64 copy of
// the indices. The Geometry is worked out once per case, before the timed region.

#include <array>
#include <cstdint>

#include "scatter/case.hpp"

namespace scatter::detail::cpu {

struct Geometry {
  Op op = Op::scatter_elements;
  std::int64_t len = 0;   ///< elements per run
  std::int64_t runs = 0;  ///< runs in all
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
  std::int64_t outer = 0;
  std::int64_t count = 0;
};

Geometry geometry_of(const Case& c);

template <class I>
inline std::int64_t normalized(I v, std::int64_t extent) {
  const auto w = static_cast<std::int64_t>(v);
  return w < 0 ? w + extent : w;
}

// out[i0, .., idx[i0, .., ir-1], .., ir-1] = f(out[...], updates[i0, .., ir-1])  (idx at `axis`)
// A row of updates lands within [base, base + reach): rows that cannot reach the window
// [lo, hi) are skipped without reading their indices (along a row, axis = rank - 1, every
// thread reads only its own rows).
template <class I, class Emit>
void elements_runs(const Geometry& g, const I* idx, std::int64_t lo, std::int64_t hi, Emit&& emit) {
  if (g.runs == 0) return;
  const auto reach = (g.row - 1) * g.col_stride + (g.extent - 1) * g.index_stride + 1;
  std::array<std::int64_t, kMaxRank> coord{};  // over dims 0..rank-2
  std::int64_t base = 0;
  for (std::int64_t u0 = 0; u0 < g.runs; u0 += g.row) {
    if (base < hi && base + reach > lo) {
      for (std::int64_t j = 0; j < g.row; ++j) {
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

// output[indices[m, :k]] = f(output[...], updates[m])  (a slice of data.shape[k:])
template <class I, class Emit>
void nd_runs(const Geometry& g, const I* idx, Emit&& emit) {
  if (g.k == 1) {
    for (std::int64_t m = 0; m < g.runs; ++m) emit(m * g.len, normalized(idx[m], g.extents[0]) * g.ostride[0]);
    return;
  }
  for (std::int64_t m = 0; m < g.runs; ++m) {
    std::int64_t o = 0;
    for (std::int64_t j = 0; j < g.k; ++j) o += normalized(idx[m * g.k + j], g.extents[j]) * g.ostride[j];
    emit(m * g.len, o);
  }
}

// data[o, indices[i], ...] = updates[o, i, ...]  (o over data.shape[:axis], i over indices)
// Block o lands within [o * extent * len, (o + 1) * extent * len): blocks outside the
// window [lo, hi) are skipped.
template <class I, class Emit>
void update_runs(const Geometry& g, const I* idx, std::int64_t lo, std::int64_t hi, Emit&& emit) {
  const auto block = g.extent * g.len;
  for (std::int64_t o = 0; o < g.outer; ++o) {
    if (o * block >= hi || (o + 1) * block <= lo) continue;
    for (std::int64_t i = 0; i < g.count; ++i) {
      emit((o * g.count + i) * g.len, (o * g.extent + normalized(idx[i], g.extent)) * g.len);
    }
  }
}

/// Calls emit(update_offset, output_offset) for every run that may land in [lo, hi)
/// (and some that do not: the caller filters), in update order.
template <class I, class Emit>
void for_each_run(const Geometry& g, const I* idx, std::int64_t lo, std::int64_t hi, Emit&& emit) {
  switch (g.op) {
    case Op::scatter_elements:
      elements_runs(g, idx, lo, hi, emit);
      break;
    case Op::scatter_nd:
      nd_runs(g, idx, emit);
      break;
    case Op::scatter_update:
      update_runs(g, idx, lo, hi, emit);
      break;
  }
}

}  // namespace scatter::detail::cpu

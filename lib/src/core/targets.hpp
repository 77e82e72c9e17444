#pragma once
// Where each update goes: per op, a visitor over runs of contiguous updates,
// `fn(update_offset, output_offset, length)`, in row-major update order. The
// reference, the comparison and the reports share it; ops differ only here.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "scatter/cancel.hpp"
#include "scatter/case.hpp"

namespace scatter::detail {

/// tensor_scatter: the last valid write position, S - L when linear (the whole sequence must fit
/// the axis), none when circular (positions are taken modulo S). The first is always 0.
inline std::int64_t last_write_position(const Case& c) {
  const auto axis = static_cast<std::size_t>(c.attrs.axis);
  return c.attrs.mode == WriteMode::linear ? c.data.shape()[axis] - c.updates.shape()[axis] : INT64_MAX;
}

/// Indices with negatives made positive (index + extent), as int64, once; tensor_scatter's
/// write positions taken modulo the extent when circular (they are never negative).
inline std::vector<std::int64_t> normalized_indices(const Case& c) {
  const auto n = c.indices.numel();
  const auto& data = c.data.shape();
  if (c.attrs.op == Op::tensor_scatter) {
    const auto extent = data[static_cast<std::size_t>(c.attrs.axis)];
    const bool circular = c.attrs.mode == WriteMode::circular && extent > 0;
    std::vector<std::int64_t> out(static_cast<std::size_t>(n));
    for (std::int64_t b = 0; b < n; ++b) out[b] = circular ? index_at(c.indices, b) % extent : index_at(c.indices, b);
    return out;
  }
  const auto k = c.indices.rank() == 0 ? 1 : c.indices.shape().back();
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if ((i & 0xFFFFF) == 0xFFFFF) poll_cancel();  // seconds on a large case
    const auto v = index_at(c.indices, i);
    const auto dim = c.attrs.op == Op::scatter_nd ? i % k : c.attrs.axis;
    out[i] = v < 0 ? v + data[static_cast<std::size_t>(dim)] : v;
  }
  return out;
}

// out[i0, .., idx[i0, .., ir-1], .., ir-1] = f(out[...], updates[i0, .., ir-1])  (idx at `axis`)
template <class Fn>
void visit_scatter_elements(const Case& c, const std::vector<std::int64_t>& idx, Fn&& fn) {
  const auto& ushape = c.indices.shape();
  const auto r = ushape.size();
  const auto ostride = strides_of(c.data.shape());
  const auto axis = static_cast<std::size_t>(c.attrs.axis);
  const auto n = c.indices.numel();
  if (n == 0) return;
  const auto last = r - 1;
  const auto row = ushape[last];
  std::vector<std::int64_t> coord(r, 0);  // over dims 0..r-2
  std::int64_t base = 0;                  // sum of coord[d] * ostride[d] for d < last, d != axis
  for (std::int64_t u0 = 0; u0 < n; u0 += row) {
    for (std::int64_t j = 0; j < row; ++j) {
      const auto u = u0 + j;
      const auto o = axis == last ? base + idx[u] : base + j + idx[u] * ostride[axis];
      fn(u, o, std::int64_t{1});
    }
    for (std::size_t d = last; d-- > 0;) {  // increment the row coordinate
      if (d != axis) base += ostride[d];
      if (++coord[d] < ushape[d]) break;
      if (d != axis) base -= coord[d] * ostride[d];
      coord[d] = 0;
    }
  }
}

// output[indices[m, :k]] = f(output[...], updates[m])  (a slice of data.shape[k:])
template <class Fn>
void visit_scatter_nd(const Case& c, const std::vector<std::int64_t>& idx, Fn&& fn) {
  const auto& dshape = c.data.shape();
  const auto& ishape = c.indices.shape();
  const auto k = static_cast<std::size_t>(ishape.back());
  const auto ostride = strides_of(dshape);
  const auto tuples = numel(Shape(ishape.begin(), ishape.end() - 1));
  const auto slice = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(k), dshape.end()));
  for (std::int64_t m = 0; m < tuples; ++m) {
    std::int64_t o = 0;
    for (std::size_t j = 0; j < k; ++j) o += idx[m * static_cast<std::int64_t>(k) + static_cast<std::int64_t>(j)] * ostride[j];
    fn(m * slice, o, slice);
  }
}

// data[o, indices[i], ...] = updates[o, i, ...]  (o over data.shape[:axis], i over indices)
template <class Fn>
void visit_scatter_update(const Case& c, const std::vector<std::int64_t>& idx, Fn&& fn) {
  const auto& dshape = c.data.shape();
  const auto axis = static_cast<std::size_t>(c.attrs.axis);
  const auto outer = numel(Shape(dshape.begin(), dshape.begin() + static_cast<std::ptrdiff_t>(axis)));
  const auto inner = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dshape.end()));
  const auto extent = dshape[axis];
  const auto count = static_cast<std::int64_t>(idx.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < count; ++i) fn((o * count + i) * inner, (o * extent + idx[i]) * inner, inner);
  }
}

// present[p, (w[p0] + s) (mod extent), ...] = update[p, s, ...]  (p over data.shape[:axis], p0 its
// batch coordinate, s over the sequence; w already taken modulo the extent when circular). A
// block's sequence is one run, or two where a circular write wraps past the end.
template <class Fn>
void visit_tensor_scatter(const Case& c, const std::vector<std::int64_t>& w, Fn&& fn) {
  const auto& dshape = c.data.shape();
  const auto axis = static_cast<std::size_t>(c.attrs.axis);
  const auto outer = numel(Shape(dshape.begin(), dshape.begin() + static_cast<std::ptrdiff_t>(axis)));
  const auto per_batch = numel(Shape(dshape.begin() + 1, dshape.begin() + static_cast<std::ptrdiff_t>(axis)));
  const auto inner = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dshape.end()));
  const auto extent = dshape[axis];
  const auto length = c.updates.shape()[axis];
  if (length == 0 || inner == 0) return;
  for (std::int64_t p = 0; p < outer; ++p) {
    const auto start = w[static_cast<std::size_t>(p / per_batch)];
    const auto first = std::min(length, extent - start);  // before a circular write wraps
    fn(p * length * inner, (p * extent + start) * inner, first * inner);
    if (first < length) fn((p * length + first) * inner, p * extent * inner, (length - first) * inner);
  }
}

/// Calls fn(update_offset, output_offset, length) for every run of updates, in order.
template <class Fn>
void visit_targets(const Case& c, const std::vector<std::int64_t>& idx, Fn&& fn) {
  switch (c.attrs.op) {
    case Op::scatter_elements: visit_scatter_elements(c, idx, fn); break;
    case Op::scatter_nd: visit_scatter_nd(c, idx, fn); break;
    case Op::scatter_update: visit_scatter_update(c, idx, fn); break;
    case Op::tensor_scatter: visit_tensor_scatter(c, idx, fn); break;
  }
}

/// The output offset that update element `u` lands on: one element of what visit_targets
/// gives, reached without visiting the others (a draw among every update). `idx` is read as
/// idx[i] -> the normalized index i (a vector, or a view with a few indices changed).
template <class Indices>
std::int64_t target_of(const Case& c, const Indices& idx, std::int64_t u) {
  const auto& dshape = c.data.shape();
  const auto ostride = strides_of(dshape);
  const auto axis = static_cast<std::size_t>(c.attrs.axis);
  switch (c.attrs.op) {
    case Op::scatter_elements: {
      const auto& ishape = c.indices.shape();
      std::int64_t o = 0, rest = u;
      for (std::size_t d = ishape.size(); d-- > 0;) {
        const auto coord = rest % ishape[d];
        rest /= ishape[d];
        if (d != axis) o += coord * ostride[d];
      }
      return o + idx[u] * ostride[axis];
    }
    case Op::scatter_nd: {
      const auto k = c.indices.shape().back();
      const auto slice = numel(Shape(dshape.begin() + k, dshape.end()));
      const auto m = u / slice;
      std::int64_t o = u % slice;
      for (std::int64_t j = 0; j < k; ++j) o += idx[m * k + j] * ostride[static_cast<std::size_t>(j)];
      return o;
    }
    case Op::scatter_update: {
      const auto inner = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dshape.end()));
      const auto count = c.indices.numel();
      const auto outer = u / (count * inner), r = u % (count * inner);
      return (outer * dshape[axis] + idx[r / inner]) * inner + r % inner;
    }
    case Op::tensor_scatter: {
      const auto inner = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dshape.end()));
      const auto per_batch = numel(Shape(dshape.begin() + 1, dshape.begin() + static_cast<std::ptrdiff_t>(axis)));
      const auto length = c.updates.shape()[axis];
      const auto extent = dshape[axis];
      const auto p = u / (length * inner), r = u % (length * inner);
      auto at = idx[p / per_batch] + r / inner;
      if (at >= extent) at -= extent;  // a circular write that wrapped
      return (p * extent + at) * inner + r % inner;
    }
  }
  return -1;
}

/// How many updates land on each output element, saturating at UINT32_MAX: the comparison's
/// duplicate rules and the fuzz verdict's exact-where-short rule read it.
inline std::vector<std::uint32_t> hits_per_element(const Case& c, const std::vector<std::int64_t>& idx) {
  std::vector<std::uint32_t> hits(static_cast<std::size_t>(c.data.numel()), 0);
  std::int64_t since_poll = 0;
  visit_targets(c, idx, [&](std::int64_t, std::int64_t o, std::int64_t len) {
    if ((since_poll += len) >= (1 << 20)) {  // seconds on a large case
      since_poll = 0;
      poll_cancel();
    }
    for (std::int64_t j = 0; j < len; ++j) {
      auto& h = hits[static_cast<std::size_t>(o + j)];
      h += h != UINT32_MAX;
    }
  });
  return hits;
}

}  // namespace scatter::detail

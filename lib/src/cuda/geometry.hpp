#pragma once
// A case's shapes as the kernels take them (by value). Plain C++: the CPU tests
// build the same geometry and run the element bodies on the host.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "element.hpp"
#include "scatter/case.hpp"

namespace scatter::cuda {

/// The kernels' view of a case, or the reason it cannot have one (rank too high).
inline std::optional<Geometry> make_geometry(const Case& c, std::string& why) {
  Geometry g;
  const auto& data = c.data.shape();
  const auto strides = strides_of(data);
  g.rank = static_cast<int>(data.size());
  g.axis = static_cast<int>(c.attrs.axis);
  g.n = c.data.numel();
  g.u = c.updates.numel();
  switch (c.attrs.op) {
    case Op::scatter_elements:
      g.op = Op::scatter_elements;
      if (g.rank > kMaxDeviceRank) {
        why = "scatter_elements of rank " + std::to_string(g.rank) + " (the cuda backend takes rank <= 16)";
        return std::nullopt;
      }
      for (int d = 0; d < g.rank; ++d) {
        g.ushape[d] = c.indices.shape()[static_cast<std::size_t>(d)];
        g.dshape[d] = data[static_cast<std::size_t>(d)];
        g.ostride[d] = strides[static_cast<std::size_t>(d)];
      }
      g.extent = data[static_cast<std::size_t>(g.axis)];
      break;
    case Op::scatter_nd: {
      g.op = Op::scatter_nd;
      g.k = static_cast<int>(c.indices.shape().back());
      if (g.k > kMaxDeviceRank) {
        why = "scatter_nd tuples of length " + std::to_string(g.k) + " (the cuda backend takes k <= 16)";
        return std::nullopt;
      }
      for (int d = 0; d < g.k; ++d) {
        g.dshape[d] = data[static_cast<std::size_t>(d)];
        g.ostride[d] = strides[static_cast<std::size_t>(d)];
      }
      g.slice = numel(Shape(data.begin() + g.k, data.end()));
      break;
    }
    case Op::scatter_update:
      g.op = Op::scatter_update;
      g.slice = numel(Shape(data.begin() + g.axis + 1, data.end()));
      g.extent = data[static_cast<std::size_t>(g.axis)];
      g.count = c.indices.numel();
      break;
    case Op::tensor_scatter:
      g.op = Op::tensor_scatter;
      g.slice = numel(Shape(data.begin() + g.axis + 1, data.end()));
      g.extent = data[static_cast<std::size_t>(g.axis)];
      g.count = c.updates.shape()[static_cast<std::size_t>(g.axis)];
      g.per_batch = std::max<std::int64_t>(1, numel(Shape(data.begin() + 1, data.begin() + g.axis)));
      g.circular = c.attrs.mode == WriteMode::circular;
      break;
  }
  for (int d = 0; d < g.rank && d < kMaxDeviceRank; ++d) g.by_ushape[d] = fast_divide_by(g.ushape[d]);
  g.by_slice = fast_divide_by(g.slice);
  g.by_count = fast_divide_by(g.count);
  g.by_per_batch = fast_divide_by(g.per_batch);
  return g;
}

/// Whether k_reduce may merge a warp's updates to one target before its atomic: only
/// where a merge equals applying them one at a time, bit for bit (integers, bool, min,
/// max). Float add, sub, mul and mean round after every step (the spec), and a merge is
/// no order of steps: in float16, 2048 + 1 + 1 is 2048 in any order, 2048 + (1 + 1) is 2050.
inline bool may_aggregate(Reduction r, DType t) { return r != Reduction::none && !is_order_dependent(r, t); }

/// Whether warps of consecutive updates are likely to share targets, from the first
/// 1024 updates' targets (host indices): fewer than 3/4 distinct per window of 32. Then
/// the reductions combine a warp's duplicates before the atomic (k_reduce's kAggregate).
template <class IndexT>
bool warp_duplicates_likely(const Geometry& g, const IndexT* idx) {
  const std::int64_t sample = std::min<std::int64_t>(g.u, 1024);
  std::int64_t distinct = 0;
  for (std::int64_t w = 0; w < sample; w += 32) {
    std::int64_t t[32];
    int k = 0;
    for (std::int64_t i = w; i < std::min<std::int64_t>(sample, w + 32); ++i) t[k++] = target_of(g, idx, i);
    std::sort(t, t + k);
    distinct += std::unique(t, t + k) - t;
  }
  return sample >= 2 && distinct * 4 < sample * 3;
}

/// Whether the updates land on few distinct targets (contention): 4096 updates sampled
/// across the whole tensor hit at most kBlockSlots / 4 targets, and there are at
/// least kBlockAggregateMinUpdates updates. Then the reductions that may take it
/// aggregate per block in shared memory (k_reduce_block). A wrong guess costs speed only:
/// a target that finds no slot goes straight to the output.
template <class IndexT>
bool few_targets_likely(const Geometry& g, const IndexT* idx) {
  if (g.u < kBlockAggregateMinUpdates) return false;
  constexpr std::int64_t kSample = 4096;
  std::vector<std::int64_t> t(static_cast<std::size_t>(kSample));
  for (std::int64_t k = 0; k < kSample; ++k) {  // scrambled positions: no stride aliasing with a row's length
    std::uint64_t x = static_cast<std::uint64_t>(k + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    t[static_cast<std::size_t>(k)] = target_of(g, idx, static_cast<std::int64_t>(x % static_cast<std::uint64_t>(g.u)));
  }
  std::sort(t.begin(), t.end());
  const auto distinct = std::unique(t.begin(), t.end()) - t.begin();
  return distinct <= kBlockSlots / 4;
}

/// Whether float32 add, sub and mean may use the native atomicAdd: every value that enters
/// a sum (the updates, and data where it is the start) passes f32_native_add_exact.
inline bool f32_native_add_exact(const Case& c) {
  auto all_pass = [](const Tensor& t) {
    const float* v = t.data<float>();
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, v + i, sizeof(bits));
      if (!f32_native_add_exact(bits)) return false;
    }
    return true;
  };
  return all_pass(c.updates) && (!c.attrs.use_init_val || all_pass(c.data));
}

/// Whether a float16 or bfloat16 tensor holds a NaN: the packed atomics would change
/// its bits in an element no update targets (see packed_pair in kernels.cu).
inline bool half_nan_in(const Tensor& t) {
  const auto* v = reinterpret_cast<const std::uint16_t*>(t.bytes());
  const std::uint16_t exponent = t.dtype() == DType::float16 ? 0x7C00 : 0x7F80;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    if ((v[i] & exponent) == exponent && (v[i] & static_cast<std::uint16_t>(~exponent & 0x7FFF)) != 0) return true;
  }
  return false;
}

}  // namespace scatter::cuda

// The cuda backend's element bodies (lib/src/cuda/element.hpp), compiled for the host
// and run in the kernels' own orders, against the CPU reference. These are the GPU's
// target mappers, reductions, identities, means and 16-bit roundings: if one of them
// differs from the spec, these tests fail without a GPU. What they cannot check is the
// device itself (atomics, memory, launches): tests/test_cuda_backend.cpp does, on a GPU.
//
// Emulations: `none` as the two winner passes (largest update index per target wins;
// per output row for scatter_nd and scatter_update, whose rows are then copied), and the reductions in update order (the order the deterministic path's stable
// sort gives, and the one the reference uses). Both must match the reference bit for
// bit (any NaN equals any NaN) on every bundled case and on fuzzed cases of every op,
// reduction, dtype, rank, k, duplicate density and negative-index mix.

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../lib/src/cuda/geometry.hpp"
#include "../lib/src/cuda/plan.hpp"
#include "../lib/src/cuda/sorted_runs.hpp"
#include "../lib/src/core/dispatch.hpp"
#include "../lib/src/core/targets.hpp"
#include "scatter/backend.hpp"
#include "scatter/compare.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "test_util.hpp"

namespace {

namespace cu = scatter::cuda;
using scatter::Case;
using scatter::DType;
using scatter::Tensor;
using scatter::BFloat16;
using scatter::Float16;
using scatter::Op;
using scatter::Reduction;

template <class T>
T load_as(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
void store_as(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// The order the reductions meet the output in. The GPU's is free: `update` is the
// reference's (and --deterministic's), `reverse` the last update first, `warp_tree`
// the aggregated path (k_reduce's kAggregate): each warp of 32 consecutive updates
// merges its updates to one target in a pairwise tree (merge_tree), then the
// warps land last to first.
// `block` the contention path (k_reduce_block): each block merges its updates per target
// in a table of `slots` (slot_of), a target without a slot goes straight to the output,
// and the blocks flush last to first (with warp_merge, a warp's updates to one target
// merge first, as in warp_tree).
// `bins` the small-output contention path (k_reduce_bins): `bin_grid` blocks (0: the
// kernel's own, bin_blocks), each warp's steps of 32 updates merged per target (as in
// warp_tree) into the warp's own bin row, the rows folded in warp order, the blocks'
// partials folded in block order into the output.
// `sorted` is --deterministic: the stable sort by target, then the levels of
// sorted_runs.hpp with `sorted_shape` (the kernels' own functions, each chunk's thread in
// turn, last chunk first).
enum class Order { update, reverse, warp_tree, block, bins, sorted };
int bin_grid = 0;

struct SortedShape {
  int chunk = cu::kRunChunk;
  std::int64_t serial = cu::kSerialRun;
};
SortedShape sorted_shape;
int sorted_levels = 0;  // the levels the last Order::sorted emulation ran

// slot_of's CAS, one thread at a time: the key it found, replaced when it was `expected`.
long long host_cas(long long* key, long long expected, long long desired) {
  const long long found = *key;
  if (found == expected) *key = desired;
  return found;
}

struct BlockShape {
  int blocks = 3;
  int slots = cu::kBlockSlots;
  bool warp_merge = false;
};
BlockShape block_shape;             // the shape Order::block emulates
std::int64_t block_fallbacks = 0;   // updates that found no slot, over every emulation

// The pairwise tree over a warp's values for one target, in lane order (takes_at): the
// bins' merge_peers exactly. k_reduce and k_reduce_block merge with cg::reduce, whose tree
// differs (a butterfly for 32 lanes, a scan otherwise): there this is one order among those
// the comparison allows (and exact for the integers, min and max that k_reduce merges).
template <class T>
T merge_tree(std::vector<T> values, Reduction merge) {
  const int size = static_cast<int>(values.size());
  for (int stride = 1; stride < size; stride *= 2) {
    for (int rank = 0; rank < size; ++rank) {
      if (cu::takes_at(rank, size, stride)) {
        values[static_cast<std::size_t>(rank)] =
            cu::combine(merge, values[static_cast<std::size_t>(rank)], values[static_cast<std::size_t>(rank + stride)]);
      }
    }
  }
  return values.front();
}

// The kernels' work, one thread after another.
template <class T, class IndexT, class Off>
Tensor emulate_typed(const Case& c, const cu::Geometry& g, Order order) {
  Tensor out = c.data.clone();
  auto* o = out.bytes();
  const auto* upd = c.updates.bytes();
  const auto* idx = reinterpret_cast<const IndexT*>(c.indices.bytes());
  const auto r = c.attrs.reduction;
  if (g.u == 0) return out;  // enqueue_scatter launches nothing
  auto at = [&](std::int64_t offset) { return o + offset * static_cast<std::int64_t>(sizeof(T)); };
  auto update = [&](std::int64_t i) { return load_as<T>(upd + i * static_cast<std::int64_t>(sizeof(T))); };
  auto target = [&](std::int64_t i) {
    const std::int64_t t = cu::target_of<Off>(g, idx, static_cast<Off>(i));
    EXPECT_TRUE(t >= 0 && t < g.n) << "update " << i << " maps to " << t << " of " << g.n;
    return t;
  };

  if (r == Reduction::none && order == Order::reverse) {  // free order (k_scatter_free, k_row_direct alone), last store first
    for (std::int64_t i = g.u - 1; i >= 0; --i) store_as(at(target(i)), update(i));
    return out;
  }
  if (r == Reduction::none && g.op != Op::scatter_elements) {  // k_row_direct; with a duplicate row, k_row_winners, then k_row_copy
    const std::int64_t rows_n = g.n / g.slice;
    const std::int64_t rows_u = g.u / g.slice;
    const auto bytes_per_row = g.slice * static_cast<std::int64_t>(sizeof(T));
    std::vector<bool> seen(static_cast<std::size_t>(rows_n), false);
    bool duplicate = false;
    for (std::int64_t m = 0; m < rows_u; ++m) {
      const std::int64_t t = cu::row_target_of<Off>(g, idx, static_cast<Off>(m));
      if (t < 0 || t >= rows_n) continue;  // checked below
      std::memcpy(o + t * bytes_per_row, upd + m * bytes_per_row, static_cast<std::size_t>(bytes_per_row));
      duplicate = duplicate || seen[static_cast<std::size_t>(t)];
      seen[static_cast<std::size_t>(t)] = true;
    }
    if (!duplicate) return out;
    std::vector<std::int64_t> winner(static_cast<std::size_t>(rows_n), -1);
    std::vector<std::int64_t> row_target(static_cast<std::size_t>(rows_u));
    for (std::int64_t m = 0; m < rows_u; ++m) {
      const std::int64_t t = cu::row_target_of<Off>(g, idx, static_cast<Off>(m));
      EXPECT_TRUE(t >= 0 && t < rows_n) << "update row " << m << " maps to " << t << " of " << rows_n;
      row_target[static_cast<std::size_t>(m)] = t;
      auto& w = winner[static_cast<std::size_t>(t)];
      w = std::max(w, m);
    }
    const auto row_bytes = g.slice * static_cast<std::int64_t>(sizeof(T));
    for (std::int64_t m = 0; m < rows_u; ++m) {
      const auto t = row_target[static_cast<std::size_t>(m)];
      if (winner[static_cast<std::size_t>(t)] == m) std::memcpy(o + t * row_bytes, upd + m * row_bytes, row_bytes);
    }
    return out;
  }
  if (r == Reduction::none) {  // k_write_direct; with a duplicate, k_winners, then k_write_winners
    std::vector<bool> seen(static_cast<std::size_t>(g.n), false);
    bool duplicate = false;
    for (std::int64_t i = 0; i < g.u; ++i) {
      const auto t = target(i);
      store_as(at(t), update(i));
      duplicate = duplicate || seen[static_cast<std::size_t>(t)];
      seen[static_cast<std::size_t>(t)] = true;
    }
    if (!duplicate) return out;
    std::vector<std::int64_t> winner(static_cast<std::size_t>(g.n), -1);
    for (std::int64_t i = 0; i < g.u; ++i) {
      auto& w = winner[static_cast<std::size_t>(target(i))];
      w = std::max(w, i);
    }
    for (std::int64_t i = 0; i < g.u; ++i) {
      const auto t = target(i);
      if (winner[static_cast<std::size_t>(t)] == i) store_as(at(t), update(i));
    }
    return out;
  }
  if (!c.attrs.use_init_val) {  // k_identity
    for (std::int64_t i = 0; i < g.u; ++i) store_as(at(target(i)), cu::identity<T>(r));
  }
  std::vector<std::int64_t> count(static_cast<std::size_t>(g.n), 0);
  auto land = [&](std::int64_t t, T value, std::int64_t updates) {
    store_as(at(t), cu::combine(r, load_as<T>(at(t)), value));
    count[static_cast<std::size_t>(t)] += updates;
  };
  if (order == Order::sorted && scatter::is_order_dependent(r, c.data.dtype())) {
    if constexpr (cu::kIsFloat<T>) {  // k_keys, the stable sort, k_runs_first, k_runs_next
      using K = std::uint32_t;
      std::vector<std::int64_t> by_key(static_cast<std::size_t>(g.u));
      for (std::int64_t i = 0; i < g.u; ++i) by_key[static_cast<std::size_t>(i)] = i;
      std::stable_sort(by_key.begin(), by_key.end(), [&](auto x, auto y) { return target(x) < target(y); });
      std::vector<K> keys;
      std::vector<T> values;
      for (const auto i : by_key) {
        keys.push_back(static_cast<K>(target(i)));
        values.push_back(update(i));
      }
      const int chunk = sorted_shape.chunk;
      std::int64_t chunks = (g.u + chunk - 1) / chunk;
      std::vector<K> piece_keys[2];
      std::vector<T> piece_values[2];
      std::vector<std::uint32_t> piece_counts[2];
      cu::Pieces<T, K> pieces[2];
      for (int k = 0; k < 2; ++k) {
        piece_keys[k].assign(static_cast<std::size_t>(2 * chunks), K{7});  // garbage: every slot is written
        piece_values[k].resize(static_cast<std::size_t>(2 * chunks));
        piece_counts[k].assign(static_cast<std::size_t>(2 * chunks), 0);
        pieces[k] = {piece_keys[k].data(), piece_values[k].data(), piece_counts[k].data()};
      }
      auto* typed = reinterpret_cast<T*>(o);
      const int init = c.attrs.use_init_val ? 1 : 0;
      for (std::int64_t t = chunks - 1; t >= 0; --t) {
        cu::reduce_runs_first(t, g.u, g.n, chunk, sorted_shape.serial, keys.data(), values.data(), typed, r, init,
                              pieces[0]);
      }
      sorted_levels = cu::run_levels(g.u, chunk, sorted_shape.serial);
      for (int level = 1; level < sorted_levels; ++level) {
        const std::int64_t m = 2 * chunks;
        chunks = (m + chunk - 1) / chunk;
        for (std::int64_t t = chunks - 1; t >= 0; --t) {
          cu::reduce_runs_next(t, m, chunk, pieces[(level - 1) % 2], typed, r, init, pieces[level % 2]);
        }
      }
      // The last level (one chunk, or level 0 when every run is short) finishes every run: it
      // hands nothing up.
      for (std::int64_t slot = 0; slot < 2 * chunks; ++slot) {
        EXPECT_EQ(piece_keys[(sorted_levels - 1) % 2][static_cast<std::size_t>(slot)], cu::empty_key<K>())
            << "a piece is left over after " << sorted_levels << " levels, slot " << slot;
      }
      return out;
    }
  }
  if (order == Order::warp_tree && cu::may_aggregate(r, c.data.dtype())) {
    for (std::int64_t warp = (g.u - 1) / 32; warp >= 0; --warp) {
      std::map<std::int64_t, std::vector<T>> peers;  // target -> the warp's updates to it, lane order
      for (std::int64_t i = warp * 32; i < std::min(g.u, warp * 32 + 32); ++i) peers[target(i)].push_back(update(i));
      for (auto& [t, values] : peers) land(t, merge_tree(values, cu::merge_of<T>(r)), static_cast<std::int64_t>(values.size()));
    }
  } else if (order == Order::block && cu::may_block_aggregate(r, c.data.dtype())) {
    const auto merge = cu::merge_of<T>(r);
    const auto slots = static_cast<std::size_t>(block_shape.slots);
    const std::int64_t grid = std::int64_t{block_shape.blocks} * 256;
    for (std::int64_t b = block_shape.blocks - 1; b >= 0; --b) {
      std::vector<long long> keys(slots, cu::kNoTarget);
      std::vector<T> partial(slots, cu::partial_start<T>(merge));
      std::vector<std::int64_t> hits(slots, 0);
      auto to_table = [&](std::int64_t t, T v, std::int64_t k) {
        const int slot = cu::slot_of(keys.data(), block_shape.slots, t, host_cas);
        if (slot < 0) {
          ++block_fallbacks;
          return land(t, v, k);
        }
        partial[static_cast<std::size_t>(slot)] = cu::combine(merge, partial[static_cast<std::size_t>(slot)], v);
        hits[static_cast<std::size_t>(slot)] += k;
      };
      for (std::int64_t base = b * 256; base < g.u; base += grid) {  // the block's grid-stride steps
        for (std::int64_t warp = base; warp < std::min(g.u, base + 256); warp += 32) {
          const std::int64_t end = std::min(g.u, warp + 32);
          if (!block_shape.warp_merge) {
            for (std::int64_t i = warp; i < end; ++i) to_table(target(i), update(i), 1);
            continue;
          }
          std::vector<std::int64_t> leaders;  // each target's first lane: it does the table's atomic
          std::map<std::int64_t, std::vector<T>> peers;
          for (std::int64_t i = warp; i < end; ++i) {
            auto& values = peers[target(i)];
            if (values.empty()) leaders.push_back(target(i));
            values.push_back(update(i));
          }
          for (const auto t : leaders) {
            const auto& values = peers[t];
            to_table(t, merge_tree(values, merge), static_cast<std::int64_t>(values.size()));
          }
        }
      }
      for (std::size_t slot = 0; slot < slots; ++slot) {  // the flush: one atomic per target met
        if (keys[slot] != cu::kNoTarget) land(keys[slot], partial[slot], hits[slot]);
      }
    }
  } else if (order == Order::bins && cu::may_block_aggregate(r, c.data.dtype())) {
    const auto merge = cu::merge_of<T>(r);
    const T start = cu::partial_start<T>(merge);
    const int blocks = bin_grid > 0 ? bin_grid : cu::bin_blocks(g.u);
    const auto n = static_cast<std::size_t>(g.n);
    std::vector<T> partial(static_cast<std::size_t>(blocks) * n);
    std::vector<std::int64_t> hits(static_cast<std::size_t>(blocks) * n, 0);
    for (int b = 0; b < blocks; ++b) {
      // The warps share only the hit counts (integer sums), so one warp after another is
      // the result of every interleaving.
      std::vector<T> rows(static_cast<std::size_t>(cu::kBinWarps) * n, start);
      for (int w = 0; w < cu::kBinWarps; ++w) {
        T* row = rows.data() + static_cast<std::size_t>(w) * n;
        for (std::int64_t first = std::int64_t{b} * 256 + w * 32; first < g.u; first += std::int64_t{blocks} * 256) {
          std::map<std::int64_t, std::vector<T>> peers;  // target -> this step's updates to it, lane order
          for (std::int64_t i = first; i < std::min(g.u, first + 32); ++i) peers[target(i)].push_back(update(i));
          for (auto& [t, values] : peers) {
            row[t] = cu::combine(merge, row[t], merge_tree(values, merge));
            hits[static_cast<std::size_t>(b) * n + static_cast<std::size_t>(t)] += static_cast<std::int64_t>(values.size());
          }
        }
      }
      for (std::size_t t = 0; t < n; ++t) {
        T acc = rows[t];
        for (int w = 1; w < cu::kBinWarps; ++w) acc = cu::combine(merge, acc, rows[static_cast<std::size_t>(w) * n + t]);
        partial[static_cast<std::size_t>(b) * n + t] = acc;
      }
    }
    for (std::size_t t = 0; t < n; ++t) {  // the last block's fold
      T acc = start;
      std::int64_t met = 0;
      for (int b = 0; b < blocks; ++b) {
        const auto at = static_cast<std::size_t>(b) * n + t;
        if (hits[at] == 0) continue;
        acc = cu::combine(merge, acc, partial[at]);
        met += hits[at];
      }
      if (met > 0) land(static_cast<std::int64_t>(t), acc, met);
    }
  } else {
    for (std::int64_t k = 0; k < g.u; ++k) {  // k_reduce (or k_segments)
      const auto i = order == Order::reverse ? g.u - 1 - k : k;
      land(target(i), update(i), 1);
    }
  }
  if (r == Reduction::mean) {  // k_mean
    if constexpr (!std::is_same_v<T, cu::Bool>) {
      const int init = c.attrs.use_init_val ? 1 : 0;
      for (std::int64_t t = 0; t < g.n; ++t) {
        if (count[static_cast<std::size_t>(t)] > 0) {
          store_as(at(t), cu::mean_of(load_as<T>(at(t)), count[static_cast<std::size_t>(t)] + init));
        }
      }
    }
  }
  return out;
}

template <class T, class IndexT>
Tensor emulate_offsets(const Case& c, const cu::Geometry& g, bool off32, Order order) {
  return off32 ? emulate_typed<T, IndexT, int>(c, g, order) : emulate_typed<T, IndexT, std::int64_t>(c, g, order);
}

template <class T>
Tensor emulate_index(const Case& c, const cu::Geometry& g, bool off32, Order order) {
  return c.indices.dtype() == DType::int64 ? emulate_offsets<T, std::int64_t>(c, g, off32, order)
                                           : emulate_offsets<T, std::int32_t>(c, g, off32, order);
}

// off32: the kernels' 32-bit offset path (taken when offsets_fit_32), else 64-bit.
Tensor emulate(const Case& c, bool off32, Order order = Order::update) {
  std::string why;
  const auto g = cu::make_geometry(c, why);
  if (!g) throw std::runtime_error("no geometry: " + why);
  return scatter::detail::dispatch(c.data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return emulate_index<T>(c, *g, off32, order);
  });
}

const scatter::RunFlags kExact{false, true};  // fuzz_verdict's bit-for-bit rule for every reduction

TEST(CudaElements, EveryBundledCaseMatchesTheReferenceBitForBit) {
  const auto cases = scatter::testing::bundled_cases();
  for (const auto& [what, c] : cases) {
    const auto want = scatter::reference_scatter(c);
    for (const bool off32 : {true, false}) {
      EXPECT_EQ(scatter::fuzz_verdict(c, emulate(c, off32), want, kExact), "")
          << what << (off32 ? " (32-bit offsets)" : " (64-bit offsets)");
    }
    // The GPU's other orders pass the case's comparison (its expected output where it has
    // one, with its tolerance): the per-step edge cases allow no merged updates.
    for (const auto order : {Order::reverse, Order::warp_tree}) {
      const auto cmp = scatter::compare_outputs(c, emulate(c, true, order), c.expected ? *c.expected : want,
                                              c.expected.has_value());
      EXPECT_TRUE(cmp.passed) << what << (order == Order::reverse ? " (reverse)" : " (warp tree)")
                              << ": " << cmp.mismatches << " of " << cmp.elements << " differ beyond " << cmp.rule;
    }
  }
  EXPECT_GT(cases.size(), 250u);  // the bundled suite, not an empty directory
}

TEST(CudaElements, FuzzedCasesMatchTheReferenceBitForBit) {
  int by_op[std::size(scatter::kOps)] = {};
  scatter::testing::for_each_fuzzed_case(7, 2000, 1024, [&](const std::string& text, const scatter::Case& c) {
    ++by_op[static_cast<int>(c.attrs.op)];
    const auto want = scatter::reference_scatter(c);
    ASSERT_EQ(scatter::fuzz_verdict(c, emulate(c, true), want, kExact), "") << text;
    ASSERT_EQ(scatter::fuzz_verdict(c, emulate(c, false), want, kExact), "") << text;
  });
  for (int n : by_op) EXPECT_GT(n, 400);
}

// The GPU's free order: every fuzzed case, its reductions applied last update first and
// through the warp-merge tree, still passes the comparison rules (a tolerance only for
// float add, sub, mul and mean; everything else bit for bit). A failure here would
// otherwise first show on a GPU.
TEST(CudaElements, FuzzedCasesPassTheComparisonInTheGpusOtherOrders) {
  int reordered = 0;
  scatter::testing::for_each_fuzzed_case(11, 2000, 1024, [&](const std::string& text, const scatter::Case& c) {
    const auto want = scatter::reference_scatter(c);
    for (const auto order : {Order::reverse, Order::warp_tree}) {
      const auto got = emulate(c, true, order);
      const auto cmp = scatter::compare_outputs(c, got, want, false);
      ASSERT_TRUE(cmp.passed) << (order == Order::reverse ? "reverse" : "warp tree") << ": " << cmp.mismatches
                              << " of " << cmp.elements << " differ beyond " << cmp.rule << "\n" << text;
      if (c.attrs.reduction == Reduction::none) {
        reordered += std::memcmp(got.bytes(), want.bytes(), want.nbytes()) != 0;  // a duplicate kept its first
      } else if (!scatter::is_order_dependent(c.attrs.reduction, c.data.dtype())) {
        ASSERT_EQ(scatter::fuzz_verdict(c, got, want, kExact), "") << "order-independent, so bit for bit\n" << text;
      } else {
        reordered += std::memcmp(got.bytes(), want.bytes(), want.nbytes()) != 0;
      }
    }
  });
  EXPECT_GT(reordered, 10) << "the orders must differ from the reference's somewhere, or this checks nothing";
}

// Bit for bit where an element takes at most `serial` updates (those runs are reduced one
// update at a time, as the reference does); "" when so.
std::string exact_where_short(const Case& c, const Tensor& got, const Tensor& want, std::int64_t serial) {
  const auto hits = scatter::detail::hits_per_element(c, scatter::detail::normalized_indices(c));
  const auto size = static_cast<std::size_t>(scatter::info_of(c.data.dtype()).bytes);
  for (std::int64_t t = 0; t < c.data.numel(); ++t) {
    if (hits[static_cast<std::size_t>(t)] > serial) continue;
    const auto* x = got.bytes() + static_cast<std::size_t>(t) * size;
    const auto* y = want.bytes() + static_cast<std::size_t>(t) * size;
    const bool nans = scatter::element_as_double(got, t) != scatter::element_as_double(got, t) &&
                      scatter::element_as_double(want, t) != scatter::element_as_double(want, t);
    if (std::memcmp(x, y, size) != 0 && !nans) return "element " + std::to_string(t) + " differs";
  }
  return "";
}

// --deterministic with the kernels' shape: every bundled float add/sub/mul/mean case is
// bit for bit where an element takes at most kSerialRun updates (all but the contention
// cases' bins), and passes its own comparison everywhere.
TEST(CudaElements, SortedRunsMatchTheReferenceOnBundledCases) {
  int sorted_cases = 0;
  for (const auto& [what, c] : scatter::testing::bundled_cases()) {
    if (!scatter::is_order_dependent(c.attrs.reduction, c.data.dtype())) continue;
    ++sorted_cases;
    const auto want = scatter::reference_scatter(c);
    const auto got = emulate(c, true, Order::sorted);
    EXPECT_EQ(exact_where_short(c, got, want, cu::kSerialRun), "") << what;
    const auto cmp = scatter::compare_outputs(c, got, c.expected ? *c.expected : want, c.expected.has_value());
    EXPECT_TRUE(cmp.passed) << what << ": " << cmp.mismatches << " of " << cmp.elements << " differ beyond " << cmp.rule;
  }
  EXPECT_GT(sorted_cases, 40);
}

// 8000 fuzzed cases (at most 1024 updates, so one level): bit for bit. With chunks of 4 and runs
// of at most 6 reduced serially (and 5 and 7: a chunk ending on an odd slot), the same cases go through several levels: bit for bit
// where an element takes at most 6 updates, the comparison's tolerance elsewhere.
TEST(CudaElements, SortedRunsOnFuzzedCasesAtEveryDepth) {
  int sorted_cases = 0;
  int deep = 0;
  int merged = 0;
  for (std::int64_t i = 0; i < 8000; ++i) {
    const auto text = scatter::fuzz_case(17, i, 1024);
    const auto c = scatter::testing::load_case(text);
    if (!scatter::is_order_dependent(c.attrs.reduction, c.data.dtype())) continue;
    ++sorted_cases;
    const auto want = scatter::reference_scatter(c);
    sorted_shape = {};
    ASSERT_EQ(scatter::fuzz_verdict(c, emulate(c, true, Order::sorted), want, kExact), "") << text;
    for (const auto shape : {SortedShape{4, 6}, SortedShape{5, 7}}) {  // chunk boundaries on even and odd slots
      sorted_shape = shape;
      const auto got = emulate(c, true, Order::sorted);
      deep += sorted_levels >= 3;
      ASSERT_EQ(exact_where_short(c, got, want, shape.serial), "") << "chunk " << shape.chunk << "\n" << text;
      const auto cmp = scatter::compare_outputs(c, got, want, false);
      ASSERT_TRUE(cmp.passed) << "chunk " << shape.chunk << ": " << cmp.mismatches << " of " << cmp.elements
                              << " differ beyond " << cmp.rule << "\n" << text;
      merged += std::memcmp(got.bytes(), want.bytes(), want.nbytes()) != 0;
    }
  }
  sorted_shape = {};
  std::printf("%d float add/sub/mul/mean cases, %d three levels deep or more, %d not bit for bit\n", sorted_cases, deep,
              merged);
  EXPECT_GT(sorted_cases, 800);
  EXPECT_GT(deep, 400) << "few cases went three levels deep";
  EXPECT_GT(merged, 5) << "the tree of pieces must differ from the reference's steps somewhere";
}

// Heavy duplicates with the kernels' shape: 300000 float32 updates onto 3 elements go
// through several levels (no thread reduces more than kSerialRun + kRunChunk updates in a
// row), and the result passes the tolerance; an element hit 10 times stays exact.
TEST(CudaElements, SortedRunsSplitHeavyDuplicates) {
  sorted_shape = {};
  const std::string text = R"({"name": "heavy", "op": "scatter_elements", "reduction": "add",
    "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
    "indices": {"dtype": "int64", "shape": [300010], "generate": {"kind": "indices", "unique": false, "seed": 3}},
    "updates": {"dtype": "float32", "shape": [300010], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 4}}}})";
  auto c = scatter::testing::load_case(text);
  auto* idx = const_cast<std::int64_t*>(c.indices.data<std::int64_t>());
  for (std::int64_t i = 0; i < c.indices.numel(); ++i) idx[i] = i % 30001 == 0 ? 3 : idx[i] % 3;  // 3 bins, and 10 hits on element 3
  const auto want = scatter::reference_scatter(c);
  const auto got = emulate(c, true, Order::sorted);
  EXPECT_EQ(sorted_levels, cu::run_levels(300010, cu::kRunChunk, cu::kSerialRun));
  EXPECT_GE(sorted_levels, 4);
  EXPECT_EQ(exact_where_short(c, got, want, cu::kSerialRun), "");
  const auto cmp = scatter::compare_outputs(c, got, want, false);
  EXPECT_TRUE(cmp.passed) << cmp.mismatches << " of " << cmp.elements << " differ beyond " << cmp.rule;
}

TEST(CudaElements, RunLevelsShrinkToOneChunk) {
  EXPECT_EQ(cu::run_levels(1024, 32, 1024), 1);  // every run is short
  EXPECT_EQ(cu::run_levels(33, 32, 32), 2);      // 2 chunks, then 4 pieces in one chunk
  EXPECT_EQ(cu::run_levels(1025, 32, 1024), 3);  // 33 chunks -> 66 pieces (3 chunks) -> 6 pieces
  EXPECT_EQ(cu::run_levels(std::int64_t{1} << 31, 32, 1024), 8);  // 2^26 chunks, /16 per level
}

// The contention path (k_reduce_block) on fuzzed cases, forced (the host takes it only
// past kBlockAggregateMinUpdates updates): with a table of 8 slots, so that probes run
// out and updates go straight to the output, and with the kernels' table and warp
// merging. Its results pass the comparison rules, bit for bit where the reduction is
// order-independent (integers, bool, min, max merge exactly).
TEST(CudaElements, FuzzedCasesPassTheComparisonAggregatedPerBlock) {
  int aggregated = 0;
  block_fallbacks = 0;
  for (std::int64_t i = 0; i < 2000; ++i) {
    const auto text = scatter::fuzz_case(13, i, 1024);
    const auto c = scatter::testing::load_case(text);
    if (!cu::may_block_aggregate(c.attrs.reduction, c.data.dtype())) continue;
    ++aggregated;
    const auto want = scatter::reference_scatter(c);
    for (const auto shape : {BlockShape{3, 8, false}, BlockShape{2, cu::kBlockSlots, true}}) {
      block_shape = shape;
      const auto got = emulate(c, true, Order::block);
      const auto cmp = scatter::compare_outputs(c, got, want, false);
      ASSERT_TRUE(cmp.passed) << shape.slots << " slots: " << cmp.mismatches << " of " << cmp.elements
                              << " differ beyond " << cmp.rule << "\n" << text;
      if (!scatter::is_order_dependent(c.attrs.reduction, c.data.dtype())) {
        ASSERT_EQ(scatter::fuzz_verdict(c, got, want, kExact), "") << "order-independent, so bit for bit\n" << text;
      }
    }
  }
  block_shape = {};
  EXPECT_GT(aggregated, 500);
  EXPECT_GT(block_fallbacks, 1000) << "the 8-slot table must overflow, or the fallback is untested";
  // Only float32 and float64 sums merge (16-bit ones never do), and the fuzzer's values, of a
  // few bits each, do not round apart in this stream (its one bitwise difference was a NaN's
  // sign, which follows the compiler's order of an add's operands: gone at -O0). The emulation
  // must still merge out of the reference's order, or the loop above proves nothing: 2^24 then
  // 31 ones, added one at a time, stay 2^24 (each +1 is a tie, rounded to even); the warp's
  // tree adds ones to ones before it adds them to 2^24.
  const auto c = scatter::testing::load_case(R"({"name": "tree", "op": "scatter_elements", "reduction": "add",
    "inputs": {"data": {"dtype": "float32", "shape": [1], "values": [0]},
    "indices": {"dtype": "int64", "shape": [32], "values": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},
    "updates": {"dtype": "float32", "shape": [32], "values": [16777216,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}}})");
  block_shape = {1, cu::kBlockSlots, true};
  const auto merged = emulate(c, true, Order::block);
  block_shape = {};
  EXPECT_EQ(scatter::reference_scatter(c).data<float>()[0], 16777216.0f);
  EXPECT_GT(merged.data<float>()[0], 16777216.0f) << "the warp's tree must add some ones together before 2^24";
}

// Forced onto the contention path, the bundled cases pass their own comparisons, except
// those that pin float sums to the reference's steps with a zero tolerance (the per-step
// edge cases: a merge is not a sequence of steps). No such case reaches the path: it
// waits for kBlockAggregateMinUpdates updates, and --deterministic never takes it.
TEST(CudaElements, BundledCasesAggregatedPerBlockFailOnlyWhereStepsArePinned) {
  int pinned_failures = 0;
  int aggregated = 0;
  int chosen_cases = 0;  // where the host takes the path (the large race cases)
  for (const auto& [what, c] : scatter::testing::bundled_cases()) {
    if (!cu::may_block_aggregate(c.attrs.reduction, c.data.dtype())) continue;
    ++aggregated;
    std::string why;
    const auto g = cu::make_geometry(c, why);
    ASSERT_TRUE(g) << what;
    const bool chosen = c.indices.dtype() == DType::int64
                            ? cu::few_targets_likely(*g, c.indices.data<std::int64_t>())
                            : cu::few_targets_likely(*g, c.indices.data<std::int32_t>());
    const bool pinned = c.tolerance && c.tolerance->atol == 0.0 && c.tolerance->rtol == 0.0 &&
                        scatter::is_order_dependent(c.attrs.reduction, c.data.dtype());
    EXPECT_FALSE(chosen && pinned) << what << ": " << g->u << " updates";
    chosen_cases += chosen;
    const auto reference = scatter::reference_scatter(c);
    const auto& want = c.expected ? *c.expected : reference;
    for (const auto shape : {BlockShape{3, 8, false}, BlockShape{1, cu::kBlockSlots, true}}) {
      block_shape = shape;
      const auto cmp = scatter::compare_outputs(c, emulate(c, true, Order::block), want, c.expected.has_value());
      if (cmp.passed) continue;
      EXPECT_TRUE(pinned) << what << " (" << shape.slots << " slots): " << cmp.mismatches << " of " << cmp.elements
                          << " differ beyond " << cmp.rule;
      pinned_failures += pinned;
    }
  }
  block_shape = {};
  EXPECT_GT(aggregated, 50);
  EXPECT_GT(pinned_failures, 0) << "the per-step cases must fail when merged, or the emulation merges nothing";
  EXPECT_GT(chosen_cases, 0) << "some bundled case must reach the path";
}

// The small-output contention path (k_reduce_bins) on fuzzed cases, forced (the host takes
// it only past kBlockAggregateMinUpdates updates), with 1 and 3 blocks and the kernel's own
// grid: within the comparison rules, bit for bit where the reduction is order-independent.
TEST(CudaElements, FuzzedCasesPassTheComparisonInBins) {
  int binned = 0;
  for (std::int64_t i = 0; i < 2000; ++i) {
    const auto text = scatter::fuzz_case(17, i, 1024);
    const auto c = scatter::testing::load_case(text);
    if (!cu::may_block_aggregate(c.attrs.reduction, c.data.dtype())) continue;
    ++binned;
    const auto want = scatter::reference_scatter(c);
    for (const int grid : {1, 3, 0}) {
      bin_grid = grid;
      const auto got = emulate(c, true, Order::bins);
      const auto cmp = scatter::compare_outputs(c, got, want, false);
      ASSERT_TRUE(cmp.passed) << grid << " blocks: " << cmp.mismatches << " of " << cmp.elements << " differ beyond "
                              << cmp.rule << "\n" << text;
      if (!scatter::is_order_dependent(c.attrs.reduction, c.data.dtype())) {
        ASSERT_EQ(scatter::fuzz_verdict(c, got, want, kExact), "") << "order-independent, so bit for bit\n" << text;
      }
    }
  }
  bin_grid = 0;
  EXPECT_GT(binned, 500);
}

// The emulation merges as the kernel does, not one step at a time: a warp's four float32
// updates to one element, 1e8, 1, -1e8, 1, are 1 step by step (1e8 + 1 rounds to 1e8, then
// 0, then 1) and 0 in merge_peers' pairwise tree ((1e8 + 1) + (-1e8 + 1) = 1e8 - 1e8); the
// tolerance for a reordered sum of 2e8 holds both.
TEST(CudaElements, TheBinsMergeAWarpsUpdatesInATree) {
  const auto c = scatter::testing::load_case(R"({"name": "tree", "op": "scatter_elements", "reduction": "add",
    "inputs": {"data": {"dtype": "float32", "shape": [1], "values": [0]},
               "indices": {"dtype": "int64", "shape": [4], "values": [0, 0, 0, 0]},
               "updates": {"dtype": "float32", "shape": [4], "values": [1e8, 1, -1e8, 1]}}})");
  EXPECT_EQ(scatter::reference_scatter(c).data<float>()[0], 1.0f);
  const auto got = emulate(c, true, Order::bins);
  EXPECT_EQ(got.data<float>()[0], 0.0f);
  EXPECT_TRUE(scatter::compare_outputs(c, got, scatter::reference_scatter(c), false).passed);
}

// k_reduce_bins' merge_peers, lane by lane as the warp runs it (every lane shuffles at every
// stride, from the lane lane_of_rank names, before any lane combines), equals merge_tree
// over the group's values in lane order, bit for bit, for random groups and values; and
// lane_of_rank is the rank-th set bit.
TEST(CudaElements, TheBinsWarpMergeIsTheTreeOverTheGroupsLanes) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> values(-1e8f, 1e8f);
  for (int round = 0; round < 2000; ++round) {
    std::uint32_t peers = random() & random();  // about 8 lanes
    if (round % 10 == 0) peers = 0xFFFFFFFFu;
    if (peers == 0) continue;
    std::vector<int> lanes;
    for (int lane = 0; lane < 32; ++lane) {
      if (peers >> lane & 1u) lanes.push_back(lane);
    }
    for (std::size_t rank = 0; rank < lanes.size(); ++rank) {
      ASSERT_EQ(cu::lane_of_rank(peers, static_cast<int>(rank)), lanes[rank]) << std::hex << peers;
    }
    std::array<float, 32> v{};
    for (auto& x : v) x = values(random);
    std::vector<float> group;
    for (const int lane : lanes) group.push_back(v[static_cast<std::size_t>(lane)]);
    const int size = static_cast<int>(lanes.size());
    for (int stride = 1; stride < 32; stride *= 2) {
      const auto before = v;  // the shuffle reads every lane's value before any lane combines
      for (const int lane : lanes) {
        const int rank = cu::bit_count(peers & ((1u << lane) - 1u));
        if (!cu::takes_at(rank, size, stride)) continue;
        const auto from = static_cast<std::size_t>(cu::lane_of_rank(peers, rank + stride));
        v[static_cast<std::size_t>(lane)] = cu::combine(Reduction::add, before[static_cast<std::size_t>(lane)], before[from]);
      }
    }
    const float tree = merge_tree(group, Reduction::add);
    ASSERT_EQ(std::memcmp(&v[static_cast<std::size_t>(lanes.front())], &tree, sizeof(float)), 0) << std::hex << peers;
  }
}

// The bundled cases the host sends to the bins (the contention cases on small outputs) pass
// their own expected outputs in the kernel's order, and a real grid of several blocks.
TEST(CudaElements, BundledCasesThatTakeTheBinsPassInTheKernelsOrder) {
  int binned = 0;
  for (const auto& [what, c] : scatter::testing::bundled_cases()) {
    std::string why;
    const auto g = cu::make_geometry(c, why);
    if (!g) continue;
    const auto launch = cu::make_launch(c, *g, scatter::RunFlags{}, 132, 0);
    if (cu::plan_of(launch).path != cu::Path::reduce_bins) continue;
    ++binned;
    EXPECT_GT(cu::bin_blocks(g->u), 1) << what;
    ASSERT_TRUE(c.expected.has_value()) << what;
    const auto cmp = scatter::compare_outputs(c, emulate(c, true, Order::bins), *c.expected, true);
    EXPECT_TRUE(cmp.passed) << what << ": " << cmp.mismatches << " of " << cmp.elements << " differ beyond " << cmp.rule;
  }
  EXPECT_GE(binned, 4) << "the contention cases on small outputs must reach the bins";
}

// slot_of: a target keeps its slot, distinct targets get distinct slots, and a full
// table sends a new target to the output (-1). partial_start: a lone update keeps its bits.
TEST(CudaElements, TheBlockTableFindsClaimsAndOverflows) {
  std::vector<long long> keys(8, cu::kNoTarget);
  std::vector<int> slots;
  for (long long t = 100; t < 108; ++t) slots.push_back(cu::slot_of(keys.data(), 8, t, host_cas));
  auto sorted = slots;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (long long t = 100; t < 108; ++t) EXPECT_EQ(cu::slot_of(keys.data(), 8, t, host_cas), slots[static_cast<std::size_t>(t - 100)]);
  EXPECT_EQ(cu::slot_of(keys.data(), 8, 200, host_cas), -1);
  const float start = cu::partial_start<float>(Reduction::add);
  EXPECT_TRUE(std::signbit(start) && start == 0.0f);
  EXPECT_TRUE(std::signbit(cu::combine(Reduction::add, start, -0.0f)));
  EXPECT_EQ(cu::partial_start<std::int32_t>(Reduction::min), INT32_MAX);
  EXPECT_FALSE(cu::may_block_aggregate(Reduction::mul, DType::float32));
  EXPECT_FALSE(cu::may_block_aggregate(Reduction::none, DType::int32));
}

// The host's choice of the contention path: few distinct targets in a spread sample, and
// enough updates to pay for the table.
TEST(CudaElements, BlockAggregationIsChosenForFewTargets) {
  auto choice = [](std::int64_t updates, std::int64_t bins) {
    const auto text = R"({"name": "a", "op": "scatter_elements", "reduction": "add",
      "inputs": {"data": {"dtype": "float32", "shape": [)" + std::to_string(bins) + R"(], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [)" + std::to_string(updates) + R"(], "generate": {"kind": "indices", "unique": false}},
      "updates": {"dtype": "float32", "shape": [)" + std::to_string(updates) + R"(], "generate": {"kind": "fill", "value": 1}}}})";
    const auto c = scatter::testing::load_case(text);
    std::string why;
    const auto g = cu::make_geometry(c, why);
    return cu::few_targets_likely(*g, c.indices.data<std::int64_t>());
  };
  EXPECT_TRUE(choice(std::int64_t{1} << 17, 100));        // 100 bins
  EXPECT_TRUE(choice(std::int64_t{1} << 17, 1));          // one element
  EXPECT_FALSE(choice(std::int64_t{1} << 17, 1 << 20));   // spread over a million elements
  EXPECT_FALSE(choice(std::int64_t{1} << 15, 100));       // too few updates to pay for it
}

// The packed float16/bfloat16 atomics add -0.0 to the pair's other element: that leaves
// every value but NaN bit for bit (+0.0 too: +0.0 + -0.0 is +0.0 when rounding to nearest).
TEST(CudaElements, AddingNegativeZeroKeepsEveryHalf) {
  int checked = 0;
  for (std::uint32_t a = 0; a < 0x10000; ++a) {
    const Float16 h{static_cast<std::uint16_t>(a)};
    const BFloat16 b{static_cast<std::uint16_t>(a)};
    if (!std::isnan(cu::Num<Float16>::to(h))) {
      ASSERT_EQ(cu::combine(Reduction::add, h, Float16{0x8000}).bits, h.bits) << std::hex << a;
      ++checked;
    }
    if (!std::isnan(cu::Num<BFloat16>::to(b))) ASSERT_EQ(cu::combine(Reduction::add, b, BFloat16{0x8000}).bits, b.bits) << std::hex << a;
  }
  EXPECT_GT(checked, 60000);
}

// The packed atomics give a NaN in the pair's other lane the hardware's canonical bits
// (seen on an H100: fuzz cases whose untargeted elements held NaN), so data with a NaN
// takes the CAS path; half_nan_in finds it in either 16-bit format, and no infinity.
TEST(CudaElements, HalfNanInFindsNansNotInfinities) {
  auto with = [](DType dtype, std::uint16_t bits) {
    Tensor t(dtype, {3});
    auto* v = reinterpret_cast<std::uint16_t*>(t.bytes());
    v[0] = 0x3C00;
    v[1] = bits;
    v[2] = 0;
    return cu::half_nan_in(t);
  };
  EXPECT_TRUE(with(DType::float16, 0x7E01));   // quiet NaN with a payload
  EXPECT_TRUE(with(DType::float16, 0xFC01));   // signalling, negative
  EXPECT_FALSE(with(DType::float16, 0x7C00));  // +inf
  EXPECT_FALSE(with(DType::float16, 0xFBFF));  // lowest finite
  EXPECT_TRUE(with(DType::bfloat16, 0x7FC1));
  EXPECT_TRUE(with(DType::bfloat16, 0xFF81));
  EXPECT_FALSE(with(DType::bfloat16, 0x7F80));  // +inf
  EXPECT_FALSE(with(DType::bfloat16, 0x7E00));  // finite in bfloat16 (a NaN's bits in float16)
}

// The native atomics the kernels use in place of combine() compute the same thing.
TEST(CudaElements, SubtractionIsAdditionOfTheNegation) {
  // atomicAdd(p, -v) for float/double and the sign-flipped half/bfloat16 add.
  for (std::uint32_t a = 0; a < 0x10000; a += 97) {
    for (std::uint32_t b = 0; b < 0x10000; b += 89) {
      const Float16 ha{static_cast<std::uint16_t>(a)}, hb{static_cast<std::uint16_t>(b)};
      const Float16 neg{static_cast<std::uint16_t>(b ^ 0x8000u)};
      const auto sub = cu::combine(Reduction::sub, ha, hb).bits;
      const auto add = cu::combine(Reduction::add, ha, neg).bits;
      if (std::isnan(cu::Num<Float16>::to(Float16{sub}))) {
        EXPECT_TRUE(std::isnan(cu::Num<Float16>::to(Float16{add})));
      } else {
        ASSERT_EQ(sub, add) << std::hex << a << " - " << b;
      }
      const BFloat16 ba{static_cast<std::uint16_t>(a)}, bb{static_cast<std::uint16_t>(b)};
      const BFloat16 bneg{static_cast<std::uint16_t>(b ^ 0x8000u)};
      const auto bsub = cu::combine(Reduction::sub, ba, bb).bits;
      const auto badd = cu::combine(Reduction::add, ba, bneg).bits;
      if (!std::isnan(cu::Num<BFloat16>::to(BFloat16{bsub}))) ASSERT_EQ(bsub, badd) << std::hex << a << " - " << b;
    }
  }
  // Integers: unsigned wrap-around add of (0 - v) is the wrapping subtraction.
  for (std::int32_t a : {0, 1, -1, INT32_MAX, INT32_MIN, 12345}) {
    for (std::int32_t b : {0, 1, -1, INT32_MAX, INT32_MIN, -777}) {
      const auto via_add = static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + (0u - static_cast<std::uint32_t>(b)));
      EXPECT_EQ(cu::combine(Reduction::sub, a, b), via_add);
    }
  }
}

// Warp aggregation merges a warp's updates to one target first, in any order, then
// applies the merged value once: for integers and bool that must equal the reference's
// one-at-a-time result exactly.
template <class T>
void check_merge(Reduction r, const std::vector<T>& updates, T out) {
  T sequential = out;
  for (const T& u : updates) sequential = cu::combine(r, sequential, u);
  const std::size_t n = updates.size();
  for (std::size_t start = 0; start < n; ++start) {  // several merge orders: each rotation
    T merged = updates[start];
    for (std::size_t i = 1; i < n; ++i) merged = cu::combine(cu::merge_of<T>(r), merged, updates[(start + i) % n]);
    const T aggregated = cu::combine(r, out, merged);
    ASSERT_EQ(std::memcmp(&aggregated, &sequential, sizeof(T)), 0) << "reduction " << static_cast<int>(r);
  }
}

TEST(CudaElements, WarpMergesEqualOneAtATime) {
  using R = Reduction;
  for (auto r : {R::add, R::sub, R::mul, R::min, R::max, R::mean}) {
    check_merge<std::int32_t>(r, {5, -7, INT32_MAX, 3, INT32_MIN}, 11);
    check_merge<std::int8_t>(r, {100, 100, -128, 7}, -3);
    check_merge<std::uint8_t>(r, {200, 100, 3}, 250);
    check_merge<std::int64_t>(r, {INT64_MAX, 2, -9}, -1);
  }
  for (auto r : {R::add, R::sub, R::mul, R::min, R::max}) {
    check_merge<cu::Bool>(r, {cu::Bool{1}, cu::Bool{1}, cu::Bool{0}}, cu::Bool{1});
    check_merge<cu::Bool>(r, {cu::Bool{1}, cu::Bool{0}}, cu::Bool{0});
  }
  // Floats: exact here because every value and partial result is a small integer.
  for (auto r : {R::add, R::sub, R::mul, R::min, R::max}) check_merge<float>(r, {1.0f, -2.0f, 4.0f}, 3.0f);
}

TEST(CudaElements, The32BitPathIsTakenOnlyWhenOffsetsFit) {
  cu::Geometry g;
  g.n = 1000;
  g.u = 1000;
  EXPECT_TRUE(cu::offsets_fit_32(g));
  g.n = std::int64_t{1} << 31;
  EXPECT_FALSE(cu::offsets_fit_32(g));
  g.n = 10;
  g.u = (std::int64_t{1} << 31) - 100;  // the grid stride past u would overflow int
  EXPECT_FALSE(cu::offsets_fit_32(g));
  // scatter_nd with element updates: 10^9 tuples of k = 3 index 3 x 10^9 index elements.
  g.op = Op::scatter_nd;
  g.k = 3;
  g.slice = 1;
  g.n = 1000;
  g.u = 1000000000;
  EXPECT_FALSE(cu::offsets_fit_32(g));
  g.k = 2;
  EXPECT_TRUE(cu::offsets_fit_32(g));
}

// The host's choice of warp aggregation for reductions, from the first targets.
TEST(CudaElements, WarpAggregationIsChosenForDuplicateTargetsInWarps) {
  auto choice = [](const std::string& indices, const std::string& shape, int axis) {
    scatter::LoadOptions options;
    options.max_bytes = scatter::default_max_bytes();
    const auto text = R"({"name": "a", "op": "scatter_elements", "reduction": "add", "axis": )" + std::to_string(axis) +
                      R"(, "inputs": {"data": {"dtype": "float32", "shape": [64, 64], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": )" + shape + R"(, )" + indices + R"(},
      "updates": {"dtype": "float32", "shape": )" + shape + R"(, "generate": {"kind": "fill", "value": 1}}}})";
    const auto loaded = scatter::load_text(text, "a.json", options);
    EXPECT_TRUE(loaded.cases.front().decl) << text;
    const auto c = scatter::materialize(*loaded.cases.front().decl);
    std::string why;
    const auto g = cu::make_geometry(c, why);
    return cu::warp_duplicates_likely(*g, c.indices.data<std::int64_t>());
  };
  // Along the last axis, every update of a row into column 0: 32 duplicates per warp.
  EXPECT_TRUE(choice(R"("generate": {"kind": "fill", "value": 0})", "[64, 64]", 1));
  // A permutation of each row: all distinct.
  EXPECT_FALSE(choice(R"("generate": {"kind": "indices", "unique": true})", "[64, 64]", 1));
  // Along axis 0 every update goes to row 0, but a warp's 32 updates hit 32 columns.
  EXPECT_FALSE(choice(R"("generate": {"kind": "fill", "value": 0})", "[64, 64]", 0));
}

// atom.add.f32 (the native float atomicAdd) flushes subnormal inputs and results to a
// zero of the same sign (PTX ISA). The kernels use it only when every value that enters a
// sum passes f32_native_add_exact; then the flushing add equals the reference's bit for bit.
float flush_subnormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
float atom_add_f32(float a, float b) { return flush_subnormal(flush_subnormal(a) + flush_subnormal(b)); }
std::uint32_t f32_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

TEST(CudaElements, NativeFloat32AddIsUsedOnlyWhereItCannotFlush) {
  const float tiny = 1e-40f;  // subnormal
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  EXPECT_FALSE(cu::f32_native_add_exact(f32_bits(tiny)));
  EXPECT_NE(f32_bits(atom_add_f32(0.0f, tiny)), f32_bits(0.0f + tiny));  // the bug the check avoids
  // Normal inputs whose sum is subnormal: both fail the check too.
  const float a = 1.5f * FLT_MIN, b = -FLT_MIN;
  EXPECT_NE(f32_bits(atom_add_f32(a, b)), f32_bits(a + b));
  EXPECT_FALSE(cu::f32_native_add_exact(f32_bits(a)));
  EXPECT_FALSE(cu::f32_native_add_exact(f32_bits(b)));
  for (float v : {0.0f, -0.0f, 1.0f, -3.5f, std::ldexp(1.0f, -103), INFINITY, -INFINITY, NAN}) {
    EXPECT_TRUE(cu::f32_native_add_exact(f32_bits(v))) << v;
  }
  EXPECT_FALSE(cu::f32_native_add_exact(f32_bits(std::nextafter(std::ldexp(1.0f, -103), 0.0f))));
  // Chains of passing values, many cancelling near 2^-103: the flushing add never differs.
  std::uint64_t state = 12345;
  auto next = [&] {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  auto passing = [&] {
    const auto r = next();
    const std::uint32_t sign = static_cast<std::uint32_t>(r & 1) << 31;
    const std::uint32_t exp = r % 4 == 0 ? 24 + static_cast<std::uint32_t>((r >> 8) % 4) : 24 + static_cast<std::uint32_t>((r >> 8) % 231);
    const std::uint32_t bits = (r % 97 == 0) ? sign : sign | (exp << 23) | static_cast<std::uint32_t>((r >> 16) & 0x7FFFFF);
    float x;
    std::memcpy(&x, &bits, sizeof(x));
    return x;
  };
  for (int chain = 0; chain < 20000; ++chain) {
    float exact = passing();
    float flushing = exact;
    ASSERT_TRUE(cu::f32_native_add_exact(f32_bits(exact)));
    for (int step = 0; step < 8; ++step) {
      const float u = passing();
      ASSERT_TRUE(cu::f32_native_add_exact(f32_bits(u)));
      exact = cu::combine(Reduction::add, exact, u);
      flushing = atom_add_f32(flushing, u);
      if (!(std::isnan(exact) && std::isnan(flushing))) ASSERT_EQ(f32_bits(exact), f32_bits(flushing)) << chain;
    }
  }
}

TEST(CudaElements, SubnormalFloat32CasesAvoidTheNativeAdd) {
  auto native = [](const std::string& data, const std::string& updates, bool init) {
    scatter::LoadOptions options;
    options.max_bytes = scatter::default_max_bytes();
    const auto text = R"({"name": "a", "op": "scatter_elements", "reduction": "add", "use_init_val": )" +
                      std::string(init ? "true" : "false") + R"(, "inputs": {"data": {"dtype": "float32", "shape": [2], "values": )" + data +
                      R"(}, "indices": {"dtype": "int64", "shape": [1], "values": [0]},
      "updates": {"dtype": "float32", "shape": [1], "values": )" + updates + R"(}}})";
    const auto loaded = scatter::load_text(text, "a.json", options);
    EXPECT_TRUE(loaded.cases.front().decl) << text;
    return cu::f32_native_add_exact(scatter::materialize(*loaded.cases.front().decl));
  };
  EXPECT_TRUE(native("[1, 2]", "[0.5]", true));
  EXPECT_FALSE(native("[1, 2]", "[1e-40]", true));
  EXPECT_FALSE(native("[1e-40, 2]", "[1]", true));
  EXPECT_TRUE(native("[1e-40, 2]", "[1]", false));  // data is not a start without use_init_val
  EXPECT_TRUE(native("[1, \"nan\"]", "[\"-inf\"]", true));
}

TEST(CudaElements, ByteLanesTouchOnlyTheirByte) {
  const std::uint32_t word = 0x11223344u;
  EXPECT_EQ(cu::with_lane(word, 0, 0xAA), 0x112233AAu);
  EXPECT_EQ(cu::with_lane(word, 8, 0xAA), 0x1122AA44u);
  EXPECT_EQ(cu::with_lane(word, 24, 0x00), 0x00223344u);
  // Bool AND through atomicAnd: lane 16 of 0x01010101 ANDed with 0 clears only that lane.
  EXPECT_EQ(0x01010101u & cu::and_mask(16, 0), 0x01000101u);
  EXPECT_EQ(0x01010101u & cu::and_mask(16, 1), 0x01010101u);
}

TEST(CudaElements, IdentitiesAreTheSpecs) {
  using R = Reduction;
  EXPECT_EQ(cu::identity<std::int8_t>(R::min), 127);
  EXPECT_EQ(cu::identity<std::int8_t>(R::max), -128);
  EXPECT_EQ(cu::identity<std::uint8_t>(R::min), 255);
  EXPECT_EQ(cu::identity<std::uint8_t>(R::max), 0);
  EXPECT_EQ(cu::identity<std::int64_t>(R::min), INT64_MAX);
  EXPECT_EQ(cu::identity<std::int64_t>(R::max), INT64_MIN);
  EXPECT_EQ(cu::identity<std::int32_t>(R::mul), 1);
  EXPECT_EQ(cu::identity<std::int16_t>(R::add), 0);
  EXPECT_EQ(cu::identity<Float16>(R::min).bits, 0x7C00);  // +inf
  EXPECT_EQ(cu::identity<BFloat16>(R::max).bits, 0xFF80);  // -inf
  EXPECT_EQ(cu::identity<float>(R::mul), 1.0f);
  EXPECT_EQ(cu::identity<cu::Bool>(R::mul).value, 1);
  EXPECT_EQ(cu::identity<cu::Bool>(R::add).value, 0);
}

TEST(CudaElements, IntegerMeanRoundsTowardNegativeInfinity) {
  EXPECT_EQ(cu::mean_of<std::int32_t>(7, 2), 3);
  EXPECT_EQ(cu::mean_of<std::int32_t>(-7, 2), -4);
  EXPECT_EQ(cu::mean_of<std::int32_t>(-8, 2), -4);
  EXPECT_EQ(cu::mean_of<std::int8_t>(-1, 3), -1);
  EXPECT_EQ(cu::mean_of<std::int64_t>(0, 5), 0);
}

TEST(CudaElements, RanksAboveTheDeviceLimitAreRefusedByName) {
  scatter::LoadOptions options;
  options.max_bytes = scatter::default_max_bytes();
  std::string shape = "[";
  for (int d = 0; d < 17; ++d) shape += d ? ", 1" : "1";
  shape += "]";
  const auto text = R"({"name": "r17", "op": "scatter_elements", "inputs": {"data": {"dtype": "float32", "shape": )" +
                    shape + R"(, "generate": {"kind": "fill", "value": 0}}, "indices": {"dtype": "int64", "shape": )" +
                    shape + R"(, "generate": {"kind": "fill", "value": 0}}, "updates": {"dtype": "float32", "shape": )" +
                    shape + R"(, "generate": {"kind": "fill", "value": 1}}}})";
  const auto loaded = scatter::load_text(text, "r17.json", options);
  ASSERT_TRUE(loaded.cases.front().decl);
  const auto c = scatter::materialize(*loaded.cases.front().decl);
  std::string why;
  EXPECT_FALSE(cu::make_geometry(c, why));
  EXPECT_NE(why.find("rank 17"), std::string::npos) << why;
}

}  // namespace

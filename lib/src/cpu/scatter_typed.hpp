#pragma once
// The cpu backend's timed scatter, for one element type: the instantiations of every reduction
// and index type. Included only by the two files that instantiate it, for their dtypes
// (scatter_dtypes_1.cpp, scatter_dtypes_2.cpp); cpu_backend.cpp sees the declaration alone
// (prepared.hpp).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dispatch.hpp"
#include "prepared.hpp"

namespace scatter::detail::cpu {

// A histogram's updates [r0, r1) merged into its task's copies (is_histogram): no element held
// in a register (few targets in random order: the next update seldom has the same one). With
// kLanes copies, copy l takes the l-th quarter of the updates (the last one the rest), and the
// quarters advance together, a step of each in turn. Folded in copy order, the quarters then
// meet the output in update order: a float min or max keeps the first NaN, as the reference does.
template <class T, Reduction kMerge, class I>
void histogram_part(const Geometry& g, const I* idx, const T* updates, std::int64_t r0, std::int64_t r1, T* part,
                    std::int64_t stride, int lanes, Poll& poll) {
  SCATTER_ASSERT(lanes == 1 || lanes == kLanes);
  auto merge = [&](T* copy, std::int64_t u) {
    T& bin = copy[normalized(idx[u], g.extent)];
    bin = step<kMerge>(bin, updates[u]);
  };
  auto u = r0;
  if (lanes == kLanes) {
    const auto quarter = (r1 - r0) / kLanes;
    for (std::int64_t i0 = 0; i0 < quarter; i0 += kPollBlock / kLanes) {
      const auto i1 = std::min(quarter, i0 + kPollBlock / kLanes);
      for (auto i = i0; i < i1; ++i) {
        for (int l = 0; l < kLanes; ++l) merge(part + l * stride, r0 + l * quarter + i);
      }
      poll.tick(static_cast<std::uint32_t>(kLanes * (i1 - i0)));
    }
    u = r0 + kLanes * quarter;
    part += (kLanes - 1) * stride;
  }
  for (; u < r1; u += kPollBlock) {
    const auto u1 = std::min(r1, u + kPollBlock);
    for (auto v = u; v < u1; ++v) merge(part, v);
    poll.tick(static_cast<std::uint32_t>(u1 - u));
  }
}

// The privatized scatter: the tasks' parts of the updates, each merged (merge_of) into its own
// copies started from the merge's identity; then each task folds every copy, in task order, into
// its range of the output.
template <class T, Reduction R, class I>
void scatter_privatized(const Case& c, Prepared& p, Tensor& out, bool in_place, Pool& pool) {
  if constexpr (R != Reduction::none && R != Reduction::mean) {
    constexpr Reduction kMerge = merge_of<T>(R);
    const auto& g = p.geometry;
    const auto n = g.numel;
    const I* idx = c.indices.data<I>();
    // The copies' first element on a 128-byte boundary (the allocation has 128 bytes to spare).
    const auto address = reinterpret_cast<std::uintptr_t>(p.parts.get());
    T* parts = reinterpret_cast<T*>(p.parts.get() + ((128 - address % 128) % 128));
    const int copies = p.tasks * p.lanes;
    pool.run(p.tasks, [&](int t) {
      Poll poll{&pool, t == 0};
      T* part = parts + static_cast<std::int64_t>(t) * p.lanes * p.part_stride;
      for (int l = 0; l < p.lanes; ++l) {
        T* copy = part + l * p.part_stride;
        std::fill(copy, copy + n, identity<T>(kMerge));
      }
      const auto [r0, r1] = part_of(0, g.runs, t, p.tasks);
      Combine<T, kMerge, std::uint32_t> merge{part, c.updates.data<T>(), nullptr};
      try {
        if (is_histogram(g)) {
          histogram_part<T, kMerge>(g, idx, c.updates.data<T>(), r0, r1, part, p.part_stride, p.lanes, poll);
        } else {
          for_each_run(g, idx, r0, r1, 0, n, [&](std::int64_t u, std::int64_t o) {
            merge.one(u, o);
            poll.tick();
          });
        }
      } catch (const Stopped&) {
      }
      merge.flush();
    });
    pool.run(p.tasks, [&](int t) {
      const auto lo = p.bounds[static_cast<std::size_t>(t)];
      const auto hi = p.bounds[static_cast<std::size_t>(t) + 1];
      T* o = out.data<T>();
      if (!in_place) std::copy(c.data.data<T>() + lo, c.data.data<T>() + hi, o + lo);
      for (int k = 0; k < copies; ++k) {
        const T* part = parts + static_cast<std::int64_t>(k) * p.part_stride;
        for (auto i = lo; i < hi; ++i) o[i] = step<R>(o[i], part[i]);
      }
    });
  }
}

/// Task t's share of the output: its range, by p.bounds.
template <class T, class Count>
Share<T, Count> share_of(const Case& c, const Prepared& p, int t, Tensor& out, Count* counts, bool in_place) {
  Share<T, Count> sh;
  sh.data = c.data.data<T>();
  sh.updates = c.updates.data<T>();
  sh.out = out.data<T>();
  sh.counts = counts;
  sh.in_place = in_place;
  sh.use_init_val = c.attrs.use_init_val;
  sh.lo = p.bounds[static_cast<std::size_t>(t)];
  sh.hi = p.bounds[static_cast<std::size_t>(t) + 1];
  return sh;
}

// By column (elements_columns): every task's range of data copied first, then each task's
// columns (its targets from the identity, then its updates), then mean's division over the
// ranges. Out of line, so that the other paths compile as they did without it.
template <class T, Reduction R, class Count, class I>
[[gnu::noinline]] void scatter_by_columns(const Case& c, Prepared& p, Count* counts, Tensor& out, bool in_place,
                                          Pool& pool) {
  const I* idx = c.indices.data<I>();
  auto share = [&](int t) { return share_of<T, Count>(c, p, t, out, counts, in_place); };
  pool.run(p.tasks, [&](int t) { share_start<T, R, Count>(share(t)); });
  pool.run(p.tasks, [&](int t) {
    Poll poll{&pool, t == 0};
    const auto j0 = p.columns[static_cast<std::size_t>(t)];
    const auto j1 = p.columns[static_cast<std::size_t>(t) + 1];
    try {
      if constexpr (R != Reduction::none) {
        if (!c.attrs.use_init_val) {
          runs_in_columns(p.geometry, idx, j0, j1, poll, FillIdentity<T>{out.data<T>(), identity<T>(R)});
        }
      }
      runs_in_columns(p.geometry, idx, j0, j1, poll, Combine<T, R, Count>{out.data<T>(), c.updates.data<T>(), counts});
    } catch (const Stopped&) {
    }
  });
  pool.run(p.tasks, [&](int t) { share_epilogue<T, R, Count>(share(t)); });
}

/// One case of element type T, reduction R, counts of type Count (mean) and indices of type I.
template <class T, Reduction R, class Count, class I>
void scatter_all(const Case& c, Prepared& p, Count* counts, Tensor& out, bool in_place, Pool& pool,
                 std::vector<Scratch>& scratch) {
  if (p.parts) return scatter_privatized<T, R, I>(c, p, out, in_place, pool);
  const I* idx = c.indices.data<I>();
  if (!p.last.empty()) mark_last_indices(p.geometry, idx, p.last.data(), p.seen.data());
  auto share = [&](int t) { return share_of<T, Count>(c, p, t, out, counts, in_place); };
  if (!p.columns.empty()) return scatter_by_columns<T, R, Count, I>(c, p, counts, out, in_place, pool);
  // A Stopped task returns quietly: another task failed or the run was cancelled, and the
  // pool rethrows why.
  if (!p.sorted) {
    pool.run(p.tasks, [&](int t) {
      Poll poll{&pool, t == 0};
      try {
        scatter_share<T, R, Count>(p.geometry, idx, share(t), scratch[static_cast<std::size_t>(t)], poll);
      } catch (const Stopped&) {
      }
    });
    return;
  }
  // Out of place from data, the sort's apply copies each block as it reaches it; starting from
  // the identity, every target must be set before any update lands, so the copy comes first.
  const bool copies_in_apply = !in_place && c.attrs.use_init_val;
  if (!copies_in_apply) {
    pool.run(p.tasks, [&](int t) {
      Poll poll{&pool, t == 0};
      try {
        share_prologue<T, R, Count>(p.geometry, idx, share(t), scratch[static_cast<std::size_t>(t)], poll);
      } catch (const Stopped&) {
      }
    });
  }
  try {
    scatter_sorted<T, R, Count>(p.geometry, idx, c.updates.data<T>(), copies_in_apply ? c.data.data<T>() : nullptr,
                                out.data<T>(), counts, p.bounds, p.tasks, p.buckets, pool);
  } catch (const Stopped&) {
    SCATTER_ASSERT(false && "the pool rethrows the failure, never a Stopped");
  }
  pool.run(p.tasks, [&](int t) { share_epilogue<T, R, Count>(share(t)); });
}

template <class T>
void scatter_typed(const Case& c, Prepared& p, Tensor& out, bool in_place, Pool& pool, std::vector<Scratch>& scratch) {
  dispatch_reduction(c.attrs.reduction, [&](auto reduction) {
    constexpr Reduction R = decltype(reduction)::value;
    dispatch_index(c.indices.dtype(), [&](auto index) {
      using I = typename decltype(index)::type;
      // Only mean counts: the other reductions are compiled once, not once per count width.
      if constexpr (R == Reduction::mean) {
        if (p.counts64) {
          scatter_all<T, R, std::uint64_t, I>(c, p, p.counts64.get(), out, in_place, pool, scratch);
          return;
        }
      }
      scatter_all<T, R, std::uint32_t, I>(c, p, p.counts32.get(), out, in_place, pool, scratch);
    });
  });
}

}  // namespace scatter::detail::cpu

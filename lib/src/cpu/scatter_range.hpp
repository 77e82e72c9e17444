#pragma once
// One thread's share of a scatter: the output elements [lo, hi). Every thread reads all
// the indices, in update order, and applies the runs that land in its range, so each
// output element sees its updates in the reference's order, through the reference's own
// step (reduce_step.hpp): bit for bit the reference for every reduction, duplicates and
// float add included, with no atomics and no locks. Threads never write the same element.
//
// A run of one element goes through a small batch first: the targets of a stretch of
// updates are filtered without a branch into `Scratch`, then applied in a tight loop,
// so that the random accesses of the apply loop overlap and the filter's outcome is
// never mispredicted.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/reduce_step.hpp"
#include "platform/pool.hpp"
#include "runs.hpp"
#include "scatter/cancel.hpp"
#include "step.hpp"

namespace scatter::detail::cpu {

inline constexpr std::size_t kBatch = 1024;
// Output elements that stay in a core's L2 cache whatever their type (256 KB of float64).
inline constexpr std::int64_t kCachedOutput = std::int64_t{1} << 15;

/// A thread's batch of (update, output) offsets, allocated once per pool thread.
struct Scratch {
  std::int64_t update[kBatch];
  std::int64_t output[kBatch];
};

/// Thrown out of a task when another task failed or the run was cancelled.
struct Stopped {};

/// Updates between two checks of a loop that polls once per block (Poll::tick(steps)): a tight
/// loop keeps its count in a register, where a tick a step stores and reloads the poll's.
inline constexpr std::int64_t kPollBlock = 65536;

/// What a task needs to check now and then: the pool's stop flag, and (task 0, on the
/// caller's thread, which owns the case's deadline) --timeout and Ctrl-C.
struct Poll {
  const Pool* pool = nullptr;
  bool caller = false;
  std::uint32_t ticks = 0;
  /// One more update applied: a check every 65536.
  void tick() {
    if ((++ticks & 0xFFFFu) == 0) check();
  }
  /// `steps` more updates applied (a run): a check each time the count passes a multiple of
  /// 65536, so a long run does not count as one update.
  void tick(std::uint32_t steps) {
    const auto before = ticks;
    ticks += steps;
    if ((before >> 16) != (ticks >> 16)) check();
  }
  void check() const {
    if (caller) poll_cancel();
    if (pool->stopping()) throw Stopped{};
  }
};

/// What one task scatters.
template <class T, class Count>
struct Share {
  const T* data = nullptr;
  const T* updates = nullptr;
  T* out = nullptr;
  Count* counts = nullptr;  ///< mean: updates per output element (this share's part)
  bool in_place = false;
  bool use_init_val = true;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

/// Calls visit.batch(u, o, n) (n runs of one element, in order) or visit.many(u, o, len)
/// for the part of every run that lands in [lo, hi), in update order.
template <class I, class Visit>
void runs_in_range(const Geometry& g, const I* idx, std::int64_t lo, std::int64_t hi, Scratch& s, Poll& poll,
                   Visit&& visit) {
  if (g.len == 1) {
    // Runs known to land in the window need no filter. On the whole output (one thread:
    // small outputs that are not vectors; vectors take scatter_vector) they still go through
    // the batch, whose loop holds a run of one target in a register; a ScatterElements row
    // inside a thread's window is applied at once, after the batch so far (update order).
    std::size_t n = 0;
    const auto span = static_cast<std::uint64_t>(hi - lo);
    auto push = [&](std::int64_t u, std::int64_t o, bool lands) {
      s.update[n] = u;
      s.output[n] = o;
      n += lands;
      if (n == kBatch) {
        visit.batch(s.update, s.output, kBatch);
        n = 0;
      }
      poll.tick();
    };
    if (lo <= 0 && hi >= g.numel && g.numel <= kCachedOutput) {
      // The whole of an output in L2 (small cases that are not vectors): each update applied
      // as it is read, an element held through a run of one target (visit.one); the batch's
      // copy of the targets and its prefetch buy nothing there.
      for_each_run(g, idx, 0, g.runs, lo, hi, [&](std::int64_t u, std::int64_t o) {
        visit.one(u, o);
        poll.tick();
      });
    } else if (lo <= 0 && hi >= g.numel) {
      for_each_run(g, idx, 0, g.runs, lo, hi, [&](std::int64_t u, std::int64_t o) { push(u, o, true); });
    } else {
      auto filter = [&](std::int64_t u, std::int64_t o) { push(u, o, static_cast<std::uint64_t>(o - lo) < span); };
      auto direct = [&](std::int64_t u, std::int64_t o) {
        if (n != 0) {
          visit.batch(s.update, s.output, n);
          n = 0;
        }
        visit.one(u, o);
        poll.tick();
      };
      for_each_run(g, idx, 0, g.runs, lo, hi, filter, direct);
    }
    visit.batch(s.update, s.output, n);
    visit.flush();
    return;
  }
  const auto len = g.len;
  for_each_run(g, idx, 0, g.runs, lo, hi, [&](std::int64_t u, std::int64_t o) {
    const auto first = std::max(o, lo);
    const auto last = std::min(o + len, hi);
    if (first < last) visit.many(u + (first - o), first, last - first);
    poll.tick();
  });
}

/// Calls visit.one for columns [j0, j1) of every ScatterElements row, in update order, or
/// visit.many for a row whose columns there share one index (elements_columns).
template <class I, class Visit>
void runs_in_columns(const Geometry& g, const I* idx, std::int64_t j0, std::int64_t j1, Poll& poll, Visit&& visit) {
  // The output row a few rows on, its lines fetched while this row is applied: the rows land
  // anywhere along the axis, out of the hardware prefetcher's sight.
  constexpr std::int64_t kLine = 64 / sizeof(*visit.out);
  auto ahead = [&](std::int64_t o) {
    for (std::int64_t k = 0; k < j1 - j0; k += kLine) __builtin_prefetch(visit.out + o + k, 1);
  };
  elements_columns(g, idx, j0, j1, [&](std::int64_t u, std::int64_t o) {
    visit.one(u, o);
    poll.tick();
  }, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
    visit.many(u, o, len);
    poll.tick(static_cast<std::uint32_t>(len));
  }, ahead);
  visit.flush();
}

/// Starts every targeted element of the share from the reduction's identity.
template <class T>
struct FillIdentity {
  T* out;
  T id;
  void one(std::int64_t, std::int64_t o) { out[o] = id; }
  void batch(const std::int64_t*, const std::int64_t* o, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[o[i]] = id;
  }
  void many(std::int64_t, std::int64_t o, std::int64_t len) { std::fill(out + o, out + o + len, id); }
  void flush() {}
};

/// n runs of one element, in order: out[target(i)] = f(out[...], value(i)). The target
/// `kAhead` entries on is prefetched, so the random accesses overlap even where the step
/// branches (float16 rounding, NaN-aware min/max). Consecutive updates of one target are
/// combined in a register and stored once (heavy contention): the same steps in the same
/// order.
template <class T, Reduction R, class Count, class Target, class Value>
void apply_batch(T* out, Count* counts, std::size_t n, Target&& target, Value&& value) {
  constexpr std::size_t kAhead = 16;
  if constexpr (R == Reduction::none) {
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kAhead < n) __builtin_prefetch(out + target(i + kAhead), 1);
      out[target(i)] = value(i);
    }
  } else {
    for (std::size_t i = 0; i < n;) {
      const auto o = target(i);
      T acc = out[o];
      Count steps = 0;
      do {
        if (i + kAhead < n) __builtin_prefetch(out + target(i + kAhead), 1);
        acc = step<R>(acc, value(i));
        ++steps;
        ++i;
      } while (i < n && target(i) == o);
      out[o] = acc;
      if constexpr (R == Reduction::mean) counts[o] += steps;
    }
  }
}

/// out = f(out, update), and the count of mean. one() keeps the element it last reduced
/// in `acc` while the next update targets it too; flush() stores it, and batch() and
/// many() flush first. The same steps in the same order: nothing else reads the element
/// meanwhile (threads own disjoint elements).
template <class T, Reduction R, class Count>
struct Combine {
  T* out;
  const T* updates;
  Count* counts;
  std::int64_t held = -1;  ///< the element in `acc`, or -1
  T acc{};
  Count steps = 0;
  void one(std::int64_t u, std::int64_t o) {
    if constexpr (R == Reduction::none) {
      out[o] = updates[u];
    } else {
      if (o != held) {
        flush();
        held = o;
        acc = out[o];
      }
      acc = step<R>(acc, updates[u]);
      if constexpr (R == Reduction::mean) ++steps;
    }
  }
  void flush() {
    if constexpr (R != Reduction::none) {
      if (held < 0) return;
      out[held] = acc;
      if constexpr (R == Reduction::mean) counts[held] += steps;
      held = -1;
      steps = 0;
    }
  }
  void batch(const std::int64_t* u, const std::int64_t* o, std::size_t n) {
    flush();
    apply_batch<T, R>(out, counts, n, [&](std::size_t i) { return o[i]; }, [&](std::size_t i) { return updates[u[i]]; });
  }
  void many(std::int64_t u, std::int64_t o, std::int64_t len) {
    flush();
    if constexpr (R == Reduction::none) {
      std::memcpy(out + o, updates + u, static_cast<std::size_t>(len) * sizeof(T));
    } else {
      for (std::int64_t j = 0; j < len; ++j) out[o + j] = run_step<R>(out[o + j], updates[u + j]);
    }
    if constexpr (R == Reduction::mean) {
      for (std::int64_t j = 0; j < len; ++j) ++counts[o + j];
    }
  }
};

/// Where each update of a vector lands (one index an update, one element a run: ScatterElements
/// or ScatterND on a 1-D output): target(u) = normalized(idx[u], extent) * stride. Zero extent
/// where the geometry is not a vector.
struct VectorTargets {
  std::int64_t extent = 0;
  std::int64_t stride = 0;
};

inline VectorTargets vector_targets(const Geometry& g) {
  if (g.len != 1) return {};
  if (g.op == Op::scatter_elements && g.rank == 1) return {g.extent, g.index_stride};
  if (g.op == Op::scatter_nd && g.k == 1) return {g.extents[0], g.ostride[0]};
  return {};
}

/// Every update of a vector into a share that holds the whole output (one thread: contention,
/// small outputs), in update order, as Combine::one would apply them, but with the held element,
/// its accumulator and the poll's count in locals. Combine keeps them in members, which the
/// compiler stores and reloads around every store to the output (it may alias them): one
/// element and 100 bins of float add took twice the time of this loop.
template <class T, Reduction R, class Count, class I>
void scatter_vector(const I* idx, std::int64_t count, VectorTargets at, const Share<T, Count>& sh, Poll& poll) {
  T* const out = sh.out;
  const T* const updates = sh.updates;
  const auto target = [idx, at](std::int64_t u) { return normalized(idx[u], at.extent) * at.stride; };
  const auto store = [out, counts = sh.counts](std::int64_t o, T acc, Count steps) {
    out[o] = acc;
    if constexpr (R == Reduction::mean) counts[o] += steps;
  };
  for (std::int64_t u0 = 0; u0 < count; u0 += kPollBlock) {
    const auto u1 = std::min(count, u0 + kPollBlock);
    if constexpr (R == Reduction::none) {
      for (auto u = u0; u < u1; ++u) out[target(u)] = updates[u];
    } else {
      // Held within the block and stored before the poll: a call clobbers every vector
      // register, and an accumulator live across one was kept on the stack for the whole loop.
      std::int64_t held = target(u0);
      T acc = out[held];
      Count steps = 0;
      for (auto u = u0; u < u1; ++u) {
        const auto o = target(u);
        if (o != held) {
          store(held, acc, steps);
          held = o;
          acc = out[o];
          steps = 0;
        }
        acc = step<R>(acc, updates[u]);
        if constexpr (R == Reduction::mean) ++steps;
      }
      store(held, acc, steps);
    }
    poll.tick(static_cast<std::uint32_t>(u1 - u0));
  }
}

/// Elements [lo, hi) before their updates: data copied into out (none in place: data null) and
/// mean's counts cleared. The one place for it, whether a share starts at once (share_start) or
/// piece by piece as its updates reach it (CopyAsReached, the sort's apply).
template <class T, Reduction R, class Count>
void start_span(const T* data, T* out, Count* counts, std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return;
  if (data != nullptr) std::memcpy(out + lo, data + lo, static_cast<std::size_t>(hi - lo) * sizeof(T));
  if constexpr (R == Reduction::mean) std::fill(counts + lo, counts + hi, Count{0});
}

/// Before the updates: the share's copy of data (out of place) and its counts cleared (mean).
template <class T, Reduction R, class Count>
void share_start(const Share<T, Count>& sh) {
  start_span<T, R, Count>(sh.in_place ? nullptr : sh.data, sh.out, sh.counts, sh.lo, sh.hi);
}

/// share_start, then the share's targets started from the identity (use_init_val = false).
template <class T, Reduction R, class Count, class I>
void share_prologue(const Geometry& g, const I* idx, const Share<T, Count>& sh, Scratch& s, Poll& poll) {
  if (sh.hi <= sh.lo) return;
  share_start<T, R, Count>(sh);
  if constexpr (R != Reduction::none) {
    if (!sh.use_init_val) runs_in_range(g, idx, sh.lo, sh.hi, s, poll, FillIdentity<T>{sh.out, identity<T>(R)});
  }
}

/// After the updates: mean's division.
template <class T, Reduction R, class Count>
void share_epilogue(const Share<T, Count>& sh) {
  if constexpr (R == Reduction::mean && !std::is_same_v<T, Bool>) {  // the spec has no mean of bool
    const Count init = sh.use_init_val ? 1 : 0;
    for (auto i = sh.lo; i < sh.hi; ++i) {
      if (sh.counts[i] != 0) sh.out[i] = mean_step(sh.out[i], static_cast<std::int64_t>(sh.counts[i]) + init);
    }
  }
}

/// A visitor that copies the share's data (and clears its counts) as the updates reach it, in
/// 4 KB pieces: everything below `copied` is copied. For ScatterElements along its last axis,
/// whose rows of updates land in their own output rows, in order: each row is copied just before
/// its updates land, and is still in L1 for them, where a copy of the whole share first left it
/// in memory by then, to be read and written again.
template <class T, Reduction R, class Count, class Visit>
struct CopyAsReached {
  static constexpr std::int64_t kPiece = 4096 / sizeof(T);
  Visit visit;
  const Share<T, Count>& sh;
  std::int64_t copied;

  void reach(std::int64_t o) {
    if (o < copied) return;
    const auto end = std::min(sh.hi, (o / kPiece + 1) * kPiece);
    start_span<T, R, Count>(sh.data, sh.out, sh.counts, copied, end);
    copied = end;
  }
  void one(std::int64_t u, std::int64_t o) {
    reach(o);
    visit.one(u, o);
  }
  void batch(const std::int64_t* u, const std::int64_t* o, std::size_t n) {
    if (n != 0) reach(*std::max_element(o, o + n));
    visit.batch(u, o, n);
  }
  void many(std::int64_t u, std::int64_t o, std::int64_t len) {
    reach(o + len - 1);
    visit.many(u, o, len);
  }
  void flush() { visit.flush(); }
};

/// The reference's steps (ref/scatter_loop.hpp) on the share's elements only.
template <class T, Reduction R, class Count, class I>
void scatter_share(const Geometry& g, const I* idx, const Share<T, Count>& sh, Scratch& s, Poll& poll) {
  if (sh.hi <= sh.lo) return;
  if (g.op == Op::scatter_elements && runs_are_local(g) && !sh.in_place && sh.use_init_val) {
    CopyAsReached<T, R, Count, Combine<T, R, Count>> visit{{sh.out, sh.updates, sh.counts}, sh, sh.lo};
    runs_in_range(g, idx, sh.lo, sh.hi, s, poll, visit);
    visit.reach(sh.hi - 1);
    share_epilogue<T, R, Count>(sh);
    return;
  }
  share_prologue<T, R, Count>(g, idx, sh, s, poll);
  if (const auto at = vector_targets(g); at.extent > 0 && sh.lo <= 0 && sh.hi >= g.numel) {
    scatter_vector<T, R, Count>(idx, g.runs, at, sh, poll);
  } else {
    runs_in_range(g, idx, sh.lo, sh.hi, s, poll, Combine<T, R, Count>{sh.out, sh.updates, sh.counts});
  }
  share_epilogue<T, R, Count>(sh);
}

}  // namespace scatter::detail::cpu

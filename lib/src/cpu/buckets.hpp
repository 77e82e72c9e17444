#pragma once
// The cpu backend's path for element runs that can land anywhere (ScatterND into a flat
// tensor, ScatterElements across rows) on an output past the caches. Filtering by range
// (scatter_range.hpp) would make every thread read every index, and leave every update a
// random access to memory; instead each chunk of updates goes through a stable counting
// sort by output block (2^shift elements, 256 KB), then every thread applies its
// blocks in order, one cache-resident block at a time:
//
//   1. count   each thread counts the targets of its part of the chunk per block
//   2. place   each thread writes (target, value) of its part to its slots of each block:
//              within a block, thread 0's (earlier updates) before thread 1's, each in
//              update order, so the sort is stable
//   3. apply   each thread walks the entries of its blocks in order: every element sees
//              its updates in update order, through the reference's step
//
// The entries are 4-byte targets plus the update values (copied, so the apply reads
// them in sequence); a chunk is sized to stay within a quarter of the case's bytes (one chunk for
// nd/reduce at medium size: each block is then copied, updated and written back once).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/reduce_step.hpp"
#include "platform/pool.hpp"
#include "runs.hpp"
#include "scatter_range.hpp"

namespace scatter::detail::cpu {

/// The sort's buffers, allocated before the timed region.
struct Buckets {
  int shift = 16;               ///< output elements per block: 2^shift
  std::int64_t blocks = 0;      ///< blocks of the output
  std::int64_t chunk = 0;       ///< runs per chunk
  std::vector<std::uint32_t> targets;     ///< chunk entries: output offsets
  std::unique_ptr<std::byte[]> values;    ///< chunk entries: update values
  std::vector<std::uint32_t> slots;       ///< per task and block: count, then next slot
  std::vector<std::uint32_t> starts;      ///< per block: first entry (blocks + 1)
};

/// Whether the case takes the sorted path, and its buffers if so: runs of one element
/// that can land anywhere, split over two or more threads, on an output past the L2
/// caches (8 MB; below it, filtering by range is faster: measured on 100-bin contention,
/// 14 ms filtered against 26 ms sorted) that 32-bit offsets reach. `tiny` (the tests'
/// grain of 1) takes it for every such case, with blocks of 4 elements and chunks of 7
/// runs, so that small cases reach every bound.
inline bool plan_buckets(const Geometry& g, std::int64_t numel, std::size_t element, std::size_t case_bytes,
                         int tasks, bool tiny, Buckets& b) {
  const std::int64_t large_output = tiny ? 0 : std::int64_t{8} << 20;  // bytes
  if (g.len != 1 || runs_are_local(g) || tasks < 2 || g.runs == 0 ||
      numel * static_cast<std::int64_t>(element) < large_output || numel > std::int64_t{0xFFFFFFFF}) {
    return false;
  }
  b.shift = tiny ? 2 : 18 - std::countr_zero(element);  // 256 KB of output per block
  b.blocks = (numel + (std::int64_t{1} << b.shift) - 1) >> b.shift;
  const auto entry = static_cast<std::int64_t>(4 + element);
  b.chunk = tiny ? 7 : std::clamp<std::int64_t>(static_cast<std::int64_t>(case_bytes / 4) / entry, 1 << 16, 0xFFFFFFFF);
  b.chunk = std::min(b.chunk, g.runs);
  b.targets.assign(static_cast<std::size_t>(b.chunk), 0);
  b.values.reset(new std::byte[static_cast<std::size_t>(b.chunk) * element]);
  std::memset(b.values.get(), 0, static_cast<std::size_t>(b.chunk) * element);
  b.slots.assign(static_cast<std::size_t>(tasks * b.blocks), 0);
  b.starts.assign(static_cast<std::size_t>(b.blocks + 1), 0);
  return true;
}

/// Part t of n equal parts of [first, last).
inline std::pair<std::int64_t, std::int64_t> part_of(std::int64_t first, std::int64_t last, int t, int n) {
  const auto size = last - first;
  return {first + size * t / n, first + size * (t + 1) / n};
}

/// Steps 1-3 for every chunk; `bounds` are the tasks' output ranges, on block bounds.
/// The epilogue (mean) is the caller's, and so is the prologue (copy of data, identity) unless
/// `data` is given: then the first chunk's apply copies each block of data (and clears its
/// counts) just before its entries land, so that the block is still in cache for them (a
/// copy of the whole output first left each block in memory by then, to be read again).
template <class T, Reduction R, class Count, class I>
void scatter_sorted(const Geometry& g, const I* idx, const T* updates, const T* data, T* out, Count* counts,
                    const std::vector<std::int64_t>& bounds, int tasks, Buckets& b, Pool& pool) {
  auto* values = reinterpret_cast<T*>(b.values.get());
  const auto blocks = static_cast<std::size_t>(b.blocks);
  for (std::int64_t c0 = 0; c0 < g.runs; c0 += b.chunk) {
    const auto c1 = std::min(g.runs, c0 + b.chunk);
    pool.run(tasks, [&](int t) {  // 1. count
      auto* count = b.slots.data() + static_cast<std::size_t>(t) * blocks;
      std::fill(count, count + blocks, 0u);
      const auto [r0, r1] = part_of(c0, c1, t, tasks);
      Poll poll{&pool, t == 0};
      for_each_run(g, idx, r0, r1, 0, std::int64_t{1} << 62, [&](std::int64_t, std::int64_t o) {
        ++count[static_cast<std::size_t>(o >> b.shift)];
        poll.tick();
      });
    });
    std::uint32_t next = 0;  // counts -> first slots, block-major, task-minor: a stable order
    for (std::size_t k = 0; k < blocks; ++k) {
      b.starts[k] = next;
      for (int t = 0; t < tasks; ++t) {
        auto& slot = b.slots[static_cast<std::size_t>(t) * blocks + k];
        const auto n = slot;
        slot = next;
        next += n;
      }
    }
    b.starts[blocks] = next;
    pool.run(tasks, [&](int t) {  // 2. place
      auto* slot = b.slots.data() + static_cast<std::size_t>(t) * blocks;
      const auto [r0, r1] = part_of(c0, c1, t, tasks);
      Poll poll{&pool, t == 0};
      for_each_run(g, idx, r0, r1, 0, std::int64_t{1} << 62, [&](std::int64_t u, std::int64_t o) {
        const auto at = slot[static_cast<std::size_t>(o >> b.shift)]++;
        b.targets[at] = static_cast<std::uint32_t>(o);
        values[at] = updates[u];
        poll.tick();
      });
    });
    const bool copies = data != nullptr && c0 == 0;  // a first chunk there is: plan_buckets takes no case without runs
    pool.run(tasks, [&](int t) {  // 3. apply
      const auto lo = bounds[static_cast<std::size_t>(t)];
      const auto hi = bounds[static_cast<std::size_t>(t) + 1];
      const auto first = std::min(static_cast<std::size_t>(lo >> b.shift), blocks);
      const auto last = std::min(static_cast<std::size_t>((hi + (std::int64_t{1} << b.shift) - 1) >> b.shift), blocks);
      for (auto k = first; k < last; ++k) {
        if (copies) {
          start_span<T, R, Count>(data, out, counts, std::max(lo, static_cast<std::int64_t>(k) << b.shift),
                                  std::min(hi, static_cast<std::int64_t>(k + 1) << b.shift));
        }
        for (std::size_t e = b.starts[k]; e < b.starts[k + 1];) {
          if (t == 0) poll_cancel();
          if (pool.stopping()) throw Stopped{};
          const auto n = std::min<std::size_t>(b.starts[k + 1] - e, 1u << 16);
          const std::uint32_t* at = b.targets.data() + e;
          const T* v = values + e;
          apply_batch<T, R>(out, counts, n, [&](std::size_t i) { return at[i]; }, [&](std::size_t i) { return v[i]; });
          e += n;
        }
      }
    });
  }
}

}  // namespace scatter::detail::cpu

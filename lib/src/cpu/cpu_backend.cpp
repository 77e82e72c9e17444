// The cpu backend: fast and exact. The output is split into one range per thread; each
// thread copies its range of data (out of place), then applies, in update order, the
// updates that land in it (scatter_range.hpp). The result is the reference's, bit for
// bit, for every op, reduction and dtype: the same steps on each element in the same
// order, with no atomics and no --deterministic tax (docs/backends.md, "cpu").

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "platform/counted.hpp"
#include "platform/pool.hpp"
#include "platform/probes.hpp"
#include "prepared.hpp"
#include "scatter/backend.hpp"

namespace scatter {
namespace detail::cpu {

Geometry geometry_of(const Case& c) {
  Geometry g;
  g.op = c.attrs.op;
  g.numel = c.data.numel();
  const auto& dshape = c.data.shape();
  const auto& ishape = c.indices.shape();
  const auto ostride = strides_of(dshape);
  switch (c.attrs.op) {
    case Op::scatter_elements: {
      g.len = 1;
      g.runs = c.indices.numel();
      g.rank = static_cast<int>(ishape.size());
      g.axis = c.attrs.axis;
      g.extent = dshape[static_cast<std::size_t>(g.axis)];
      g.row = ishape.empty() ? 1 : ishape.back();
      for (std::size_t d = 0; d < ishape.size(); ++d) {
        g.ushape[d] = ishape[d];
        g.ostride[d] = ostride[d];
      }
      const bool along_rows = g.axis == g.rank - 1;
      g.col_stride = along_rows ? 0 : 1;
      g.index_stride = along_rows ? 1 : ostride[static_cast<std::size_t>(g.axis)];
      break;
    }
    case Op::scatter_nd: {
      g.k = ishape.back();
      const auto k = static_cast<std::size_t>(g.k);
      g.len = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(k), dshape.end()));
      g.runs = numel(Shape(ishape.begin(), ishape.end() - 1));
      for (std::size_t j = 0; j < k; ++j) {
        g.extents[j] = dshape[j];
        g.ostride[j] = ostride[j];
      }
      break;
    }
    case Op::scatter_update: {
      const auto axis = static_cast<std::ptrdiff_t>(c.attrs.axis);
      g.outer = numel(Shape(dshape.begin(), dshape.begin() + axis));
      g.len = numel(Shape(dshape.begin() + axis + 1, dshape.end()));
      g.extent = dshape[static_cast<std::size_t>(axis)];
      g.count = c.indices.numel();
      g.runs = g.outer * g.count;
      break;
    }
    case Op::tensor_scatter: {
      const auto axis = static_cast<std::ptrdiff_t>(c.attrs.axis);
      g.outer = numel(Shape(dshape.begin(), dshape.begin() + axis));
      g.per_batch = std::max<std::int64_t>(1, numel(Shape(dshape.begin() + 1, dshape.begin() + axis)));
      g.len = numel(Shape(dshape.begin() + axis + 1, dshape.end()));
      g.extent = dshape[static_cast<std::size_t>(axis)];
      g.count = c.updates.shape()[static_cast<std::size_t>(axis)];
      g.runs = g.outer * g.count;
      g.circular = c.attrs.mode == WriteMode::circular;
      break;
    }
  }
  return g;
}

namespace {

// Elements of work (output plus updates) per thread, at least: below it, one thread is
// faster than waking another.
constexpr std::int64_t kDefaultGrain = std::int64_t{1} << 15;
// Bytes of output that stay in a core's L2 cache.
constexpr std::int64_t kL2Output = std::int64_t{256} << 10;
// Bytes of output of which each thread may keep a private copy (privatizes()): a few of them
// stay in the shared L3. 2 MB: GNN max aggregation into [4096, 32] float32 (512 KB) ran 2.5x
// faster privatized than on a shared output.
constexpr std::int64_t kPrivateOutput = std::int64_t{2} << 20;

// A privatized histogram of at most this many bytes of bins gets kLanes copies per task, each
// taking a quarter of the task's updates, the four applied in turn: consecutive steps then
// seldom meet in one bin, whose store the next load would wait for. 16 KB: the task's copies
// stay in its L1 cache.
constexpr std::int64_t kLanedHistogram = std::int64_t{16} << 10;

/// The threads' ranges of the output: equal parts, their bounds rounded down to `align`
/// elements (a 64-byte line: no two threads write one cache line).
std::vector<std::int64_t> share_bounds(std::int64_t numel, std::int64_t align, int tasks) {
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(tasks) + 1, numel);
  for (int t = 0; t < tasks; ++t) {
    const auto even = static_cast<std::int64_t>(static_cast<__int128>(numel) * t / tasks);
    bounds[static_cast<std::size_t>(t)] = t == 0 ? 0 : std::min(numel, even / align * align);
  }
  return bounds;
}

/// The threads' ranges on the sorted path: whole blocks each.
std::vector<std::int64_t> block_bounds(std::int64_t numel, std::int64_t blocks, int shift, int tasks) {
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(tasks) + 1, numel);
  for (int t = 0; t < tasks; ++t) {
    bounds[static_cast<std::size_t>(t)] = std::min(numel, (blocks * t / tasks) << shift);
  }
  return bounds;
}

/// The tasks' columns where they split a ScatterElements case by column (elements_columns):
/// its axis before the last dimension, rows of at least `min_columns` columns a task, the
/// bounds rounded down to `align` columns. Empty where the case does not split so.
std::vector<std::int64_t> column_bounds(const Geometry& g, std::int64_t align, int tasks, std::int64_t min_columns) {
  if (tasks < 2 || !splits_by_column(g) || g.row < tasks * min_columns) return {};
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(tasks) + 1, g.row);
  for (int t = 0; t < tasks; ++t) bounds[static_cast<std::size_t>(t)] = t == 0 ? 0 : g.row * t / tasks / align * align;
  return bounds;
}

/// Few targets, more updates than targets, and a step whose result no order changes (integers,
/// bool, min, max; not float add, sub, mul or mean): each task reduces its own part of the
/// updates into a private copy of the output, and the copies are folded into data in task
/// order. Every thread then reads only its part of the indices (100 bins of int32 add: both
/// cores busy, where a shared output kept one). Only where data starts every element
/// (use_init_val): an untouched private element holds the identity, which leaves data as it is.
bool privatizes(const Geometry& g, const Case& c, std::int64_t n, std::size_t element, int tasks) {
  const auto r = c.attrs.reduction;
  return tasks > 1 && g.len == 1 && !runs_are_local(g) && r != Reduction::none && r != Reduction::mean &&
         !is_order_dependent(r, c.data.dtype()) && c.attrs.use_init_val && g.runs >= n &&
         n * static_cast<std::int64_t>(element) <= kPrivateOutput;
}

void scatter(const Case& c, Prepared& p, Tensor& out, bool in_place, Pool& pool, std::vector<Scratch>& scratch) {
  dispatch(c.data.dtype(), [&](auto tag) {
    scatter_typed<typename decltype(tag)::type>(c, p, out, in_place, pool, scratch);
  });
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, std::int64_t grain)
      : threads_(threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        grain_(grain > 0 ? grain : kDefaultGrain) {}

  std::string_view name() const override { return "cpu"; }
  Availability availability() const override { return {true, ""}; }
  BackendTraits traits() const override { return {BackendRole::builtin, MemoryKind::host, threads_}; }
  std::string device() const override { return fmt::format("{} ({} threads)", host_cpu_name(), threads_); }
  std::vector<std::pair<std::string, std::string>> properties() const override {
    return {{"threads", std::to_string(threads_)}};
  }

  // As the reference: the output allocated and its pages touched before the timed
  // region; out of place, the copy of data is part of the op (each thread copies its range).
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    using Clock = std::chrono::steady_clock;
    Pool& workers = pool();
    Prepared p;
    p.geometry = geometry_of(c);
    if (marks_last_indices(p.geometry, c.attrs.reduction)) {
      p.last.resize(static_cast<std::size_t>(p.geometry.count));
      p.seen.resize(static_cast<std::size_t>(p.geometry.extent));
      p.geometry.last = p.last.data();
    }
    const auto n = c.data.numel();
    // Out of place every output element is copied; in place only the updates move (a KV-cache
    // decode: 16 KB of a 4 MB cache, where waking a thread cost 30x the write).
    const auto work = (flags.in_place ? 0 : n) + p.geometry.runs * p.geometry.len;
    p.tasks = static_cast<int>(std::clamp<std::int64_t>(std::min(work / grain_, n), 1, workers.size()));
    const auto element = size_of(c.data.dtype());
    // Grain 1 (the tests' finest split) keeps the sorted path below for every element run.
    const bool privatized = grain_ != 1 && privatizes(p.geometry, c, n, element, p.tasks);
    // Bounds on 64-byte lines, so that no two threads write one cache line; at any element at
    // the tests' fine grains.
    p.align = grain_ >= 64 ? static_cast<std::int64_t>(std::max<std::size_t>(1, 64 / element)) : 1;
    // ScatterElements across rows (GNN aggregation, voxels): the tasks split the columns, so
    // none reads another's updates, and every element still gets its updates in the
    // reference's order. Before the paths below, which assume that any run may land anywhere;
    // after privatizing, whose tasks read half the rows each as a stream (GNN max into
    // [4096, 32]: 1.7 ms privatized, 2.2 ms by column). A line of columns a task at least
    // (grain 2 wants 2 columns a task; grain 1 keeps the sorted path).
    if (!privatized && grain_ != 1) p.columns = column_bounds(p.geometry, p.align, p.tasks, grain_ >= 64 ? p.align : grain_);
    const bool by_columns = !p.columns.empty();
    // The copies' pages are touched here, before the timed region, as the output's are below;
    // each task still fills its copy with the merge's identity. Leaving them for the tasks to
    // fault in made histogram/100_bins and gnn/max 13.5% slower (bench/results/ab-build-cpu-2026-11-26).
    // Each copy starts on a 128-byte boundary: copies that shared a cache line (or the pair of
    // lines the L2 fetches together) made 100-bin histograms slower on 2 threads than 65,536.
    if (privatized) {
      const auto bytes = (n * static_cast<std::int64_t>(element) + 127) / 128 * 128;
      p.part_stride = bytes / static_cast<std::int64_t>(element);
      p.lanes = is_histogram(p.geometry) && bytes <= kLanedHistogram ? kLanes : 1;
      const auto all = static_cast<std::size_t>(bytes) * static_cast<std::size_t>(p.tasks * p.lanes) + 128;
      p.parts.reset(new std::byte[all]);
      std::memset(p.parts.get(), 0, all);
    }
    // Element runs that can land anywhere, on an output that fits in L2 (contention): one
    // thread applying every update beats threads that each read every index to keep a part
    // (100-bin contention, 4M updates: 9.4 ms against 14-30 ms on 2 threads).
    if (!by_columns && !privatized && p.geometry.len == 1 && !runs_are_local(p.geometry) &&
        n * static_cast<std::int64_t>(element) <= kL2Output && grain_ >= 64) {
      p.tasks = 1;
    }
    const auto case_bytes = c.data.nbytes() * 2 + c.indices.nbytes() + c.updates.nbytes();
    p.sorted = !by_columns && !privatized && plan_buckets(p.geometry, n, element, case_bytes, p.tasks, grain_ == 1, p.buckets);
    p.bounds = p.sorted ? block_bounds(n, p.buckets.blocks, p.buckets.shift, p.tasks)
                        : share_bounds(n, p.align, p.tasks);
    if (c.attrs.reduction == Reduction::mean) {
      if (p.geometry.runs < (std::int64_t{1} << 32)) {
        p.counts32.reset(new std::uint32_t[static_cast<std::size_t>(n)]);
        std::memset(p.counts32.get(), 0, static_cast<std::size_t>(n) * sizeof(std::uint32_t));
      } else {
        p.counts64.reset(new std::uint64_t[static_cast<std::size_t>(n)]);
        std::memset(p.counts64.get(), 0, static_cast<std::size_t>(n) * sizeof(std::uint64_t));
      }
    }
    Tensor out = flags.in_place ? c.data.clone() : Tensor(c.data.dtype(), c.data.shape());
    if (!flags.in_place) std::memset(out.bytes(), 0, out.nbytes());
    const Pool::Placement placed(workers, workers.crowded());  // before the flush, so that it runs where the call will
    if (flags.flush_caches) flush_host_caches();
    const auto start = Clock::now();
    {
      const CountedRegion counted;
      scatter(c, p, out, flags.in_place, workers, scratch_);
    }
    const std::chrono::duration<double> took = Clock::now() - start;
    return {std::move(out), took.count(), {}, {}, {}};
  }

 private:
  // The threads start on the first run, not when the registry is built (`info`, `list`).
  Pool& pool() {
    std::call_once(started_, [&] {
      pool_ = std::make_unique<Pool>(threads_);
      scratch_.resize(static_cast<std::size_t>(pool_->size()));
    });
    return *pool_;
  }

  int threads_;
  std::int64_t grain_;
  std::once_flag started_;
  std::unique_ptr<Pool> pool_;
  std::vector<Scratch> scratch_;
};

}  // namespace
}  // namespace detail::cpu

std::unique_ptr<Backend> make_cpu_backend(int threads, std::int64_t grain) {
  return std::make_unique<detail::cpu::CpuBackend>(threads, grain);
}

}  // namespace scatter

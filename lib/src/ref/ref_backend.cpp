// The CPU reference backend: the oracle. Copy data, then apply every update in
// row-major order with the case's reduction. Obvious first, fast only where it
// stays obvious (whole runs copied with memcpy for `none`).

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "../dispatch.hpp"
#include "../targets.hpp"
#include "reduce.hpp"
#include "scatter/backend.hpp"
#include "scatter/cancel.hpp"

namespace scatter {
namespace detail {
namespace {

// Polls for --timeout and interrupts every million elements.
struct Poll {
  std::int64_t done = 0;
  void tick(std::int64_t elements) {
    done += elements;
    if (done >= (1 << 20)) {
      done = 0;
      poll_cancel();
    }
  }
};

template <class T>
void scatter_typed(const Case& c, const std::vector<std::int64_t>& idx, Tensor& out) {
  T* o = out.data<T>();
  const T* u = c.updates.data<T>();
  const Combine<T> combine{c.attrs.reduction};
  const auto reduction = c.attrs.reduction;
  Poll poll;

  if (reduction == Reduction::none) {
    visit_targets(c, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
      std::memcpy(o + oi, u + ui, static_cast<std::size_t>(len) * sizeof(T));
      poll.tick(len);
    });
    return;
  }
  // use_init_val = false: every targeted element starts from the identity.
  if (!c.attrs.use_init_val) {
    const T id = combine.identity();
    visit_targets(c, idx, [&](std::int64_t, std::int64_t oi, std::int64_t len) { std::fill(o + oi, o + oi + len, id); });
  }
  if (reduction != Reduction::mean) {
    visit_targets(c, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
      for (std::int64_t j = 0; j < len; ++j) o[oi + j] = combine.apply(o[oi + j], u[ui + j]);
      poll.tick(len);
    });
    return;
  }
  // mean = (init + sum of updates) / count, init and its count only with use_init_val.
  if constexpr (!std::is_same_v<T, Bool>) {
    std::vector<std::int64_t> count(static_cast<std::size_t>(out.numel()), 0);
    visit_targets(c, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
      for (std::int64_t j = 0; j < len; ++j) {
        o[oi + j] = combine.apply(o[oi + j], u[ui + j]);
        ++count[oi + j];
      }
      poll.tick(len);
    });
    const std::int64_t init = c.attrs.use_init_val ? 1 : 0;
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      if (count[i] > 0) o[i] = mean_of(o[i], count[i] + init);
    }
  }
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "CPU";
}

// Evicts the CPU caches: writes a buffer larger than any last-level cache.
void flush_host_caches() {
  static constexpr std::size_t kBytes = 256u << 20;
  static std::unique_ptr<char[]> buffer(new char[kBytes]);
  static char value = 0;
  std::memset(buffer.get(), ++value, kBytes);
}

// memcpy of 256 MiB, best of 5, read + write counted.
double measure_host_copy() {
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kBytes = 256u << 20;
  std::unique_ptr<char[]> src(new char[kBytes]);
  std::unique_ptr<char[]> dst(new char[kBytes]);
  std::memset(src.get(), 1, kBytes);
  std::memset(dst.get(), 2, kBytes);
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    std::memcpy(dst.get(), src.get(), kBytes);
    const std::chrono::duration<double> took = Clock::now() - start;
    best = std::min(best, took.count());
  }
  return 2.0 * kBytes / best;
}

// 4-byte stores to 16M random 32-byte sectors of a 512 MiB buffer, best of 3.
double measure_host_sector_writes() {
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kBytes = 512u << 20;
  static constexpr std::uint64_t kSectors = kBytes / 32;
  static constexpr std::uint64_t kStores = 16u << 20;
  std::unique_ptr<std::uint32_t[]> buffer(new std::uint32_t[kBytes / 4]);
  std::memset(buffer.get(), 0, kBytes);
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    const auto start = Clock::now();
    std::uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(round + 1);
    for (std::uint64_t i = 0; i < kStores; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64: cheap next to a cache miss
      buffer[(x % kSectors) * 8] = static_cast<std::uint32_t>(i);
    }
    const std::chrono::duration<double> took = Clock::now() - start;
    best = std::min(best, took.count());
  }
  return 32.0 * static_cast<double>(kStores) / best;
}

class RefBackend final : public Backend {
 public:
  double sector_write_bandwidth() override {
    if (sector_bandwidth_ == 0.0) sector_bandwidth_ = measure_host_sector_writes();
    return sector_bandwidth_;
  }
  double copy_bandwidth() override {
    if (copy_bandwidth_ == 0.0) copy_bandwidth_ = measure_host_copy();
    return copy_bandwidth_;
  }
  std::string_view name() const override { return "ref"; }
  Availability availability() const override { return {true, ""}; }
  std::string device() const override {
    return fmt::format("{} ({} threads)", cpu_name(), std::thread::hardware_concurrency());
  }
  // Out of place, the copy of data is part of the op; in place it is done first,
  // outside the timed region. The reference has one order only: deterministic.
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    using Clock = std::chrono::steady_clock;
    Tensor out;
    if (flags.in_place) out = c.data.clone();
    if (flags.flush_caches) flush_host_caches();
    auto start = Clock::now();
    if (flags.in_place) {
      reference_scatter_into(c, out);
    } else {
      out = reference_scatter(c);
    }
    const std::chrono::duration<double> took = Clock::now() - start;
    return {std::move(out), took.count()};
  }

 private:
  double copy_bandwidth_ = 0.0;
  double sector_bandwidth_ = 0.0;
};

}  // namespace
}  // namespace detail

Tensor reference_scatter(const Case& c) {
  Tensor out = c.data.clone();
  reference_scatter_into(c, out);
  return out;
}

void reference_scatter_into(const Case& c, Tensor& out) {
  const auto idx = detail::normalized_indices(c);
  detail::dispatch(c.data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::scatter_typed<T>(c, idx, out);
  });
}

std::unique_ptr<Backend> make_ref_backend() { return std::make_unique<detail::RefBackend>(); }

}  // namespace scatter

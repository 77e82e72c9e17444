// The host's bandwidth lines, and the cache flush of cold host runs.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "pool.hpp"
#include "probes.hpp"

namespace scatter {
namespace {

using Clock = std::chrono::steady_clock;

// [begin, end) of part t of n equal parts of `size`.
std::pair<std::size_t, std::size_t> part(std::size_t size, int t, int n) {
  return {size * static_cast<std::size_t>(t) / static_cast<std::size_t>(n),
          size * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(n)};
}

// The host's lines, measured on `threads` threads at once (the cpu backend's), each
// moving its own part: the same parallelism as the rows they are the 100% of.
class HostProbe final : public BandwidthProbe {
 public:
  explicit HostProbe(int threads) : threads_(std::max(1, threads)), pool_(threads_) {}

  // memcpy of 256 MiB, best of 5, read + write counted.
  double copy() override {
    if (copy_ > 0.0) return copy_;
    static constexpr std::size_t kBytes = 256u << 20;
    copy_ = 2.0 * kBytes / best_copy(kBytes, 5, false);
    return copy_;
  }

  // 4-byte stores to 16M random 32-byte sectors of a 512 MiB buffer, best of 3.
  double sector_writes() override {
    if (sectors_ > 0.0) return sectors_;
    static constexpr std::size_t kBytes = 512u << 20;
    static constexpr std::uint64_t kSectors = kBytes / 32;
    static constexpr std::uint64_t kStores = 16u << 20;
    std::unique_ptr<std::uint32_t[]> buffer(new std::uint32_t[kBytes / 4]);
    std::memset(buffer.get(), 0, kBytes);
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
      const auto start = Clock::now();
      pool_.run(threads_, [&](int t) {
        const auto [first, last] = part(kStores, t, threads_);
        std::uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(round * threads_ + t + 1);
        for (auto i = first; i < last; ++i) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64: cheap next to a cache miss
          buffer[(x % kSectors) * 8] = static_cast<std::uint32_t>(i);
        }
      });
      best = std::min(best, seconds_since(start));
    }
    sectors_ = 32.0 * static_cast<double>(kStores) / best;
    return sectors_;
  }

  // A cold memcpy moving `bytes` (read + write counted, as the byte model does), the
  // caches evicted before each of 5 samples as a cold row's are: the median.
  double copy_of(std::uint64_t bytes) override { return working_set_copy(bytes, true); }

  // The same warm: each copy after another of the same buffers, the best of 7.
  double hot_copy_of(std::uint64_t bytes) override { return working_set_copy(bytes, false); }

 private:
  // A copy of a working set, kept by size and temperature. At most kWorkingSetCopyCap a side:
  // that far past the last-level cache a memcpy runs at the memory's rate whatever its size,
  // and a large row's working set (5 GiB for a 1 GiB output with 2^28 int64 indices) was
  // allocated again, twice, beside the case's own.
  double working_set_copy(std::uint64_t bytes, bool cold) {
    static constexpr std::uint64_t kWorkingSetCopyCap = 256u << 20;
    bytes = std::min(bytes, 2 * kWorkingSetCopyCap);
    auto& kept = cold ? cold_by_size_ : hot_by_size_;
    if (auto it = kept.find(bytes); it != kept.end()) return it->second;
    const std::size_t half = std::max<std::size_t>(static_cast<std::size_t>(bytes / 2), 64);
    const double seconds = best_copy(half, cold ? 5 : 7, cold);
    return kept[bytes] = seconds > 0 ? 2.0 * static_cast<double>(half) / seconds : 0.0;
  }

  // Seconds of a memcpy of `bytes` split over the threads: the best of `samples`, or
  // with `cold` the median, the caches evicted before each.
  // Copies under 1 MB run on one thread, as the cpu backend runs cases that small.
  double best_copy(std::size_t bytes, int samples, bool cold) {
    const int threads = bytes < (std::size_t{1} << 20) ? 1 : threads_;
    std::unique_ptr<char[]> src(new char[bytes]);
    std::unique_ptr<char[]> dst(new char[bytes]);
    pool_.run(threads, [&](int t) {  // each thread's pages first touched by it
      const auto [first, last] = part(bytes, t, threads);
      std::memset(src.get() + first, 1, last - first);
      std::memset(dst.get() + first, 2, last - first);
    });
    std::vector<double> took;
    const detail::cpu::Pool::Placement placed(pool_, pool_.crowded());
    for (int i = 0; i < samples; ++i) {
      if (cold) flush_host_caches();
      const auto start = Clock::now();
      pool_.run(threads, [&](int t) {
        const auto [first, last] = part(bytes, t, threads);
        std::memcpy(dst.get() + first, src.get() + first, last - first);
      });
      took.push_back(seconds_since(start));
    }
    std::sort(took.begin(), took.end());
    return cold ? took[took.size() / 2] : took.front();
  }

  int threads_;
  detail::cpu::Pool pool_;  // the cpu backend's kind of threads, started once
  double copy_ = 0.0;
  double sectors_ = 0.0;
  std::map<std::uint64_t, double> cold_by_size_;
  std::map<std::uint64_t, double> hot_by_size_;
};

}  // namespace

std::string host_cpu_name() {
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

void flush_host_caches() {
  static constexpr std::size_t kBytes = 256u << 20;
  static const std::unique_ptr<char[]> buffer(new char[kBytes]);
  static char value = 0;
  std::memset(buffer.get(), ++value, kBytes);
}

void flush_caches_on_every_cpu() {
  static constexpr std::size_t kBytes = 256u << 20;
  static const std::unique_ptr<char[]> buffer(new char[kBytes]);
  static detail::cpu::Pool pool(std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))));
  static char value = 0;
  ++value;
  const detail::cpu::Pool::Placement placed(pool, pool.crowded());
  pool.run(pool.size(), [&](int t) {
    const auto [begin, end] = part(kBytes, t, pool.size());
    std::memset(buffer.get() + begin, value, end - begin);
  });
}

std::unique_ptr<BandwidthProbe> make_host_probe(int threads) { return std::make_unique<HostProbe>(threads); }

BandwidthProbe* fastest_probe(MemoryKind memory) {
  if (memory == MemoryKind::device) {
    static const auto device = make_cuda_probe();
    return device.get();
  }
  static const auto host = make_host_probe(std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))));
  return host.get();
}

BandwidthProbe* probe_for(const BackendTraits& traits) {
  if (traits.memory == MemoryKind::device) {
    // The one device scatterctl drives itself; a device worker's memory is not ours to probe.
    if (traits.role == BackendRole::external) return nullptr;
    return fastest_probe(MemoryKind::device);
  }
  // A host backend's lines on as many threads as it runs.
  const int threads = std::max(1, traits.threads);
  static std::map<int, std::unique_ptr<BandwidthProbe>> hosts;
  auto& probe = hosts[threads];
  if (!probe) probe = make_host_probe(threads);
  return probe.get();
}

}  // namespace scatter

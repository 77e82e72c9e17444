// The host's bandwidth lines, and the cache flush of cold host runs.

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "probes.hpp"

namespace scatter {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class HostProbe final : public BandwidthProbe {
 public:
  // memcpy of 256 MiB, best of 5, read + write counted.
  double copy() override {
    if (copy_ > 0.0) return copy_;
    static constexpr std::size_t kBytes = 256u << 20;
    std::unique_ptr<char[]> src(new char[kBytes]);
    std::unique_ptr<char[]> dst(new char[kBytes]);
    std::memset(src.get(), 1, kBytes);
    std::memset(dst.get(), 2, kBytes);
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
      const auto start = Clock::now();
      std::memcpy(dst.get(), src.get(), kBytes);
      best = std::min(best, seconds_since(start));
    }
    copy_ = 2.0 * kBytes / best;
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
      std::uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(round + 1);
      for (std::uint64_t i = 0; i < kStores; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64: cheap next to a cache miss
        buffer[(x % kSectors) * 8] = static_cast<std::uint32_t>(i);
      }
      best = std::min(best, seconds_since(start));
    }
    sectors_ = 32.0 * static_cast<double>(kStores) / best;
    return sectors_;
  }

  // A cold memcpy moving `bytes` (read + write counted, as the byte model does), the
  // caches evicted before each of 5 samples as a cold row's are: the median. Kept by size.
  double copy_of(std::uint64_t bytes) override {
    if (auto it = by_size_.find(bytes); it != by_size_.end()) return it->second;
    const std::size_t half = std::max<std::size_t>(static_cast<std::size_t>(bytes / 2), 64);
    std::unique_ptr<char[]> src(new char[half]);
    std::unique_ptr<char[]> dst(new char[half]);
    std::memset(src.get(), 1, half);
    std::memset(dst.get(), 2, half);
    std::vector<double> took;
    for (int i = 0; i < 5; ++i) {
      flush_host_caches();
      const auto start = Clock::now();
      std::memcpy(dst.get(), src.get(), half);
      took.push_back(seconds_since(start));
    }
    std::sort(took.begin(), took.end());
    const double med = took[2];
    return by_size_[bytes] = med > 0 ? 2.0 * static_cast<double>(half) / med : 0.0;
  }

 private:
  double copy_ = 0.0;
  double sectors_ = 0.0;
  std::map<std::uint64_t, double> by_size_;
};

bool runs_on_host(const Backend& b) {
  return b.name() == "ref" || b.name() == "cpu" || (b.judges_invalid_cases() && b.device().rfind("CPU", 0) == 0);
}

}  // namespace

void flush_host_caches() {
  static constexpr std::size_t kBytes = 256u << 20;
  static const std::unique_ptr<char[]> buffer(new char[kBytes]);
  static char value = 0;
  std::memset(buffer.get(), ++value, kBytes);
}

std::unique_ptr<BandwidthProbe> make_host_probe() { return std::make_unique<HostProbe>(); }

BandwidthProbe* probe_for(const Backend& backend) {
  if (backend.name() == "cuda") {
    static const auto device = make_cuda_probe();
    return device.get();
  }
  if (!runs_on_host(backend)) return nullptr;
  static const auto host = make_host_probe();
  return host.get();
}

}  // namespace scatter

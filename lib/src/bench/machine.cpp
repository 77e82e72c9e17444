// The machine a bench runs on: its load, the CPU time its tasks waited for (pressure stall
// information), and the test-only slowdown (SCATTERCTL_BENCH_SLOWDOWN) that stands in for a slower build.

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "scatter/bench.hpp"

namespace scatter {

bool Slowdown::matches(std::string_view item, std::string_view backend_label) const {
  if (!label.empty() && label != backend_label) return false;
  return fnmatch(glob.c_str(), std::string(item).c_str(), 0) == 0;
}

std::vector<Slowdown> parse_slowdown(const std::string& text) {
  std::vector<Slowdown> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) continue;
    const auto colon = part.rfind(':');
    double factor = 0.0;
    if (colon != std::string::npos) {
      const auto number = part.substr(colon + 1);
      char* end = nullptr;
      factor = std::strtod(number.c_str(), &end);
      if (number.empty() || *end != '\0' || !std::isfinite(factor)) factor = 0.0;
    }
    if (colon == std::string::npos || colon == 0 || factor < 1.0) {
      throw Error(ErrorCode::schema, "SCATTERCTL_BENCH_SLOWDOWN",
                  fmt::format("entry '{}' of '{}' is not [LABEL@]GLOB:FACTOR (a benchmark name or glob, and a factor "
                              ">= 1 such as 2 or 1.1)",
                              part, text));
    }
    Slowdown slow;
    slow.factor = factor;
    slow.glob = part.substr(0, colon);
    if (const auto at = slow.glob.find('@'); at != std::string::npos) {
      slow.label = slow.glob.substr(0, at);
      slow.glob = slow.glob.substr(at + 1);
    }
    out.push_back(std::move(slow));
  }
  return out;
}

MachineLoad machine_load() {
  MachineLoad m;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  m.cpus = online > 0 ? static_cast<int>(online) : 0;
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (in >> a >> b >> c) {
    m.load1 = a;
    m.load5 = b;
    m.load15 = c;
  }
  return m;
}

double cpu_stall_seconds() {
  std::ifstream in("/proc/pressure/cpu");
  std::string word;
  while (in >> word) {
    if (word.rfind("total=", 0) == 0) {
      char* end = nullptr;
      const double micros = std::strtod(word.c_str() + 6, &end);
      return end != word.c_str() + 6 && micros >= 0 ? micros * 1e-6 : -1.0;  // the first line's: "some"
    }
  }
  return -1.0;
}

Canary measure_canary() {
  // The same work every run, on every build: a read of 4 MiB a thread and a chain of dependent
  // multiplications, each thread its own. Its time moves with the machine (a neighbour, clocks,
  // a slower VM host), never with the code under test.
  constexpr std::size_t kWords = (4u << 20) / sizeof(std::uint64_t);
  constexpr int kRepeats = 7;
  const int cpus = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  static std::vector<std::vector<std::uint64_t>> buffers;
  if (buffers.empty()) {
    for (int t = 0; t < cpus; ++t) buffers.emplace_back(kWords, static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull);
  }
  std::atomic<std::uint64_t> sink{0};
  const auto work = [&](int t) {
    std::uint64_t sum = 0, chain = static_cast<std::uint64_t>(t) | 1;
    for (const auto w : buffers[static_cast<std::size_t>(t)]) sum += w;
    for (int i = 0; i < (1 << 20); ++i) chain = chain * 6364136223846793005ull + 1442695040888963407ull;
    sink += sum ^ chain;
  };
  const auto median_seconds = [&](int threads) {
    std::vector<double> times;
    for (int r = 0; r < kRepeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::thread> others;
      for (int t = 1; t < threads; ++t) others.emplace_back(work, t);
      work(0);
      for (auto& o : others) o.join();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  Canary c;
  c.one_thread = median_seconds(1);
  c.every_cpu = median_seconds(cpus);
  return c;
}

}  // namespace scatter

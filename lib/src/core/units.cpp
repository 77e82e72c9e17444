// How numbers are said (scatter/units.hpp).

#include "scatter/units.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace scatter {

std::string binary_bytes(std::uint64_t b) {
  if (b >= (1ULL << 30)) return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1ULL << 30));
  if (b >= (1ULL << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1ULL << 20));
  return fmt::format("{} bytes", b);
}

std::string decimal_bytes(double bytes) {
  if (bytes < 1e3) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1e6) return fmt::format("{:.1f} KB", bytes / 1e3);
  if (bytes < 1e9) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

std::string human_time(double seconds) {
  const double a = std::fabs(seconds);
  if (a < 1e-6) return fmt::format("{:.0f} ns", seconds * 1e9);
  if (a < 1e-3) return fmt::format("{:.{}f} us", seconds * 1e6, a < 1e-4 ? 2 : 1);
  if (a < 1.0) return fmt::format("{:.{}f} ms", seconds * 1e3, a < 1e-1 ? 2 : 1);
  if (a < 1e4) return fmt::format("{:.2f} s", seconds);
  return fmt::format("{:.3g} s", seconds);
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace scatter

#pragma once
// What the bench layer's files share: medians, the normal quantile, and how times and byte
// counts are printed.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace scatter::detail {

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// z such that a standard normal lies in [-z, z] with probability `confidence`, by
/// bisection on erfc (no table needed).
inline double two_sided_z(double confidence) {
  const double alpha = 1.0 - confidence;
  double lo = 0.0, hi = 10.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

/// A number of a gate's table with `decimals` decimals (and a sign when `sign`), or three
/// significant digits once it is a million or more: a report may hold 1e308.
inline std::string short_number(double value, int decimals, bool sign = false) {
  if (std::isfinite(value) && std::fabs(value) < 1e6) {
    return sign ? fmt::format("{:+.{}f}", value, decimals) : fmt::format("{:.{}f}", value, decimals);
  }
  return sign ? fmt::format("{:+.3g}", value) : fmt::format("{:.3g}", value);
}

/// A median in a gate's table: a time ("12.3 us", "4.56 ms", "1.23 s"), or an instruction
/// count per call; "-" for none. An absurd value (a report may hold 1e308) stays one short word.
inline std::string value_cell(double value, bool counted) {
  if (value <= 0) return "-";
  if (counted) return value < 1e15 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
  if (value < 1e-3) return fmt::format("{:.1f} us", value * 1e6);
  if (value < 1.0) return fmt::format("{:.2f} ms", value * 1e3);
  if (value < 1e4) return fmt::format("{:.2f} s", value);
  return fmt::format("{:.3g} s", value);
}

/// 812 ns, 3.41 us, 12.3 ms, 1.20 s, 3.6e+05 s (an absurd time stays one short word).
inline std::string human_time(double seconds) {
  const double a = std::fabs(seconds);
  if (a < 1e-6) return fmt::format("{:.0f} ns", seconds * 1e9);
  if (a < 1e-3) return fmt::format("{:.{}f} us", seconds * 1e6, a < 1e-4 ? 2 : 1);
  if (a < 1.0) return fmt::format("{:.{}f} ms", seconds * 1e3, a < 1e-1 ? 2 : 1);
  if (a < 1e4) return fmt::format("{:.2f} s", seconds);
  return fmt::format("{:.3g} s", seconds);
}

/// 512 B, 4.0 KB, 12.6 MB, 1.07 GB: powers of 1000, as GB/s are.
inline std::string human_si_bytes(double bytes) {
  if (bytes < 1e3) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1e6) return fmt::format("{:.1f} KB", bytes / 1e3);
  if (bytes < 1e9) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

}  // namespace scatter::detail

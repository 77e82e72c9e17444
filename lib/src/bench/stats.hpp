#pragma once
// What the two gates (compare.cpp, paired.cpp) share: medians, the normal quantile, and how
// a median time is printed.

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

/// A median time in a gate's table: "12.3 us", "4.56 ms", "1.23 s"; "-" for none.
inline std::string time_cell(double seconds) {
  if (seconds <= 0) return "-";
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

}  // namespace scatter::detail

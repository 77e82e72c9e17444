#pragma once
// Small statistics the gates share: medians and the normal quantile.

#include <algorithm>
#include <cmath>
#include <vector>

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

}  // namespace scatter::detail

#pragma once
// What the bench layer's files share: the normal quantile, and how a gate's cells are printed
// (times, bytes and medians: scatter/units.hpp).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "scatter/bench.hpp"
#include "scatter/units.hpp"

namespace scatter::detail {

/// The q-quantile of samples (0.5: the median), interpolated between the two nearest.
double quantile(std::vector<double> samples, double q);

/// The median, spread (interquartile range over the median) and coefficient of variation of samples.
Timing summarize(std::vector<double> samples);

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

}  // namespace scatter::detail

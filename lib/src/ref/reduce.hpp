#pragma once
// The reductions as functors on one element: `apply(out, u)` and the identity that
// use_init_val = false starts from. One step at a time, in the data's own type:
// float16/bfloat16 round after every step, integers wrap, bool is logic.

#include <cmath>
#include <limits>
#include <type_traits>

#include "../dispatch.hpp"
#include "scatter/case.hpp"

namespace scatter::detail {

/// Integer arithmetic in an unsigned type wide enough not to promote to int, so
/// overflow wraps without undefined behaviour.
template <class T>
using Wide = std::conditional_t<(sizeof(T) < 4), std::uint32_t, std::make_unsigned_t<T>>;

template <class T, class Op>
T arith(T a, T b, Op op) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    // Exact in double for float16 (and double rounding is innocuous for bfloat16).
    return narrow_float<T>(op(widen(a), widen(b)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return op(a, b);
  } else {
    return static_cast<T>(op(static_cast<Wide<T>>(a), static_cast<Wide<T>>(b)));
  }
}

/// IEEE 754-2019 minimum (min = true) or maximum: NaN wins, -0 < +0.
template <class T>
T ieee_min_max(T a, T b, bool min) {
  const double x = widen(a);
  const double y = widen(b);
  if (std::isnan(x)) return a;
  if (std::isnan(y)) return b;
  if (x == y) return (std::signbit(x) == min) ? a : b;  // equal, or zeros of either sign
  return ((x < y) == min) ? a : b;
}

template <class T>
T float_limit(bool positive) {
  return narrow_float<T>(positive ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
}

template <class T>
struct Combine {
  Reduction reduction;

  T apply(T out, T u) const {
    if constexpr (std::is_same_v<T, Bool>) {
      switch (reduction) {
        case Reduction::add:
        case Reduction::max:
          return Bool{static_cast<std::uint8_t>(out.value | u.value)};
        case Reduction::sub:
          return Bool{static_cast<std::uint8_t>(out.value ^ u.value)};
        case Reduction::mul:
        case Reduction::min:
          return Bool{static_cast<std::uint8_t>(out.value & u.value)};
        default:
          return u;
      }
    } else {
      switch (reduction) {
        case Reduction::add:
        case Reduction::mean:
          return arith(out, u, [](auto a, auto b) { return a + b; });
        case Reduction::sub:
          return arith(out, u, [](auto a, auto b) { return a - b; });
        case Reduction::mul:
          return arith(out, u, [](auto a, auto b) { return a * b; });
        case Reduction::min:
          if constexpr (kIsFloat<T>) return ieee_min_max(out, u, true);
          else return out < u ? out : u;
        case Reduction::max:
          if constexpr (kIsFloat<T>) return ieee_min_max(out, u, false);
          else return out < u ? u : out;
        case Reduction::none:
          return u;
      }
      return u;
    }
  }

  /// Where use_init_val = false starts: 0, 1, +inf/max/true, -inf/lowest/false.
  T identity() const {
    if constexpr (std::is_same_v<T, Bool>) {
      return Bool{static_cast<std::uint8_t>(reduction == Reduction::mul || reduction == Reduction::min)};
    } else if constexpr (kIsFloat<T>) {
      switch (reduction) {
        case Reduction::mul:
          return narrow_float<T>(1.0);
        case Reduction::min:
          return float_limit<T>(true);
        case Reduction::max:
          return float_limit<T>(false);
        default:
          return narrow_float<T>(0.0);
      }
    } else {
      switch (reduction) {
        case Reduction::mul:
          return T{1};
        case Reduction::min:
          return std::numeric_limits<T>::max();
        case Reduction::max:
          return std::numeric_limits<T>::lowest();
        default:
          return T{0};
      }
    }
  }
};

/// mean = sum / count: floats correctly rounded, integers toward negative infinity.
template <class T>
T mean_of(T sum, std::int64_t count) {
  if constexpr (kIsFloat<T>) {
    if constexpr (std::is_same_v<T, double>) {
      return sum / static_cast<double>(count);
    } else {
      return narrow_float<T>(widen(sum) / static_cast<double>(count));
    }
  } else {
    const auto s = static_cast<std::int64_t>(sum);
    auto q = s / count;
    if (s % count != 0 && s < 0) --q;
    return static_cast<T>(q);
  }
}

}  // namespace scatter::detail

#pragma once
// Two of reduce_step.hpp's steps in the form that is faster on the cpu backend, with the same
// results bit for bit (tests/test_cpu_backend.cpp holds each equal to the reference's):
// - run_step, combine for a contiguous run: min and max of float and double choose without a
//   branch on the values, a form the compiler vectorizes (GNN max and voxel rows: a row of
//   updates onto a row of the output). One element at a time the branch is faster, so
//   elsewhere the backend calls combine itself;
// - mean_step, mean's division of integers in 32 bits where they fit.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/reduce_step.hpp"

namespace scatter::detail::cpu {

/// ieee_min_max(a, b, kMin) for float and double: NaN wins (a's before b's), -0 < +0. The bit
/// patterns, their magnitude bits flipped where the sign is set, order every value as signed
/// integers (-0 just below +0); the NaN checks then override that choice.
template <bool kMin, class T>
T ordered_min_max(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  constexpr int kSign = 8 * sizeof(T) - 1;
  constexpr Bits kMagnitude = static_cast<Bits>(~(Bits{1} << kSign));
  constexpr Bits kInfinity = sizeof(T) == 4 ? Bits{0x7F800000} : static_cast<Bits>(0x7FF0000000000000);
  Bits x;
  Bits y;
  std::memcpy(&x, &a, sizeof(T));
  std::memcpy(&y, &b, sizeof(T));
  const Bits kx = x ^ ((x >> kSign) & kMagnitude);
  const Bits ky = y ^ ((y >> kSign) & kMagnitude);
  Bits r = (kMin ? ky < kx : kx < ky) ? y : x;
  r = (y & kMagnitude) > kInfinity ? y : r;
  r = (x & kMagnitude) > kInfinity ? x : r;
  T result;
  std::memcpy(&result, &r, sizeof(T));
  return result;
}

/// out = f(out, u) in a run: combine(R, out, u), with ordered_min_max for min and max of float
/// and double.
template <Reduction R, class T>
inline T run_step(T out, T u) {
  if constexpr ((R == Reduction::min || R == Reduction::max) &&
                (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return ordered_min_max<R == Reduction::min>(out, u);
  } else {
    return combine(R, out, u);
  }
}

/// mean_of(sum, count): for integers of 32 bits or fewer, where the sum and the count fit in
/// int32, the same floor division in 32-bit arithmetic (64-bit division takes several times as
/// long on x86, and mean's division of each targeted element is most of an int32 mean's time).
template <class T>
T mean_step(T sum, std::int64_t count) {
  if constexpr (std::is_integral_v<T> && sizeof(T) <= 4) {
    const auto s = static_cast<std::int64_t>(sum);
    constexpr std::int64_t kMax = INT32_MAX;
    if (count <= kMax && s >= -kMax - 1 && s <= kMax) {
      const auto s32 = static_cast<std::int32_t>(s);
      const auto c32 = static_cast<std::int32_t>(count);
      std::int32_t q = s32 / c32;
      if (s32 % c32 != 0 && s32 < 0) --q;
      return static_cast<T>(q);
    }
  }
  return mean_of(sum, count);
}

}  // namespace scatter::detail::cpu

#pragma once
// reduce_step.hpp's steps in the forms that are faster on the cpu backend, with the same results
// bit for bit (tests/test_cpu_backend.cpp holds each equal to the reference's; docs/backends.md,
// "cpu", says why each is exact):
// - step, combine for one element: float16 add, sub and mul and bfloat16 mul in float, and the
//   16-bit floats' min and max on their bits, where the reference widens to double and rounds
//   back in software;
// - run_step, step for a contiguous run: min and max of float and double choose without a
//   branch on the values too, a form the compiler vectorizes (GNN max and voxel rows: a row of
//   updates onto a row of the output). One element at a time the branch is faster, so
//   elsewhere the backend calls step;
// - mean_step, mean's division of integers in 32 bits where they fit.

#include <bit>
#include <cstdint>
#include <type_traits>

#include "core/reduce_step.hpp"

namespace scatter::detail::cpu {

/// ieee_min_max(a, b, kMin) for float, double, float16 and bfloat16: NaN wins (a's before b's),
/// -0 < +0. The bit patterns, their magnitude bits flipped where the sign is set, order every
/// value as signed integers (-0 just below +0); the NaN checks then override that choice.
template <bool kMin, class T>
T ordered_min_max(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 2, std::int16_t, std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>>;
  using Key = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;  // 16 bits widen, sign-extended
  constexpr int kKeySign = 8 * sizeof(Key) - 1;
  constexpr Key kMagnitude = static_cast<Key>((std::uint64_t{1} << (8 * sizeof(T) - 1)) - 1);
  constexpr Key kInfinity = __is_same(T, Float16)    ? Key{0x7C00}
                            : __is_same(T, BFloat16) ? Key{0x7F80}
                            : sizeof(T) == 4         ? Key{0x7F800000}
                                                     : static_cast<Key>(0x7FF0000000000000);
  const Key x = std::bit_cast<Bits>(a);
  const Key y = std::bit_cast<Bits>(b);
  const Key kx = x ^ ((x >> kKeySign) & kMagnitude);
  const Key ky = y ^ ((y >> kKeySign) & kMagnitude);
  Key r = (kMin ? ky < kx : kx < ky) ? y : x;
  r = (y & kMagnitude) > kInfinity ? y : r;
  r = (x & kMagnitude) > kInfinity ? x : r;
  return std::bit_cast<T>(static_cast<Bits>(r));
}

/// A float16's value as a float, exactly. Finite: its bits in float's places, whose exponent is
/// then 112 short, and a multiply by 2^112 (exact; it also normalizes a subnormal). Infinity and
/// NaN: float's all-ones exponent, the payload kept. No branch, so that runs of it vectorize.
inline float half_to_float(Float16 h) {
  const std::uint32_t magnitude = h.bits & 0x7FFFu;
  const std::uint32_t placed = magnitude << 13;
  const std::uint32_t finite = std::bit_cast<std::uint32_t>(std::bit_cast<float>(placed) * 0x1p112f);
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  return std::bit_cast<float>(sign | (magnitude >= 0x7C00u ? placed | 0x7F800000u : finite));
}

/// A float rounded to float16, nearest with ties to even; NaN as round_double_bits<5, 10> gives it
/// (its sign, quiet, no payload). Below 2^-14 (float16's subnormals), adding 0.5 leaves the
/// result's bits at the bottom of the float, rounded by the add itself; above, the exponent is
/// rebiased and the 13 dropped bits rounded by an integer add; 65520 and up carry into
/// infinity's exponent. No branch but the selects.
inline Float16 float_to_half(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(std::bit_cast<float>(magnitude) + 0.5f) - 0x3F000000u;
  const std::uint32_t normal = (magnitude - 0x38000000u + 0xFFFu + ((magnitude >> 13) & 1u)) >> 13;
  std::uint32_t h = magnitude < 0x38800000u ? subnormal : normal;
  h = magnitude >= 0x47800000u ? 0x7C00u : h;
  h = magnitude > 0x7F800000u ? 0x7E00u : h;
  return Float16{static_cast<std::uint16_t>(h | ((bits >> 16) & 0x8000u))};
}

/// out = f(out, u): combine(R, out, u), faster for the 16-bit floats. Float16 add, sub and mul
/// in float, rounded once more: the exact sum rounds to the same float16 through float (24 >= 2 x
/// 11 + 2 bits: double rounding is innocuous), and a product of two 11-bit significands is exact
/// in float. Bfloat16 mul likewise: a product of two 8-bit significands is exact in float down to
/// 2^-134; below that, float's rounding gives at most 2^-134, half bfloat16's smallest subnormal,
/// which rounds to zero as the exact product does. Min and max: ordered_min_max on the bits.
template <Reduction R, class T>
inline T step(T out, T u) {
  constexpr bool kMinMax = R == Reduction::min || R == Reduction::max;
  constexpr bool kSum = R == Reduction::add || R == Reduction::mean || R == Reduction::sub;
  if constexpr ((__is_same(T, Float16) || __is_same(T, BFloat16)) && kMinMax) {
    return ordered_min_max<R == Reduction::min>(out, u);
  } else if constexpr (__is_same(T, Float16) && (kSum || R == Reduction::mul)) {
    const float x = half_to_float(out);
    const float y = half_to_float(u);
    return float_to_half(R == Reduction::mul ? x * y : R == Reduction::sub ? x - y : x + y);
  } else if constexpr (__is_same(T, BFloat16) && R == Reduction::mul) {
    return BFloat16{bits::round_float_to_bf16(bits::bf16_bits_to_float(out.bits) * bits::bf16_bits_to_float(u.bits))};
  } else {
    return combine(R, out, u);
  }
}

/// out = f(out, u) in a run: step, with ordered_min_max for min and max of float and double.
template <Reduction R, class T>
inline T run_step(T out, T u) {
  if constexpr ((R == Reduction::min || R == Reduction::max) &&
                (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return ordered_min_max<R == Reduction::min>(out, u);
  } else {
    return step<R>(out, u);
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

#pragma once
// One reduction step on one element, `combine(r, out, u)`, with the identity that
// use_init_val = false starts from and the final division of mean. Written once for
// the reference (g++) and the CUDA kernels (host and device code): plain integer and
// float code with no CUDA headers. Floats: exact in double, then rounded once to the
// data's type (so float16/bfloat16 round after every step); integers wrap; bool is
// logic (add/max = OR, sub = XOR, mul/min = AND).

#include <cstdint>

#include "float_bits.hpp"
#include "scatter/dtype.hpp"

namespace scatter::detail {

/// bool is stored as one byte holding 0 or 1; a distinct type keeps templates apart.
struct Bool {
  std::uint8_t value = 0;
};

template <class T>
inline constexpr bool kIsFloat =
    __is_same(T, double) || __is_same(T, float) || __is_same(T, Float16) || __is_same(T, BFloat16);

/// The double view of the numeric storage types: exact widening, and narrowing
/// rounded to nearest with ties to even (float_bits.hpp for the 16-bit floats).
template <class T>
struct Num {
  SCATTER_HD static double to(T v) { return static_cast<double>(v); }
  SCATTER_HD static T from(double v) { return static_cast<T>(v); }
};
template <>
struct Num<Float16> {
  SCATTER_HD static double to(Float16 v) { return bits::half_bits_to_double(v.bits); }
  SCATTER_HD static Float16 from(double v) { return Float16{bits::round_double_bits<5, 10>(v)}; }
};
template <>
struct Num<BFloat16> {
  SCATTER_HD static double to(BFloat16 v) { return bits::bf16_bits_to_double(v.bits); }
  SCATTER_HD static BFloat16 from(double v) { return BFloat16{bits::round_double_bits<8, 7>(v)}; }
};

/// Integer arithmetic in an unsigned type wide enough not to promote to int, so that
/// overflow wraps without undefined behaviour.
template <class T>
struct Unsigned {
  using type = std::uint32_t;
};
template <>
struct Unsigned<std::int64_t> {
  using type = std::uint64_t;
};

/// IEEE 754-2019 minimum (min = true) or maximum: NaN wins, -0 < +0.
template <class T>
SCATTER_HD T ieee_min_max(T a, T b, bool min) {
  const double x = Num<T>::to(a);
  const double y = Num<T>::to(b);
  if (x != x) return a;
  if (y != y) return b;
  if (x == y) return (__builtin_signbit(x) != 0) == min ? a : b;  // equal, or zeros of either sign
  return (x < y) == min ? a : b;
}

/// out = f(out, u), one step in the data's own type.
template <class T>
SCATTER_HD T combine(Reduction r, T out, T u) {
  if constexpr (__is_same(T, Bool)) {
    switch (r) {
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
  } else if constexpr (kIsFloat<T>) {
    constexpr bool native = __is_same(T, double) || __is_same(T, float);
    if constexpr (__is_same(T, BFloat16)) {
      // In float, then rounded once: the float sum of two bfloat16 values rounds to the same
      // bfloat16 as the exact sum (24 >= 2 x 8 + 2 bits: double rounding is innocuous, and the
      // two formats share their exponent range), and it vectorizes where the double path
      // cannot. tests/test_dtype.cpp checks it against the double path.
      if (r == Reduction::add || r == Reduction::mean || r == Reduction::sub) {
        const float x = bits::bf16_bits_to_float(out.bits);
        const float y = bits::bf16_bits_to_float(u.bits);
        return BFloat16{bits::round_float_to_bf16(r == Reduction::sub ? x - y : x + y)};
      }
    }
    switch (r) {
      case Reduction::add:
      case Reduction::mean:
        if constexpr (native) return out + u;
        else return Num<T>::from(Num<T>::to(out) + Num<T>::to(u));  // exact in double for float16
      case Reduction::sub:
        if constexpr (native) return out - u;
        else return Num<T>::from(Num<T>::to(out) - Num<T>::to(u));
      case Reduction::mul:
        if constexpr (native) return out * u;
        else return Num<T>::from(Num<T>::to(out) * Num<T>::to(u));
      case Reduction::min:
        return ieee_min_max(out, u, true);
      case Reduction::max:
        return ieee_min_max(out, u, false);
      default:
        return u;
    }
  } else {
    using W = typename Unsigned<T>::type;
    switch (r) {
      case Reduction::add:
      case Reduction::mean:
        return static_cast<T>(static_cast<W>(out) + static_cast<W>(u));
      case Reduction::sub:
        return static_cast<T>(static_cast<W>(out) - static_cast<W>(u));
      case Reduction::mul:
        return static_cast<T>(static_cast<W>(out) * static_cast<W>(u));
      case Reduction::min:
        return out < u ? out : u;
      case Reduction::max:
        return out < u ? u : out;
      default:
        return u;
    }
  }
}

/// How two updates to one target merge before they meet the output (the kernels' warp
/// aggregation): f(f(out, a), b) = f(out, merge(a, b)). The reduction itself for every
/// associative one; for sub, a + b (out - a - b = out - (a + b)), except bool, whose
/// sub (XOR) is its own merge.
template <class T>
SCATTER_HD constexpr Reduction merge_of(Reduction r) {
  if constexpr (__is_same(T, Bool)) {
    return r;
  } else {
    return r == Reduction::sub ? Reduction::add : r;
  }
}

/// Where use_init_val = false starts (vocabulary.hpp's Identity of the reduction):
/// 0, 1, +inf/max/true or -inf/lowest/false.
template <class T>
SCATTER_HD T identity(Reduction r) {
  const Identity id = identity_of(r);
  if constexpr (__is_same(T, Bool)) {
    return Bool{static_cast<std::uint8_t>(id == Identity::one || id == Identity::highest)};
  } else if constexpr (kIsFloat<T>) {
    const double inf = __builtin_inf();
    return Num<T>::from(id == Identity::one ? 1.0 : id == Identity::highest ? inf : id == Identity::lowest ? -inf : 0.0);
  } else {
    constexpr bool is_signed = static_cast<T>(-1) < static_cast<T>(0);
    constexpr int bits = 8 * static_cast<int>(sizeof(T));
    const T max_v = is_signed ? static_cast<T>((std::uint64_t{1} << (bits - 1)) - 1) : static_cast<T>(~T{0});
    const T low_v = is_signed ? static_cast<T>(-static_cast<std::int64_t>(max_v) - 1) : T{0};
    return id == Identity::one ? T{1} : id == Identity::highest ? max_v : id == Identity::lowest ? low_v : T{0};
  }
}

/// mean = sum / count: floats correctly rounded, integers toward negative infinity.
template <class T>
SCATTER_HD T mean_of(T sum, std::int64_t count) {
  if constexpr (__is_same(T, double)) {
    return sum / static_cast<double>(count);
  } else if constexpr (kIsFloat<T>) {
    return Num<T>::from(Num<T>::to(sum) / static_cast<double>(count));
  } else {
    const std::int64_t s = static_cast<std::int64_t>(sum);
    std::int64_t q = s / count;
    if (s % count != 0 && s < 0) --q;
    return static_cast<T>(q);
  }
}

}  // namespace scatter::detail

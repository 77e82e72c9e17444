#pragma once
// 16-bit floats as bits: exact widening to double and round-to-nearest-even
// narrowing straight from a double's bits (no double rounding). Plain integer code
// as __host__ __device__ functions: the reference (dtype.cpp) and the cuda kernels
// (cuda/element.hpp) share this one copy, so they cannot round differently.

#include <cstdint>

#ifdef __CUDACC__
#define SCATTER_HD __host__ __device__ __forceinline__
#else
#define SCATTER_HD inline
#endif

namespace scatter::bits {

SCATTER_HD double half_bits_to_double(std::uint16_t h) {
  const std::uint64_t sign = static_cast<std::uint64_t>(h >> 15) << 63;
  const int exp = (h >> 10) & 0x1F;
  const std::uint64_t frac = h & 0x3FF;
  union {
    std::uint64_t u;
    double d;
  } v{0};
  if (exp == 0x1F) {
    v.u = sign | (std::uint64_t{0x7FF} << 52) | (frac << 42);  // inf, or NaN with its payload
  } else if (exp == 0) {
    v.d = static_cast<double>(frac) * (1.0 / 16777216.0);  // subnormal: frac * 2^-24, exact
    v.u |= sign;
  } else {
    v.u = sign | (static_cast<std::uint64_t>(exp - 15 + 1023) << 52) | (frac << 42);
  }
  return v.d;
}

SCATTER_HD double bf16_bits_to_double(std::uint16_t b) {
  union {
    std::uint32_t u;
    float f;
  } v{static_cast<std::uint32_t>(b) << 16};
  return static_cast<double>(v.f);
}

SCATTER_HD float bf16_bits_to_float(std::uint16_t b) {
  union {
    std::uint32_t u;
    float f;
  } v{static_cast<std::uint32_t>(b) << 16};
  return v.f;
}

/// A float rounded to bfloat16, nearest with ties to even; NaN as round_double_bits<8, 7> gives it
/// (its sign, quiet, no payload). No branch but the NaN select, so that loops of it vectorize.
SCATTER_HD std::uint16_t round_float_to_bf16(float value) {
  union {
    float f;
    std::uint32_t u;
  } v{value};
  const std::uint32_t rounded = (v.u + 0x7FFFu + ((v.u >> 16) & 1u)) >> 16;
  const bool nan = (v.u & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<std::uint16_t>(nan ? ((v.u >> 16) & 0x8000u) | 0x7FC0u : rounded);
}

/// Rounds a double to a format with kExp exponent and kMan fraction bits (binary16:
/// 5, 10; bfloat16: 8, 7), nearest with ties to even; NaN keeps its sign and is quiet.
template <int kExp, int kMan>
SCATTER_HD std::uint16_t round_double_bits(double value) {
  union {
    double d;
    std::uint64_t u;
  } v{value};
  const std::uint64_t bits = v.u;
  const auto sign = static_cast<std::uint16_t>((bits >> 63) << (kExp + kMan));
  const int exp_all_ones = (1 << kExp) - 1;
  const int raw_exp = static_cast<int>((bits >> 52) & 0x7FF);
  std::uint64_t sig = bits & ((std::uint64_t{1} << 52) - 1);
  if (raw_exp == 0x7FF) {
    if (sig) return static_cast<std::uint16_t>(sign | (exp_all_ones << kMan) | (1u << (kMan - 1)));
    return static_cast<std::uint16_t>(sign | (exp_all_ones << kMan));
  }
  if (raw_exp == 0) return sign;  // zero, or a double subnormal far below either target's subnormals
  const int bias = (1 << (kExp - 1)) - 1;
  const int min_normal_exp = 1 - bias;
  int exp = raw_exp - 1023;
  sig |= std::uint64_t{1} << 52;
  int shift = 52 - kMan;
  if (exp < min_normal_exp) shift += min_normal_exp - exp;
  if (shift > 54) return sign;
  std::uint64_t kept = sig >> shift;
  const std::uint64_t rest = sig & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  // Subnormal: the field is the rounded significand; rounding up to 2^kMan lands
  // exactly on the smallest normal's encoding.
  if (exp < min_normal_exp) return static_cast<std::uint16_t>(sign | kept);
  if (kept == (std::uint64_t{1} << (kMan + 1))) {
    kept >>= 1;
    ++exp;
  }
  const int field = exp + bias;
  if (field >= exp_all_ones) return static_cast<std::uint16_t>(sign | (exp_all_ones << kMan));
  return static_cast<std::uint16_t>(sign | (field << kMan) | (kept & ((std::uint64_t{1} << kMan) - 1)));
}

}  // namespace scatter::bits

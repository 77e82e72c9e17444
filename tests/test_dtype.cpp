// dtype names and sizes, and the float16/bfloat16 conversions. Expected bit patterns
// come from NumPy (np.float16(x).view(np.uint16)) or from exact rational rounding in
// tests/data/gen_expected.py, never from the code under test.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../lib/src/core/reduce_step.hpp"
#include "scatter/dtype.hpp"

namespace scatter {
namespace {

bool is_nan16(std::uint16_t bits) { return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0; }
bool is_nan_bf16(std::uint16_t bits) { return (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0; }

// IEEE 754 binary16 decoded from its definition: (-1)^s * 2^(e-15) * 1.f, or
// 2^-14 * 0.f for subnormals. Independent of lib/src/core/dtype.cpp.
double decode_half(std::uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int e = (bits >> 10) & 0x1F;
  const int f = bits & 0x3FF;
  if (e == 0x1F) return f ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * (f / 1024.0) * std::pow(2.0, -14);
  return sign * (1.0 + f / 1024.0) * std::pow(2.0, e - 15);
}

// bfloat16 by round-to-nearest-even on the bits of a float32 (valid for values that
// are exactly float32, the reference the format is defined by).
std::uint16_t bf16_rne_from_float(float f) {
  const auto b = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

// Every bit pattern of a 16-bit float type T, widened to double and narrowed back by `narrow`:
// the same bits, with the sign, or a NaN of the same sign for a NaN; `also(bits, widened)` checks
// more of each number.
template <class T, class Narrow, class Also>
void expect_every_pattern_round_trips(bool (*is_nan)(std::uint16_t), Narrow narrow, Also also) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double d = to_double(T{bits});
    const auto back = narrow(d).bits;
    if (is_nan(bits)) {
      ASSERT_TRUE(std::isnan(d)) << std::hex << b;
      ASSERT_TRUE(is_nan(back)) << std::hex << b << " -> " << back;
      ASSERT_EQ(back & 0x8000, bits & 0x8000) << "NaN sign lost for " << std::hex << b;
    } else {
      ASSERT_EQ(back, bits) << std::hex << b;
      ASSERT_EQ(std::signbit(d), (bits & 0x8000) != 0) << std::hex << b;
      also(bits, d);
    }
  }
}

TEST(Float16, EveryBitPatternRoundTrips) {
  expect_every_pattern_round_trips<Float16>(is_nan16, to_float16, [](std::uint16_t, double) {});
}

TEST(Float16, WideningMatchesTheIeeeDefinition) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double want = decode_half(bits);
    const double got = to_double(Float16{bits});
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << b;
    } else {
      ASSERT_EQ(got, want) << std::hex << b;
    }
  }
}

// Values from numpy: np.float16(np.float64(x)).view(np.uint16), cross-checked with
// exact rational rounding (tests/data/gen_expected.py).
TEST(Float16, KnownValuesFromNumpy) {
  struct Known {
    double x;
    std::uint16_t bits;
  };
  const Known known[] = {
      {1.0, 0x3C00},
      {65504.0, 0x7BFF},                     // largest finite
      {65519.0, 0x7BFF},                     // just below the halfway point to 2^16
      {65520.0, 0x7C00},                     // halfway: ties to even = +inf
      {-65520.0, 0xFC00},
      {0x1p-24, 0x0001},                     // smallest subnormal
      {0x1p-25, 0x0000},                     // half of it: tie to even (0)
      {3 * 0x1p-26, 0x0001},                 // 0.75 of the smallest subnormal
      {0x1p-25 + 0x1p-40, 0x0001},           // just above the tie
      {0x1p-26, 0x0000},
      {1e-300, 0x0000},
      {0x1p-14, 0x0400},                     // smallest normal
      {0x1p-14 - 0x1p-25, 0x0400},           // largest subnormal + half ulp rounds up into normals
      {1.0 + 0x1p-11, 0x3C00},               // tie between 1 and 1+2^-10: even is 1
      {1.0 + 3 * 0x1p-11, 0x3C02},           // tie between 1+2^-10 and 1+2^-9: even is 1+2^-9
      {1.0 + 0x1p-11 + 0x1p-40, 0x3C01},     // above the tie (wrong if rounded via float32)
      {2049.0, 0x6800},                      // tie at ulp 2: to 2048
      {2051.0, 0x6802},                      // tie at ulp 2: to 2052
      {0.1, 0x2E66},
      {1.0 / 3.0, 0x3555},
      {-2.5, 0xC100},
  };
  for (const auto& k : known) {
    EXPECT_EQ(to_float16(k.x).bits, k.bits) << std::hexfloat << k.x;
  }
}

TEST(Float16, SpecialValues) {
  EXPECT_EQ(to_float16(std::numeric_limits<double>::infinity()).bits, 0x7C00);
  EXPECT_EQ(to_float16(-std::numeric_limits<double>::infinity()).bits, 0xFC00);
  EXPECT_EQ(to_float16(1e300).bits, 0x7C00);
  EXPECT_TRUE(is_nan16(to_float16(std::numeric_limits<double>::quiet_NaN()).bits));
  const auto neg_nan = to_float16(-std::numeric_limits<double>::quiet_NaN()).bits;
  EXPECT_TRUE(is_nan16(neg_nan));
  EXPECT_EQ(neg_nan & 0x8000, 0x8000);
  EXPECT_EQ(to_double(Float16{0x7C00}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(Float16{0x0001}), 0x1p-24);
  EXPECT_EQ(to_double(Float16{0x7BFF}), 65504.0);
}

TEST(Float16, NegativeZeroKeepsItsSign) {
  EXPECT_EQ(to_float16(-0.0).bits, 0x8000);
  EXPECT_EQ(to_float16(0.0).bits, 0x0000);
  EXPECT_EQ(to_float16(-0x1p-25).bits, 0x8000);  // underflow keeps the sign
  EXPECT_EQ(to_float16(-1e-300).bits, 0x8000);
  EXPECT_EQ(to_float16(-5e-324).bits, 0x8000);   // a double subnormal
  const double back = to_double(Float16{0x8000});
  EXPECT_EQ(back, 0.0);
  EXPECT_TRUE(std::signbit(back));
}

#ifdef __FLT16_MAX__
// The compiler's _Float16 conversion (libgcc's correctly rounded truncdfhf2) as a
// second oracle over many doubles around the float16 range.
TEST(Float16, MatchesCompilerFloat16OnRandomDoubles) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> exp(-30, 17);
  std::uniform_int_distribution<std::uint64_t> frac(0, (std::uint64_t{1} << 52) - 1);
  for (int i = 0; i < 200000; ++i) {
    // Random 52-bit fractions, plus ones sitting exactly on and next to ties.
    std::uint64_t f = frac(rng);
    if (i % 4 == 1) f = (f >> 42) << 42 | (std::uint64_t{1} << 41);
    if (i % 4 == 2) f = ((f >> 42) << 42 | (std::uint64_t{1} << 41)) + 1;
    const std::uint64_t sign = (i % 3 == 0) ? (std::uint64_t{1} << 63) : 0;
    const auto bits = sign | (static_cast<std::uint64_t>(exp(rng) + 1023) << 52) | f;
    const double x = std::bit_cast<double>(bits);
    const auto want = std::bit_cast<std::uint16_t>(static_cast<_Float16>(x));
    ASSERT_EQ(to_float16(x).bits, want) << std::hexfloat << x;
  }
}
#endif

TEST(BFloat16, EveryBitPatternRoundTrips) {
  // bfloat16 is the top half of a float32.
  expect_every_pattern_round_trips<BFloat16>(is_nan_bf16, to_bfloat16, [](std::uint16_t bits, double d) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(d)), static_cast<std::uint32_t>(bits) << 16);
  });
}

// From gen_expected.py: RNE on float32 bits, cross-checked with exact rounding.
TEST(BFloat16, KnownValues) {
  EXPECT_EQ(to_bfloat16(1.0).bits, 0x3F80);
  EXPECT_EQ(to_bfloat16(1.0 + 0x1p-8).bits, 0x3F80);      // tie: to even (1.0)
  EXPECT_EQ(to_bfloat16(1.0 + 3 * 0x1p-8).bits, 0x3F82);  // tie: to even (1 + 2^-6)
  EXPECT_EQ(to_bfloat16(-0.5).bits, 0xBF00);
  EXPECT_EQ(to_bfloat16(std::bit_cast<float>(0x7F7F8000u)).bits, 0x7F80);  // tie above the max: inf
  EXPECT_EQ(to_bfloat16(std::bit_cast<float>(0x7F7FFFFFu)).bits, 0x7F80);  // FLT_MAX rounds to inf
  EXPECT_EQ(to_bfloat16(0x1p-133).bits, 0x0001);      // smallest subnormal
  EXPECT_EQ(to_bfloat16(0x1p-134).bits, 0x0000);      // half of it: tie to even
  EXPECT_EQ(to_bfloat16(3 * 0x1p-135).bits, 0x0001);
  EXPECT_EQ(to_bfloat16(static_cast<double>(0.1f)).bits, 0x3DCD);
  EXPECT_EQ(to_bfloat16(static_cast<double>(3.14159265358979f)).bits, 0x4049);
  // Not exactly float32: correct rounding straight from the double is above the tie
  // (rounding through float32 first would give the tie and 0x3F80).
  EXPECT_EQ(to_bfloat16(1.0 + 0x1p-8 + 0x1p-30).bits, 0x3F81);
  EXPECT_EQ(to_bfloat16(0.1).bits, 0x3DCD);
}

TEST(BFloat16, MatchesRneOnFloat32BitsForRandomFloats) {
  std::mt19937 rng(777);
  for (int i = 0; i < 200000; ++i) {
    auto b = static_cast<std::uint32_t>(rng());
    if (i % 4 == 1) b = (b & 0xFFFF0000u) | 0x8000u;  // exactly on a tie
    const float f = std::bit_cast<float>(b);
    if (std::isnan(f)) continue;
    ASSERT_EQ(to_bfloat16(static_cast<double>(f)).bits, bf16_rne_from_float(f)) << std::hex << b;
  }
}

// The bfloat16 add and sub of the reduction step work in float (reduce_step.hpp); they must
// round as the exact result rounded once does, here the double path (to_double, one step in
// double, to_bfloat16: the conversions the tests above check against NumPy and the float32
// bits). Every sign, exponent and edge of the fraction against each other, NaNs, infinities,
// zeros and subnormals included. A NaN result must be a NaN; its bits are not compared.
TEST(BFloat16, FloatStepsRoundAsTheDoublePath) {
  std::vector<std::uint16_t> values;
  for (std::uint16_t sign : {0, 0x8000}) {
    for (std::uint16_t exp = 0; exp <= 0xFF; ++exp) {
      for (std::uint16_t frac : {0x00, 0x01, 0x02, 0x3F, 0x40, 0x41, 0x55, 0x7E, 0x7F}) {
        values.push_back(static_cast<std::uint16_t>(sign | (exp << 7) | frac));
      }
    }
  }
  std::int64_t nans = 0;
  for (const auto r : {Reduction::add, Reduction::sub, Reduction::mean}) {
    for (const auto a : values) {
      for (const auto b : values) {
        const double x = to_double(BFloat16{a});
        const double y = to_double(BFloat16{b});
        const auto want = to_bfloat16(r == Reduction::sub ? x - y : x + y).bits;
        const auto got = detail::combine(r, BFloat16{a}, BFloat16{b}).bits;
        if (is_nan_bf16(want)) {
          ++nans;
          ASSERT_TRUE(is_nan_bf16(got)) << std::hex << a << " " << b;
        } else {
          ASSERT_EQ(got, want) << info_of(r).name << std::hex << " " << a << " " << b;
        }
      }
    }
  }
  EXPECT_GT(nans, 0);  // the specials were reached
}

TEST(BFloat16, SignsAndSpecials) {
  EXPECT_EQ(to_bfloat16(-0.0).bits, 0x8000);
  EXPECT_TRUE(std::signbit(to_double(BFloat16{0x8000})));
  EXPECT_EQ(to_bfloat16(-1e-300).bits, 0x8000);
  EXPECT_EQ(to_bfloat16(std::numeric_limits<double>::infinity()).bits, 0x7F80);
  EXPECT_EQ(to_bfloat16(-std::numeric_limits<double>::infinity()).bits, 0xFF80);
  EXPECT_EQ(to_bfloat16(1e300).bits, 0x7F80);
  EXPECT_TRUE(is_nan_bf16(to_bfloat16(std::numeric_limits<double>::quiet_NaN()).bits));
}

TEST(DType, NamesSizesAndKinds) {
  struct Row {
    DType dtype;
    const char* name;
    std::size_t size;
    bool is_float;
    bool is_integer;
  };
  const Row rows[] = {
      {DType::float64, "float64", 8, true, false},  {DType::float32, "float32", 4, true, false},
      {DType::float16, "float16", 2, true, false},  {DType::bfloat16, "bfloat16", 2, true, false},
      {DType::int64, "int64", 8, false, true},      {DType::int32, "int32", 4, false, true},
      {DType::int16, "int16", 2, false, true},      {DType::int8, "int8", 1, false, true},
      {DType::uint8, "uint8", 1, false, true},      {DType::boolean, "bool", 1, false, false},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(to_string(r.dtype), r.name);
    const auto parsed = parse_dtype(r.name);
    ASSERT_TRUE(parsed.has_value()) << r.name;
    EXPECT_EQ(*parsed, r.dtype) << r.name;
    EXPECT_EQ(size_of(r.dtype), r.size) << r.name;
    EXPECT_EQ(is_float(r.dtype), r.is_float) << r.name;
    EXPECT_EQ(is_integer(r.dtype), r.is_integer) << r.name;
  }
}

TEST(DType, UnknownNamesAreRejected) {
  for (const char* name : {"", "float", "Float32", "FLOAT32", "boolean", "int", "uint16", "half", "bf16", " int8"}) {
    EXPECT_FALSE(parse_dtype(name).has_value()) << '"' << name << '"';
  }
}

TEST(DType, MaxFinite) {
  EXPECT_EQ(max_finite(DType::float16), 65504.0);
  EXPECT_EQ(max_finite(DType::bfloat16), (2.0 - 0x1p-7) * 0x1p127);
  EXPECT_EQ(max_finite(DType::float32), static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(max_finite(DType::float64), std::numeric_limits<double>::max());
}

}  // namespace
}  // namespace scatter

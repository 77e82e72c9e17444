#include "scatter/dtype.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

namespace scatter {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 10> kNames{{
    {DType::float64, "float64"},
    {DType::float32, "float32"},
    {DType::float16, "float16"},
    {DType::bfloat16, "bfloat16"},
    {DType::int64, "int64"},
    {DType::int32, "int32"},
    {DType::int16, "int16"},
    {DType::int8, "int8"},
    {DType::uint8, "uint8"},
    {DType::boolean, "bool"},
}};

// Rounds a double to a binary format with kExp exponent bits and kMan fraction bits,
// nearest with ties to even, straight from the double's bits (no double rounding).
template <int kExp, int kMan>
std::uint16_t round_from_double(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 63) << (kExp + kMan));
  const int exp_all_ones = (1 << kExp) - 1;
  if (std::isnan(value)) {
    return static_cast<std::uint16_t>(sign | (exp_all_ones << kMan) | (1u << (kMan - 1)));
  }
  if (std::isinf(value)) return static_cast<std::uint16_t>(sign | (exp_all_ones << kMan));
  if (value == 0.0) return sign;

  const int bias = (1 << (kExp - 1)) - 1;
  const int min_normal_exp = 1 - bias;
  int exp = static_cast<int>((bits >> 52) & 0x7FF) - 1023;
  std::uint64_t sig = bits & ((std::uint64_t{1} << 52) - 1);
  if (exp == -1023) {
    // A double subnormal lies far below the smallest subnormal of either target.
    return sign;
  }
  sig |= std::uint64_t{1} << 52;  // 53 significant bits, value = sig * 2^(exp - 52)

  int shift = 52 - kMan;
  if (exp < min_normal_exp) shift += min_normal_exp - exp;  // subnormal in the target
  if (shift > 54) return sign;                               // below half the smallest subnormal

  std::uint64_t kept = sig >> shift;
  const std::uint64_t rest = sig & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;

  if (exp < min_normal_exp) {
    // Subnormal: the field is the rounded significand; rounding up to 2^kMan
    // lands exactly on the smallest normal's encoding.
    return static_cast<std::uint16_t>(sign | kept);
  }
  if (kept == (std::uint64_t{1} << (kMan + 1))) {
    kept >>= 1;
    ++exp;
  }
  const int field = exp + bias;
  if (field >= exp_all_ones) return static_cast<std::uint16_t>(sign | (exp_all_ones << kMan));
  return static_cast<std::uint16_t>(sign | (field << kMan) | (kept & ((std::uint64_t{1} << kMan) - 1)));
}

}  // namespace

std::string_view to_string(DType dtype) {
  for (const auto& [d, name] : kNames) {
    if (d == dtype) return name;
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& [d, n] : kNames) {
    if (n == name) return d;
  }
  return std::nullopt;
}

std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::float64:
    case DType::int64:
      return 8;
    case DType::float32:
    case DType::int32:
      return 4;
    case DType::float16:
    case DType::bfloat16:
    case DType::int16:
      return 2;
    case DType::int8:
    case DType::uint8:
    case DType::boolean:
      return 1;
  }
  return 1;
}

bool is_float(DType dtype) {
  return dtype == DType::float64 || dtype == DType::float32 || dtype == DType::float16 || dtype == DType::bfloat16;
}

bool is_integer(DType dtype) { return !is_float(dtype) && dtype != DType::boolean; }

double to_double(Float16 value) {
  const int sign = value.bits >> 15;
  const int exp = (value.bits >> 10) & 0x1F;
  const int frac = value.bits & 0x3FF;
  double magnitude = 0.0;
  if (exp == 0x1F) {
    magnitude = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    magnitude = std::ldexp(static_cast<double>(frac), -24);
  } else {
    magnitude = std::ldexp(static_cast<double>(frac | 0x400), exp - 25);
  }
  return sign ? -magnitude : magnitude;
}

double to_double(BFloat16 value) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(value.bits) << 16));
}

Float16 to_float16(double value) { return Float16{round_from_double<5, 10>(value)}; }

BFloat16 to_bfloat16(double value) { return BFloat16{round_from_double<8, 7>(value)}; }

double max_finite(DType dtype) {
  switch (dtype) {
    case DType::float64:
      return std::numeric_limits<double>::max();
    case DType::float32:
      return std::numeric_limits<float>::max();
    case DType::float16:
      return 65504.0;
    case DType::bfloat16:
      return to_double(BFloat16{0x7F7F});
    default:
      return 0.0;
  }
}

}  // namespace scatter

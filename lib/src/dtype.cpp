#include "scatter/dtype.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "float_bits.hpp"

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

double to_double(Float16 value) { return bits::half_bits_to_double(value.bits); }

double to_double(BFloat16 value) { return bits::bf16_bits_to_double(value.bits); }

Float16 to_float16(double value) { return Float16{bits::round_double_bits<5, 10>(value)}; }

BFloat16 to_bfloat16(double value) { return BFloat16{bits::round_double_bits<8, 7>(value)}; }

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

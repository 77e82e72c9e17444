#include "scatter/dtype.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "float_bits.hpp"

namespace scatter {

std::string_view to_string(DType dtype) { return info_of(dtype).name; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto d : kDTypes) {
    if (info_of(d).name == name) return d;
  }
  return std::nullopt;
}

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

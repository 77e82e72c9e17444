#pragma once
/// Element types of the case-format spec, and exact float16/bfloat16 conversions
/// (round to nearest, ties to even) that need no CUDA headers.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "scatter/vocabulary.hpp"

namespace scatter {

/// The spec's spelling ("bool" for DType::boolean).
std::string_view to_string(DType dtype);
/// Parses the spec's spelling; nullopt for an unknown name.
std::optional<DType> parse_dtype(std::string_view name);
/// Bytes per element.
constexpr std::size_t size_of(DType dtype) { return static_cast<std::size_t>(info_of(dtype).bytes); }

/// IEEE 754 binary16, stored as its bits.
struct Float16 {
  std::uint16_t bits = 0;
};
/// bfloat16 (the top half of a binary32), stored as its bits.
struct BFloat16 {
  std::uint16_t bits = 0;
};

/// Exact widening conversions.
double to_double(Float16 value);
double to_double(BFloat16 value);
/// Correctly rounded narrowing (nearest, ties to even; overflow gives infinity,
/// NaN stays NaN with its sign).
Float16 to_float16(double value);
BFloat16 to_bfloat16(double value);

/// The largest finite value of a float dtype (for range checks of inputs).
double max_finite(DType dtype);

}  // namespace scatter

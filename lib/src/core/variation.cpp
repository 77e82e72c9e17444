// Elements of a tensor as bit patterns, and the other values an input variation gives them
// (scatter/variation.hpp). Bits, not values: the same change whatever the dtype, exact,
// and what a worker in another language applies with one store.

#include "scatter/variation.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "scatter/error.hpp"

namespace scatter {
namespace {

// The significand bits of a float dtype; its exponent sits above them, its sign on top.
int significand_bits(DType dtype) {
  switch (dtype) {
    case DType::float64:
      return 52;
    case DType::float32:
      return 23;
    case DType::float16:
      return 10;
    default:  // bfloat16
      return 7;
  }
}

// How many of the lowest bits a change flips: a small part of the value, so that a float
// stays in its binade and an integer near its value.
int low_bits(DType dtype) {
  if (is_float(dtype)) return significand_bits(dtype) >= 23 ? 8 : significand_bits(dtype) / 2 + 1;
  return size_of(dtype) == 1 ? 3 : size_of(dtype) == 2 ? 4 : 8;
}

}  // namespace

std::uint64_t element_bits(const Tensor& t, std::int64_t at) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, t.bytes() + static_cast<std::size_t>(at) * size_of(t.dtype()), size_of(t.dtype()));
  return bits;
}

void set_element_bits(Tensor& t, std::int64_t at, std::uint64_t bits) {
  std::memcpy(t.bytes() + static_cast<std::size_t>(at) * size_of(t.dtype()), &bits, size_of(t.dtype()));
}

void apply_delta(Tensor& t, const ElementDelta& delta) {
  if (delta.at.size() != delta.bits.size()) {
    throw Error(ErrorCode::backend, "vary",
                fmt::format("{} positions but {} values", delta.at.size(), delta.bits.size()));
  }
  for (std::size_t k = 0; k < delta.at.size(); ++k) {
    if (delta.at[k] < 0 || delta.at[k] >= t.numel()) {
      throw Error(ErrorCode::backend, "vary",
                  fmt::format("position {} is outside a tensor of {} elements", delta.at[k], t.numel()));
    }
    set_element_bits(t, delta.at[k], delta.bits[k]);
  }
}

Case varied_copy(const Case& c, const InputVariation& v) {
  Case copy;
  copy.file = c.file;
  copy.name = c.name;
  copy.attrs = c.attrs;
  copy.data = c.data.clone();
  copy.indices = c.indices.clone();
  copy.updates = c.updates.clone();
  if (c.expected) copy.expected = c.expected->clone();
  copy.tolerance = c.tolerance;
  apply_delta(copy.data, v.data);
  apply_delta(copy.updates, v.updates);
  apply_delta(copy.indices, v.indices);
  return copy;
}

std::uint64_t another_value(DType dtype, std::uint64_t bits, std::uint64_t salt) {
  if (dtype == DType::boolean) return bits ^ 1u;
  const int low = low_bits(dtype);
  const std::uint64_t flip = 1 + salt % ((std::uint64_t{1} << low) - 1);  // never 0: the bits always change
  if (!is_float(dtype)) return bits ^ flip;
  const int m = significand_bits(dtype);
  const int width = static_cast<int>(size_of(dtype)) * 8;
  const std::uint64_t exponent_mask = ((std::uint64_t{1} << (width - 1 - m)) - 1) << m;
  const std::uint64_t sign = bits & (std::uint64_t{1} << (width - 1));
  const std::uint64_t exponent = bits & exponent_mask;
  if (exponent != 0 && exponent != exponent_mask) return bits ^ flip;  // normal: same binade
  // 1.0 has every exponent bit but the top one set; its low significand bits take the flip.
  const std::uint64_t one = exponent_mask & ~(std::uint64_t{1} << (width - 2));
  return sign | one | flip;
}

std::optional<std::uint64_t> times_power_of_two(DType dtype, std::uint64_t bits, int k) {
  if (!is_float(dtype)) return std::nullopt;
  const int m = significand_bits(dtype);
  const int width = static_cast<int>(size_of(dtype)) * 8;
  const std::uint64_t top = (std::uint64_t{1} << (width - 1 - m)) - 1;  // the exponent field of inf and NaN
  const std::uint64_t field = (bits >> m) & top;
  if (field == 0 || field == top) return std::nullopt;  // zero, subnormal, inf, NaN: no exact scaling
  const auto scaled = static_cast<std::int64_t>(field) + k;
  if (scaled <= 0 || scaled >= static_cast<std::int64_t>(top)) return std::nullopt;
  return (bits & ~(top << m)) | (static_cast<std::uint64_t>(scaled) << m);
}

double epsilon_bits(DType dtype) { return std::ldexp(1.0, -significand_bits(dtype)); }

}  // namespace scatter

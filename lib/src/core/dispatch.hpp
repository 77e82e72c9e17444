#pragma once
// The one runtime-dtype -> template switch, and what each element type needs to
// convert to and from double.

#include <cstdint>
#include <limits>
#include <type_traits>

#include "reduce_step.hpp"
#include "scatter/dtype.hpp"
#include "scatter/error.hpp"

namespace scatter::detail {

template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) with the storage type of dtype.
template <class F>
decltype(auto) dispatch(DType dtype, F&& f) {
  switch (dtype) {
    case DType::float64: return f(TypeTag<double>{});
    case DType::float32: return f(TypeTag<float>{});
    case DType::float16: return f(TypeTag<Float16>{});
    case DType::bfloat16: return f(TypeTag<BFloat16>{});
    case DType::int64: return f(TypeTag<std::int64_t>{});
    case DType::int32: return f(TypeTag<std::int32_t>{});
    case DType::int16: return f(TypeTag<std::int16_t>{});
    case DType::int8: return f(TypeTag<std::int8_t>{});
    case DType::uint8: return f(TypeTag<std::uint8_t>{});
    case DType::boolean: return f(TypeTag<Bool>{});
  }
  SCATTER_ASSERT(false && "unknown dtype");
}

/// Calls f(std::integral_constant<Reduction, R>{}) with the reduction as a constant.
template <class F>
decltype(auto) dispatch_reduction(Reduction r, F&& f) {
  switch (r) {
    case Reduction::none: return f(std::integral_constant<Reduction, Reduction::none>{});
    case Reduction::add: return f(std::integral_constant<Reduction, Reduction::add>{});
    case Reduction::sub: return f(std::integral_constant<Reduction, Reduction::sub>{});
    case Reduction::mul: return f(std::integral_constant<Reduction, Reduction::mul>{});
    case Reduction::min: return f(std::integral_constant<Reduction, Reduction::min>{});
    case Reduction::max: return f(std::integral_constant<Reduction, Reduction::max>{});
    case Reduction::mean: return f(std::integral_constant<Reduction, Reduction::mean>{});
  }
  SCATTER_ASSERT(false && "unknown reduction");
}

/// Calls f(TypeTag<I>{}) with the storage type of an index dtype (int32 or int64).
template <class F>
decltype(auto) dispatch_index(DType dtype, F&& f) {
  if (dtype == DType::int32) return f(TypeTag<std::int32_t>{});
  SCATTER_ASSERT(dtype == DType::int64 && "indices are int32 or int64");
  return f(TypeTag<std::int64_t>{});
}

template <class T>
inline constexpr bool kIsInt = std::is_integral_v<T>;

/// Widening to double (exact for every type).
template <class T>
double widen(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return to_double(v);
  } else if constexpr (std::is_same_v<T, Bool>) {
    return v.value ? 1.0 : 0.0;
  } else {
    return static_cast<double>(v);
  }
}

/// Rounds a double to a float type, nearest with ties to even.
template <class T>
T narrow_float(double v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return to_float16(v);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return to_bfloat16(v);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace scatter::detail

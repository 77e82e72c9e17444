// Numbers from case files into typed elements: exact integers, correctly rounded
// floats, and a `values` error naming the element for anything that does not fit.

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "detail.hpp"

namespace scatter::detail {
namespace {

using nlohmann::json;

std::string describe(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::integer:
      return fmt::format("{}", s.integer);
    case Scalar::Kind::boolean:
      return s.boolean ? "true" : "false";
    case Scalar::Kind::real:
      if (std::isnan(s.real)) return "nan";
      if (std::isinf(s.real)) return s.real > 0 ? "inf" : "-inf";
      return fmt::format("{}", s.real);
  }
  return "?";
}

// The integer a scalar denotes, for integer dtypes.
std::int64_t integral_value(const Scalar& s, DType dtype, const std::string& field) {
  if (s.kind == Scalar::Kind::integer) return s.integer;
  if (s.kind == Scalar::Kind::boolean) {
    throw Error(ErrorCode::values, field, fmt::format("= {} is not a number of dtype {}", describe(s), to_string(dtype)));
  }
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  if (!std::isfinite(s.real) || std::floor(s.real) != s.real) {
    throw Error(ErrorCode::values, field,
                fmt::format("= {} is not an integer, as dtype {} needs", describe(s), to_string(dtype)));
  }
  if (std::fabs(s.real) >= 9223372036854775808.0) {
    throw Error(ErrorCode::values, field, fmt::format("= {} is out of range for dtype {}", describe(s), to_string(dtype)));
  }
  // 2^53 itself too: 9007199254740993.0 reads as 2^53, so a float there may not be what was written.
  if (std::fabs(s.real) >= kExactLimit) {
    throw Error(ErrorCode::values, field,
                fmt::format("= {} is 2^53 or beyond, written as a float (not exact); write it as an integer",
                            describe(s)));
  }
  return static_cast<std::int64_t>(s.real);
}

template <class T>
void store_int(const Scalar& s, Tensor& out, std::int64_t offset, const std::string& field) {
  const auto v = integral_value(s, out.dtype(), field);
  constexpr auto lo = static_cast<std::int64_t>(std::numeric_limits<T>::lowest());
  constexpr auto hi = static_cast<std::int64_t>(std::numeric_limits<T>::max());
  if (v < lo || v > hi) {
    throw Error(ErrorCode::values, field,
                fmt::format("= {} is out of range [{}, {}] for dtype {}", v, lo, hi, to_string(out.dtype())));
  }
  out.data<T>()[offset] = static_cast<T>(v);
}

template <class T>
void store_float(const Scalar& s, Tensor& out, std::int64_t offset, const std::string& field) {
  if (s.kind == Scalar::Kind::boolean) {
    throw Error(ErrorCode::values, field,
                fmt::format("= {} is not a number of dtype {}", describe(s), to_string(out.dtype())));
  }
  const double v = s.as_double();
  const T stored = narrow_float<T>(v);
  if (std::isinf(widen(stored)) && std::isfinite(v)) {
    throw Error(ErrorCode::values, field,
                fmt::format("= {} overflows dtype {} (largest finite {})", describe(s), to_string(out.dtype()),
                            max_finite(out.dtype())));
  }
  out.data<T>()[offset] = stored;
}

void store_bool(const Scalar& s, Tensor& out, std::int64_t offset, const std::string& field) {
  bool b = false;
  if (s.kind == Scalar::Kind::boolean) {
    b = s.boolean;
  } else if (s.kind == Scalar::Kind::integer && (s.integer == 0 || s.integer == 1)) {
    b = s.integer == 1;
  } else if (s.kind == Scalar::Kind::real && (s.real == 0.0 || s.real == 1.0)) {
    b = s.real == 1.0;
  } else {
    throw Error(ErrorCode::values, field, fmt::format("= {} is not a bool (true, false, 0 or 1)", describe(s)));
  }
  out.data<Bool>()[offset].value = b ? 1 : 0;
}

// Walks nested arrays that must match `shape` exactly, storing leaves in row-major order.
// "values[1,0]": the element or sub-array at a nested position.
std::string nested_field(const std::vector<std::int64_t>& path) {
  return path.empty() ? "values" : "values" + format_coord(path);
}

void store_nested(const json& node, const Shape& shape, std::size_t dim, Tensor& out, std::int64_t& next,
                  std::vector<std::int64_t>& path) {
  if (dim == shape.size()) {
    store_scalar(parse_scalar(node, nested_field(path)), out, next++, nested_field(path));
    return;
  }
  if (!node.is_array()) {
    throw Error(ErrorCode::values, nested_field(path),
                fmt::format("expected an array of {} elements for shape[{}] = {}, got {}", shape[dim], dim, shape[dim],
                            node.type_name()));
  }
  if (static_cast<std::int64_t>(node.size()) != shape[dim]) {
    throw Error(ErrorCode::values, nested_field(path),
                fmt::format("has {} elements, shape[{}] = {} needs {}", node.size(), dim, shape[dim], shape[dim]));
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    path.push_back(static_cast<std::int64_t>(i));
    store_nested(node[i], shape, dim + 1, out, next, path);
    path.pop_back();
  }
}

bool is_flat(const json& values) {
  for (const auto& v : values) {
    if (v.is_array()) return false;
  }
  return true;
}

}  // namespace

std::string excerpt(const json& value) {
  constexpr std::size_t kMax = 60;
  auto text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= kMax) return text;
  auto cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return fmt::format("{}... ({} characters)", text.substr(0, cut), text.size());
}

Scalar parse_scalar(const json& value, const std::string& field) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      throw Error(ErrorCode::values, field,
                  fmt::format("= {} is beyond the int64 range", value.get<std::uint64_t>()));
    }
    return Scalar::of(value.get<std::int64_t>());
  }
  if (value.is_number_float()) return Scalar::of_real(value.get<double>());
  if (value.is_boolean()) return Scalar{Scalar::Kind::boolean, 0, 0.0, value.get<bool>()};
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == "nan") return Scalar::of_real(std::numeric_limits<double>::quiet_NaN());
    if (s == "inf") return Scalar::of_real(std::numeric_limits<double>::infinity());
    if (s == "-inf") return Scalar::of_real(-std::numeric_limits<double>::infinity());
    throw Error(ErrorCode::values, field, fmt::format("= {} is not a number (strings may be \"nan\", \"inf\", \"-inf\")", excerpt(value)));
  }
  throw Error(ErrorCode::values, field, fmt::format("= {} is not a number", excerpt(value)));
}

void store_scalar(const Scalar& value, Tensor& out, std::int64_t offset, const std::string& field) {
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Bool>) {
      store_bool(value, out, offset, field);
    } else if constexpr (kIsFloat<T>) {
      store_float<T>(value, out, offset, field);
    } else {
      store_int<T>(value, out, offset, field);
    }
  });
}

std::shared_ptr<const Tensor> parse_values(const json& values, DType dtype, const Shape& shape) {
  const auto n = numel(shape);
  // Count before allocating: a huge shape with a few values is an error, not an allocation.
  if (!values.is_array()) {
    if (!shape.empty()) {
      throw Error(ErrorCode::values, "values",
                  fmt::format("= {} is a single value, but shape {} needs an array of {} (a bare value is for shape [])",
                              excerpt(values), format_shape(shape), n));
    }
    auto t = std::make_shared<Tensor>(dtype, shape);
    store_scalar(parse_scalar(values, "values"), *t, 0, "values");
    return t;
  }
  if (is_flat(values) && (static_cast<std::int64_t>(values.size()) == n || shape.size() <= 1)) {
    if (shape.empty() && values.size() != 1) {
      throw Error(ErrorCode::values, "values", fmt::format("has {} elements but shape [] is a scalar", values.size()));
    }
    if (static_cast<std::int64_t>(values.size()) != n) {
      throw Error(ErrorCode::values, "values",
                  fmt::format("has {} elements, shape {} needs {}", values.size(), format_shape(shape), n));
    }
    auto t = std::make_shared<Tensor>(dtype, shape);
    for (std::int64_t i = 0; i < n; ++i) {
      try {
        store_scalar(parse_scalar(values[static_cast<std::size_t>(i)], ""), *t, i, "");
      } catch (const Error& e) {  // name the element only when it is at fault
        throw Error(e.code(), fmt::format("values[{}]", i), e.detail());
      }
    }
    return t;
  }
  if (shape.empty()) {
    throw Error(ErrorCode::values, "values", "is an array but shape [] is a scalar: write one number");
  }
  // Nested: the first dimension's count is checked before allocating.
  if (static_cast<std::int64_t>(values.size()) != shape[0]) {
    throw Error(ErrorCode::values, "values",
                fmt::format("has {} elements, shape[0] = {} needs {} (or a flat array of {})", values.size(), shape[0],
                            shape[0], n));
  }
  auto t = std::make_shared<Tensor>(dtype, shape);
  std::int64_t next = 0;
  std::vector<std::int64_t> path;
  store_nested(values, shape, 0, *t, next, path);
  return t;
}

}  // namespace scatter::detail

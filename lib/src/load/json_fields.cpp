// Typed reads of JSON fields for the loaders (case files, capabilities): each names
// the field and what it got when the value has the wrong type.

#include "json_fields.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scatter/suggest.hpp"

namespace scatter::detail {

using nlohmann::json;

// Unknown keys are errors; a near miss gets a suggestion.
void check_keys(const json& obj, std::initializer_list<std::string_view> allowed, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto near = closest(key, std::vector<std::string_view>(allowed));
    const auto hint = near ? fmt::format(" (did you mean '{}'?)", *near) : std::string();
    const auto shown = key.size() > 60 ? fmt::format("{}... ({} characters)", key.substr(0, 60), key.size()) : key;
    throw Error(ErrorCode::schema, where,
                fmt::format("unknown key '{}'{}; allowed: {}", shown, hint, fmt::join(allowed, ", ")));
  }
}

std::string join_field(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

const json& require(const json& obj, std::string_view key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw Error(ErrorCode::schema, where, fmt::format("missing key '{}'", key));
  return *it;
}

std::string get_string(const json& v, const std::string& field) {
  if (!v.is_string()) throw Error(ErrorCode::schema, field, fmt::format("must be a string, got {}", v.type_name()));
  return v.get<std::string>();
}

std::int64_t get_int(const json& v, const std::string& field) {
  // Integers past int64 arrive as uint64 (above) or as a float (below -2^63).
  const bool too_large = (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
                         (v.is_number_float() && std::fabs(v.get<double>()) >= 9223372036854775808.0);
  if (too_large) {
    throw Error(ErrorCode::schema, field, fmt::format("= {} is beyond the 64-bit integers [-2^63, 2^63 - 1]", excerpt(v)));
  }
  if (!v.is_number_integer()) throw Error(ErrorCode::schema, field, fmt::format("must be an integer, got {}", excerpt(v)));
  return v.get<std::int64_t>();
}

bool get_bool(const json& v, const std::string& field) {
  if (!v.is_boolean()) throw Error(ErrorCode::schema, field, fmt::format("must be true or false, got {}", excerpt(v)));
  return v.get<bool>();
}

double get_number(const json& v, const std::string& field) {
  if (!v.is_number()) throw Error(ErrorCode::schema, field, fmt::format("must be a number, got {}", excerpt(v)));
  return v.get<double>();
}

void check_format(const json& obj, const std::string& where) {
  if (const auto it = obj.find("format"); it != obj.end() && (!it->is_number_integer() || *it != 1)) {
    throw Error(ErrorCode::schema, join_field(where, "format"), fmt::format("= {}; only format 1 exists", excerpt(*it)));
  }
}

Shape parse_shape(const json& v, const std::string& field) {
  if (!v.is_array()) throw Error(ErrorCode::schema, field, fmt::format("must be an array of integers, got {}", v.type_name()));
  if (v.size() > kMaxRank) {
    throw Error(ErrorCode::shape, field, fmt::format("has rank {}; the most supported is {}", v.size(), kMaxRank));
  }
  Shape shape;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto d = get_int(v[i], fmt::format("{}[{}]", field, i));
    if (d < 0) throw Error(ErrorCode::shape, fmt::format("{}[{}]", field, i), fmt::format("= {} is negative", d));
    shape.push_back(d);
  }
  return shape;
}

std::uint64_t parse_seed(const json& v, const std::string& field) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
    throw Error(ErrorCode::schema, field, fmt::format("must be an integer in [0, 2^64), got {}", excerpt(v)));
  }
  return v.get<std::uint64_t>();
}


}  // namespace scatter::detail

#pragma once
// Typed reads of JSON fields: each throws Error naming the field (schema, or shape for
// a negative dimension) when the value is not what the format says.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "detail.hpp"
#include "scatter/units.hpp"

namespace scatter::detail {

/// Unknown keys are errors; a near miss gets a suggestion.
void check_keys(const nlohmann::json& obj, std::initializer_list<std::string_view> allowed, const std::string& where);
/// "parent.key", or "key" at the top level.
std::string join_field(const std::string& parent, std::string_view key);
const nlohmann::json& require(const nlohmann::json& obj, std::string_view key, const std::string& where);
std::string get_string(const nlohmann::json& v, const std::string& field);
std::int64_t get_int(const nlohmann::json& v, const std::string& field);
bool get_bool(const nlohmann::json& v, const std::string& field);
double get_number(const nlohmann::json& v, const std::string& field);
/// An optional "format" key: only 1 exists.
void check_format(const nlohmann::json& obj, const std::string& where);
/// A shape: non-negative integers, rank at most kMaxRank.
Shape parse_shape(const nlohmann::json& v, const std::string& field);
/// A generator seed: an integer in [0, 2^64).
std::uint64_t parse_seed(const nlohmann::json& v, const std::string& field);

}  // namespace scatter::detail

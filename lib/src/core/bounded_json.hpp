#pragma once
// The one way JSON from outside comes in (docs/reliability.md, "One door in"): case files,
// reports, expectations, journals, capabilities, and the answers of workers and boxes are each
// read through here, bounded in depth before the parser sees them, so that no value from outside
// is ever built, copied, printed or destroyed by recursion deeper than these limits.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace scatter::detail {

/// How deep a document scatterctl reads may nest: what it writes needs 8.
inline constexpr int kMaxJsonDepth = 64;
/// A case file: values of rank 64 inside a case list need about 70 levels.
inline constexpr int kCaseFileDepth = 256;

/// Where `text` first nests deeper than `max_depth` ("nesting deeper than 64 levels at line 1,
/// column 70"); nullopt when it does not. Strings are skipped as JSON spells them.
std::optional<std::string> too_deep(std::string_view text, int max_depth);

/// `text` parsed, or Error(json) naming `what`: too deep (where), not JSON (the byte), cut short.
nlohmann::json parse_bounded(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);
nlohmann::ordered_json parse_bounded_ordered(std::string_view text, const std::string& what,
                                             int max_depth = kMaxJsonDepth);

/// One answer line of a worker or a box: a JSON object within kMaxJsonDepth, else nullopt.
std::optional<nlohmann::json> parse_answer(std::string_view line);

/// A value for a message: a string cut to `shown` characters, a container as its size, never the
/// whole of something from outside.
template <class Json>
std::string preview(const Json& value, std::size_t shown = 120) {
  const auto plural = [](std::size_t n) { return n == 1 ? "" : "s"; };
  if (value.is_array()) return "an array of " + std::to_string(value.size()) + " element" + plural(value.size());
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " member" + plural(value.size());
  if (value.is_string()) {
    const auto& text = value.template get_ref<const std::string&>();
    if (text.size() <= shown) return value.dump(-1, ' ', false, Json::error_handler_t::replace);
    return Json(text.substr(0, shown)).dump(-1, ' ', false, Json::error_handler_t::replace) + " (" +
           std::to_string(text.size()) + " characters in all)";
  }
  return value.dump();
}

}  // namespace scatter::detail

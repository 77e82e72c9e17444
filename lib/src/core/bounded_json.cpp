// Bounded JSON reading (bounded_json.hpp).

#include "core/bounded_json.hpp"

#include <fmt/format.h>

#include "scatter/error.hpp"

namespace scatter::detail {
namespace {

template <class Json>
Json parse_checked(std::string_view text, const std::string& what, int max_depth) {
  if (const auto where = too_deep(text, max_depth)) {
    throw Error(ErrorCode::json, "", fmt::format("{}: {}", what, *where));
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    if (e.byte >= text.size()) {
      throw Error(ErrorCode::json, "",
                  fmt::format("{} is not valid JSON (cut short?): its {} bytes end inside a value", what, text.size()));
    }
    throw Error(ErrorCode::json, "",
                fmt::format("{} is not valid JSON: unexpected text at byte {} of {}", what, e.byte, text.size()));
  } catch (const nlohmann::json::exception&) {
    // out_of_range 406: a number past a double's range (1e400, an integer of 309 digits). Its
    // own message would quote the number, whatever its length.
    throw Error(ErrorCode::json, "", fmt::format("{} holds a number past a double's range (such as 1e400)", what));
  }
}

}  // namespace

std::optional<std::string> too_deep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  std::size_t line = 1;
  std::size_t column = 0;
  for (const char ch : text) {
    ++column;
    if (ch == '\n') {
      ++line;
      column = 0;
    }
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) {
        return fmt::format("nesting deeper than {} levels at line {}, column {}", max_depth, line, column);
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

nlohmann::json parse_bounded(std::string_view text, const std::string& what, int max_depth) {
  return parse_checked<nlohmann::json>(text, what, max_depth);
}

nlohmann::ordered_json parse_bounded_ordered(std::string_view text, const std::string& what, int max_depth) {
  return parse_checked<nlohmann::ordered_json>(text, what, max_depth);
}

std::optional<nlohmann::json> parse_answer(std::string_view line) {
  if (too_deep(line, kMaxJsonDepth)) return std::nullopt;
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a number past a double's range: not an answer
  }
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

}  // namespace scatter::detail

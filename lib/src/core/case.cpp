#include "scatter/case.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace scatter {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Whether `key` is the canonical name or one of the (possibly empty) alias slots.
template <std::size_t N>
bool answers_to(std::string_view key, std::string_view name, const std::string_view (&aliases)[N]) {
  if (key == name) return true;
  for (const auto alias : aliases) {
    if (!alias.empty() && alias == key) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(Op op) { return op_names(op).name; }

std::string_view to_string(Reduction reduction) { return info_of(reduction).name; }

std::optional<Op> parse_op(std::string_view name) {
  const auto key = lower(name);
  for (const auto op : kOps) {
    const auto names = op_names(op);
    if (answers_to(key, names.name, names.aliases)) return op;
  }
  return std::nullopt;
}

std::string allowed_reductions(Op op) {
  std::string names;
  for (const auto r : kReductions) {
    if (!op_allows(op, r)) continue;
    if (!names.empty()) names += ", ";
    names += to_string(r);
  }
  return names;
}

// Reduction names are exact (the spec makes only op aliases case-insensitive).
std::optional<Reduction> parse_reduction(std::string_view name) {
  for (const auto r : kReductions) {
    const auto info = info_of(r);
    if (answers_to(name, info.name, info.aliases)) return r;
  }
  return std::nullopt;
}

double Scalar::as_double() const {
  switch (kind) {
    case Kind::integer:
      return static_cast<double>(integer);
    case Kind::real:
      return real;
    case Kind::boolean:
      return boolean ? 1.0 : 0.0;
  }
  return 0.0;
}

}  // namespace scatter

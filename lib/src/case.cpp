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

}  // namespace

std::string_view to_string(Op op) { return op_names(op).name; }

std::string_view to_string(Reduction reduction) { return info_of(reduction).name; }

std::optional<Op> parse_op(std::string_view name) {
  const auto key = lower(name);
  for (const auto op : kOps) {
    const auto names = op_names(op);
    if (names.name == key) return op;
    for (const auto alias : names.aliases) {
      if (!alias.empty() && alias == key) return op;
    }
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
    if (info.name == name) return r;
    for (const auto alias : info.aliases) {
      if (!alias.empty() && alias == name) return r;
    }
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

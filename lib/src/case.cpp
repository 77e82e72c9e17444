#include "scatter/case.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace scatter {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

constexpr std::array<std::pair<std::string_view, Op>, 9> kOpNames{{
    {"scatter_elements", Op::scatter_elements},
    {"scatterelements", Op::scatter_elements},
    {"scatter", Op::scatter_elements},
    {"scatterelementsupdate", Op::scatter_elements},
    {"scatter_nd", Op::scatter_nd},
    {"scatternd", Op::scatter_nd},
    {"scatterndupdate", Op::scatter_nd},
    {"scatter_update", Op::scatter_update},
    {"scatterupdate", Op::scatter_update},
}};

constexpr std::array<std::pair<std::string_view, Reduction>, 10> kReductionNames{{
    {"none", Reduction::none},
    {"add", Reduction::add},
    {"sum", Reduction::add},
    {"sub", Reduction::sub},
    {"mul", Reduction::mul},
    {"prod", Reduction::mul},
    {"multiply", Reduction::mul},
    {"min", Reduction::min},
    {"max", Reduction::max},
    {"mean", Reduction::mean},
}};

}  // namespace

std::string_view to_string(Op op) {
  switch (op) {
    case Op::scatter_elements:
      return "scatter_elements";
    case Op::scatter_nd:
      return "scatter_nd";
    case Op::scatter_update:
      return "scatter_update";
  }
  return "unknown";
}

std::string_view to_string(Reduction reduction) {
  switch (reduction) {
    case Reduction::none:
      return "none";
    case Reduction::add:
      return "add";
    case Reduction::sub:
      return "sub";
    case Reduction::mul:
      return "mul";
    case Reduction::min:
      return "min";
    case Reduction::max:
      return "max";
    case Reduction::mean:
      return "mean";
  }
  return "unknown";
}

std::optional<Op> parse_op(std::string_view name) {
  const auto key = lower(name);
  for (const auto& [n, op] : kOpNames) {
    if (n == key) return op;
  }
  return std::nullopt;
}

// Reduction names are exact (the spec makes only op aliases case-insensitive).
std::optional<Reduction> parse_reduction(std::string_view name) {
  for (const auto& [n, r] : kReductionNames) {
    if (n == name) return r;
  }
  return std::nullopt;
}

// The spec's table of reductions: sub only for scatter_nd, mean only for
// scatter_elements, scatter_update only none.
bool op_allows(Op op, Reduction reduction) {
  switch (op) {
    case Op::scatter_elements:
      return reduction != Reduction::sub;
    case Op::scatter_nd:
      return reduction != Reduction::mean;
    case Op::scatter_update:
      return reduction == Reduction::none;
  }
  return false;
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

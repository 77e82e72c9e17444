#include "scatter/error.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace scatter {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 13> kCodes{{
    {ErrorCode::io, "io"},
    {ErrorCode::json, "json"},
    {ErrorCode::schema, "schema"},
    {ErrorCode::dtype, "dtype"},
    {ErrorCode::values, "values"},
    {ErrorCode::op, "op"},
    {ErrorCode::axis, "axis"},
    {ErrorCode::shape, "shape"},
    {ErrorCode::index, "index"},
    {ErrorCode::too_large, "too_large"},
    {ErrorCode::backend, "backend"},
    {ErrorCode::timeout, "timeout"},
    {ErrorCode::interrupted, "interrupted"},
}};

}  // namespace

std::string_view to_string(ErrorCode code) {
  for (const auto& [c, name] : kCodes) {
    if (c == code) return name;
  }
  return "unknown";
}

bool parse_error_code(std::string_view text, ErrorCode& code) {
  for (const auto& [c, name] : kCodes) {
    // backend, timeout and interrupted are ours, not case-file codes.
    if (name == text && c != ErrorCode::backend && c != ErrorCode::timeout && c != ErrorCode::interrupted) {
      code = c;
      return true;
    }
  }
  return false;
}

Error::Error(ErrorCode code, std::string field, std::string detail)
    : std::runtime_error(""), code_(code), field_(std::move(field)), detail_(std::move(detail)) {
  refresh();
}

Error& Error::at(std::string file, std::string case_name) {
  if (file_.empty()) file_ = std::move(file);
  if (case_.empty()) case_ = std::move(case_name);
  return *this;
}

Error& Error::within(std::string_view parent) {
  if (parent.empty()) return *this;
  if (field_.empty()) {
    field_ = std::string(parent);
  } else if (field_.front() == '[') {
    field_ = std::string(parent) + field_;
  } else {
    field_ = std::string(parent) + "." + field_;
  }
  refresh();
  return *this;
}

// "inputs.indices[1,0] = 7 is out of range" reads as one sentence; other details
// follow their field after a colon.
void Error::refresh() {
  if (field_.empty()) {
    message_ = detail_;
  } else if (!detail_.empty() && detail_.front() == '=') {
    message_ = field_ + " " + detail_;
  } else {
    message_ = field_ + ": " + detail_;
  }
  static_cast<std::runtime_error&>(*this) = std::runtime_error(message_);
}

void assert_fail(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "scatterctl: internal error: %s:%d: assertion failed: %s\n", file, line, expr);
  std::abort();
}

}  // namespace scatter

#include "scatter/error.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace scatter {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 13> kCodes{{
    {ErrorCode::io, "io"}, {ErrorCode::json, "json"}, {ErrorCode::schema, "schema"}, {ErrorCode::dtype, "dtype"},
    {ErrorCode::values, "values"}, {ErrorCode::op, "op"}, {ErrorCode::axis, "axis"}, {ErrorCode::shape, "shape"},
    {ErrorCode::index, "index"}, {ErrorCode::too_large, "too_large"}, {ErrorCode::backend, "backend"},
    {ErrorCode::timeout, "timeout"}, {ErrorCode::interrupted, "interrupted"},
}};

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 when there is none.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const auto lead = at(0);
  const auto left = text.size() - i;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return left >= 2 && is_continuation(at(1)) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (left < 3 || !is_continuation(at(1)) || !is_continuation(at(2))) return 0;
    if (lead == 0xE0 && at(1) < 0xA0) return 0;   // overlong
    if (lead == 0xED && at(1) > 0x9F) return 0;   // UTF-16 surrogates
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (left < 4 || !is_continuation(at(1)) || !is_continuation(at(2)) || !is_continuation(at(3))) return 0;
    if (lead == 0xF0 && at(1) < 0x90) return 0;   // overlong
    if (lead == 0xF4 && at(1) > 0x8F) return 0;   // past U+10FFFF
    return 4;
  }
  return 0;  // a continuation byte without a lead, C0, C1, F5..FF
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::string printable_text(std::string_view text) {
  std::string out;
  std::size_t done = 0;  // text[0, done) is copied into out (once something changed)
  bool changed = false;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const auto n = sequence_length(text, i);
    std::string escape;
    if (n == 0 || (n == 1 && ((byte < 0x20 && byte != '\t' && byte != '\n') || byte == 0x7F))) {
      escape = {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
    } else if (n == 2 && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);  // U+0080..U+009F
      escape = {'\\', 'u', '0', '0', kHex[c1 >> 4], kHex[c1 & 0xF]};
    } else if (n == 3 && text.substr(i, 2) == "\xEF\xBF" && static_cast<unsigned char>(text[i + 2]) >= 0xBE) {
      escape = static_cast<unsigned char>(text[i + 2]) == 0xBE ? "\\uFFFE" : "\\uFFFF";
    }
    const auto length = n == 0 ? 1 : n;
    if (!escape.empty()) {
      if (!changed) {
        out.reserve(text.size() + 16);
        changed = true;
      }
      out.append(text.substr(done, i - done));
      out += escape;
      done = i + length;
    }
    i += length;
  }
  if (!changed) return std::string(text);
  out.append(text.substr(done));
  return out;
}

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
    : std::runtime_error(""), code_(code), field_(printable_text(field)), detail_(printable_text(detail)) {
  refresh();
}

Error& Error::at(std::string file, std::string case_name) {
  if (file_.empty()) file_ = printable_text(file);
  if (case_.empty()) case_ = printable_text(case_name);
  return *this;
}

Error& Error::within(std::string_view raw_parent) {
  if (raw_parent.empty()) return *this;
  const auto parent = printable_text(raw_parent);
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

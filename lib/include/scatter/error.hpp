#pragma once
/// Errors: one structured type carrying a code from the case-format spec, the file,
/// the case and the field at fault. Lower layers fill field and message; the loader
/// adds file and case on the way up.

#include <stdexcept>
#include <string>
#include <string_view>

namespace scatter {

/// The error codes of the case-format spec ("Error codes").
/// The first ten are the spec's; the last three are scatterctl's own (a backend
/// failure, a case over --timeout, an interrupted run) and no case can expect them.
enum class ErrorCode { io, json, schema, dtype, values, op, axis, shape, index, too_large, backend, timeout, interrupted };

/// The spec's spelling of a code ("too_large", ...).
std::string_view to_string(ErrorCode code);

/// Parses a spec spelling; returns false for an unknown one.
bool parse_error_code(std::string_view text, ErrorCode& code);

/// `text` made fit for every report and terminal: valid UTF-8 without control
/// characters. A byte that is not part of a well-formed UTF-8 sequence becomes \xNN,
/// as do the C0 controls (but tab and newline) and DEL; the C1 controls and the
/// non-characters U+FFFE and U+FFFF become \uNNNN. Text that needs none of this comes
/// back unchanged, so applying it twice changes nothing.
std::string printable_text(std::string_view text);

/// A user's mistake or an environment failure, never a broken invariant. Its file,
/// case, field and detail quote case files and backends, so they are kept as
/// printable_text.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string field, std::string detail);

  ErrorCode code() const { return code_; }
  const std::string& field() const { return field_; }
  /// What is wrong with the field, e.g. "= 7 is out of range [-4, 3] ...".
  const std::string& detail() const { return detail_; }
  /// The sentence naming field and values, without file and case:
  /// "inputs.indices[1,0] = 7 is out of range ..." or "inputs.data.shape: ...".
  const std::string& message() const { return message_; }
  const std::string& file() const { return file_; }
  const std::string& case_name() const { return case_; }

  /// Adds where the error happened; keeps what is already set.
  Error& at(std::string file, std::string case_name);
  /// Prefixes the field path (e.g. "inputs.data" before "values[2]").
  Error& within(std::string_view parent);

 private:
  void refresh();

  ErrorCode code_;
  std::string field_;
  std::string detail_;
  std::string message_;
  std::string file_;
  std::string case_;
};

/// Broken invariant: names file and line, never a user's mistake.
[[noreturn]] void assert_fail(const char* expr, const char* file, int line);

}  // namespace scatter

#define SCATTER_ASSERT(expr) \
  ((expr) ? static_cast<void>(0) : ::scatter::assert_fail(#expr, __FILE__, __LINE__))

#pragma once
// Results, errors, comparisons and contexts as JSON, both ways: the JSON report writes them,
// and the journal (journal.cpp) writes and reads them back, so a recovered report says what
// the finished run's would have said.

#include <string>

#include <nlohmann/json.hpp>

#include "scatter/report.hpp"

namespace scatter::detail {

using nlohmann::ordered_json;

ordered_json to_json(const Error& error);
ordered_json to_json(const Comparison& comparison);
ordered_json to_json(const CaseResult& result);
ordered_json to_json(const RunContext& context);

// Each throws Error(json) naming the field when the text is not what to_json wrote.
Error error_from_json(const ordered_json& j);
Comparison comparison_from_json(const ordered_json& j);
CaseResult result_from_json(const ordered_json& j);
RunContext context_from_json(const ordered_json& j);

/// How deep a report, a journal line or an expectations file may nest (a report nests 6 deep):
/// deeper is not one of them, and would only make every later step recurse.
inline constexpr int kMaxJsonDepth = 64;

/// `text` parsed as JSON, nested at most kMaxJsonDepth deep. Throws Error(json) naming `what`:
/// where the text is not JSON, at which byte, and "cut short?" where it ends inside a value.
ordered_json parse_json(const std::string& text, const std::string& what);

/// A value in an error message, bounded whatever it holds: an array or object by its size, a
/// string by its first 120 characters, anything else as it is.
std::string preview(const ordered_json& value);

// "passed", "failed", "error", ...: an invalid case that failed is an "error" (it never ran to
// a verdict).
std::string status_text(const CaseResult& result);

}  // namespace scatter::detail

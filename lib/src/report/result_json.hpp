#pragma once
// Results, errors, comparisons and contexts as JSON, both ways: the JSON report writes them,
// and the journal (journal.cpp) writes and reads them back, so a recovered report says what
// the finished run's would have said.

#include <string>

#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
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

/// `text` parsed as JSON through the one bounded reader (core/bounded_json.hpp), nested at most
/// kMaxJsonDepth deep (a report nests 6). Throws Error(json) naming `what`:
/// where the text is not JSON, at which byte, and "cut short?" where it ends inside a value.
ordered_json parse_json(const std::string& text, const std::string& what);


// "passed", "failed", "error", ...: an invalid case that failed is an "error" (it never ran to
// a verdict).
std::string status_text(const CaseResult& result);

}  // namespace scatter::detail

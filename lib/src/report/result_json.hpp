#pragma once
// Results, errors, comparisons and contexts as JSON, both ways: the JSON report writes them,
// and the journal (journal.cpp) writes and reads them back, so a recovered report says what
// the finished run's would have said.

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

// "passed", "failed", "error", ...: an invalid case that failed is an "error" (it never ran to
// a verdict).
std::string status_text(const CaseResult& result);

}  // namespace scatter::detail

#pragma once
// Plain-text pieces every reporter shares, so the table, JUnit and Markdown say the
// same thing in the same words.

#include <string>

#include "scatter/run.hpp"

namespace scatter::detail {

/// One line: the worst error and where ("exact vs expected", "3 of 12 differ; ...").
std::string worst_text(const CaseResult& r);

/// The failure report, several lines, each indented by `indent`: how many elements
/// differ, the rule and the tolerance that would have passed, the worst elements with
/// expected, actual and the updates targeting them.
std::string comparison_text(const Comparison& c, const std::string& indent);

/// "1.23 ms".
std::string time_text(double seconds);

/// XML text and attribute escaping.
std::string xml_escape(const std::string& text);

}  // namespace scatter::detail

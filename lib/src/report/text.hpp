#pragma once
// Plain-text pieces every reporter shares, so the table, JUnit and Markdown say the
// same thing in the same words.

#include <string>

#include "scatter/report.hpp"
#include "scatter/run.hpp"

namespace scatter::detail {

/// One line: the worst error and where ("exact vs expected", "3 of 12 differ; ...").
std::string worst_text(const CaseResult& r);
/// Whether a result is a wrong output, which the catalogue of known bugs tried to name.
bool diagnosed(const CaseResult& r);
/// "cause: NAME: what the kernel did", or that none known computes the output; empty for a
/// result that is not a wrong output.
std::string cause_text(const CaseResult& r);

/// The failure report, several lines, each indented by `indent`: how many elements
/// differ, the rule and the tolerance that would have passed, the worst elements with
/// expected, actual and the updates targeting them.
std::string comparison_text(const Comparison& c, const std::string& indent);

/// "1.23 ms".
std::string time_text(double seconds);

/// The one place where what a reporter is told becomes report text: every string of
/// a result, a summary or a context through printable_text (valid UTF-8, no control
/// characters but tab and newline). Errors are printable when made (error.hpp).
CaseResult printable(CaseResult r);
RunSummary printable(RunSummary s);
RunContext printable(RunContext c);

/// XML text and attribute escaping (of printable_text, so the result is always
/// well-formed XML 1.0 character data).
std::string xml_escape(const std::string& text);

}  // namespace scatter::detail

#include "text.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "scatter/diagnose.hpp"

namespace scatter::detail {

std::string time_text(double seconds) {
  if (seconds <= 0) return "";
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

bool diagnosed(const CaseResult& r) {
  return r.status == Status::failed && !r.invalid && ((r.comparison && !r.comparison->passed) || !r.cause.empty());
}

std::string cause_text(const CaseResult& r) {
  if (!diagnosed(r)) return "";
  if (r.cause.empty()) return "cause: none known (no catalogued bug computes this output; docs/diagnoses.md)";
  const auto why = cause_explanation(r.cause);
  return why.empty() ? fmt::format("cause: {}", r.cause) : fmt::format("cause: {}: {}", r.cause, why);
}

std::string worst_text(const CaseResult& r) {
  const auto cause = r.cause.empty() ? "" : fmt::format("; cause: {}", r.cause);
  if (!r.comparison) return r.detail + cause;
  const auto& c = *r.comparison;
  if (!c.passed) {
    if (c.worst.empty()) return fmt::format("{} of {} elements differ{}", c.mismatches, c.elements, cause);
    const auto& w = c.worst.front();
    return fmt::format("{} of {} differ; worst at {}: expected {}, got {}{}", c.mismatches, c.elements,
                       format_coord(w.coord), w.expected, w.actual, cause);
  }
  const std::string against = c.against_expected ? "expected" : "ref";
  if (c.max_error == 0.0) return fmt::format("exact vs {}", against);
  return fmt::format("max |err| {:.3g} at {} vs {}", c.max_error, format_coord(c.max_error_coord), against);
}

namespace {

// What a case's `tolerance` could do for a failed float comparison. It replaces the
// defaults of the allclose elements only; the values printed read back as the doubles
// that pass (compare.cpp rounds them up), so pasting the line into the case passes.
std::string tolerance_hint(const Comparison& c, const std::string& indent) {
  if (!c.tolerance_applies) {
    return fmt::format("{}no tolerance applies: every element of this case is compared exactly\n", indent);
  }
  const auto allclose_failed = c.mismatches - c.exact_mismatches;
  // A difference that no order of the updates explains is offered no tolerance to hide it.
  if (allclose_failed > 0 && !(c.order_excess <= kOrderExplains)) {
    return fmt::format(
        "{}this looks like a bug, not rounding: an element differs by {} times what reordering its updates could "
        "explain (h*eps*(sum|x| + |want|) + h*smallest normal); a dropped, repeated or misplaced update, or a wrong accumulator type, "
        "would do that\n",
        indent, std::isfinite(c.order_excess) ? fmt::format("{:.3g}", c.order_excess) : std::string("infinitely many"));
  }
  if (c.exact_mismatches == 0) {
    return std::isfinite(c.needed_atol)
               ? fmt::format("{}the smallest tolerance that would have passed: \"tolerance\": {{\"atol\": {}, \"rtol\": {}}}\n",
                             indent, c.needed_atol, c.needed_rtol)
               : fmt::format("{}no tolerance would pass: a NaN or infinity disagrees\n", indent);
  }
  auto elements = [](std::int64_t n) { return fmt::format("{} differing element{}", n, n == 1 ? " is" : "s are"); };
  std::string out = fmt::format(
      "{}no tolerance would pass: {} compared exactly (a tolerance changes only elements of float add, sub, mul "
      "or mean that two or more updates hit)\n",
      indent, elements(c.exact_mismatches));
  if (allclose_failed > 0 && std::isfinite(c.allclose_atol)) {
    out += fmt::format("{}the {} differing allclose element{} would pass with \"tolerance\": {{\"atol\": {}, \"rtol\": {}}}\n",
                       indent, allclose_failed, allclose_failed == 1 ? "" : "s", c.allclose_atol, c.needed_rtol);
  }
  return out;
}

}  // namespace

std::string comparison_text(const Comparison& c, const std::string& indent) {
  std::string out = fmt::format("{}{} of {} elements differ; rule: {}; compared with {}\n", indent, c.mismatches,
                                c.elements, c.rule, c.against_expected ? "expected" : "the ref output");
  if (!c.passed && c.float_output) out += tolerance_hint(c, indent);
  if (c.duplicate_elements > 0) {
    out += fmt::format("{}{} elements are targeted by several updates; {} hold another duplicate's value\n", indent,
                       c.duplicate_elements, c.accepted_duplicates);
  }
  for (const auto& m : c.worst) {
    std::vector<std::string> ups;
    for (const auto& u : m.updates) ups.push_back("updates" + format_coord(u));
    if (static_cast<std::int64_t>(m.updates.size()) < m.hits) {
      ups.push_back(fmt::format("+{} more", m.hits - static_cast<std::int64_t>(m.updates.size())));
    }
    out += fmt::format("{}output{}: expected {}, got {} (|err| {:.3g}, {}{}); targeted by {}\n", indent,
                       format_coord(m.coord), m.expected, m.actual, m.error, to_string(m.rule),
                       m.rule == Rule::allclose ? fmt::format(", allowed {:.3g}", m.allowed) : "",
                       ups.empty() ? "no update (must equal data)" : fmt::format("{}", fmt::join(ups, ", ")));
  }
  return out;
}

namespace {

template <typename Value>
std::map<std::string, Value> printable_keys(const std::map<std::string, Value>& in) {
  std::map<std::string, Value> out;
  for (const auto& [key, value] : in) out[printable_text(key)] += value;  // two keys may become one
  return out;
}

void make_printable(std::string& text) { text = printable_text(text); }

}  // namespace

CaseResult printable(CaseResult r) {
  for (auto* text : {&r.file, &r.name, &r.op, &r.reduction, &r.dtype, &r.backend, &r.detail, &r.expectation, &r.lowering,
                     &r.version, &r.cause}) {
    make_printable(*text);
  }
  for (auto& f : r.features) make_printable(f);
  if (r.comparison) {
    make_printable(r.comparison->rule);
    for (auto& m : r.comparison->worst) {
      make_printable(m.expected);
      make_printable(m.actual);
    }
  }
  return r;
}

RunSummary printable(RunSummary s) {
  s.skip_reasons = printable_keys(s.skip_reasons);
  s.xfail_ids = printable_keys(s.xfail_ids);
  s.warnings = printable_keys(s.warnings);
  make_printable(s.none_selected);  // it quotes the user's filters and tags
  return s;
}

RunContext printable(RunContext c) {
  for (auto* text : {&c.version, &c.build_type, &c.git_commit, &c.date, &c.hostname, &c.command}) make_printable(*text);
  for (auto& b : c.backends) {
    for (auto* text : {&b.name, &b.reason, &b.device, &b.spec}) make_printable(*text);
  }
  if (c.selection) make_printable(c.selection->options);  // it quotes the user's filters and tags
  return c;
}

std::string xml_escape(const std::string& raw) {
  const auto text = printable_text(raw);
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
        out += "&#10;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

}  // namespace scatter::detail

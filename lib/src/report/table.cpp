// The human table: one row per case and backend as results arrive, a failure
// report under each failing row, and the closing line that CI greps for.

#include <map>
#include <ostream>

#include <fmt/format.h>

#include "scatter/report.hpp"

namespace scatter {
namespace {

constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kReset = "\033[0m";

std::string time_text(double seconds) {
  if (seconds <= 0) return "";
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

std::string worst_text(const CaseResult& r) {
  if (!r.comparison) return r.detail;
  const auto& c = *r.comparison;
  if (!c.passed) {
    if (c.worst.empty()) return fmt::format("{} of {} elements differ", c.mismatches, c.elements);
    const auto& w = c.worst.front();
    return fmt::format("{} of {} differ; worst at {}: expected {}, got {}", c.mismatches, c.elements,
                       format_coord(w.coord), w.expected, w.actual);
  }
  const std::string against = c.against_expected ? "expected" : "ref";
  if (c.max_error == 0.0) return fmt::format("exact vs {}", against);
  return fmt::format("max |err| {:.3g} at {} vs {}", c.max_error, format_coord(c.max_error_coord), against);
}

class TableReporter final : public Reporter {
 public:
  TableReporter(std::ostream& out, TableOptions options) : out_(out), options_(options) {}

  void on_file_error(const Error& error) override {
    out_ << paint(kRed, "ERROR") << "  " << describe(error) << "\n";
  }

  void on_result(const CaseResult& r) override {
    const bool bad = r.status == Status::failed || r.status == Status::error;
    if (options_.quiet && !bad) return;
    if (r.status == Status::skipped && !options_.verbose) {
      if (skipped_[r.backend]++ > 0) return;
      out_ << fmt::format("{:<40} {:<17} {:<8} ", r.name, r.op, r.backend) << paint(kYellow, fmt::format("{:<8}", "skipped"))
           << " " << r.detail << " (shown once; -v shows every case)\n";
      return;
    }
    const auto status = fmt::format("{:<8}", to_string(r.status));
    out_ << fmt::format("{:<40} {:<17} {:<8} ", r.name, r.op, r.backend)
         << paint(r.status == Status::passed ? kGreen : r.status == Status::skipped ? kYellow : kRed, status) << " "
         << fmt::format("{:<60} {}", worst_text(r), time_text(r.seconds)) << "\n";
    if (r.error) out_ << "    " << describe(*r.error) << "\n";
    if (r.comparison && (!r.comparison->passed || options_.verbose)) report(*r.comparison);
  }

  void on_end(const RunSummary& summary) override {
    for (const auto& [backend, n] : skipped_) {
      if (n > 1 && !options_.verbose) out_ << fmt::format("({} skipped on {} cases)\n", backend, n);
    }
    out_ << closing_line(summary) << "\n";
  }

 private:
  std::string paint(const char* color, const std::string& text) const {
    return options_.color ? std::string(color) + text + kReset : text;
  }

  void report(const Comparison& c) {
    out_ << fmt::format("    {} of {} elements differ; rule: {}; compared with {}\n", c.mismatches, c.elements, c.rule,
                        c.against_expected ? "expected" : "the ref output");
    if (c.duplicate_elements > 0) {
      out_ << fmt::format("    {} elements are targeted by several updates; {} hold another duplicate's value\n",
                          c.duplicate_elements, c.accepted_duplicates);
    }
    for (const auto& m : c.worst) {
      std::vector<std::string> ups;
      for (const auto& u : m.updates) ups.push_back("updates" + format_coord(u));
      if (static_cast<std::int64_t>(m.updates.size()) < m.hits) ups.push_back(fmt::format("+{} more", m.hits - static_cast<std::int64_t>(m.updates.size())));
      out_ << fmt::format("    output{}: expected {}, got {} (|err| {:.3g}, {}{}); targeted by {}\n", format_coord(m.coord),
                          m.expected, m.actual, m.error, to_string(m.rule),
                          m.rule == Rule::allclose ? fmt::format(", allowed {:.3g}", m.allowed) : "",
                          ups.empty() ? "no update (must equal data)" : fmt::format("{}", fmt::join(ups, ", ")));
    }
  }

  std::ostream& out_;
  TableOptions options_;
  std::map<std::string, int> skipped_;
};

}  // namespace

std::string closing_line(const RunSummary& s) {
  return fmt::format("scatterctl: {} passed, {} failed, {} skipped", s.passed, s.failed, s.skipped);
}

std::string describe(const Error& e) {
  std::string where;
  if (!e.file().empty()) where += e.file() + ": ";
  if (!e.case_name().empty()) where += fmt::format("case '{}': ", e.case_name());
  return fmt::format("{}[{}] {}", where, to_string(e.code()), e.message());
}

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out, const TableOptions& options) {
  return std::make_unique<TableReporter>(out, options);
}

}  // namespace scatter

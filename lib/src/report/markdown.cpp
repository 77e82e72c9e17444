// A Markdown summary for a pull-request comment or a CI job summary: the closing
// line, failures first with their reports, then a table of everything else.

#include <algorithm>

#include <fmt/format.h>

#include "collect.hpp"
#include "text.hpp"

namespace scatter {
namespace {

// Markdown table cells: no pipes, no newlines.
std::string cell(std::string text) {
  for (auto& ch : text) {
    if (ch == '|') ch = '/';
    if (ch == '\n') ch = ' ';
  }
  return text;
}

class MarkdownReporter final : public detail::CollectingReporter {
 public:
  using CollectingReporter::CollectingReporter;

 private:
  std::string render(const RunSummary& s) const override {
    std::string out = fmt::format("## {}\n\n", closing_line(s));
    out += fmt::format("scatterctl {} ({}){}, {}\n\n", context_.version, context_.build_type,
                       context_.git_commit.empty() ? "" : ", commit " + context_.git_commit.substr(0, 12), context_.date);
    for (const auto& b : context_.backends) {
      out += fmt::format("- `{}`: {}\n", b.name, b.available ? b.device : "unavailable: " + b.reason);
    }
    if (s.interrupted) out += "\n**The run was interrupted; only the cases that finished are listed.**\n";
    const bool any_bad = !file_errors_.empty() || std::any_of(results_.begin(), results_.end(), [](const CaseResult& r) {
                           return r.status == Status::failed || r.status == Status::error;
                         });
    if (any_bad) {
      out += "\n### Failures\n\n";
      for (const auto& e : file_errors_) out += fmt::format("- **{}**: `{}`\n", cell(e.file()), cell(describe(e)));
      for (const auto& r : results_) {
        if (r.status != Status::failed && r.status != Status::error) continue;
        out += fmt::format("- **{}** on `{}` ({}): {}\n", r.name, r.backend, r.status == Status::failed ? "failed" : "error",
                           cell(detail::worst_text(r)));
        if (r.comparison) out += "\n```\n" + detail::comparison_text(*r.comparison, "") + "```\n\n";
      }
    }
    out += "\n### Results\n\n| case | op | reduction | dtype | backend | status | worst | time |\n|---|---|---|---|---|---|---|---|\n";
    int skipped = 0;
    for (const auto& r : results_) {
      if (r.status == Status::skipped) {
        ++skipped;
        continue;
      }
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(r.name), r.op, r.reduction, r.dtype, r.backend,
                         r.status == Status::passed ? "passed" : r.status == Status::failed ? "**failed**" : "**error**",
                         cell(detail::worst_text(r)), detail::time_text(r.seconds));
    }
    if (skipped > 0) out += fmt::format("\n{} case x backend pairs were skipped (unavailable backends).\n", skipped);
    return out;
  }
};

class TeeReporter final : public Reporter {
 public:
  explicit TeeReporter(std::vector<std::unique_ptr<Reporter>> reporters) : reporters_(std::move(reporters)) {}
  void on_case_start(const std::string& name, int index, int total) override {
    for (auto& r : reporters_) r->on_case_start(name, index, total);
  }
  void on_file_error(const Error& error) override {
    for (auto& r : reporters_) r->on_file_error(error);
  }
  void on_result(const CaseResult& result) override {
    for (auto& r : reporters_) r->on_result(result);
  }
  void on_end(const RunSummary& summary) override {
    for (auto& r : reporters_) r->on_end(summary);
  }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(const std::string& path, const RunContext& context) {
  return std::make_unique<MarkdownReporter>(path, context);
}

std::unique_ptr<Reporter> make_tee_reporter(std::vector<std::unique_ptr<Reporter>> reporters) {
  return std::make_unique<TeeReporter>(std::move(reporters));
}

}  // namespace scatter

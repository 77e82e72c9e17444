// A Markdown summary for a pull-request comment or a CI job summary: the closing
// line, failures first with their reports, then a table of everything else.

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// float32/64, float16/bfloat16, integer, bool: the families frameworks differ on.
std::string dtype_family(const std::string& dtype) {
  if (dtype == "float64" || dtype == "float32") return "float32/64";
  if (dtype == "float16" || dtype == "bfloat16") return "float16/bfloat16";
  if (dtype == "bool") return "bool";
  if (dtype == "-") return "-";
  return "integer";
}

// Counts of one matrix cell.
struct Tally {
  int passed = 0, failed = 0, xfail = 0, skipped = 0;
  void add(Status s) {
    switch (s) {
      case Status::passed:
      case Status::xpass:
        ++passed;
        break;
      case Status::failed:
      case Status::error:
        ++failed;
        break;
      case Status::xfail:
        ++xfail;
        break;
      case Status::skipped:
        ++skipped;
        break;
    }
  }
  std::string text() const {
    std::vector<std::string> parts;
    if (passed) parts.push_back(fmt::format("{} pass", passed));
    if (failed) parts.push_back(fmt::format("**{} fail**", failed));
    if (xfail) parts.push_back(fmt::format("{} xfail", xfail));
    if (skipped) parts.push_back(fmt::format("{} skip", skipped));
    return parts.empty() ? "" : fmt::format("{}", fmt::join(parts, ", "));
  }
};

// The cases an adapter built around an upstream bug: their lowering cites it (OWNER/REPO#N),
// counted per backend and issue, with one lowering as the example.
std::string lowered_around(const std::vector<CaseResult>& results) {
  static const std::regex kIssue(R"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]+)");
  std::map<std::pair<std::string, std::string>, std::pair<int, std::string>> cited;
  for (const auto& r : results) {
    std::smatch m;
    if (!std::regex_search(r.lowering, m, kIssue)) continue;
    auto& [count, example] = cited[{r.backend, m.str()}];
    if (count++ == 0) example = r.lowering;
  }
  if (cited.empty()) return "";
  std::string out = "\nLowered around upstream bugs (the adapter builds something else than the op alone):\n\n";
  for (const auto& [key, value] : cited) {
    out += fmt::format("- `{}`, {}: {} case results, e.g. `{}`\n", key.first, key.second, value.first, value.second);
  }
  return out;
}

// Backend x (op, reduction, dtype family) and backend x trap, for the backends that
// declare capabilities (the frameworks and plugins): what `run --markdown` renders as
// the conformance matrix.
std::string conformance_matrix(const std::vector<CaseResult>& results, const RunContext& context) {
  std::vector<std::string> backends;
  std::map<std::string, std::string> versions;
  for (const auto& r : results) {
    if (r.version.empty() || r.backend == "-") continue;
    if (std::find(backends.begin(), backends.end(), r.backend) == backends.end()) backends.push_back(r.backend);
    versions[r.backend] = r.version;
  }
  if (backends.empty()) return "";
  std::map<std::tuple<std::string, std::string, std::string>, std::map<std::string, Tally>> by_kind;
  std::map<std::string, std::map<std::string, Tally>> by_trap;
  for (const auto& r : results) {
    if (!versions.count(r.backend)) continue;
    by_kind[{r.op, r.reduction, dtype_family(r.dtype)}][r.backend].add(r.status);
    for (const auto& f : r.features) by_trap[f][r.backend].add(r.status);
  }
  std::string header = "|";
  std::string rule = "|";
  for (const auto& b : backends) {
    header += fmt::format(" {} {} |", b, versions[b]);
    rule += "---|";
  }
  std::string out = "\n### Conformance matrix\n\n";
  for (const auto& b : context.backends) {
    if (versions.count(b.name)) out += fmt::format("- `{}` {}: {}\n", b.name, versions[b.name], b.device);
  }
  out += "\nEach cell counts case results: pass, fail (wrong output, error, or an invalid case accepted), xfail (a "
         "recorded divergence, with its reason and citation in the expectations file) and skip (outside what the "
         "backend declares).\n\n";
  out += "| op | reduction | dtypes " + header + "\n|---|---|---" + rule + "\n";
  for (const auto& [key, cells] : by_kind) {
    const auto& [op, reduction, family] = key;
    out += fmt::format("| {} | {} | {} |", op, reduction, family);
    for (const auto& b : backends) {
      const auto it = cells.find(b);
      out += fmt::format(" {} |", it == cells.end() ? "" : it->second.text());
    }
    out += "\n";
  }
  out += lowered_around(results);
  if (!by_trap.empty()) {
    out += "\n| trap " + header + "\n|---" + rule + "\n";
    for (const auto& [trap, cells] : by_trap) {
      out += fmt::format("| {} |", trap);
      for (const auto& b : backends) {
        const auto it = cells.find(b);
        out += fmt::format(" {} |", it == cells.end() ? "" : it->second.text());
      }
      out += "\n";
    }
  }
  return out;
}

// Rows of a list or table shown before the rest is collapsed: the report stays a summary (about
// 250 lines outside collapsed sections for `run cases/`, whatever the backends).
constexpr std::size_t kShownRows = 20;

// A section a reader opens on demand (GitHub and GitLab render it collapsed).
std::string collapsed(const std::string& summary, const std::string& body) {
  return fmt::format("<details><summary>{}</summary>\n\n{}\n</details>\n", summary, body);
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
    if (!s.ended_early.empty()) {
      out += fmt::format("\n**The run ended early: {}. Only the cases that finished are listed.**\n", s.ended_early);
    }
    out += conformance_matrix(results_, context_);
    if (!s.xfail_ids.empty()) {
      out += "\n### Known divergences seen (xfail)\n\n| backend: entry | cases |\n|---|---|\n";
      for (const auto& [id, n] : s.xfail_ids) out += fmt::format("| {} | {} |\n", cell(id), n);
    }
    if (!s.skip_reasons.empty()) {
      std::string table = "| backend: reason | cases |\n|---|---|\n";
      for (const auto& [reason, n] : s.skip_reasons) table += fmt::format("| {} | {} |\n", cell(reason), n);
      out += "\n### Skipped, by reason\n\n" +
             (s.skip_reasons.size() <= kShownRows ? table
                                                   : collapsed(fmt::format("{} reasons", s.skip_reasons.size()), table));
    }
    const bool any_bad = !file_errors_.empty() || std::any_of(results_.begin(), results_.end(), [](const CaseResult& r) {
                           return r.status == Status::failed || r.status == Status::error;
                         });
    if (any_bad) {
      // One line a failure, the first kShownRows in view; the rest, and every comparison, collapsed.
      std::vector<std::string> lines;
      std::string comparisons;
      for (const auto& e : file_errors_) lines.push_back(fmt::format("- **{}**: `{}`\n", cell(e.file()), cell(describe(e))));
      for (const auto& r : results_) {
        if (r.status != Status::failed && r.status != Status::error) continue;
        lines.push_back(fmt::format("- **{}** on `{}` ({}): {}\n", r.name, r.backend,
                                    r.status == Status::failed ? "failed" : "error", cell(detail::worst_text(r))));
        if (r.comparison) {
          comparisons += fmt::format("**{}** on `{}`:\n\n```\n{}```\n\n", r.name, r.backend,
                                     detail::comparison_text(*r.comparison, ""));
        }
      }
      out += "\n### Failures\n\n";
      std::string rest;
      for (std::size_t i = 0; i < lines.size(); ++i) (i < kShownRows ? out : rest) += lines[i];
      if (!rest.empty()) out += collapsed(fmt::format("{} more failures", lines.size() - kShownRows), rest);
      if (!comparisons.empty()) out += collapsed("the comparisons, element by element", comparisons);
    }
    // Every result: for the record, collapsed (the summary above is what a reader reads).
    std::string every = "| case | op | reduction | dtype | backend | status | worst | time |\n|---|---|---|---|---|---|---|---|\n";
    int rows = 0;
    int skipped = 0;
    for (const auto& r : results_) {
      if (r.status == Status::skipped) {
        ++skipped;
        continue;
      }
      ++rows;
      every += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(r.name), r.op, r.reduction, r.dtype, r.backend,
                         r.status == Status::passed ? "passed"
                         : r.status == Status::xfail ? "xfail"
                         : r.status == Status::xpass ? "XPASS"
                         : r.status == Status::failed ? "**failed**"
                                                      : "**error**",
                         cell(detail::worst_text(r)), detail::time_text(r.seconds));
    }
    out += "\n### Results\n\n" + collapsed(fmt::format("{} results, one a row", rows), every);
    if (skipped > 0) out += fmt::format("\n{} case x backend pairs were skipped (reasons above).\n", skipped);
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
  // Each report on its own: one that cannot be written (ENOSPC) leaves the others written.
  void on_end(const RunSummary& summary) override {
    for (auto& r : reporters_) {
      try {
        r->on_end(summary);
      } catch (const Error& e) {
        errors_.push_back(e.message());
      }
    }
  }
  std::vector<std::string> write_errors() const override { return errors_; }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
  std::vector<std::string> errors_;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(const std::string& path, const RunContext& context) {
  return std::make_unique<MarkdownReporter>(path, context);
}

std::unique_ptr<Reporter> make_tee_reporter(std::vector<std::unique_ptr<Reporter>> reporters) {
  return std::make_unique<TeeReporter>(std::move(reporters));
}

}  // namespace scatter

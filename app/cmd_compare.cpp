// scatterctl compare: two bench reports; the regression gate (exit 1 on a regression).

#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/bench.hpp"
#include "scatter/run.hpp"

namespace scatter::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> reports;
  std::string threshold = "5%";
  std::string suite_threshold = "20%";
  std::string markdown;
  bool allow_device_mismatch = false;
  bool allow_missing = false;
};

// "5%": a percentage with its unit. A bare number is refused: "5" could mean 5% or 500%.
double parse_threshold(const std::string& text, const std::string& flag) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used > 0 && used == text.size()) {
    throw Error(ErrorCode::schema, flag,
                fmt::format("= '{}' has no unit: write {}% for {} percent", text, text, text));
  }
  if (used == 0 || text.substr(used) != "%" || !(v >= 0) || v > 1e6) {
    throw Error(ErrorCode::schema, flag, fmt::format("= '{}' is not a percentage like 5%", text));
  }
  return v / 100.0;
}

// "a.json,b.json": the reports of one side, read and pooled.
std::vector<std::string> read_side(const std::string& list) {
  std::vector<std::string> texts;
  for (const auto& path : split_commas(list)) texts.push_back(read_text(path));
  return texts;
}

int compare(const CompareFlags& o) {
  CompareBenchOptions options;
  options.threshold = parse_threshold(o.threshold, "--threshold");
  options.suite_threshold = parse_threshold(o.suite_threshold, "--suite-threshold");
  options.allow_device_mismatch = o.allow_device_mismatch;
  options.allow_missing = o.allow_missing;
  const auto result = compare_bench(read_side(o.reports.at(0)), read_side(o.reports.at(1)), options);
  std::cout << compare_table(result);
  for (const auto& w : result.warnings) std::cerr << "scatterctl: warning: " << w << "\n";
  if (!o.markdown.empty()) write_text(o.markdown, compare_markdown(result));
  return result.failed ? kExitFailed : kExitOk;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareFlags>();
  auto* cmd = app.add_subcommand("compare", "compare two bench reports; exit 1 on a regression");
  cmd->add_option("reports", o->reports,
                  "BASE.json NEW.json; a side may be several runs, comma-separated (a.json,b.json), pooled")->required()->expected(2);
  cmd->add_option("--threshold", o->threshold, "smallest change that counts, with its unit (default 5%)");
  cmd->add_option("--suite-threshold", o->suite_threshold,
                  "whole-suite median change that fails the gate on quiet machines (default 20%)");
  cmd->add_option("--markdown", o->markdown, "write a Markdown summary to FILE");
  cmd->add_flag("--allow-device-mismatch", o->allow_device_mismatch, "compare reports from different devices");
  cmd->add_flag("--allow-missing", o->allow_missing,
                "pass the gate when benchmarks of BASE are missing from NEW, or none is in both");
  return {cmd, [o](const Invocation&) { return compare(*o); }};
}

}  // namespace scatter::cli

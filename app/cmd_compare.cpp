// scatterctl compare: the regression gate. Paired: one report holding two labelled backends
// sampled in the same rounds (REPORT --base LABEL --new LABEL); unpaired: two reports.

#include <iostream>

#include <fmt/format.h>

#include "outputs.hpp"
#include "commands.hpp"
#include "scatter/bench.hpp"
#include "scatter/paired.hpp"
#include "scatter/report.hpp"
#include "scatter/run.hpp"

namespace scatter::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> reports;
  std::string threshold;  // "": the counter's default (counter.hpp)
  std::string suite_threshold = "20%";
  std::string markdown;
  std::string json;
  std::string base_label;
  std::string next_label;
  bool allow_device_mismatch = false;
  bool allow_missing = false;
};

// "a.json,b.json": the reports of one side, read and pooled.
std::vector<std::string> read_side(const std::string& list) {
  std::vector<std::string> texts;
  for (const auto& path : split_commas(list)) texts.push_back(read_file_text(path));
  return texts;
}

int compare_one_report(const CompareFlags& o) {
  if (o.base_label.empty() || o.next_label.empty()) {
    throw Error(ErrorCode::schema, o.base_label.empty() ? "--base" : "--new",
                "is needed with one report: compare REPORT --base LABEL --new LABEL pairs two labelled backends of it "
                "(two reports: compare BASE.json NEW.json)");
  }
  PairedOptions options;
  if (!o.threshold.empty()) options.threshold = parse_percent(o.threshold, "--threshold");
  const auto result = compare_paired(read_file_text(o.reports.at(0)), o.base_label, o.next_label, options);
  std::cout << paired_table(result);
  if (!o.markdown.empty()) write_text(o.markdown, paired_markdown(result));
  if (!o.json.empty()) write_text(o.json, paired_json(result));
  return result.exit_code();
}

int compare(const CompareFlags& o) {
  std::vector<std::string> inputs;
  for (const auto& side : o.reports) {
    for (const auto& path : split_commas(side)) inputs.push_back(path);
  }
  Outputs().reads(inputs).file("--json", o.json).file("--markdown", o.markdown).check();
  if (o.reports.size() == 1) return compare_one_report(o);
  if (!o.base_label.empty() || !o.next_label.empty()) {
    throw Error(ErrorCode::schema, "--base", "pairs the labelled backends of one report: give one report, not two");
  }
  CompareBenchOptions options;
  if (!o.threshold.empty()) options.threshold = parse_percent(o.threshold, "--threshold");
  options.suite_threshold = parse_percent(o.suite_threshold, "--suite-threshold");
  options.allow_device_mismatch = o.allow_device_mismatch;
  options.allow_missing = o.allow_missing;
  const auto result = compare_bench(read_side(o.reports.at(0)), read_side(o.reports.at(1)), options);
  std::cout << compare_table(result);
  for (const auto& w : result.warnings) std::cerr << "scatterctl: warning: " << w << "\n";
  if (!o.markdown.empty()) write_text(o.markdown, compare_markdown(result));
  return result.failed ? kExitFailed : result.undecided ? kExitUndecided : kExitOk;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareFlags>();
  auto* cmd = app.add_subcommand("compare", "compare two bench reports; exit 1 on a regression");
  cmd->add_option("reports", o->reports,
                  "REPORT (paired, with --base and --new) or BASE.json NEW.json (unpaired; a side may be several "
                  "runs, comma-separated, pooled)")
      ->required()
      ->expected(1, 2);
  cmd->add_option("--base", o->base_label, "paired: the label of the base backend in REPORT (bench --backend base=...)");
  cmd->add_option("--new", o->next_label, "paired: the label of the new backend in REPORT");
  cmd->add_option("--json", o->json, "paired: write the verdicts as JSON to FILE");
  cmd->add_option("--threshold", o->threshold, "smallest change that counts, with its unit (default 5% of a time, 0.5% of an instruction count)");
  cmd->add_option("--suite-threshold", o->suite_threshold,
                  "whole-suite median change that fails the gate on quiet machines (default 20%)");
  cmd->add_option("--markdown", o->markdown, "write a Markdown summary to FILE");
  cmd->add_flag("--allow-device-mismatch", o->allow_device_mismatch, "compare reports from different devices");
  cmd->add_flag("--allow-missing", o->allow_missing,
                "pass the gate when benchmarks of BASE are missing from NEW, or none is in both");
  return {cmd, [o](const Invocation&) { return compare(*o); }};
}

}  // namespace scatter::cli

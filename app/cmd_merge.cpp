// scatterctl merge: the reports of one run from its parts.
//   merge REPORT...            the JSON reports of a run split with --shard (scatter/merge.hpp)
//   merge --recover JOURNAL    a run that never reached its end, from its journal
//                              (scatter/journal.hpp); a crashing run does this itself, after
//                              SIGKILL a user

#include <unistd.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/merge.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct MergeFlags {
  std::vector<std::string> inputs;
  bool recover = false;
  ReportPaths reports;  ///< --recover: each replaces the journal's own path for that report
  bool quiet = false;
};

// Writes the run's reports and, on `table`, its failures, recap and closing line; returns why
// a report could not be written, for each that could not.
std::vector<std::string> write_reports(const RecoveredRun& run, const ReportPaths& paths, std::ostream* table) {
  auto sinks = make_file_reporters(paths, run.context);
  if (table) sinks.push_back(make_table_reporter(*table, {use_color("auto"), true, false, false}));
  const auto reporter = make_tee_reporter(std::move(sinks));
  for (const auto& e : run.file_errors) reporter->on_file_error(e);
  for (const auto& r : run.results) reporter->on_result(r);
  reporter->on_end(run.summary);
  const auto unwritten = reporter->write_errors();
  for (const auto& why : unwritten) std::cerr << "scatterctl: " << why << "\n";
  return unwritten;
}

int recover(const MergeFlags& o) {
  if (o.inputs.size() != 1) {
    std::cerr << "scatterctl: merge --recover takes one journal\n";
    return kExitUsage;
  }
  const auto& journal = o.inputs.front();
  const auto run = recover_journal(journal);
  const auto path = [](const std::string& flag, const std::string& own) { return flag.empty() ? own : flag; };
  const ReportPaths reports{path(o.reports.json, run.reports.json), path(o.reports.junit, run.reports.junit),
                            path(o.reports.markdown, run.reports.markdown)};
  const auto unwritten = write_reports(run, reports, nullptr);
  std::cerr << fmt::format("scatterctl: recovered {} results of run {} from '{}'{}\n", run.results.size(), run.pid,
                           journal, unwritten.empty() ? " (removed)" : " (kept: a report could not be written)");
  std::cout << closing_line(run.summary) << std::endl;
  if (!unwritten.empty()) return kExitIo;
  ::unlink(journal.c_str());
  return run.summary.exit_code;
}

int merge(const MergeFlags& o, const Invocation& invocation) {
  if (o.recover) return recover(o);
  prepare_report_path(o.reports.json, "--json");
  prepare_report_path(o.reports.junit, "--junit");
  prepare_report_path(o.reports.markdown, "--markdown");
  std::vector<RecoveredRun> parts;
  bool unreadable = false;
  for (const auto& path : o.inputs) {
    try {
      parts.push_back(read_json_report(path));
    } catch (const Error& e) {
      std::cerr << "scatterctl: merge: " << describe(e) << "\n";
      unreadable = true;
    }
  }
  if (unreadable) return kExitInvalid;
  const auto problems = shard_set_problems(o.inputs, parts);
  for (const auto& why : problems) std::cerr << "scatterctl: merge: " << why << "\n";
  if (!problems.empty()) {
    std::cerr << fmt::format("scatterctl: merge: the {} reports are not one whole run; nothing written\n",
                             o.inputs.size());
    return kExitFailed;
  }
  const auto whole = merge_shards(std::move(parts), invocation.command_line);
  std::cerr << fmt::format("scatterctl: merged {} part{}: {} results of {} cases\n", o.inputs.size(),
                           o.inputs.size() == 1 ? "" : "s", whole.results.size(), whole.summary.selected);
  const auto unwritten = write_reports(whole, o.reports, o.quiet ? nullptr : &std::cout);
  if (o.quiet) std::cout << closing_line(whole.summary) << std::endl;
  return unwritten.empty() || whole.summary.exit_code != kExitOk ? whole.summary.exit_code : static_cast<int>(kExitIo);
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeFlags>();
  auto* cmd = app.add_subcommand(
      "merge", "one run's reports from its parts: the JSON reports of --shard runs, or a journal (--recover)");
  cmd->add_option("reports", o->inputs,
                  "the JSON reports of every part of a run split with --shard; with --recover, one journal "
                  "(REPORT.journal-PID beside the run's first report)")
      ->required();
  cmd->add_flag("--recover", o->recover, "turn a journal into the reports it names");
  cmd->add_option("--json", o->reports.json, "write the whole run's JSON report here (--recover: instead)");
  cmd->add_option("--junit", o->reports.junit, "write the whole run's JUnit XML report here (--recover: instead)");
  cmd->add_option("--markdown", o->reports.markdown, "write the whole run's Markdown summary here (--recover: instead)");
  cmd->add_flag("-q,--quiet", o->quiet, "print only the closing line (the failures and recap otherwise)");
  return {cmd, [o](const Invocation& invocation) { return merge(*o, invocation); }};
}

}  // namespace scatter::cli

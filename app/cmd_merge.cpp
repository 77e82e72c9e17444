// scatterctl merge --recover JOURNAL: the reports of a run that never reached its end, from
// its journal (scatter/journal.hpp). A crashing run does this itself; after SIGKILL, a user.

#include <unistd.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/journal.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct MergeFlags {
  std::string journal;
  bool recover = false;
  ReportPaths reports;  ///< each replaces the journal's own path for that report
};

int merge(const MergeFlags& o) {
  if (!o.recover) {
    std::cerr << "scatterctl: merge needs --recover (it turns a journal into reports)\n";
    return kExitUsage;
  }
  const auto run = recover_journal(o.journal);
  const auto path = [](const std::string& flag, const std::string& journal) { return flag.empty() ? journal : flag; };
  const ReportPaths reports{path(o.reports.json, run.reports.json), path(o.reports.junit, run.reports.junit),
                            path(o.reports.markdown, run.reports.markdown)};
  std::vector<std::unique_ptr<Reporter>> sinks;
  if (!reports.json.empty()) sinks.push_back(make_json_reporter(reports.json, run.context));
  if (!reports.junit.empty()) sinks.push_back(make_junit_reporter(reports.junit, run.context));
  if (!reports.markdown.empty()) sinks.push_back(make_markdown_reporter(reports.markdown, run.context));
  const auto reporter = make_tee_reporter(std::move(sinks));
  for (const auto& e : run.file_errors) reporter->on_file_error(e);
  for (const auto& r : run.results) reporter->on_result(r);
  reporter->on_end(run.summary);
  const auto unwritten = reporter->write_errors();
  for (const auto& why : unwritten) std::cerr << "scatterctl: " << why << "\n";
  std::cerr << fmt::format("scatterctl: recovered {} results of run {} from '{}'{}\n", run.results.size(), run.pid,
                           o.journal, unwritten.empty() ? " (removed)" : " (kept: a report could not be written)");
  std::cout << closing_line(run.summary) << std::endl;
  if (!unwritten.empty()) return kExitIo;
  ::unlink(o.journal.c_str());
  return run.summary.exit_code;
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeFlags>();
  auto* cmd = app.add_subcommand("merge", "write the reports of a run that never finished, from its journal");
  cmd->add_option("journal", o->journal, "the journal, REPORT.journal-PID beside the run's first report")->required();
  cmd->add_flag("--recover", o->recover, "turn the journal into the reports it names (required)");
  cmd->add_option("--json", o->reports.json, "write the JSON report here instead");
  cmd->add_option("--junit", o->reports.junit, "write the JUnit XML report here instead");
  cmd->add_option("--markdown", o->reports.markdown, "write the Markdown summary here instead");
  return {cmd, [o](const Invocation&) { return merge(*o); }};
}

}  // namespace scatter::cli

// scatterctl merge: the reports of one run from its parts.
//   merge REPORT...            the JSON reports of a run split with --shard (scatter/merge.hpp)
//   merge --recover JOURNAL    a run that never reached its end, from its journal
//                              (scatter/journal.hpp); a crashing run does this itself, after
//                              SIGKILL a user

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "outputs.hpp"
#include "cli_common.hpp"
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

// Where a journal's reports go by default: beside the journal, under the names its run used
// (the journal is named after its run's first report: REPORT.journal-PID). Only file names are
// taken from the header, never its folders: a journal from another machine, or a planted one,
// writes nowhere but beside itself. A header that names no report still gets a JSON report.
ReportPaths beside_journal(const std::string& journal, const ReportPaths& header) {
  namespace fs = std::filesystem;
  const fs::path path(journal);
  auto own = path.filename().string();
  if (const auto cut = own.rfind(".journal-"); cut != std::string::npos && cut > 0) own.erase(cut);
  const auto first = !header.json.empty() ? &ReportPaths::json : !header.junit.empty() ? &ReportPaths::junit
                     : !header.markdown.empty() ? &ReportPaths::markdown : &ReportPaths::json;
  ReportPaths out;
  for (const auto member : {&ReportPaths::json, &ReportPaths::junit, &ReportPaths::markdown}) {
    const auto name = member == first ? own : fs::path(header.*member).filename().string();
    if (!name.empty() && (member == first || !(header.*member).empty())) out.*member = (path.parent_path() / name).string();
  }
  return out;
}

// The parts (or journal) read and the reports written (outputs.hpp).
Outputs outputs_of(const std::vector<std::string>& inputs, const ReportPaths& reports) {
  Outputs outputs;
  outputs.reads(inputs).file("--json", reports.json).file("--junit", reports.junit);
  return outputs.file("--markdown", reports.markdown);
}
Outputs outputs_of(const std::string& journal, const ReportPaths& reports) {
  return outputs_of(std::vector<std::string>{journal}, reports);
}

int recover(const MergeFlags& o) {
  if (o.inputs.size() != 1) {
    std::cerr << "scatterctl: merge --recover takes one journal\n";
    return kExitUsage;
  }
  const auto& journal = o.inputs.front();
  outputs_of(journal, o.reports).check();
  FileIdentity read_as;
  RecoveredRun run;
  try {
    run = recover_journal(journal, &read_as);
  } catch (const Error& e) {
    std::cerr << "scatterctl: merge --recover: " << e.message() << "\n";
    return kExitInvalid;
  }
  // The run that writes it may still be running (its own crash recovery is its child, and may).
  if (run.pid > 0 && run.pid != ::getppid() && ::kill(static_cast<pid_t>(run.pid), 0) == 0) {
    std::cerr << fmt::format("scatterctl: merge --recover: the run that writes '{}' (process {}) is still running: "
                             "its journal is left as it is\n",
                             journal, run.pid);
    return kExitUsage;
  }
  const bool asked = !o.reports.json.empty() || !o.reports.junit.empty() || !o.reports.markdown.empty();
  const auto reports = asked ? o.reports : beside_journal(journal, run.reports);
  if (!asked) {
    // A default never replaces a file: not one scatterctl did not write, nor a later run's report
    // of the same name. Where one is there, the user says where the report goes.
    for (const auto& [flag, path] : {std::pair{"--json", reports.json}, {"--junit", reports.junit}, {"--markdown", reports.markdown}}) {
      struct stat st {};
      if (!path.empty() && ::lstat(path.c_str(), &st) == 0) {
        std::cerr << fmt::format("scatterctl: merge --recover: '{}' is there already: it is left as it is; name where "
                                 "the report goes ({} PATH)\n",
                                 path, flag);
        return kExitUsage;
      }
    }
  }
  outputs_of(journal, reports).check();
  for (const auto& [what, path] : {std::pair{"JSON", run.reports.json}, {"JUnit", run.reports.junit}, {"Markdown", run.reports.markdown}}) {
    if (!path.empty()) std::cerr << fmt::format("scatterctl: its run asked for the {} report at '{}'\n", what, printable_text(path));
  }
  const auto unwritten = write_reports(run, reports, nullptr);
  for (const auto& path : {reports.json, reports.junit, reports.markdown}) {
    if (!path.empty() && std::find_if(unwritten.begin(), unwritten.end(), [&](const std::string& why) {
          return why.find(path) != std::string::npos;
        }) == unwritten.end()) {
      std::cerr << fmt::format("scatterctl: wrote '{}'\n", path);
    }
  }
  // The journal goes only once every report is written, and only if it is still the file read.
  const bool same_file = identity_of(journal) == std::optional<FileIdentity>(read_as);
  const bool remove = unwritten.empty() && same_file;
  std::cerr << fmt::format("scatterctl: recovered {} results of run {} from '{}'{}\n", run.results.size(), run.pid,
                           journal,
                           remove ? " (removed)"
                           : !unwritten.empty() ? " (kept: a report could not be written)"
                                                : " (kept: the file there is no longer the one read)");
  std::cout << closing_line(run.summary) << std::endl;
  if (!unwritten.empty()) return kExitIo;
  if (remove) ::unlink(journal.c_str());
  return run.summary.exit_code;
}

int merge(const MergeFlags& o, const Invocation& invocation) {
  if (o.recover) return recover(o);
  outputs_of(o.inputs, o.reports).check();
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
  if (whole.context.git_commit.find(", ") != std::string::npos || whole.context.version.find(", ") != std::string::npos ||
      whole.context.build_type.find(", ") != std::string::npos) {
    std::cerr << fmt::format("scatterctl: merge: warning: the parts come from more than one build (commits {}; versions "
                             "{}; {}): the merged report records them all\n",
                             printable_text(whole.context.git_commit), printable_text(whole.context.version),
                             printable_text(whole.context.build_type));
  }
  std::cerr << fmt::format("scatterctl: merged {} part{}: {} results of {} cases\n", o.inputs.size(),
                           o.inputs.size() == 1 ? "" : "s", whole.results.size(), whole.summary.selected);
  const auto unwritten = write_reports(whole, o.reports, o.quiet ? nullptr : &std::cout);
  if (o.quiet) std::cout << closing_line(whole.summary) << std::endl;
  return unwritten.empty() || whole.summary.exit_code != kExitOk ? whole.summary.exit_code : static_cast<int>(kExitIo);
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeFlags>();
  auto* cmd = app.add_subcommand("merge", "one run's reports from its parts: the JSON reports of --shard runs, or a journal (--recover)");
  cmd->add_option("reports", o->inputs,
                  "the JSON reports of every part of a run split with --shard; with --recover, one journal "
                  "(REPORT.journal-PID beside the run's first report)")
      ->required();
  cmd->add_flag("--recover", o->recover, "turn a journal into the reports it names");
  cmd->add_option("--json", o->reports.json,
                  "write the whole run's JSON report here (--recover: default beside the journal, under the name its run "
                  "used; the journal's own paths are shown, never followed)");
  cmd->add_option("--junit", o->reports.junit, "write the whole run's JUnit XML report here (--recover: as --json)");
  cmd->add_option("--markdown", o->reports.markdown, "write the whole run's Markdown summary here (--recover: as --json)");
  cmd->add_flag("-q,--quiet", o->quiet, "print only the closing line (the failures and recap otherwise)");
  return {cmd, [o](const Invocation& invocation) { return merge(*o, invocation); }};
}

}  // namespace scatter::cli

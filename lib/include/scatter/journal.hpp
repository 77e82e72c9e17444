#pragma once
/// The run's journal: a file beside the first report, appended as the run goes (a header
/// with the context and the report paths, each trial as it starts, each result as it ends),
/// so that a run that never reaches its end still leaves its reports. When the process can
/// still act (a fatal signal, exit() in an in-process plugin, a watchdog: end_run_abruptly in
/// abrupt_end.hpp) it turns the journal into the reports itself, through `scatterctl merge --recover`; after SIGKILL the
/// journal stays for that command. A run whose reports are all written removes its journal.

#include <memory>
#include <string>
#include <vector>

#include "scatter/abrupt_end.hpp"
#include "scatter/report.hpp"

namespace scatter {

struct ReportPaths {
  std::string json;
  std::string junit;
  std::string markdown;
  bool any() const { return !json.empty() || !junit.empty() || !markdown.empty(); }
};

/// A reporter for each report file the paths name (JSON, JUnit XML, Markdown), for `run` and
/// `merge` alike.
std::vector<std::unique_ptr<Reporter>> make_file_reporters(const ReportPaths& paths, const RunContext& context);

/// "<first report>.journal-<pid>": beside the reports, one per process, so that concurrent
/// runs writing the same reports never share one.
std::string journal_path_for(const ReportPaths& paths, long pid);

/// Journals left for these reports by processes that no longer run.
std::vector<std::string> stale_journals(const ReportPaths& paths);

/// Wraps the run's reporters: every event is journalled before they see it. on_end removes
/// the journal once every report is written; otherwise it stays, and write_errors names it.
/// `self_exe` is the scatterctl that end_run_abruptly() runs as `merge --recover JOURNAL`.
/// Throws Error(io) when the journal cannot be created.
std::unique_ptr<Reporter> make_journaling_reporter(std::unique_ptr<Reporter> reporters, const ReportPaths& paths,
                                                   const RunContext& context, const std::string& self_exe);

/// A journal read back: what `merge --recover` writes.
struct RecoveredRun {
  long pid = 0;
  RunContext context;
  ReportPaths reports;
  std::vector<Error> file_errors;
  std::vector<CaseResult> results;  ///< with the trial in flight as an error, when it crashed or timed out
  RunSummary summary;
};

/// Counts the run's results and file errors into its summary (whose counts are zero) and
/// sets its exit code; selected, interrupted and ended_early are kept.
void count_recovered(RecoveredRun& run);

/// Whether a file's text is a journal's (its first record), for a command given one by mistake.
bool looks_like_journal(const std::string& text);

/// Reads a journal, and into `read_as` which file that was. A file whose first line is not a
/// whole journal header is "not a scatterctl journal" (Error(json)); a last line cut short (the
/// process died while writing it) is left out; anything else unreadable or mistyped throws
/// Error(io or json) naming the journal, the line and the field.
RecoveredRun recover_journal(const std::string& path, FileIdentity* read_as = nullptr);

}  // namespace scatter

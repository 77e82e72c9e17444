#pragma once
/// Reporters: the human table on stdout, and JSON, JUnit XML and Markdown files from
/// the same run (written atomically when the run ends).

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scatter/files.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/run.hpp"

namespace scatter {

struct TableOptions {
  bool color = false;
  bool quiet = false;    ///< only failures and the closing line
  bool verbose = false;  ///< every mismatch and the rule of each passing case
  bool progress = false; ///< a progress line on stderr (only on a terminal)
};

/// Streams one row per result, failure reports under failing rows, and the
/// closing line `scatterctl: N passed, N failed, N skipped`.
std::unique_ptr<Reporter> make_table_reporter(std::ostream& out, const TableOptions& options);

/// What a report says about where it was made.
struct RunContext {
  std::string version;
  std::string build_type;
  bool cuda_compiled = false;
  std::string git_commit;  ///< empty when unknown
  std::string date;        ///< UTC, ISO 8601
  std::string hostname;
  std::string command;     ///< the command line
  struct BackendInfo {
    std::string name;  ///< the label under --backend LABEL=SPEC
    bool available = false;
    std::string reason;
    std::string device;
    std::string spec;  ///< what a label stands for ("exe:/base/scatterctl:cpu"); "" when unlabelled
  };
  std::vector<BackendInfo> backends;
  std::optional<SelectionRecord> selection;  ///< run's reports: what `merge` checks shards by
};

/// Fills a context for now, this build and these backends.
RunContext make_run_context(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& command);

/// Every case x backend with status, timings, counts, worst errors, and a context
/// block; carries "schema_version": kRunReportSchema.
constexpr int kRunReportSchema = 1;
std::unique_ptr<Reporter> make_json_reporter(const std::string& path, const RunContext& context);
/// JUnit XML: classname = op, name = case@backend; failure, error and skipped elements.
std::unique_ptr<Reporter> make_junit_reporter(const std::string& path, const RunContext& context);
/// A summary fit for a pull-request comment: counts, failures first with their reports.
std::unique_ptr<Reporter> make_markdown_reporter(const std::string& path, const RunContext& context);
/// Sends every event to each reporter in turn.
std::unique_ptr<Reporter> make_tee_reporter(std::vector<std::unique_ptr<Reporter>> reporters);

/// The closing line, without newline.
std::string closing_line(const RunSummary& summary);

/// "file: case 'name': [code] message" (file and case left out when unknown).
std::string describe(const Error& error);

/// `fuzz --json`: the run (seed, cases, counts), `summary.causes` (cause -> failures; "none
/// known" for the undiagnosed) and `failures[]`, each with case, backend, status, cause (null
/// when none is known), detail, case_file, minimal_file (null when not shrunk) and sizes.
std::string fuzz_json(const FuzzSummary& summary, const FuzzOptions& options);

/// Whether a report may be written at `path` without losing anything scatterctl did not write:
/// there is no file there, or it is a regular file that a scatterctl report begins like (the
/// JSON report's "tool": "scatterctl", JUnit's <testsuites name="scatterctl", the Markdown
/// summary's "## scatterctl").
bool replaceable_by_report(const std::string& path);

}  // namespace scatter

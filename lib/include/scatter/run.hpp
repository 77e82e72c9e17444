#pragma once
/// Running a selection of cases on backends: selection, expect_error handling,
/// comparison, results streamed to reporters, exit code.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/compare.hpp"
#include "scatter/error.hpp"
#include "scatter/expectations.hpp"
#include "scatter/load.hpp"

namespace scatter {

/// xfail: a failure an expectations entry covers (counts as passed); xpass: a case an
/// entry expected to fail passed (counts as passed, as failed under --strict).
enum class Status { passed, failed, error, skipped, xfail, xpass };
std::string_view to_string(Status status);

/// The exit codes of the CLI spec, and 130 (128 + SIGINT) for an interrupted run.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,
  kExitUsage = 2,
  kExitInvalid = 3,
  kExitNothing = 4,
  kExitEnv = 5,
  kExitInterrupted = 130,
};

/// One case on one backend (or, for expect_error and invalid cases, on none: "-").
struct CaseResult {
  std::string file;
  std::string name;
  std::string op;         ///< canonical op name, or "-" when unknown
  std::string reduction;  ///< canonical reduction, or "-"
  std::string dtype;      ///< data's dtype, or "-"
  std::string backend;    ///< backend name, or "-" for validation-only results
  Status status = Status::passed;
  std::string detail;     ///< one line: the reason, the rule, the error
  std::optional<Comparison> comparison;
  std::optional<Error> error;
  bool invalid = false;   ///< the case was rejected (exit 3), not a backend failure
  bool strict = false;    ///< an XPASS that fails the run (--strict, or its entry's `strict`)
  double seconds = 0.0;
  std::string expectation;  ///< the expectations entry behind an xfail or xpass
  std::string lowering;     ///< what an external backend built for the case
  std::string version;      ///< the external backend's version
  std::vector<std::string> features;  ///< traps the case has, for the conformance matrix (external backends)
};

struct Selection {
  std::vector<std::string> filters;  ///< globs on names; a leading '-' excludes
  std::vector<std::string> tags;     ///< any of these tags
  int shard_index = 1;               ///< 1-based
  int shard_count = 1;
  bool include_large = false;        ///< cases tagged "large" run only when asked for
};

/// Whether a case entry is in the selection. Entries without a name are in shard 1.
bool is_selected(const CaseEntry& entry, const Selection& selection);

/// Parses "I/N" (1 <= I <= N); throws Error(schema) naming the flag otherwise.
void parse_shard(const std::string& text, Selection& selection);

struct RunSummary {
  int passed = 0;
  int failed = 0;  ///< failed, errored and invalid cases, and unreadable files
  int skipped = 0;
  int invalid = 0;  ///< invalid cases and unreadable files (part of failed)
  int selected = 0;
  bool interrupted = false;  ///< stopped by SIGINT/SIGTERM
  bool stopped_early = false;  ///< --fail-fast stopped it
  int large_left_out = 0;  ///< cases tagged large that the selection matched but --include-large was not given
  int xfailed = 0;  ///< part of passed
  int xpassed = 0;  ///< part of passed, or of failed under --strict
  std::map<std::string, int> skip_reasons;  ///< "backend: reason" -> count
  std::map<std::string, int> xfail_ids;     ///< "backend: entry id" -> count
  int exit_code = kExitOk;
};

/// Receives results as they happen.
class Reporter {
 public:
  virtual ~Reporter() = default;
  /// A case is about to run (index counts from 1 of `total` selected).
  virtual void on_case_start(const std::string& /*name*/, int /*index*/, int /*total*/) {}
  virtual void on_file_error(const Error& error) = 0;
  virtual void on_result(const CaseResult& result) = 0;
  virtual void on_end(const RunSummary& summary) = 0;
};

/// The backends a --backend list names. "all": every available built-in backend (ref,
/// cuda), the others reported as skipped with their reason per case; "frameworks":
/// every available framework backend. Throws Error(schema) for an unknown name.
/// "frameworks": every available framework backend, the others named once (not_running).
struct BackendChoice {
  std::vector<Backend*> run;
  std::vector<std::pair<Backend*, std::string>> skipped;  ///< backend, reason: a skipped row per case
  std::vector<std::pair<std::string, std::string>> not_running;  ///< frameworks left out of "frameworks", and why
  std::vector<std::pair<std::string, std::string>> unavailable_named;  ///< asked for by name
};
BackendChoice choose_backends(const std::string& list, const std::vector<std::unique_ptr<Backend>>& all);
/// The non-empty items of a comma-separated list.
std::vector<std::string> split_commas(const std::string& list);
/// The names of a --backend list ("all" when empty).
std::vector<std::string> split_backend_list(const std::string& list);
/// The PATHs of the list's plugin:PATH entries (BackendConfig::plugins).
std::vector<std::string> plugin_paths(const std::string& list);

struct RunOptions {
  Selection selection;
  std::optional<double> timeout;  ///< seconds per case (materializing and every backend)
  bool fail_fast = false;         ///< stop at the first failed or errored case
  std::string save_failures;      ///< directory for failure bundles; empty: none
  std::string profile;            ///< cases outside this spec profile are skipped (see profile.hpp)
  RunFlags flags;                 ///< --in-place, --deterministic: passed to every backend
  const Expectations* expectations = nullptr;  ///< known divergences of external backends
  bool strict = false;            ///< an XPASS fails the run
};

/// Runs every selected case (one at a time, so memory holds one case) and reports.
/// An interrupt (see cancel.hpp) stops the run; what finished is reported.
RunSummary run_cases(const LoadResult& loaded, const RunOptions& options, const BackendChoice& backends,
                     Reporter& reporter);
/// The same with default options.
RunSummary run_cases(const LoadResult& loaded, const Selection& selection, const BackendChoice& backends,
                     Reporter& reporter);

/// Writes DIR/<case>@<backend>/: data, indices, updates, expected and actual as .npy
/// and repro.json, a case file that reproduces the failure on its own.
void save_failure_bundle(const std::string& dir, const CaseDecl& decl, const Case& c, const std::string& backend,
                         const Tensor& actual, const Tensor& want);

/// Loads and checks every selected case without running a backend; with a profile,
/// a case outside it is invalid and its result names the rule it breaks.
RunSummary validate_cases(const LoadResult& loaded, const Selection& selection, Reporter& reporter,
                          const std::string& profile = "");

}  // namespace scatter

#pragma once
/// Running a selection of cases on backends: selection, expect_error handling,
/// comparison, results streamed to reporters, exit code.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/expectations.hpp"
#include "scatter/load.hpp"
#include "scatter/result.hpp"

namespace scatter {

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

struct RunOptions {
  Selection selection;
  std::optional<double> timeout;  ///< seconds per case (materializing and every backend)
  bool fail_fast = false;         ///< stop at the first failed or errored case
  std::string save_failures;      ///< directory for failure bundles; empty: none
  std::string profile;            ///< cases outside this spec profile are skipped (see profile.hpp)
  RunFlags flags;                 ///< --in-place, --deterministic: passed to every backend
  const Expectations* expectations = nullptr;  ///< known divergences of external backends
  bool strict = false;            ///< an XPASS fails the run
  std::string max_bytes;          ///< --max-bytes as given ("": the default), recorded for merge
};

/// What a run's reports record of its selection, so that `scatterctl merge` can tell whether
/// shard reports are one whole: the same cases and options, each part exactly once.
struct SelectionRecord {
  int shard_index = 1;
  int shard_count = 1;
  int whole = 0;            ///< cases the selection holds before it is split into parts
  std::string fingerprint;  ///< of the whole selection's case names, in any order (hex)
  std::string options;      ///< the rest that decides the results: filters, tags, profile, flags, backends
};
SelectionRecord record_selection(const LoadResult& loaded, const RunOptions& options, const BackendChoice& backends);
/// SelectionRecord::fingerprint of the selection's case names, sorted.
std::string selection_fingerprint(const std::vector<std::string>& sorted_names);

/// Runs every selected case (one at a time, so memory holds one case) and reports.
/// An interrupt (see cancel.hpp) stops the run; what finished is reported.
RunSummary run_cases(const LoadResult& loaded, const RunOptions& options, const BackendChoice& backends,
                     Reporter& reporter);
/// The same with default options.
RunSummary run_cases(const LoadResult& loaded, const Selection& selection, const BackendChoice& backends,
                     Reporter& reporter);

/// Counts a result into the summary, as the run does (strict: --strict).
void count_result(RunSummary& summary, const CaseResult& result, bool strict);
/// Sets the summary's exit code from its counts.
void finish_summary(RunSummary& summary, bool any_file_errors);

/// Writes DIR/<case>@<backend>/: data, indices, updates, expected and actual as .npy
/// and repro.json, a case file that reproduces the failure on its own.
void save_failure_bundle(const std::string& dir, const CaseDecl& decl, const Case& c, const std::string& backend,
                         const Tensor& actual, const Tensor& want);

/// Loads and checks every selected case without running a backend; with a profile,
/// a case outside it is invalid and its result names the rule it breaks.
RunSummary validate_cases(const LoadResult& loaded, const Selection& selection, Reporter& reporter,
                          const std::string& profile = "");

}  // namespace scatter

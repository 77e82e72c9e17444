#pragma once
/// What a trial of one case on one backend came to, and how results reach the reports:
/// the status list, a case's result, the run's summary and exit code, the Reporter.
/// Below the drivers (run, bench, fuzz) and the reporters, which include this, not "run".

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scatter/compare.hpp"
#include "scatter/error.hpp"

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
  kExitUndecided = 6,  ///< the paired gate could not decide within its budget
  kExitIo = 7,         ///< every case passed, but a report could not be written
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
  /// A failure's cause, a catalogue name (diagnose.hpp; two joined by " + "); empty where none
  /// known explains it or the result is not a wrong output.
  std::string cause;
};

/// The statuses of a command's trials, counted the one way that run, bench, fuzz, merge and the
/// journal count them, and the exit code they come to: what each status means, and what each
/// costs, is decided here alone.
struct Tally {
  int passed = 0;
  int failed = 0;   ///< failed and errored trials, invalid cases and unreadable files, strict XPASSes
  int skipped = 0;
  int invalid = 0;  ///< invalid cases and unreadable files (part of failed)
  int xfailed = 0;  ///< apart from passed, as pytest counts them: never a failure
  int xpassed = 0;  ///< apart from passed; also counted in failed when strict
  int verdicts = 0;  ///< trials that reached a verdict: all but the skipped
  std::map<std::string, int> skip_reasons;  ///< "backend: reason" -> count
  std::map<std::string, int> xfail_ids;     ///< "backend: entry id" -> count

  /// Counts one trial on `backend`: `strict` (--strict, or the entry's own) makes an XPASS a
  /// failure; `why` is a skip's reason or an xfail's entry; `invalid`: a failure that is the
  /// case's own (rejected by the loader), not a backend's. True when the trial fails the command.
  bool add(Status status, bool strict, std::string_view backend, std::string_view why, bool invalid = false);
  /// 130 interrupted, 3 an invalid case, 1 a failure or a run that `ended_early`, 4 nothing
  /// tested (`nothing_tested`: the command's own reading of "nothing"), else 0.
  int decide_exit(bool interrupted, bool ended_early, bool nothing_tested) const;
};

struct RunSummary : Tally {
  int selected = 0;
  bool interrupted = false;  ///< stopped by SIGINT/SIGTERM
  bool stopped_early = false;  ///< --fail-fast stopped it
  /// Why the run ended before its end, when it did: a fatal signal, exit() from an in-process
  /// plugin, a watchdog, SIGKILL. Known from the journal (journal.hpp); never a pass.
  std::string ended_early;
  int large_left_out = 0;  ///< cases tagged large that the selection matched but --include-large was not given
  /// Cases were loaded but the selection kept none: each step and what it kept (run.cpp).
  std::string none_selected;
  /// --shard's part holds none of a selection that holds cases: not "nothing selected" (exit
  /// 4), since the other parts run them and `merge` checks that they did.
  bool empty_part = false;
  /// Problems that did not stop the run (a failure bundle that could not be written), once each
  /// with how often it happened.
  std::map<std::string, int> warnings;
  int backend_rows = 0;      ///< results on a backend (not the loader's own verdicts)
  int backend_verdicts = 0;  ///< of those, the ones not skipped
  /// Cases ran on backends, and every one was skipped: nothing was tested (exit 4, never 0).
  bool nothing_ran() const { return backend_rows > 0 && backend_verdicts == 0; }
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
  /// Why reports could not be written (a full disk): a tee writes every report it can and
  /// keeps the others' errors here rather than stop at the first.
  virtual std::vector<std::string> write_errors() const { return {}; }
};

}  // namespace scatter

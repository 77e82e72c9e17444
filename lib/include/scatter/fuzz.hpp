#pragma once
/// `scatterctl fuzz`: random valid cases over every op, reduction, dtype, rank (1-6),
/// k, duplicate density and negative-index mix, run on the backends and compared with
/// the reference. A case is case-file JSON, so a failure is written out as a file
/// that `scatterctl run` reproduces on its own.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/expectations.hpp"
#include "scatter/result.hpp"

namespace scatter {

struct FuzzOptions {
  std::uint64_t seed = 1;
  std::int64_t iterations = 1000;
  std::int64_t first = 0;  ///< the stream's first case drawn: a part of it runs cases [first, first + iterations)
  std::int64_t max_elements = 4096;  ///< per tensor
  std::string out_dir = "fuzz-failures";
  RunFlags flags;
  const Expectations* expectations = nullptr;  ///< known divergences: xfail, not failures
  /// Each failure shrunk for at most this long (scatterctl shrink's search, shrink.hpp), its
  /// minimal case written beside the drawn one as NAME.min.json; 0: not shrunk.
  double shrink_seconds = 5.0;
  /// The share of drawn cases (0 to 1) that are then spoiled in one index (out of range, or below
  /// -extent) and run as `expect_error: "index"`: a backend must refuse them; one that answers
  /// is a finding (out_of_range_skipped, the negative-index entries), one that crashes a
  /// memory-safety one. 0: every case valid.
  double invalid_share = 0.0;
};

/// One failing trial of a fuzz run.
struct FuzzFailure {
  std::string name;       ///< the drawn case, "fuzz-SEED-I"
  std::string backend;
  Status status = Status::failed;
  std::string cause;      ///< its catalogue name (diagnose.hpp); empty: none known
  /// Other entries that compute the output as closely; after the run, a failure whose `also`
  /// holds a cause more failures have is counted under that one (its `cause` becomes it).
  std::vector<std::string> also;
  std::string confirmed;  ///< how `cause` was confirmed (Cause::confirmed); empty: by its model alone
  std::string detail;     ///< the one-line verdict
  std::string case_file;  ///< the drawn case
  std::string minimal_file;  ///< the shrunk case (empty when not shrunk)
  std::int64_t elements = 0;          ///< the drawn case's data, indices and updates
  std::int64_t minimal_elements = 0;  ///< the shrunk case's
  std::int64_t minimal_data = 0;      ///< the shrunk case's data elements
  std::int64_t minimal_updates = 0;   ///< and its updates
  double shrink_seconds = 0.0;
  std::string shrink_stopped;  ///< why the shrinker stopped
  /// The shrunk case's output on the backend, and the spec's, element by element ("[1, 0, 3]"),
  /// where that case fails by a wrong output of at most kShownElements: what the kernel did,
  /// beside what it had to (empty otherwise).
  std::string minimal_output;
  std::string minimal_want;
  static constexpr std::int64_t kShownElements = 64;
};

/// Case `iteration` of the stream `seed`, as case-file JSON text (one case object).
/// Deterministic: the same (seed, iteration) gives the same text on every platform.
/// `within`: only ops, reductions, dtypes, index dtypes, ranks and features that a backend
/// declares (its exclusions and duplicate rules are left to the caller, which draws again
/// with the next `attempt`); nullptr draws from everything the spec allows.
std::string fuzz_case(std::uint64_t seed, std::int64_t iteration, std::int64_t max_elements,
                      const Capabilities* within = nullptr, int attempt = 0);

/// Whether a declaration admits any case at all (an op with a dtype, an index dtype).
bool declares_any_case(const Capabilities& within);

/// exact_verdict (compare.hpp) under a run's flags (--deterministic). External backends
/// (BackendRole::external) get the spec's comparison rules instead, through the trial.
inline std::string fuzz_verdict(const Case& c, const Tensor& got, const Tensor& want, const RunFlags& flags,
                                const std::vector<std::uint32_t>* hits = nullptr) {
  return exact_verdict(c, got, want, flags.deterministic, hits);
}

/// The group a failure is counted in: its cause; "none known" for a wrong output no catalogued bug
/// computes; "error" for a backend that raised, crashed or broke the protocol (no output to diagnose).
std::string fuzz_group(const FuzzFailure& failure);

struct FuzzSummary;
/// Counts the summary's failures by group into `causes`. A failure whose case cannot tell its
/// cause from others (`also`) goes to the one of them that most failures of the run have (its
/// `cause` becomes that one, and the first joins `also`): one bug seen many times is one group.
void group_by_cause(FuzzSummary& summary);

/// The tally of case x backend trials (verdicts: those not skipped); a case the generator made
/// invalid counts as a failure of its own.
struct FuzzSummary : Tally {
  std::int64_t cases = 0;
  /// Per backend label, the cases it ran (not skipped): each case is drawn within what one
  /// backend declares, in turn, so a backend that declares little still runs its share.
  std::map<std::string, std::int64_t> ran_on;
  std::vector<std::string> written;  ///< case files of the failures ("" where one could not be written)
  std::vector<std::string> unwritten;  ///< case files that could not be written, each with why
  std::vector<FuzzFailure> failures;  ///< each failing trial, in the order found
  std::map<std::string, int> causes;  ///< fuzz_group -> failures
  std::map<std::string, std::string> lost;  ///< backends lost mid-run (device faults), with the reason
  bool interrupted = false;
};

/// Runs `options.iterations` cases on `backends`; `progress` gets one line per
/// failure and a line now and then. Stops early on an interrupt (cancel.hpp).
FuzzSummary run_fuzz(const FuzzOptions& options, const std::vector<Backend*>& backends,
                     const std::function<void(const std::string&)>& progress);

}  // namespace scatter

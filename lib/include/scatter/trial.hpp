#pragma once
/// One case on one backend, once: availability, declared capabilities, the call, the
/// verdict (the spec's comparison, or the fuzzer's exact rule), the mapping of what the
/// backend threw, and the recorded divergences (xfail, XPASS). `run`, `bench` and `fuzz`
/// are drivers over it, so one backend answer has one status in all three
/// (docs/backends.md, "Statuses").

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/case_facts.hpp"
#include "scatter/compare.hpp"
#include "scatter/diagnose.hpp"
#include "scatter/expectations.hpp"
#include "scatter/result.hpp"

namespace scatter {

struct TrialOptions {
  RunFlags flags;
  const Expectations* expectations = nullptr;  ///< recorded divergences of external backends
  bool strict = false;                         ///< every XPASS fails
  /// fuzz: scatterctl's own backends (not external ones) are held to fuzz_verdict's exact
  /// rule (bit for bit where the order is fixed) instead of the spec's comparison.
  bool exact_builtins = false;
  /// The oracle is the only backend run: without `expected` nothing checks its output,
  /// so its trial is skipped (saying so), not passed.
  bool oracle_alone = false;
  /// Keep a failed output in Trial::output (failure bundles).
  bool keep_failed_output = false;
  /// A cause is named only where the backend passes the case without its trigger, one call more
  /// per trigger (confirm_trial_cause); off for the shrinker's candidates and bench's audits.
  bool confirm_causes = true;
};

struct Trial {
  Status status = Status::passed;
  std::string detail;                     ///< one line: the reason, the rule, the error
  std::optional<Comparison> comparison;   ///< when the output was compared by the spec's rules
  std::optional<Error> error;             ///< a backend's Error on a valid case
  std::optional<Outcome> outcome;         ///< how it went wrong, as expectations match it
  std::string expectation;                ///< the entry behind an xfail or XPASS
  bool strict = false;                    ///< an XPASS that fails the run
  bool checked = false;                   ///< the output was judged (the oracle without `expected` is not)
  std::string lowering;                   ///< what an external backend built for the case
  double seconds = 0.0;                   ///< the backend's own time of the call
  std::optional<Tensor> output;           ///< a failed output, with keep_failed_output
  /// A failed output's cause, from the catalogue of known bugs (diagnose.hpp); nullopt: none
  /// known explains it, or the trial did not fail on an output.
  std::optional<Cause> cause;
};

/// The trial in one line: its detail, or for a failed comparison how many elements differ
/// and the worst one (the progress lines of fuzz, bench's rows).
std::string one_line(const Trial& trial);

/// Whether the backend takes the case at all: a skipped Trial when it is unavailable (lost
/// mid-run) or its declared capabilities exclude the case; nullopt when it takes it.
std::optional<Trial> admit(const Backend& backend, const CaseFacts& facts);

/// Runs a valid case on the backend once and judges the answer.
Trial try_case(Backend& backend, const CaseFacts& facts, const TrialOptions& options);

/// The verdict on an output a call of the backend returned outside try_case (bench's audit of
/// its timed calls): what try_case would have judged it. `want`: what to compare with in place
/// of facts.want() (the reference's output of a call's varied inputs, which the case holds then).
Trial judge(Backend& backend, const CaseFacts& facts, const TrialOptions& options, Tensor output,
            const Tensor* want = nullptr);

/// The trial's cause kept only where it stands the test of its trigger (diagnose.hpp,
/// confirm_cause): the backend runs `c` with the trigger taken out, judged as try_case judges.
void confirm_trial_cause(Trial& t, Backend& backend, const Case& c, const TrialOptions& options);

/// Runs a case with expect_error `expected` on an external backend: a refusal passes, an
/// output fails, a crash is a memory-safety finding.
Trial try_invalid_case(Backend& backend, const CaseFacts& facts, ErrorCode expected, const TrialOptions& options);

/// The trial of a valid case whose call threw `failure` (bench's timed samples call the
/// backend outside try_case). Rethrows an interrupt.
Trial failed_trial(std::exception_ptr failure, const Backend& backend, const CaseFacts& facts,
                   const TrialOptions& options);

}  // namespace scatter

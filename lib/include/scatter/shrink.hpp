#pragma once
/// `scatterctl shrink`: delta debugging of a failing case. Smaller and simpler candidates are
/// tried while the case keeps failing the same way on the backend (the same status, and the
/// same cause where one is named, diagnose.hpp): updates dropped (halves, then singles), data's
/// dimensions cut, its rank lowered, values and indices made plain (0, 1, -1, integers, the
/// positive form), use_init_val false made true. Every candidate is written as case-file JSON
/// and read back through the loader, so each one the backend sees is a valid case
/// (docs/diagnoses.md, "Shrinking").

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "scatter/backend.hpp"
#include "scatter/case.hpp"
#include "scatter/trial.hpp"

namespace scatter {

struct ShrinkOptions {
  TrialOptions trial;          ///< how each candidate is judged (the failure's own options)
  double max_seconds = 30.0;   ///< --shrink-seconds: the search stops here, keeping the smallest so far
  std::int64_t max_calls = 2000;  ///< backend calls at the most, the confirming run of the minimal case among them
  /// The case is one the spec rejects for its indices (expect_error "index"): candidates must
  /// stay so, and the backend's output on them is the failure.
  bool invalid_indices = false;
  /// Each candidate the backend is given, as case-file JSON.
  std::function<void(const std::string&)> on_candidate;
};
// The search stops at the first candidate past max_seconds or max_calls, or after an interrupt:
// nothing is built past it. The original's call is never cut short (the backend's own time-out
// bounds each call).

struct ShrinkResult {
  bool fails = true;          ///< false: the case does not fail there, and nothing was shrunk
  Trial original;             ///< the failure kept while shrinking
  std::optional<Trial> last;  ///< the minimal case's trial; empty when no candidate was taken
  /// The minimal case's trial (the original's when no candidate was taken).
  const Trial& final_trial() const { return last ? *last : original; }
  std::optional<Case> minimal;
  std::string minimal_json;   ///< the minimal case as case-file JSON
  std::int64_t calls = 0;     ///< backend calls, the original's included
  std::int64_t rejected = 0;  ///< candidates the loader refused (never given to the backend)
  double seconds = 0.0;
  std::string stopped;        ///< why the search ended
  bool interrupted = false;   ///< SIGINT or SIGTERM ended it: the smallest case so far is kept, unconfirmed
  /// The minimal case, run again from its case file, failed the same way: false for a failure
  /// that no case file reproduces (a one-off, or one that only the original's `expected` made).
  bool confirmed = false;
};

/// A case's size as the shrinker counts it: the elements of data, indices and updates.
std::int64_t case_elements(const Case& c);

/// Shrinks `c`, which should fail on `backend` (its trial's status failed or error): the smallest
/// case found that fails the same way. A case that does not fail there comes back with `fails`
/// false and its trial.
ShrinkResult shrink_case(const Case& c, const std::string& name, Backend& backend, const ShrinkOptions& options);

}  // namespace scatter

#pragma once
/// Known divergences of a backend from the spec (docs/backends.md, "Expectations"): one
/// JSON file per backend, each entry with the features of the cases it covers, a reason
/// and a citation. A failure that an entry covers is xfail; a case that an entry names
/// (or a strict entry covers) and that now passes is XPASS.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scatter/capabilities.hpp"
#include "scatter/case.hpp"
#include "scatter/compare.hpp"
#include "scatter/load.hpp"
#include "scatter/model.hpp"

namespace scatter {

/// What went wrong, as an expectation's "outcome" names it.
enum class Outcome {
  failed,    ///< a wrong output (a comparison failed)
  error,     ///< the backend raised, crashed or timed out on a valid case
  rejected,  ///< the backend rejected a valid case
  accepted,  ///< the backend returned an output for a case with expect_error
};
std::string_view to_string(Outcome outcome);

struct Expectation {
  std::string id;
  std::string backend;
  std::string min_version;  ///< inclusive; "" = any (compared numerically, dot by dot)
  std::string max_version;  ///< inclusive; "" = any
  std::vector<std::string> cases;     ///< globs on case names; empty: any
  std::vector<Op> ops;                ///< empty: any
  std::vector<Reduction> reductions;  ///< empty: any
  std::vector<DType> dtypes;          ///< data dtypes; empty: any
  std::optional<bool> use_init_val;
  std::optional<bool> negative_indices;
  std::optional<bool> duplicates;
  std::vector<Outcome> outcomes;  ///< empty: any
  /// Alternatives of element features (kElement* bits): every differing element must
  /// have all the bits of at least one alternative. Empty: any elements.
  std::vector<std::uint32_t> elements;
  std::vector<std::string> message_contains;  ///< for error/rejected: one must occur
  /// What the backend computes (model.hpp). An entry that may cover a wrong output has one,
  /// or names its cases (an unmodelled entry: the report says so).
  std::optional<DivergenceModel> model;
  /// The minimal cases that show it, each with the backend's output as seen (values as a case
  /// file writes them): `expectations --check` runs the model on each.
  struct Reproduction {
    std::string case_name;
    std::string output_json;  ///< the "output" values, as JSON text
  };
  std::vector<Reproduction> reproduced_by;
  bool flaky = false;   ///< may pass (a race): never XPASS
  bool strict = false;  ///< XPASS fails the run even without --strict
  std::string reason;
  std::vector<std::string> citation;
  std::string file;  ///< where it was read from
};

struct Expectations {
  std::vector<Expectation> entries;

  /// The entry that covers this outcome of `backend` (at `version`) on the case, or null.
  /// `comparison` for failed; `message` for error/rejected.
  const Expectation* covering(std::string_view backend, std::string_view version, const Case& c,
                              const CaseFeatures& features, Outcome outcome, const Comparison* comparison,
                              std::string_view message) const;
  /// What the entries make of a wrong `output` (its comparison with the spec's failed): the
  /// narrowest entry whose model gives the same output under the case's comparison rules (by
  /// the rules it swaps, then by the conditions it names), else an unmodelled entry that names
  /// the case; null when none does. `tried`: for each modelled entry that matched the case but
  /// not the output, the first element where they differ. When no entry alone explains it,
  /// two modelled entries together may (`also`): a backend with two divergences on one case.
  struct Explanation {
    const Expectation* entry = nullptr;
    const Expectation* also = nullptr;
    std::vector<std::string> tried;
  };
  Explanation explaining(std::string_view backend, std::string_view version, const Case& c,
                         const CaseFeatures& features, const Comparison& comparison, const Tensor& output,
                         const CompareOptions& options) const;
  /// An entry that names this case (by `cases`), or is marked strict, is not flaky, and
  /// matches backend, version and case: a pass of such a case is XPASS.
  const Expectation* expecting_failure(std::string_view backend, std::string_view version, const Case& c,
                                       const CaseFeatures& features) const;
};

/// What `expectations --check` found for one entry.
struct EntryCheck {
  const Expectation* entry = nullptr;
  enum class Verdict { reproduced, unmodelled, failed } verdict = Verdict::failed;
  std::vector<std::string> problems;  ///< for failed: one line each ("case 'x': the model gives [...]")
};

/// Runs each entry's model on its minimal cases (`reproduced_by`, found among `cases` by name):
/// the model must give the output seen, under the case's comparison rules, the spec's output must
/// not (the case shows the divergence), and the entry's conditions must match the case.
std::vector<EntryCheck> check_expectations(const Expectations& expectations, const LoadResult& cases);

/// Reads one file, or every *.json in a directory. Throws Error(schema) naming the file and
/// the entry for a missing id/backend/reason/citation or an unknown key or name.
Expectations load_expectations(const std::string& path);

}  // namespace scatter

#pragma once
/// The catalogue of the bugs scatter kernels are known to have, each a divergence model
/// (model.hpp) with a name and a line that explains it, and the diagnosis of a wrong output:
/// the narrowest entry (or pair of entries) whose model computes that output under the case's
/// comparison rules (docs/diagnoses.md).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/compare.hpp"
#include "scatter/load.hpp"
#include "scatter/model.hpp"

namespace scatter {

struct Diagnosis {
  std::string name;         ///< "duplicates_applied_once"
  std::string explanation;  ///< one line: what the kernel did
  /// Any one of them computing the output names the entry (a bug with two forms: the last or
  /// the first update kept).
  std::vector<DivergenceModel> forms;
  /// Whether the entry can explain a failure of this case at all (nullptr: any case).
  bool (*applies)(const Case&) = nullptr;
  /// It drops or moves updates by their indices: it may explain an output returned for a case the
  /// spec rejects for an index (diagnose_accepted), and only such entries may.
  bool moves_indices = false;
  /// The case with the entry's trigger taken out ("negative indices spelled positive"), on which
  /// a kernel with this bug alone passes: nullopt where the case has no trigger to take out.
  /// nullptr where no such case can be made: the name stands on its model alone.
  std::optional<Case> (*without_trigger)(const Case&) = nullptr;
  std::string trigger_removed;  ///< what without_trigger does, for the report
};

/// Every entry, narrowest first (a tie goes to the first that computes the output).
const std::vector<Diagnosis>& diagnoses();

/// The entry called `name`; nullptr when there is none.
const Diagnosis* find_diagnosis(std::string_view name);

/// What a diagnosis found: one entry's name, or two joined by " + ".
struct Cause {
  std::string name;
  std::string explanation;
  /// Other entries that compute the output as closely (the case cannot tell them apart), in
  /// catalogue order; looked for on cases of up to kDiagnosePairsMaxElements.
  std::vector<std::string> also;
  /// How the name was confirmed ("passes with negative indices spelled positive"); empty where
  /// it was not (confirm_cause not run, or the entry has no trigger to take out).
  std::string confirmed;
};

/// The line that explains a cause's name (two names joined by " + " too); empty for a name the
/// catalogue lacks.
std::string cause_explanation(std::string_view name);

/// Cases larger than this many elements (data plus updates) are not diagnosed: each entry runs
/// the reference's loop again. Shrink the case first (`scatterctl shrink`).
inline constexpr std::int64_t kDiagnoseMaxElements = std::int64_t{1} << 20;
/// Pairs of entries are tried only on cases up to this size.
inline constexpr std::int64_t kDiagnosePairsMaxElements = std::int64_t{1} << 14;

/// The cause of `got`, a wrong output of a valid case: the narrowest entry, then pair, whose
/// model computes it under the case's comparison rules (`compare`: the case's indices and hits);
/// nullopt when none does ("no known bug explains it") or the case is too large.
std::optional<Cause> diagnose(const Case& c, const Tensor& got, const CompareOptions& compare = {});

/// Whether the backend whose output was diagnosed passes a case: nullopt where it could not run it.
using PassesCase = std::function<std::optional<bool>(const Case&)>;

/// A cause kept only where it stands the test of its trigger (docs/diagnoses.md, "Confirmed
/// names"): each name (the cause's, then its `also`) whose entry can take its trigger out of `c`
/// has the backend run that case. A name whose case still fails is dropped: another bug fails it.
/// One whose case passes is confirmed and put first. nullopt when every name is dropped; names
/// whose case could not be run or made, and pairs, are kept as they are.
std::optional<Cause> confirm_cause(Cause cause, const Case& c, const PassesCase& passes);

/// The cause of an output returned for a case the spec rejects for its indices (expect_error
/// "index"): the entries that drop or move such updates.
std::optional<Cause> diagnose_accepted(const Case& c, const Tensor& got);

/// One catalogue entry on its minimal case (`expectations --check`).
struct DiagnosisCheck {
  const Diagnosis* entry = nullptr;
  std::vector<std::string> problems;  ///< empty: it reproduces its case
};

/// Each entry on its minimal case, the case named `diagnosis_<name>` among `loaded` (the bundled
/// cases/diagnoses/): every form of its model computes an output that the exact rule fails
/// (--deterministic's: the case shows the bug), and the diagnosis of that output names the entry.
std::vector<DiagnosisCheck> check_diagnoses(const LoadResult& loaded);

}  // namespace scatter

#pragma once
/// The spec's comparison rules ("Comparison"): exact, any-of-duplicates for `none`,
/// allclose for float add/sub/mul/mean on elements hit more than once.

#include <cstdint>
#include <string>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/tensor.hpp"

namespace scatter {

enum class Rule { exact, any_of_duplicates, allclose };

/// Features of a differing element, matched by expectations files (expectations.hpp).
/// "Inputs" are the updates that target it and its data value where data enters the
/// result (use_init_val, or no update targets it); the value features are for floats only.
enum ElementFeature : std::uint32_t {
  kElementDup = 1u << 0,           ///< two or more updates target it
  kElementNanInvolved = 1u << 1,   ///< a NaN among its inputs
  kElementNanMismatch = 1u << 2,   ///< one of expected and actual is NaN, the other not
  kElementSignedZero = 1u << 3,    ///< expected and actual are zeros of opposite sign
  kElementZeroInvolved = 1u << 4,  ///< a zero among its inputs
  kElementInfInvolved = 1u << 5,   ///< an infinity among its inputs
  kElementNegIndex = 1u << 6,      ///< a negative index targets it
  kElementUntouched = 1u << 7,     ///< no update targets it
};
/// "dup", "nan_involved", ...; parse returns 0 for an unknown name.
std::string_view element_feature_name(ElementFeature feature);
std::uint32_t parse_element_feature(std::string_view name);
std::string_view to_string(Rule rule);

/// One differing element, with the updates that target it.
struct Mismatch {
  std::int64_t offset = 0;
  std::vector<std::int64_t> coord;
  std::string expected;
  std::string actual;
  double error = 0.0;  ///< |actual - expected|; infinity for NaN/inf disagreements
  Rule rule = Rule::exact;
  double allowed = 0.0;  ///< the tolerance the element had (allclose only)
  std::vector<std::vector<std::int64_t>> updates;  ///< update coordinates targeting it
  std::int64_t hits = 0;                           ///< how many updates target it
};

/// How far past the reordering bound a difference may be and still be offered a tolerance:
/// the bound is first order, and a backend may round intermediate results once more than the
/// reference (a float16 product through float32, a fused multiply-add).
inline constexpr double kOrderExplains = 4.0;

struct Comparison {
  bool passed = true;
  bool against_expected = false;  ///< false: against the reference output
  std::int64_t elements = 0;
  std::int64_t mismatches = 0;
  std::int64_t duplicate_elements = 0;   ///< elements targeted by two or more updates
  std::int64_t accepted_duplicates = 0;  ///< `none` elements equal to another duplicate's value
  double max_error = 0.0;                ///< largest |actual - expected| seen
  std::vector<std::int64_t> max_error_coord;
  std::string rule;  ///< the rule(s) applied, e.g. "exact", "allclose(atol=..., rtol=...)"
  /// The tolerance hint. A case's `tolerance` replaces the defaults of every element
  /// compared with allclose and changes nothing else. `needed_atol` is the smallest atol,
  /// rounded up to three significant digits (so that printing it with "{}" and reading
  /// it back gives the same double), that passes every allclose element together with
  /// `needed_rtol` (the case's own rtol when it has a tolerance, else 0): re-running with
  /// `"tolerance": {"atol": needed_atol, "rtol": needed_rtol}` passes. Infinity when no
  /// tolerance passes the case: a NaN or infinity disagrees on an allclose element, or an
  /// element compared exactly differs (`exact_mismatches` > 0). 0 when it passed.
  double needed_atol = 0.0;
  double needed_rtol = 0.0;
  /// Like needed_atol, over the allclose elements only (those a tolerance can change):
  /// finite unless a NaN or infinity disagrees on one of them.
  double allclose_atol = 0.0;
  /// The largest |actual - expected| of an allclose element as a multiple of the error that
  /// reordering its h updates could make (the default tolerance, h*eps*(sum|x| + |want|), plus
  /// h times the dtype's smallest normal, which a flush of subnormals could lose a step).
  /// Past kOrderExplains, a tolerance would hide a bug: the hint says so instead of offering one.
  double order_excess = 0.0;
  std::int64_t exact_mismatches = 0;  ///< differing elements compared exactly or any-of-duplicates
  bool tolerance_applies = false;     ///< some element is compared with allclose
  bool float_output = false;          ///< tolerances mean something only for float outputs
  std::vector<Mismatch> worst;  ///< the largest mismatches, worst first
  /// The distinct ElementFeature sets of every differing element (not only the worst).
  std::vector<std::uint32_t> mismatch_features;
};

struct CompareOptions {
  std::size_t max_reported = 5;
  /// The case's normalized indices and updates per output element (CaseFacts), when the
  /// caller has them: computed once per case, not once per backend. nullptr: computed here.
  const std::vector<std::int64_t>* indices = nullptr;
  const std::vector<std::uint32_t>* hits = nullptr;
  /// Untouched elements keep `want`'s bits rather than data's: a divergence model's output
  /// (model.hpp) may change them too (float64 computed in float32).
  bool untouched_from_want = false;
};

/// Compares a backend's output with the expected (or reference) output of a case.
Comparison compare_outputs(const Case& c, const Tensor& got, const Tensor& want, bool against_expected,
                           const CompareOptions& options = {});

/// --deterministic promises the same bits on every run, and the reference's bits wherever
/// an element takes at most this many updates (reduced one at a time, in update order).
/// Longer runs of duplicates may be reduced in a fixed tree of partial results (cuda:
/// sorted_runs.hpp), so that no thread reduces a million updates alone; they are compared
/// with the tolerance.
inline constexpr std::int64_t kDeterministicExactHits = 1024;

/// The exact verdict on an output (fuzz, and scatterctl's own backends everywhere): bit for bit
/// (any NaN equals any NaN) except in free order float add/sub/mul/mean, which get the spec's
/// tolerance, and `none`, whose duplicate targets may keep any candidate (`deterministic`: the
/// last; then the float reductions too are bit for bit where an element takes at most
/// kDeterministicExactHits updates). Empty when the output is right, else what is wrong.
/// `hits`: updates per output element when the caller has them (CaseFacts::hits).
std::string exact_verdict(const Case& c, const Tensor& got, const Tensor& want, bool deterministic,
                          const std::vector<std::uint32_t>* hits = nullptr);

/// Machine epsilon of a float dtype (2^-52, 2^-23, 2^-10, 2^-7).
double epsilon_of(DType dtype);

/// The smallest number of at most three significant decimal digits that is >= x (as a
/// double read back from its decimal text); 0 for x <= 0, x itself when not finite.
double round_up_3_digits(double x);

}  // namespace scatter

#pragma once
/// Divergence models: what a framework or a kernel computes where it departs from the spec,
/// as the reference with one or more of its rules swapped (docs/backends.md, "Expectations";
/// docs/diagnoses.md). An expectations entry with a model covers a wrong output only when the
/// output equals the model's, under the case's own comparison rules: an xfail can no longer
/// hide another bug. The catalogue of known bugs (diagnose.hpp) names failures by the same
/// models.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/tensor.hpp"

namespace scatter {

struct DivergenceModel {
  /// Each listed dtype computed in another: inputs converted (floats rounded to nearest,
  /// integers wrapped, bool as 0/1), the spec's steps in that type, the result converted back.
  std::map<DType, DType> compute_in;
  /// How floats are converted into `compute_in`'s type: IEEE (an infinity stays one, a value
  /// past the range becomes one), or saturating at the largest finite values.
  enum class ConvertIn { ieee, saturating } convert_in = ConvertIn::ieee;
  /// How a float result is converted back from `compute_in`'s type: to nearest, toward zero, or
  /// (to bfloat16) as OpenVINO's `bfloat16::round_to_nearest_even` does: `(bits + ((bits &
  /// 0x10000) >> 1)) >> 16` on the float32 bits, to nearest where the kept last bit is odd,
  /// truncated where it is even.
  enum class Rounding { nearest_even, toward_zero, nearest_if_odd } round_back = Rounding::nearest_even;
  /// Integer mean: the spec's floor, or C's truncation.
  enum class IntegerMean { floor, toward_zero } integer_mean = IntegerMean::floor;
  /// The spec's sum over count, or out = (out + u) / 2 at every update.
  enum class Mean { sum_over_count, running_pairwise } mean = Mean::sum_over_count;
  /// min and max: the spec's IEEE 754-2019 minimum/maximum (NaN wins, -0 < +0), or a
  /// comparison (`u > out ? u : out` keeps the existing value unless the update is better;
  /// `out > u ? out : u` takes the update unless the existing value is better), or NaN
  /// propagating with signed-zero ties going one way.
  enum class MinMax {
    ieee,
    keep_existing_unless_better,
    take_update_unless_worse,
    nan_propagates_ties_keep_existing,
    nan_propagates_ties_take_update,
    nan_ignored,  ///< fmin/fmax: a NaN loses to any number; signed zeros as the spec orders them
  } min_max = MinMax::ieee;
  /// Where use_init_val = false starts min/max: the spec's infinities, or the largest finite values.
  enum class MinMaxStart { infinity, largest_finite } min_max_start = MinMaxStart::infinity;
  /// Arithmetic steps read subnormal inputs as zero and flush subnormal results to zero.
  bool flush_subnormals = false;
  /// Several updates to one target: every one applied in order (the spec), or only the last
  /// (NumPy's `out[idx] += u`) or only the first.
  enum class Duplicates { all, last_only, first_only } duplicates = Duplicates::all;
  /// Negative indices: counted from the end (the spec), clamped to 0, or their updates dropped.
  enum class NegativeIndices { from_the_end, clamped, skipped } negative_indices = NegativeIndices::from_the_end;
  /// Indices outside the data (a case the spec rejects): refused (the spec: model_output throws),
  /// or their updates dropped (StableHLO's scatter).
  enum class OutOfRange { rejected, skipped } out_of_range = OutOfRange::rejected;
  /// use_init_val = false treated as true: the targets start from data, not the identity.
  bool init_val_ignored = false;
  /// mean's count: the spec's, one more for data although use_init_val is false, or one less
  /// (data left out of the count) although it is true.
  enum class MeanCount { spec, counts_data, ignores_data } mean_count = MeanCount::spec;
  /// The axis counted from the other end (rank - 1 - axis), where the case's shapes allow it.
  bool axis_from_the_end = false;
  /// bfloat16 add, sub, mul, min and max done on the raw bits as 16-bit integers.
  bool bfloat16_bits_as_integers = false;

  /// How many of the spec's rules it swaps: the fewer, the narrower the model.
  int rules_swapped() const;
  /// "compute_in float64->float32; min_max keep_existing_unless_better".
  std::string describe() const;
};

/// Both models' rules at once (a backend with two divergences on one case); nullopt when they
/// swap one rule two different ways.
std::optional<DivergenceModel> combined(const DivergenceModel& a, const DivergenceModel& b);

/// Where the model lands each index: negatives and indices outside the data under its rules,
/// the dropped ones at 0 (so that the comparison can count each element's updates on a case the
/// spec rejects). Throws Error(index) as model_output does.
std::vector<std::int64_t> model_targets(const Case& c, const DivergenceModel& model);

/// The case's output under the model. A rule the case gives no hold (the axis from the other end
/// where the shapes do not fit) leaves the spec's. Throws Error(index) on indices outside the
/// data unless the model drops them.
Tensor model_output(const Case& c, const DivergenceModel& model);

}  // namespace scatter

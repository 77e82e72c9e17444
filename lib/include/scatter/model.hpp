#pragma once
/// Divergence models: what a framework computes where it departs from the spec, as the
/// reference with one or more of its rules swapped (docs/backends.md, "Expectations"). An
/// expectations entry with a model covers a wrong output only when the output equals the
/// model's, under the case's own comparison rules: an xfail can no longer hide another bug.

#include <map>
#include <optional>
#include <string>

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
  /// How a float result is converted back from `compute_in`'s type.
  enum class Rounding { nearest_even, toward_zero } round_back = Rounding::nearest_even;
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
  } min_max = MinMax::ieee;
  /// Where use_init_val = false starts min/max: the spec's infinities, or the largest finite values.
  enum class MinMaxStart { infinity, largest_finite } min_max_start = MinMaxStart::infinity;
  /// Arithmetic steps read subnormal inputs as zero and flush subnormal results to zero.
  bool flush_subnormals = false;

  /// How many of the spec's rules it swaps: the fewer, the narrower the model.
  int rules_swapped() const;
  /// "compute_in float64->float32; min_max keep_existing_unless_better".
  std::string describe() const;
};

/// Both models' rules at once (a backend with two divergences on one case); nullopt when they
/// swap one rule two different ways.
std::optional<DivergenceModel> combined(const DivergenceModel& a, const DivergenceModel& b);

/// The case's output under the model.
Tensor model_output(const Case& c, const DivergenceModel& model);

}  // namespace scatter

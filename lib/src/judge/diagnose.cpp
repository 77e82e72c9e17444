// The catalogue of known bugs (scatter/diagnose.hpp), and the search for the one that computes
// a wrong output. Each entry is a divergence model (model.cpp): the reference's loop and step
// with one rule swapped, so that a name is given only where the rule reproduces the output.

#include "scatter/diagnose.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "core/targets.hpp"
#include "scatter/reference.hpp"

namespace scatter {
namespace {

using M = DivergenceModel;

// One model with one rule set by `set`.
template <class Set>
M rule(Set&& set) {
  M m;
  set(m);
  return m;
}

bool reduces(const Case& c) { return c.attrs.reduction != Reduction::none; }
bool is_min_max(const Case& c) { return c.attrs.reduction == Reduction::min || c.attrs.reduction == Reduction::max; }
bool is_mean(const Case& c) { return c.attrs.reduction == Reduction::mean; }
bool has_negative_index(const Case& c) {
  for (std::int64_t i = 0; i < c.indices.numel(); ++i) {
    if (index_at(c.indices, i) < 0) return true;
  }
  return false;
}
bool float_min_max(const Case& c) { return is_min_max(c) && is_float(c.data.dtype()); }
bool half_float(const Case& c) { return c.data.dtype() == DType::float16 || c.data.dtype() == DType::bfloat16; }

// The cases with a trigger taken out (Diagnosis::without_trigger), judged against the reference.
Case copy_of(const Case& c) {
  return Case{c.file, c.name, c.attrs, c.data.clone(), c.indices.clone(), c.updates.clone(), std::nullopt, c.tolerance};
}

std::optional<Case> negatives_spelled_positive(const Case& c) {
  if (c.attrs.op == Op::tensor_scatter || !has_negative_index(c)) return std::nullopt;
  auto out = copy_of(c);
  const auto positive = detail::normalized_indices(c);
  return detail::dispatch_index(out.indices.dtype(), [&](auto tag) -> std::optional<Case> {
    using I = typename decltype(tag)::type;
    auto* p = out.indices.data<I>();
    for (std::size_t i = 0; i < positive.size(); ++i) {
      if (positive[i] > std::numeric_limits<I>::max()) return std::nullopt;
      p[i] = static_cast<I>(positive[i]);
    }
    return std::move(out);
  });
}

std::optional<Case> init_val_flipped(const Case& c) {
  if (!reduces(c)) return std::nullopt;
  auto out = copy_of(c);
  out.attrs.use_init_val = !c.attrs.use_init_val;
  return out;
}

// NaN becomes 1 and -0 becomes +0, in data and updates: no order of a comparison matters then.
std::optional<Case> nan_and_negative_zero_replaced(const Case& c) {
  if (!is_float(c.data.dtype())) return std::nullopt;
  auto out = copy_of(c);
  bool changed = false;
  for (Tensor* t : {&out.data, &out.updates}) {
    detail::dispatch(t->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        auto* p = t->data<T>();
        for (std::int64_t i = 0; i < t->numel(); ++i) {
          const double v = detail::widen(p[i]);
          if (v == v && (v != 0.0 || !std::signbit(v))) continue;
          p[i] = detail::narrow_float<T>(v == v ? 0.0 : 1.0);
          changed = true;
        }
      }
    });
  }
  if (!changed) return std::nullopt;
  return out;
}

struct Trigger {
  std::optional<Case> (*remove)(const Case&) = nullptr;
  const char* removed = "";
};
constexpr Trigger kNegativeIndices{negatives_spelled_positive, "negative indices spelled positive"};
constexpr Trigger kInitVal{init_val_flipped, "use_init_val flipped"};
constexpr Trigger kNanAndNegativeZero{nan_and_negative_zero_replaced, "NaN and -0 replaced by 1 and +0"};
constexpr Trigger kNoTrigger{};

std::vector<Diagnosis> make_catalogue() {
  using D = M::Duplicates;
  using N = M::NegativeIndices;
  std::vector<Diagnosis> all;
  const auto add = [&](std::string name, std::string explanation, std::vector<M> forms, bool (*applies)(const Case&),
                       Trigger trigger = kNoTrigger) {
    const bool moves_indices = std::any_of(forms.begin(), forms.end(), [](const M& m) {
      return m.negative_indices != N::from_the_end || m.out_of_range != M::OutOfRange::rejected;
    });
    all.push_back({std::move(name), std::move(explanation), std::move(forms), applies, moves_indices, trigger.remove,
                   trigger.removed});
  };
  add("duplicates_applied_once",
      "a target hit by several updates took only one of them (NumPy's `out[idx] += u`, a kernel without atomics)",
      {rule([](M& m) { m.duplicates = D::last_only; }), rule([](M& m) { m.duplicates = D::first_only; })}, reduces);
  add("first_writer_wins", "of several updates to one target the first stayed, where the last must (--deterministic)",
      {rule([](M& m) { m.duplicates = D::first_only; })}, [](const Case& c) { return !reduces(c); });
  add("negative_indices_clamped", "negative indices were clamped to 0, not counted from the end",
      {rule([](M& m) { m.negative_indices = N::clamped; })}, has_negative_index, kNegativeIndices);
  add("negative_indices_skipped", "updates at negative indices were dropped, not counted from the end",
      {rule([](M& m) { m.negative_indices = N::skipped; })}, has_negative_index, kNegativeIndices);
  add("init_val_ignored", "use_init_val: false was treated as true: the targets started from data, not the identity",
      {rule([](M& m) { m.init_val_ignored = true; })}, [](const Case& c) { return reduces(c) && !c.attrs.use_init_val; },
      kInitVal);
  add("nan_ignored", "min/max dropped NaN (fmin/fmax), where the spec's NaN wins",
      {rule([](M& m) { m.min_max = M::MinMax::nan_ignored; })}, float_min_max, kNanAndNegativeZero);
  add("signed_zero_ignored", "min/max took -0 and +0 as equal, where the spec orders -0 < +0",
      {rule([](M& m) { m.min_max = M::MinMax::nan_propagates_ties_keep_existing; }),
       rule([](M& m) { m.min_max = M::MinMax::nan_propagates_ties_take_update; })},
      float_min_max, kNanAndNegativeZero);
  add("min_max_by_comparison",
      "min/max by one comparison (`u < out ? u : out`): NaN and signed zeros depend on the operands' order",
      {rule([](M& m) { m.min_max = M::MinMax::keep_existing_unless_better; }),
       rule([](M& m) { m.min_max = M::MinMax::take_update_unless_worse; })},
      float_min_max, kNanAndNegativeZero);
  add("min_max_start_largest_finite",
      "with use_init_val: false, min/max started from the largest finite values, not the infinities",
      {rule([](M& m) { m.min_max_start = M::MinMaxStart::largest_finite; })},
      [](const Case& c) { return float_min_max(c) && !c.attrs.use_init_val; }, kInitVal);
  add("integer_mean_toward_zero", "the integer mean was rounded toward zero, not toward negative infinity",
      {rule([](M& m) { m.integer_mean = M::IntegerMean::toward_zero; })},
      [](const Case& c) { return is_mean(c) && !is_float(c.data.dtype()); });
  add("mean_counts_data", "the mean counted data although use_init_val is false",
      {rule([](M& m) { m.mean_count = M::MeanCount::counts_data; })},
      [](const Case& c) { return is_mean(c) && !c.attrs.use_init_val; }, kInitVal);
  add("mean_ignores_data", "the mean left data out of its count although use_init_val is true",
      {rule([](M& m) { m.mean_count = M::MeanCount::ignores_data; })},
      [](const Case& c) { return is_mean(c) && c.attrs.use_init_val; }, kInitVal);
  add("mean_running_pairwise", "the mean was taken pairwise at every update, `out = (out + u) / 2`",
      {rule([](M& m) { m.mean = M::Mean::running_pairwise; })}, is_mean);
  add("float_steps_rounded_once", "float16/bfloat16 steps ran in float32 and were rounded once, at the end",
      {rule([](M& m) { m.compute_in = {{DType::float16, DType::float32}, {DType::bfloat16, DType::float32}}; })},
      [](const Case& c) { return reduces(c) && half_float(c); });
  add("wider_accumulator", "the steps ran in a wider type (float32 in float64, integers in int64), rounded at the end",
      {rule([](M& m) {
        m.compute_in = {{DType::float32, DType::float64}, {DType::int32, DType::int64}, {DType::int16, DType::int64},
                        {DType::int8, DType::int64}, {DType::uint8, DType::int64}};
      })},
      reduces);
  add("narrower_accumulator", "the steps ran in a narrower type (float64 in float32, int64 in int32)",
      {rule([](M& m) { m.compute_in = {{DType::float64, DType::float32}, {DType::int64, DType::int32}}; })}, nullptr);
  add("bool_computed_as_integer", "bool steps ran as integer arithmetic, then read back as nonzero",
      {rule([](M& m) { m.compute_in = {{DType::boolean, DType::int32}}; })},
      [](const Case& c) { return reduces(c) && c.data.dtype() == DType::boolean; });
  add("subnormals_flushed", "subnormal inputs and results were flushed to zero (DAZ/FTZ)",
      {rule([](M& m) { m.flush_subnormals = true; })}, [](const Case& c) { return reduces(c) && is_float(c.data.dtype()); });
  add("bfloat16_rounded_toward_zero", "bfloat16 results were computed in float32 and truncated, not rounded",
      {rule([](M& m) {
        m.compute_in = {{DType::bfloat16, DType::float32}};
        m.round_back = M::Rounding::toward_zero;
      })},
      [](const Case& c) { return reduces(c) && c.data.dtype() == DType::bfloat16; });
  add("bfloat16_odd_rounded_even_truncated",
      "bfloat16 results computed in float32, rounded to nearest where the kept last bit is odd and truncated where it "
      "is even (OpenVINO's `bfloat16::round_to_nearest_even`)",
      {rule([](M& m) {
        m.compute_in = {{DType::bfloat16, DType::float32}};
        m.round_back = M::Rounding::nearest_if_odd;
      })},
      [](const Case& c) { return reduces(c) && c.data.dtype() == DType::bfloat16; });
  add("bfloat16_bits_as_integers", "bfloat16 steps ran on the raw bits as 16-bit integers",
      {rule([](M& m) { m.bfloat16_bits_as_integers = true; })},
      [](const Case& c) { return reduces(c) && c.data.dtype() == DType::bfloat16; });
  add("axis_from_the_wrong_end", "the axis was counted from the other end (rank - 1 - axis)",
      {rule([](M& m) { m.axis_from_the_end = true; })},
      [](const Case& c) { return c.attrs.op == Op::scatter_elements || c.attrs.op == Op::scatter_update; });
  add("out_of_range_skipped", "updates at indices outside the data were dropped silently, not rejected (StableHLO/JAX)",
      {rule([](M& m) { m.out_of_range = M::OutOfRange::skipped; })}, nullptr);
  return all;
}

struct Tried {
  const Diagnosis* entry;
  const M* form;
};

// The entries that may explain a failure of `c`, each form once.
std::vector<Tried> candidates(const Case& c, bool accepted_invalid) {
  std::vector<Tried> out;
  for (const auto& d : diagnoses()) {
    if (accepted_invalid && !d.moves_indices) continue;
    if (d.applies && !d.applies(c)) continue;
    for (const auto& form : d.forms) out.push_back({&d, &form});
  }
  return out;
}

Cause cause_of(const Diagnosis& d) { return {d.name, d.explanation, {}, {}}; }

// How closely a model must compute `got`: bit for bit (any NaN equal to any NaN), or within the
// case's comparison rules (a kernel whose sums take another order).
enum class Match { exact, within_rules };

// Whether the model computes `got`. A model that cannot run on the case (indices it does not
// drop) computes nothing.
// `judged`: the case the comparison reads (`c` itself, or its indices where the model lands them).
bool computes(const Case& c, const Case& judged, const Tensor& got, const M& model, const CompareOptions& compare,
              Match match) {
  try {
    const auto want = model_output(c, model);
    if (match == Match::exact) return exact_verdict(judged, got, want, true, compare.hits).empty();
    auto options = compare;
    options.untouched_from_want = true;  // a model may change untouched elements too
    options.max_reported = 0;
    return compare_outputs(judged, got, want, false, options).passed;
  } catch (const Error&) {
    return false;
  }
}

// Single entries before pairs; in each, an exact match before one within the rules (a float sum's
// tolerance can admit another entry's output, but not its bits).
std::optional<Cause> search(const Case& c, const Case& judged, const Tensor& got, const CompareOptions& compare,
                            bool accepted_invalid) {
  if (c.data.numel() + c.updates.numel() > kDiagnoseMaxElements) return std::nullopt;
  const auto tried = candidates(c, accepted_invalid);
  const bool small = c.data.numel() + c.updates.numel() <= kDiagnosePairsMaxElements;
  for (const auto match : {Match::exact, Match::within_rules}) {
    std::optional<Cause> found;
    for (const auto& t : tried) {
      // One name an entry: its other forms add nothing.
      if (found && (found->name == t.entry->name ||
                    std::find(found->also.begin(), found->also.end(), t.entry->name) != found->also.end())) {
        continue;
      }
      if (!computes(c, judged, got, *t.form, compare, match)) continue;
      if (!found) {
        found = cause_of(*t.entry);
        if (!small) break;
      } else {
        found->also.push_back(t.entry->name);
      }
    }
    if (found) return found;
  }
  if (!small) return std::nullopt;
  for (const auto match : {Match::exact, Match::within_rules}) {
    for (std::size_t i = 0; i < tried.size(); ++i) {
      for (std::size_t j = i + 1; j < tried.size(); ++j) {
        if (tried[i].entry == tried[j].entry) continue;
        const auto both = combined(*tried[i].form, *tried[j].form);
        if (!both || !computes(c, judged, got, *both, compare, match)) continue;
        const auto name = fmt::format("{} + {}", tried[i].entry->name, tried[j].entry->name);
        return Cause{name, cause_explanation(name), {}, {}};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

const std::vector<Diagnosis>& diagnoses() {
  static const std::vector<Diagnosis> catalogue = make_catalogue();
  return catalogue;
}

const Diagnosis* find_diagnosis(std::string_view name) {
  const auto& all = diagnoses();
  const auto it = std::find_if(all.begin(), all.end(), [&](const Diagnosis& d) { return d.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::string cause_explanation(std::string_view name) {
  const auto plus = name.find(" + ");
  if (plus != std::string_view::npos) {
    const auto first = cause_explanation(name.substr(0, plus));
    const auto second = cause_explanation(name.substr(plus + 3));
    return first.empty() || second.empty() ? "" : fmt::format("{}; and {}", first, second);
  }
  const auto* d = find_diagnosis(name);
  return d ? d->explanation : "";
}

std::optional<Cause> diagnose(const Case& c, const Tensor& got, const CompareOptions& compare) {
  return search(c, c, got, compare, false);
}

std::optional<Cause> confirm_cause(Cause cause, const Case& c, const PassesCase& passes) {
  if (cause.name.find(" + ") != std::string::npos) return cause;
  std::vector<std::string> names{cause.name};
  names.insert(names.end(), cause.also.begin(), cause.also.end());
  std::map<std::string, std::optional<bool>> passed_without;  // by trigger: entries may share one
  std::vector<std::string> kept;
  std::string confirmed;
  for (const auto& name : names) {
    const auto* d = find_diagnosis(name);
    if (!d || !d->without_trigger) {
      kept.push_back(name);
      continue;
    }
    auto [it, fresh] = passed_without.try_emplace(d->trigger_removed);
    if (fresh) {
      if (const auto without = d->without_trigger(c)) it->second = passes(*without);
    }
    if (it->second && !*it->second) continue;  // it fails without the trigger too: some other bug
    if (it->second && confirmed.empty()) {
      confirmed = "passes with " + d->trigger_removed;
      kept.insert(kept.begin(), name);
    } else {
      kept.push_back(name);
    }
  }
  if (kept.empty()) return std::nullopt;
  Cause out{kept.front(), cause_explanation(kept.front()), {kept.begin() + 1, kept.end()}, confirmed};
  return out;
}

std::optional<Cause> diagnose_accepted(const Case& c, const Tensor& got) {
  // tensor_scatter's write positions are no entry's concern.
  if (c.attrs.op == Op::tensor_scatter || got.dtype() != c.data.dtype() || got.shape() != c.data.shape()) {
    return std::nullopt;
  }
  // The comparison reads the case with each index where a dropping model lands it (dropped ones
  // at 0): the spec's indices fall outside the data.
  M dropping;
  dropping.out_of_range = M::OutOfRange::skipped;
  const auto targets = model_targets(c, dropping);
  Tensor landed(DType::int64, c.indices.shape());
  std::copy(targets.begin(), targets.end(), landed.data<std::int64_t>());
  const Case judged{c.file, c.name, c.attrs, c.data.clone(), std::move(landed), c.updates.clone(), std::nullopt,
                    c.tolerance};
  const auto hits = detail::hits_per_element(judged, targets);
  CompareOptions compare;
  compare.indices = &targets;
  compare.hits = &hits;
  return search(c, judged, got, compare, true);
}

std::vector<DiagnosisCheck> check_diagnoses(const LoadResult& loaded) {
  std::vector<DiagnosisCheck> checks;
  for (const auto& d : diagnoses()) {
    DiagnosisCheck check{&d, {}};
    const auto name = "diagnosis_" + d.name;
    const auto entry = std::find_if(loaded.cases.begin(), loaded.cases.end(), [&](const CaseEntry& e) { return e.name == name; });
    if (entry == loaded.cases.end() || !entry->decl) {
      check.problems.push_back(entry == loaded.cases.end()
                                   ? fmt::format("no case named '{}' (cases/diagnoses/{}.json)", name, d.name)
                                   : fmt::format("its case '{}' is invalid: {}", name,
                                                 entry->error ? entry->error->message() : "no declaration"));
      checks.push_back(std::move(check));
      continue;
    }
    try {
      const bool invalid = entry->expect_error == ErrorCode::index;
      const auto c = invalid ? materialize_unchecked(*entry->decl) : materialize(*entry->decl);
      for (std::size_t f = 0; f < d.forms.size(); ++f) {
        const auto got = model_output(c, d.forms[f]);
        if (!invalid && exact_verdict(c, got, reference_scatter(c), true).empty()) {
          check.problems.push_back(fmt::format("form {} ({}) computes the spec's output on '{}': the case shows no bug",
                                               f + 1, d.forms[f].describe(), name));
          continue;
        }
        const auto cause = invalid ? diagnose_accepted(c, got) : diagnose(c, got);
        if (!cause || cause->name != d.name) {
          check.problems.push_back(fmt::format("form {} ({}): its output on '{}' is diagnosed as {}", f + 1,
                                               d.forms[f].describe(), name, cause ? cause->name : "nothing"));
        }
      }
    } catch (const Error& e) {
      check.problems.push_back(fmt::format("'{}': {}", name, e.message()));
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace scatter

// Divergence models (scatter/model.hpp): the reference's own loop and step (scatter_loop.hpp,
// reduce_step.hpp) with a framework's rule in place of the spec's, never a second
// implementation of the op.

#include "scatter/model.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "core/scatter_loop.hpp"
#include "core/targets.hpp"

namespace scatter {
namespace detail {
namespace {

using Model = DivergenceModel;

template <class T>
double smallest_normal() {
  if constexpr (std::is_same_v<T, double>) return std::numeric_limits<double>::min();
  if constexpr (std::is_same_v<T, Float16>) return 6.103515625e-05;  // 2^-14
  return std::numeric_limits<float>::min();                          // float, bfloat16: 2^-126
}

template <class T>
T largest_finite(bool negative) {
  T v{};
  if constexpr (std::is_same_v<T, Float16>) {
    v.bits = 0x7BFF;  // 65504
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    v.bits = 0x7F7F;  // 3.3895314e+38
  } else {
    v = std::numeric_limits<T>::max();
  }
  return negative ? Num<T>::from(-Num<T>::to(v)) : v;
}

// A subnormal as a zero of its sign (DAZ on inputs, FTZ on results).
template <class T>
T flushed(T v) {
  const double x = Num<T>::to(v);
  return x != 0 && std::fabs(x) < smallest_normal<T>() ? Num<T>::from(std::copysign(0.0, x)) : v;
}

// One step toward zero from a value rounded away from it.
template <class T>
T toward_zero(T rounded) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    rounded.bits = static_cast<std::uint16_t>(rounded.bits - 1);  // sign and magnitude: one ulp less
    return rounded;
  } else {
    return std::nextafter(rounded, T{0});
  }
}

// One element converted between the types `compute_in` relates.
template <class To, class From>
To convert_one(From v, Model::Rounding rounding, bool saturating) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Bool>) {
    if constexpr (kIsFloat<To>) return Num<To>::from(v.value);
    else return static_cast<To>(v.value);
  } else if constexpr (std::is_same_v<To, Bool>) {
    if constexpr (kIsFloat<From>) return Bool{static_cast<std::uint8_t>(Num<From>::to(v) != 0)};
    else return Bool{static_cast<std::uint8_t>(v != 0)};
  } else if constexpr (kIsFloat<To> && kIsFloat<From>) {
    const double x = Num<From>::to(v);
    if constexpr (std::is_same_v<To, BFloat16>) {
      if (rounding == Model::Rounding::nearest_if_odd && !std::isnan(x)) {
        const auto b = std::bit_cast<std::uint32_t>(static_cast<float>(x));
        return BFloat16{static_cast<std::uint16_t>((b + ((b & 0x10000u) >> 1)) >> 16)};
      }
    }
    To r = Num<To>::from(x);
    if (saturating && !std::isnan(x) && std::isinf(Num<To>::to(r))) return largest_finite<To>(x < 0);
    const double back = Num<To>::to(r);
    if (rounding == Model::Rounding::toward_zero && std::isfinite(x) && back != x && std::fabs(back) > std::fabs(x)) {
      r = toward_zero(r);
    }
    return r;
  } else if constexpr (!kIsFloat<To> && !kIsFloat<From>) {
    return static_cast<To>(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));  // wraps
  } else {
    SCATTER_ASSERT(false && "compute_in relates floats to floats and integers to integers");
    return To{};
  }
}

Tensor convert(const Tensor& from, DType to, Model::Rounding rounding, bool saturating = false) {
  Tensor out(to, from.shape());
  dispatch(from.dtype(), [&](auto from_tag) {
    using F = typename decltype(from_tag)::type;
    dispatch(to, [&](auto to_tag) {
      using T = typename decltype(to_tag)::type;
      const F* src = from.data<F>();
      T* dst = out.data<T>();
      for (std::int64_t i = 0; i < from.numel(); ++i) dst[i] = convert_one<T>(src[i], rounding, saturating);
    });
  });
  return out;
}

// Which index position a run of updates comes from: the element (scatter_elements), the tuple
// (scatter_nd) or the index along the axis (scatter_update); the rules that drop updates are
// decided per index.
struct RunPositions {
  Op op;
  std::int64_t count;  // scatter_update: the indices

  std::size_t of(std::int64_t ui, std::int64_t len) const {
    if (len <= 0) return 0;
    if (op == Op::scatter_nd) return static_cast<std::size_t>(ui / len);
    if (op == Op::scatter_update) return static_cast<std::size_t>((ui / len) % count);
    return static_cast<std::size_t>(ui);
  }
};

// The updates the model drops, by index position (empty: none), and the indices the others land
// at: negatives and indices outside the data under the model's rules.
std::vector<std::int64_t> model_indices(const Case& c, const Model& m, std::vector<std::uint8_t>& dropped) {
  if (c.attrs.op == Op::tensor_scatter) return normalized_indices(c);
  const auto n = c.indices.numel();
  const auto k = c.indices.rank() == 0 ? 1 : c.indices.shape().back();
  const bool tuples = c.attrs.op == Op::scatter_nd;
  const auto& shape = c.data.shape();
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto extent = shape[static_cast<std::size_t>(tuples ? i % k : c.attrs.axis)];
    const auto position = static_cast<std::size_t>(tuples ? i / k : i);
    auto v = index_at(c.indices, i);
    bool drop = false;
    if (v < 0 && m.negative_indices != Model::NegativeIndices::from_the_end) {
      drop = m.negative_indices == Model::NegativeIndices::skipped;
      v = 0;
    } else if (v < 0 && c.attrs.op != Op::scatter_update) {
      v += extent;  // scatter_update has no negative indices: one is outside the data
    }
    if (v < 0 || v >= extent) {
      if (m.out_of_range == Model::OutOfRange::rejected) {
        throw Error(ErrorCode::index, fmt::format("inputs.indices (offset {})", i),
                    fmt::format("= {} is outside the data, which the model does not drop", index_at(c.indices, i)));
      }
      drop = true;
      v = 0;
    }
    if (drop) {
      if (dropped.empty()) dropped.assign(static_cast<std::size_t>(tuples ? n / k : n), 0);
      dropped[position] = 1;
    }
    idx[static_cast<std::size_t>(i)] = v;
  }
  return idx;
}

// Duplicates::last_only and first_only: per output element, the update offset of the one run
// that reaches it (-1: none); empty when every update is applied.
std::vector<std::int64_t> chosen_runs(const Case& c, const std::vector<std::int64_t>& idx, const Model& m,
                                      const std::vector<std::uint8_t>& dropped, const RunPositions& positions) {
  if (m.duplicates == Model::Duplicates::all) return {};
  std::vector<std::int64_t> chosen(static_cast<std::size_t>(c.data.numel()), -1);
  visit_targets(c, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
    if (!dropped.empty() && dropped[positions.of(ui, len)]) return;
    auto& first = chosen[static_cast<std::size_t>(oi)];
    if (m.duplicates == Model::Duplicates::last_only || first < 0) first = ui;
  });
  return chosen;
}

// The axis counted from the other end, where the case's shapes and indices fit it.
std::optional<std::int64_t> other_end_axis(const Case& c) {
  if (c.attrs.op != Op::scatter_elements && c.attrs.op != Op::scatter_update) return std::nullopt;
  const auto& data = c.data.shape();
  const auto& indices = c.indices.shape();
  const auto axis = static_cast<std::int64_t>(data.size()) - 1 - c.attrs.axis;
  if (c.attrs.axis < 0 || axis == c.attrs.axis) return std::nullopt;
  const auto extent = data[static_cast<std::size_t>(axis)];
  const auto lowest = c.attrs.op == Op::scatter_update ? 0 : -extent;
  for (std::int64_t i = 0; i < c.indices.numel(); ++i) {
    const auto v = index_at(c.indices, i);
    if (v < lowest || v >= extent) return std::nullopt;
  }
  if (c.attrs.op == Op::scatter_elements) {
    for (std::size_t d = 0; d < data.size(); ++d) {
      if (static_cast<std::int64_t>(d) != axis && indices[d] > data[d]) return std::nullopt;
    }
    return axis;
  }
  Shape updates(data.begin(), data.begin() + axis);
  updates.insert(updates.end(), indices.begin(), indices.end());
  updates.insert(updates.end(), data.begin() + axis + 1, data.end());
  return updates == c.updates.shape() ? std::optional<std::int64_t>(axis) : std::nullopt;
}

// The spec's step with the model's rules swapped in.
class ModelStep {
 public:
  ModelStep(const Model& model, const Case& on) : m_(model), use_init_val_(on.attrs.use_init_val) {}

  template <class T>
  T combine(Reduction r, T out, T u) const {
    if constexpr (kIsFloat<T>) {
      if (!m_.flush_subnormals || r == Reduction::none) return step(r, out, u);
      return flushed(step(r, flushed(out), flushed(u)));
    } else {
      return step(r, out, u);
    }
  }

  template <class T>
  T identity(Reduction r) const {
    if constexpr (kIsFloat<T>) {
      if (m_.min_max_start == Model::MinMaxStart::largest_finite && (r == Reduction::min || r == Reduction::max)) {
        return largest_finite<T>(r == Reduction::max);
      }
    }
    return detail::identity<T>(r);
  }

  template <class T>
  T mean(T sum, std::int64_t count) const {
    if (m_.mean == Model::Mean::running_pairwise) return sum;  // averaged at every step already
    if (m_.mean_count == Model::MeanCount::counts_data && !use_init_val_) ++count;
    if (m_.mean_count == Model::MeanCount::ignores_data && use_init_val_ && count > 1) --count;
    return divide(sum, count);
  }

 private:
  template <class T>
  T divide(T sum, std::int64_t count) const {
    if constexpr (!kIsFloat<T> && !std::is_same_v<T, Bool>) {
      if (m_.integer_mean == Model::IntegerMean::toward_zero) {
        return static_cast<T>(static_cast<std::int64_t>(sum) / count);
      }
    }
    return mean_of(sum, count);
  }

  template <class T>
  T step(Reduction r, T out, T u) const {
    if constexpr (std::is_same_v<T, BFloat16>) {
      if (m_.bfloat16_bits_as_integers && r != Reduction::mean) return bits_as_integers(r, out, u);
    }
    if constexpr (!std::is_same_v<T, Bool>) {  // the spec has no mean of bool
      if (r == Reduction::mean && m_.mean == Model::Mean::running_pairwise) {
        return divide(detail::combine(Reduction::add, out, u), 2);
      }
    }
    if constexpr (kIsFloat<T>) {
      if ((r == Reduction::min || r == Reduction::max) && m_.min_max != Model::MinMax::ieee) {
        return min_max(r == Reduction::min, out, u);
      }
    }
    return detail::combine(r, out, u);
  }

  // `better(a, b)`: a compares smaller (min) or greater (max) than b; false with a NaN.
  template <class T>
  T min_max(bool min, T out, T u) const {
    const double o = Num<T>::to(out);
    const double n = Num<T>::to(u);
    const auto better = [min](double a, double b) { return min ? a < b : a > b; };
    switch (m_.min_max) {
      case Model::MinMax::keep_existing_unless_better:
        return better(n, o) ? u : out;
      case Model::MinMax::take_update_unless_worse:
        return better(o, n) ? out : u;
      case Model::MinMax::nan_propagates_ties_keep_existing:
        if (o != o) return out;
        if (n != n) return u;
        return better(n, o) ? u : out;
      case Model::MinMax::nan_propagates_ties_take_update:
        if (o != o) return out;
        if (n != n) return u;
        return better(o, n) ? out : u;
      case Model::MinMax::nan_ignored:
        if (o != o) return u;
        if (n != n) return out;
        break;
      case Model::MinMax::ieee:
        break;
    }
    return detail::combine(min ? Reduction::min : Reduction::max, out, u);
  }

  // A bfloat16 step on the bits as int16: wrapping arithmetic, signed comparison.
  static BFloat16 bits_as_integers(Reduction r, BFloat16 out, BFloat16 u) {
    const auto a = static_cast<std::int16_t>(out.bits);
    const auto b = static_cast<std::int16_t>(u.bits);
    switch (r) {
      case Reduction::min:
        return a < b ? out : u;
      case Reduction::max:
        return a < b ? u : out;
      case Reduction::none:
        return u;
      default:
        return BFloat16{static_cast<std::uint16_t>(detail::combine(r, a, b))};
    }
  }

  const Model& m_;
  bool use_init_val_;
};

// The runs of updates the model leaves out: those of dropped indices, and all but one per target
// under Duplicates::last_only and first_only.
class Dropping : public NoHook {
 public:
  Dropping(const std::vector<std::uint8_t>& dropped, const std::vector<std::int64_t>& chosen,
           const RunPositions& positions)
      : dropped_(dropped), chosen_(chosen), positions_(positions) {}

  bool skips(std::int64_t ui, std::int64_t oi, std::int64_t len) const {
    if (!dropped_.empty() && dropped_[positions_.of(ui, len)]) return true;
    return !chosen_.empty() && chosen_[static_cast<std::size_t>(oi)] != ui;
  }
  bool drops_any() const { return !dropped_.empty() || !chosen_.empty(); }

 private:
  const std::vector<std::uint8_t>& dropped_;
  const std::vector<std::int64_t>& chosen_;
  const RunPositions& positions_;
};

// use_init_val = false: the loop started every target from the identity, the targets of the runs
// left out too; those that no kept run reaches hold data again (a kernel that drops an update
// never touches its target).
void restore_untouched(const Case& on, const std::vector<std::int64_t>& idx, const Dropping& dropping, Tensor& out) {
  if (on.attrs.use_init_val || on.attrs.reduction == Reduction::none || !dropping.drops_any()) return;
  std::vector<std::uint8_t> kept(static_cast<std::size_t>(out.numel()), 0);
  std::vector<std::uint8_t> reached(kept.size(), 0);
  visit_targets(on, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
    auto& mark = dropping.skips(ui, oi, len) ? reached : kept;
    std::fill(mark.begin() + oi, mark.begin() + oi + len, 1);
  });
  const auto element = size_of(out.dtype());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (reached[i] && !kept[i]) std::memcpy(out.bytes() + i * element, on.data.bytes() + i * element, element);
  }
}

}  // namespace
}  // namespace detail

int DivergenceModel::rules_swapped() const {
  return static_cast<int>(!compute_in.empty()) + (convert_in != ConvertIn::ieee) + (round_back != Rounding::nearest_even) +
         (integer_mean != IntegerMean::floor) + (mean != Mean::sum_over_count) + (min_max != MinMax::ieee) +
         (min_max_start != MinMaxStart::infinity) + flush_subnormals + (duplicates != Duplicates::all) +
         (negative_indices != NegativeIndices::from_the_end) + (out_of_range != OutOfRange::rejected) + init_val_ignored +
         (mean_count != MeanCount::spec) + axis_from_the_end + bfloat16_bits_as_integers;
}

std::string DivergenceModel::describe() const {
  std::vector<std::string> parts;
  for (const auto& [from, to] : compute_in) parts.push_back(fmt::format("{} computed in {}", to_string(from), to_string(to)));
  if (convert_in == ConvertIn::saturating) parts.emplace_back("saturating at the largest finite values");
  if (round_back == Rounding::toward_zero) parts.emplace_back("rounded back toward zero");
  if (round_back == Rounding::nearest_if_odd) {
    parts.emplace_back("rounded back to nearest where the kept last bit is odd, truncated where it is even");
  }
  if (integer_mean == IntegerMean::toward_zero) parts.emplace_back("integer mean toward zero");
  if (mean == Mean::running_pairwise) parts.emplace_back("running pairwise mean");
  constexpr const char* kMinMax[] = {"ieee", "keep the existing value unless the update is better",
                                     "take the update unless the existing value is better",
                                     "NaN propagates, signed-zero ties keep the existing value",
                                     "NaN propagates, signed-zero ties take the update", "NaN ignored (fmin/fmax)"};
  if (min_max != MinMax::ieee) parts.emplace_back(fmt::format("min/max: {}", kMinMax[static_cast<int>(min_max)]));
  if (min_max_start == MinMaxStart::largest_finite) parts.emplace_back("min/max start from the largest finite values");
  if (flush_subnormals) parts.emplace_back("subnormals flushed to zero");
  if (duplicates != Duplicates::all) {
    parts.emplace_back(duplicates == Duplicates::last_only ? "only the last update to a target applied"
                                                           : "only the first update to a target applied");
  }
  if (negative_indices != NegativeIndices::from_the_end) {
    parts.emplace_back(negative_indices == NegativeIndices::clamped ? "negative indices clamped to 0"
                                                                    : "updates at negative indices dropped");
  }
  if (out_of_range == OutOfRange::skipped) parts.emplace_back("updates outside the data dropped");
  if (init_val_ignored) parts.emplace_back("use_init_val false treated as true");
  if (mean_count != MeanCount::spec) {
    parts.emplace_back(mean_count == MeanCount::counts_data ? "mean counts data although use_init_val is false"
                                                            : "mean leaves data out of its count");
  }
  if (axis_from_the_end) parts.emplace_back("the axis counted from the other end");
  if (bfloat16_bits_as_integers) parts.emplace_back("bfloat16 steps on the bits as int16");
  return parts.empty() ? "the spec" : fmt::format("{}", fmt::join(parts, "; "));
}

std::optional<DivergenceModel> combined(const DivergenceModel& a, const DivergenceModel& b) {
  DivergenceModel m = a;
  bool clash = false;
  // b's rule where a keeps the spec's; a clash where both swap it, differently.
  const auto take = [&clash](auto& mine, const auto& theirs, const auto& spec) {
    if (theirs == spec || theirs == mine) return;
    if (mine != spec) clash = true;
    mine = theirs;
  };
  for (const auto& [from, to] : b.compute_in) {
    const auto [it, inserted] = m.compute_in.emplace(from, to);
    if (!inserted && it->second != to) clash = true;
  }
  using M = DivergenceModel;
  take(m.convert_in, b.convert_in, M::ConvertIn::ieee);
  take(m.round_back, b.round_back, M::Rounding::nearest_even);
  take(m.integer_mean, b.integer_mean, M::IntegerMean::floor);
  take(m.mean, b.mean, M::Mean::sum_over_count);
  take(m.min_max, b.min_max, M::MinMax::ieee);
  take(m.min_max_start, b.min_max_start, M::MinMaxStart::infinity);
  take(m.duplicates, b.duplicates, M::Duplicates::all);
  take(m.negative_indices, b.negative_indices, M::NegativeIndices::from_the_end);
  take(m.out_of_range, b.out_of_range, M::OutOfRange::rejected);
  take(m.mean_count, b.mean_count, M::MeanCount::spec);
  m.flush_subnormals = a.flush_subnormals || b.flush_subnormals;
  m.init_val_ignored = a.init_val_ignored || b.init_val_ignored;
  m.axis_from_the_end = a.axis_from_the_end || b.axis_from_the_end;
  m.bfloat16_bits_as_integers = a.bfloat16_bits_as_integers || b.bfloat16_bits_as_integers;
  if (clash) return std::nullopt;
  return m;
}

std::vector<std::int64_t> model_targets(const Case& c, const DivergenceModel& model) {
  std::vector<std::uint8_t> dropped;
  return detail::model_indices(c, model, dropped);
}

Tensor model_output(const Case& c, const DivergenceModel& model) {
  Attributes attrs = c.attrs;
  if (model.init_val_ignored) attrs.use_init_val = true;
  if (model.axis_from_the_end) attrs.axis = detail::other_end_axis(c).value_or(attrs.axis);
  const auto it = model.compute_in.find(c.data.dtype());
  const DType computed_in = it == model.compute_in.end() ? c.data.dtype() : it->second;
  const bool converts = computed_in != c.data.dtype();
  const auto in = [&](const Tensor& t) {
    const bool saturating = model.convert_in == DivergenceModel::ConvertIn::saturating;
    return converts ? detail::convert(t, computed_in, DivergenceModel::Rounding::nearest_even, saturating) : t.clone();
  };
  const Case on{c.file, c.name, attrs, in(c.data), c.indices.clone(), in(c.updates), std::nullopt, std::nullopt};
  std::vector<std::uint8_t> dropped;
  const auto idx = detail::model_indices(on, model, dropped);
  const detail::RunPositions positions{on.attrs.op, on.indices.numel()};
  const auto chosen = detail::chosen_runs(on, idx, model, dropped, positions);
  const detail::Dropping dropping(dropped, chosen, positions);
  Tensor out = on.data.clone();
  detail::dispatch(computed_in, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::scatter_loop<T>(on, idx, out, detail::Dropping(dropping), detail::ModelStep(model, on));
  });
  detail::restore_untouched(on, idx, dropping, out);
  if (!converts) return out;
  return detail::convert(out, c.data.dtype(), model.round_back);
}

}  // namespace scatter

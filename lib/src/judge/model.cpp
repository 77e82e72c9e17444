// Divergence models (scatter/model.hpp): the reference's own loop and step (scatter_loop.hpp,
// reduce_step.hpp) with a framework's rule in place of the spec's, never a second
// implementation of the op.

#include "scatter/model.hpp"

#include <cmath>
#include <limits>
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

// The spec's step with the model's rules swapped in.
class ModelStep {
 public:
  explicit ModelStep(const Model& model) : m_(model) {}

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
      case Model::MinMax::ieee:
        break;
    }
    return detail::combine(min ? Reduction::min : Reduction::max, out, u);
  }

  const Model& m_;
};

}  // namespace
}  // namespace detail

int DivergenceModel::rules_swapped() const {
  return static_cast<int>(!compute_in.empty()) + (convert_in != ConvertIn::ieee) + (round_back != Rounding::nearest_even) +
         (integer_mean != IntegerMean::floor) + (mean != Mean::sum_over_count) + (min_max != MinMax::ieee) +
         (min_max_start != MinMaxStart::infinity) + flush_subnormals;
}

std::string DivergenceModel::describe() const {
  std::vector<std::string> parts;
  for (const auto& [from, to] : compute_in) parts.push_back(fmt::format("{} computed in {}", to_string(from), to_string(to)));
  if (convert_in == ConvertIn::saturating) parts.emplace_back("saturating at the largest finite values");
  if (round_back == Rounding::toward_zero) parts.emplace_back("rounded back toward zero");
  if (integer_mean == IntegerMean::toward_zero) parts.emplace_back("integer mean toward zero");
  if (mean == Mean::running_pairwise) parts.emplace_back("running pairwise mean");
  constexpr const char* kMinMax[] = {"ieee", "keep the existing value unless the update is better",
                                     "take the update unless the existing value is better",
                                     "NaN propagates, signed-zero ties keep the existing value",
                                     "NaN propagates, signed-zero ties take the update"};
  if (min_max != MinMax::ieee) parts.emplace_back(fmt::format("min/max: {}", kMinMax[static_cast<int>(min_max)]));
  if (min_max_start == MinMaxStart::largest_finite) parts.emplace_back("min/max start from the largest finite values");
  if (flush_subnormals) parts.emplace_back("subnormals flushed to zero");
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
  m.flush_subnormals = a.flush_subnormals || b.flush_subnormals;
  if (clash) return std::nullopt;
  return m;
}

Tensor model_output(const Case& c, const DivergenceModel& model) {
  const auto it = model.compute_in.find(c.data.dtype());
  const DType computed_in = it == model.compute_in.end() ? c.data.dtype() : it->second;
  const auto idx = detail::normalized_indices(c);
  const auto run = [&](const Case& on) {
    Tensor out = on.data.clone();
    detail::dispatch(computed_in, [&](auto tag) {
      using T = typename decltype(tag)::type;
      detail::scatter_loop<T>(on, idx, out, detail::NoHook{}, detail::ModelStep(model));
    });
    return out;
  };
  if (computed_in == c.data.dtype()) return run(c);
  const auto nearest = DivergenceModel::Rounding::nearest_even;
  const bool saturating = model.convert_in == DivergenceModel::ConvertIn::saturating;
  const Case converted{c.file, c.name, c.attrs, detail::convert(c.data, computed_in, nearest, saturating),
                       c.indices.clone(), detail::convert(c.updates, computed_in, nearest, saturating), std::nullopt,
                       std::nullopt};
  return detail::convert(run(converted), c.data.dtype(), model.round_back);
}

}  // namespace scatter

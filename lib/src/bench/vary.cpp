// Input variations for the timed calls of external backends: a few elements a call, where
// the reference's output of the new inputs is known at once or from a few of its steps
// (vary.hpp).

#include "vary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "core/targets.hpp"
#include "scatter/backend.hpp"

namespace scatter {
namespace {

// How many of each kind a call changes: enough that a key of part of the inputs misses the
// change, few enough that a call costs nothing to vary, on any size of case.
constexpr std::size_t kPerCall = 16;
constexpr std::size_t kSwapsPerCall = 2;
constexpr std::size_t kContendedPerCall = 4;
// Rejection finds a candidate in this many tries on average at most; rarer ones are listed.
constexpr std::int64_t kRejectionLimit = 64;
// A unit (a scatter_nd slice, a scatter_update slab) is swapped only if it has at most this
// many targets: checking that each takes one update costs that much a draw.
constexpr std::int64_t kLargestSwappedUnit = 1 << 16;

// An index element's bits as the signed value they hold (int32 or int64).
std::int64_t index_value(DType dtype, std::uint64_t bits) {
  return dtype == DType::int32 ? static_cast<std::int64_t>(static_cast<std::int32_t>(bits))
                               : static_cast<std::int64_t>(bits);
}

// The case's normalized indices with a few positions changed (a variation's swaps).
struct IndicesNow {
  const std::vector<std::int64_t>& base;
  std::map<std::int64_t, std::int64_t> changed;
  std::int64_t operator[](std::int64_t i) const {
    const auto it = changed.find(i);
    return it == changed.end() ? base[static_cast<std::size_t>(i)] : it->second;
  }
};

}  // namespace

Candidates::Candidates(std::int64_t range, std::int64_t count, std::function<bool(std::int64_t)> accept)
    : range_(range), count_(count), accept_(std::move(accept)) {
  if (count_ > 0 && count_ * kRejectionLimit < range_) {
    for (std::int64_t i = 0; i < range_; ++i) {
      if (accept_(i)) list_.push_back(i);
    }
    count_ = static_cast<std::int64_t>(list_.size());
  }
}

std::int64_t Candidates::draw(SplitMix64& rng) const {
  if (count_ <= 0) return -1;
  if (!list_.empty()) return list_[rng.next() % list_.size()];
  // Expected tries under kRejectionLimit; the bound only guards against a wrong count.
  for (std::int64_t tries = 0; tries < 64 * kRejectionLimit; ++tries) {
    const auto i = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(range_));
    if (accept_(i)) return i;
  }
  return -1;
}

VariationSource::VariationSource(Case& c, const CaseFacts& facts, std::uint64_t seed)
    : case_(c), facts_(facts), rng_(seed) {}

void VariationSource::find_candidates() {
  if (found_) return;
  found_ = true;
  const auto& hits = facts_.hits();
  const auto n = static_cast<std::int64_t>(hits.size());
  const auto updates = case_.updates.numel();
  const auto zeros = std::count(hits.begin(), hits.end(), 0u);
  const auto ones = std::count(hits.begin(), hits.end(), 1u);
  untouched_ = Candidates(n, zeros, [&hits](std::int64_t i) { return hits[static_cast<std::size_t>(i)] == 0; });
  // A target taking one update is that update's alone: as many such updates as such targets.
  single_ = Candidates(updates, ones, [this, &hits](std::int64_t u) {
    return hits[static_cast<std::size_t>(detail::target_of(case_, facts_.indices(), u))] == 1;
  });
  if (zeros == 0 && ones == 0) {
    contended_ = Candidates(updates, updates, [](std::int64_t) { return true; });
    for (std::int64_t u = 0; u < updates; ++u) {
      const double x = std::fabs(element_as_double(case_.updates, u));
      if (std::isfinite(x)) largest_update_ = std::max(largest_update_, x);
    }
  }
  const auto op = case_.attrs.op;
  const auto k = op == Op::scatter_nd ? case_.indices.shape().back() : 1;
  units_ = k > 0 ? case_.indices.numel() / k : 0;
  swaps_ = ones >= 2 && units_ >= 2 && op != Op::tensor_scatter;
}

std::vector<std::int64_t> VariationSource::unit_positions(std::int64_t unit) const {
  const auto k = case_.attrs.op == Op::scatter_nd ? case_.indices.shape().back() : 1;
  std::vector<std::int64_t> at(static_cast<std::size_t>(k));
  for (std::int64_t j = 0; j < k; ++j) at[static_cast<std::size_t>(j)] = unit * k + j;
  return at;
}

bool VariationSource::unit_single_hit(std::int64_t unit) const {
  const auto& hits = facts_.hits();
  const auto& idx = facts_.indices();
  const auto& dshape = case_.data.shape();
  const auto one = [&](std::int64_t target) { return hits[static_cast<std::size_t>(target)] == 1; };
  switch (case_.attrs.op) {
    case Op::scatter_elements:
      return one(detail::target_of(case_, idx, unit));
    case Op::scatter_nd: {
      const auto k = case_.indices.shape().back();
      const auto slice = numel(Shape(dshape.begin() + k, dshape.end()));
      if (slice > kLargestSwappedUnit) return false;
      const auto first = detail::target_of(case_, idx, unit * slice);
      for (std::int64_t j = 0; j < slice; ++j) {
        if (!one(first + j)) return false;
      }
      return true;
    }
    case Op::scatter_update: {
      const auto axis = static_cast<std::size_t>(case_.attrs.axis);
      const auto outer = numel(Shape(dshape.begin(), dshape.begin() + static_cast<std::ptrdiff_t>(axis)));
      const auto inner = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dshape.end()));
      if (outer * inner > kLargestSwappedUnit) return false;
      for (std::int64_t o = 0; o < outer; ++o) {
        const auto first = (o * dshape[axis] + idx[static_cast<std::size_t>(unit)]) * inner;
        for (std::int64_t j = 0; j < inner; ++j) {
          if (!one(first + j)) return false;
        }
      }
      return true;
    }
    case Op::tensor_scatter:
      return false;
  }
  return false;
}

std::optional<std::pair<std::int64_t, std::int64_t>> VariationSource::draw_swap() {
  const auto& ishape = case_.indices.shape();
  for (int tries = 0; tries < 64; ++tries) {
    const auto a = static_cast<std::int64_t>(rng_.next() % static_cast<std::uint64_t>(units_));
    if (!unit_single_hit(a)) continue;
    std::int64_t b = 0;
    if (case_.attrs.op == Op::scatter_elements) {
      // Its partner lies on the same line along the axis: each then lands where the other did.
      const auto axis = static_cast<std::size_t>(case_.attrs.axis);
      const auto extent = ishape[axis];
      if (extent < 2) return std::nullopt;
      const auto stride = strides_of(ishape)[axis];
      const auto at = (a / stride) % extent;
      const auto other = static_cast<std::int64_t>(rng_.next() % static_cast<std::uint64_t>(extent));
      if (other == at) continue;
      b = a + (other - at) * stride;
    } else {
      b = static_cast<std::int64_t>(rng_.next() % static_cast<std::uint64_t>(units_));
      if (b == a) continue;
    }
    if (unit_single_hit(b)) return std::pair{a, b};
  }
  return std::nullopt;
}

InputVariation VariationSource::next() {
  find_candidates();
  InputVariation v;
  v.number = ++calls_;
  const auto dtype = case_.data.dtype();
  // `want` distinct candidates of a kind (fewer where there are fewer).
  const auto distinct = [this](const Candidates& kind, std::size_t want) {
    std::set<std::int64_t> picked;
    want = std::min<std::size_t>(want, static_cast<std::size_t>(kind.count()));
    for (std::size_t tries = 0; picked.size() < want && tries < 8 * want; ++tries) {
      if (const auto at = kind.draw(rng_); at >= 0) picked.insert(at);
    }
    return picked;
  };
  for (const auto at : distinct(untouched_, kPerCall)) {
    v.data.at.push_back(at);
    v.data.bits.push_back(another_value(dtype, element_bits(case_.data, at), rng_.next()));
  }
  for (const auto u : distinct(single_, kPerCall)) {
    v.updates.at.push_back(u);
    v.updates.bits.push_back(another_value(dtype, element_bits(case_.updates, u), rng_.next()));
  }
  for (const auto u : distinct(contended_, kContendedPerCall)) {
    v.updates.at.push_back(u);
    v.updates.bits.push_back(contended_value(u));
  }
  if (swaps_) {
    std::set<std::int64_t> used;
    for (std::size_t s = 0; s < kSwapsPerCall; ++s) {
      const auto pair = draw_swap();
      if (!pair || used.contains(pair->first) || used.contains(pair->second)) continue;
      used.insert({pair->first, pair->second});
      const auto a = unit_positions(pair->first), b = unit_positions(pair->second);
      for (std::size_t j = 0; j < a.size(); ++j) {
        v.indices.at.insert(v.indices.at.end(), {a[j], b[j]});
        v.indices.bits.insert(v.indices.bits.end(), {element_bits(case_.indices, b[j]), element_bits(case_.indices, a[j])});
      }
    }
  }
  return v;
}

std::uint64_t VariationSource::contended_value(std::int64_t u) {
  const auto dtype = case_.data.dtype();
  const auto other = another_value(dtype, element_bits(case_.updates, u), rng_.next());
  if (!is_float(dtype)) return other;  // integers are compared exactly: any change shows
  // A float sum of h updates is compared within h*eps*(sum|x| + |want|) (compare.cpp): a change
  // of a few low bits hides in it. The update is scaled by a power of two past that bound, where
  // the format has room (never so far that h such updates could overflow).
  const auto target = detail::target_of(case_, facts_.indices(), u);
  const double h = static_cast<double>(facts_.hits()[static_cast<std::size_t>(target)]);
  const double eps = epsilon_bits(dtype);
  if (h * eps >= 0.4) return other;  // a bound so loose that no change of one update shows
  const double bound = h * eps * (h * largest_update_ + std::fabs(element_as_double(case_.data, target)));
  const double wanted = 8.0 * bound / (1.0 - 2.0 * h * eps);
  const auto base = std::isfinite(element_as_double(case_.updates, u)) && element_as_double(case_.updates, u) != 0.0
                        ? element_bits(case_.updates, u)
                        : other;
  Tensor probe(dtype, {1});
  set_element_bits(probe, 0, base);
  const double magnitude = std::fabs(element_as_double(probe, 0));
  if (!(magnitude > 0.0)) return other;
  const int k = std::max(1, static_cast<int>(std::ceil(std::log2(1.0 + wanted / magnitude))));
  // The largest k whose result stays finite with room for h of them.
  for (int tried = k; tried >= 1; --tried) {
    const auto scaled = times_power_of_two(dtype, base, tried);
    if (!scaled) continue;
    set_element_bits(probe, 0, *scaled);
    if (std::fabs(element_as_double(probe, 0)) * h < max_finite(dtype)) return *scaled;
  }
  return other;
}

std::string VariationSource::describe() {
  find_candidates();
  if (contended_.count() > 0) {
    return fmt::format("{} updates changed a call, of elements that take several (each one's value recomputed from "
                       "its updates)",
                       std::min<std::int64_t>(kContendedPerCall, contended_.count()));
  }
  if (untouched_.count() == 0 && single_.count() == 0) return "not varied: the case has no element to vary";
  return fmt::format("{} data and {} update elements changed a call{}", std::min<std::int64_t>(kPerCall, untouched_.count()),
                     std::min<std::int64_t>(kPerCall, single_.count()),
                     swaps_ ? ", and two pairs of single-hit targets swapped in the indices" : "");
}

const Tensor& VariationSource::want() const { return want_ ? *want_ : facts_.want(); }

std::vector<std::int64_t> VariationSource::updates_of(std::int64_t target) const {
  std::vector<std::int64_t> found;
  detail::visit_targets(case_, facts_.indices(), [&](std::int64_t u, std::int64_t o, std::int64_t len) {
    if (target >= o && target < o + len) found.push_back(u + (target - o));
  });
  return found;
}

std::uint64_t VariationSource::reduced(std::int64_t target, const std::vector<std::uint64_t>& updates) const {
  const auto dtype = case_.data.dtype();
  const auto m = static_cast<std::int64_t>(updates.size());
  Case one;
  one.attrs = case_.attrs;
  one.attrs.axis = 0;
  // scatter_elements has every reduction but sub, scatter_nd every one but mean: one of them has it.
  one.attrs.op = op_allows(Op::scatter_elements, case_.attrs.reduction) ? Op::scatter_elements : Op::scatter_nd;
  one.data = Tensor(dtype, {1});
  set_element_bits(one.data, 0, element_bits(case_.data, target));
  one.indices = Tensor(DType::int64, one.attrs.op == Op::scatter_nd ? Shape{m, 1} : Shape{m});
  std::fill_n(one.indices.data<std::int64_t>(), m, std::int64_t{0});
  one.updates = Tensor(dtype, {m});
  for (std::int64_t j = 0; j < m; ++j) set_element_bits(one.updates, j, updates[static_cast<std::size_t>(j)]);
  return element_bits(reference_scatter(one), 0);
}

VariationSource::Applied::Applied(VariationSource& source, const InputVariation& v) : source_(source) {
  if (v.empty()) return;
  auto& c = source.case_;
  if (!source.want_) source.want_ = source.facts_.want().clone();
  const auto change = [this](Tensor& t, std::int64_t at, std::uint64_t bits) {
    if (undo_.empty() || undo_.back().first != &t) undo_.push_back({&t, {}});
    undo_.back().second.at.push_back(at);
    undo_.back().second.bits.push_back(element_bits(t, at));
    set_element_bits(t, at, bits);
  };
  auto& want = *source.want_;
  for (std::size_t k = 0; k < v.data.at.size(); ++k) change(c.data, v.data.at[k], v.data.bits[k]);
  // Untouched: the output is data's element as it is.
  for (std::size_t k = 0; k < v.data.at.size(); ++k) change(want, v.data.at[k], v.data.bits[k]);
  for (std::size_t k = 0; k < v.updates.at.size(); ++k) change(c.updates, v.updates.at[k], v.updates.bits[k]);
  // The updates whose value or target changed; the swapped units' targets under the new indices.
  IndicesNow now{source.facts_.indices(), {}};
  std::set<std::int64_t> moved(v.updates.at.begin(), v.updates.at.end());
  const auto& dshape = c.data.shape();
  const auto k = c.attrs.op == Op::scatter_nd ? c.indices.shape().back() : 1;
  for (std::size_t j = 0; j < v.indices.at.size(); ++j) {
    const auto at = v.indices.at[j];
    change(c.indices, at, v.indices.bits[j]);
    const auto extent = dshape[static_cast<std::size_t>(c.attrs.op == Op::scatter_nd ? at % k : c.attrs.axis)];
    const auto value = index_value(c.indices.dtype(), v.indices.bits[j]);
    now.changed[at] = value < 0 ? value + extent : value;
    // The update elements this index element moves.
    switch (c.attrs.op) {
      case Op::scatter_elements:
        moved.insert(at);
        break;
      case Op::scatter_nd: {
        const auto slice = numel(Shape(dshape.begin() + k, dshape.end()));
        for (std::int64_t e = 0; e < slice; ++e) moved.insert(at / k * slice + e);
        break;
      }
      default: {  // scatter_update
        const auto axis = static_cast<std::size_t>(c.attrs.axis);
        const auto outer = numel(Shape(dshape.begin(), dshape.begin() + static_cast<std::ptrdiff_t>(axis)));
        const auto inner = numel(Shape(dshape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dshape.end()));
        const auto count = c.indices.numel();
        for (std::int64_t o = 0; o < outer; ++o) {
          for (std::int64_t e = 0; e < inner; ++e) moved.insert((o * count + at) * inner + e);
        }
      }
    }
  }
  const auto& hits = source.facts_.hits();
  std::set<std::int64_t> done;
  for (const auto u : moved) {
    const auto target = detail::target_of(c, now, u);
    if (!done.insert(target).second) continue;
    std::vector<std::uint64_t> landing;
    if (hits[static_cast<std::size_t>(target)] == 1) {
      landing.push_back(element_bits(c.updates, u));
    } else {  // a contended element: every update on it, in order (swaps never touch these)
      for (const auto other : source.updates_of(target)) landing.push_back(element_bits(c.updates, other));
    }
    change(want, target, source.reduced(target, landing));
  }
}

VariationSource::Applied::~Applied() {
  // In reverse, so that an element changed twice gets its first bits back.
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    for (std::size_t k = it->second.at.size(); k-- > 0;) set_element_bits(*it->first, it->second.at[k], it->second.bits[k]);
  }
}

}  // namespace scatter

// Input variations for the timed calls of external backends: a few elements a call, where
// the reference's output of the new inputs is known at once (vary.hpp).

#include "vary.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/targets.hpp"
#include "scatter/backend.hpp"

namespace scatter {
namespace {

// Candidates kept of each kind (a reservoir sample over the whole case, drawn once), and how
// many of each a call changes: enough that a key of part of the inputs misses the change,
// few enough that a call costs nothing to vary, on any size of case.
constexpr std::size_t kPool = 4096;
constexpr std::size_t kPerCall = 16;

// Algorithm R: item `seen` (0-based) of a stream replaces a kept one with probability kPool/(seen+1).
template <class T>
void keep_sample(std::vector<T>& pool, std::uint64_t seen, T item, SplitMix64& rng) {
  if (pool.size() < kPool) {
    pool.push_back(std::move(item));
    return;
  }
  const auto slot = rng.next() % (seen + 1);
  if (slot < kPool) pool[slot] = std::move(item);
}

// `count` distinct entries of [0, size), drawn from rng.
std::vector<std::size_t> draw(std::size_t size, std::size_t count, SplitMix64& rng) {
  std::vector<std::size_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, size);
  for (std::size_t j = 0; j < count; ++j) std::swap(order[j], order[j + rng.next() % (size - j)]);
  order.resize(count);
  return order;
}

}  // namespace

VariationSource::VariationSource(Case& c, const CaseFacts& facts, std::uint64_t seed)
    : case_(c), facts_(facts), rng_(seed) {}

void VariationSource::sample_pools() {
  if (sampled_) return;
  sampled_ = true;
  const auto& hits = facts_.hits();
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (hits[i] == 0) keep_sample(untouched_, seen++, static_cast<std::int64_t>(i), rng_);
  }
  seen = 0;
  facts_.with_indices([&](const auto& idx) {
    detail::visit_targets(case_, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
      for (std::int64_t j = 0; j < len; ++j) {
        if (hits[static_cast<std::size_t>(o + j)] == 1) keep_sample(single_, seen++, std::pair{u + j, o + j}, rng_);
      }
    });
  });
}

InputVariation VariationSource::next() {
  sample_pools();
  InputVariation v;
  v.number = ++calls_;
  const auto dtype = case_.data.dtype();
  for (const auto k : draw(untouched_.size(), kPerCall, rng_)) {
    v.data.at.push_back(untouched_[k]);
    v.data.bits.push_back(another_value(dtype, element_bits(case_.data, untouched_[k]), rng_.next()));
  }
  for (const auto k : draw(single_.size(), kPerCall, rng_)) {
    const auto u = single_[k].first;
    v.updates.at.push_back(u);
    v.updates.bits.push_back(another_value(dtype, element_bits(case_.updates, u), rng_.next()));
  }
  return v;
}

std::string VariationSource::describe() {
  sample_pools();
  if (untouched_.empty() && single_.empty()) {
    return "not varied: every element of data takes two or more updates, so no value can change without running "
           "the reference again";
  }
  return fmt::format("{} data and {} update elements changed a call", std::min(kPerCall, untouched_.size()),
                     std::min(kPerCall, single_.size()));
}

const Tensor& VariationSource::want() const { return want_ ? *want_ : facts_.want(); }

// The reference's value of `target` with one update of `update_bits` landing on it: the
// reference itself, run on a one-element case of the same reduction, dtype and use_init_val.
std::uint64_t VariationSource::reduced(std::int64_t target, std::uint64_t update_bits) const {
  const auto dtype = case_.data.dtype();
  Case one;
  one.attrs = case_.attrs;
  one.attrs.axis = 0;
  // scatter_elements has every reduction but sub, scatter_nd every one but mean: one of them has it.
  one.attrs.op = op_allows(Op::scatter_elements, case_.attrs.reduction) ? Op::scatter_elements : Op::scatter_nd;
  one.data = Tensor(dtype, {1});
  set_element_bits(one.data, 0, element_bits(case_.data, target));
  one.indices = Tensor(DType::int64, one.attrs.op == Op::scatter_nd ? Shape{1, 1} : Shape{1});
  one.indices.data<std::int64_t>()[0] = 0;
  one.updates = Tensor(dtype, {1});
  set_element_bits(one.updates, 0, update_bits);
  return element_bits(reference_scatter(one), 0);
}

VariationSource::Applied::Applied(VariationSource& source, const InputVariation& v) : source_(source) {
  if (v.empty()) return;
  if (!source.want_) source.want_ = source.facts_.want().clone();
  const auto change = [this](Tensor& t, std::int64_t at, std::uint64_t bits) {
    if (undo_.empty() || undo_.back().first != &t) undo_.push_back({&t, {}});
    undo_.back().second.at.push_back(at);
    undo_.back().second.bits.push_back(element_bits(t, at));
    set_element_bits(t, at, bits);
  };
  auto& want = *source.want_;
  for (std::size_t k = 0; k < v.data.at.size(); ++k) change(source.case_.data, v.data.at[k], v.data.bits[k]);
  // Untouched: the output is data's element as it is.
  for (std::size_t k = 0; k < v.data.at.size(); ++k) change(want, v.data.at[k], v.data.bits[k]);
  for (std::size_t k = 0; k < v.updates.at.size(); ++k) change(source.case_.updates, v.updates.at[k], v.updates.bits[k]);
  for (const auto& [u, target] : source.single_) {
    const auto it = std::find(v.updates.at.begin(), v.updates.at.end(), u);
    if (it != v.updates.at.end()) change(want, target, source.reduced(target, v.updates.bits[it - v.updates.at.begin()]));
  }
}

VariationSource::Applied::~Applied() {
  // In reverse, so that an element changed twice gets its first bits back.
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    for (std::size_t k = it->second.at.size(); k-- > 0;) set_element_bits(*it->first, it->second.at[k], it->second.bits[k]);
  }
}

}  // namespace scatter

// The statistics of a row's samples, and the samples of a later run joined to a row's.

#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace scatter::detail {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// The statistics of a set of samples.
Timing summarize(std::vector<double> samples) {
  Timing t;
  t.samples = std::move(samples);
  if (t.samples.empty()) return t;
  t.median = quantile(t.samples, 0.5);
  t.spread = t.median > 0 ? (quantile(t.samples, 0.75) - quantile(t.samples, 0.25)) / t.median : 0.0;
  const double mean = std::accumulate(t.samples.begin(), t.samples.end(), 0.0) / static_cast<double>(t.samples.size());
  double var = 0.0;
  for (double s : t.samples) var += (s - mean) * (s - mean);
  var /= static_cast<double>(std::max<std::size_t>(t.samples.size() - 1, 1));
  t.cv = mean > 0 ? std::sqrt(var) / mean : 0.0;
  return t;
}

}  // namespace scatter::detail

namespace scatter {

void add_rounds(BenchReport& into, const BenchReport& more) {
  // One offset per benchmark, past every round of its rows, so that the new rounds stay paired.
  std::map<std::string, int> next_round, next_block;
  for (const auto& row : into.rows) {
    for (const int r : row.rounds) next_round[row.name] = std::max(next_round[row.name], r + 1);
    for (const int b : row.blocks) next_block[row.name] = std::max(next_block[row.name], b + 1);
  }
  for (const auto& extra : more.rows) {
    auto it = std::find_if(into.rows.begin(), into.rows.end(),
                           [&](const BenchRow& r) { return r.name == extra.name && r.backend == extra.backend; });
    if (it == into.rows.end() || !it->timed()) continue;
    if (!extra.timed()) {
      // A benchmark an interrupt cut in the later run keeps what the earlier one measured.
      if (more.context.interrupted && extra.status == Status::skipped) continue;
      settle(*it, TimeVerdict::none, extra.error, extra.status);
      continue;
    }
    auto samples = it->timing.samples;
    samples.insert(samples.end(), extra.timing.samples.begin(), extra.timing.samples.end());
    for (const int r : extra.rounds) it->rounds.push_back(r + next_round[extra.name]);
    for (const int b : extra.blocks) it->blocks.push_back(b + next_block[extra.name]);
    it->outer_clocks.insert(it->outer_clocks.end(), extra.outer_clocks.begin(), extra.outer_clocks.end());
    it->timing = detail::summarize(std::move(samples));
  }
  into.context.load_end = more.context.load_end;
  into.context.interrupted = into.context.interrupted || more.context.interrupted;
}

}  // namespace scatter

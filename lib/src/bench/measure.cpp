// Timing and the byte model: samples until the interquartile spread is under the
// target or the time is up; bytes counted as PERF.md's model says.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "../targets.hpp"
#include "scatter/bench.hpp"
#include "scatter/cancel.hpp"
#include "scatter/load.hpp"
#include "scatter/version.hpp"

namespace scatter {
namespace {

using Clock = std::chrono::steady_clock;

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Timing measure(const std::function<double()>& once, const BenchOptions& options) {
  Timing t;
  once();  // warm-up: first touch, page faults, lazy init
  const auto start = Clock::now();
  while (static_cast<int>(t.samples.size()) < options.max_samples) {
    t.samples.push_back(once());
    const std::chrono::duration<double> elapsed = Clock::now() - start;
    if (static_cast<int>(t.samples.size()) >= options.min_samples) {
      const double med = quantile(t.samples, 0.5);
      const double spread = med > 0 ? (quantile(t.samples, 0.75) - quantile(t.samples, 0.25)) / med : 0.0;
      if (spread < options.target_spread || elapsed.count() > options.max_seconds) break;
    }
  }
  t.median = quantile(t.samples, 0.5);
  t.spread = t.median > 0 ? (quantile(t.samples, 0.75) - quantile(t.samples, 0.25)) / t.median : 0.0;
  const double mean = std::accumulate(t.samples.begin(), t.samples.end(), 0.0) / static_cast<double>(t.samples.size());
  double var = 0.0;
  for (double s : t.samples) var += (s - mean) * (s - mean);
  var /= static_cast<double>(std::max<std::size_t>(t.samples.size() - 1, 1));
  t.cv = mean > 0 ? std::sqrt(var) / mean : 0.0;
  return t;
}

ByteModel byte_model(const Case& c, bool in_place) {
  ByteModel m;
  const auto e = size_of(c.data.dtype());
  const auto n = c.data.numel();
  m.indices = static_cast<std::uint64_t>(c.indices.nbytes());
  // Distinct elements hit and distinct 32-byte sectors they lie in.
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(n), 0);
  const auto idx = detail::normalized_indices(c);
  detail::visit_targets(c, idx, [&](std::int64_t, std::int64_t o, std::int64_t len) {
    std::fill(hit.begin() + o, hit.begin() + o + len, 1);
  });
  std::uint64_t sectors = 0;
  std::int64_t last_sector = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!hit[i]) continue;
    ++m.distinct;
    const auto sector = static_cast<std::int64_t>((static_cast<std::uint64_t>(i) * e) / 32);
    if (sector != last_sector) {
      ++sectors;
      last_sector = sector;
    }
  }
  const bool read_modify_write = c.attrs.reduction != Reduction::none;
  m.updates = read_modify_write ? static_cast<std::uint64_t>(c.updates.nbytes()) : m.distinct * e;
  m.writes = sectors * 32 * (read_modify_write ? 2 : 1);
  m.copy = in_place ? 0 : 2 * static_cast<std::uint64_t>(n) * e;
  return m;
}

BenchReport run_bench(const std::vector<BenchItem>& items, const std::vector<Backend*>& backends,
                      const BenchOptions& options, const std::function<void(const std::string&)>& progress) {
  BenchReport report;
  report.context.version = std::string(kVersion);
  report.context.git_commit = std::string(kGitCommit);
  report.context.build_type = std::string(kBuildType);
  if (!backends.empty()) {
    // The first backend's device names the report; its copy bandwidth is the 100% line.
    report.context.device = backends.front()->device();
    report.context.copy_bandwidth = backends.front()->copy_bandwidth();
    report.context.sector_bandwidth = backends.front()->sector_write_bandwidth();
    report.context.properties = backends.front()->properties();
  }
  for (const auto& item : items) {
    if (interrupted()) break;  // Ctrl-C: the report holds what was measured
    if (progress) progress(item.name);
    std::optional<Case> c;
    std::string invalid;
    try {
      c = materialize(item.decl);
    } catch (const Error& e) {
      invalid = e.message();
    }
    for (auto* backend : backends) {
      BenchRow row;
      row.name = item.name;
      row.group = item.group;
      row.backend = std::string(backend->name());
      row.in_place = item.in_place;
      row.cold = options.cold;
      row.copy_bandwidth = backend->copy_bandwidth();
      row.sector_bandwidth = backend->sector_write_bandwidth();
      if (!c) {
        row.error = invalid;
        report.rows.push_back(std::move(row));
        continue;
      }
      row.bytes = byte_model(*c, item.in_place);
      // Cold: the backend evicts its caches after its setup, just before the timed region.
      const RunFlags flags{item.in_place, item.deterministic, options.cold};
      try {
        row.timing = measure([&] { return backend->run(*c, flags).seconds; }, options);
      } catch (const Error& e) {
        row.error = e.message();
      }
      report.rows.push_back(std::move(row));
    }
  }
  return report;
}

}  // namespace scatter

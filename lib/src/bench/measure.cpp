// Timing and the byte model: samples until the interquartile spread is under the
// target or the time is up; bytes counted as PERF.md's model says.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "../targets.hpp"
#include "probes.hpp"
#include "scatter/bench.hpp"

#include "scatter/capabilities.hpp"
#include "scatter/cancel.hpp"
#include "scatter/compare.hpp"
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

// External backends time the op themselves, in their own process: one request runs it
// `repeat` times after a warm-up and returns every sample (docs/backends.md).
constexpr int kExternalRepeat = 10;

std::string format_coord(const std::vector<std::int64_t>& coord) {
  return fmt::format("[{}]", fmt::join(coord, ", "));
}

std::string shape_of(const Case& c) {
  return fmt::format("{} data {} indices {} updates {}", to_string(c.data.dtype()), format_coord(c.data.shape()),
                     format_coord(c.indices.shape()), format_coord(c.updates.shape()));
}

}  // namespace

std::string bench_name(const std::string& item, const std::string& backend) { return item + "@" + backend; }

std::vector<std::pair<std::string, int>> parse_slowdown(const std::string& text) {
  std::vector<std::pair<std::string, int>> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) continue;
    const auto colon = part.rfind(':');
    int factor = 0;
    if (colon != std::string::npos) {
      try {
        std::size_t used = 0;
        factor = std::stoi(part.substr(colon + 1), &used);
        if (used != part.size() - colon - 1) factor = 0;
      } catch (const std::exception&) {
        factor = 0;
      }
    }
    if (colon == std::string::npos || colon == 0 || factor < 1) {
      throw Error(ErrorCode::schema, "SCATTERCTL_BENCH_SLOWDOWN",
                  fmt::format("= '{}' is not NAME:FACTOR (a benchmark name and a whole number of runs per sample)",
                              text));
    }
    out.emplace_back(part.substr(0, colon), factor);
  }
  return out;
}

MachineLoad machine_load() {
  MachineLoad m;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  m.cpus = online > 0 ? static_cast<int>(online) : 0;
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (in >> a >> b >> c) {
    m.load1 = a;
    m.load5 = b;
    m.load15 = c;
  }
  return m;
}

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
  return summarize(std::move(t.samples));
}

ByteModel byte_model(const Case& c, bool in_place) {
  ByteModel m;
  const auto e = size_of(c.data.dtype());
  const auto n = c.data.numel();
  m.indices = static_cast<std::uint64_t>(c.indices.nbytes());
  // Distinct elements hit and distinct 32-byte sectors they lie in.
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(n), 0);
  const auto idx = detail::normalized_indices(c);
  std::int64_t longest = 0;
  detail::visit_targets(c, idx, [&](std::int64_t, std::int64_t o, std::int64_t len) {
    std::fill(hit.begin() + o, hit.begin() + o + len, 1);
    longest = std::max(longest, len);
  });
  m.run_bytes = static_cast<std::uint64_t>(longest) * e;
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
  report.context.load_start = machine_load();
  report.context.repetitions = std::max(options.repetitions, 1);
  if (!backends.empty()) {
    // The first backend's device names the report; its copy bandwidth is the default 100% line.
    report.context.device = backends.front()->device();
    if (auto* probe = probe_for(*backends.front())) {
      report.context.copy_bandwidth = probe->copy();
      report.context.sector_bandwidth = probe->sector_writes();
    }
    report.context.properties = backends.front()->properties();
  }
  // One row per item and backend; the rounds add samples to it.
  std::vector<std::vector<double>> samples(items.size() * backends.size());
  report.rows.resize(items.size() * backends.size());
  const int rounds = report.context.repetitions;
  for (int round = 0; round < rounds && !interrupted(); ++round) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (interrupted()) break;  // Ctrl-C: the report holds what was measured
      const auto& item = items[i];
      if (progress) progress(rounds > 1 ? fmt::format("{} (round {}/{})", item.name, round + 1, rounds) : item.name);
      std::optional<Case> c;
      std::string invalid;
      try {
        c = materialize(item.decl);
      } catch (const Error& e) {
        invalid = e.message();
      }
      std::optional<Tensor> reference;  // computed once, for the first backend that is checked
      for (std::size_t b = 0; b < backends.size(); ++b) {
        Backend* backend = backends[b];
        BenchRow& row = report.rows[i * backends.size() + b];
        if (round == 0) {
          row.name = item.name;
          row.group = item.group;
          row.backend = std::string(backend->name());
          row.in_place = item.in_place;
          row.cold = options.cold;
          if (auto* probe = probe_for(*backend)) {
            row.copy_bandwidth = probe->copy();
            row.sector_bandwidth = probe->sector_writes();
          }
          if (!c) row.error = invalid;
          if (c) {
            row.bytes = byte_model(*c, item.in_place);
            row.shape = shape_of(*c);
          }
        }
        if (!c || !row.error.empty() || row.failed) continue;
        // Lost mid-run (a sticky device fault): skipped with the reason, as `run` does.
        if (const auto a = backend->availability(); !a.available) {
          row.skipped = true;
          row.error = "unavailable: " + a.reason;
          continue;
        }
        // Outside what the backend declares: skipped with the rule, as `run` does.
        if (const auto* caps = backend->capabilities()) {
          if (auto why = unsupported_reason(*caps, *c, features_of(*c))) {
            row.skipped = true;
            row.error = "unsupported: " + *why;
            continue;
          }
        }
        // Cold: the backend evicts its caches after its setup, just before the timed region.
        const RunFlags flags{item.in_place, item.deterministic, options.cold};
        int factor = 1;
        for (const auto& [name, f] : options.slowdown) {
          if (name == item.name) factor = f;
        }
        try {
          if (round == 0 && options.verify && backend->name() != "ref") {
            // Once per case, untimed: a wrong output gets a failure, not a number.
            const auto got = backend->run(*c, flags);
            if (!reference) reference = reference_scatter(*c);
            const auto cmp = compare_outputs(*c, got.output, *reference, false, {1});
            row.verified = true;
            if (!cmp.passed) {
              row.failed = true;
              std::string first;
              if (!cmp.worst.empty()) {
                const auto& m = cmp.worst.front();
                first = fmt::format("; first at {}: expected {}, got {}", format_coord(m.coord), m.expected, m.actual);
              }
              row.error = fmt::format("output differs from the reference in {} of {} elements ({}){}", cmp.mismatches,
                                      cmp.elements, cmp.rule, first);
              if (options.expectations) {
                if (const auto* e = options.expectations->covering(backend->name(), backend->version(), *c,
                                                                   features_of(*c), Outcome::failed, &cmp, "")) {
                  row.expectation = e->id;
                  row.error = fmt::format("xfail [{}] {}; {}", e->id, e->reason, row.error);
                }
              }
              continue;
            }
          }
          auto& pool = samples[i * backends.size() + b];
          if (backend->judges_invalid_cases()) {
            RunFlags repeated = flags;
            repeated.repeat = std::max(options.min_samples, kExternalRepeat);
            const auto out = backend->run(*c, repeated);
            if (out.samples.empty()) {
              pool.push_back(out.seconds);
            } else {
              pool.insert(pool.end(), out.samples.begin(), out.samples.end());
            }
            if (round == 0) row.timed_by = out.timing;
          } else {
            // After the first sample the backend may keep its uploads (RunFlags::same_inputs).
            RunFlags sample_flags = flags;
            const auto t = measure(
                [&] {
                  double seconds = 0.0;
                  for (int k = 0; k < factor; ++k) {
                    seconds += backend->run(*c, sample_flags).seconds;
                    sample_flags.same_inputs = true;
                  }
                  return seconds;
                },
                options);
            pool.insert(pool.end(), t.samples.begin(), t.samples.end());
          }
          if (auto* probe = probe_for(*backend); round == 0 && probe) {
            row.working_set_copy_bandwidth = probe->copy_of(row.bytes.total());
          }
        } catch (const Error& e) {
          row.error = e.message();
        } catch (const std::exception& e) {
          row.error = e.what();
        }
      }
    }
  }
  for (std::size_t r = 0; r < report.rows.size(); ++r) {
    if (report.rows[r].error.empty()) report.rows[r].timing = summarize(std::move(samples[r]));
  }
  // Rows never reached (an interrupt before the first round got there) are dropped.
  std::erase_if(report.rows, [](const BenchRow& r) { return r.name.empty(); });
  report.context.load_end = machine_load();
  return report;
}

}  // namespace scatter

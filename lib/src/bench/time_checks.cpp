// The checks of a row's time that gaming a timer cannot pass (time_checks.hpp): physics, and
// scatterctl's own clock across a worker's process boundary.

#include "time_checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scatter/probe.hpp"
#include "stats.hpp"

namespace scatter {
namespace {


// Fails the row with `why`, keeping its samples: the report shows the time it refused.
void refuse(BenchRow& row, std::string why) { settle(row, TimeVerdict::refused, std::move(why)); }

}  // namespace

void measure_fastest_rate(BenchRow& row) {
  const auto memory = row.memory;
  auto* probe = fastest_probe(memory);
  if (probe == nullptr) return;
  const double copy = probe->copy();
  row.fastest_rate = copy;
  row.fastest_rate_of = memory == MemoryKind::device ? "the device's copy" : "a copy of 256 MiB on every CPU";
  if (!row.cold && memory == MemoryKind::host) {
    const double hot = probe->hot_copy_of(row.bytes.total());
    if (hot > row.fastest_rate) {
      row.fastest_rate = hot;
      row.fastest_rate_of = "a warm copy of the row's working set";
    }
  }
}

void refuse_impossible_time(BenchRow& row) {
  if (!row.timed() || row.counter != Counter::time || row.timing.samples.empty()) return;
  // The row's own lines are measured rates too: the fastest of them all is the line.
  double rate = row.fastest_rate;
  std::string of = row.fastest_rate_of;
  for (const auto& [line, what] : {std::pair{row.copy_bandwidth, "the copy line of the row's threads"},
                                   std::pair{row.working_set_copy_bandwidth, "a cold copy of the row's working set"}}) {
    if (line > rate) {
      rate = line;
      of = what;
    }
  }
  if (rate <= 0) return;  // nothing measured this memory: the row says so (BenchRow::fastest_rate)
  const double margin = row.cold ? kPhysicsMargin : row.memory == MemoryKind::device ? kHotDeviceMargin : kHotHostMargin;
  const double floor = static_cast<double>(row.bytes.total()) / rate;
  const double least = floor / margin;
  const auto under = static_cast<std::size_t>(
      std::count_if(row.timing.samples.begin(), row.timing.samples.end(), [&](double t) { return t < least; }));
  const double median = median_of(row.timing.samples);
  const auto bound = fmt::format("{} of its floor {} ({} at {:.1f} GB/s, {})",
                                 margin == 3.0 ? "a third" : fmt::format("1/{:g}", margin), human_time(floor),
                                 decimal_bytes(static_cast<double>(row.bytes.total())), rate / 1e9, of);
  const char* cause = "a timer that does not see the work, or an output that was not computed";
  if (median < least) {
    refuse(row, fmt::format("faster than memory can move its bytes (median {} < {}, {}): {}", human_time(median),
                            human_time(least), bound, cause));
  } else if (static_cast<double>(under) > kImpossibleShare * static_cast<double>(row.timing.samples.size())) {
    refuse(row, fmt::format("faster than memory can move its bytes in {} of {} samples (under {}, {}; more than {:.0f}% "
                            "may not be): {}",
                            under, row.timing.samples.size(), human_time(least), bound, kImpossibleShare * 100, cause));
  }
}

void refuse_unwitnessed_time(BenchRow& row) {
  if (!row.timed() || row.counter != Counter::time || row.outer_clocks.empty()) return;
  const auto& inner = row.timing.samples;
  if (row.outer_clocks.size() != inner.size()) {
    refuse(row, fmt::format("{} of its {} samples were not timed on scatterctl's clock (the worker's signals were "
                            "missing)",
                            inner.size() - std::min(inner.size(), row.outer_clocks.size()), inner.size()));
    return;
  }
  // What the signals take beyond the call: their round trip, the same every call but for noise.
  std::vector<double> trips, outer_seconds;
  for (const auto& o : row.outer_clocks) {
    trips.push_back(o.round_trip);
    outer_seconds.push_back(o.seconds);
  }
  const double trip = median_of(trips);
  // The closest a sample came to scatterctl's clock: a late wake-up of either process widens a
  // sample's gap (a VM's idle CPU takes up to a millisecond), but a timer that misses the
  // work widens every sample's gap.
  double gap = INFINITY;
  std::size_t closest = 0;
  for (std::size_t s = 0; s < inner.size(); ++s) {
    // The worker's interval lies inside scatterctl's: longer is a clock that is not scatterctl's.
    if (inner[s] > outer_seconds[s] * 1.001 + 2e-6) {
      refuse(row, fmt::format("sample {} took {} by the worker's clock but {} by scatterctl's, which brackets it: the "
                              "worker's clock is not scatterctl's",
                              s + 1, human_time(inner[s]), human_time(outer_seconds[s])));
      return;
    }
    const double g = outer_seconds[s] - trip - inner[s];
    if (g < gap) {
      gap = g;
      closest = s;
    }
  }
  const double slack = kClockSlackSeconds + kClockSlackShare * median_of(outer_seconds);
  // And the median sample: a timer that lies on most calls moves the median, however honest
  // its closest sample (one that lies on fewer calls than half moves the median not at all).
  std::vector<double> gaps;
  for (std::size_t s = 0; s < inner.size(); ++s) gaps.push_back(outer_seconds[s] - trip - inner[s]);
  const double typical = median_of(gaps);
  const double typical_slack = kClockMedianSlackSeconds + kClockMedianSlackShare * median_of(outer_seconds);
  // A timer that lies shows in every sample; a neighbour's load delays scatterctl's clock on some.
  // The closest sample is off only if every sample was delayed: under pressure p, about p^n of
  // the time; where that is rare, a closest sample past the slack is the timer's doing.
  const bool closest_disagrees = gap > slack;
  const bool all_delayed_plausible =
      row.cpu_pressure >= kNoticeablePressure && std::pow(row.cpu_pressure, static_cast<double>(inner.size())) >= 1e-3;
  const bool median_disagrees = typical > typical_slack;
  std::string disagreement;
  if (median_disagrees) {
    disagreement = fmt::format(
        "its time disagrees with scatterctl's clock: the worker says {} (median), scatterctl saw {} less the signals' "
        "round trip of {}: a median gap of {}, more than the {} allowed",
        human_time(median_of(inner)), human_time(median_of(outer_seconds)), human_time(trip), human_time(typical),
        human_time(typical_slack));
  } else if (closest_disagrees) {
    disagreement = fmt::format("its time disagrees with scatterctl's clock: in its closest sample the worker says {}, "
                               "scatterctl saw {} less the signals' round trip of {}: {} more than the {} allowed",
                               human_time(inner[closest]), human_time(outer_seconds[closest]), human_time(trip),
                               human_time(gap), human_time(slack));
  }
  if (disagreement.empty()) return;
  // Under CPU pressure the two processes wake late on many calls, and an honest timer's gaps can
  // pass the slack: the number stands, undecided, never a failure (a kernel cannot load the
  // machine itself: it is frozen outside its calls).
  const bool explained =
      row.cpu_pressure >= kNoticeablePressure && (!closest_disagrees || all_delayed_plausible);
  if (explained) {
    settle(row, TimeVerdict::noisy,
           fmt::format("{}; but some task waited for a CPU in {:.0f}% of its sampling, and late wake-ups cannot be "
                       "told from a timer that lies: its number stands undecided (rerun it on a quiet machine)",
                       disagreement, row.cpu_pressure * 100));
  } else {
    refuse(row, disagreement + " (a timer the kernel's code can reach)");
  }
}

}  // namespace scatter

// The regression gate: two bench reports, per benchmark the ratio new/base with a
// confidence interval (Hodges-Lehmann, rank-based) and a verdict. Slower only when the
// interval excludes 1 (the change is significant) and the estimate exceeds the
// threshold. Benchmarks missing from NEW, or nothing in common, fail the gate too.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "scatter/bench.hpp"
#include "scatter/counter.hpp"
#include "stats.hpp"

namespace scatter {
namespace {


struct Entry {
  double median = 0.0;  // seconds, or instructions when counted
  bool counted = false;
  double cv = 0.0;
  double cpu_pressure = -1.0;  // the share of its sampling some task waited for a CPU; -1 unknown
  std::vector<double> samples;
  bool error = false;
  std::string message;
};

struct Parsed {
  std::string device;
  bool busy = false;
  double load1 = -1.0;
  int cpus = 0;
  Canary canary;  // the machine's speed during the run (0: a report without one)
  std::map<std::string, Entry> entries;
  std::vector<std::string> order;
};

using nlohmann::json;

// A report is input: every field read is checked, and one of the wrong type or value is an
// unusable report (Error(schema), exit 2) that names the side, the field and the value.
[[noreturn]] void unusable(const char* which, const std::string& field, const json& value, const char* what) {
  throw Error(ErrorCode::schema, which, fmt::format("{} = {} is not {}", field, detail::preview(value), what));
}

// `object[key]` as T, `fallback` when absent.
template <class T>
T field(const json& object, const char* key, T fallback, const char* which, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  const bool ok = std::is_same_v<T, bool>          ? it->is_boolean()
                  : std::is_same_v<T, std::string> ? it->is_string()
                                                   : it->is_number();
  if (!ok) {
    unusable(which, where + "." + key, *it,
             std::is_same_v<T, bool> ? "true or false" : std::is_same_v<T, std::string> ? "a string" : "a number");
  }
  return it->get<T>();
}

// A time or count of a report: positive and finite.
double positive(const json& value, const char* which, const std::string& where) {
  if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>())) {
    unusable(which, where, value, "a positive, finite number");
  }
  return value.get<double>();
}

// Seconds per unit of Google Benchmark's time_unit; 0 for "instructions" (a count).
double unit_scale(const std::string& unit, const char* which, const std::string& where) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  if (unit == "instructions") return 0.0;
  unusable(which, where + ".time_unit", json(unit), "ns, us, ms, s or instructions");
}

Parsed parse(const std::string& text, const char* which) {
  Parsed p;
  json doc;
  try {
    doc = detail::parse_bounded(text, "the report");
  } catch (const Error& e) {
    throw Error(ErrorCode::json, which, e.detail());
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw Error(ErrorCode::schema, which, "is not a bench report (no \"benchmarks\" array)");
  }
  if (doc.contains("context")) {
    const auto& ctx = doc["context"];
    if (!ctx.is_object()) unusable(which, "context", ctx, "an object");
    p.device = field(ctx, "device", std::string(), which, "context");
    // Ours: load_start / load_end; Google Benchmark's: load_avg and num_cpus.
    const double cpus = field(ctx, "num_cpus", 0.0, which, "context");
    p.cpus = cpus >= 1 && cpus <= 1e6 ? static_cast<int>(cpus) : 0;  // a count we can use, or unknown
    auto busy_at = [&](const json& load, const std::string& where) {
      if (!load.is_array() || load.empty() || !load[0].is_number()) unusable(which, where, load, "[1-, 5-, 15-minute load]");
      const double l1 = load[0].get<double>();
      p.load1 = std::max(p.load1, l1);
      if (p.cpus > 0 && l1 > p.cpus) p.busy = true;
    };
    if (ctx.contains("load_avg")) busy_at(ctx["load_avg"], "context.load_avg");
    for (const char* key : {"load_start", "load_end"}) {
      if (!ctx.contains(key)) continue;
      if (!ctx[key].is_object()) unusable(which, fmt::format("context.{}", key), ctx[key], "an object");
      if (ctx[key].contains("load_avg")) busy_at(ctx[key]["load_avg"], fmt::format("context.{}.load_avg", key));
    }
    if (field(ctx, "busy", false, which, "context")) p.busy = true;
    if (const auto canary = ctx.find("canary_us"); canary != ctx.end()) {
      if (!canary->is_object()) unusable(which, "context.canary_us", *canary, "an object");
      p.canary.one_thread = field(*canary, "one_thread", 0.0, which, "context.canary_us") * 1e-6;
      p.canary.every_cpu = field(*canary, "every_cpu", 0.0, which, "context.canary_us") * 1e-6;
    }
  }
  std::map<std::string, std::vector<double>> repetitions;  // Google Benchmark: one entry per repetition
  const auto& benchmarks = doc["benchmarks"];
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const auto& b = benchmarks[i];
    const auto where = fmt::format("benchmarks[{}]", i);
    if (!b.is_object()) unusable(which, where, b, "an object");
    const auto raw_name = field(b, "name", std::string(), which, where);
    if (raw_name.empty()) unusable(which, where + ".name", b.value("name", json()), "a benchmark's name");
    if (field(b, "run_type", std::string("iteration"), which, where) != "iteration") continue;  // aggregates
    const auto name = normalize_bench_name(raw_name);
    Entry e;
    if (field(b, "error_occurred", false, which, where)) {
      e.error = true;
      e.message = field(b, "error_message", std::string("error"), which, where);
    } else {
      const double scale = unit_scale(field(b, "time_unit", std::string("ns"), which, where), which, where);
      if (!b.contains("real_time")) unusable(which, where + ".real_time", json(), "a time or count");
      e.counted = scale == 0.0;
      e.median = positive(b["real_time"], which, where + ".real_time") * (e.counted ? 1.0 : scale);
      e.cv = field(b, "cv", 0.0, which, where);
      e.cpu_pressure = field(b, "cpu_pressure", -1.0, which, where);
      if (e.cpu_pressure > 1.0) unusable(which, where + ".cpu_pressure", b["cpu_pressure"], "a share from 0 to 1");
      // Every sample: scatterctl's reports carry them (seconds as microseconds, or counts).
      const char* key = e.counted ? "samples_instructions" : "samples_us";
      if (b.contains(key)) {
        const auto& samples = b[key];
        if (!samples.is_array()) unusable(which, where + "." + key, samples, "an array");
        for (std::size_t k = 0; k < samples.size(); ++k) {
          const double v = positive(samples[k], which, fmt::format("{}.{}[{}]", where, key, k));
          e.samples.push_back(e.counted ? v : v * 1e-6);
        }
      } else {
        repetitions[name].push_back(e.median);
      }
    }
    if (!p.entries.count(name)) p.order.push_back(name);
    p.entries[name] = std::move(e);
  }
  for (auto& [name, times] : repetitions) {
    auto& e = p.entries[name];
    if (e.error) continue;
    e.samples = times;  // each repetition's time is one sample
    e.median = median_of(times);
  }
  return p;
}

}  // namespace

std::string normalize_bench_name(const std::string& name) {
  std::string n = name;
  const auto at = n.rfind('@');
  for (;;) {
    const auto slash = n.rfind('/');
    if (slash == std::string::npos || (at != std::string::npos && slash < at)) break;
    const std::string seg = n.substr(slash + 1);
    auto number_after = [&](const std::string& prefix) {
      if (seg.rfind(prefix, 0) != 0 || seg.size() == prefix.size()) return false;
      return std::all_of(seg.begin() + static_cast<std::ptrdiff_t>(prefix.size()), seg.end(),
                         [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 's'; });
    };
    const bool suffix = seg == "manual_time" || seg == "real_time" || seg == "process_time" ||
                        number_after("iterations:") || number_after("min_time:") ||
                        number_after("min_warmup_time:") || number_after("repeats:") || number_after("threads:");
    if (!suffix) break;
    n.erase(slash);
  }
  return n;
}

RatioEstimate hodges_lehmann_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                   double confidence) {
  RatioEstimate r;
  if (base.size() < 2 || next.size() < 2) return r;
  std::vector<double> d;
  d.reserve(base.size() * next.size());
  for (double y : next) {
    for (double x : base) {
      if (x <= 0 || y <= 0) return r;
      d.push_back(std::log(y) - std::log(x));
    }
  }
  std::sort(d.begin(), d.end());
  r.ratio = std::exp(median_of(d));
  // The interval's ends are the (K+1)-th smallest and largest pairwise differences, K the
  // lower critical value of Mann-Whitney's U (normal approximation, continuity corrected).
  const double n1 = static_cast<double>(base.size());
  const double n2 = static_cast<double>(next.size());
  const double z = detail::two_sided_z(confidence);
  const double k = std::floor(n1 * n2 / 2.0 - z * std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0) - 0.5);
  if (k < 0) {
    // Too few samples for an interval at this confidence: unbounded.
    r.low = 0.0;
    r.high = INFINITY;
    return r;
  }
  const auto ki = static_cast<std::size_t>(k);
  r.low = std::exp(d[ki]);
  r.high = std::exp(d[d.size() - 1 - ki]);
  return r;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const double n1 = static_cast<double>(a.size());
  const double n2 = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return 1.0;
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  double rank_a = 0.0;
  double tie_term = 0.0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + j) + 1.0) / 2.0;  // average of ranks i+1 .. j
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_a += rank;
    }
    i = j;
  }
  const double u = rank_a - n1 * (n1 + 1) / 2.0;
  const double mean = n1 * n2 / 2.0;
  const double n = n1 + n2;
  const double var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return 1.0;
  const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(var);
  return std::erfc(std::max(z, 0.0) / std::sqrt(2.0));
}

namespace {

// Counted rows: exact, so the verdict is the whole range of ratios between any two samples,
// past the threshold or within it (a count of the cpu backend's workers varies by a few
// instructions; a single-threaded count not at all).
void judge_counts(BenchDelta& d, const Entry& base, const Entry& next, double threshold) {
  const auto [base_low, base_high] = std::minmax_element(base.samples.begin(), base.samples.end());
  const auto [next_low, next_high] = std::minmax_element(next.samples.begin(), next.samples.end());
  d.counted = true;
  d.ratio = next.median / base.median;
  d.ratio_low = base.samples.empty() || next.samples.empty() ? d.ratio : *next_low / *base_high;
  d.ratio_high = base.samples.empty() || next.samples.empty() ? d.ratio : *next_high / *base_low;
  d.change = d.ratio - 1.0;
  const double up = 1.0 + threshold;
  d.verdict = d.ratio_low > up                                   ? GateVerdict::slower
              : d.ratio_high < 1.0 / up                          ? GateVerdict::faster
              : d.ratio_low >= 1.0 / up && d.ratio_high <= up    ? GateVerdict::same
                                                                 : GateVerdict::undecided;
}

// Under pressure p (the share of its sampling in which some task waited for a CPU) a row can take
// up to 1/(1-p) as long. From p 0.9 on, its calls waited for a CPU nearly all the time, and a
// short call waits whole time slices (a 2 ms row took 30x as long beside four spinning shells on
// 2 CPUs, at p 0.96: cli.compare_gate): its time says nothing of its code, and any slowdown is
// allowed. Where only the load averages are known, a busy report's load over its CPUs. 1:
// nothing says NEW's row was slowed.
double load_allowance(const Entry& row, const Parsed& report) {
  constexpr double kSaturatedPressure = 0.9;
  if (row.cpu_pressure >= kSaturatedPressure) return std::numeric_limits<double>::infinity();
  double allowance = 1.0;
  if (row.cpu_pressure >= kNoticeablePressure) allowance = 1.0 / (1.0 - row.cpu_pressure);
  if (report.busy && report.cpus > 0) allowance = std::max(allowance, report.load1 / report.cpus);
  return allowance;
}

// How much slower the canary ran in NEW than in BASE, the larger of its two forms; 1 where either
// report has none (older reports) or the machine was not slower.
double canary_drift(const Canary& base, const Canary& next) {
  double drift = 1.0;
  for (const auto& [b, n] : {std::pair{base.one_thread, next.one_thread}, std::pair{base.every_cpu, next.every_cpu}}) {
    if (b > 0 && n > 0 && std::isfinite(n / b)) drift = std::max(drift, n / b);
  }
  return drift;
}

// Several runs of one side, pooled: every benchmark's samples from all of them, its
// median recomputed. Runs of base and new interleaved in time (base, new, base, new)
// share the machine's slow and fast spells, which one run per side cannot.
Parsed pool(const std::vector<std::string>& texts, const char* which) {
  if (texts.empty()) throw Error(ErrorCode::schema, which, "no report given");
  Parsed all = parse(texts.front(), which);
  for (std::size_t i = 1; i < texts.size(); ++i) {
    const auto p = parse(texts[i], which);
    if (p.device != all.device) {
      throw Error(ErrorCode::backend, which,
                  fmt::format("report {} of {} is from device '{}', report 1 from '{}': a side pools one device's runs",
                              i + 1, texts.size(), p.device, all.device));
    }
    all.busy = all.busy || p.busy;
    all.load1 = std::max(all.load1, p.load1);
    // The side's machine at its slowest: a drift any of its runs saw may explain a change.
    all.canary.one_thread = std::max(all.canary.one_thread, p.canary.one_thread);
    all.canary.every_cpu = std::max(all.canary.every_cpu, p.canary.every_cpu);
    for (const auto& name : p.order) {
      const auto& e = p.entries.at(name);
      auto it = all.entries.find(name);
      if (it == all.entries.end()) {
        all.order.push_back(name);
        all.entries[name] = e;
        continue;
      }
      auto& mine = it->second;
      if (mine.error || e.error) {
        if (!mine.error) mine = e;  // an error in any run is the benchmark's
        continue;
      }
      if (mine.counted != e.counted) {
        throw Error(ErrorCode::schema, which,
                    fmt::format("'{}' is {} in report 1 and {} in report {}: a side pools one kind of run", name,
                                mine.counted ? "counted" : "timed", e.counted ? "counted" : "timed", i + 1));
      }
      mine.samples.insert(mine.samples.end(), e.samples.begin(), e.samples.end());
      mine.cpu_pressure = std::max(mine.cpu_pressure, e.cpu_pressure);
      mine.median = median_of(mine.samples);
    }
  }
  return all;
}

}  // namespace

BenchComparison compare_bench(const std::string& base_json, const std::string& next_json,
                              const CompareBenchOptions& options) {
  return compare_bench(std::vector<std::string>{base_json}, std::vector<std::string>{next_json}, options);
}

BenchComparison compare_bench(const std::vector<std::string>& base_jsons, const std::vector<std::string>& next_jsons,
                              const CompareBenchOptions& options) {
  const auto base = pool(base_jsons, "BASE");
  const auto next = pool(next_jsons, "NEW");
  BenchComparison c;
  c.base_device = base.device;
  c.next_device = next.device;
  if (!options.allow_device_mismatch && base.device != next.device) {
    throw Error(ErrorCode::backend, "",
                fmt::format("the reports come from different devices ('{}' and '{}'); pass --allow-device-mismatch to "
                            "compare them anyway",
                            base.device, next.device));
  }
  for (const auto& [which, p] : {std::pair<const char*, const Parsed*>{"BASE", &base}, {"NEW", &next}}) {
    if (p->busy) {
      c.warnings.push_back(fmt::format("{} was measured on a busy machine (load {:.2f} on {} CPUs): its timings are "
                                       "noisy; a verdict needs the change to stand out of that noise",
                                       which, p->load1, p->cpus));
    }
  }
  const double time_threshold = options.threshold.value_or(default_threshold(Counter::time));
  const double count_threshold = options.threshold.value_or(default_threshold(Counter::instructions));
  const double up = 1.0 + time_threshold;
  const double down = 1.0 / up;
  double log_sum = 0.0;
  int untested = 0;
  for (const auto& name : base.order) {
    BenchDelta d;
    d.name = name;
    const auto& b = base.entries.at(name);
    if (b.error) continue;  // nothing to compare against
    d.base = b.median;
    const auto it = next.entries.find(name);
    if (it == next.entries.end() || it->second.error) {
      d.verdict = it == next.entries.end() ? GateVerdict::missing : GateVerdict::error;
      ++c.missing;
      c.rows.push_back(d);
      continue;
    }
    const auto& n = it->second;
    ++c.common;
    d.next = n.median;
    d.base_samples = b.samples.size();
    d.next_samples = n.samples.size();
    if (b.counted || n.counted) {
      if (b.counted != n.counted) {
        throw Error(ErrorCode::schema, "",
                    fmt::format("'{}' is {} in BASE and {} in NEW: a count and a time cannot be compared", name,
                                b.counted ? "counted" : "timed", n.counted ? "counted" : "timed"));
      }
      judge_counts(d, b, n, count_threshold);
      log_sum += std::log(d.ratio);
      if (d.verdict == GateVerdict::slower) ++c.regressions;
      c.rows.push_back(d);
      continue;
    }
    const auto est = hodges_lehmann_ratio(b.samples, n.samples, options.confidence);
    double ratio = b.median > 0 ? n.median / b.median : 1.0;
    bool tested = false;
    bool significant = false;
    if (est.ratio > 0) {
      ratio = est.ratio;
      d.ratio = est.ratio;
      d.ratio_low = est.low;
      d.ratio_high = est.high;
      d.p_value = mann_whitney_p(b.samples, n.samples);
      tested = std::isfinite(est.high);
      significant = tested && (est.low > 1.0 || est.high < 1.0);
    }
    if (!tested) ++untested;
    d.change = ratio - 1.0;
    if (ratio > 0) log_sum += std::log(ratio);
    const bool beyond = ratio > up || ratio < down;
    d.verdict = !beyond         ? GateVerdict::same
                : !significant  ? GateVerdict::undecided
                : ratio > 1.0   ? GateVerdict::slower
                                : GateVerdict::faster;
    if (d.verdict == GateVerdict::slower) ++c.regressions;
    c.rows.push_back(d);
  }
  for (const auto& name : next.order) {
    if (base.entries.count(name)) continue;
    BenchDelta d;
    d.name = name;
    d.next = next.entries.at(name).median;
    d.verdict = next.entries.at(name).error ? GateVerdict::error : GateVerdict::added;
    c.rows.push_back(d);
  }
  c.geomean_change = c.common > 0 ? std::exp(log_sum / c.common) - 1.0 : 0.0;
  // Two reports are two runs: a neighbour's load moves all benchmarks of one run
  // together and scatters them by far more than the samples inside a run show. With 5 or
  // more benchmarks, their log ratios measure that: a benchmark is slower only when it
  // stands out of the others by 3 robust spreads too.
  // Counts do not drift with the load: only timed rows measure it.
  std::vector<double> logs;
  for (const auto& d : c.rows) {
    if (!d.counted && d.ratio > 0 && std::isfinite(d.ratio_high)) logs.push_back(std::log(d.ratio));
  }
  if (logs.size() >= 5) {
    c.drift = median_of(logs);
    std::vector<double> dev;
    for (double l : logs) dev.push_back(std::fabs(l - c.drift));
    c.noise = 1.4826 * median_of(dev);
    for (auto& d : c.rows) {
      if ((d.verdict != GateVerdict::slower && d.verdict != GateVerdict::faster) || d.ratio <= 0 || d.counted) continue;
      const double excess = std::log(d.ratio) - c.drift;
      if (std::fabs(excess) <= 3.0 * c.noise || (d.verdict == GateVerdict::slower) != (excess > 0)) {
        if (d.verdict == GateVerdict::slower) --c.regressions;
        d.verdict = GateVerdict::undecided;
      }
    }
    const bool busy = base.busy || next.busy;
    // The drift itself: a whole-suite change. Significant when most benchmarks moved the
    // same way past the threshold (their intervals exclude 1).
    int up_rows = 0;
    for (const auto& d : c.rows) up_rows += !d.counted && d.ratio > 0 && d.ratio_low > 1.0 ? 1 : 0;
    // A drift past the suite threshold never passes: a regression when it is significant on
    // quiet machines, undecided when load or noise could explain it.
    if (c.drift > std::log(1.0 + std::max(time_threshold, options.suite_threshold))) {
      if (busy || up_rows * 2 <= static_cast<int>(logs.size())) {
        c.undecided = true;
        c.warnings.push_back(fmt::format(
            "the whole suite moved by {:+.1f}% (median){}: two unpaired runs cannot tell a neighbour's load from a "
            "suite-wide regression, so the gate is undecided (exit 6); pair them in one run (bench --gate, "
            "docs/benchmarks.md)",
            (std::exp(c.drift) - 1) * 100, busy ? ", on a busy machine" : ", most benchmarks not significantly"));
      } else {
        c.suite_regression = true;
        c.warnings.push_back(fmt::format("the whole suite is slower: median change {:+.1f}%, {} of {} benchmarks "
                                         "significantly slower, on quiet machines",
                                         (std::exp(c.drift) - 1) * 100, up_rows, logs.size()));
      }
    }
  }
  // The machine itself: the canary (the same fixed work in both runs) ran slower in NEW by this
  // factor, on one thread or on every CPU; a slowdown within it is the machine's, not the code's.
  c.canary_drift = canary_drift(base.canary, next.canary);
  if (c.canary_drift > up) {
    c.warnings.push_back(fmt::format("the machine ran {:.2f}x slower in NEW than in BASE (the canary: the same fixed "
                                     "work in both runs): a slowdown within that is undecided, never slower",
                                     c.canary_drift));
  }
  // Load moves one row too: a neighbour's burst during one benchmark's samples makes it slower
  // alone, so it stands out of the others' drift. Where NEW's row waited for a CPU, or its report
  // says busy, or the canary ran slower, a slowdown within what that could cause is undecided,
  // never slower.
  int loaded = 0;
  for (auto& d : c.rows) {
    if (d.verdict != GateVerdict::slower || d.counted) continue;
    const double allowance = std::max(load_allowance(next.entries.at(d.name), next), c.canary_drift);
    if (allowance <= 1.0 || d.ratio_low > up * allowance) continue;
    d.verdict = GateVerdict::undecided;
    --c.regressions;
    ++loaded;
    c.undecided = true;
  }
  if (loaded > 0) {
    c.warnings.push_back(fmt::format(
        "{} benchmark{} of NEW ran under CPU load (a neighbour, the load averages, or a slower canary) that could make {} as slow as "
        "measured: two unpaired runs cannot tell a neighbour from a change, so {} undecided (exit 6); pair them in "
        "one run (bench --gate, docs/benchmarks.md)",
        loaded, loaded == 1 ? "" : "s", loaded == 1 ? "it" : "them", loaded == 1 ? "it is" : "they are"));
  }
  if (untested > 0) {
    c.warnings.push_back(fmt::format(
        "{} of {} benchmarks have too few samples for a {:.0f}% interval (4 or more on each side): they can be "
        "'unsure' but never 'slower'; use scatterctl bench's reports (every sample) or "
        "--benchmark_repetitions=10 with scatter_bench",
        untested, c.common, options.confidence * 100));
  }
  if (c.common == 0) {
    c.warnings.push_back("no benchmark is in both reports: nothing was compared");
  }
  if (c.missing > 0) {
    c.warnings.push_back(fmt::format("{} benchmark{} of BASE {} no timing in NEW (missing or failed){}", c.missing,
                                     c.missing == 1 ? "" : "s", c.missing == 1 ? "has" : "have",
                                     options.allow_missing ? "; allowed by --allow-missing" : ""));
  }
  c.failed = c.regressions > 0 || c.suite_regression || (!options.allow_missing && (c.missing > 0 || c.common == 0));
  return c;
}

namespace {

constexpr std::string_view kUnpairedNote =
    "unpaired: two runs taken apart; what the machine did between them counts as change (a paired run: bench "
    "--backend base=...,new=... --gate base,new)";

// Names and warnings come from report files: printable_text before they are printed.
BenchComparison printable(BenchComparison c) {
  for (auto& d : c.rows) d.name = printable_text(d.name);
  for (auto& w : c.warnings) w = printable_text(w);
  return c;
}

std::string interval(const BenchDelta& d) {
  if (d.ratio <= 0) return "-";
  const int decimals = d.counted ? 2 : 1;
  if (!d.counted && !std::isfinite(d.ratio_high)) return "(too few)";
  return fmt::format("[{}%, {}%]", detail::short_number((d.ratio_low - 1) * 100, decimals, true),
                     detail::short_number((d.ratio_high - 1) * 100, decimals, true));
}


std::string p_cell(const BenchDelta& d) {
  if (d.counted) return "exact";
  return d.p_value < 0 ? "-" : fmt::format("{:.3f}", d.p_value);
}

std::string change_cell(const BenchDelta& d) {
  if (d.verdict == GateVerdict::missing || d.verdict == GateVerdict::added || d.verdict == GateVerdict::error) return "-";
  return detail::short_number(d.change * 100, 1, true) + "%";
}

std::string summary(const BenchComparison& c) {
  return fmt::format("geometric mean of the changes: {:+.2f}%{}; {} slower{}, {} missing of {} compared; gate {}",
                     c.geomean_change * 100,
                     c.noise > 0 ? fmt::format(" (run drift {:+.1f}%, spread between benchmarks {:.1f}%)",
                                               (std::exp(c.drift) - 1) * 100, c.noise * 100)
                                 : "",
                     c.regressions, c.suite_regression ? " and the whole suite" : "", c.missing, c.common,
                     c.failed ? "FAILED" : c.undecided ? "UNDECIDED" : "passed");
}

}  // namespace

std::string compare_table(const BenchComparison& raw) {
  const auto c = printable(raw);
  std::string out = std::string(kUnpairedNote) + "\n";
  out += fmt::format("{:<52} {:>10} {:>10} {:>8} {:>20} {:>7}  {}\n", "benchmark", "base", "new", "change",
                                "95% interval", "p", "verdict");
  for (const auto& d : c.rows) {
    out += fmt::format("{:<52} {:>10} {:>10} {:>8} {:>20} {:>7}  {}\n", d.name, detail::value_cell(d.base, d.counted), detail::value_cell(d.next, d.counted),
                       change_cell(d), interval(d), p_cell(d), to_string(d.verdict));
  }
  out += summary(c) + "\n";
  return out;
}

std::string compare_markdown(const BenchComparison& raw) {
  const auto c = printable(raw);
  std::string out = fmt::format("## scatterctl compare: {} slower, {} missing, geometric mean {:+.2f}%: gate {}\n\n{}\n\n",
                                c.regressions, c.missing, c.geomean_change * 100,
                                c.failed ? "**failed**" : c.undecided ? "**undecided**" : "passed", kUnpairedNote);
  for (const auto& w : c.warnings) out += "- warning: " + w + "\n";
  if (!c.warnings.empty()) out += "\n";
  out += "| benchmark | base | new | change | 95% interval | p | verdict |\n|---|---|---|---|---|---|---|\n";
  for (const auto& d : c.rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", d.name, detail::value_cell(d.base, d.counted), detail::value_cell(d.next, d.counted),
                       change_cell(d), interval(d), p_cell(d),
                       d.verdict == GateVerdict::slower || d.verdict == GateVerdict::missing || d.verdict == GateVerdict::error
                           ? fmt::format("**{}**", to_string(d.verdict))
                           : std::string(to_string(d.verdict)));
  }
  return out;
}

}  // namespace scatter

// The regression gate: two bench reports, per benchmark the change and a verdict.
// Slower only when the change exceeds the threshold and the measured noise says it
// is real (Mann-Whitney U when both runs have 9 or more samples).

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scatter/bench.hpp"

namespace scatter {
namespace {

struct Entry {
  double median = 0.0;  // seconds
  double cv = 0.0;
  std::vector<double> samples;
};

struct Parsed {
  std::string device;
  std::map<std::string, Entry> entries;
  std::vector<std::string> order;
};

double to_seconds(double value, const std::string& unit) {
  if (unit == "ns") return value * 1e-9;
  if (unit == "us") return value * 1e-6;
  if (unit == "ms") return value * 1e-3;
  return value;
}

Parsed parse(const std::string& text, const char* which) {
  Parsed p;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::json, which, e.what());
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw Error(ErrorCode::schema, which, "is not a bench report (no \"benchmarks\" array)");
  }
  if (doc.contains("context") && doc["context"].is_object() && doc["context"].contains("device")) {
    p.device = doc["context"]["device"].is_string() ? doc["context"]["device"].get<std::string>() : "";
  }
  for (const auto& b : doc["benchmarks"]) {
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) continue;
    if (b.value("error_occurred", false)) continue;
    if (b.contains("run_type") && b["run_type"] != "iteration") continue;  // aggregates
    Entry e;
    const auto unit = b.value("time_unit", std::string("ns"));
    if (!b.contains("real_time") || !b["real_time"].is_number()) continue;
    e.median = to_seconds(b["real_time"].get<double>(), unit);
    e.cv = b.value("cv", 0.0);
    if (b.contains("samples_us") && b["samples_us"].is_array()) {
      for (const auto& s : b["samples_us"]) {
        if (s.is_number()) e.samples.push_back(s.get<double>() * 1e-6);
      }
    }
    const auto name = b["name"].get<std::string>();
    if (!p.entries.count(name)) p.order.push_back(name);
    p.entries[name] = std::move(e);
  }
  return p;
}

}  // namespace

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

BenchComparison compare_bench(const std::string& base_json, const std::string& next_json,
                              const CompareBenchOptions& options) {
  const auto base = parse(base_json, "BASE");
  const auto next = parse(next_json, "NEW");
  BenchComparison c;
  c.base_device = base.device;
  c.next_device = next.device;
  if (!options.allow_device_mismatch && base.device != next.device) {
    throw Error(ErrorCode::backend, "",
                fmt::format("the reports come from different devices ('{}' and '{}'); pass --allow-device-mismatch to "
                            "compare them anyway",
                            base.device, next.device));
  }
  double log_sum = 0.0;
  int common = 0;
  for (const auto& name : base.order) {
    BenchDelta d;
    d.name = name;
    const auto& b = base.entries.at(name);
    d.base = b.median;
    const auto it = next.entries.find(name);
    if (it == next.entries.end()) {
      d.verdict = "missing";
      c.rows.push_back(d);
      continue;
    }
    const auto& n = it->second;
    d.next = n.median;
    d.change = b.median > 0 ? n.median / b.median - 1.0 : 0.0;
    if (b.median > 0 && n.median > 0) {
      log_sum += std::log(n.median / b.median);
      ++common;
    }
    const bool beyond = std::fabs(d.change) > options.threshold;
    bool real = false;
    if (b.samples.size() >= 9 && n.samples.size() >= 9) {
      d.p_value = mann_whitney_p(b.samples, n.samples);
      real = d.p_value < 0.05;
    } else {
      // Without samples: the change must also exceed twice the noise of either run.
      real = std::fabs(d.change) > 2.0 * std::max(b.cv, n.cv);
    }
    d.verdict = !beyond ? "same" : !real ? "unsure" : d.change > 0 ? "slower" : "faster";
    if (d.verdict == "slower") ++c.regressions;
    c.rows.push_back(d);
  }
  for (const auto& name : next.order) {
    if (base.entries.count(name)) continue;
    BenchDelta d;
    d.name = name;
    d.next = next.entries.at(name).median;
    d.verdict = "new";
    c.rows.push_back(d);
  }
  c.geomean_change = common > 0 ? std::exp(log_sum / common) - 1.0 : 0.0;
  return c;
}

std::string compare_table(const BenchComparison& c) {
  std::string out = fmt::format("{:<56} {:>12} {:>12} {:>9} {:>8}  {}\n", "benchmark", "base", "new", "change", "p",
                                "verdict");
  for (const auto& d : c.rows) {
    out += fmt::format("{:<56} {:>9.1f} us {:>9.1f} us {:>+8.1f}% {:>8}  {}\n", d.name, d.base * 1e6, d.next * 1e6,
                       d.change * 100, d.p_value < 0 ? "-" : fmt::format("{:.3f}", d.p_value), d.verdict);
  }
  out += fmt::format("geometric mean of the changes: {:+.2f}%; {} slower\n", c.geomean_change * 100, c.regressions);
  return out;
}

std::string compare_markdown(const BenchComparison& c) {
  std::string out = fmt::format("## scatterctl compare: {} slower, geometric mean {:+.2f}%\n\n", c.regressions,
                                c.geomean_change * 100);
  out += "| benchmark | base | new | change | p | verdict |\n|---|---|---|---|---|---|\n";
  for (const auto& d : c.rows) {
    out += fmt::format("| {} | {:.1f} us | {:.1f} us | {:+.1f}% | {} | {} |\n", d.name, d.base * 1e6, d.next * 1e6,
                       d.change * 100, d.p_value < 0 ? "-" : fmt::format("{:.3f}", d.p_value),
                       d.verdict == "slower" ? "**slower**" : d.verdict);
  }
  return out;
}

}  // namespace scatter

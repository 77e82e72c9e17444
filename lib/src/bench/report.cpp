// Bench reports: Google Benchmark's JSON schema (so its compare tools read it) with
// our counters, a Markdown summary and the terminal table.

#include <algorithm>
#include <map>
#include <cmath>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "scatter/bench.hpp"
#include "scatter/counter.hpp"
#include "scatter/error.hpp"
#include "stats.hpp"

namespace scatter {
namespace {


std::string row_name(const BenchRow& r) { return bench_name(r.name, r.backend); }

// Every string a report prints, through printable_text: valid UTF-8, no control
// characters (a case file's name, a plugin's error or device text may hold anything).
BenchReport printable(BenchReport report) {
  auto& c = report.context;
  for (auto* text : {&c.date, &c.host, &c.device, &c.version, &c.git_commit, &c.build_type, &c.mode, &c.size}) {
    *text = printable_text(*text);
  }
  for (auto& [key, value] : c.properties) {
    key = printable_text(key);
    value = printable_text(value);
  }
  for (auto& r : report.rows) {
    for (auto* text : {&r.name, &r.group, &r.backend, &r.shape, &r.error, &r.timed_by, &r.expectation, &r.verdict_reason}) {
      *text = printable_text(*text);
    }
  }
  return report;
}

std::string load_text(const MachineLoad& m) {
  if (m.load1 < 0) return "unknown";
  return fmt::format("{:.2f} {:.2f} {:.2f}", m.load1, m.load5, m.load15);
}

nlohmann::ordered_json load_json(const MachineLoad& m) {
  return {{"load_avg", {m.load1, m.load5, m.load15}}, {"cpus", m.cpus}, {"busy", m.busy()}};
}

// The random-sector ceiling for element rows; slices have the copy as their roofline.
std::string sector_cell(const BenchRow& r) {
  return r.bytes.element_writes() && r.sector_bandwidth > 0 ? fmt::format("{:.1f}%", r.percent_of_sector_ceiling())
                                                            : "-";
}

// 1.23 M, 45.6 k, 789: an instruction or miss count per call.
std::string human_count(double count) {
  if (count < 0) return "-";
  if (count >= 1e9) return fmt::format("{:.3f} G", count / 1e9);
  if (count >= 1e6) return fmt::format("{:.3f} M", count / 1e6);
  if (count >= 1e3) return fmt::format("{:.2f} k", count / 1e3);
  return fmt::format("{:.0f}", count);
}

// Simulated data-cache misses per call, reads and writes: D1 (first level) and LL (last level).
double misses(const BenchRow& r, const char* read, const char* write) {
  const double a = count_of(r.events, read), b = count_of(r.events, write);
  return a < 0 || b < 0 ? -1.0 : a + b;
}

// bench --counter instructions: per row the instructions of one call and the simulated misses.
std::string counted_table(const BenchReport& report) {
  std::string out = fmt::format("device: {}; counted by callgrind: the instructions of the timed region, caches "
                                "simulated\n",
                                report.context.device);
  out += fmt::format("{:<44} {:<11} {:>14} {:>11} {:>11} {:>6} {:>4}  {}\n", "benchmark", "backend", "instructions",
                     "D1 misses", "LL misses", "spread", "n", "shape");
  for (const auto& r : report.rows) {
    if (!r.timed()) {
      out += fmt::format("{:<44} {:<11} {}: {}\n", r.name, r.backend, to_string(r.status), r.error);
      continue;
    }
    out += fmt::format("{:<44} {:<11} {:>14} {:>11} {:>11} {:>5.2f}% {:>4}  {}\n", r.name, r.backend,
                       human_count(r.timing.median), human_count(misses(r, "D1mr", "D1mw")),
                       human_count(misses(r, "DLmr", "DLmw")), r.timing.spread * 100, r.timing.samples.size(),
                       r.shape);
  }
  return out;
}

}  // namespace

std::string bench_json(const BenchReport& raw) {
  const auto report = printable(raw);  // no byte of a name reaches a report as it is
  nlohmann::ordered_json doc;
  const auto& c = report.context;
  doc["context"] = {{"date", c.date},
                    {"host_name", c.host},
                    {"executable", "scatterctl bench"},
                    {"library_build_type", c.build_type},
                    {"device", c.device},
                    {"copy_bandwidth_gbps", c.copy_bandwidth / 1e9},
                    {"sector_write_gbps", c.sector_bandwidth / 1e9},
                    {"scatterctl_version", c.version},
                    {"git_commit", c.git_commit},
                    {"mode", c.mode},
                    {"size", c.size},
                    {"repetitions", c.repetitions},
                    {"seed", c.seed},
                    {"variation_seed", fmt::format("{:016x}", c.variation_seed)},
                    {"canary_us", {{"one_thread", c.canary.one_thread * 1e6}, {"every_cpu", c.canary.every_cpu * 1e6}}},
                    // Google Benchmark's key, the 1, 5 and 15 minute averages at the start.
                    {"load_avg", {c.load_start.load1, c.load_start.load5, c.load_start.load15}},
                    {"num_cpus", c.load_start.cpus},
                    {"load_start", load_json(c.load_start)},
                    {"load_end", load_json(c.load_end)},
                    {"busy", c.busy()},
                    {"counter", std::string(to_string(c.counter))},
                    {"interrupted", c.interrupted},
                    {"reference_by", c.reference_by},
                    {"schema_version", 3}};
  for (const auto& [key, value] : c.properties) doc["context"][key] = value;
  // --backend LABEL=SPEC: what each labelled row's backend is.
  if (!c.labels.empty()) {
    auto labels = nlohmann::ordered_json::object();
    for (const auto& [label, spec] : c.labels) labels[label] = spec;
    doc["context"]["backend_specs"] = labels;
  }
  auto benchmarks = nlohmann::ordered_json::array();
  for (const auto& r : report.rows) {
    nlohmann::ordered_json b;
    b["name"] = row_name(r);
    b["run_name"] = row_name(r);
    b["run_type"] = "iteration";
    b["repetitions"] = 1;
    b["repetition_index"] = 0;
    b["threads"] = 1;
    b["iterations"] = r.timing.samples.size();
    if (r.counter == Counter::instructions) {
      // Google Benchmark's fields hold the count in place of a time, so that its ratio tools
      // still compare counted rows; the unit says what they are.
      b["real_time"] = r.timing.median;
      b["cpu_time"] = r.timing.median;
      b["time_unit"] = "instructions";
      b["counter"] = "instructions";
      b["instructions"] = r.timing.median;
      auto events = nlohmann::ordered_json::object();
      for (const auto& [event, count] : r.events) events[event] = count;
      b["events"] = events;
      b["samples_instructions"] = r.timing.samples;
    } else {
      b["real_time"] = r.timing.median * 1e6;
      b["cpu_time"] = r.timing.median * 1e6;
      b["time_unit"] = "us";
      b["bytes_per_second"] = r.timing.median > 0 ? r.bytes.total() / r.timing.median : 0.0;
    }
    b["group"] = r.group;
    b["backend"] = r.backend;
    b["in_place"] = r.in_place;
    b["shape"] = r.shape;
    b["verified"] = r.verified;
    if (r.counter == Counter::time) {
      b["timed_by"] = r.timed_by.empty() ? "scatterctl (the backend's own timer)" : r.timed_by;
      b["cache"] = r.cold ? "cold" : "hot";
      b["bytes"] = r.bytes.total();
      b["bytes_indices"] = r.bytes.indices;
      b["bytes_updates"] = r.bytes.updates;
      b["bytes_writes"] = r.bytes.writes;
      b["bytes_copy"] = r.bytes.copy;
      b["gb_per_s"] = r.gbps();
      b["percent_of_copy"] = r.percent_of_copy();
      b["percent_of_sector_ceiling"] = r.percent_of_sector_ceiling();
      b["element_writes"] = r.bytes.element_writes();
      b["copy_line_gbps"] = r.copy_line() / 1e9;  // the 100% line of this row
      b["copy_line"] = r.working_set_copy_bandwidth > 0 ? "working set" : "device";
      b["floor_us"] = r.floor_seconds() * 1e6;
      // The physics check's line: the fastest rate measured for this row's memory (0: none).
      b["fastest_rate_gbps"] = r.fastest_rate / 1e9;
      if (!r.fastest_rate_of.empty()) b["fastest_rate_of"] = r.fastest_rate_of;
      auto samples = nlohmann::ordered_json::array();
      for (double t : r.timing.samples) samples.push_back(t * 1e6);
      b["samples_us"] = samples;
      // A worker's samples on scatterctl's own clock, and the signals' round trips.
      if (!r.outer_clocks.empty()) {
        auto outer = nlohmann::ordered_json::array();
        auto trips = nlohmann::ordered_json::array();
        for (const auto& o : r.outer_clocks) {
          outer.push_back(o.seconds * 1e6);
          trips.push_back(o.round_trip * 1e6);
        }
        b["outer_us"] = outer;
        b["round_trip_us"] = trips;
      }
      if (!r.varied.empty()) b["varied"] = r.varied;
      if (r.cpu_pressure >= 0) b["cpu_pressure"] = r.cpu_pressure;
    }
    b["spread"] = r.timing.spread;
    b["cv"] = r.timing.cv;
    // The round of each sample: samples of two backends in one round were taken moments apart.
    b["rounds"] = r.rounds;
    b["blocks"] = r.blocks;
    if (!r.spec.empty()) b["spec"] = r.spec;
    b["status"] = std::string(to_string(r.status));
    b["verdict"] = std::string(to_string(r.verdict));
    if (r.verdict == TimeVerdict::noisy) b["verdict_reason"] = r.verdict_reason;
    if (!r.timed()) {
      b["error_occurred"] = true;
      b["error_message"] = r.error;
      if (r.failed()) b["failed"] = true;
      if (r.skipped()) b["skipped"] = true;
    }
    if (!r.expectation.empty()) b[r.status == Status::xpass ? "xpass" : "xfail"] = r.expectation;
    benchmarks.push_back(std::move(b));
  }
  doc["benchmarks"] = benchmarks;
  return doc.dump(2) + "\n";
}

std::string bench_table(const BenchReport& raw) {
  const auto report = printable(raw);  // no byte of a name reaches a report as it is
  if (report.context.counter == Counter::instructions) return counted_table(report);
  const auto& c = report.context;
  const bool working_set = std::any_of(report.rows.begin(), report.rows.end(),
                                       [](const BenchRow& r) { return r.working_set_copy_bandwidth > 0; });
  std::string out = fmt::format(
      "device: {}; {} cache; {} repetition{}; load {} at start, {} at end ({} CPUs)\n", c.device,
      report.rows.empty() || report.rows.front().cold ? "cold" : "hot", c.repetitions, c.repetitions == 1 ? "" : "s",
      load_text(c.load_start), load_text(c.load_end), c.load_start.cpus);
  out += fmt::format("100% line: {}; sector ceiling {:.1f} GB/s (element rows)\n",
                     working_set ? fmt::format("a cold copy of each row's own working set, at most 256 MiB a side (device copy {:.1f} GB/s)",
                                               c.copy_bandwidth / 1e9)
                                 : fmt::format("copy bandwidth {:.1f} GB/s (read + write)", c.copy_bandwidth / 1e9),
                     c.sector_bandwidth / 1e9);
  if (!c.reference_by.empty()) out += fmt::format("reference: {}\n", c.reference_by);
  if (c.busy()) {
    out += fmt::format("warning: the machine was busy (load {:.2f} at start, {:.2f} at end, {} CPUs): timings are noisy\n",
                       c.load_start.load1, c.load_end.load1, c.load_start.cpus);
  }
  out += fmt::format("{:<44} {:<11} {:>10} {:>7} {:>9} {:>7} {:>9} {:>9} {:>10} {:>4}  {}\n", "benchmark", "backend",
                     "median", "spread", "moved", "GB/s", "% of copy", "% sector", "floor", "n", "shape");
  for (const auto& r : report.rows) {
    if (!r.timed()) {
      out += fmt::format("{:<44} {:<11} {}: {}\n", r.name, r.backend, to_string(r.status), r.error);
      continue;
    }
    out += fmt::format("{:<44} {:<11} {:>10} {:>6.1f}% {:>9} {:>7.2f} {:>8.1f}% {:>9} {:>10} {:>4}  {}{}\n", r.name,
                       r.backend, human_time(r.timing.median), r.timing.spread * 100, decimal_bytes(r.bytes.total()),
                       r.gbps(), r.percent_of_copy(), sector_cell(r), human_time(r.floor_seconds()),
                       r.timing.samples.size(), r.shape,
                       r.timing.noisy() ? fmt::format("  (noisy: cv {:.1f}%)", r.timing.cv * 100) : "");
    if (r.verdict == TimeVerdict::noisy) out += fmt::format("  {}: {}\n", to_string(r.verdict), r.verdict_reason);
  }
  // How each external backend timed its rows (built-ins time themselves: see docs/benchmarks.md).
  std::map<std::string, std::string> timed_by;
  for (const auto& r : report.rows) {
    if (!r.timed_by.empty()) timed_by.emplace(r.backend, r.timed_by);
  }
  for (const auto& [backend, how] : timed_by) out += fmt::format("{} timed by: {}\n", backend, how);
  return out;
}

std::string bench_markdown(const BenchReport& raw) {
  const auto report = printable(raw);  // no byte of a name reaches a report as it is
  const auto& c = report.context;
  std::string out = fmt::format("## scatterctl bench: {} ({})\n\n", c.mode, c.size);
  out += fmt::format("- device: {}\n- copy bandwidth: {:.1f} GB/s (read + write counted); host rows: a cold copy of "
                     "the row's own working set, at most 256 MiB a side\n- sector ceiling: {:.1f} GB/s\n- load: {} at start, {} at end, {} "
                     "CPUs{}\n- {} repetition(s)\n- scatterctl {}{}, {}\n\n",
                     c.device, c.copy_bandwidth / 1e9, c.sector_bandwidth / 1e9, load_text(c.load_start),
                     load_text(c.load_end), c.load_start.cpus, c.busy() ? " (**busy**: timings are noisy)" : "",
                     c.repetitions, c.version, c.git_commit.empty() ? "" : ", commit " + c.git_commit.substr(0, 12),
                     c.date);
  if (c.counter == Counter::instructions) {
    out += "| benchmark | backend | shape | instructions | D1 misses | LL misses |\n|---|---|---|---|---|---|\n";
    for (const auto& r : report.rows) {
      out += r.timed() ? fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.name, r.backend, r.shape,
                                     human_count(r.timing.median), human_count(misses(r, "D1mr", "D1mw")),
                                     human_count(misses(r, "DLmr", "DLmw")))
                       : fmt::format("| {} | {} | {} | {}: {} | | |\n", r.name, r.backend, r.shape,
                                     to_string(r.status), r.error);
    }
    return out;
  }
  out += "| benchmark | backend | shape | median | spread | GB/s | % of copy | % of sector ceiling | floor |\n"
         "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : report.rows) {
    if (!r.timed()) {
      out += fmt::format("| {} | {} | {} | {}: {} | | | | | |\n", r.name, r.backend, r.shape,
                         r.failed() ? fmt::format("**{}**", to_string(r.status)) : std::string(to_string(r.status)),
                         r.error);
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | {:.2f}% | {:.2f} | {:.1f}% | {} | {} |\n", r.name, r.backend, r.shape,
                       human_time(r.timing.median), r.timing.spread * 100, r.gbps(), r.percent_of_copy(),
                       sector_cell(r), human_time(r.floor_seconds()));
  }
  return out;
}

}  // namespace scatter

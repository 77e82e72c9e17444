// Bench reports: Google Benchmark's JSON schema (so its compare tools read it) with
// our counters, a Markdown summary and the terminal table.

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "scatter/bench.hpp"

namespace scatter {
namespace {

std::string row_name(const BenchRow& r) { return fmt::format("{}@{}", r.name, r.backend); }

std::string gb(double bytes) { return fmt::format("{:.3f}", bytes / 1e9); }

}  // namespace

std::string bench_json(const BenchReport& report) {
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
                    {"schema_version", 1}};
  for (const auto& [key, value] : c.properties) doc["context"][key] = value;
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
    b["real_time"] = r.timing.median * 1e6;
    b["cpu_time"] = r.timing.median * 1e6;
    b["time_unit"] = "us";
    b["bytes_per_second"] = r.timing.median > 0 ? r.bytes.total() / r.timing.median : 0.0;
    b["group"] = r.group;
    b["backend"] = r.backend;
    b["in_place"] = r.in_place;
    b["cache"] = r.cold ? "cold" : "hot";
    b["bytes"] = r.bytes.total();
    b["bytes_indices"] = r.bytes.indices;
    b["bytes_updates"] = r.bytes.updates;
    b["bytes_writes"] = r.bytes.writes;
    b["bytes_copy"] = r.bytes.copy;
    b["gb_per_s"] = r.gbps();
    b["percent_of_copy"] = r.percent_of_copy();
    b["percent_of_sector_ceiling"] = r.percent_of_sector_ceiling();
    b["floor_us"] = r.floor_seconds() * 1e6;
    b["spread"] = r.timing.spread;
    b["cv"] = r.timing.cv;
    auto samples = nlohmann::ordered_json::array();
    for (double s : r.timing.samples) samples.push_back(s * 1e6);
    b["samples_us"] = samples;
    if (!r.error.empty()) {
      b["error_occurred"] = true;
      b["error_message"] = r.error;
    }
    benchmarks.push_back(std::move(b));
  }
  doc["benchmarks"] = benchmarks;
  return doc.dump(2) + "\n";
}

std::string bench_table(const BenchReport& report) {
  std::string out = fmt::format("device: {}; copy bandwidth {:.1f} GB/s (read + write); {} cache\n",
                                report.context.device, report.context.copy_bandwidth / 1e9,
                                report.rows.empty() || report.rows.front().cold ? "cold" : "hot");
  out += fmt::format("{:<46} {:<6} {:>12} {:>9} {:>10} {:>8} {:>12} {:>7} {:>5}\n", "benchmark", "backend", "median",
                     "spread", "GB moved", "GB/s", "% of copy", "floor", "n");
  for (const auto& r : report.rows) {
    if (!r.error.empty()) {
      out += fmt::format("{:<46} {:<6} error: {}\n", r.name, r.backend, r.error);
      continue;
    }
    out += fmt::format("{:<46} {:<6} {:>9.1f} us {:>8.2f}% {:>10} {:>8.2f} {:>11.1f}% {:>4.0f}us {:>5}{}\n", r.name,
                       r.backend, r.timing.median * 1e6, r.timing.spread * 100, gb(r.bytes.total()), r.gbps(),
                       r.percent_of_copy(), r.floor_seconds() * 1e6, r.timing.samples.size(),
                       r.timing.noisy() ? fmt::format("  (noisy: cv {:.1f}%)", r.timing.cv * 100) : "");
  }
  return out;
}

std::string bench_markdown(const BenchReport& report) {
  const auto& c = report.context;
  std::string out = fmt::format("## scatterctl bench: {} ({})\n\n", c.mode, c.size);
  out += fmt::format("- device: {}\n- copy bandwidth: {:.1f} GB/s (read + write counted)\n- scatterctl {}{}, {}\n\n",
                     c.device, c.copy_bandwidth / 1e9, c.version,
                     c.git_commit.empty() ? "" : ", commit " + c.git_commit.substr(0, 12), c.date);
  out += "| benchmark | backend | median | spread | GB/s | % of copy | floor |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : report.rows) {
    if (!r.error.empty()) {
      out += fmt::format("| {} | {} | error: {} | | | | |\n", r.name, r.backend, r.error);
      continue;
    }
    out += fmt::format("| {} | {} | {:.1f} us | {:.2f}% | {:.2f} | {:.1f}% | {:.1f} us |\n", r.name, r.backend,
                       r.timing.median * 1e6, r.timing.spread * 100, r.gbps(), r.percent_of_copy(),
                       r.floor_seconds() * 1e6);
  }
  return out;
}

}  // namespace scatter

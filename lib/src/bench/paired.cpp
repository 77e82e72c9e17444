// The paired gate: per benchmark, the log ratios new/base of the samples of one round;
// the Hodges-Lehmann estimate and the Wilcoxon signed-rank interval of their centre; a
// one-sided signed-rank test of "slower", Holm-corrected across the benchmarks.

#include "scatter/paired.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scatter/cancel.hpp"
#include "scatter/counter.hpp"
#include "scatter/error.hpp"
#include "scatter/result.hpp"
#include "scatter/tensor.hpp"
#include "core/bounded_json.hpp"
#include "stats.hpp"

namespace scatter {
namespace {

using nlohmann::json;

// Blocks a verdict needs. Fewer leave it undecided, whatever the interval says: with 6 blocks
// (each of a few rounds on a loaded 2-core machine) an A/B of a real 1.10x slowdown gave the
// interval [0.63, 1.04], wrongly ruling the slowdown out.
constexpr std::size_t kMinBlocks = 12;
// Blocks one benchmark may have: the estimate sorts n(n+1)/2 Walsh averages (3000 blocks: 36 MB).
// A bench run makes a few hundred at most; more is a report to refuse, not to run out of memory on.
constexpr std::size_t kMaxBlocks = 3000;

// One row of the report: sample -> its round, round -> its block.
struct Side {
  std::map<int, double> by_round;
  std::map<int, int> block_of;
  std::vector<double> samples;  // seconds, or instructions when counted
  bool counted = false;
  std::string error;  // the row has no timing
};

[[noreturn]] void unusable(const std::string& field, const std::string& what) {
  throw Error(ErrorCode::schema, field, what);
}

// Every row of `label`, by case name. Fields are checked as they are read: a report is input.
std::map<std::string, Side> rows_of(const json& benchmarks, const std::string& label, std::vector<std::string>& order) {
  std::map<std::string, Side> rows;
  const auto suffix = "@" + label;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const auto& b = benchmarks[i];
    const auto where = fmt::format("benchmarks[{}]", i);
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) unusable(where, "has no string \"name\"");
    const auto name = b["name"].get<std::string>();
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const auto item = name.substr(0, name.size() - suffix.size());
    Side side;
    if (b.value("error_occurred", false)) {
      const auto message = b.find("error_message");
      side.error = message != b.end() && message->is_string() ? message->get<std::string>() : "no timing";
    } else {
      side.counted = b.value("counter", std::string("time")) == "instructions";
      // Times are in microseconds; counts are counts.
      const char* field = side.counted ? "samples_instructions" : "samples_us";
      const double scale = side.counted ? 1.0 : 1e-6;
      const auto samples = b.find(field);
      const auto rounds = b.find("rounds");
      if (samples == b.end() || !samples->is_array()) unusable(where + "." + field, "is missing or not an array");
      if (rounds == b.end() || !rounds->is_array() || rounds->size() != samples->size()) {
        unusable(where + ".rounds",
                 fmt::format("of '{}' is missing or does not have one round per sample (a report of scatterctl bench "
                             "0.x before paired rounds cannot be paired: use the two-report compare)",
                             name));
      }
      const auto blocks = b.find("blocks");  // without blocks (older reports), each round is one
      if (blocks != b.end() && (!blocks->is_array() || blocks->size() != samples->size())) {
        unusable(where + ".blocks", fmt::format("= {} is not one block per sample of '{}' ({} samples)", blocks->dump(),
                                                name, samples->size()));
      }
      for (std::size_t k = 0; k < samples->size(); ++k) {
        const auto& s = (*samples)[k];
        const auto& r = (*rounds)[k];
        if (!s.is_number() || !(s.get<double>() > 0) || !std::isfinite(s.get<double>())) {
          unusable(fmt::format("{}.{}[{}]", where, field, k),
                   fmt::format("= {} is not a positive, finite {}", s.dump(), side.counted ? "count" : "time"));
        }
        if (!r.is_number_integer()) unusable(fmt::format("{}.rounds[{}]", where, k), fmt::format("= {} is not a round", r.dump()));
        side.samples.push_back(s.get<double>() * scale);
        side.by_round[r.get<int>()] = s.get<double>() * scale;
        const auto* block = blocks != b.end() ? &(*blocks)[k] : &r;
        if (!block->is_number_integer()) {
          unusable(fmt::format("{}.blocks[{}]", where, k), fmt::format("= {} is not a block", block->dump()));
        }
        side.block_of[r.get<int>()] = block->get<int>();
      }
    }
    if (!rows.count(item)) order.push_back(item);
    rows[item] = std::move(side);
  }
  return rows;
}

// One-sided p of the signed-rank statistic for "the log ratios centre above 0" (normal
// approximation with the tie and continuity corrections; zeros dropped, as Wilcoxon did).
double signed_rank_p_above(const std::vector<double>& d) {
  std::vector<double> nonzero;
  for (double x : d) {
    if (x != 0.0) nonzero.push_back(x);
  }
  const auto n = nonzero.size();
  if (n == 0) return 1.0;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return std::fabs(nonzero[a]) < std::fabs(nonzero[b]); });
  double w_plus = 0.0, ties = 0.0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && std::fabs(nonzero[order[j]]) == std::fabs(nonzero[order[i]])) ++j;
    const double rank = (static_cast<double>(i + j) + 1.0) / 2.0;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (nonzero[order[k]] > 0) w_plus += rank;
    }
    i = j;
  }
  const double nn = static_cast<double>(n);
  const double mean = nn * (nn + 1) / 4.0;
  const double var = nn * (nn + 1) * (2 * nn + 1) / 24.0 - ties / 48.0;
  if (var <= 0) return 1.0;
  const double z = (w_plus - mean - 0.5) / std::sqrt(var);
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// The ends of the signed-rank interval at `confidence` over sorted Walsh averages of n values:
// {0, inf} when n is too small for one.
std::pair<double, double> signed_rank_interval(const std::vector<double>& walsh, std::size_t n, double confidence) {
  const double nn = static_cast<double>(n);
  const double k = std::floor(nn * (nn + 1) / 4.0 - detail::two_sided_z(confidence) *
                                                         std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24.0));
  if (k < 1) return {0.0, INFINITY};
  const auto ki = static_cast<std::size_t>(k);
  return {std::exp(walsh[ki - 1]), std::exp(walsh[walsh.size() - ki])};
}

// The Hodges-Lehmann estimate (median of the Walsh averages), the signed-rank interval at
// `confidence`, and the one-sided bound the equivalence test needs: the upper end of the
// interval at 2 x confidence - 1 (Schuirmann's two one-sided tests, at 5%: the 90% interval).
void estimate(PairedRow& row, const std::vector<double>& d, double confidence) {
  const auto n = d.size();
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) walsh.push_back(0.5 * (d[i] + d[j]));
  }
  std::sort(walsh.begin(), walsh.end());
  row.ratio = std::exp(median_of(walsh));
  std::tie(row.low, row.high) = signed_rank_interval(walsh, n, confidence);
  row.upper = signed_rank_interval(walsh, n, 2 * confidence - 1).second;
}

// Holm's step-down over one family of p-values (`p` of each row): the k-th smallest (of m) is
// compared with alpha / (m - k), and the first that fails stops. Written as adjusted
// p-values (made monotone), compared with alpha.
void holm(std::vector<PairedRow*> rows, double PairedRow::*p) {
  std::sort(rows.begin(), rows.end(), [&](const PairedRow* a, const PairedRow* b) { return a->*p < b->*p; });
  const double m = static_cast<double>(rows.size());
  double running = 0.0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    running = std::max(running, std::min(1.0, (m - static_cast<double>(k)) * (rows[k]->*p)));
    rows[k]->*p = running;
  }
}

// Counted rows: the rounds' ratios are exact (the same in every round, but for the cpu
// backend's workers, whose waits vary by a few instructions), so the verdict needs no
// statistics, only that the whole range of ratios lies past the threshold, or within it.
void judge_counts(PairedRow& row, const std::vector<double>& ratios, double threshold) {
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  row.ratio = median_of(sorted);
  row.low = sorted.front();
  row.high = row.upper = sorted.back();
  row.p_slower = row.p_faster = -1.0;  // not a test
  const double up = 1.0 + threshold;
  if (row.low > up) {
    row.verdict = GateVerdict::slower;
  } else if (row.high < 1.0 / up) {
    row.verdict = GateVerdict::faster;
  } else if (row.low >= 1.0 / up && row.high <= up) {
    row.verdict = GateVerdict::same;
  } else {
    row.verdict = GateVerdict::undecided;
    row.why = fmt::format("the counts vary from call to call: ratios from {:.4f} to {:.4f} straddle the {:.2f}% "
                          "threshold (--threads 1 makes them exact)",
                          row.low, row.high, threshold * 100);
  }
}

// Each benchmark's sides, by label, as a report holds them (JSON, or in memory).
struct Sides {
  std::map<std::string, Side> base, next;
  std::vector<std::string> order;
  bool counted_report = false;
};

PairedComparison compare_sides(const Sides& sides, const std::string& base, const std::string& next,
                               const PairedOptions& options);

}  // namespace

PairedComparison compare_paired(const std::string& report_json, const std::string& base, const std::string& next,
                                const PairedOptions& options) {
  json doc;
  try {
    doc = detail::parse_bounded(report_json, "the report");
  } catch (const Error& e) {
    throw Error(ErrorCode::json, "report", e.detail());
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    unusable("report", "is not a bench report (no \"benchmarks\" array)");
  }
  Sides sides;
  const auto& context = doc.value("context", json::object());
  sides.counted_report = context.is_object() && context.value("counter", std::string("time")) == "instructions";
  std::vector<std::string> unused;
  sides.base = rows_of(doc["benchmarks"], base, sides.order);
  sides.next = rows_of(doc["benchmarks"], next, unused);
  return compare_sides(sides, base, next, options);
}

PairedComparison compare_paired(const BenchReport& report, const std::string& base, const std::string& next,
                                const PairedOptions& options) {
  Sides sides;
  sides.counted_report = report.context.counter == Counter::instructions;
  for (const auto& r : report.rows) {
    if (r.backend != base && r.backend != next) continue;
    Side side;
    if (!r.timed()) side.error = r.error.empty() ? "no timing" : r.error;
    side.counted = r.counter == Counter::instructions;
    side.samples = r.timing.samples;
    for (std::size_t k = 0; k < r.timing.samples.size() && k < r.rounds.size(); ++k) {
      side.by_round[r.rounds[k]] = r.timing.samples[k];
      side.block_of[r.rounds[k]] = k < r.blocks.size() ? r.blocks[k] : r.rounds[k];
    }
    auto& rows = r.backend == base ? sides.base : sides.next;
    if (r.backend == base && !rows.count(r.name)) sides.order.push_back(r.name);
    rows[r.name] = std::move(side);
  }
  return compare_sides(sides, base, next, options);
}

namespace {

PairedComparison compare_sides(const Sides& sides, const std::string& base, const std::string& next,
                               const PairedOptions& options) {
  const auto& base_rows = sides.base;
  const auto& next_rows = sides.next;
  const auto& order = sides.order;
  PairedComparison c;
  c.base_label = base;
  c.next_label = next;
  c.threshold = options.threshold.value_or(default_threshold(sides.counted_report ? Counter::instructions : Counter::time));
  c.confidence = options.confidence;
  if (base_rows.empty() || next_rows.empty()) {
    unusable(base_rows.empty() ? "--base" : "--new",
             fmt::format("= '{}': the report has no benchmark named case@{} (bench --backend {}=SPEC makes them)",
                         base_rows.empty() ? base : next, base_rows.empty() ? base : next,
                         base_rows.empty() ? base : next));
  }
  std::vector<std::size_t> estimated_rows;  // the rows the tests below decide (the others have a verdict)
  c.rows.reserve(order.size());
  for (const auto& name : order) {
    PairedRow row;
    row.name = name;
    const auto& a = base_rows.at(name);
    const auto it = next_rows.find(name);
    if (it == next_rows.end() || !a.error.empty() || !it->second.error.empty()) {
      row.verdict = GateVerdict::error;
      row.why = it == next_rows.end()       ? fmt::format("no {}@{} in the report", name, next)
                : !a.error.empty()          ? fmt::format("{}: {}", base, a.error)
                                            : fmt::format("{}: {}", next, it->second.error);
      c.rows.push_back(std::move(row));
      continue;
    }
    const auto& b = it->second;
    if (a.counted != b.counted) {
      row.verdict = GateVerdict::error;
      row.why = fmt::format("{} is {} and {} is {}: they cannot be paired", base, a.counted ? "counted" : "timed", next,
                            b.counted ? "counted" : "timed");
      c.rows.push_back(std::move(row));
      continue;
    }
    row.counted = a.counted;
    row.base = median_of(a.samples);
    row.next = median_of(b.samples);
    if (row.counted) {
      std::vector<double> ratios;
      std::set<int> blocks;
      for (const auto& [round, count] : a.by_round) {
        if (const auto other = b.by_round.find(round); other != b.by_round.end()) {
          ratios.push_back(other->second / count);
          blocks.insert(a.block_of.at(round));
        }
      }
      row.pairs = ratios.size();
      row.blocks = blocks.size();
      if (ratios.empty()) {
        row.verdict = GateVerdict::error;
        row.why = "no round with a count of both";
      } else {
        judge_counts(row, ratios, c.threshold);
      }
      c.rows.push_back(std::move(row));
      continue;
    }
    // The rounds' log ratios, their median per block: rounds of one block share the backends'
    // processes, so a block, not a round, is one independent observation; and a round whose one
    // side a neighbour preempted moves a median not at all (a mean by all of its delay).
    std::map<int, std::vector<double>> per_block;
    for (const auto& [round, t] : a.by_round) {
      if (const auto other = b.by_round.find(round); other != b.by_round.end()) {
        per_block[a.block_of.at(round)].push_back(std::log(other->second / t));
        ++row.pairs;
      }
    }
    std::vector<double> d;
    for (auto& [block, logs] : per_block) d.push_back(median_of(logs));
    row.blocks = d.size();
    if (d.size() > kMaxBlocks) {
      unusable(fmt::format("{}@{}", name, base),
               fmt::format("has {} blocks of rounds; at most {} can be judged (merge fewer runs into one report)",
                           d.size(), kMaxBlocks));
    }
    if (row.pairs < 2) {
      row.verdict = GateVerdict::error;
      row.why = fmt::format("{} round{} with a sample of both: not a paired run", row.pairs, row.pairs == 1 ? "" : "s");
      c.rows.push_back(std::move(row));
      continue;
    }
    estimate(row, d, options.confidence);
    estimated_rows.push_back(c.rows.size());
    // Tests of a change larger than the threshold, not of any change: "slower" is the log
    // ratios centred above log(1 + t), "faster" below -log(1 + t). A real 1.05x must not pass
    // for slower as often as the test's level; with "above 1" an A/A gate's 1.052x [1.011,
    // 1.089] over 12 blocks failed it (1 of 9 A/A gates under a busy neighbour).
    const double shift = std::log(1.0 + c.threshold);
    std::vector<double> past(d.size());
    std::transform(d.begin(), d.end(), past.begin(), [&](double x) { return x - shift; });
    row.p_slower = signed_rank_p_above(past);
    std::transform(d.begin(), d.end(), past.begin(), [&](double x) { return -x - shift; });
    row.p_faster = signed_rank_p_above(past);
    c.rows.push_back(std::move(row));
  }
  double log_sum = 0.0;
  int estimated = 0;
  std::vector<PairedRow*> tested;
  for (const auto i : estimated_rows) tested.push_back(&c.rows[i]);
  for (auto& row : c.rows) {
    if (row.counted && row.ratio > 0) {
      log_sum += std::log(row.ratio);
      ++estimated;
    }
  }
  // Two families, each Holm-corrected: "slower" fails the gate, and "faster" is what a
  // change's author claims.
  holm(tested, &PairedRow::p_slower);
  holm(tested, &PairedRow::p_faster);
  const double alpha = 1.0 - options.confidence;
  const double up = 1.0 + c.threshold;
  for (auto* row : tested) {
    log_sum += std::log(row->ratio);
    ++estimated;
    if (row->blocks < kMinBlocks) {
      row->verdict = GateVerdict::undecided;
      row->why = fmt::format("{} blocks of rounds, {} needed for a verdict; more rounds would tell", row->blocks,
                             kMinBlocks);
    } else if (row->p_slower <= alpha && row->ratio > up) {
      row->verdict = GateVerdict::slower;
    } else if (row->p_faster <= alpha && row->ratio < 1.0 / up) {
      row->verdict = GateVerdict::faster;
    } else if (row->upper <= up) {
      row->verdict = GateVerdict::same;
    } else {
      row->verdict = GateVerdict::undecided;
      row->why = fmt::format("its one-sided {:.0f}% bound is {:+.1f}%, past the {:.0f}% threshold; more rounds would "
                             "tell",
                             options.confidence * 100, (row->upper - 1) * 100, c.threshold * 100);
    }
  }
  if (estimated > 0) c.geomean_ratio = std::exp(log_sum / estimated);
  for (const auto& row : c.rows) {
    c.slower += row.verdict == GateVerdict::slower;
    c.faster += row.verdict == GateVerdict::faster;
    c.same += row.verdict == GateVerdict::same;
    c.undecided += row.verdict == GateVerdict::undecided;
    c.errors += row.verdict == GateVerdict::error;
  }
  return c;
}

}  // namespace

PairedComparison gate_until_decided(BenchReport& report, const std::vector<BenchItem>& items,
                                    const std::vector<Backend*>& pair, const std::string& base, const std::string& next,
                                    BenchOptions options, const PairedOptions& paired, double budget_seconds,
                                    const std::function<void(const std::string&)>& progress) {
  const bool counted = options.counter == Counter::instructions;  // the same in every round
  options.verify = false;  // checked in the first run
  options.repetitions = 1;
  options.min_samples = std::max(options.min_samples, 12);  // three more blocks of rounds a pass, at least
  const auto start = std::chrono::steady_clock::now();
  const auto seed = options.seed;
  for (int extra = 1;; ++extra) {
    auto verdict = compare_paired(report, base, next, paired);
    const auto undecided = undecided_benchmarks(verdict);
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
    verdict.gate_seconds = spent.count();
    if (undecided.empty() || counted || spent.count() >= budget_seconds || interrupted()) return verdict;
    std::vector<BenchItem> again;
    for (const auto& item : items) {
      if (std::find(undecided.begin(), undecided.end(), item.name) != undecided.end()) again.push_back(item);
    }
    options.seed = seed + static_cast<std::uint64_t>(extra);
    if (progress) {
      progress(fmt::format("{} undecided, sampling again ({:.0f} s of {} s spent)", undecided.size(), spent.count(),
                           budget_seconds));
    }
    add_rounds(report, run_bench(again, pair, options, nullptr));
  }
}

std::vector<std::string> undecided_benchmarks(const PairedComparison& c) {
  std::vector<std::string> names;
  for (const auto& row : c.rows) {
    if (row.verdict == GateVerdict::undecided) names.push_back(row.name);
  }
  return names;
}

namespace {

std::string ratio_cell(const PairedRow& r) { return r.ratio > 0 ? detail::short_number(r.ratio, 3) + "x" : "-"; }

std::string interval_cell(const PairedRow& r) {
  if (r.ratio <= 0) return "-";
  const int decimals = r.counted ? 4 : 3;  // counted: the rounds' range, exact
  if (!r.counted && !std::isfinite(r.high)) return "(too few rounds)";
  return fmt::format("[{}, {}]", detail::short_number(r.low, decimals), detail::short_number(r.high, decimals));
}

std::string gate_word(const PairedComparison& c) {
  switch (c.exit_code()) {
    case 0:
      return "passed";
    case 1:
      return "FAILED";
    default:
      return "UNDECIDED";
  }
}

std::string summary(const PairedComparison& c) {
  return fmt::format(
      "paired {} against {} ({}% threshold): {} slower, {} faster, {} same, {} undecided, {} without timing; geometric "
      "mean {:.3f}x; gate {}",
      printable_text(c.next_label), printable_text(c.base_label), c.threshold * 100, c.slower, c.faster, c.same,
      c.undecided, c.errors, c.geomean_ratio, gate_word(c));
}


// The Holm-adjusted p of "slower"; a count is exact, not a test.
std::string p_cell(const PairedRow& r) {
  if (r.counted) return r.ratio > 0 ? "exact" : "-";
  return r.ratio > 0 ? fmt::format("{:.3f}", r.p_slower) : "-";
}

}  // namespace

std::string paired_table(const PairedComparison& c) {
  std::string out = fmt::format("{:<48} {:>10} {:>10} {:>8} {:>18} {:>10} {:>8}  {}\n", "benchmark", "base", "new",
                                "ratio", "95% interval", "pairs/blk", "p", "verdict");
  for (const auto& r : c.rows) {
    out += fmt::format("{:<48} {:>10} {:>10} {:>8} {:>18} {:>10} {:>8}  {}{}\n", printable_text(r.name),
                       detail::value_cell(r.base, r.counted), detail::value_cell(r.next, r.counted), ratio_cell(r), interval_cell(r),
                       fmt::format("{}/{}", r.pairs, r.blocks), p_cell(r), to_string(r.verdict),
                       r.why.empty() ? "" : ": " + printable_text(r.why));
  }
  return out + summary(c) + "\n";
}

std::string paired_markdown(const PairedComparison& c) {
  std::string out = "## scatterctl paired gate\n\n" + summary(c) + "\n\n";
  out += "| benchmark | base | new | ratio | 95% interval | pairs / blocks | p (slower, Holm) | verdict |\n"
         "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : c.rows) {
    const bool bad = r.verdict == GateVerdict::slower || r.verdict == GateVerdict::error || r.verdict == GateVerdict::undecided;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {}{} |\n", printable_text(r.name), detail::value_cell(r.base, r.counted),
                       detail::value_cell(r.next, r.counted), ratio_cell(r), interval_cell(r), fmt::format("{} / {}", r.pairs, r.blocks),
                       p_cell(r), bad ? fmt::format("**{}**", to_string(r.verdict)) : std::string(to_string(r.verdict)),
                       r.why.empty() ? "" : ": " + printable_text(r.why));
  }
  return out;
}

std::string paired_json(const PairedComparison& c) {
  nlohmann::ordered_json doc;
  doc["base"] = c.base_label;
  doc["new"] = c.next_label;
  doc["threshold"] = c.threshold;
  doc["confidence"] = c.confidence;
  doc["gate"] = gate_word(c);
  doc["exit_code"] = c.exit_code();
  doc["geomean_ratio"] = c.geomean_ratio;
  auto rows = nlohmann::ordered_json::array();
  for (const auto& r : c.rows) {
    nlohmann::ordered_json j;
    j["name"] = r.name;
    if (r.counted) {
      j["counter"] = "instructions";
      j["base_instructions"] = r.base;
      j["new_instructions"] = r.next;
    } else {
      j["base_median_s"] = r.base;
      j["new_median_s"] = r.next;
    }
    j["pairs"] = r.pairs;
    j["blocks"] = r.blocks;
    j["ratio"] = r.ratio;
    j["low"] = r.low;
    j["high"] = std::isfinite(r.high) ? nlohmann::ordered_json(r.high) : nlohmann::ordered_json(nullptr);
    j["upper_one_sided"] = std::isfinite(r.upper) ? nlohmann::ordered_json(r.upper) : nlohmann::ordered_json(nullptr);
    if (!r.counted) {
      j["p_slower_holm"] = r.p_slower;
      j["p_faster_holm"] = r.p_faster;
    }
    j["verdict"] = std::string(to_string(r.verdict));
    if (!r.why.empty()) j["why"] = r.why;
    rows.push_back(std::move(j));
  }
  doc["benchmarks"] = rows;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace scatter

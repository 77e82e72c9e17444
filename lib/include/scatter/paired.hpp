#pragma once
/// The paired regression gate: two backend instances of one bench report (`--backend
/// base=...,new=...`), sampled in the same rounds. Per benchmark it takes the ratios
/// new/base of the samples of one round, so that what the machine did to both cancels, and
/// decides slower, faster, same or undecided (docs/benchmarks.md, "Paired A/B").

#include <functional>
#include <optional>
#include <string>

#include "scatter/bench.hpp"
#include <vector>

namespace scatter {

struct PairedOptions {
  /// The smallest change that counts; unset: the report's counter's default (5% of a time,
  /// 0.5% of an instruction count: counter.hpp).
  std::optional<double> threshold;
  double confidence = 0.95;  ///< of each interval; Holm keeps the family's error at 1 - confidence
};

/// One benchmark: case@base against case@new.
struct PairedRow {
  std::string name;  ///< the case, without @label
  double base = 0.0, next = 0.0;  ///< median seconds (or instructions, when counted) of each side
  /// Instruction counts (bench --counter instructions): exact, judged without statistics. The
  /// ratio is the median of the rounds' ratios, [low, high] their range, and the verdict
  /// slower, faster or same only when the whole range says so.
  bool counted = false;
  std::size_t pairs = 0;          ///< rounds with a sample of both
  std::size_t blocks = 0;         ///< blocks they fall in: the observations the statistics count
  /// Hodges-Lehmann estimate of new/base over the blocks' mean log ratios (the median of
  /// their Walsh averages), and its Wilcoxon signed-rank interval.
  double ratio = 0.0, low = 0.0, high = 0.0;
  /// The one-sided upper bound at the confidence (the two-sided interval's at 2c - 1): "same"
  /// when it is within the threshold (Schuirmann's two one-sided tests).
  double upper = 0.0;
  /// One-sided signed-rank p of "new is not slower by more than the threshold" (the log ratios
  /// shifted by log(1 + t)), Holm-adjusted: a test of a change that matters, not of any change.
  double p_slower = 1.0;
  double p_faster = 1.0;  ///< the same for "new is not faster by more than the threshold"
  /// slower: significantly slower (Holm) by more than the threshold; faster: the mirror; same: the one-sided bound rules out a
  /// slowdown as large as the threshold; undecided: none of these, or too few blocks (more
  /// rounds would tell); error: a side has no timing (`why` says which).
  GateVerdict verdict = GateVerdict::undecided;
  std::string why;
};

struct PairedComparison {
  std::string base_label, next_label;
  double threshold = 0.05;   ///< the one applied
  double confidence = 0.95;
  std::vector<PairedRow> rows;
  double geomean_ratio = 1.0;  ///< over the benchmarks with an estimate
  int slower = 0, faster = 0, same = 0, undecided = 0, errors = 0;
  double gate_seconds = 0.0;  ///< gate_until_decided: the seconds its further rounds took
  /// 0 passed, 1 a regression (or a side without timing), 6 undecided (result.hpp's kExitUndecided).
  int exit_code() const { return slower > 0 || errors > 0 ? 1 : undecided > 0 ? 6 : 0; }
};

/// Reads one bench report and pairs `base` against `next` by round. Throws Error(schema)
/// naming the field and value for a report that is not usable (a label it does not hold,
/// samples without rounds, a time that is not positive and finite).
PairedComparison compare_paired(const std::string& report_json, const std::string& base, const std::string& next,
                                const PairedOptions& options = {});

/// The same over a report in memory: the gate's rounds, compared as they are sampled.
PairedComparison compare_paired(const BenchReport& report, const std::string& base, const std::string& next,
                                const PairedOptions& options = {});

/// The paired gate of `bench --gate`: compares, then samples the undecided benchmarks of `items`
/// again on the two backends (`pair`), one pass at a time, at least 12 samples a pass, until
/// each is decided or `budget_seconds` are spent (or an interrupt). `report` gets the new rounds;
/// `progress` is told each pass's start. Counts are compared once (more rounds cannot decide them).
PairedComparison gate_until_decided(BenchReport& report, const std::vector<BenchItem>& items,
                                    const std::vector<Backend*>& pair, const std::string& base, const std::string& next,
                                    BenchOptions options, const PairedOptions& paired, double budget_seconds,
                                    const std::function<void(const std::string&)>& progress);

/// The benchmarks (case names) whose verdict is undecided: `bench --gate` samples them again.
std::vector<std::string> undecided_benchmarks(const PairedComparison& comparison);

std::string paired_table(const PairedComparison& comparison);
std::string paired_markdown(const PairedComparison& comparison);
std::string paired_json(const PairedComparison& comparison);

}  // namespace scatter

// The paired gate on reports made here: rounds whose machine noise is shared by both sides
// (the case interleaving is for), a known ratio between the sides, and broken reports.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scatter/error.hpp"
#include "scatter/load.hpp"
#include "scatter/paired.hpp"

namespace {

using scatter::compare_paired;
using scatter::GateVerdict;

struct Row {
  std::string name;
  std::vector<double> samples_us;
  std::vector<int> rounds;
};

std::string row_json(const Row& r) {
  return fmt::format(R"({{"name": "{}", "samples_us": [{}], "rounds": [{}]}})", r.name, fmt::join(r.samples_us, ", "),
                     fmt::join(r.rounds, ", "));
}

std::string report(const std::vector<Row>& rows) {
  std::vector<std::string> items;
  for (const auto& r : rows) items.push_back(row_json(r));
  return fmt::format(R"({{"context": {{}}, "benchmarks": [{}]}})", fmt::join(items, ", "));
}

// `rounds` rounds of one benchmark: a machine whose speed swings by up to 3x from round to
// round (shared by both sides), a little noise of each sample's own, new = ratio x base.
std::vector<Row> paired_rows(const std::string& name, double ratio, int rounds, double own_noise,
                             std::uint64_t seed) {
  scatter::SplitMix64 rng(seed);
  auto uniform = [&] { return static_cast<double>(rng.next() >> 11) * 0x1.0p-53; };
  Row base{name + "@base", {}, {}}, next{name + "@new", {}, {}};
  for (int r = 0; r < rounds; ++r) {
    const double machine = 1.0 + 2.0 * uniform();
    base.samples_us.push_back(1000.0 * machine * (1.0 + own_noise * (uniform() - 0.5)));
    next.samples_us.push_back(1000.0 * ratio * machine * (1.0 + own_noise * (uniform() - 0.5)));
    base.rounds.push_back(r);
    next.rounds.push_back(r);
  }
  return {base, next};
}

TEST(PairedGate, SharedNoiseCancelsAndAKnownRatioIsFound) {
  for (const double ratio : {1.0, 1.1, 0.8, 2.0}) {
    const auto c = compare_paired(report(paired_rows("nd/x", ratio, 40, 0.02, 7)), "base", "new");
    ASSERT_EQ(c.rows.size(), 1u);
    const auto& row = c.rows[0];
    EXPECT_NEAR(row.ratio, ratio, 0.01 * ratio) << ratio;
    EXPECT_LE(row.low, ratio) << ratio;
    EXPECT_GE(row.high, ratio) << ratio;
    EXPECT_EQ(row.pairs, 40u);
    const auto want = ratio > 1.0 ? GateVerdict::slower : ratio < 1.0 ? GateVerdict::faster : GateVerdict::same;
    EXPECT_EQ(row.verdict, want) << ratio;
    EXPECT_EQ(c.exit_code(), ratio > 1.0 ? 1 : 0) << ratio;
  }
}

TEST(PairedGate, AUniformSlowdownOfEveryBenchmarkFails) {
  std::vector<Row> rows;
  for (int i = 0; i < 10; ++i) {
    for (auto& r : paired_rows(fmt::format("b{}", i), 1.5, 20, 0.05, 100 + i)) rows.push_back(r);
  }
  const auto c = compare_paired(report(rows), "base", "new");
  EXPECT_EQ(c.slower, 10);
  EXPECT_EQ(c.exit_code(), 1);
  EXPECT_NEAR(c.geomean_ratio, 1.5, 0.03);
}

TEST(PairedGate, SlowerMeansSignificantlyPastTheThresholdNotPastOne) {
  // 12 blocks whose ratios centre on 1.052 with +-4% of noise: past 1 beyond doubt, past 1.05
  // not at all. That is no evidence of a 5% slowdown, so no "slower" (an A/A gate under a busy
  // neighbour failed on such a row when "slower" tested the ratio against 1).
  const auto c = compare_paired(report(paired_rows("nd/x", 1.052, 12, 0.08, 11)), "base", "new");
  EXPECT_GT(c.rows[0].ratio, 1.03);
  EXPECT_GT(c.rows[0].low, 1.0) << "significantly above 1";
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::undecided);
  // The same noise around 1.2 is slower.
  EXPECT_EQ(compare_paired(report(paired_rows("nd/x", 1.2, 12, 0.08, 11)), "base", "new").rows[0].verdict, GateVerdict::slower);
}

TEST(PairedGate, TooFewRoundsAreUndecidedNotPassed) {
  // Own noise of +-25% and 6 rounds: a 10% slowdown can be neither shown nor ruled out.
  const auto c = compare_paired(report(paired_rows("nd/x", 1.1, 6, 0.5, 3)), "base", "new");
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::undecided);
  EXPECT_EQ(c.exit_code(), 6);
  EXPECT_EQ(scatter::undecided_benchmarks(c), std::vector<std::string>{"nd/x"});
}

TEST(PairedGate, OnlySamplesOfTheSameRoundArePaired) {
  auto rows = paired_rows("nd/x", 1.0, 10, 0.0, 5);
  for (auto& r : rows[1].rounds) r += 100;  // new's rounds never meet base's
  const auto c = compare_paired(report(rows), "base", "new");
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::error);
  EXPECT_NE(c.rows[0].why.find("0 rounds with a sample of both"), std::string::npos) << c.rows[0].why;
  EXPECT_EQ(c.exit_code(), 1);
}

TEST(PairedGate, ASideWithoutTimingFailsTheGate) {
  const auto rows = paired_rows("nd/x", 1.0, 10, 0.0, 5);
  const auto doc = R"({"benchmarks": [)" + row_json(rows[0]) +
                   R"(, {"name": "nd/x@new", "error_occurred": true, "error_message": "[crashed] signal 11"}]})";
  const auto c = compare_paired(doc, "base", "new");
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::error);
  EXPECT_EQ(c.rows[0].why, "new: [crashed] signal 11");
  EXPECT_EQ(c.exit_code(), 1);
}

// A counted report (bench --counter instructions): per benchmark, the instructions of one call
// in each round, base's and new's.
std::string counted_report(const std::vector<std::tuple<std::string, std::vector<double>, std::vector<double>>>& rows) {
  std::vector<std::string> items;
  for (const auto& [name, base, next] : rows) {
    std::vector<int> rounds(base.size());
    for (std::size_t r = 0; r < rounds.size(); ++r) rounds[r] = static_cast<int>(r);
    for (const auto& [label, counts] : {std::pair{"base", base}, std::pair{"new", next}}) {
      items.push_back(fmt::format(R"({{"name": "{}@{}", "counter": "instructions", "samples_instructions": [{}], )"
                                  R"("rounds": [{}]}})",
                                  name, label, fmt::join(counts, ", "), fmt::join(rounds, ", ")));
    }
  }
  return fmt::format(R"({{"context": {{"counter": "instructions"}}, "benchmarks": [{}]}})", fmt::join(items, ", "));
}

TEST(PairedGate, CountsAreJudgedExactlyAtTheirOwnThreshold) {
  const std::vector<double> base(5, 1'000'000.0);
  auto times = [](std::vector<double> v, double f) {
    for (auto& x : v) x *= f;
    return v;
  };
  const auto c = compare_paired(counted_report({{"same", base, base},
                                                {"one_percent", base, times(base, 1.01)},
                                                {"a_third_of_a_percent", base, times(base, 1.003)},
                                                {"twice", base, times(base, 2.0)},
                                                {"halved", base, times(base, 0.5)}}),
                                "base", "new");
  ASSERT_EQ(c.rows.size(), 5u);
  // 5 rounds, no blocks: counts need no statistics, and a 1% change passes the 0.5% default.
  EXPECT_DOUBLE_EQ(c.threshold, 0.005);
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::same);
  EXPECT_EQ(c.rows[1].verdict, GateVerdict::slower);
  EXPECT_DOUBLE_EQ(c.rows[1].ratio, 1.01);
  EXPECT_EQ(c.rows[2].verdict, GateVerdict::same);
  EXPECT_EQ(c.rows[3].verdict, GateVerdict::slower);
  EXPECT_EQ(c.rows[4].verdict, GateVerdict::faster);
  EXPECT_TRUE(c.rows[1].counted);
  EXPECT_EQ(c.exit_code(), 1);
  // The table says the verdict is exact, and prints counts, not times.
  const auto table = scatter::paired_table(c);
  EXPECT_NE(table.find("1010000"), std::string::npos) << table;
  EXPECT_NE(table.find("exact"), std::string::npos) << table;
  // A given threshold applies to counts too.
  scatter::PairedOptions loose;
  loose.threshold = 0.02;
  EXPECT_EQ(compare_paired(counted_report({{"one_percent", base, times(base, 1.01)}}), "base", "new", loose).exit_code(), 0);
}

TEST(PairedGate, CountsThatVaryAcrossTheThresholdAreUndecided) {
  // A count of several threads varies a little from call to call; a range of ratios that
  // straddles the threshold decides nothing.
  const auto c = compare_paired(counted_report({{"x", {1000, 1000, 1000}, {1000, 1010, 1000}}}), "base", "new");
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::undecided);
  EXPECT_DOUBLE_EQ(c.rows[0].low, 1.0);
  EXPECT_DOUBLE_EQ(c.rows[0].high, 1.01);
  EXPECT_NE(c.rows[0].why.find("vary from call to call"), std::string::npos) << c.rows[0].why;
  EXPECT_EQ(c.exit_code(), 6);
}

TEST(PairedGate, ACountIsNotPairedWithATime) {
  const auto doc = R"({"benchmarks": [{"name": "x@base", "counter": "instructions", "samples_instructions": [5, 5], )"
                   R"("rounds": [0, 1]}, {"name": "x@new", "samples_us": [5, 5], "rounds": [0, 1]}]})";
  const auto c = compare_paired(doc, "base", "new");
  EXPECT_EQ(c.rows[0].verdict, GateVerdict::error);
  EXPECT_EQ(c.rows[0].why, "base is counted and new is timed: they cannot be paired");
}

std::string message_of(const std::string& text, const std::string& base = "base") {
  try {
    compare_paired(text, base, "new");
  } catch (const scatter::Error& e) {
    return e.message();
  }
  return "no error";
}

TEST(PairedGate, AnUnusableReportIsRefusedNamingTheFieldAndValue) {
  EXPECT_EQ(message_of(R"({"benchmarks": [{"name": "x@base", "samples_us": [1, -2], "rounds": [0, 1]}]})"),
            "benchmarks[0].samples_us[1] = -2 is not a positive, finite time");
  EXPECT_EQ(message_of(R"({"benchmarks": [{"name": "x@base", "samples_us": [1], "rounds": [0], "blocks": [0, 1]}]})"),
            "benchmarks[0].blocks = [0,1] is not one block per sample of 'x@base' (1 samples)");
  EXPECT_NE(message_of(R"({"benchmarks": [{"name": "x@base", "samples_us": [1, 2]}]})").find("benchmarks[0].rounds"),
            std::string::npos);
  EXPECT_EQ(message_of(report(paired_rows("x", 1.0, 3, 0.0, 1)), "old"),
            "--base = 'old': the report has no benchmark named case@old (bench --backend old=SPEC makes them)");
  EXPECT_EQ(message_of(R"({"benchmarks": 3})"), "report: is not a bench report (no \"benchmarks\" array)");
  EXPECT_EQ(message_of(R"({"benchmarks": [{"name": "x@base", "counter": "instructions", "samples_instructions": [0], )"
                       R"("rounds": [0]}]})"),
            "benchmarks[0].samples_instructions[0] = 0 is not a positive, finite count");
  // Too many blocks to sort their Walsh averages: refused, not a memory blow-up.
  EXPECT_EQ(message_of(report(paired_rows("x", 1.0, 3001, 0.0, 1))),
            "x@base: has 3001 blocks of rounds; at most 3000 can be judged (merge fewer runs into one report)");
}

}  // namespace

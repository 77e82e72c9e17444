// The regression gate and the byte model, on synthetic reports and hand-counted bytes.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <thread>
#include <utility>

#include "scatter/bench.hpp"
#include "scatter/cancel.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

// A report in the bench JSON schema: name -> samples in microseconds.
std::string report(const std::string& device, const std::vector<std::pair<std::string, std::vector<double>>>& rows) {
  std::string out = fmt::format(R"({{"context": {{"device": "{}"}}, "benchmarks": [)", device);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto samples = rows[i].second;
    std::sort(samples.begin(), samples.end());
    const double median = samples[samples.size() / 2];
    out += fmt::format(R"({}{{"name": "{}", "run_type": "iteration", "real_time": {}, "time_unit": "us", "samples_us": [{}]}})",
                       i ? ", " : "", rows[i].first, median, fmt::join(samples, ", "));
  }
  return out + "]}";
}

std::vector<double> noisy(double center, double relative, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, relative);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center * (1.0 + noise(rng)));
  return v;
}

const BenchDelta& row(const BenchComparison& c, const std::string& name) {
  for (const auto& d : c.rows) {
    if (d.name == name) return d;
  }
  throw std::runtime_error("no row " + name);
}

TEST(BenchCompare, IdenticalReportsAreTheSame) {
  const auto r = report("cpu", {{"a@ref", noisy(100, 0.01, 15, 1)}, {"b@ref", noisy(50, 0.01, 15, 2)}});
  const auto c = compare_bench(r, r, {});
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(row(c, "a@ref").verdict, GateVerdict::same);
  EXPECT_EQ(row(c, "b@ref").verdict, GateVerdict::same);
  EXPECT_DOUBLE_EQ(c.geomean_change, 0.0);
}

// Several runs of a side pool their samples: a benchmark's median is over all of them.
TEST(BenchCompare, RunsOfOneSidePoolTheirSamples) {
  const auto base1 = report("cpu", {{"a@ref", std::vector<double>(5, 100.0)}});
  const auto base2 = report("cpu", {{"a@ref", std::vector<double>(6, 300.0)}});
  const auto next = report("cpu", {{"a@ref", std::vector<double>(11, 300.0)}});
  const auto pooled = compare_bench(std::vector<std::string>{base1, base2}, std::vector<std::string>{next}, {});
  EXPECT_EQ(row(pooled, "a@ref").base_samples, 11u);
  EXPECT_DOUBLE_EQ(row(pooled, "a@ref").base, 300e-6) << "the median of 5 x 100 and 6 x 300 us";
  EXPECT_EQ(compare_bench(base1, next, {}).rows.front().base_samples, 5u);
  // A side may not mix devices.
  EXPECT_THROW(compare_bench(std::vector<std::string>{base1, report("gpu", {{"a@ref", {1, 2, 3}}})},
                             std::vector<std::string>{next}, {}),
               Error);
}

// The whole suite drifting past --threshold but not past --suite-threshold (20%): a quiet
// machine's run-to-run swing, not a regression.
TEST(BenchCompare, ASuiteDriftBelowTheSuiteThresholdPasses) {
  std::vector<std::pair<std::string, std::vector<double>>> base_rows, next_rows;
  for (int i = 0; i < 6; ++i) {
    base_rows.push_back({"b" + std::to_string(i) + "@ref", noisy(100, 0.01, 15, 10 + i)});
    next_rows.push_back({"b" + std::to_string(i) + "@ref", noisy(112, 0.01, 15, 20 + i)});
  }
  const auto base = report("cpu", base_rows);
  const auto next = report("cpu", next_rows);
  EXPECT_FALSE(compare_bench(base, next, {}).suite_regression) << "+12% is inside the default 20%";
  CompareBenchOptions strict;
  strict.suite_threshold = 0.10;
  EXPECT_TRUE(compare_bench(base, next, strict).suite_regression) << "+12% is past 10%";
}

// Every sample of a report times 2 (a lost -O2): never a pass, busy machine or not. Before,
// a report saying the machine was busy turned the regression into a warning and exit 0.
TEST(BenchCompare, AUniformSlowdownNeverPasses) {
  std::vector<std::pair<std::string, std::vector<double>>> base_rows, next_rows;
  for (int i = 0; i < 8; ++i) {
    base_rows.push_back({"b" + std::to_string(i) + "@ref", noisy(100 + 10 * i, 0.02, 15, 40 + i)});
    auto doubled = base_rows.back().second;
    for (auto& s : doubled) s *= 2.0;
    next_rows.push_back({base_rows.back().first, doubled});
  }
  const auto base = report("cpu", base_rows);
  const auto quiet = report("cpu", next_rows);
  const auto c = compare_bench(base, quiet, {});
  EXPECT_TRUE(c.failed) << "quiet machines: the suite's regression";
  // The same reports, the new one saying the machine was busy.
  const auto busy = std::string(R"({"context": {"device": "cpu", "busy": true, "num_cpus": 2, "load_avg": [7.0, 1, 1]},)") +
                    quiet.substr(quiet.find("\"benchmarks\""));
  const auto b = compare_bench(base, busy, {});
  EXPECT_FALSE(b.failed);
  EXPECT_TRUE(b.undecided) << "load cannot be told from a regression: undecided, not passed";
  EXPECT_NE(compare_table(b).find("UNDECIDED"), std::string::npos);
  EXPECT_NE(compare_table(b).find("unpaired"), std::string::npos);
}

// Counted reports (bench --counter instructions): a count per call, the same in every sample.
std::string counted(const std::string& context, const std::vector<std::pair<std::string, double>>& rows) {
  std::string out = R"({"context": )" + context + R"(, "benchmarks": [)";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto c = rows[i].second;
    out += fmt::format(R"({}{{"name": "{}", "run_type": "iteration", "real_time": {}, "time_unit": "instructions", )"
                       R"("counter": "instructions", "samples_instructions": [{}, {}, {}]}})",
                       i ? ", " : "", rows[i].first, c, c, c, c);
  }
  return out + "]}";
}

TEST(BenchCompare, CountsAreExactWhateverTheLoad) {
  std::vector<std::pair<std::string, double>> base_rows, doubled, one_percent;
  for (int i = 0; i < 8; ++i) {
    base_rows.push_back({"b" + std::to_string(i) + "@cpu", 1e6 * (i + 1)});
    doubled.push_back({base_rows.back().first, 2e6 * (i + 1)});
    one_percent.push_back({base_rows.back().first, 1.01e6 * (i + 1)});
  }
  const std::string quiet = R"({"device": "cpu"})";
  const std::string busy = R"({"device": "cpu", "busy": true, "num_cpus": 2, "load_avg": [7.0, 1, 1]})";
  const auto base = counted(quiet, base_rows);
  // A uniform 2x of every count fails the unpaired gate too, busy machine or not: a count does
  // not move with the load, so no drift excuses it.
  for (const auto& context : {quiet, busy}) {
    const auto c = compare_bench(base, counted(context, doubled), {});
    EXPECT_TRUE(c.failed) << context;
    EXPECT_FALSE(c.undecided) << context;
    EXPECT_EQ(c.regressions, 8) << context;
    EXPECT_TRUE(row(c, "b0@cpu").counted);
    EXPECT_DOUBLE_EQ(row(c, "b0@cpu").ratio, 2.0);
  }
  // 1% is past the counts' 0.5% default; the same counts pass.
  EXPECT_EQ(compare_bench(base, counted(busy, one_percent), {}).regressions, 8);
  const auto same = compare_bench(base, counted(busy, base_rows), {});
  EXPECT_FALSE(same.failed);
  EXPECT_FALSE(same.undecided);
  EXPECT_EQ(row(same, "b3@cpu").verdict, GateVerdict::same);
  EXPECT_NE(compare_table(same).find("exact"), std::string::npos);
}

TEST(BenchCompare, ACountIsNotComparedWithATime) {
  const auto base = counted(R"({"device": "cpu"})", {{"a@cpu", 1000}});
  const auto next = report("cpu", {{"a@cpu", noisy(100, 0.01, 15, 1)}});
  try {
    compare_bench(base, next, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "'a@cpu' is counted in BASE and timed in NEW: a count and a time cannot be compared");
  }
}

TEST(BenchCompare, TwiceAsSlowIsARegression) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 15, 1)}, {"b@ref", noisy(50, 0.01, 15, 2)}});
  const auto next = report("cpu", {{"a@ref", noisy(200, 0.01, 15, 3)}, {"b@ref", noisy(50, 0.01, 15, 4)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(row(c, "a@ref").verdict, GateVerdict::slower);
  EXPECT_NEAR(row(c, "a@ref").change, 1.0, 0.05);
  EXPECT_LT(row(c, "a@ref").p_value, 0.001);
  EXPECT_EQ(row(c, "b@ref").verdict, GateVerdict::same);
  // Geometric mean of the ratios 2 and 1: sqrt(2) - 1.
  EXPECT_NEAR(c.geomean_change, std::sqrt(2.0) - 1.0, 0.03);
}

TEST(BenchCompare, NoisyButUnchangedIsNotARegression) {
  // 20% noise around the same center: medians differ by chance, the test says so.
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.2, 12, 5)}});
  const auto next = report("cpu", {{"a@ref", noisy(100, 0.2, 12, 6)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(c.regressions, 0);
  EXPECT_NE(row(c, "a@ref").verdict, GateVerdict::slower);
  EXPECT_GT(row(c, "a@ref").p_value, 0.05);
}

TEST(BenchCompare, MissingAndNewBenchmarksAreNamed) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 1)}, {"gone@ref", noisy(10, 0.01, 9, 2)}});
  const auto next = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 3)}, {"added@ref", noisy(10, 0.01, 9, 4)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(row(c, "gone@ref").verdict, GateVerdict::missing);
  EXPECT_EQ(row(c, "added@ref").verdict, GateVerdict::added);
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(c.missing, 1);
  EXPECT_EQ(c.common, 1);
}

TEST(BenchCompare, AMissingBenchmarkFailsTheGateUnlessAllowed) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 1)}, {"gone@ref", noisy(10, 0.01, 9, 2)}});
  const auto next = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 3)}});
  EXPECT_TRUE(compare_bench(base, next, {}).failed);
  CompareBenchOptions allow;
  allow.allow_missing = true;
  EXPECT_FALSE(compare_bench(base, next, allow).failed);
  // A benchmark that failed in NEW has no timing: it fails the gate the same way.
  const std::string errored = R"({"context": {"device": "cpu"}, "benchmarks": [{"name": "a@ref", "run_type": "iteration",
      "real_time": 1, "time_unit": "us", "error_occurred": true, "error_message": "output differs"}]})";
  const auto e = compare_bench(report("cpu", {{"a@ref", noisy(100, 0.01, 9, 1)}}), errored, {});
  EXPECT_TRUE(e.failed);
  EXPECT_EQ(row(e, "a@ref").verdict, GateVerdict::error);
}

TEST(BenchCompare, NothingInCommonFailsTheGateUnlessAllowed) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 1)}});
  const auto next = report("cpu", {{"b@ref", noisy(100, 0.01, 9, 3)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(c.common, 0);
  EXPECT_TRUE(c.failed);
  EXPECT_EQ(compare_bench("{\"benchmarks\": []}", "{\"benchmarks\": []}", {}).failed, true);
  CompareBenchOptions allow;
  allow.allow_missing = true;
  EXPECT_FALSE(compare_bench(base, next, allow).failed);
}

TEST(BenchCompare, SlowerNeedsBothSignificanceAndTheThreshold) {
  // 3% slower with 0.2% noise: significant, under 5%: same.
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.002, 15, 1)}});
  const auto small = report("cpu", {{"a@ref", noisy(103, 0.002, 15, 2)}});
  const auto c1 = compare_bench(base, small, {});
  EXPECT_GT(row(c1, "a@ref").ratio_low, 1.0);
  EXPECT_EQ(row(c1, "a@ref").verdict, GateVerdict::same);
  EXPECT_FALSE(c1.failed);
  // 10% slower in the medians, but the samples overlap (40% noise): not significant.
  const auto wide = report("cpu", {{"a@ref", noisy(100, 0.4, 6, 3)}});
  const auto wide_next = report("cpu", {{"a@ref", noisy(110, 0.4, 6, 4)}});
  const auto c2 = compare_bench(wide, wide_next, {});
  EXPECT_LE(row(c2, "a@ref").ratio_low, 1.0);
  EXPECT_NE(row(c2, "a@ref").verdict, GateVerdict::slower);
  // Twice as slow with the same noise: caught.
  const auto twice = report("cpu", {{"a@ref", noisy(200, 0.05, 15, 5)}});
  const auto c3 = compare_bench(report("cpu", {{"a@ref", noisy(100, 0.05, 15, 6)}}), twice, {});
  EXPECT_EQ(row(c3, "a@ref").verdict, GateVerdict::slower);
  EXPECT_GT(row(c3, "a@ref").ratio_low, 1.5);
  EXPECT_TRUE(c3.failed);
}

TEST(BenchCompare, TooFewSamplesIsNeverSlower) {
  // One sample each (Google Benchmark's JSON without repetitions): 3x is only "unsure".
  const auto base = report("cpu", {{"a@ref", {100}}});
  const auto next = report("cpu", {{"a@ref", {300}}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(row(c, "a@ref").verdict, GateVerdict::undecided);
  EXPECT_FALSE(c.failed);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings.back().find("too few samples"), std::string::npos);
}

TEST(BenchCompare, ABusyMachineIsAWarning) {
  const std::string busy = R"({"context": {"device": "cpu", "num_cpus": 2, "load_avg": [1.0, 1.0, 1.0],
      "load_start": {"load_avg": [1.0, 1.0, 1.0], "cpus": 2}, "load_end": {"load_avg": [6.5, 3.0, 1.0], "cpus": 2}},
      "benchmarks": []})";
  const std::string quiet = R"({"context": {"device": "cpu", "num_cpus": 2, "load_avg": [0.5, 0.4, 0.3]},
      "benchmarks": []})";
  CompareBenchOptions allow;
  allow.allow_missing = true;
  const auto c = compare_bench(quiet, busy, allow);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings.front().find("NEW was measured on a busy machine"), std::string::npos);
  for (const auto& w : compare_bench(quiet, quiet, allow).warnings) EXPECT_EQ(w.find("busy"), std::string::npos);
}

// A row of NEW that ran under CPU pressure may be slower by what that pressure allows (1/(1-p)):
// undecided (exit 6), never slower; past it, or without pressure, slower.
TEST(BenchCompare, ARowUnderCpuPressureIsUndecidedNotSlower) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 15, 1)}, {"b@ref", noisy(100, 0.01, 15, 2)},
                                   {"c@ref", noisy(100, 0.01, 15, 3)}, {"d@ref", noisy(100, 0.01, 15, 4)},
                                   {"e@ref", noisy(100, 0.01, 15, 5)}, {"f@ref", noisy(100, 0.01, 15, 6)}});
  auto next_with = [&](const std::string& pressure, double a_median = 245) {
    auto text = report("cpu", {{"a@ref", noisy(a_median, 0.01, 15, 7)}, {"b@ref", noisy(100, 0.01, 15, 8)},
                               {"c@ref", noisy(100, 0.01, 15, 9)}, {"d@ref", noisy(100, 0.01, 15, 10)},
                               {"e@ref", noisy(100, 0.01, 15, 11)}, {"f@ref", noisy(100, 0.01, 15, 12)}});
    const auto at = text.find(R"("name": "a@ref")");
    return text.insert(at, R"("cpu_pressure": )" + pressure + ", ");
  };
  const auto quiet = compare_bench(base, next_with("0.0"), {});
  EXPECT_EQ(row(quiet, "a@ref").verdict, GateVerdict::slower);
  EXPECT_TRUE(quiet.failed);
  // 60% of its sampling under pressure: up to 2.5x as long, and 2.45x was measured.
  const auto loaded = compare_bench(base, next_with("0.6"), {});
  EXPECT_EQ(row(loaded, "a@ref").verdict, GateVerdict::undecided);
  EXPECT_FALSE(loaded.failed);
  EXPECT_TRUE(loaded.undecided);
  ASSERT_FALSE(loaded.warnings.empty());
  EXPECT_NE(loaded.warnings.back().find("1 benchmark of NEW ran under CPU load"), std::string::npos)
      << loaded.warnings.back();
  EXPECT_NE(loaded.warnings.back().find("bench --gate"), std::string::npos);
  // 20%: up to 1.25x; 2.45x is more than that load explains.
  EXPECT_EQ(row(compare_bench(base, next_with("0.2"), {}), "a@ref").verdict, GateVerdict::slower);
  // 96%: the scheduler's time, not the code's; 30x is undecided too.
  EXPECT_EQ(row(compare_bench(base, next_with("0.96", 3000), {}), "a@ref").verdict, GateVerdict::undecided);
  EXPECT_EQ(row(compare_bench(base, next_with("0.6", 3000), {}), "a@ref").verdict, GateVerdict::slower);
  EXPECT_THROW(compare_bench(base, next_with("1.5"), {}), Error);
}

TEST(BenchCompare, HodgesLehmannIntervalOfFiveAndFive) {
  // Pairwise ratios of {1..5} x {2..6}: 25 of them; the 95% interval for 5 and 5 is the
  // 3rd smallest to the 3rd largest (critical U = 2).
  const std::vector<double> a{1, 2, 3, 4, 5};
  const std::vector<double> b{10, 20, 30, 40, 50};
  const auto r = hodges_lehmann_ratio(a, b);
  EXPECT_NEAR(r.ratio, 10.0, 1e-9);
  std::vector<double> ratios;
  for (double y : b) {
    for (double x : a) ratios.push_back(y / x);
  }
  std::sort(ratios.begin(), ratios.end());
  EXPECT_NEAR(r.low, ratios[2], 1e-9);
  EXPECT_NEAR(r.high, ratios[22], 1e-9);
  EXPECT_FALSE(std::isfinite(hodges_lehmann_ratio({1, 2, 3}, {4, 5, 6}).high));  // 3 and 3: no 95% interval
}

TEST(BenchNames, GoogleBenchmarkSuffixesAreStripped) {
  const auto name = bench_name("nd/launch/f32", "ref");
  EXPECT_EQ(name, "nd/launch/f32@ref");
  EXPECT_EQ(normalize_bench_name(name + "/iterations:20/manual_time"), name);
  EXPECT_EQ(normalize_bench_name(name + "/min_time:0.500s/repeats:5/threads:1/real_time"), name);
  EXPECT_EQ(normalize_bench_name(name), name);
  EXPECT_EQ(normalize_bench_name("nd/slice_256B/unique/f32/in_place@ref"), "nd/slice_256B/unique/f32/in_place@ref");
}

TEST(BenchNames, GoogleBenchmarkRepetitionsMatchScatterctlRows) {
  // scatter_bench with --benchmark_repetitions=5: five iteration entries plus aggregates.
  std::string gb = R"({"context": {"device": "cpu"}, "benchmarks": [)";
  for (int i = 0; i < 5; ++i) {
    gb += fmt::format(R"({}{{"name": "a@ref/iterations:20/manual_time", "run_type": "iteration", "repetition_index": {},
        "real_time": {}, "time_unit": "us"}})", i ? ", " : "", i, 100 + i);
  }
  gb += R"(, {"name": "a@ref/iterations:20/manual_time_mean", "run_type": "aggregate", "real_time": 102, "time_unit": "us"}]})";
  const auto ours = report("cpu", {{"a@ref", noisy(101, 0.01, 15, 1)}});
  const auto c = compare_bench(ours, gb, {});
  EXPECT_EQ(c.common, 1);
  EXPECT_EQ(c.missing, 0);
  EXPECT_FALSE(c.failed);
  EXPECT_EQ(row(c, "a@ref").next_samples, 5u);
}

using testing::right_output;

// A test backend: always available, on the device "test"; subclasses give run().
class TestBackend : public Backend {
 public:
  explicit TestBackend(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Availability availability() const override { return {true, ""}; }
  std::string device() const override { return "test"; }

 protected:
  std::string name_;
};

// A backend whose output is wrong at element 0, and fast.
class WrongBackend final : public TestBackend {
 public:
  explicit WrongBackend(std::string name = "wrong") : TestBackend(std::move(name)) {}
  BackendOutput run(const Case& c, const RunFlags&) override {
    ++calls;
    auto out = reference_scatter(c);
    if (out.numel() > 0) out.data<float>()[0] += 1.0f;
    return {std::move(out), 1e-6};
  }
  int calls = 0;
};

BenchItem tiny_item(const std::string& name) {
  BenchItem item;
  item.name = name;
  item.group = "element";
  item.decl = *testing::load_one(R"({"name": "t", "op": "scatter_nd", "inputs": {
      "data": {"dtype": "float32", "shape": [64], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [3, 1], "values": [[0], [1], [8]]},
      "updates": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]}}})").decl;
  return item;
}

// The one row of tiny_item benched on `backend` alone.
BenchRow bench_tiny(Backend& backend, const BenchOptions& options) {
  auto report = run_bench({tiny_item("t")}, {&backend}, options, nullptr);
  EXPECT_EQ(report.rows.size(), 1u);
  return report.rows.empty() ? BenchRow{} : report.rows[0];
}

// Options for a bench of a few samples: at most 10 ms a row.
BenchOptions quick_options() {
  BenchOptions options;
  options.max_seconds = 0.01;
  return options;
}

// The reference: the cpu backend on every core, unless the cpu backend's own code is judged
// (a backend named cpu: in this process, or exe:PATH:cpu), or --reference-ref asks for ref. A
// wrong output fails against either.
TEST(BenchVerify, TheReferenceComesFromTheCpuBackendUnlessItsCodeIsJudged) {
  const auto reference_of = [](Backend& backend, bool from_cpu) {
    auto options = quick_options();
    options.reference_from_cpu = from_cpu;
    const auto r = run_bench({tiny_item("t")}, {&backend}, options, nullptr);
    EXPECT_EQ(r.rows.size(), 1u);
    if (!r.rows.empty()) EXPECT_EQ(r.rows[0].status, Status::failed) << backend.name();
    return r.context.reference_by;
  };
  WrongBackend wrong;
  EXPECT_EQ(reference_of(wrong, true).rfind("cpu backend, deterministic (", 0), 0u) << reference_of(wrong, true);
  EXPECT_EQ(reference_of(wrong, false), "ref (one thread)");
  WrongBackend named_cpu("cpu");
  EXPECT_EQ(reference_of(named_cpu, true), "ref (one thread)");
}

TEST(BenchVerify, AWrongBackendGetsAFailureNotANumber) {
  WrongBackend wrong;
  auto options = quick_options();
  const auto r = run_bench({tiny_item("t")}, {&wrong}, options, nullptr);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].status, Status::failed);
  EXPECT_TRUE(r.rows[0].timing.samples.empty());
  EXPECT_NE(r.rows[0].error.find("1 of 64 elements differ"), std::string::npos) << r.rows[0].error;
  EXPECT_NE(r.rows[0].error.find("worst at [0]"), std::string::npos) << r.rows[0].error;
  EXPECT_EQ(wrong.calls, 1);  // checked once, never timed
  EXPECT_NE(bench_table(r).find("FAILED"), std::string::npos);
  EXPECT_NE(bench_json(r).find("\"failed\": true"), std::string::npos);
  // --no-verify: timed without the check.
  options.verify = false;
  const auto unchecked = bench_tiny(wrong, options);
  EXPECT_EQ(unchecked.status, Status::passed);
  EXPECT_GE(unchecked.timing.samples.size(), 5u);
}

// An external backend right on its first call of a case, then off by one at element 0 (an
// output cached and reused, say): the check before timing passes it, the audit must not.
class StaleAfterFirst final : public TestBackend {
 public:
  StaleAfterFirst() : TestBackend("stale") {}
  BackendTraits traits() const override { return {BackendRole::external, MemoryKind::host, 1}; }
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    auto out = right_output(c, flags);
    if (++calls > stale_from && out.numel() > 0) out.data<float>()[0] += 1.0f;
    return {std::move(out), 1e-6};
  }
  int calls = 0;
  int stale_from = 1;
};

// Right on every call but one (the check is call 1).
class StaleOnOneCall final : public TestBackend {
 public:
  StaleOnOneCall() : TestBackend("once") {}
  BackendTraits traits() const override { return {BackendRole::external, MemoryKind::host, 1}; }
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    auto out = right_output(c, flags);
    if (++calls == stale_call && out.numel() > 0) out.data<float>()[0] += 1.0f;
    return {std::move(out), 1e-6};
  }
  int calls = 0;
  int stale_call = 2;
};

TEST(BenchVerify, TimedOutputsOfExternalBackendsAreAudited) {
  auto options = quick_options();
  StaleAfterFirst stale;
  const auto r = bench_tiny(stale, options);
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_TRUE(r.timing.samples.empty());
  EXPECT_NE(r.error.find("returned another output than the call checked before timing"), std::string::npos) << r.error;
  // Wrong only on the last call of the pass: the last call is always audited. The check is
  // call 1; a pass of 4 samples is 1 warm-up and 4 rounds (one block).
  options.min_samples = 4;
  options.max_samples = 4;
  StaleAfterFirst last;
  last.stale_from = 1 + 1 + 4 - 1;
  const auto at_last = bench_tiny(last, options);
  EXPECT_EQ(last.calls, 6);
  EXPECT_EQ(at_last.status, Status::failed) << "the last timed call was not audited";
  // Right on every call: timed.
  StaleAfterFirst right;
  right.stale_from = 1000000;
  EXPECT_EQ(bench_tiny(right, options).status, Status::passed);
}

// An external backend that computes its first output and returns it again on every call: the
// check before timing passes it, but the timed calls' inputs differ (RunFlags::vary), and the
// first audit judges the memorised output against the reference of the inputs it was given.
class Memorising final : public TestBackend {
 public:
  Memorising() : TestBackend("memorising") {}
  BackendTraits traits() const override { return {BackendRole::external, MemoryKind::host, 1}; }
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    varied += flags.vary && !flags.vary->empty();
    if (!kept) kept = reference_scatter(c);
    return {kept->clone(), 1e-6};
  }
  int varied = 0;

 private:
  std::optional<Tensor> kept;
};

TEST(BenchVerify, AnOutputMemorisedAcrossCallsFailsItsAudit) {
  auto options = quick_options();
  Memorising memorising;
  const auto r = bench_tiny(memorising, options);
  EXPECT_GT(memorising.varied, 0) << "no timed call got varied inputs";
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_NE(r.error.find("judged against the reference of the inputs it was given"), std::string::npos)
      << r.error;
  EXPECT_NE(r.varied.find("data and"), std::string::npos) << r.varied;
  // A built-in backend keeps the case's own inputs: nothing to memorise, nothing varied.
  WrongBackend builtin;
  options.verify = false;
  EXPECT_TRUE(bench_tiny(builtin, options).varied.empty());
}

// Every timed call of an external backend is judged, not a draw of them: an output wrong on one
// call only, whichever it is, fails the row.
TEST(BenchVerify, EveryTimedCallIsJudged) {
  BenchOptions options;
  options.min_samples = 4;
  options.max_samples = 4;
  for (int stale_call = 2; stale_call <= 6; ++stale_call) {
    StaleOnOneCall once;
    once.stale_call = stale_call;
    const auto r = bench_tiny(once, options);
    EXPECT_EQ(r.status, Status::failed) << "wrong on call " << stale_call << " only";
    // The pass's calls are counted after the check (the backend's call 1).
    EXPECT_NE(r.error.find("timed call " + std::to_string(stale_call - 1) + " returned another output"),
              std::string::npos)
        << r.error;
  }
}

// Records each call's output_unused: the check before timing needs the output; a built-in
// backend's timed calls do not (cuda skips their download), an audited external one's do.
class FlagRecorder final : public TestBackend {
 public:
  explicit FlagRecorder(BackendRole role) : TestBackend("recorder"), role_(role) {}
  BackendTraits traits() const override { return {role_, MemoryKind::host, 1}; }
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    unused.push_back(flags.output_unused);
    same.push_back(flags.same_inputs);
    return {right_output(c, flags), 1e-6};
  }
  std::vector<bool> unused;
  std::vector<bool> same;  // RunFlags::same_inputs of each call

 private:
  BackendRole role_;
};

TEST(BenchRun, OnlyOutputsThatAreJudgedAreAskedFor) {
  BenchOptions options;
  options.min_samples = 4;
  options.max_samples = 4;
  FlagRecorder builtin(BackendRole::builtin);
  ASSERT_EQ(bench_tiny(builtin, options).status, Status::passed);
  ASSERT_GE(builtin.unused.size(), 5u);
  EXPECT_FALSE(builtin.unused.front()) << "the check before timing judges the output";
  for (std::size_t i = 1; i < builtin.unused.size(); ++i) EXPECT_TRUE(builtin.unused[i]) << "timed call " << i;
  FlagRecorder external(BackendRole::external);
  ASSERT_EQ(bench_tiny(external, options).status, Status::passed);
  for (std::size_t i = 0; i < external.unused.size(); ++i) EXPECT_FALSE(external.unused[i]) << "audited call " << i;
}

// A large case's inputs are GBs: the check writes and uploads them, and every timed call after
// it, the first warm-up included, may keep them. A second pass makes its case again.
TEST(BenchRun, OnlyTheCheckOfAPassSendsTheInputs) {
  BenchOptions options;
  options.min_samples = 2;
  options.max_samples = 2;
  options.repetitions = 2;
  FlagRecorder external(BackendRole::external);
  ASSERT_EQ(bench_tiny(external, options).status, Status::passed);
  // Pass 1: check, warm-up, 2 samples. Pass 2: warm-up (a new case), 2 samples.
  EXPECT_EQ(external.same, (std::vector<bool>{false, true, true, true, false, true, true}));
  options.verify = false;  // no check: the first warm-up sends them
  FlagRecorder unchecked(BackendRole::external);
  ASSERT_EQ(bench_tiny(unchecked, options).status, Status::passed);
  EXPECT_EQ(unchecked.same, (std::vector<bool>{false, true, true, false, true, true}));
}

// Progress: each benchmark's start, then its end with where the wall time went, each backend
// named with its check and its calls (a wrong backend's row takes none after its check).
TEST(BenchRun, ProgressTellsEachBenchmarksStartAndWhereItsTimeWent) {
  BenchOptions options;
  options.min_samples = 2;
  options.max_samples = 2;
  FlagRecorder recorder(BackendRole::builtin);
  WrongBackend wrong;
  std::vector<BenchProgress> told;
  run_bench({tiny_item("a"), tiny_item("b")}, {&recorder, &wrong}, options,
            [&](const BenchProgress& p) { told.push_back(p); });
  ASSERT_EQ(told.size(), 4u);
  EXPECT_EQ(told[0].name, "a");
  EXPECT_TRUE(told[0].took.empty());
  EXPECT_EQ(told[1].name, "a");
  EXPECT_EQ(told[3].name, "b");
  const auto& took = told[1].took;
  EXPECT_NE(took.find(": case "), std::string::npos) << took;
  EXPECT_NE(took.find("recorder: check "), std::string::npos) << took;
  EXPECT_NE(took.find(", 3 calls "), std::string::npos) << "a warm-up and two samples: " << took;
  EXPECT_NE(took.find("wrong: check "), std::string::npos) << took;
  EXPECT_NE(took.find(", 0 calls "), std::string::npos) << "the failed check's row is not timed: " << took;
}

// An external backend whose first call (the check) waits, up to 10 s, for the other one's first
// call to start: both meet only when the checks run side by side.
class Rendezvous final : public TestBackend {
 public:
  Rendezvous(std::string name, std::atomic<int>& arrived) : TestBackend(std::move(name)), arrived_(arrived) {}
  BackendTraits traits() const override { return {BackendRole::external, MemoryKind::host, 1}; }
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    if (calls_++ == 0) {
      ++arrived_;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrived_ < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      met = arrived_ >= 2;
    }
    return {right_output(c, flags), 1e-6};
  }
  bool met = false;

 private:
  std::atomic<int>& arrived_;
  int calls_ = 0;
};

// External backends' checks wait on their workers: they run side by side, and the rows are as
// if they had run one after the other (each checked, each timed).
TEST(BenchRun, TheExternalBackendsChecksRunSideBySide) {
  BenchOptions options;
  options.min_samples = 2;
  options.max_samples = 2;
  std::atomic<int> arrived{0};
  Rendezvous first("first", arrived), second("second", arrived);
  FlagRecorder builtin(BackendRole::builtin);
  const auto r = run_bench({tiny_item("t")}, {&first, &builtin, &second}, options, nullptr);
  EXPECT_TRUE(first.met);
  EXPECT_TRUE(second.met);
  ASSERT_EQ(r.rows.size(), 3u);
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.status, Status::passed) << row.backend << ": " << row.error;
    EXPECT_TRUE(row.verified) << row.backend;
    EXPECT_EQ(row.timing.samples.size(), 2u) << row.backend;
  }
  EXPECT_EQ(builtin.same.front(), false) << "the in-process check sends the inputs";
}

// Asks for an interrupt (as SIGTERM would) on its call number `at`.
class InterruptAt final : public TestBackend {
 public:
  explicit InterruptAt(int at) : TestBackend("interrupt"), at_(at) {}
  BackendOutput run(const Case& c, const RunFlags&) override {
    if (++calls_ == at_) request_interrupt();
    return {reference_scatter(c), 1e-6};
  }

 private:
  int at_;
  int calls_ = 0;
};

// An interrupt in the second pass takes that pass's samples back (unpaired, the pass's last
// call unaudited); the first pass's stand. In a child process: the interrupt cannot be undone.
TEST(BenchRun, AnInterruptInALaterPassKeepsTheEarlierPasses) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    BenchOptions options;
    options.verify = false;
    options.repetitions = 2;
    options.min_samples = 4;
    options.max_samples = 4;
    InterruptAt backend(5 + 3);  // a pass is a warm-up and 4 samples: the 2nd sample of pass 2
    const auto r = run_bench({tiny_item("t")}, {&backend}, options, nullptr);
    const auto line = fmt::format("{} {} {} {}", r.rows.size(), r.rows[0].timed(), r.rows[0].timing.samples.size(),
                                  r.context.interrupted);
    const auto written = ::write(fds[1], line.data(), line.size());
    ::_exit(written == static_cast<ssize_t>(line.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char chunk[256];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(text, "1 true 4 true") << "rows, timed, samples, interrupted";
}

TEST(BenchRun, RepetitionsPoolSamplesAndTheSlowdownKnobRepeatsTheOp) {
  WrongBackend counting;
  BenchOptions options;
  options.verify = false;
  options.max_seconds = 0.0;  // stop at min_samples
  options.min_samples = 4;
  options.repetitions = 3;
  const auto r = run_bench({tiny_item("t")}, {&counting}, options, nullptr);
  EXPECT_EQ(r.rows[0].timing.samples.size(), 12u);
  EXPECT_EQ(r.context.repetitions, 3);
  const int plain = counting.calls;
  options.slowdown = parse_slowdown("t:2");
  counting.calls = 0;
  const auto slow = bench_tiny(counting, options);
  EXPECT_EQ(counting.calls, 2 * plain);  // every call, warm-ups included, runs the op twice
  EXPECT_NEAR(slow.timing.median, 2e-6, 1e-12);
  EXPECT_THROW(parse_slowdown("t"), Error);
  EXPECT_THROW(parse_slowdown("t:0"), Error);
  EXPECT_THROW(parse_slowdown("t:0.9"), Error);
  EXPECT_THROW(parse_slowdown("t:2x"), Error);
  // A fractional factor counts that fraction of a further run; a label limits it to one backend.
  options.slowdown = parse_slowdown("t*:1.5");
  EXPECT_NEAR(bench_tiny(counting, options).timing.median, 1.5e-6, 1e-12);
  options.slowdown = parse_slowdown("other@t:3");
  EXPECT_NEAR(bench_tiny(counting, options).timing.median, 1e-6, 1e-12);
  const auto labelled = parse_slowdown("new@nd/*:1.1");
  ASSERT_EQ(labelled.size(), 1u);
  EXPECT_EQ(labelled[0].label, "new");
  EXPECT_TRUE(labelled[0].matches("nd/x", "new"));
  EXPECT_FALSE(labelled[0].matches("nd/x", "base"));
  EXPECT_FALSE(labelled[0].matches("elements/x", "new"));
}

TEST(BenchRun, TheContextRecordsTheMachineLoad) {
  const auto load = machine_load();
  EXPECT_GT(load.cpus, 0);
  EXPECT_GE(load.load1, 0.0);  // Linux has /proc/loadavg
  auto ref = make_ref_backend();
  BenchOptions options;
  options.max_seconds = 0.0;
  options.cold = false;
  const auto r = run_bench({tiny_item("t")}, {ref.get()}, options, nullptr);
  EXPECT_GT(r.context.load_start.cpus, 0);
  EXPECT_GE(r.context.load_end.load1, 0.0);
  const auto json = bench_json(r);
  EXPECT_NE(json.find("\"load_start\""), std::string::npos);
  EXPECT_NE(json.find("\"num_cpus\""), std::string::npos);
  // Host rows: the 100% line is a copy of the row's own working set.
  EXPECT_GT(r.rows[0].working_set_copy_bandwidth, 0.0);
  EXPECT_NE(json.find("\"copy_line\": \"working set\""), std::string::npos);
}

TEST(BenchTable, HumanUnitsShapesAndTheSectorCeiling) {
  BenchReport report;
  report.context.device = "test";
  report.context.copy_bandwidth = 10e9;
  report.context.sector_bandwidth = 2e9;
  BenchRow element;
  element.name = "nd/element/unique/f32";
  element.backend = "ref";
  element.timing.samples = {0.4056};
  element.timing.median = 0.4056;
  element.bytes.writes = 1'500'000;
  element.bytes.run_bytes = 4;
  element.bytes.stores = 262144;
  element.copy_bandwidth = 10e9;
  element.sector_bandwidth = 2e9;
  element.shape = "float32 data [1048576] indices [262144, 1] updates [262144]";
  BenchRow slice = element;
  slice.name = "nd/slice_256B/unique/f32";
  slice.bytes.run_bytes = 256;
  slice.timing.median = 0.0000123;
  report.rows = {element, slice};
  const auto table = bench_table(report);
  EXPECT_NE(table.find("405.6 ms"), std::string::npos) << table;
  EXPECT_NE(table.find("12.30 us"), std::string::npos) << table;
  EXPECT_NE(table.find("1.5 MB"), std::string::npos) << table;
  EXPECT_NE(table.find("indices [262144, 1]"), std::string::npos) << table;
  EXPECT_NE(table.find("% sector"), std::string::npos) << table;
  // 262144 stores, a 32-byte sector each (8.4 MB), in 0.4056 s against 2 GB/s: 1.0%; the
  // slice row has no sector figure.
  const auto element_line = table.substr(table.find("nd/element/unique/f32"));
  EXPECT_NE(element_line.substr(0, element_line.find('\n')).find("1.0%"), std::string::npos) << table;
  EXPECT_FALSE(std::regex_search(table, std::regex("[0-9](ns|us|ms|KB|MB|GB)\\b"))) << table;  // no glued units
}


TEST(BenchCompare, DifferentDevicesAreRefusedUnlessAllowed) {
  const auto base = report("NVIDIA H100", {{"a@cuda", noisy(100, 0.01, 9, 1)}});
  const auto next = report("NVIDIA H200", {{"a@cuda", noisy(100, 0.01, 9, 2)}});
  EXPECT_THROW(compare_bench(base, next, {}), Error);
  CompareBenchOptions allow;
  allow.allow_device_mismatch = true;
  EXPECT_NO_THROW(compare_bench(base, next, allow));
}

TEST(BenchCompare, NotAReportIsAnError) {
  EXPECT_THROW(compare_bench("{\"x\": 1}", "{\"benchmarks\": []}", {}), Error);
  EXPECT_THROW(compare_bench("not json", "{\"benchmarks\": []}", {}), Error);
}

// The message compare_bench gives for a NEW report that is `text`, against a good BASE.
std::string unusable_new(const std::string& text) {
  try {
    compare_bench(report("cpu", {{"a@ref", {1, 2, 3, 4}}}), text, {});
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::schema) << e.message();
    return e.message();
  }
  return "no error";
}

// A hostile or damaged report is an unusable report (exit 2) naming the field and its value,
// never an abort and never a pass (reliability probe, finding 8; a time that is not positive
// and finite, finding 3).
TEST(BenchCompare, AMistypedFieldIsNamedWithItsValue) {
  const std::string row = R"("name": "a@ref", "run_type": "iteration", "real_time": 2, "time_unit": "us")";
  auto with = [&](const std::string& extra) {
    return R"({"context": {"device": "cpu"}, "benchmarks": [{)" + row + extra + "}]}";
  };
  EXPECT_EQ(unusable_new(with(R"(, "cv": "high")")), "NEW: benchmarks[0].cv = \"high\" is not a number");
  EXPECT_EQ(unusable_new(with(R"(, "error_occurred": "yes")")),
            "NEW: benchmarks[0].error_occurred = \"yes\" is not true or false");
  EXPECT_EQ(unusable_new(with(R"(, "error_occurred": true, "error_message": 5)")),
            "NEW: benchmarks[0].error_message = 5 is not a string");
  EXPECT_EQ(unusable_new(with(R"(, "samples_us": [1, -2])")),
            "NEW: benchmarks[0].samples_us[1] = -2 is not a positive, finite number");
  EXPECT_EQ(unusable_new(with(R"(, "samples_us": [1, 0])")),
            "NEW: benchmarks[0].samples_us[1] = 0 is not a positive, finite number");
  EXPECT_EQ(unusable_new(with(R"(, "samples_us": ["fast"])")),
            "NEW: benchmarks[0].samples_us[0] = \"fast\" is not a positive, finite number");
  EXPECT_EQ(unusable_new(R"({"benchmarks": [{"name": "a@ref", "real_time": 2, "time_unit": 5}]})"),
            "NEW: benchmarks[0].time_unit = 5 is not a string");
  EXPECT_EQ(unusable_new(R"({"benchmarks": [{"name": "a@ref", "real_time": 2, "time_unit": "h"}]})"),
            "NEW: benchmarks[0].time_unit = \"h\" is not ns, us, ms, s or instructions");
  EXPECT_EQ(unusable_new(R"({"benchmarks": [{"name": "a@ref", "real_time": -1}]})"),
            "NEW: benchmarks[0].real_time = -1 is not a positive, finite number");
  EXPECT_EQ(unusable_new(R"({"context": {"device": "cpu", "busy": "yes"}, "benchmarks": []})"),
            "NEW: context.busy = \"yes\" is not true or false");
  EXPECT_EQ(unusable_new(R"({"context": {"device": 7}, "benchmarks": []})"), "NEW: context.device = 7 is not a string");
  EXPECT_EQ(unusable_new(R"({"benchmarks": [3]})" ), "NEW: benchmarks[0] = 3 is not an object");
}

TEST(MannWhitney, CompleteSeparationOfNineAndNine) {
  // U = 0, mean 40.5, variance 9*9*19/12 = 128.25: z = (40.5 - 0.5) / sqrt(128.25) = 3.532,
  // two-sided p = erfc(3.532 / sqrt 2) = 4.12e-4 (normal approximation with continuity correction).
  std::vector<double> a{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<double> b{11, 12, 13, 14, 15, 16, 17, 18, 19};
  EXPECT_NEAR(mann_whitney_p(a, b), 4.12e-4, 0.1e-4);
  EXPECT_NEAR(mann_whitney_p(a, a), 1.0, 0.05);
}

TEST(ByteModel, CountsIndicesUpdatesSectorsAndTheCopy) {
  // float32 [64]; tuples 0, 1 and 8: elements 0 and 1 share the first 32-byte sector,
  // element 8 (byte 32) is in the second.
  const auto c = testing::load_case(R"({"name": "b", "op": "scatter_nd", "inputs": {
      "data": {"dtype": "float32", "shape": [64], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [3, 1], "values": [[0], [1], [8]]},
      "updates": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]}}})");
  const auto in_place = byte_model(c, true);
  EXPECT_EQ(in_place.indices, 24u);
  EXPECT_EQ(in_place.updates, 12u);
  EXPECT_EQ(in_place.distinct, 3u);
  EXPECT_EQ(in_place.writes, 64u);
  EXPECT_EQ(in_place.stores, 3u) << "one sector transaction an update, two of them in one sector";
  EXPECT_EQ(in_place.copy, 0u);
  EXPECT_EQ(byte_model(c, false).copy, 2u * 64 * 4);
}

TEST(ByteModel, NoneWithDuplicatesCountsOnlyTheWinners) {
  // Four updates onto one element: only the last one's 4 bytes must be read.
  const auto c = testing::load_case(R"({"name": "d", "op": "scatter_nd", "inputs": {
      "data": {"dtype": "float32", "shape": [16], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int32", "shape": [4, 1], "values": [[5], [5], [5], [5]]},
      "updates": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]}}})");
  const auto m = byte_model(c, true);
  EXPECT_EQ(m.indices, 16u);
  EXPECT_EQ(m.updates, 4u);
  EXPECT_EQ(m.writes, 32u);
}

// A backend whose every other call takes 0.1% longer: stable within the spread target.
class Alternating final : public TestBackend {
 public:
  explicit Alternating(std::string name) : TestBackend(std::move(name)) {}
  BackendOutput run(const Case& c, const RunFlags&) override {
    order.push_back(name_);
    return {reference_scatter(c), 0.001 * (++calls % 2 ? 1.0 : 1.001)};
  }
  int calls = 0;
  inline static std::vector<std::string> order;
};

// Unchecked sampling of backends a and b on one tiny benchmark.
BenchReport run_pair(Alternating& a, Alternating& b, int min_samples, double max_seconds) {
  BenchOptions options;
  options.min_samples = min_samples;
  options.max_seconds = max_seconds;
  options.verify = false;
  return run_bench({tiny_item("t")}, {&a, &b}, options, nullptr);
}

TEST(BenchRounds, StopWhenStableAndPairEverySampleWithTheOtherBackendsOfItsRound) {
  Alternating a("a"), b("b");
  Alternating::order.clear();
  const auto r = run_pair(a, b, 5, 10.0);
  ASSERT_EQ(r.rows.size(), 2u);
  for (const auto& row : r.rows) {
    EXPECT_GE(row.timing.samples.size(), 5u);
    EXPECT_LT(row.timing.samples.size(), 50u);
    EXPECT_NEAR(row.timing.median, 0.001, 0.0000011);
    EXPECT_LT(row.timing.spread, 0.005);
    ASSERT_EQ(row.rounds.size(), row.timing.samples.size());
  }
  // Both backends sampled in every round, each round numbered once.
  EXPECT_EQ(r.rows[0].rounds, r.rows[1].rounds);
  for (std::size_t i = 0; i < r.rows[0].rounds.size(); ++i) EXPECT_EQ(r.rows[0].rounds[i], static_cast<int>(i));
  // Each block starts with a warm-up of each (a, b), then one call of each per round, in an
  // order the seed shuffles: over the rounds both orders occur.
  const std::set<int> blocks(r.rows[0].blocks.begin(), r.rows[0].blocks.end());
  EXPECT_EQ(r.rows[0].blocks, r.rows[1].blocks);
  EXPECT_GE(blocks.size(), 2u) << "a block is 4 rounds";
  ASSERT_EQ(Alternating::order.size(), 2 * blocks.size() + 2 * r.rows[0].rounds.size());
  bool a_first = false, b_first = false;
  for (std::size_t i = 0; i + 1 < Alternating::order.size(); i += 2) {
    EXPECT_NE(Alternating::order[i], Alternating::order[i + 1]);
    (Alternating::order[i] == "a" ? a_first : b_first) = true;
  }
  EXPECT_TRUE(a_first && b_first) << "the order within a round never changed";
}

// bench --gate's further passes: their samples join the rows, rounds and blocks numbered after
// the rows' own, so that pairs stay pairs and blocks stay apart.
TEST(BenchRounds, FurtherPassesAreNumberedAfterTheFirst) {
  Alternating a("a"), b("b");
  auto first = run_pair(a, b, 4, 0.0);
  const auto more = run_pair(a, b, 4, 0.0);
  ASSERT_EQ(first.rows[0].rounds, (std::vector<int>{0, 1, 2, 3}));
  const int last_block = first.rows[0].blocks.back();
  add_rounds(first, more);
  for (const auto& row : first.rows) {
    EXPECT_EQ(row.timing.samples.size(), 8u);
    EXPECT_EQ(row.rounds, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    ASSERT_EQ(row.blocks.size(), 8u);
    EXPECT_GT(row.blocks[4], last_block) << "a further pass is a block of its own";
  }
  EXPECT_EQ(first.rows[0].blocks, first.rows[1].blocks);
  // A further pass an interrupt cut short: its skipped rows leave the measured ones as they were.
  auto cut = run_pair(a, b, 4, 0.0);
  cut.context.interrupted = true;
  for (auto& row : cut.rows) {
    row.status = Status::skipped;
    row.error = "interrupted while it was measured";
  }
  add_rounds(first, cut);
  EXPECT_TRUE(first.context.interrupted);
  for (const auto& row : first.rows) {
    EXPECT_TRUE(row.timed()) << row.error;
    EXPECT_EQ(row.timing.samples.size(), 8u);
  }
}

// Every string a bench report prints is valid UTF-8 without control characters: a
// plugin's error text, a device name or a derived case name may hold any bytes.
TEST(BenchReports, EveryStringIsPrintable) {
  BenchReport report;
  report.context.device = "dev\x1b[2J";
  BenchRow row;
  row.name = "caf\xe9";
  row.backend = "plugin:/x/\xff.so";
  row.error = "bad \x01 bytes \xc3";
  row.shape = "f32 \x07";
  report.rows.push_back(row);
  for (const auto& text : {bench_table(report), bench_markdown(report), bench_json(report)}) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto ch = static_cast<unsigned char>(text[i]);
      ASSERT_FALSE(ch < 32 && ch != '\n' && ch != '\t') << "a control character at " << i << " of\n" << text;
      ASSERT_LT(ch, 0x80) << "a raw byte >= 0x80 at " << i << " (every non-ASCII byte here is invalid UTF-8)\n" << text;
    }
    EXPECT_NE(text.find("xe9"), std::string::npos) << "the byte is shown escaped\n" << text;
  }
}

}  // namespace
}  // namespace scatter

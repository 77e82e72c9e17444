// The regression gate and the byte model, on synthetic reports and hand-counted bytes.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "scatter/bench.hpp"
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
  EXPECT_EQ(row(c, "a@ref").verdict, "same");
  EXPECT_EQ(row(c, "b@ref").verdict, "same");
  EXPECT_DOUBLE_EQ(c.geomean_change, 0.0);
}

TEST(BenchCompare, TwiceAsSlowIsARegression) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 15, 1)}, {"b@ref", noisy(50, 0.01, 15, 2)}});
  const auto next = report("cpu", {{"a@ref", noisy(200, 0.01, 15, 3)}, {"b@ref", noisy(50, 0.01, 15, 4)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(row(c, "a@ref").verdict, "slower");
  EXPECT_NEAR(row(c, "a@ref").change, 1.0, 0.05);
  EXPECT_LT(row(c, "a@ref").p_value, 0.001);
  EXPECT_EQ(row(c, "b@ref").verdict, "same");
  // Geometric mean of the ratios 2 and 1: sqrt(2) - 1.
  EXPECT_NEAR(c.geomean_change, std::sqrt(2.0) - 1.0, 0.03);
}

TEST(BenchCompare, NoisyButUnchangedIsNotARegression) {
  // 20% noise around the same center: medians differ by chance, the test says so.
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.2, 12, 5)}});
  const auto next = report("cpu", {{"a@ref", noisy(100, 0.2, 12, 6)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(c.regressions, 0);
  EXPECT_NE(row(c, "a@ref").verdict, "slower");
  EXPECT_GT(row(c, "a@ref").p_value, 0.05);
}

TEST(BenchCompare, MissingAndNewBenchmarksAreNamed) {
  const auto base = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 1)}, {"gone@ref", noisy(10, 0.01, 9, 2)}});
  const auto next = report("cpu", {{"a@ref", noisy(100, 0.01, 9, 3)}, {"added@ref", noisy(10, 0.01, 9, 4)}});
  const auto c = compare_bench(base, next, {});
  EXPECT_EQ(row(c, "gone@ref").verdict, "missing");
  EXPECT_EQ(row(c, "added@ref").verdict, "new");
  EXPECT_EQ(c.regressions, 0);
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

TEST(Measure, StopsWhenStableAndReportsTheMedian) {
  int calls = 0;
  BenchOptions options;
  options.min_samples = 5;
  const auto t = measure([&] { return 0.001 * (++calls % 2 ? 1.0 : 1.001); }, options);
  EXPECT_GE(t.samples.size(), 5u);
  EXPECT_LT(t.samples.size(), 50u);
  EXPECT_NEAR(t.median, 0.001, 0.0000011);
  EXPECT_LT(t.spread, 0.005);
}

}  // namespace
}  // namespace scatter

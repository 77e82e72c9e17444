// A judge a kernel cannot fool (docs/benchmarks.md, "Measurements a kernel cannot game"): the
// inputs each timed call gets (varied, with the reference of each known at once), and the checks
// of a row's time against physics and against scatterctl's own clock.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "../lib/src/bench/stats.hpp"
#include "../lib/src/bench/time_checks.hpp"
#include "../lib/src/bench/vary.hpp"
#include "scatter/backend.hpp"
#include "scatter/bench.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "scatter/trial.hpp"
#include "scatter/variation.hpp"
#include "test_util.hpp"

namespace {

using scatter::BenchRow;
using scatter::DType;
using scatter::OuterClock;
using scatter::Status;

std::uint64_t f32_bits(float v) {
  std::uint32_t b = 0;
  std::memcpy(&b, &v, 4);
  return b;
}

float f32_of(std::uint64_t bits) {
  const auto b = static_cast<std::uint32_t>(bits);
  float v = 0;
  std::memcpy(&v, &b, 4);
  return v;
}

TEST(AnotherValue, ChangesTheBitsAndKeepsTheMagnitude) {
  for (std::uint64_t salt = 0; salt < 300; ++salt) {
    for (const float v : {1.5f, -3.25e-20f, 7.0e30f, 0.1f}) {
      const auto other = f32_of(scatter::another_value(DType::float32, f32_bits(v), salt));
      EXPECT_NE(f32_bits(other), f32_bits(v));
      EXPECT_EQ(std::signbit(other), std::signbit(v));
      EXPECT_EQ(std::ilogb(other), std::ilogb(v)) << v << " -> " << other << ": another binade";
    }
    // Zeros, subnormals, infinities and NaN become numbers near 1 of their sign: a kernel takes
    // no other path for them, and no NaN appears where there was none.
    for (const float v : {0.0f, -0.0f, 1e-42f, INFINITY, -INFINITY, NAN}) {
      const auto other = f32_of(scatter::another_value(DType::float32, f32_bits(v), salt));
      EXPECT_TRUE(std::isfinite(other)) << v;
      EXPECT_GE(std::fabs(other), 1.0f);
      EXPECT_LT(std::fabs(other), 1.01f);
      EXPECT_EQ(std::signbit(other), std::signbit(v));
    }
    const auto i8 = scatter::another_value(DType::int8, 0x7F, salt);
    EXPECT_NE(i8, 0x7Fu);
    EXPECT_LE(i8, 0xFFu) << "an int8 pattern stays 8 bits wide";
    EXPECT_LT(std::abs(static_cast<int>(static_cast<std::int8_t>(i8)) - 0x7F), 8);
    EXPECT_EQ(scatter::another_value(DType::boolean, 1, salt), 0u);
    EXPECT_EQ(scatter::another_value(DType::boolean, 0, salt), 1u);
    // bfloat16: its 7 significand bits; 1.0 is 0x3F80.
    const auto bf = scatter::another_value(DType::bfloat16, 0x3F80, salt);
    EXPECT_NE(bf, 0x3F80u);
    EXPECT_EQ(bf & 0xFF80u, 0x3F80u) << "1.0 keeps its sign and exponent";
  }
}

TEST(AnotherValue, ADeltaOutsideTheTensorIsRefusedByName) {
  scatter::Tensor t(DType::float32, {4});
  scatter::ElementDelta delta;
  delta.at = {4};
  delta.bits = {0};
  const auto e = scatter::testing::thrown([&] { scatter::apply_delta(t, delta); });
  EXPECT_EQ(e.code(), scatter::ErrorCode::backend);
  EXPECT_NE(e.message().find("position 4 is outside a tensor of 4 elements"), std::string::npos) << e.message();
}

// The want of a varied call is the reference run on the varied inputs: checked against the
// reference itself, on fuzzed cases of every op, reduction and dtype, bit for bit; and the
// case and the want are what they were once the variation is over.
// The inputs' fingerprint (bench's check that a backend left them as they were), over a tensor
// of two 64 MiB slices, hashed on threads, and a tail of bytes: any one bit changed anywhere
// changes it (the start, a lane's word, the slice boundary, the tail), and so do two words
// swapped between lanes; an equal copy gives the same value.
TEST(InputFingerprint, AnyChangedBitOrSwappedWordChangesIt) {
  const std::int64_t n = (std::int64_t{128} << 20) + 13;
  scatter::Tensor t(scatter::DType::uint8, {n});
  for (std::int64_t i = 0; i < n; ++i) t.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(i * 2654435761u >> 13);
  const auto before = scatter::fingerprint(t);
  EXPECT_EQ(scatter::fingerprint(t.clone()), before);
  for (const std::int64_t at : {std::int64_t{0}, std::int64_t{8}, std::int64_t{31}, (std::int64_t{64} << 20) - 1,
                                std::int64_t{64} << 20, n - 20, n - 1}) {
    auto& byte = t.data<std::uint8_t>()[at];
    byte ^= 0x10;
    EXPECT_NE(scatter::fingerprint(t), before) << "bit 4 of byte " << at;
    byte ^= 0x10;
  }
  EXPECT_EQ(scatter::fingerprint(t), before);
  std::uint64_t a = 1, b = 2;  // words 0 and 1, in lanes 0 and 1
  std::memcpy(t.bytes(), &a, 8);
  std::memcpy(t.bytes() + 8, &b, 8);
  const auto ordered = scatter::fingerprint(t);
  std::memcpy(t.bytes(), &b, 8);
  std::memcpy(t.bytes() + 8, &a, 8);
  EXPECT_NE(scatter::fingerprint(t), ordered);
}

TEST(InputVariations, TheWantOfEachVariationIsTheReferenceOfItsInputs) {
  int varied = 0, swapped = 0, contended = 0;
  for (std::int64_t i = 0; i < 600; ++i) {
    const auto text = scatter::fuzz_case(31, i, 2048);
    auto c = scatter::testing::load_case(text);
    const scatter::CaseFacts facts(c);
    const auto data_before = scatter::fingerprint(c.data);
    const auto updates_before = scatter::fingerprint(c.updates);
    const auto indices_before = scatter::fingerprint(c.indices);
    const auto want_before = scatter::fingerprint(facts.want());
    scatter::VariationSource source(c, facts, 1000 + static_cast<std::uint64_t>(i));
    for (int call = 0; call < 3; ++call) {
      const auto v = source.next();
      EXPECT_EQ(v.number, static_cast<std::uint64_t>(call + 1));
      if (v.empty()) continue;
      ++varied;
      swapped += !v.indices.empty();
      contended += v.data.empty() && !v.updates.empty();
      const auto oracle = scatter::reference_scatter(scatter::varied_copy(c, v));
      {
        const scatter::VariationSource::Applied applied(source, v);
        ASSERT_EQ(std::memcmp(source.want().bytes(), oracle.bytes(), oracle.nbytes()), 0)
            << text << "\nvariation " << v.number << ": the want is not the reference of the varied inputs";
        EXPECT_NE(scatter::fingerprint(c.data) ^ scatter::fingerprint(c.updates) ^ scatter::fingerprint(c.indices),
                  data_before ^ updates_before ^ indices_before);
      }
      EXPECT_EQ(scatter::fingerprint(c.data), data_before);
      EXPECT_EQ(scatter::fingerprint(c.updates), updates_before);
      EXPECT_EQ(scatter::fingerprint(c.indices), indices_before);
      EXPECT_EQ(scatter::fingerprint(source.want()), want_before);
    }
    if (HasFailure()) return;
  }
  EXPECT_GT(varied, 1200) << "most fuzzed cases have an element to vary";
  EXPECT_GT(swapped, 100) << "index swaps: a memo that never reads the indices again goes stale";
  EXPECT_GT(contended, 0) << "cases whose every element takes several updates are varied too";
}

TEST(InputVariations, NoTwoCallsSeeTheSameInputs) {
  auto c = scatter::testing::load_case(scatter::testing::make_case(
      R"("op": "scatter_elements", "reduction": "add")",
      R"({"dtype": "float32", "shape": [64], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}})",
      R"({"dtype": "int64", "shape": [48], "generate": {"kind": "randint", "low": 0, "high": 64, "seed": 4}})",
      R"({"dtype": "float32", "shape": [48], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 5}})"));
  const scatter::CaseFacts facts(c);
  scatter::VariationSource source(c, facts, 7);
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  for (int call = 0; call < 200; ++call) {
    const auto v = source.next();
    const auto varied = scatter::varied_copy(c, v);
    EXPECT_TRUE(seen.insert({scatter::fingerprint(varied.data), scatter::fingerprint(varied.updates)}).second)
        << "call " << call << " got inputs an earlier call got";
  }
  EXPECT_NE(source.describe().find("16 data and"), std::string::npos) << source.describe();
}

// The contention and histogram rows: every element takes several updates. Some of those updates
// change each call, and their targets' values are folded again from all their updates.
TEST(InputVariations, ACaseWhoseEveryElementTakesTwoUpdatesIsVariedInThoseUpdates) {
  auto c = scatter::testing::load_case(scatter::testing::make_case(
      R"("op": "scatter_elements", "reduction": "add")", scatter::testing::tensor("float32", "[2]", "[0, 0]"),
      scatter::testing::tensor("int64", "[6]", "[0, 1, 1, 0, 0, 1]"),
      scatter::testing::tensor("float32", "[6]", "[1, 2, 3, 4, 5, 6]")));
  const scatter::CaseFacts facts(c);
  scatter::VariationSource source(c, facts, 7);
  for (int call = 0; call < 20; ++call) {
    const auto v = source.next();
    ASSERT_FALSE(v.updates.empty());
    EXPECT_TRUE(v.data.empty() && v.indices.empty());
    const auto oracle = scatter::reference_scatter(scatter::varied_copy(c, v));
    const scatter::VariationSource::Applied applied(source, v);
    ASSERT_EQ(std::memcmp(source.want().bytes(), oracle.bytes(), oracle.nbytes()), 0) << "call " << call;
  }
  EXPECT_NE(source.describe().find("of elements that take several"), std::string::npos) << source.describe();
}

// Each call's positions are drawn from every candidate, not from a sample kept for the pass (a
// kernel that learned a pool of 4,096 would re-read only those): over a case of 200,000 untouched
// elements, 1,000 calls of 16 reach far more than 4,096 distinct ones.
TEST(InputVariations, PositionsAreDrawnFromEveryCandidate) {
  auto c = scatter::testing::load_case(scatter::testing::make_case(
      R"("op": "scatter_elements")",
      R"({"dtype": "float32", "shape": [200000], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}})",
      scatter::testing::tensor("int64", "[2]", "[5, 9]"), scatter::testing::tensor("float32", "[2]", "[1, 2]")));
  const scatter::CaseFacts facts(c);
  scatter::VariationSource source(c, facts, 11);
  std::set<std::int64_t> seen;
  for (int call = 0; call < 1000; ++call) {
    for (const auto at : source.next().data.at) seen.insert(at);
  }
  EXPECT_GT(seen.size(), 12000u);
  // And two sources of other seeds draw other positions.
  scatter::VariationSource a(c, facts, 1), b(c, facts, 2);
  EXPECT_NE(a.next().data.at, b.next().data.at);
}

// A row of `bytes` bytes timed at `samples` seconds, on a machine whose fastest copy moves 10 GB/s.
BenchRow row_of(std::uint64_t bytes, std::vector<double> samples, bool cold = true) {
  BenchRow row;
  row.name = "r";
  row.backend = "b";
  row.cold = cold;
  row.bytes.copy = bytes;
  row.fastest_rate = 10e9;
  row.fastest_rate_of = "a test's copy";
  row.timing.samples = std::move(samples);
  return row;
}

TEST(PhysicsFirst, ARowFasterThanMemoryIsRefusedAndKeepsItsTime) {
  // 10 MB at 10 GB/s: a floor of 1 ms; a third of it, 333 us, is the least time accepted.
  auto cheat = row_of(10'000'000, {1e-7, 1e-7, 1e-7, 1e-7, 1e-7});
  scatter::refuse_impossible_time(cheat);
  EXPECT_EQ(cheat.status, Status::failed);
  EXPECT_EQ(cheat.timing.samples.size(), 5u) << "the refused time stays in the report";
  EXPECT_NE(cheat.error.find("faster than memory can move its bytes (median 100 ns < 333.3 us, a third of its floor "
                             "1.00 ms (10.0 MB at 10.0 GB/s, a test's copy)): a timer that does not see the work, or an "
                             "output that was not computed"),
            std::string::npos)
      << cheat.error;
  // A memory that moves bytes that fast: within the margin.
  auto honest = row_of(10'000'000, {4e-4, 5e-4, 6e-4, 4.5e-4, 5e-4});
  scatter::refuse_impossible_time(honest);
  EXPECT_EQ(honest.status, Status::passed) << honest.error;
  // Right on most calls, memorised on some: 2 of 10 samples under the least time.
  auto some = row_of(10'000'000, {1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-6, 1e-6});
  scatter::refuse_impossible_time(some);
  EXPECT_EQ(some.status, Status::failed);
  EXPECT_NE(some.error.find("in 2 of 10 samples"), std::string::npos) << some.error;
  auto one = row_of(10'000'000, {1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-6});
  scatter::refuse_impossible_time(one);
  EXPECT_EQ(one.status, Status::passed) << "one sample in ten is within the stated share";
  // The row's own measured lines count too: a faster working-set copy raises the line.
  auto fast_line = row_of(10'000'000, {2e-4, 2e-4, 2e-4});
  fast_line.working_set_copy_bandwidth = 40e9;
  scatter::refuse_impossible_time(fast_line);
  EXPECT_EQ(fast_line.status, Status::passed) << fast_line.error;
  // Nothing measured: nothing to check against (a device this build cannot probe).
  auto unknown = row_of(10'000'000, {1e-9});
  unknown.fastest_rate = 0;
  scatter::refuse_impossible_time(unknown);
  EXPECT_EQ(unknown.status, Status::passed);
}

TEST(PhysicsFirst, AHotDeviceRowHasAWiderMargin) {
  auto row = row_of(10'000'000, {2e-4, 2e-4, 2e-4}, false);
  row.memory = scatter::MemoryKind::device;
  scatter::refuse_impossible_time(row);
  EXPECT_EQ(row.status, Status::passed) << "5x the device's copy, from L2";
  auto cheat = row_of(10'000'000, {5e-5, 5e-5, 5e-5}, false);
  cheat.memory = scatter::MemoryKind::device;
  scatter::refuse_impossible_time(cheat);
  EXPECT_EQ(cheat.status, Status::failed) << "20x the device's copy";
}

// A worker's row: its samples and scatterctl's clock of each.
BenchRow clocked(std::vector<double> inner, std::vector<OuterClock> outer) {
  auto row = row_of(1000, std::move(inner));
  row.outer_clocks = std::move(outer);
  return row;
}

TEST(TheClock, AWorkersTimeMustAgreeWithScatterctlsClock) {
  // Honest: scatterctl sees the call plus the signals' round trip (100 us) and a wake-up; one
  // sample delayed by 2 ms does not matter, the closest one does.
  auto honest = clocked({5e-3, 5e-3, 5e-3}, {{5e-3 + 1e-4 + 3e-5, 1e-4}, {5e-3 + 1e-4 + 2e-3, 1e-4}, {5.12e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(honest);
  EXPECT_EQ(honest.status, Status::passed) << honest.error;
  // A patched clock: the worker says 100 ns of a call scatterctl saw take 5 ms.
  auto patched = clocked({1e-7, 1e-7, 1e-7}, {{5.1e-3, 1e-4}, {5.1e-3, 1e-4}, {5.1e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(patched);
  EXPECT_EQ(patched.status, Status::failed);
  EXPECT_EQ(patched.timing.samples.size(), 3u);
  EXPECT_NE(patched.error.find("its time disagrees with scatterctl's clock: the worker says 100 ns (median), scatterctl "
                               "saw 5.10 ms less the signals' round trip of 100.0 us: a median gap of 5.00 ms"),
            std::string::npos)
      << patched.error;
  // Lying on a minority of samples passes both rules, and gains nothing: the median is an honest one.
  auto minority = clocked({5e-3, 5e-3, 5e-3, 1e-5, 1e-5},
                          {{5.12e-3, 1e-4}, {5.12e-3, 1e-4}, {5.12e-3, 1e-4}, {5.12e-3, 1e-4}, {5.12e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(minority);
  EXPECT_EQ(minority.status, Status::passed) << minority.error;
  EXPECT_DOUBLE_EQ(scatter::median_of(minority.timing.samples), 5e-3);
  // A clock that runs slow shaves less than the slack: within what the signals' noise allows.
  auto slight = clocked({4.9e-3}, {{5.1e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(slight);
  EXPECT_EQ(slight.status, Status::passed) << slight.error;
  // Longer than scatterctl saw: not scatterctl's clock.
  auto longer = clocked({9e-3}, {{5e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(longer);
  EXPECT_EQ(longer.status, Status::failed);
  EXPECT_NE(longer.error.find("which brackets it"), std::string::npos) << longer.error;
  // Honest on its closest sample, lying on most: the median gives it away.
  auto most = clocked({5e-3, 1e-5, 1e-5, 1e-5, 5e-3},
                      {{5.1e-3, 1e-4}, {5.1e-3, 1e-4}, {5.1e-3, 1e-4}, {5.1e-3, 1e-4}, {5.1e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(most);
  EXPECT_EQ(most.status, Status::failed);
  EXPECT_NE(most.error.find("a median gap of"), std::string::npos) << most.error;
  // Late by 2 ms on two samples of five (a slow wake-up): the median is honest.
  auto late = clocked({5e-3, 5e-3, 5e-3, 5e-3, 5e-3},
                      {{5.12e-3, 1e-4}, {7.1e-3, 1e-4}, {5.12e-3, 1e-4}, {7.1e-3, 1e-4}, {5.12e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(late);
  EXPECT_EQ(late.status, Status::passed) << late.error;
  // Samples without scatterctl's clock, in a row that has it for others.
  auto missing = clocked({5e-3, 5e-3}, {{5.1e-3, 1e-4}});
  scatter::refuse_unwitnessed_time(missing);
  EXPECT_EQ(missing.status, Status::failed);
}

TEST(TheClock, UnderCpuPressureAWideMedianGapIsUndecidedNotAPass) {
  // Late by 2 ms on three samples of five, as on a machine whose CPUs are all taken: the closest
  // sample agrees. Under pressure no verdict on the timer: its number stands, undecided, and the
  // row neither fails nor errs (bench exits 0).
  const std::vector<OuterClock> late_most = {
      {5.12e-3, 1e-4}, {7.1e-3, 1e-4}, {7.1e-3, 1e-4}, {7.1e-3, 1e-4}, {5.12e-3, 1e-4}};
  auto pressed = clocked({5e-3, 5e-3, 5e-3, 5e-3, 5e-3}, late_most);
  pressed.cpu_pressure = 0.5;
  scatter::refuse_unwitnessed_time(pressed);
  EXPECT_EQ(pressed.status, Status::passed);
  EXPECT_EQ(pressed.verdict, scatter::TimeVerdict::noisy);
  EXPECT_EQ(pressed.timing.samples.size(), 5u) << "the number stands";
  EXPECT_NE(pressed.verdict_reason.find("a median gap of"), std::string::npos) << pressed.verdict_reason;
  EXPECT_NE(pressed.verdict_reason.find("waited for a CPU in 50% of its sampling"), std::string::npos);
  EXPECT_NE(pressed.verdict_reason.find("rerun it on a quiet machine"), std::string::npos);
  // Every sample late, at 97% pressure (a shared machine): the closest one too, and still undecided.
  auto crowded = clocked({1.5e-3, 1.5e-3, 1.5e-3, 1.5e-3, 1.5e-3},
                         {{4e-3, 4e-5}, {4e-3, 4e-5}, {4.1e-3, 4e-5}, {4e-3, 4e-5}, {4.2e-3, 4e-5}});
  crowded.cpu_pressure = 0.97;
  scatter::refuse_unwitnessed_time(crowded);
  EXPECT_EQ(crowded.status, Status::passed) << crowded.error;
  EXPECT_EQ(crowded.verdict, scatter::TimeVerdict::noisy);
  // The same gaps on a quiet machine: nothing explains them but the timer.
  auto quiet = clocked({5e-3, 5e-3, 5e-3, 5e-3, 5e-3}, late_most);
  quiet.cpu_pressure = 0.0005;
  scatter::refuse_unwitnessed_time(quiet);
  EXPECT_EQ(quiet.status, Status::failed);
  // Under pressure, a timer whose closest sample of fifteen is off by the lie still fails: that
  // every one of them was delayed by a neighbour taking half the time is too rare (0.5^15).
  auto patched = clocked(std::vector<double>(15, 1e-7), std::vector<OuterClock>(15, {5.1e-3, 1e-4}));
  patched.cpu_pressure = 0.5;
  scatter::refuse_unwitnessed_time(patched);
  EXPECT_EQ(patched.status, Status::failed) << patched.error;
}

}  // namespace

// One backend answer, one status: `run`, `bench` and `fuzz` drive the same trial, so an
// answer of each kind (right, wrong, refused, rejected, crashed, raised, unavailable,
// undeclared, covered by an entry, expected to fail) gets the same status in all three.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "scatter/bench.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/run.hpp"
#include "scatter/trial.hpp"
#include "test_util.hpp"

namespace {

using scatter::Status;

enum class Answer { right, wrong, unsupported, rejected, crashed, raised, foreign, unavailable, undeclared };

// A backend that answers every case the same way. Its wrong output has the wrong shape, so
// every comparison rule catches it whatever the case.
class Scripted final : public scatter::Backend {
 public:
  Scripted(Answer answer, scatter::BackendRole role) : answer_(answer), role_(role) {
    caps_ = scatter::Capabilities::everything();
    if (answer == Answer::undeclared) caps_.ops = {};  // declares no op at all
  }
  std::string_view name() const override { return "scripted"; }
  scatter::Availability availability() const override {
    return {answer_ != Answer::unavailable, answer_ == Answer::unavailable ? "lost its device" : ""};
  }
  std::string device() const override { return "CPU (test)"; }
  scatter::BackendTraits traits() const override { return {role_, scatter::MemoryKind::host, 1}; }
  const scatter::Capabilities* capabilities() const override { return &caps_; }
  scatter::BackendOutput run(const scatter::Case& c, const scatter::RunFlags& flags) override {
    switch (answer_) {
      case Answer::right:  // of the inputs it is given: bench varies them call by call
        return {scatter::testing::right_output(c, flags), 1e-6};
      case Answer::wrong:
        return {scatter::Tensor(c.data.dtype(), {c.data.numel() + 1}), 1e-6};
      case Answer::unsupported:
        throw scatter::Unsupported("not this one");
      case Answer::rejected:
        throw scatter::Rejected("index", "out of range, it says");
      case Answer::crashed:
        throw scatter::Crashed("the worker died (signal 11)");
      case Answer::raised:
        throw scatter::Error(scatter::ErrorCode::backend, "", "it raised");
      case Answer::foreign:
        throw std::runtime_error("a foreign exception");
      default:
        throw std::logic_error("not reached: admit() keeps these out");
    }
  }

 private:
  Answer answer_;
  scatter::BackendRole role_;
  scatter::Capabilities caps_;
};

const char* kTrialCase = R"({"name": "fuzz-7-0", "op": "scatter_nd", "inputs": {
    "data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
    "indices": {"dtype": "int64", "shape": [1, 1], "values": [[2]]},
    "updates": {"dtype": "float32", "shape": [1], "values": [9]}}})";

Status status_in_run(scatter::Backend& backend, const scatter::Expectations* expectations) {
  struct Capture final : scatter::Reporter {
    std::vector<scatter::CaseResult> results;
    void on_file_error(const scatter::Error&) override {}
    void on_result(const scatter::CaseResult& r) override { results.push_back(r); }
    void on_end(const scatter::RunSummary&) override {}
  } capture;
  const auto loaded = scatter::load_text(kTrialCase, "trial.json", scatter::testing::load_options(1ULL << 30));
  scatter::RunOptions options;
  options.expectations = expectations;
  scatter::BackendChoice choice;
  choice.run = {&backend};
  scatter::run_cases(loaded, options, choice, capture);
  EXPECT_EQ(capture.results.size(), 1u);
  return capture.results.empty() ? Status::passed : capture.results.front().status;
}

Status status_in_bench(scatter::Backend& backend, const scatter::Expectations* expectations) {
  scatter::BenchItem item;
  item.name = "fuzz-7-0";
  item.decl = *scatter::testing::load_one(kTrialCase).decl;
  scatter::BenchOptions options;
  options.max_seconds = 0.0;
  options.min_samples = 1;
  options.expectations = expectations;
  const auto report = scatter::run_bench({item}, {&backend}, options, nullptr);
  EXPECT_EQ(report.rows.size(), 1u);
  return report.rows.empty() ? Status::passed : report.rows.front().status;
}

// The fuzzer makes its own cases; each of its counters is one status.
Status status_in_fuzz(scatter::Backend& backend, const scatter::Expectations* expectations) {
  scatter::FuzzOptions options;
  options.iterations = 1;
  options.out_dir = ::testing::TempDir() + "/trial-fuzz";
  options.expectations = expectations;
  const auto s = scatter::run_fuzz(options, {&backend}, [](const std::string&) {});
  if (s.skipped == 1) return Status::skipped;
  if (s.xfailed == 1) return Status::xfail;
  if (s.xpassed == 1) return Status::xpass;
  if (s.failed == 1) return Status::error;  // the tally counts both as failures; see below
  return Status::passed;
}

struct Expected {
  Answer answer;
  Status status;
};

class OneStatus : public ::testing::TestWithParam<Expected> {};

TEST_P(OneStatus, TheSameInRunBenchAndFuzz) {
  const auto [answer, want] = GetParam();
  Scripted backend(answer, scatter::BackendRole::external);
  EXPECT_EQ(status_in_run(backend, nullptr), want);
  EXPECT_EQ(status_in_bench(backend, nullptr), want);
  // fuzz has one counter for wrong outputs and errors: both are failures there.
  const auto fuzz_want = want == Status::failed ? Status::error : want;
  EXPECT_EQ(status_in_fuzz(backend, nullptr), fuzz_want);
}

INSTANTIATE_TEST_SUITE_P(
    EveryAnswer, OneStatus,
    ::testing::Values(Expected{Answer::right, Status::passed}, Expected{Answer::wrong, Status::failed},
                      Expected{Answer::unsupported, Status::skipped}, Expected{Answer::rejected, Status::error},
                      Expected{Answer::crashed, Status::error}, Expected{Answer::raised, Status::error},
                      Expected{Answer::foreign, Status::error}, Expected{Answer::unavailable, Status::skipped},
                      Expected{Answer::undeclared, Status::skipped}));

scatter::Expectations entry_for(scatter::Outcome outcome) {
  scatter::Expectation e;
  e.id = "scripted-known";
  e.backend = "scripted";
  e.cases = {"fuzz-*"};
  e.outcomes = {outcome};
  e.reason = "a test entry";
  e.citation = {"tests/test_trial.cpp"};
  return scatter::Expectations{{e}};
}

TEST(OneStatus, ARecordedDivergenceIsXfailInAllThree) {
  for (const auto& [answer, outcome] : {std::pair{Answer::wrong, scatter::Outcome::failed},
                                        std::pair{Answer::crashed, scatter::Outcome::error},
                                        std::pair{Answer::rejected, scatter::Outcome::rejected}}) {
    const auto expectations = entry_for(outcome);
    Scripted backend(answer, scatter::BackendRole::external);
    EXPECT_EQ(status_in_run(backend, &expectations), Status::xfail);
    EXPECT_EQ(status_in_bench(backend, &expectations), Status::xfail);
    EXPECT_EQ(status_in_fuzz(backend, &expectations), Status::xfail);
  }
}

TEST(OneStatus, APassOfAnExpectedFailureIsXpassInAllThree) {
  const auto expectations = entry_for(scatter::Outcome::failed);
  Scripted backend(Answer::right, scatter::BackendRole::external);
  EXPECT_EQ(status_in_run(backend, &expectations), Status::xpass);
  EXPECT_EQ(status_in_bench(backend, &expectations), Status::xpass);
  EXPECT_EQ(status_in_fuzz(backend, &expectations), Status::xpass);
}

TEST(Trial, TheOracleWithoutExpectedIsNotChecked) {
  const auto c = scatter::testing::load_case(kTrialCase);
  const scatter::CaseFacts facts(c);
  Scripted oracle(Answer::wrong, scatter::BackendRole::oracle);
  scatter::TrialOptions options;
  auto t = scatter::try_case(oracle, facts, options);
  EXPECT_EQ(t.status, Status::passed);
  EXPECT_FALSE(t.checked);
  options.oracle_alone = true;
  EXPECT_EQ(scatter::try_case(oracle, facts, options).status, Status::skipped);
  // A built-in backend is checked against the reference.
  Scripted builtin(Answer::wrong, scatter::BackendRole::builtin);
  t = scatter::try_case(builtin, facts, options);
  EXPECT_EQ(t.status, Status::failed);
  EXPECT_TRUE(t.checked);
}

TEST(Trial, AnInvalidCaseMustBeRefused) {
  const auto entry = scatter::testing::load_one(R"({"name": "oob", "expect_error": "index", "op": "scatter_nd",
    "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
    "indices": {"dtype": "int64", "shape": [1, 1], "values": [[9]]},
    "updates": {"dtype": "float32", "shape": [1], "values": [9]}}})");
  const auto c = scatter::materialize_unchecked(*entry.decl);
  const scatter::CaseFacts facts(c);
  const scatter::TrialOptions options;
  Scripted refuses(Answer::rejected, scatter::BackendRole::external);
  EXPECT_EQ(scatter::try_invalid_case(refuses, facts, scatter::ErrorCode::index, options).status, Status::passed);
  Scripted accepts(Answer::wrong, scatter::BackendRole::external);
  EXPECT_EQ(scatter::try_invalid_case(accepts, facts, scatter::ErrorCode::index, options).status, Status::failed);
  Scripted crashes(Answer::crashed, scatter::BackendRole::external);
  const auto t = scatter::try_invalid_case(crashes, facts, scatter::ErrorCode::index, options);
  EXPECT_EQ(t.status, Status::error);
  EXPECT_NE(t.detail.find("memory-safety finding"), std::string::npos) << t.detail;
}

}  // namespace

// A backend lost in the middle of a run (a sticky device fault): the faulting case is
// an error naming the kernel, and every later case is skipped with that reason, in
// run, fuzz and bench, instead of failing once per case. The cuda backend does this
// on a GPU (cuda_backend.cpp); here a fake backend faults on its second case.

#include <gtest/gtest.h>

#include "scatter/backend.hpp"
#include "scatter/bench.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "scatter/run.hpp"
#include "test_util.hpp"

namespace {

using scatter::Availability;
using scatter::BackendOutput;
using scatter::Case;
using scatter::RunFlags;
using namespace scatter::testing;

constexpr const char* kFault = "device fault in k_fake (cudaErrorIllegalAddress: an illegal memory access was encountered)";

// The reference's answers until its `fault_at`-th run, or its first run of the case
// named `fault_case`, which faults and loses it.
class FaultingBackend final : public scatter::Backend {
 public:
  explicit FaultingBackend(int fault_at) : fault_at_(fault_at) {}
  explicit FaultingBackend(std::string fault_case) : fault_case_(std::move(fault_case)) {}
  std::string_view name() const override { return "faulty"; }
  Availability availability() const override { return {!lost_, lost_ ? kFault : ""}; }
  std::string device() const override { return "a fake device"; }
  BackendOutput run(const Case& c, const RunFlags&) override {
    ++runs;
    if (lost_) throw scatter::Error(scatter::ErrorCode::backend, "", std::string("unavailable: ") + kFault);
    if (runs == fault_at_ || c.name == fault_case_) {
      lost_ = true;
      throw scatter::Error(scatter::ErrorCode::backend, "", std::string(kFault) + "; unavailable for the rest of the run");
    }
    return {scatter::reference_scatter(c), 1e-6};
  }
  int runs = 0;

 private:
  int fault_at_ = 0;
  std::string fault_case_;
  bool lost_ = false;
};

class Collect final : public scatter::Reporter {
 public:
  void on_file_error(const scatter::Error&) override {}
  void on_result(const scatter::CaseResult& r) override { results.push_back(r); }
  void on_end(const scatter::RunSummary&) override {}
  std::vector<scatter::CaseResult> results;
};

std::string numbered_case(int i) {
  return renamed(make_case(R"("op": "scatter_elements")", tensor("int32", "[3]", "[1, 2, 3]"),
                           tensor("int64", "[1]", "[1]"), tensor("int32", "[1]", "[9]")),
                 "c" + std::to_string(i));
}

TEST(DeviceFault, RunSkipsEveryCaseAfterTheFaultWithItsReason) {
  std::string text = R"({"cases": [)";
  for (int i = 0; i < 5; ++i) text += (i ? ", " : "") + numbered_case(i);
  text += "]}";
  const auto loaded = scatter::load_text(text, "mem.json", load_options(1 << 20));
  FaultingBackend faulty(2);
  scatter::BackendChoice choice;
  choice.run = {&faulty};
  Collect collect;
  const auto summary = scatter::run_cases(loaded, scatter::Selection{}, choice, collect);

  ASSERT_EQ(collect.results.size(), 5u);
  EXPECT_EQ(collect.results[0].status, scatter::Status::passed);
  EXPECT_EQ(collect.results[1].status, scatter::Status::error);
  EXPECT_NE(collect.results[1].detail.find("device fault in k_fake"), std::string::npos) << collect.results[1].detail;
  for (int i = 2; i < 5; ++i) {
    EXPECT_EQ(collect.results[i].status, scatter::Status::skipped) << i;
    EXPECT_EQ(collect.results[i].detail, std::string("unavailable: ") + kFault) << i;
  }
  EXPECT_EQ(faulty.runs, 2) << "no case is run on a lost backend";
  EXPECT_NE(summary.exit_code, 0);
}

TEST(DeviceFault, FuzzWritesOneFailureAndSaysTheBackendIsLost) {
  FaultingBackend faulty(3);
  scatter::FuzzOptions options;
  options.iterations = 40;
  options.seed = 7;
  options.out_dir = ::testing::TempDir() + "/device-fault-fuzz";
  std::vector<std::string> lines;
  const auto summary = scatter::run_fuzz(options, {&faulty}, [&](const std::string& line) { lines.push_back(line); });

  EXPECT_EQ(summary.failed, 1) << "the faulting case only";
  EXPECT_EQ(summary.written.size(), 1u);
  ASSERT_EQ(summary.lost.count("faulty"), 1u);
  EXPECT_EQ(summary.lost.at("faulty"), kFault);
  EXPECT_EQ(faulty.runs, 3);
  int said = 0;
  for (const auto& line : lines) said += line.rfind("faulty is unavailable for the rest of the run", 0) == 0;
  EXPECT_EQ(said, 1) << "said once, not once per case";
}

TEST(DeviceFault, BenchSkipsTheRowsAfterTheFault) {
  FaultingBackend faulty(std::string("c1"));
  std::vector<scatter::BenchItem> items;
  for (int i = 0; i < 3; ++i) {
    const auto entry = load_one(numbered_case(i));
    ASSERT_TRUE(entry.decl);
    items.push_back(scatter::BenchItem{"item" + std::to_string(i), "g", *entry.decl, false, false});
  }
  scatter::BenchOptions options;
  options.max_seconds = 0.01;
  options.verify = false;
  const auto report = scatter::run_bench(items, {&faulty}, options, nullptr);
  ASSERT_EQ(report.rows.size(), 3u);
  EXPECT_TRUE(report.rows[0].error.empty()) << report.rows[0].error;
  EXPECT_NE(report.rows[1].error.find("device fault in k_fake"), std::string::npos) << report.rows[1].error;
  EXPECT_TRUE(report.rows[2].skipped());
  EXPECT_EQ(report.rows[2].error, std::string("unavailable: ") + kFault);
}

}  // namespace

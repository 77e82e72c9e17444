// Running cases: selection (--filter globs, tags, `large`, shards), backend choice,
// and run_cases() end to end on in-memory cases with a capturing reporter: statuses,
// expect_error judged by its code, and the CLI spec's exit codes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/load.hpp"
#include "scatter/run.hpp"
#include "test_util.hpp"

namespace {

using scatter::CaseEntry;
using scatter::Selection;
using scatter::Status;

CaseEntry entry(const std::string& name, std::vector<std::string> tags = {}) {
  CaseEntry e;
  e.file = "mem.json";
  e.name = name;
  e.tags = std::move(tags);
  return e;
}

Selection filters(std::vector<std::string> globs) {
  Selection s;
  s.filters = std::move(globs);
  return s;
}

// ---- is_selected

TEST(RunSelection, EmptySelectionTakesEverything) {
  EXPECT_TRUE(scatter::is_selected(entry("se_add_float32"), Selection{}));
  EXPECT_TRUE(scatter::is_selected(entry("x", {"slow"}), Selection{}));
}

TEST(RunSelection, FilterGlobs) {
  const auto e = entry("se_add_float32");
  EXPECT_TRUE(scatter::is_selected(e, filters({"se_*"})));
  EXPECT_TRUE(scatter::is_selected(e, filters({"se_add_float3?"})));
  EXPECT_TRUE(scatter::is_selected(e, filters({"[sn]e_*"})));
  EXPECT_TRUE(scatter::is_selected(e, filters({"se_add_float32"})));
  EXPECT_FALSE(scatter::is_selected(e, filters({"nd_*"})));
  EXPECT_FALSE(scatter::is_selected(e, filters({"se_add"})));  // a glob matches the whole name
}

TEST(RunSelection, SeveralPatternsIncludeAnyMatch) {
  const auto e = entry("se_add_float32");
  EXPECT_TRUE(scatter::is_selected(e, filters({"nd_*", "se_*"})));
  EXPECT_TRUE(scatter::is_selected(e, filters({"se_*", "nd_*"})));
  EXPECT_FALSE(scatter::is_selected(e, filters({"nd_*", "su_*"})));
}

TEST(RunSelection, DashExcludes) {
  const auto e = entry("se_add_float32");
  EXPECT_FALSE(scatter::is_selected(e, filters({"-se_*"})));
  EXPECT_TRUE(scatter::is_selected(e, filters({"-*int*"})));  // only exclusions: the rest stays in
  EXPECT_FALSE(scatter::is_selected(e, filters({"se_*", "-*float32"})));
  EXPECT_FALSE(scatter::is_selected(e, filters({"-*float32", "se_*"})));  // order does not matter
  EXPECT_TRUE(scatter::is_selected(entry("se_add_int8"), filters({"se_*", "-*float32"})));
}

TEST(RunSelection, Tags) {
  const auto e = entry("c", {"fast", "add"});
  Selection s;
  s.tags = {"add"};
  EXPECT_TRUE(scatter::is_selected(e, s));
  s.tags = {"slow"};
  EXPECT_FALSE(scatter::is_selected(e, s));
  s.tags = {"slow", "fast"};  // any of them
  EXPECT_TRUE(scatter::is_selected(e, s));
  EXPECT_FALSE(scatter::is_selected(entry("untagged"), s));
}

TEST(RunSelection, TagsAndFiltersBothApply) {
  Selection s;
  s.tags = {"add"};
  s.filters = {"nd_*"};
  EXPECT_FALSE(scatter::is_selected(entry("se_x", {"add"}), s));
  EXPECT_TRUE(scatter::is_selected(entry("nd_x", {"add"}), s));
}

TEST(RunSelection, LargeOnlyWhenAskedFor) {
  const auto big = entry("big_case", {"large", "nd"});
  EXPECT_FALSE(scatter::is_selected(big, Selection{}));
  EXPECT_FALSE(scatter::is_selected(big, filters({"big_*"})));  // a matching filter is not asking
  Selection nd;
  nd.tags = {"nd"};
  EXPECT_FALSE(scatter::is_selected(big, nd));
  Selection include;
  include.include_large = true;
  EXPECT_TRUE(scatter::is_selected(big, include));
  Selection by_tag;
  by_tag.tags = {"large"};
  EXPECT_TRUE(scatter::is_selected(big, by_tag));
}

TEST(RunSelection, EntryWithoutANameIsAlwaysIn) {
  // An unreadable case must still be reported, whatever the filter.
  EXPECT_TRUE(scatter::is_selected(entry(""), filters({"nomatch"})));
}

// ---- shards

TEST(RunShard, ParsesIOverN) {
  Selection s;
  scatter::parse_shard("2/3", s);
  EXPECT_EQ(s.shard_index, 2);
  EXPECT_EQ(s.shard_count, 3);
  scatter::parse_shard("1/1", s);
  EXPECT_EQ(s.shard_index, 1);
  EXPECT_EQ(s.shard_count, 1);
}

TEST(RunShard, BadShardsAreSchemaErrorsNamingTheFlag) {
  // 1/4294967297: past an int, which sscanf's %d wrapped to 1/1 (a shard of everything).
  for (const std::string text : {"0/3", "4/3", "3", "a/b", "1/0", "1/3x", "", "-1/3", "2/3/4", "/3", "1/4294967297"}) {
    SCOPED_TRACE(text);
    Selection s;
    try {
      scatter::parse_shard(text, s);
      ADD_FAILURE() << "accepted";
    } catch (const scatter::Error& e) {
      EXPECT_EQ(e.code(), scatter::ErrorCode::schema);
      EXPECT_EQ(e.message(), "--shard = '" + text + "' must be I/N with 1 <= I <= N, or auto");
    }
    EXPECT_EQ(s.shard_count, 1);  // unchanged
  }
}

// --shard auto: the parallel-job variables of GitLab (1-based), Buildkite and CircleCI
// (0-based), and Kubernetes' JOB_COMPLETION_INDEX with the count given as auto/N; with none
// set it is an error, never the whole suite.
TEST(RunShard, AutoReadsTheCiParallelJobVariables) {
  const char* all[] = {"CI_NODE_INDEX", "CI_NODE_TOTAL", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT",
                       "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "JOB_COMPLETION_INDEX"};
  auto clear = [&] {
    for (const char* name : all) ::unsetenv(name);
  };
  auto shard_of = [](const std::string& text) {
    Selection s;
    scatter::parse_shard(text, s);
    return std::pair{s.shard_index, s.shard_count};
  };
  auto error_of = [](const std::string& text) {
    Selection s;
    try {
      scatter::parse_shard(text, s);
    } catch (const scatter::Error& e) {
      return e.message();
    }
    return std::string("accepted");
  };
  clear();
  EXPECT_EQ(error_of("auto"),
            "--shard = 'auto' but none of $CI_NODE_INDEX, $BUILDKITE_PARALLEL_JOB, $CIRCLE_NODE_INDEX, "
            "$JOB_COMPLETION_INDEX is set; give --shard I/N");
  ::setenv("CI_NODE_INDEX", "2", 1);
  ::setenv("CI_NODE_TOTAL", "4", 1);
  EXPECT_EQ(shard_of("auto"), (std::pair{2, 4}));
  EXPECT_EQ(error_of("auto/3"), "--shard = 'auto/3' but $CI_NODE_TOTAL = 4");
  clear();
  ::setenv("BUILDKITE_PARALLEL_JOB", "0", 1);
  ::setenv("BUILDKITE_PARALLEL_JOB_COUNT", "3", 1);
  EXPECT_EQ(shard_of("auto"), (std::pair{1, 3}));
  clear();
  ::setenv("CIRCLE_NODE_INDEX", "3", 1);
  ::setenv("CIRCLE_NODE_TOTAL", "3", 1);
  EXPECT_EQ(error_of("auto"), "--shard = 'auto': $CIRCLE_NODE_INDEX = 3 is not a job of 3 (the first is 0)");
  clear();
  ::setenv("JOB_COMPLETION_INDEX", "3", 1);
  EXPECT_EQ(shard_of("auto/4"), (std::pair{4, 4}));
  EXPECT_EQ(error_of("auto"), "--shard = 'auto': $JOB_COMPLETION_INDEX = 3 gives no count of jobs; say it, --shard auto/N");
  ::setenv("JOB_COMPLETION_INDEX", "x", 1);
  EXPECT_EQ(error_of("auto/4"), "--shard = 'auto' but $JOB_COMPLETION_INDEX = 'x' is not an integer");
  EXPECT_EQ(error_of("auto/0"), "--shard = 'auto/0' must be I/N, auto or auto/N");
  clear();
}

// What `merge` checks parts by: every part of one split records the same whole selection,
// whatever order the files were listed in; another case set or option records another.
TEST(RunShard, EveryPartRecordsTheWholeSelection) {
  scatter::LoadResult forward, backward;
  for (const char* name : {"a", "b", "c", "d"}) forward.cases.push_back(entry(name));
  backward.cases.assign(forward.cases.rbegin(), forward.cases.rend());
  const scatter::BackendChoice none;
  scatter::RunOptions part1, part2;
  scatter::parse_shard("1/2", part1.selection);
  scatter::parse_shard("2/2", part2.selection);
  const auto r1 = scatter::record_selection(forward, part1, none);
  const auto r2 = scatter::record_selection(backward, part2, none);
  EXPECT_EQ(r1.whole, 4);
  EXPECT_EQ(r1.fingerprint, r2.fingerprint);
  EXPECT_EQ(r1.options, r2.options);
  EXPECT_EQ(std::pair(r1.shard_index, r1.shard_count), std::pair(1, 2));
  EXPECT_EQ(std::pair(r2.shard_index, r2.shard_count), std::pair(2, 2));

  auto renamed = forward;
  renamed.cases.back() = entry("e");
  EXPECT_NE(scatter::record_selection(renamed, part1, none).fingerprint, r1.fingerprint);
  auto filtered = part1;
  filtered.selection.filters = {"-d"};
  const auto rf = scatter::record_selection(forward, filtered, none);
  EXPECT_EQ(rf.whole, 3);
  EXPECT_NE(rf.fingerprint, r1.fingerprint);
  EXPECT_NE(rf.options, r1.options);
  auto in_place = part1;
  in_place.flags.in_place = true;
  EXPECT_NE(scatter::record_selection(forward, in_place, none).options, r1.options);
}

TEST(RunShard, ThreeShardsOfFiftyAreDisjointAndCoverAll) {
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "case_%02d", i);
    names.push_back(name);
  }
  std::vector<int> owners(names.size(), 0);
  std::vector<int> sizes(3, 0);
  for (int shard = 1; shard <= 3; ++shard) {
    Selection s;
    scatter::parse_shard(std::to_string(shard) + "/3", s);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (scatter::is_selected(entry(names[i]), s)) {
        ++owners[i];
        ++sizes[shard - 1];
      }
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(owners[i], 1) << names[i];
  EXPECT_EQ(sizes[0] + sizes[1] + sizes[2], 50);
  // A shard depends on the name only: the same name lands in the same shard again.
  Selection s;
  scatter::parse_shard("2/3", s);
  for (const auto& name : names) {
    EXPECT_EQ(scatter::is_selected(entry(name), s), scatter::is_selected(entry(name, {"x"}), s)) << name;
  }
}

TEST(RunShard, OneOfOneSelectsEverything) {
  Selection s;
  scatter::parse_shard("1/1", s);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(scatter::is_selected(entry("n" + std::to_string(i)), s));
}

// ---- choose_backends

class RunBackends : public ::testing::Test {
 protected:
  void SetUp() override {
    all_ = scatter::make_all_backends();
    // The built-ins, then one per framework (started only when asked for).
    ASSERT_EQ(all_.size(), 3u + scatter::framework_backend_names().size());
    ASSERT_EQ(all_[0]->name(), "ref");
    ASSERT_EQ(all_[1]->name(), "cpu");
    ASSERT_EQ(all_[2]->name(), "cuda");
    const auto cuda = all_[2]->availability();
    if (cuda.available) GTEST_SKIP() << "cuda is available in this build; these tests cover a build without it";
    cuda_reason_ = cuda.reason;
  }
  std::vector<std::unique_ptr<scatter::Backend>> all_;
  std::string cuda_reason_;
};

TEST_F(RunBackends, AllRunsRefAndCpuAndSkipsCudaWithTheReason) {
  EXPECT_FALSE(cuda_reason_.empty());
  const auto choice = scatter::choose_backends("all", all_);
  ASSERT_EQ(choice.run.size(), 2u);
  EXPECT_EQ(choice.run[0]->name(), "ref");
  EXPECT_EQ(choice.run[1]->name(), "cpu");
  ASSERT_EQ(choice.skipped.size(), 1u);
  EXPECT_EQ(choice.skipped[0].first->name(), "cuda");
  EXPECT_EQ(choice.skipped[0].second, "unavailable: " + cuda_reason_);
  EXPECT_TRUE(choice.unavailable_named.empty());
}

TEST_F(RunBackends, EmptyListMeansAll) {
  const auto choice = scatter::choose_backends("", all_);
  ASSERT_EQ(choice.run.size(), 2u);
  EXPECT_EQ(choice.skipped.size(), 1u);
}

TEST_F(RunBackends, NamingCudaIsUnavailableNamed) {
  const auto choice = scatter::choose_backends("cuda", all_);
  EXPECT_TRUE(choice.run.empty());
  ASSERT_EQ(choice.unavailable_named.size(), 1u);
  EXPECT_EQ(choice.unavailable_named[0].first, "cuda");
  EXPECT_EQ(choice.unavailable_named[0].second, cuda_reason_);
  const auto both = scatter::choose_backends("ref,cuda", all_);
  ASSERT_EQ(both.run.size(), 1u);
  EXPECT_EQ(both.run[0]->name(), "ref");
  EXPECT_EQ(both.unavailable_named.size(), 1u);
}

TEST_F(RunBackends, RefByNameOnceEvenIfRepeated) {
  const auto choice = scatter::choose_backends("ref,ref", all_);
  ASSERT_EQ(choice.run.size(), 1u);
  EXPECT_EQ(choice.run[0]->name(), "ref");
  EXPECT_TRUE(choice.skipped.empty());
  EXPECT_TRUE(choice.unavailable_named.empty());
}

TEST_F(RunBackends, UnknownNameThrows) {
  try {
    scatter::choose_backends("ref,rocm", all_);
    ADD_FAILURE() << "accepted";
  } catch (const scatter::Error& e) {
    EXPECT_EQ(e.code(), scatter::ErrorCode::schema);
    EXPECT_EQ(e.message(),
              "--backend: 'rocm' is not a backend (all, frameworks, ref, cpu, cuda, numpy, onnx, onnxruntime, openvino, tvm, "
              "torch, jax, plugin:PATH, python:FILE.py[:FUNC])");
  }
}

// Frameworks whose worker cannot start are left out of "frameworks", each named once
// with the reason, never a row per case; "all" never starts a worker.
TEST(RunBackendsFrameworks, UnstartableWorkersAreNotRunningWithTheReason) {
  scatter::BackendConfig config;
  config.python = "/nonexistent/python";
  const auto all = scatter::make_all_backends(config);
  const auto builtins = scatter::choose_backends("all", all);
  for (const auto* b : builtins.run) {
    EXPECT_TRUE(b->name() == "ref" || b->name() == "cpu" || b->name() == "cuda") << b->name();
  }
  const auto choice = scatter::choose_backends("frameworks", all);
  EXPECT_TRUE(choice.run.empty());
  EXPECT_TRUE(choice.skipped.empty());
  ASSERT_EQ(choice.not_running.size(), scatter::framework_backend_names().size());
  EXPECT_EQ(choice.not_running[0].first, "numpy");
  EXPECT_NE(choice.not_running[0].second.find("/nonexistent/python"), std::string::npos) << choice.not_running[0].second;
  const auto named = scatter::choose_backends("numpy", all);
  ASSERT_EQ(named.unavailable_named.size(), 1u);
  EXPECT_EQ(named.unavailable_named[0].first, "numpy");
}

TEST(RunBackendsFrameworks, PluginPathsComeFromTheList) {
  EXPECT_EQ(scatter::user_backend_specs("ref,plugin:./a.so,python:k.py:f,plugin:/x/b.so"),
            (std::vector<std::string>{"plugin:./a.so", "python:k.py:f", "plugin:/x/b.so"}));
  EXPECT_TRUE(scatter::user_backend_specs("all").empty());
}

// ---- run_cases

class Capture final : public scatter::Reporter {
 public:
  void on_file_error(const scatter::Error& error) override { file_errors.push_back(error); }
  void on_result(const scatter::CaseResult& result) override { results.push_back(result); }
  void on_end(const scatter::RunSummary& summary) override {
    last = summary;
    ++ends;
  }
  const scatter::CaseResult* find(const std::string& name, const std::string& backend = "") const {
    for (const auto& r : results) {
      if (r.name == name && (backend.empty() || r.backend == backend)) return &r;
    }
    return nullptr;
  }
  std::vector<scatter::Error> file_errors;
  std::vector<scatter::CaseResult> results;
  scatter::RunSummary last;
  int ends = 0;
};

// One case in a {"cases": [...]} list: scatter_elements none on data [1, 2, 3].
std::string one_case(const std::string& name, const std::string& index, const std::string& tail) {
  return R"({"name": ")" + name +
         R"(", "op": "scatter_elements", "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]}, )"
         R"("indices": {"dtype": "int64", "shape": [1], "values": [)" +
         index + R"(]}, "updates": {"dtype": "int32", "shape": [1], "values": [9]}})" + tail + "}";
}

const std::string kGood = one_case("good", "1", R"(, "expected": {"dtype": "int32", "shape": [3], "values": [1, 9, 3]})");
const std::string kWrongExpected =
    one_case("wrong_expected", "1", R"(, "expected": {"dtype": "int32", "shape": [3], "values": [1, 2, 9]})");
const std::string kNoExpected = one_case("no_expected", "2", "");
const std::string kErrorAsExpected = one_case("error_as_expected", "3", R"(, "expect_error": "index")");
const std::string kErrorOtherCode = one_case("error_other_code", "3", R"(, "expect_error": "shape")");
const std::string kErrorButValid = one_case("error_but_valid", "0", R"(, "expect_error": "index")");
const std::string kInvalid = one_case("invalid", "3", "");
const std::string kInvalidAtLoad = one_case("invalid_at_load", "0", R"(, "axis": 4)");

scatter::LoadResult load(const std::vector<std::string>& cases) {
  std::string text = R"({"cases": [)";
  for (std::size_t i = 0; i < cases.size(); ++i) text += (i ? ", " : "") + cases[i];
  text += "]}";
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  return scatter::load_text(text, "mem.json", options);
}

class RunCases : public ::testing::Test {
 protected:
  void SetUp() override {
    all_ = scatter::make_all_backends();
    ref_only_ = scatter::choose_backends("ref", all_);
  }
  scatter::RunSummary run(const std::vector<std::string>& cases, const Selection& selection = {}) {
    const auto loaded = load(cases);
    EXPECT_TRUE(loaded.file_errors.empty());
    const auto summary = scatter::run_cases(loaded, selection, ref_only_, capture_);
    EXPECT_EQ(capture_.ends, 1);
    EXPECT_EQ(capture_.last.exit_code, summary.exit_code);
    return summary;
  }
  std::vector<std::unique_ptr<scatter::Backend>> all_;
  scatter::BackendChoice ref_only_;
  Capture capture_;
};

TEST_F(RunCases, PassingCasesExitZero) {
  const auto s = run({kGood, kNoExpected, kErrorAsExpected});
  EXPECT_EQ(s.exit_code, scatter::kExitOk);
  EXPECT_EQ(s.passed, 2);
  EXPECT_EQ(s.skipped, 1);  // no_expected on ref alone checks nothing
  EXPECT_EQ(s.failed, 0);
  EXPECT_EQ(s.selected, 3);
  const auto* good = capture_.find("good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->status, Status::passed);
  EXPECT_EQ(good->backend, "ref");
  EXPECT_EQ(good->op, "scatter_elements");
  ASSERT_TRUE(good->comparison.has_value());
  EXPECT_TRUE(good->comparison->against_expected);
}

TEST_F(RunCases, ExpectErrorPassesOnlyWithExactlyItsCode) {
  const auto s = run({kErrorAsExpected, kErrorOtherCode, kErrorButValid});
  const auto* as_expected = capture_.find("error_as_expected");
  const auto* other_code = capture_.find("error_other_code");
  const auto* but_valid = capture_.find("error_but_valid");
  ASSERT_NE(as_expected, nullptr);
  ASSERT_NE(other_code, nullptr);
  ASSERT_NE(but_valid, nullptr);
  EXPECT_EQ(as_expected->status, Status::passed);
  EXPECT_EQ(as_expected->backend, "-");
  EXPECT_EQ(other_code->status, Status::failed);
  EXPECT_EQ(other_code->detail,
            "expected error [shape], got [index]: inputs.indices[0] = 3 is out of range [-3, 2] for data.shape[0] = 3");
  EXPECT_EQ(but_valid->status, Status::failed);
  EXPECT_EQ(but_valid->detail, "expected error [index], but the case is valid");
  EXPECT_EQ(s.passed, 1);
  EXPECT_EQ(s.failed, 2);
  // A case that is rejected as it should be, with the wrong code, is a failure (1), not an invalid file (3).
  EXPECT_EQ(s.exit_code, scatter::kExitFailed);
}

// Without `expected`, ref alone has nothing to compare with: skipped with that reason,
// never "passed"; and a run in which nothing else ran tested nothing (exit 4, never 0).
TEST_F(RunCases, NoExpectedOnRefAloneIsSkippedNotPassed) {
  const auto s = run({kNoExpected});
  EXPECT_TRUE(s.nothing_ran());
  EXPECT_EQ(s.exit_code, scatter::kExitNothing);
  EXPECT_EQ(s.passed, 0);
  EXPECT_EQ(s.skipped, 1);
  const auto* r = capture_.find("no_expected");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, Status::skipped);
  EXPECT_NE(r->detail.find("nothing to compare"), std::string::npos) << r->detail;
}

// A case without a name gets one from its file and position, and filters apply to it:
// a filter matching nothing selects nothing (exit 4), not "1 passed".
TEST_F(RunCases, UnnamedCasesGetAStableNameAndObeyFilters) {
  const std::string unnamed = R"({"expect_error": "index", "op": "scatter_elements"})";
  const auto loaded = load({kGood, unnamed});
  ASSERT_EQ(loaded.cases.size(), 2u);
  EXPECT_EQ(loaded.cases[1].name, "mem.cases[1]");
  Selection typo;
  typo.filters = {"typo"};
  const auto s = scatter::run_cases(loaded, typo, ref_only_, capture_);
  EXPECT_EQ(s.selected, 0);
  EXPECT_EQ(s.exit_code, scatter::kExitNothing);
  Selection by_name;
  by_name.filters = {"mem.cases*"};
  EXPECT_TRUE(scatter::is_selected(loaded.cases[1], by_name));
  EXPECT_FALSE(scatter::is_selected(loaded.cases[0], by_name));
}

// A large case the filter names is not dropped silently: the summary says how to run it.
TEST_F(RunCases, LargeCaseLeftOutIsCounted) {
  const auto big = one_case("big", "1", R"(, "tags": ["large"], "expected": {"dtype": "int32", "shape": [3], "values": [1, 9, 3]})");
  Selection named;
  named.filters = {"big"};
  const auto s = run({big}, named);
  EXPECT_EQ(s.selected, 0);
  EXPECT_EQ(s.large_left_out, 1);
  EXPECT_EQ(s.exit_code, scatter::kExitNothing);
  named.include_large = true;
  capture_ = Capture{};
  const auto with = run({big}, named);
  EXPECT_EQ(with.passed, 1);
  EXPECT_EQ(with.large_left_out, 0);
}

TEST_F(RunCases, WrongExpectedOutputExitsOne) {
  const auto s = run({kGood, kWrongExpected});
  EXPECT_EQ(s.exit_code, scatter::kExitFailed);
  EXPECT_EQ(s.passed, 1);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.invalid, 0);
  const auto* r = capture_.find("wrong_expected");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, Status::failed);
  ASSERT_TRUE(r->comparison.has_value());
  EXPECT_FALSE(r->comparison->passed);
  ASSERT_FALSE(r->comparison->worst.empty());
  // out[1] = 9 was expected as 2 (and out[2] = 3, untouched, as 9).
  EXPECT_EQ(r->comparison->mismatches, 2);
}

TEST_F(RunCases, InvalidCaseExitsThreeAndTheOthersStillRun) {
  const auto s = run({kInvalid, kGood, kWrongExpected});
  EXPECT_EQ(s.exit_code, scatter::kExitInvalid);  // 3 wins over the failure's 1
  EXPECT_EQ(s.invalid, 1);
  const auto* bad = capture_.find("invalid");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->status, Status::error);
  EXPECT_TRUE(bad->invalid);
  ASSERT_TRUE(bad->error.has_value());
  EXPECT_EQ(bad->error->code(), scatter::ErrorCode::index);
  ASSERT_NE(capture_.find("good"), nullptr);
  EXPECT_EQ(capture_.find("good")->status, Status::passed);
  ASSERT_NE(capture_.find("wrong_expected"), nullptr);
  EXPECT_EQ(capture_.find("wrong_expected")->status, Status::failed);
}

TEST_F(RunCases, CaseInvalidAtLoadExitsThree) {
  const auto s = run({kGood, kInvalidAtLoad});
  EXPECT_EQ(s.exit_code, scatter::kExitInvalid);
  const auto* bad = capture_.find("invalid_at_load");
  ASSERT_NE(bad, nullptr);
  ASSERT_TRUE(bad->error.has_value());
  EXPECT_EQ(bad->error->code(), scatter::ErrorCode::axis);
}

TEST_F(RunCases, NothingSelectedExitsFour) {
  const auto s = run({kGood, kNoExpected}, filters({"nomatch"}));
  EXPECT_EQ(s.exit_code, scatter::kExitNothing);
  EXPECT_EQ(s.selected, 0);
  EXPECT_TRUE(capture_.results.empty());
}

TEST_F(RunCases, UnreadableFileExitsThree) {
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  auto loaded = scatter::load_text("{\"cases\": [", "broken.json", options);
  const auto good = load({kGood});
  loaded.cases = good.cases;
  const auto s = scatter::run_cases(loaded, Selection{}, ref_only_, capture_);
  EXPECT_EQ(s.exit_code, scatter::kExitInvalid);
  ASSERT_EQ(capture_.file_errors.size(), 1u);
  EXPECT_EQ(capture_.file_errors[0].code(), scatter::ErrorCode::json);
  EXPECT_EQ(s.passed, 1);  // the good case still ran
  EXPECT_EQ(s.failed, 1);
}

TEST_F(RunCases, AllBackendsReportsCudaAsSkipped) {
  if (all_[1]->availability().available) GTEST_SKIP() << "cuda is available in this build";
  const auto choice = scatter::choose_backends("all", all_);
  const auto s = scatter::run_cases(load({kGood}), Selection{}, choice, capture_);
  EXPECT_EQ(s.exit_code, scatter::kExitOk);
  EXPECT_EQ(s.passed, 1);
  EXPECT_EQ(s.skipped, 1);
  const auto* skipped = capture_.find("good", "cuda");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->status, Status::skipped);
  EXPECT_EQ(skipped->detail, "unavailable: " + all_[1]->availability().reason);
}

TEST_F(RunCases, ValidateOnlyJudgesTheSameWay) {
  const auto s = scatter::validate_cases(load({kGood, kErrorAsExpected, kInvalid}), Selection{}, capture_);
  EXPECT_EQ(s.exit_code, scatter::kExitInvalid);
  EXPECT_EQ(s.passed, 2);
  EXPECT_EQ(s.invalid, 1);
  for (const auto& r : capture_.results) EXPECT_EQ(r.backend, "-") << r.name;
}

}  // namespace

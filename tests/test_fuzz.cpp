// `scatterctl fuzz`: the case stream is valid, deterministic and covers what the
// issue asks for (every op, reduction, dtype, rank 1-6, k = 0 and k = r, duplicates,
// negative indices, empty tensors); the verdict catches a wrong output; a failing
// backend's case is written out as a file that reproduces the failure.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cmath>
#include <set>
#include <string>

#include "scatter/backend.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"

namespace {

using scatter::Case;

scatter::LoadResult load(const std::string& text) {
  scatter::LoadOptions options;
  options.max_bytes = scatter::default_max_bytes();
  return scatter::load_text(text, "fuzz.json", options);
}

Case materialize(const std::string& text) {
  const auto loaded = load(text);
  EXPECT_TRUE(loaded.file_errors.empty());
  EXPECT_TRUE(loaded.cases.front().decl) << text;
  return scatter::materialize(*loaded.cases.front().decl);
}

TEST(Fuzz, TheStreamIsDeterministicAndSeedsDiffer) {
  EXPECT_EQ(scatter::fuzz_case(3, 10, 4096), scatter::fuzz_case(3, 10, 4096));
  EXPECT_NE(scatter::fuzz_case(3, 10, 4096), scatter::fuzz_case(4, 10, 4096));
  EXPECT_NE(scatter::fuzz_case(3, 10, 4096), scatter::fuzz_case(3, 11, 4096));
}

TEST(Fuzz, CasesAreValidAndCoverTheSpace) {
  std::set<std::string> ops, dtypes, reductions, op_reduction;
  std::set<std::int64_t> ranks;
  int k0 = 0, k_full = 0, duplicates = 0, negatives = 0, empty = 0, index32 = 0, no_init = 0;
  for (std::int64_t i = 0; i < 3000; ++i) {
    const auto text = scatter::fuzz_case(11, i, 512);
    const auto c = materialize(text);
    ASSERT_LE(c.data.numel(), 512);
    ASSERT_LE(c.updates.numel(), 512 * 6);
    ops.insert(std::string(to_string(c.attrs.op)));
    dtypes.insert(std::string(to_string(c.data.dtype())));
    reductions.insert(std::string(to_string(c.attrs.reduction)));
    op_reduction.insert(std::string(to_string(c.attrs.op)) + "/" + std::string(to_string(c.attrs.reduction)));
    ranks.insert(c.data.rank());
    if (c.data.numel() == 0 || c.updates.numel() == 0) ++empty;
    if (c.indices.dtype() == scatter::DType::int32) ++index32;
    if (!c.attrs.use_init_val && c.attrs.op == scatter::Op::scatter_elements) ++no_init;
    if (c.attrs.op == scatter::Op::scatter_nd) {
      const auto k = c.indices.shape().back();
      k0 += k == 0;
      k_full += k == c.data.rank();
    }
    std::set<std::int64_t> seen;
    for (std::int64_t j = 0; j < c.indices.numel(); ++j) {
      const auto v = scatter::index_at(c.indices, j);
      negatives += v < 0;
      if (c.attrs.op != scatter::Op::scatter_nd && !seen.insert(v).second) ++duplicates;
    }
  }
  EXPECT_EQ(ops.size(), 4u);
  EXPECT_EQ(dtypes.size(), 10u);
  EXPECT_EQ(reductions.size(), 7u);
  // Allowed pairs: elements 6 (none add mul min max mean), nd 6 (none add sub mul min max), update 1, tensor 1.
  EXPECT_EQ(op_reduction.size(), 14u);
  EXPECT_EQ(ranks, (std::set<std::int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_GT(k0, 10);
  EXPECT_GT(k_full, 10);
  EXPECT_GT(duplicates, 1000);
  EXPECT_GT(negatives, 1000);
  EXPECT_GT(empty, 10);
  EXPECT_GT(index32, 1000);
  EXPECT_GT(no_init, 100);
}

TEST(Fuzz, TheVerdictCatchesOneWrongBitAndAcceptsAnyNan) {
  // A none case over float32: exact rule.
  const auto c = materialize(R"({"name": "v", "op": "scatter_elements", "inputs": {
    "data": {"dtype": "float32", "shape": [3], "values": [1, "nan", 3]},
    "indices": {"dtype": "int64", "shape": [1], "values": [0]},
    "updates": {"dtype": "float32", "shape": [1], "values": [5]}}})");
  const auto want = scatter::reference_scatter(c);
  auto got = want.clone();
  EXPECT_EQ(scatter::fuzz_verdict(c, got, want, {}), "");
  got.data<float>()[2] = std::nextafter(3.0f, 4.0f);
  EXPECT_NE(scatter::fuzz_verdict(c, got, want, {}).find("1 of 3 elements differ"), std::string::npos);
  auto other_nan = want.clone();
  std::uint32_t bits = 0xFFC00001u;  // a negative NaN with a payload
  std::memcpy(&other_nan.data<float>()[1], &bits, 4);
  EXPECT_EQ(scatter::fuzz_verdict(c, other_nan, want, {}), "");
}

TEST(Fuzz, FreeOrderFloatAddGetsTheToleranceDeterministicDoesNot) {
  const auto c = materialize(R"({"name": "t", "op": "scatter_elements", "reduction": "add", "inputs": {
    "data": {"dtype": "float32", "shape": [2], "values": [0, 0]},
    "indices": {"dtype": "int64", "shape": [3], "values": [0, 0, 0]},
    "updates": {"dtype": "float32", "shape": [3], "values": [0.1, 0.2, 0.3]}}})");
  const auto want = scatter::reference_scatter(c);
  auto got = want.clone();
  got.data<float>()[0] = std::nextafter(got.data<float>()[0], 1.0f);  // one ulp: another summation order
  EXPECT_EQ(scatter::fuzz_verdict(c, got, want, {false, false}), "");
  EXPECT_NE(scatter::fuzz_verdict(c, got, want, {false, true}), "");
}

// `none` with a duplicate target: free order (the cuda backend's plain stores) may keep any
// candidate; --deterministic asks for the last writer, the reference's.
TEST(Fuzz, FreeOrderNoneKeepsAnyCandidateDeterministicTheLast) {
  const auto c = materialize(R"({"name": "t", "op": "scatter_elements", "inputs": {
    "data": {"dtype": "float32", "shape": [2], "values": [0, 0]},
    "indices": {"dtype": "int64", "shape": [3], "values": [0, 0, 1]},
    "updates": {"dtype": "float32", "shape": [3], "values": [7, 8, 9]}}})");
  const auto want = scatter::reference_scatter(c);
  ASSERT_EQ(want.data<float>()[0], 8.0f);
  auto first = want.clone();
  first.data<float>()[0] = 7.0f;  // the first writer
  EXPECT_EQ(scatter::fuzz_verdict(c, first, want, {false, false}), "");
  EXPECT_NE(scatter::fuzz_verdict(c, first, want, {false, true}), "");
  auto neither = want.clone();
  neither.data<float>()[0] = 9.0f;  // no update to element 0 writes 9
  EXPECT_NE(scatter::fuzz_verdict(c, neither, want, {false, false}), "");
}

// --deterministic promises the reference's bits where an element takes at most
// kDeterministicExactHits updates; past that, a fixed tree of partial sums, held to the
// tolerance (and still to it: a result far off fails).
TEST(Fuzz, DeterministicIsBitForBitUpToTheExactHitsThenTheTolerance) {
  const auto heavy = scatter::kDeterministicExactHits + 1;
  const auto c = materialize(R"({"name": "t", "op": "scatter_elements", "reduction": "add", "inputs": {
    "data": {"dtype": "float32", "shape": [2], "values": [0, 0]},
    "indices": {"dtype": "int64", "shape": [)" + std::to_string(heavy + 3) + R"(], "generate": {"kind": "fill", "value": 0}},
    "updates": {"dtype": "float32", "shape": [)" + std::to_string(heavy + 3) + R"(], "generate": {"kind": "uniform", "low": 0, "high": 1, "seed": 5}}}})");
  auto* idx = const_cast<std::int64_t*>(c.indices.data<std::int64_t>());
  idx[0] = idx[1] = idx[2] = 1;  // element 1: 3 updates; element 0: kDeterministicExactHits + 1
  const auto want = scatter::reference_scatter(c);
  auto got = want.clone();
  got.data<float>()[0] = std::nextafter(got.data<float>()[0], 1000.0f);
  EXPECT_EQ(scatter::fuzz_verdict(c, got, want, {false, true}), "") << "a tree's rounding on the heavy element";
  got.data<float>()[0] = want.data<float>()[0] * 2.0f;
  EXPECT_NE(scatter::fuzz_verdict(c, got, want, {false, true}), "") << "beyond the tolerance";
  got = want.clone();
  got.data<float>()[1] = std::nextafter(got.data<float>()[1], 1000.0f);
  EXPECT_NE(scatter::fuzz_verdict(c, got, want, {false, true}).find("bit for bit"), std::string::npos)
      << "3 updates: the reference's bits";
}

// fuzz --backend X draws within what X declares: every case runs on it.
TEST(Fuzz, DrawsOnlyWhatADeclarationAdmits) {
  const auto caps = scatter::parse_capabilities(
      R"({"ops": {"scatter_nd": {"add": ["int32"], "none": ["float16"]}, "scatter_elements": {"mul": ["int32"]}},
          "index_dtypes": ["int32"], "negative_indices": false, "empty_index_tuple": false, "max_rank": 2,
          "use_init_val_false": false})",
      "test");
  std::set<std::string> kinds;
  for (std::int64_t i = 0; i < 400; ++i) {
    const auto c = materialize(scatter::fuzz_case(9, i, 256, &caps));
    kinds.insert(fmt::format("{} {} {}", to_string(c.attrs.op), to_string(c.attrs.reduction), to_string(c.data.dtype())));
    EXPECT_EQ(c.indices.dtype(), scatter::DType::int32);
    EXPECT_LE(c.data.rank(), 2);
    EXPECT_TRUE(c.attrs.use_init_val);
    if (c.attrs.op == scatter::Op::scatter_nd) EXPECT_GE(c.indices.shape().back(), 1) << "k = 0 is not declared";
    for (std::int64_t j = 0; j < c.indices.numel(); ++j) ASSERT_GE(scatter::index_at(c.indices, j), 0);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"scatter_nd add int32", "scatter_nd none float16", "scatter_elements mul int32"}));
  // Without a declaration the stream is the unrestricted one, unchanged.
  EXPECT_EQ(scatter::fuzz_case(9, 3, 256, nullptr), scatter::fuzz_case(9, 3, 256));
  EXPECT_FALSE(scatter::declares_any_case(scatter::parse_capabilities(R"({"ops": {}})", "test")));
}

// A right external backend that declares a sliver of the spec.
class Declaring final : public scatter::Backend {
 public:
  explicit Declaring(const std::string& caps) : caps_(scatter::parse_capabilities(caps, "test")) {}
  std::string_view name() const override { return "declaring"; }
  scatter::Availability availability() const override { return {true, ""}; }
  std::string device() const override { return "test"; }
  const scatter::Capabilities* capabilities() const override { return &caps_; }
  scatter::BackendTraits traits() const override { return {scatter::BackendRole::external}; }
  scatter::BackendOutput run(const Case& c, const scatter::RunFlags&) override {
    return {scatter::reference_scatter(c), 1e-6};
  }

 private:
  scatter::Capabilities caps_;
};

TEST(Fuzz, EveryCaseRunsOnABackendThatDeclaresOneOp) {
  // Rank 1 to 2 data, but scatter_nd updates may be rank 3: those draws are redrawn.
  Declaring narrow(R"({"ops": {"scatter_nd": {"add": ["float32"]}}, "max_rank": 2})");
  scatter::FuzzOptions options;
  options.iterations = 300;
  options.max_elements = 256;
  const auto summary = scatter::run_fuzz(options, {&narrow}, [](const std::string&) {});
  EXPECT_EQ(summary.skipped, 0);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(summary.ran_on.at("declaring"), 300);
  // Beside a backend that declares everything, the cases alternate: half within each.
  auto cpu = scatter::make_cpu_backend(1, 0);
  const auto both = scatter::run_fuzz(options, {cpu.get(), &narrow}, [](const std::string&) {});
  EXPECT_EQ(both.ran_on.at("cpu"), 300);
  EXPECT_GE(both.ran_on.at("declaring"), 150);
}

// A backend that gets element 0 wrong whenever updates exist.
class OffByOne final : public scatter::Backend {
 public:
  std::string_view name() const override { return "off-by-one"; }
  scatter::Availability availability() const override { return {true, ""}; }
  std::string device() const override { return "test"; }
  scatter::BackendOutput run(const Case& c, const scatter::RunFlags&) override {
    auto out = scatter::reference_scatter(c);
    if (out.numel() > 0 && c.updates.numel() > 0) out.bytes()[0] ^= std::byte{0x01};
    return {std::move(out), 0.0};
  }
};

// A part of the stream (fuzz --shard) draws the very cases of its range, named as the whole
// stream names them: every case file a failing backend leaves is one of cases 10 to 14, and
// is the case the unsharded stream draws at that place.
TEST(Fuzz, APartOfTheStreamDrawsItsRangeAsTheWholeStreamWould) {
  const auto dir = std::filesystem::temp_directory_path() / "scatter-fuzz-part-test";
  std::filesystem::remove_all(dir);
  OffByOne wrong;
  scatter::FuzzOptions options;
  options.seed = 5;
  options.first = 10;
  options.iterations = 5;
  options.max_elements = 256;
  options.out_dir = dir.string();
  const auto summary = scatter::run_fuzz(options, {&wrong}, [](const std::string&) {});
  EXPECT_EQ(summary.cases, 5);
  ASSERT_FALSE(summary.written.empty());
  for (const auto& path : summary.written) {
    const auto stem = std::filesystem::path(path).stem().string();  // fuzz-5-I
    ASSERT_EQ(stem.rfind("fuzz-5-", 0), 0u) << stem;
    const auto i = std::stoll(stem.substr(7));
    EXPECT_GE(i, 10);
    EXPECT_LT(i, 15);
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, scatter::fuzz_case(5, i, 256)) << stem;
  }
  std::filesystem::remove_all(dir);
}

TEST(Fuzz, AFailingBackendLeavesCaseFilesThatReproduce) {
  const auto dir = std::filesystem::temp_directory_path() / "scatter-fuzz-test";
  std::filesystem::remove_all(dir);
  OffByOne wrong;
  auto ref = scatter::make_ref_backend();
  scatter::FuzzOptions options;
  options.seed = 5;
  options.iterations = 40;
  options.max_elements = 256;
  options.out_dir = dir.string();
  int lines = 0;
  const auto summary = scatter::run_fuzz(options, {ref.get(), &wrong},
                                         [&](const std::string& line) { lines += line.rfind("FAIL ", 0) == 0; });
  EXPECT_EQ(summary.cases, 40);
  EXPECT_EQ(summary.verdicts, 80);
  EXPECT_GT(summary.failed, 20);  // every case with updates and a non-empty output
  ASSERT_FALSE(summary.written.empty());
  EXPECT_EQ(lines, summary.failed);
  // Each failure is shrunk: its minimal case is a valid case no larger than the drawn one, on which
  // the broken backend still fails and the reference passes.
  ASSERT_EQ(summary.failures.size(), static_cast<std::size_t>(summary.failed));
  for (const auto& f : summary.failures) {
    ASSERT_FALSE(f.minimal_file.empty()) << f.name;
    std::ifstream min_in(f.minimal_file);
    const std::string min_text((std::istreambuf_iterator<char>(min_in)), std::istreambuf_iterator<char>());
    const auto m = materialize(min_text);
    EXPECT_LE(f.minimal_elements, f.elements) << f.name;
    EXPECT_LE(m.data.numel(), 8) << f.name << ": " << f.shrink_stopped;
    const auto min_want = scatter::reference_scatter(m);
    EXPECT_NE(scatter::fuzz_verdict(m, wrong.run(m, {}).output, min_want, {}), "") << f.name;
  }
  EXPECT_EQ(summary.causes.at("none known"), summary.failed) << "no catalogued bug flips a low bit";
  // The file is the very case: loading it gives the case the fuzzer ran, and the
  // broken backend fails it again while the reference passes it.
  std::ifstream in(summary.written.front());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto c = materialize(text);
  const auto want = scatter::reference_scatter(c);
  EXPECT_NE(scatter::fuzz_verdict(c, wrong.run(c, {}).output, want, {}), "");
  EXPECT_EQ(scatter::fuzz_verdict(c, ref->run(c, {}).output, want, {}), "");
  std::filesystem::remove_all(dir);
}

// A failure that fits two causes is counted under the one the run's other failures have.
TEST(Fuzz, AnAmbiguousFailureJoinsTheGroupOfItsRun) {
  scatter::FuzzSummary summary;
  const auto failure = [](std::string cause, std::vector<std::string> also, scatter::Status status) {
    scatter::FuzzFailure f;
    f.cause = std::move(cause);
    f.also = std::move(also);
    f.status = status;
    return f;
  };
  for (int i = 0; i < 3; ++i) summary.failures.push_back(failure("negative_indices_skipped", {}, scatter::Status::failed));
  summary.failures.push_back(failure("duplicates_applied_once", {"negative_indices_skipped"}, scatter::Status::failed));
  summary.failures.push_back(failure("", {}, scatter::Status::failed));
  summary.failures.push_back(failure("", {}, scatter::Status::error));
  scatter::group_by_cause(summary);
  EXPECT_EQ(summary.causes, (std::map<std::string, int>{{"negative_indices_skipped", 4}, {"none known", 1}, {"error", 1}}));
  EXPECT_EQ(summary.failures[3].cause, "negative_indices_skipped");
  EXPECT_EQ(summary.failures[3].also, std::vector<std::string>{"duplicates_applied_once"});
}

}  // namespace

// Expectations files (docs/backends.md, "Expectations"): the format read strictly (every
// schema error names file, entry and field), version ranges, each matching condition,
// which entries make a pass an XPASS, and the bundled lib/expectations/ files.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/compare.hpp"
#include "scatter/expectations.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using scatter::DType;
using scatter::ErrorCode;
using scatter::Op;
using scatter::Outcome;
using scatter::Reduction;

// The error loading the expectations at `path` throws (a test failure if none).
scatter::Error load_error(const std::string& path) {
  return scatter::testing::thrown([&] { scatter::load_expectations(path); });
}

// A directory of its own for each test, removed afterwards.
class ExpectationsTest : public scatter::testing::TempDirTest {
 protected:
  // A file of backend "onnxruntime" with these entries.
  std::string file_with(const std::string& entries, const std::string& name = "onnxruntime.json") const {
    return write(name, R"({"backend": "onnxruntime", "about": "test", "expectations": [)" + entries + "]}");
  }
  scatter::Expectations parse(const std::string& entries) const { return scatter::load_expectations(file_with(entries)); }

  // Loads `text` as a whole file and expects Error(schema) at `field` with `detail`.
  void expect_schema(const std::string& text, const std::string& field, const std::string& detail) const {
    SCOPED_TRACE(text);
    const auto path = write("bad.json", text);
    const auto e = load_error(path);
    EXPECT_EQ(e.code(), ErrorCode::schema) << e.message();
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.field(), field);
    EXPECT_EQ(e.message(), field.empty() ? detail : field + ": " + detail);
  }
  void expect_entry_schema(const std::string& entry, const std::string& field, const std::string& detail) const {
    expect_schema(R"({"backend": "onnxruntime", "expectations": [)" + entry + "]}", field, detail);
  }
};

// The three keys every entry needs, after `extra` (which may override none of them), and a
// model when the entry may cover a wrong output and names no cases (an entry then needs one).
std::string entry(const std::string& extra = "", const std::string& id = "e1") {
  const bool may_fail = extra.find(R"("outcome")") == std::string::npos || extra.find(R"("failed")") != std::string::npos;
  const bool names_cases = extra.find(R"("cases")") != std::string::npos;
  const bool needs_model = may_fail && !names_cases && extra.find(R"("model")") == std::string::npos;
  const std::string model = needs_model ? R"("model": {"min_max": "keep_existing_unless_better"},
      "reproduced_by": [{"case": "c1", "output": [1]}], )"
                                        : "";
  return R"({"id": ")" + id + R"(", )" + extra + (extra.empty() ? "" : ", ") + model +
         R"("reason": "because", "citation": ["https://example.org/1"]})";
}

scatter::Case make_case(const std::string& name, Op op, Reduction reduction, DType dtype, bool use_init_val = true) {
  scatter::Case c;
  c.name = name;
  c.attrs.op = op;
  c.attrs.reduction = reduction;
  c.attrs.use_init_val = use_init_val;
  c.data = scatter::Tensor(dtype, scatter::Shape{2});
  return c;
}

scatter::Comparison failed_with(std::vector<std::uint32_t> features) {
  scatter::Comparison r;
  r.passed = false;
  r.mismatches = static_cast<std::int64_t>(features.size());
  r.mismatch_features = std::move(features);
  return r;
}

const scatter::Case kNdMax = make_case("nd_max_signed_zero", Op::scatter_nd, Reduction::max, DType::float32);
const scatter::CaseFeatures kPlain{};

// ---- parsing

TEST_F(ExpectationsTest, ParsesEveryField) {
  const auto all = parse(entry(R"("backend": "torch", "versions": {"min": "1.20", "max": "1.32.99"},
      "cases": ["nd_*", "se_max"], "op": ["scatter_nd", "ScatterElements"], "reduction": ["min", "max"],
      "dtype": ["float16", "bfloat16"], "case": {"use_init_val": false, "negative_indices": true, "duplicates": false},
      "outcome": "failed", "elements": [["dup"], ["nan_involved", "nan_mismatch"]], "flaky": true, "strict": true)",
                               "full"));
  ASSERT_EQ(all.entries.size(), 1u);
  const auto& x = all.entries[0];
  EXPECT_EQ(x.id, "full");
  EXPECT_EQ(x.backend, "torch");
  EXPECT_EQ(x.min_version, "1.20");
  EXPECT_EQ(x.max_version, "1.32.99");
  EXPECT_EQ(x.cases, (std::vector<std::string>{"nd_*", "se_max"}));
  EXPECT_EQ(x.ops, (std::vector<Op>{Op::scatter_nd, Op::scatter_elements}));
  EXPECT_EQ(x.reductions, (std::vector<Reduction>{Reduction::min, Reduction::max}));
  EXPECT_EQ(x.dtypes, (std::vector<DType>{DType::float16, DType::bfloat16}));
  EXPECT_EQ(x.use_init_val, false);
  EXPECT_EQ(x.negative_indices, true);
  EXPECT_EQ(x.duplicates, false);
  EXPECT_EQ(x.outcomes, (std::vector<Outcome>{Outcome::failed}));
  EXPECT_EQ(x.elements, (std::vector<std::uint32_t>{1u, 2u | 4u}));
  EXPECT_TRUE(x.message_contains.empty());
  EXPECT_TRUE(x.flaky);
  EXPECT_TRUE(x.strict);
  EXPECT_EQ(x.reason, "because");
  EXPECT_EQ(x.citation, (std::vector<std::string>{"https://example.org/1"}));
  EXPECT_EQ(x.file, (dir_ / "onnxruntime.json").string());
}

TEST_F(ExpectationsTest, DefaultsAndSingleNames) {
  const auto all = parse(entry() + "," +
                         entry(R"("op": "scatter_nd", "outcome": ["error", "rejected"], "message_contains": ["boom"])", "e2"));
  ASSERT_EQ(all.entries.size(), 2u);
  const auto& plain = all.entries[0];
  EXPECT_EQ(plain.backend, "onnxruntime");  // the file's
  EXPECT_EQ(plain.min_version, "");
  EXPECT_EQ(plain.max_version, "");
  EXPECT_TRUE(plain.cases.empty() && plain.ops.empty() && plain.reductions.empty() && plain.dtypes.empty());
  EXPECT_FALSE(plain.use_init_val || plain.negative_indices || plain.duplicates);
  EXPECT_TRUE(plain.outcomes.empty() && plain.elements.empty() && plain.message_contains.empty());
  EXPECT_FALSE(plain.flaky || plain.strict);
  const auto& named = all.entries[1];
  EXPECT_EQ(named.ops, (std::vector<Op>{Op::scatter_nd}));
  EXPECT_EQ(named.outcomes, (std::vector<Outcome>{Outcome::error, Outcome::rejected}));
  EXPECT_EQ(named.message_contains, (std::vector<std::string>{"boom"}));
}

TEST(ExpectationsOutcome, Names) {
  EXPECT_EQ(scatter::to_string(Outcome::failed), "failed");
  EXPECT_EQ(scatter::to_string(Outcome::error), "error");
  EXPECT_EQ(scatter::to_string(Outcome::rejected), "rejected");
  EXPECT_EQ(scatter::to_string(Outcome::accepted), "accepted");
}

TEST_F(ExpectationsTest, DirectoryLoadsEveryJsonFileSorted) {
  write("b.json", R"({"backend": "torch", "expectations": [)" + entry("", "from-b") + "]}");
  write("a.json", R"({"backend": "onnx", "expectations": [)" + entry("", "from-a") + "]}");
  write("notes.txt", "not an expectations file");
  const auto all = scatter::load_expectations(dir_.string());
  ASSERT_EQ(all.entries.size(), 2u);
  EXPECT_EQ(all.entries[0].id, "from-a");
  EXPECT_EQ(all.entries[0].backend, "onnx");
  EXPECT_EQ(all.entries[0].file, (dir_ / "a.json").string());
  EXPECT_EQ(all.entries[1].id, "from-b");
  EXPECT_EQ(all.entries[1].backend, "torch");
}

// ---- errors

TEST_F(ExpectationsTest, MissingPathIsAnIoError) {
  const auto path = (dir_ / "nowhere.json").string();
  const auto e = load_error(path);
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.message(), "cannot read the expectations: no such file or directory");
}

TEST_F(ExpectationsTest, InvalidJsonIsAJsonError) {
  const auto path = write("broken.json", R"({"backend": )");
  const auto e = load_error(path);
  EXPECT_EQ(e.code(), ErrorCode::json);
  EXPECT_EQ(e.file(), path);
}

TEST_F(ExpectationsTest, FileLevelSchemaErrors) {
  expect_schema("[]", "", "an expectations file is an object, got array");
  expect_schema(R"({"backend": "torch", "expectations": [], "framework": "torch"})", "framework",
                "unknown key; allowed: backend, about, expectations");
  expect_schema(R"({"backend": "torch"})", "expectations", "missing key");
  expect_schema(R"({"backend": "torch", "expectations": {}})", "expectations", "must be a list, got object");
  expect_schema(R"({"backend": 3, "expectations": []})", "backend", "must be a string, got number");
  // No backend in the file nor in the entry.
  expect_schema(R"({"expectations": [)" + entry() + "]}", "expectations[e1].backend",
                "missing key (and the file names no backend)");
}

TEST_F(ExpectationsTest, RequiredEntryFields) {
  expect_entry_schema(R"({"reason": "r", "citation": ["c"]})", "expectations[0].id", "missing key");
  expect_entry_schema(R"({"id": "", "reason": "r", "citation": ["c"]})", "expectations[0].id", "must not be empty");
  expect_entry_schema(R"({"id": "x", "citation": ["c"]})", "expectations[x].reason", "missing key");
  expect_entry_schema(R"({"id": "x", "reason": "", "citation": ["c"]})", "expectations[x].reason", "must not be empty");
  expect_entry_schema(R"({"id": "x", "reason": "r"})", "expectations[x].citation", "missing key");
  expect_entry_schema(R"({"id": "x", "reason": "r", "citation": []})", "expectations[x].citation",
                      "must be a non-empty list of strings");
  expect_entry_schema(R"({"id": "x", "reason": "r", "citation": "https://example.org"})", "expectations[x].citation",
                      "must be a non-empty list of strings");
  expect_entry_schema(R"({"id": "x", "reason": "r", "citation": ["c", ""]})", "expectations[x].citation[1]",
                      "must not be empty");
  expect_entry_schema("7", "expectations[0]", "must be an object, got number");
}

TEST_F(ExpectationsTest, UnknownKeysAndNames) {
  const std::string allowed =
      "unknown key; allowed: id, backend, versions, cases, op, reduction, dtype, case, outcome, elements, "
      "message_contains, model, reproduced_by, flaky, strict, reason, citation";
  expect_entry_schema(entry(R"("framework": "onnx")"), "expectations[e1].framework", allowed);
  expect_entry_schema(entry(R"("case": {"k_min": 2})"), "expectations[e1].case.k_min",
                      "unknown key; allowed: use_init_val, negative_indices, duplicates");
  expect_entry_schema(entry(R"("versions": {"min": "1.0", "upto": "2"})"), "expectations[e1].versions.upto",
                      "unknown key; allowed: min, max");
  expect_entry_schema(entry(R"("op": "gather")"), "expectations[e1].op", "'gather' is not an op");
  expect_entry_schema(entry(R"("reduction": ["min", "median"])"), "expectations[e1].reduction[1]",
                      "'median' is not a reduction");
  expect_entry_schema(entry(R"("dtype": ["float8"])"), "expectations[e1].dtype[0]", "'float8' is not a dtype");
  expect_entry_schema(entry(R"("outcome": "crashed")"), "expectations[e1].outcome",
                      "'crashed' is not an outcome (failed, error, rejected, accepted)");
  expect_entry_schema(entry(R"("elements": [["dup"], ["signed_zero", "error"]])"), "expectations[e1].elements[1][1]",
                      "'error' is not an element feature (dup, nan_involved, nan_mismatch, signed_zero, "
                      "zero_involved, inf_involved, neg_index, untouched)");
}

TEST_F(ExpectationsTest, MistypedOrEmptyConditions) {
  expect_entry_schema(entry(R"("op": [])"), "expectations[e1].op",
                      "must be a name or a non-empty list of names (leave the key out to match any)");
  expect_entry_schema(entry(R"("cases": "nd_*")"), "expectations[e1].cases",
                      "must be a non-empty list of strings (leave the key out to match any)");
  expect_entry_schema(entry(R"("elements": [])"), "expectations[e1].elements",
                      "must be a non-empty list of lists of element features");
  expect_entry_schema(entry(R"("elements": [[]])"), "expectations[e1].elements[0]",
                      "must be a non-empty list of strings");
  expect_entry_schema(entry(R"("case": {"duplicates": "yes"})"), "expectations[e1].case.duplicates",
                      "must be true or false, got string");
  expect_entry_schema(entry(R"("flaky": 1)"), "expectations[e1].flaky", "must be true or false, got number");
  expect_entry_schema(entry(R"("versions": {})"), "expectations[e1].versions",
                      "must be an object with \"min\" and/or \"max\"");
  expect_entry_schema(entry(R"("versions": {"min": "latest"})"), "expectations[e1].versions.min",
                      "'latest' does not start with a version number");
  expect_entry_schema(entry(R"("versions": {"min": "1.10", "max": "1.9"})"), "expectations[e1].versions",
                      "min 1.10 is above max 1.9");
}

TEST_F(ExpectationsTest, ConditionsThatCannotApplyToTheOutcome) {
  expect_entry_schema(entry(R"("outcome": ["failed", "error"], "elements": [["dup"]])"),
                      "expectations[e1].elements", "applies to the outcome \"failed\" only");
  expect_entry_schema(entry(R"("message_contains": ["boom"])"), "expectations[e1].message_contains",
                      "needs an \"outcome\" of error, rejected or accepted (a wrong output has no message)");
  expect_entry_schema(entry(R"("outcome": ["failed", "error"], "message_contains": ["boom"])"),
                      "expectations[e1].message_contains",
                      "needs an \"outcome\" of error, rejected or accepted (a wrong output has no message)");
}

TEST_F(ExpectationsTest, DuplicateIdsAcrossFiles) {
  write("a.json", R"({"backend": "onnxruntime", "expectations": [)" + entry("", "same") + "]}");
  write("b.json", R"({"backend": "onnxruntime", "expectations": [)" + entry("", "same") + "]}");
  const auto e = load_error(dir_.string());
  EXPECT_EQ(e.code(), ErrorCode::schema);
  EXPECT_EQ(e.file(), (dir_ / "b.json").string());
  EXPECT_EQ(e.message(), "expectations[same].id: duplicate id for backend onnxruntime");
}

// ---- versions

TEST_F(ExpectationsTest, VersionsCompareNumericallyDotByDot) {
  const auto all = parse(entry(R"("versions": {"min": "1.20", "max": "1.32.99"})"));
  auto covers = [&](const std::string& version) {
    return all.covering("onnxruntime", version, kNdMax, kPlain, Outcome::failed, nullptr, "") != nullptr;
  };
  EXPECT_TRUE(covers("1.20"));
  EXPECT_TRUE(covers("1.20.0"));
  EXPECT_TRUE(covers("1.32.0"));
  EXPECT_TRUE(covers("1.32.99"));
  EXPECT_TRUE(covers("1.25.1+cpu"));   // a local suffix is ignored
  EXPECT_TRUE(covers("1.21.0rc1"));    // so is a pre-release tag after the number
  EXPECT_FALSE(covers("1.9"));         // 9 < 20, not "1.9" > "1.20" as text
  EXPECT_FALSE(covers("1.19.9"));
  EXPECT_FALSE(covers("1.32.100"));
  EXPECT_FALSE(covers("1.100"));
  EXPECT_FALSE(covers("2.0"));
  EXPECT_FALSE(covers(""));           // an unknown version is in no range
  EXPECT_FALSE(covers("nightly"));
}

TEST_F(ExpectationsTest, OpenEndedRangesAndNoRange) {
  const auto all = parse(entry(R"("versions": {"max": "1.22.99"})", "old") + "," +
                         entry(R"("versions": {"min": "2"})", "new") + "," + entry("", "any"));
  auto id = [&](const std::string& version) {
    const auto* x = all.covering("onnxruntime", version, kNdMax, kPlain, Outcome::failed, nullptr, "");
    return x ? x->id : std::string("none");
  };
  EXPECT_EQ(id("1.22.5"), "old");
  EXPECT_EQ(id("0.1"), "old");
  EXPECT_EQ(id("1.23.0"), "any");
  EXPECT_EQ(id("2.0.0"), "new");
  EXPECT_EQ(id(""), "any");  // an empty version matches only entries without versions
}

// ---- matching

TEST_F(ExpectationsTest, BackendMustBeEqual) {
  const auto all = parse(entry());
  EXPECT_NE(all.covering("onnxruntime", "1.0", kNdMax, kPlain, Outcome::failed, nullptr, ""), nullptr);
  EXPECT_EQ(all.covering("onnx", "1.0", kNdMax, kPlain, Outcome::failed, nullptr, ""), nullptr);
  EXPECT_EQ(all.covering("OnnxRuntime", "1.0", kNdMax, kPlain, Outcome::failed, nullptr, ""), nullptr);
}

TEST_F(ExpectationsTest, CaseGlobs) {
  const auto all = parse(entry(R"("cases": ["se_*", "nd_max_signed_zer?"])"));
  auto covers = [&](const std::string& name) {
    const auto c = make_case(name, Op::scatter_nd, Reduction::max, DType::float32);
    return all.covering("onnxruntime", "1.0", c, kPlain, Outcome::failed, nullptr, "") != nullptr;
  };
  EXPECT_TRUE(covers("nd_max_signed_zero"));
  EXPECT_TRUE(covers("se_anything"));
  EXPECT_FALSE(covers("nd_max_signed_zeros"));
  EXPECT_FALSE(covers("xse_max"));
}

TEST_F(ExpectationsTest, OpReductionAndDtypeLists) {
  const auto all = parse(entry(R"("op": ["scatter_nd", "scatter_update"], "reduction": ["min", "max"], "dtype": "float32")"));
  auto covers = [&](Op op, Reduction r, DType dt) {
    const auto c = make_case("t", op, r, dt);
    return all.covering("onnxruntime", "1.0", c, kPlain, Outcome::failed, nullptr, "") != nullptr;
  };
  EXPECT_TRUE(covers(Op::scatter_nd, Reduction::max, DType::float32));
  EXPECT_TRUE(covers(Op::scatter_update, Reduction::min, DType::float32));
  EXPECT_FALSE(covers(Op::scatter_elements, Reduction::max, DType::float32));
  EXPECT_FALSE(covers(Op::scatter_nd, Reduction::add, DType::float32));
  EXPECT_FALSE(covers(Op::scatter_nd, Reduction::max, DType::float64));
}

TEST_F(ExpectationsTest, CaseConditions) {
  const auto all = parse(entry(R"("case": {"use_init_val": false, "negative_indices": true, "duplicates": true})"));
  const auto without_init = make_case("t", Op::scatter_elements, Reduction::add, DType::float32, false);
  const auto with_init = make_case("t", Op::scatter_elements, Reduction::add, DType::float32, true);
  scatter::CaseFeatures both;
  both.negative_indices = true;
  both.duplicates = true;
  scatter::CaseFeatures no_negatives = both;
  no_negatives.negative_indices = false;
  scatter::CaseFeatures no_duplicates = both;
  no_duplicates.duplicates = false;
  auto covers = [&](const scatter::Case& c, const scatter::CaseFeatures& f) {
    return all.covering("onnxruntime", "1.0", c, f, Outcome::failed, nullptr, "") != nullptr;
  };
  EXPECT_TRUE(covers(without_init, both));
  EXPECT_FALSE(covers(with_init, both));
  EXPECT_FALSE(covers(without_init, no_negatives));
  EXPECT_FALSE(covers(without_init, no_duplicates));
}

TEST_F(ExpectationsTest, OutcomeList) {
  const auto all = parse(entry(R"("outcome": ["error", "rejected"])"));
  auto covers = [&](Outcome o) { return all.covering("onnxruntime", "1.0", kNdMax, kPlain, o, nullptr, "x") != nullptr; };
  EXPECT_TRUE(covers(Outcome::error));
  EXPECT_TRUE(covers(Outcome::rejected));
  EXPECT_FALSE(covers(Outcome::failed));
  EXPECT_FALSE(covers(Outcome::accepted));
  // No outcome: any.
  const auto any = parse(entry());
  EXPECT_NE(any.covering("onnxruntime", "1.0", kNdMax, kPlain, Outcome::accepted, nullptr, ""), nullptr);
}

TEST_F(ExpectationsTest, EveryDifferingElementMustMatchAnAlternative) {
  using namespace scatter;
  const auto all = parse(entry(R"("elements": [["nan_involved", "nan_mismatch"], ["signed_zero"]])"));
  auto covers = [&](std::vector<std::uint32_t> features) {
    const auto cmp = failed_with(std::move(features));
    return all.covering("onnxruntime", "1.0", kNdMax, kPlain, Outcome::failed, &cmp, "") != nullptr;
  };
  EXPECT_TRUE(covers({kElementSignedZero}));
  EXPECT_TRUE(covers({kElementSignedZero | kElementZeroInvolved}));  // more bits than the alternative
  EXPECT_TRUE(covers({kElementNanInvolved | kElementNanMismatch, kElementSignedZero | kElementDup}));
  EXPECT_FALSE(covers({kElementNanInvolved}));  // only half of the first alternative
  EXPECT_FALSE(covers({kElementSignedZero, 0u}));  // one element with nothing special
  EXPECT_FALSE(covers({kElementSignedZero, kElementDup}));
  EXPECT_FALSE(covers({}));  // a wrong shape: no element features
  EXPECT_EQ(all.covering("onnxruntime", "1.0", kNdMax, kPlain, Outcome::failed, nullptr, ""), nullptr);
  // Element conditions are about wrong outputs: an error is not covered.
  EXPECT_EQ(all.covering("onnxruntime", "1.0", kNdMax, kPlain, Outcome::error, nullptr, "signed_zero"), nullptr);
}

TEST_F(ExpectationsTest, MessageContainsOneOf) {
  const auto all = parse(entry(R"("outcome": ["error", "rejected", "accepted"], "message_contains": ["INTERNAL ASSERT", "arity"])"));
  auto covers = [&](Outcome o, const std::string& message) {
    return all.covering("onnxruntime", "1.0", kNdMax, kPlain, o, nullptr, message) != nullptr;
  };
  EXPECT_TRUE(covers(Outcome::error, "RuntimeError: iter.ninputs() == traits::arity INTERNAL ASSERT FAILED at Loops.h"));
  EXPECT_TRUE(covers(Outcome::rejected, "bad arity"));
  EXPECT_TRUE(covers(Outcome::accepted, "INTERNAL ASSERT"));
  EXPECT_FALSE(covers(Outcome::error, "RuntimeError: internal assert failed"));  // case-sensitive
  EXPECT_FALSE(covers(Outcome::error, ""));
}

TEST_F(ExpectationsTest, FirstCoveringEntryIsReturned) {
  const auto all = parse(entry(R"("reduction": "add")", "adds") + "," + entry(R"("op": "scatter_nd")", "nd") + "," +
                         entry("", "rest"));
  const auto* x = all.covering("onnxruntime", "1.0", kNdMax, kPlain, Outcome::failed, nullptr, "");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->id, "nd");
}

// ---- XPASS

TEST_F(ExpectationsTest, ExpectingFailure) {
  const auto all = parse(entry(R"("cases": ["nd_max_*"], "elements": [["signed_zero"]])", "named") + "," +
                         entry(R"("op": "scatter_elements", "elements": [["signed_zero"]])", "by-elements") + "," +
                         entry(R"("op": "scatter_elements", "outcome": "error", "message_contains": ["x"])", "by-message") +
                         "," + entry(R"("op": "scatter_elements", "reduction": "add", "flaky": true)", "flaky") + "," +
                         entry(R"("op": "scatter_elements", "reduction": "min")", "plain") + "," +
                         entry(R"("op": "scatter_elements", "reduction": "mul", "strict": true)", "strict"));
  auto xpass = [&](const scatter::Case& c, const std::string& backend = "onnxruntime") {
    const auto* x = all.expecting_failure(backend, "1.0", c, kPlain);
    return x ? x->id : std::string("none");
  };
  // Named by `cases`: a pass is XPASS even though the entry has an element condition.
  EXPECT_EQ(xpass(kNdMax), "named");
  const auto se_max = make_case("se_max", Op::scatter_elements, Reduction::max, DType::float32);
  EXPECT_EQ(xpass(se_max), "none");  // only element or message entries, which need a failure to judge
  const auto se_add = make_case("se_add", Op::scatter_elements, Reduction::add, DType::float32);
  EXPECT_EQ(xpass(se_add), "none");  // flaky
  // A broad entry (an op and a reduction) covers cases the divergence need not reach: no XPASS.
  const auto se_min = make_case("se_min", Op::scatter_elements, Reduction::min, DType::float32);
  EXPECT_EQ(xpass(se_min), "none");
  // Unless it says it is strict.
  const auto se_mul = make_case("se_mul", Op::scatter_elements, Reduction::mul, DType::float32);
  EXPECT_EQ(xpass(se_mul), "strict");
  EXPECT_EQ(xpass(se_mul, "torch"), "none");
}

TEST_F(ExpectationsTest, ExpectingFailureRespectsVersionsAndCaseConditions) {
  const auto all = parse(entry(R"("versions": {"max": "1.22.99"}, "case": {"duplicates": true}, "strict": true)"));
  scatter::CaseFeatures dup;
  dup.duplicates = true;
  EXPECT_NE(all.expecting_failure("onnxruntime", "1.22.0", kNdMax, dup), nullptr);
  EXPECT_EQ(all.expecting_failure("onnxruntime", "1.23.0", kNdMax, dup), nullptr);
  EXPECT_EQ(all.expecting_failure("onnxruntime", "1.22.0", kNdMax, kPlain), nullptr);
}

// ---- the bundled files

TEST(ExpectationsBundled, LoadAndEachEntryHasReasonAndCitation) {
  const auto all = scatter::load_expectations(SCATTER_EXPECTATIONS_DIR);
  std::set<std::string> backends;
  std::set<std::string> ids;
  for (const auto& x : all.entries) {
    SCOPED_TRACE(x.id);
    backends.insert(x.backend);
    ids.insert(x.id);
    EXPECT_FALSE(x.reason.empty());
    ASSERT_FALSE(x.citation.empty());
    for (const auto& c : x.citation) EXPECT_FALSE(c.empty());
    EXPECT_EQ(fs::path(x.file).filename().string(), x.backend + ".json");
  }
  // Every file is about a backend scatterctl has, and the converted entries are still there.
  const auto& names = scatter::framework_backend_names();
  for (const auto& b : backends) EXPECT_NE(std::find(names.begin(), names.end(), b), names.end()) << b;
  for (const auto* b : {"onnx", "onnxruntime", "torch", "openvino", "tvm"}) EXPECT_TRUE(backends.count(b)) << b;
  // The entries carried over from the Python differential checker's expectations (before `fuzz --backend`).
  for (const auto* id : {"onnx-ref-scatterelements-minmax-python-minmax", "onnx-ref-scatternd-minmax-signed-zero",
                         "onnx-ref-scatternd-minmax-missing-tuple", "ort-minmax-greater-select",
                         "ort-scatternd-reduction-race", "torch-minmax-signed-zero", "torch-index-reduce-prod-half-assert"}) {
    EXPECT_EQ(ids.count(id), 1u) << id;
  }
}

// An xfail is a promise: the output is wrong exactly as the entry's model computes. onnxruntime's
// min(-0, +0) gives the update, +0, as its model (out < u ? out : u) does; any other wrong value
// is FAILED, and the explanation says what the model gave instead.
TEST(ExpectationsBundled, OnnxruntimeMinMaxCoversOnlyWhatItsModelComputes) {
  using namespace scatter;
  const auto all = load_expectations(SCATTER_EXPECTATIONS_DIR);
  const auto c = scatter::testing::load_case(scatter::testing::make_case(
      R"("op": "scatter_nd", "reduction": "min")", scatter::testing::tensor("float32", "[1]", "[-0.0]"),
      scatter::testing::tensor("int64", "[1, 1]", "[[0]]"), scatter::testing::tensor("float32", "[1]", "[0.0]")));
  const auto explain = [&](float value) {
    Tensor output(DType::float32, c.data.shape());
    output.data<float>()[0] = value;
    const auto comparison = compare_outputs(c, output, reference_scatter(c), false);
    EXPECT_FALSE(comparison.passed);
    return all.explaining("onnxruntime", "1.20.1", c, features_of(c), comparison, output, {});
  };
  const auto as_modelled = explain(0.0f);
  ASSERT_NE(as_modelled.entry, nullptr);
  EXPECT_EQ(as_modelled.entry->id, "ort-minmax-greater-select");
  const auto other_bug = explain(5.0f);
  EXPECT_EQ(other_bug.entry, nullptr);
  ASSERT_EQ(other_bug.tried.size(), 1u);
  EXPECT_NE(other_bug.tried[0].find("[ort-minmax-greater-select]"), std::string::npos) << other_bug.tried[0];
  EXPECT_NE(other_bug.tried[0].find("model 0, backend 5"), std::string::npos) << other_bug.tried[0];
}

// OpenVINO computes float64 in float32 and drops a NaN update: neither entry alone gives
// max(0.1, NaN) = float32(0.1), both together do.
TEST(ExpectationsBundled, TwoDivergencesOnOneCaseAreExplainedTogether) {
  using namespace scatter;
  const auto all = load_expectations(SCATTER_EXPECTATIONS_DIR);
  const auto c = scatter::testing::load_case(scatter::testing::make_case(
      R"("op": "scatter_elements", "reduction": "max")", scatter::testing::tensor("float64", "[1]", "[0.1]"),
      scatter::testing::tensor("int64", "[1]", "[0]"), scatter::testing::tensor("float64", "[1]", R"(["nan"])")));
  Tensor output(DType::float64, c.data.shape());
  output.data<double>()[0] = static_cast<double>(0.1f);
  const auto comparison = compare_outputs(c, output, reference_scatter(c), false);
  const auto x = all.explaining("openvino", "2026.4.1", c, features_of(c), comparison, output, {});
  ASSERT_NE(x.entry, nullptr);
  ASSERT_NE(x.also, nullptr);
  const std::set<std::string> ids{x.entry->id, x.also->id};
  EXPECT_EQ(ids, (std::set<std::string>{"ov-cpu-64bit-computed-in-32bit", "ov-cpu-minmax-drops-nan-update-keeps-existing-zero"}));
}

TEST(ExpectationsBundled, TorchHalfProdAssertIsAnError) {
  const auto all = scatter::load_expectations(SCATTER_EXPECTATIONS_DIR);
  const auto c = make_case("nd_mul_f16", Op::scatter_nd, Reduction::mul, DType::float16);
  const auto* x = all.covering("torch", "2.15.0", c, kPlain, Outcome::error, nullptr,
                               "RuntimeError: iter.ninputs() == traits::arity INTERNAL ASSERT FAILED");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->id, "torch-index-reduce-prod-half-assert");
  EXPECT_EQ(all.covering("torch", "2.15.0", c, kPlain, Outcome::error, nullptr, "RuntimeError: out of memory"), nullptr);
  // The race entry is flaky: a pass of a scatter_nd add case is never XPASS for it.
  const auto add = make_case("nd_add", Op::scatter_nd, Reduction::add, DType::int32);
  EXPECT_EQ(all.expecting_failure("onnxruntime", "1.20.1", add, kPlain), nullptr);
}

}  // namespace

// The catalogue of known bugs (scatter/diagnose.hpp), the shrinker (scatter/shrink.hpp) and the
// case writer they share (load.hpp, case_json). The wrong outputs below are worked out by hand
// from each bug's description, not by the models under test.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "scatter/diagnose.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "scatter/reference.hpp"
#include "scatter/shrink.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

using testing::load_case;
using testing::make_case;
using testing::tensor;

// `values` (JSON text) as a tensor of the case's data dtype and shape.
Tensor output_of(const Case& c, const std::string& values) {
  const auto json = make_case(R"("op": "scatter_elements", "axis": 0)",
                              tensor(std::string(to_string(c.data.dtype())), format_shape(c.data.shape()), values),
                              tensor("int64", "[1]", "[0]"),
                              tensor(std::string(to_string(c.data.dtype())), "[1]", "[0]"));
  return load_case(json).data.clone();
}

std::string cause_of(const Case& c, const std::string& got) {
  const auto cause = diagnose(c, output_of(c, got));
  return cause ? cause->name : "(none)";
}

std::string elements(const std::string& reduction, const std::string& dtype, const std::string& data,
                     const std::string& idx, const std::string& upd, const std::string& more = "") {
  const auto n = std::count(data.begin(), data.end(), ',') + 1;
  const auto m = std::count(idx.begin(), idx.end(), ',') + 1;
  return make_case(R"("op": "scatter_elements", "axis": 0)" + std::string(reduction.empty() ? "" : R"(, "reduction": ")" + reduction + "\"") + more,
                   tensor(dtype, "[" + std::to_string(n) + "]", data), tensor("int64", "[" + std::to_string(m) + "]", idx),
                   tensor(dtype, "[" + std::to_string(m) + "]", upd));
}

TEST(Diagnose, NamesEachBugFromAnOutputWorkedOutByHand) {
  // 1 + 10 + 20: applied once per target, the last (21) or the first (11).
  const auto dup = load_case(elements("add", "float32", "[1, 2]", "[0, 0]", "[10, 20]"));
  EXPECT_EQ(cause_of(dup, "[21, 2]"), "duplicates_applied_once");
  EXPECT_EQ(cause_of(dup, "[11, 2]"), "duplicates_applied_once");
  // Index -1 is element 2.
  const auto negative = load_case(elements("", "float32", "[1, 2, 3]", "[-1]", "[9]"));
  EXPECT_EQ(cause_of(negative, "[9, 2, 3]"), "negative_indices_clamped");
  EXPECT_EQ(cause_of(negative, "[1, 2, 3]"), "negative_indices_skipped");
  // use_init_val false starts from 0: 10, not 1 + 10.
  const auto init = load_case(elements("add", "float32", "[1, 2]", "[0]", "[10]", R"(, "use_init_val": false)"));
  EXPECT_EQ(cause_of(init, "[11, 2]"), "init_val_ignored");
  // max(1, NaN) is NaN; fmax keeps 1.
  const auto nan = load_case(elements("max", "float32", "[1, 2]", "[0]", R"(["nan"])"));
  EXPECT_EQ(cause_of(nan, "[1, 2]"), "nan_ignored");
  // floor((0 - 3) / 2) = -2; truncated, -1.
  const auto mean = load_case(elements("mean", "int32", "[0]", "[0]", "[-3]"));
  EXPECT_EQ(cause_of(mean, "[-1]"), "integer_mean_toward_zero");
  // (4 + 2) / 2 = 3; data added but not counted: 6.
  const auto ignores = load_case(elements("mean", "float32", "[4]", "[0]", "[2]"));
  EXPECT_EQ(cause_of(ignores, "[6]"), "mean_ignores_data");
  // bfloat16 1 + 1 = 2; the bits as integers: 0x3F80 + 0x3F80 = 0x7F00 = 2^127 * 1.0 = 1.7014118e38.
  const auto bits = load_case(elements("add", "bfloat16", "[1]", "[0]", "[1]"));
  EXPECT_EQ(cause_of(bits, "[1.7014118346046923e38]"), "bfloat16_bits_as_integers");
  // The issue's OpenVINO case: 1 + 0.005859375 = 1.005859375 (float32 bits 0x3F80C000: the kept
  // last bit is even, so truncated to 1.0); 1.0078125 + 0.005859375 = 1.013671875 (0x3F81C000:
  // odd, so 0x3F81C000 + 0x8000 >> 16 = 0x3F82 = 1.015625).
  const auto ov = load_case(elements("add", "bfloat16", "[1.0, 1.0078125]", "[0, 1]", "[0.005859375, 0.005859375]"));
  EXPECT_EQ(cause_of(ov, "[1.0, 1.015625]"), "bfloat16_odd_rounded_even_truncated");
  EXPECT_EQ(cause_of(ov, "[1.0, 1.0078125]"), "bfloat16_rounded_toward_zero");
}

TEST(Diagnose, AnOutputNoKnownBugComputesHasNoCause) {
  // One element off by one: no rule of the catalogue does that.
  const auto c = load_case(elements("add", "float32", "[1, 2, 3]", "[0, 1]", "[10, 20]"));
  EXPECT_EQ(cause_of(c, "[12, 22, 3]"), "(none)");
  // Two bugs at once are named as a pair: use_init_val false gives 0 + 10 + 20 = 30; starting
  // from data (1) and taking only the last update gives 21, which neither bug gives alone (20, 31).
  const auto both = load_case(elements("add", "float32", "[1, 2]", "[0, 0]", "[10, 20]", R"(, "use_init_val": false)"));
  EXPECT_EQ(cause_of(both, "[21, 2]"), "duplicates_applied_once + init_val_ignored");
}

// The review's measured fix (diagnose-review.md): a name stands only where the backend passes
// the case with its trigger taken out. The backend here is a table of answers by trigger-free case.
TEST(Diagnose, ANameIsKeptOnlyWhereTheCaseWithoutItsTriggerPasses) {
  const auto negative = load_case(elements("", "float32", "[1, 2, 3]", "[-1]", "[9]"));
  const auto skipped = diagnose(negative, output_of(negative, "[1, 2, 3]"));
  ASSERT_TRUE(skipped);
  ASSERT_EQ(skipped->name, "negative_indices_skipped");
  std::vector<std::int64_t> seen;  // the index the backend was given, spelled positive by hand: 2
  const auto run_with = [&](std::optional<bool> verdict) {
    return [&seen, verdict](const Case& without) {
      seen.push_back(index_at(without.indices, 0));
      return verdict;
    };
  };
  const auto confirmed = confirm_cause(*skipped, negative, run_with(true));
  ASSERT_TRUE(confirmed);
  EXPECT_EQ(confirmed->name, "negative_indices_skipped");
  EXPECT_EQ(confirmed->confirmed, "passes with negative indices spelled positive");
  EXPECT_EQ(seen, (std::vector<std::int64_t>{2}));
  // Still failing with index 2: another bug (a kernel that skips the last element) fails it.
  EXPECT_FALSE(confirm_cause(*skipped, negative, run_with(false)));
  // A case it could not run neither confirms nor refutes.
  const auto unknown = confirm_cause(*skipped, negative, run_with(std::nullopt));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->name, "negative_indices_skipped");
  EXPECT_TRUE(unknown->confirmed.empty());

  // use_init_val false, add: 0 + 10 = 10 where the kernel started from data (1 + 10 = 11).
  const auto init = load_case(elements("add", "float32", "[1, 2]", "[0]", "[10]", R"(, "use_init_val": false)"));
  const auto ignored = diagnose(init, output_of(init, "[11, 2]"));
  ASSERT_TRUE(ignored);
  ASSERT_EQ(ignored->name, "init_val_ignored");
  bool flipped = false;
  const auto kept = confirm_cause(*ignored, init, [&](const Case& without) -> std::optional<bool> {
    flipped = without.attrs.use_init_val;
    return true;
  });
  EXPECT_TRUE(flipped);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->confirmed, "passes with use_init_val flipped");

  // max with a NaN update: fmax keeps 1; without the NaN (now 1) and -0 the backend is asked again.
  const auto nan = load_case(elements("max", "float32", "[1, -0.0]", "[0]", "[\"nan\"]"));
  const auto dropped = diagnose(nan, output_of(nan, "[1, -0.0]"));
  ASSERT_TRUE(dropped);
  ASSERT_EQ(dropped->name, "nan_ignored");
  std::vector<double> given;
  confirm_cause(*dropped, nan, [&](const Case& without) -> std::optional<bool> {
    given = {element_as_double(without.data, 0), element_as_double(without.data, 1), element_as_double(without.updates, 0)};
    return true;
  });
  ASSERT_EQ(given.size(), 3u);
  EXPECT_EQ(given[0], 1.0);
  EXPECT_FALSE(std::signbit(given[1])) << "-0 not replaced";
  EXPECT_EQ(given[2], 1.0) << "NaN not replaced";

  // An entry with no trigger to take out (a wider accumulator) keeps its name, unconfirmed.
  Cause wider{"wider_accumulator", cause_explanation("wider_accumulator"), {}, {}};
  const auto stands = confirm_cause(wider, negative, run_with(false));
  ASSERT_TRUE(stands);
  EXPECT_EQ(stands->name, "wider_accumulator");
}

TEST(Diagnose, AnAcceptedInvalidCaseIsNamedByTheUpdatesItDropped) {
  const auto json = R"({"name": "oob", "op": "scatter_elements", "axis": 0, "expect_error": "index", "inputs": {
      "data": {"dtype": "float32", "shape": [3], "values": [1, 2, 3]},
      "indices": {"dtype": "int64", "shape": [2], "values": [3, 0]},
      "updates": {"dtype": "float32", "shape": [2], "values": [9, 7]}}})";
  const auto entry = testing::load_one(json);
  ASSERT_TRUE(entry.decl);
  const auto c = materialize_unchecked(*entry.decl);
  // Index 3 is past the end: dropped, and index 0 takes 7.
  const auto cause = diagnose_accepted(c, output_of(c, "[7, 2, 3]"));
  ASSERT_TRUE(cause);
  EXPECT_EQ(cause->name, "out_of_range_skipped");
  EXPECT_FALSE(diagnose_accepted(c, output_of(c, "[7, 2, 4]")));
}

TEST(Diagnose, EveryEntryReproducesItsBundledMinimalCase) {
  const auto loaded = load_paths({std::string(SCATTER_CASES_DIR) + "/diagnoses"}, testing::load_options(1ULL << 30));
  ASSERT_TRUE(loaded.file_errors.empty());
  const auto checks = check_diagnoses(loaded);
  ASSERT_EQ(checks.size(), diagnoses().size());
  for (const auto& check : checks) {
    EXPECT_TRUE(check.problems.empty()) << check.entry->name << ": " << check.problems.front();
  }
  EXPECT_GE(diagnoses().size(), 20u);
}

// --- case_json: a case written out reads back as the same case ---

TEST(CaseJson, FuzzedCasesReadBackBitForBit) {
  for (std::int64_t i = 0; i < 400; ++i) {
    const auto c = load_case(fuzz_case(19, i, 256));
    const auto back = load_case(case_json(c, "back", "read back"));
    ASSERT_EQ(back.attrs.op, c.attrs.op) << i;
    ASSERT_EQ(back.attrs.axis, c.attrs.axis) << i;
    ASSERT_EQ(back.attrs.reduction, c.attrs.reduction) << i;
    ASSERT_EQ(back.attrs.use_init_val, c.attrs.use_init_val) << i;
    for (const auto& [a, b] : {std::pair{&c.data, &back.data}, {&c.indices, &back.indices}, {&c.updates, &back.updates}}) {
      ASSERT_EQ(a->dtype(), b->dtype()) << i;
      ASSERT_EQ(a->shape(), b->shape()) << i;
      ASSERT_EQ(std::memcmp(a->bytes(), b->bytes(), a->nbytes()), 0) << i << "\n" << case_json(c, "x", "");
    }
  }
}

// --- the shrinker ---

// A kernel with NumPy's buffered `out[idx] += u`: each target takes only its last update.
class LastUpdateOnly final : public Backend {
 public:
  std::string_view name() const override { return "last-update-only"; }
  Availability availability() const override { return {true, ""}; }
  std::string device() const override { return "test"; }
  BackendTraits traits() const override { return {BackendRole::external, MemoryKind::host, 1}; }
  BackendOutput run(const Case& c, const RunFlags&) override {
    ++calls;
    Tensor out = c.data.clone();
    const auto* u = c.updates.data<float>();
    const auto* d = c.data.data<float>();
    auto* o = out.data<float>();
    const auto n = c.data.numel();
    std::map<std::int64_t, float> last;
    for (std::int64_t i = 0; i < c.indices.numel(); ++i) {
      auto v = index_at(c.indices, i);
      last[v < 0 ? v + n : v] = u[i];
    }
    for (const auto& [t, value] : last) o[t] = d[t] + value;
    return {std::move(out), 1e-6};
  }
  int calls = 0;
};

TEST(Shrink, ACaseShrinksToAFewElementsFailingTheSameWayThroughValidCandidatesOnly) {
  const auto c = load_case(R"({"name": "big", "op": "scatter_elements", "axis": 0, "reduction": "add", "inputs": {
      "data": {"dtype": "float32", "shape": [40], "generate": {"kind": "uniform", "low": -8, "high": 8, "seed": 1}},
      "indices": {"dtype": "int64", "shape": [64], "generate": {"kind": "randint", "low": -40, "high": 40, "seed": 2}},
      "updates": {"dtype": "float32", "shape": [64], "generate": {"kind": "uniform", "low": -4, "high": 4, "seed": 3}}}})");
  LastUpdateOnly kernel;
  ShrinkOptions options;
  std::vector<std::string> tried;
  options.on_candidate = [&](const std::string& json) { tried.push_back(json); };
  const auto r = shrink_case(c, "big", kernel, options);
  ASSERT_TRUE(r.fails);
  ASSERT_TRUE(r.original.cause);
  EXPECT_EQ(r.original.cause->name, "duplicates_applied_once");
  ASSERT_TRUE(r.minimal);
  EXPECT_EQ(r.final_trial().status, Status::failed);
  ASSERT_TRUE(r.final_trial().cause);
  EXPECT_EQ(r.final_trial().cause->name, "duplicates_applied_once");
  EXPECT_LE(r.minimal->data.numel(), 8);
  EXPECT_LE(r.minimal->updates.numel(), 4);
  EXPECT_GE(r.minimal->updates.numel(), 2) << "a duplicate needs two updates";
  EXPECT_EQ(r.calls, kernel.calls);
  // Every candidate the kernel saw is a valid case by the loader's rules.
  ASSERT_GT(tried.size(), 10u);
  for (const auto& json : tried) {
    const auto entry = testing::load_one(json);
    ASSERT_TRUE(entry.decl) << json;
    EXPECT_NO_THROW(materialize(*entry.decl)) << json;
  }
  // The minimal case, run again, fails the same way.
  const auto minimal = load_case(r.minimal_json);
  const auto got = kernel.run(minimal, {}).output;
  const auto cause = diagnose(minimal, got);
  ASSERT_TRUE(cause);
  EXPECT_EQ(cause->name, "duplicates_applied_once");
}

TEST(Shrink, ACaseThatPassesIsNotShrunk) {
  const auto c = load_case(elements("add", "float32", "[1, 2, 3]", "[0, 1]", "[10, 20]"));
  LastUpdateOnly kernel;  // no duplicate: right
  const auto r = shrink_case(c, "fine", kernel, {});
  EXPECT_FALSE(r.fails);
  EXPECT_EQ(r.original.status, Status::passed);
  EXPECT_EQ(kernel.calls, 1);
}

TEST(Shrink, TheBudgetOfCallsIsKept) {
  const auto c = load_case(elements("add", "float32", "[1, 2, 3, 4]", "[0, 0, 1, 1, 2, 2]", "[1, 2, 3, 4, 5, 6]"));
  LastUpdateOnly kernel;
  ShrinkOptions options;
  options.max_calls = 5;
  const auto r = shrink_case(c, "budget", kernel, options);
  EXPECT_LE(kernel.calls, 5);
  EXPECT_NE(r.stopped.find("budget of 5 backend calls"), std::string::npos) << r.stopped;
}

}  // namespace
}  // namespace scatter

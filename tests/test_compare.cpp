// The comparison rules of the case-format spec ("Comparison"): exact bit for bit
// (any NaN equals any NaN), untouched elements equal to data, any-of-duplicates for
// `none`, allclose for float add/sub/mul/mean duplicates (the case's tolerance
// overriding the default), and the features of every differing element.
// test_compare_report.cpp checks the tolerance hint and the list of mismatches.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../lib/src/report/text.hpp"
#include "scatter/backend.hpp"
#include "scatter/compare.hpp"
#include "test_util.hpp"

namespace {

using scatter::Rule;
using namespace scatter::testing;
using Coord = std::vector<std::int64_t>;

// `c`'s expected output with the element at flat `offset` set to `value` (exactly
// representable in the case's dtype: float32, float64 or int32).
scatter::Tensor changed(const scatter::Case& c, std::int64_t offset, double value) {
  auto got = c.expected->clone();
  switch (got.dtype()) {
    case scatter::DType::float32:
      got.data<float>()[offset] = static_cast<float>(value);
      break;
    case scatter::DType::float64:
      got.data<double>()[offset] = value;
      break;
    case scatter::DType::int32:
      got.data<std::int32_t>()[offset] = static_cast<std::int32_t>(value);
      break;
    default:
      ADD_FAILURE() << "changed() does not write this dtype";
  }
  return got;
}

// data 2x3 zeros, axis 1: out[0][2] <- 3.5, out[1][1] <- -1.25; four elements untouched.
const std::string kExactCase =
    expecting_case(R"("op": "scatter_elements", "axis": 1)", tensor("float32", "[2, 3]", "[0, 0, 0, 0, 0, 0]"),
                   tensor("int64", "[2, 1]", "[[2], [1]]"), tensor("float32", "[2, 1]", "[[3.5], [-1.25]]"),
                   tensor("float32", "[2, 3]", "[[0, 0, 3.5], [0, -1.25, 0]]"));

TEST(CompareExact, EqualOutputPasses) {
  const auto c = load_case(kExactCase);
  const auto result = compare_expected(c, c.expected->clone());
  EXPECT_TRUE(result.passed);
  EXPECT_TRUE(result.against_expected);
  EXPECT_EQ(result.elements, 6);
  EXPECT_EQ(result.mismatches, 0);
  EXPECT_EQ(result.max_error, 0.0);
  EXPECT_TRUE(result.worst.empty());
}

TEST(CompareExact, OneFlippedElementIsReportedWithItsUpdates) {
  const auto c = load_case(kExactCase);
  const auto result = compare_expected(c, changed(c, 2, 9.25f));  // output[0,2]
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 1);
  EXPECT_EQ(result.max_error, 5.75);
  EXPECT_EQ(result.max_error_coord, (Coord{0, 2}));
  ASSERT_EQ(result.worst.size(), 1u);
  const auto& m = result.worst[0];
  EXPECT_EQ(m.offset, 2);
  EXPECT_EQ(m.coord, (Coord{0, 2}));
  EXPECT_EQ(m.expected, "3.5");
  EXPECT_EQ(m.actual, "9.25");
  EXPECT_EQ(m.error, 5.75);
  EXPECT_EQ(m.rule, Rule::exact);
  EXPECT_EQ(m.hits, 1);
  EXPECT_EQ(m.updates, (std::vector<Coord>{{0, 0}}));  // updates[0,0] targets output[0,2]
}

TEST(CompareExact, NegativeZeroDiffersFromPositiveZero) {
  // The update writes -0.0 to out[1]; +0.0 there is a mismatch.
  const auto c = load_case(expecting_case(R"("op": "scatter_elements")", tensor("float32", "[2]", "[1, 1]"),
                                          tensor("int64", "[1]", "[1]"), tensor("float32", "[1]", "[-0.0]"),
                                          tensor("float32", "[2]", "[1, -0.0]")));
  const auto result = compare_expected(c, changed(c, 1, 0.0f));
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
  EXPECT_EQ(result.worst[0].expected, "-0");
  EXPECT_EQ(result.worst[0].actual, "0");
}

TEST(CompareExact, AnyNanEqualsAnyNan) {
  const auto c =
      load_case(expecting_case(R"("op": "scatter_elements", "reduction": "max")", tensor("float32", "[2]", "[1, 1]"),
                               tensor("int64", "[2]", "[0, 1]"), tensor("float32", "[2]", R"(["nan", "nan"])"),
                               tensor("float32", "[2]", R"(["nan", "nan"])")));
  auto got = c.expected->clone();
  got.data<float>()[0] = -std::numeric_limits<float>::quiet_NaN();         // other sign
  got.data<float>()[1] = std::bit_cast<float>(std::uint32_t{0x7fc01234});  // other payload
  EXPECT_TRUE(compare_expected(c, got).passed);
  got.data<float>()[1] = 1.0f;  // but a number is not NaN
  const auto result = compare_expected(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
  EXPECT_EQ(result.worst[0].expected, "nan");
  EXPECT_TRUE(std::isinf(result.worst[0].error));
}

TEST(CompareUntouched, ChangedUntouchedElementFailsAndNamesNoUpdate) {
  const auto c = load_case(kExactCase);
  const auto result = compare_expected(c, changed(c, 3, 1e-30f));  // output[1,0]: no update targets it
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1, 0}));
  EXPECT_EQ(result.worst[0].hits, 0);
  EXPECT_TRUE(result.worst[0].updates.empty());
}

TEST(CompareUntouched, SignOfZeroCountsOnUntouchedElements) {
  const auto c = load_case(kExactCase);
  EXPECT_FALSE(compare_expected(c, changed(c, 0, -0.0f)).passed);  // data has +0.0 there
}

TEST(CompareUntouched, MustEqualDataEvenWhenExpectedSaysOtherwise) {
  // A wrong `expected` (7 where no update goes) does not excuse a backend that agrees with it.
  const auto c = load_case(expecting_case(R"("op": "scatter_elements")", tensor("int32", "[3]", "[1, 2, 3]"),
                                          tensor("int64", "[1]", "[0]"), tensor("int32", "[1]", "[9]"),
                                          tensor("int32", "[3]", "[9, 7, 3]")));
  const auto result = compare_expected(c, c.expected->clone());
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
}

TEST(CompareUntouched, AgainstTheReferenceOutput) {
  const auto c = load_case(kExactCase);
  const auto reference = scatter::reference_scatter(c);
  auto got = reference.clone();
  EXPECT_TRUE(scatter::compare_outputs(c, got, reference, false).passed);
  got.data<float>()[5] = 2.0f;
  const auto result = scatter::compare_outputs(c, got, reference, false);
  EXPECT_FALSE(result.passed);
  EXPECT_FALSE(result.against_expected);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1, 2}));
}

// ---- `none` with duplicate targets

// out[0] <- 1, then 2 (duplicates); out[1] <- 3; out[2] untouched.
std::string none_dup_case(const std::string& dtype) {
  return expecting_case(R"("op": "scatter_elements")", tensor(dtype, "[3]", "[0, 0, 0]"),
                        tensor("int64", "[3]", "[0, 0, 1]"), tensor(dtype, "[3]", "[1, 2, 3]"),
                        tensor(dtype, "[3]", "[2, 3, 0]"));
}

TEST(CompareNoneDuplicates, AnyOfTheDuplicatesPasses) {
  for (const auto* dtype : {"float32", "int32"}) {
    SCOPED_TRACE(dtype);
    const auto c = load_case(none_dup_case(dtype));
    auto got = c.expected->clone();
    const auto exact = compare_expected(c, got);
    EXPECT_TRUE(exact.passed);
    EXPECT_EQ(exact.duplicate_elements, 1);
    EXPECT_EQ(exact.accepted_duplicates, 0);

    // The first duplicate's value, 1, instead of the last writer's 2.
    if (std::string(dtype) == "float32")
      got.data<float>()[0] = 1.0f;
    else
      got.data<std::int32_t>()[0] = 1;
    const auto other = compare_expected(c, got);
    EXPECT_TRUE(other.passed);
    EXPECT_EQ(other.mismatches, 0);
    EXPECT_EQ(other.duplicate_elements, 1);
    EXPECT_EQ(other.accepted_duplicates, 1);
  }
}

TEST(CompareNoneDuplicates, AValueOfNoDuplicateFails) {
  const auto c = load_case(none_dup_case("float32"));
  const auto result = compare_expected(c, changed(c, 0, 3.0f));  // 3 is an update, but not one that targets out[0]
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 1);
  EXPECT_EQ(result.accepted_duplicates, 0);
  ASSERT_EQ(result.worst.size(), 1u);
  const auto& m = result.worst[0];
  EXPECT_EQ(m.coord, (Coord{0}));
  EXPECT_EQ(m.rule, Rule::any_of_duplicates);
  EXPECT_EQ(m.hits, 2);
  EXPECT_EQ(m.updates, (std::vector<Coord>{{0}, {1}}));
  EXPECT_EQ(m.expected, "2");
  EXPECT_EQ(m.actual, "3");
}

TEST(CompareNoneDuplicates, SingleTargetIsStillExact) {
  const auto c = load_case(none_dup_case("float32"));
  const auto result = compare_expected(c, changed(c, 1, 1.0f));  // out[1] has one update (3); 1 is another element's update
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].rule, Rule::exact);
}

// ---- float add duplicates: allclose

// out[0] = 0.5 + 0.1 + 0.2 + 0.3 (three updates), out[1] = 7 + 1 (one update).
std::string float_add_case(const std::string& extra = "") {
  return expecting_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float32", "[3]", "[0.5, 7, 2]"),
                        tensor("int64", "[4]", "[0, 0, 0, 1]"), tensor("float32", "[4]", "[0.1, 0.2, 0.3, 1]"),
                        tensor("float32", "[3]", "[1.1, 8, 2]"), extra);
}

TEST(CompareFloatAdd, OneUlpOnADuplicatePassesByDefault) {
  const auto c = load_case(float_add_case());
  const auto result = compare_expected(c, changed(c, 0, std::nextafter(c.expected->data<float>()[0], 2.0f)));
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.duplicate_elements, 1);
  EXPECT_GT(result.max_error, 0.0);
  EXPECT_EQ(result.max_error_coord, (Coord{0}));
}

TEST(CompareFloatAdd, BeyondTheDefaultToleranceFails) {
  const auto c = load_case(float_add_case());
  auto got = c.expected->clone();
  got.data<float>()[0] += 1e-3f;
  const auto result = compare_expected(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].rule, Rule::allclose);
  EXPECT_GT(result.worst[0].allowed, 0.0);
  EXPECT_LT(result.worst[0].allowed, 1e-3);
  EXPECT_EQ(result.worst[0].hits, 3);
  EXPECT_EQ(result.worst[0].updates, (std::vector<Coord>{{0}, {1}, {2}}));
}

TEST(CompareFloatAdd, SingleUpdateElementIsExact) {
  const auto c = load_case(float_add_case());
  const auto result = compare_expected(c, changed(c, 1, std::nextafter(8.0f, 9.0f)));
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
  EXPECT_EQ(result.worst[0].rule, Rule::exact);
}

TEST(CompareFloatAdd, CaseToleranceOverridesTheDefault) {
  const auto loose = load_case(float_add_case(R"(, "tolerance": {"atol": 0.01, "rtol": 0})"));
  auto got = loose.expected->clone();
  got.data<float>()[0] += 1e-3f;  // fails by default (above), within atol 0.01
  EXPECT_TRUE(compare_expected(loose, got).passed);
  got.data<float>()[0] = loose.expected->data<float>()[0] + 0.02f;
  const auto beyond = compare_expected(loose, got);
  EXPECT_FALSE(beyond.passed);
  ASSERT_EQ(beyond.worst.size(), 1u);
  EXPECT_NEAR(beyond.worst[0].allowed, 0.01, 1e-12);

  const auto strict = load_case(float_add_case(R"(, "tolerance": {"atol": 0, "rtol": 0})"));
  auto ulp = strict.expected->clone();
  ulp.data<float>()[0] = std::nextafter(ulp.data<float>()[0], 2.0f);  // passes by default (above)
  EXPECT_FALSE(compare_expected(strict, ulp).passed);
}

TEST(CompareFloatAdd, RtolScalesWithTheExpectedValue) {
  // rtol 0.01 of |1.1| allows 0.011.
  const auto c = load_case(float_add_case(R"(, "tolerance": {"atol": 0, "rtol": 0.01})"));
  auto got = c.expected->clone();
  got.data<float>()[0] += 0.005f;
  EXPECT_TRUE(compare_expected(c, got).passed);
  got.data<float>()[0] = c.expected->data<float>()[0] + 0.05f;
  EXPECT_FALSE(compare_expected(c, got).passed);
}

TEST(CompareFloatMul, DuplicatesAreComparedWithATolerance) {
  // 1.5 * 1.1 * 1.3 with one ulp off passes; exactness is only for untouched and single hits.
  const auto c = load_case(expecting_case(R"("op": "scatter_nd", "reduction": "mul")",
                                          tensor("float64", "[1]", "[1.5]"), tensor("int64", "[2, 1]", "[[0], [0]]"),
                                          tensor("float64", "[2]", "[1.1, 1.3]"), tensor("float64", "[1]", "[2.145]")));
  auto got = c.expected->clone();
  got.data<double>()[0] = std::nextafter(got.data<double>()[0], 3.0);
  EXPECT_TRUE(compare_expected(c, got).passed);
  got.data<double>()[0] = 2.2;
  EXPECT_FALSE(compare_expected(c, got).passed);
}

TEST(CompareIntegerAdd, DuplicatesAreExact) {
  const auto c = load_case(expecting_case(R"("op": "scatter_elements", "reduction": "add")",
                                          tensor("int32", "[2]", "[100, 0]"), tensor("int64", "[3]", "[0, 0, 0]"),
                                          tensor("int32", "[3]", "[1, 2, 3]"), tensor("int32", "[2]", "[106, 0]")));
  const auto result = compare_expected(c, changed(c, 0, 107));
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].rule, Rule::exact);
  EXPECT_EQ(result.worst[0].expected, "106");
  EXPECT_EQ(result.worst[0].actual, "107");
  EXPECT_EQ(result.worst[0].error, 1.0);
}

TEST(CompareFloatMinMax, DuplicatesAreExact) {
  const auto c = load_case(expecting_case(R"("op": "scatter_elements", "reduction": "max")",
                                          tensor("float32", "[1]", "[0]"), tensor("int64", "[2]", "[0, 0]"),
                                          tensor("float32", "[2]", "[0.1, 0.3]"), tensor("float32", "[1]", "[0.3]")));
  EXPECT_FALSE(compare_expected(c, changed(c, 0, std::nextafter(c.expected->data<float>()[0], 1.0f))).passed);
}

// ---- element features: what every differing element had (expectations match on them)

using Features = std::vector<std::uint32_t>;

TEST(CompareFeatures, NamesRoundTrip) {
  EXPECT_EQ(scatter::parse_element_feature("dup"), 1u);
  EXPECT_EQ(scatter::parse_element_feature("nan_involved"), 2u);
  EXPECT_EQ(scatter::parse_element_feature("nan_mismatch"), 4u);
  EXPECT_EQ(scatter::parse_element_feature("signed_zero"), 8u);
  EXPECT_EQ(scatter::parse_element_feature("zero_involved"), 16u);
  EXPECT_EQ(scatter::parse_element_feature("inf_involved"), 32u);
  EXPECT_EQ(scatter::parse_element_feature("neg_index"), 64u);
  EXPECT_EQ(scatter::parse_element_feature("untouched"), 128u);
  EXPECT_EQ(scatter::parse_element_feature("error"), 0u);
  EXPECT_EQ(scatter::parse_element_feature("Dup"), 0u);
  EXPECT_EQ(scatter::element_feature_name(scatter::kElementNanMismatch), "nan_mismatch");
  EXPECT_EQ(scatter::element_feature_name(scatter::kElementUntouched), "untouched");
}

TEST(CompareFeatures, NoneWhenPassedOrWhenTheShapeIsWrong) {
  const auto c = load_case(kExactCase);
  EXPECT_TRUE(compare_expected(c, c.expected->clone()).mismatch_features.empty());
  const scatter::Tensor wrong_shape(scatter::DType::float32, scatter::Shape{6});
  const auto result = compare_expected(c, wrong_shape);
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(result.mismatch_features.empty());
}

// One element of a case's expected output changed, and the features it must be reported with.
struct ChangedElement {
  std::string name;
  std::string json;
  std::int64_t offset;
  double value;
  Features features;
};

void PrintTo(const ChangedElement& row, std::ostream* os) { *os << row.name; }

class CompareFeaturesOfOneElement : public ::testing::TestWithParam<ChangedElement> {};

TEST_P(CompareFeaturesOfOneElement, AreReported) {
  const auto& row = GetParam();
  const auto c = load_case(row.json);
  EXPECT_EQ(compare_expected(c, changed(c, row.offset, row.value)).mismatch_features, row.features);
}

const std::string kAdd = R"("op": "scatter_elements", "reduction": "add")";

INSTANTIATE_TEST_SUITE_P(
    CompareFeatures, CompareFeaturesOfOneElement,
    ::testing::ValuesIn(std::vector<ChangedElement>{
        // out[0] = 0 + 1 + 2 + 3; 7 is wrong. Integers get no nan/inf/zero features.
        {"DuplicateOnIntegersHasNoValueFeatures",
         expecting_case(kAdd, tensor("int32", "[2]", "[0, 0]"), tensor("int64", "[3]", "[0, 0, 0]"),
                        tensor("int32", "[3]", "[1, 2, 3]"), tensor("int32", "[2]", "[6, 0]")),
         0, 7, Features{scatter::kElementDup}},
        // any-of-duplicates: out[0] takes 1 or 2 onto data 0 (a zero input); 3 fails.
        {"DuplicatesFailingByTheirRuleCountNone", none_dup_case("float32"), 0, 3,
         Features{scatter::kElementDup | scatter::kElementZeroInvolved}},
        // allclose: 0.5 + 0.1 + 0.2 + 0.3, off by 1e-3; no zero, NaN or infinity went in.
        {"DuplicatesFailingByTheirRuleCountAllclose", float_add_case(), 0, 1.1f + 1e-3f,
         Features{scatter::kElementDup}},
        // output[1,0]: no update, data 0 (a zero input) changed to 1e-30.
        {"UntouchedElementCountsItsDataValue", kExactCase, 3, 1e-30f,
         Features{scatter::kElementUntouched | scatter::kElementZeroInvolved}},
        // max: out[0] = max(1, NaN) = NaN; a backend that keeps 1 dropped the NaN update.
        {"DroppedNanUpdate",
         expecting_case(R"("op": "scatter_elements", "reduction": "max")", tensor("float32", "[2]", "[1, 1]"),
                        tensor("int64", "[2]", "[0, 1]"), tensor("float32", "[2]", R"(["nan", 2])"),
                        tensor("float32", "[2]", R"(["nan", 2])")),
         0, 1, Features{scatter::kElementNanInvolved | scatter::kElementNanMismatch}},
        // add onto data NaN: with use_init_val the result is NaN; without it, 2 (data unused).
        {"DataEntersWithUseInitVal",
         expecting_case(kAdd, tensor("float32", "[2]", R"(["nan", 5])"), tensor("int64", "[1]", "[0]"),
                        tensor("float32", "[1]", "[2]"), tensor("float32", "[2]", R"(["nan", 5])")),
         0, 2, Features{scatter::kElementNanInvolved | scatter::kElementNanMismatch}},
        {"DataDoesNotEnterWithoutUseInitVal",
         expecting_case(kAdd + R"(, "use_init_val": false)", tensor("float32", "[2]", R"(["nan", 5])"),
                        tensor("int64", "[1]", "[0]"), tensor("float32", "[1]", "[2]"),
                        tensor("float32", "[2]", "[2, 5]")),
         0, 3, Features{0u}},
        // min(+0, -0) = -0 (IEEE 754-2019); +0 differs in sign only. Both inputs are zeros.
        {"SignedZero",
         expecting_case(R"("op": "scatter_nd", "reduction": "min")", tensor("float32", "[2]", "[0, 3]"),
                        tensor("int64", "[1, 1]", "[[0]]"), tensor("float32", "[1]", "[-0.0]"),
                        tensor("float32", "[2]", "[-0.0, 3]")),
         0, 0, Features{scatter::kElementSignedZero | scatter::kElementZeroInvolved}},
        // out[1] = 2 + inf; a finite 5 is wrong, but not a NaN disagreement.
        {"InfinityAmongTheInputs",
         expecting_case(kAdd, tensor("float32", "[2]", "[1, 2]"), tensor("int64", "[1]", "[1]"),
                        tensor("float32", "[1]", R"(["inf"])"), tensor("float32", "[2]", R"([1, "inf"])")),
         1, 5, Features{scatter::kElementInfInvolved}},
    }),
    [](const ::testing::TestParamInfo<ChangedElement>& info) { return info.param.name; });

TEST(CompareFeatures, EveryDifferingElementNotOnlyTheReportedOnes) {
  // out[2] <- 4 through index -1, out[0] <- 5 through index 0; both wrong, one reported.
  const auto c = load_case(expecting_case(R"("op": "scatter_elements")", tensor("float32", "[3]", "[1, 1, 1]"),
                                          tensor("int64", "[2]", "[-1, 0]"), tensor("float32", "[2]", "[4, 5]"),
                                          tensor("float32", "[3]", "[5, 1, 4]")));
  auto got = c.expected->clone();
  got.data<float>()[0] = 6.0f;   // error 1
  got.data<float>()[2] = 40.0f;  // error 36: the one reported
  scatter::CompareOptions options;
  options.max_reported = 1;
  const auto result = compare_expected(c, got, options);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{2}));
  EXPECT_EQ(result.mismatch_features, (Features{0u, scatter::kElementNegIndex}));
}

TEST(CompareFeatures, NegativeIndexTupleInScatterNd) {
  // The tuple (-1) writes the row out[1]; out[1][1] is wrong.
  const auto c = load_case(expecting_case(R"("op": "scatter_nd")", tensor("float32", "[2, 2]", "[[1, 1], [1, 1]]"),
                                          tensor("int64", "[1, 1]", "[[-1]]"), tensor("float32", "[1, 2]", "[[3, 4]]"),
                                          tensor("float32", "[2, 2]", "[[1, 1], [3, 4]]")));
  EXPECT_EQ(compare_expected(c, changed(c, 3, 9)).mismatch_features, (Features{scatter::kElementNegIndex}));
  // out[0][1]: untouched, data 1.
  EXPECT_EQ(compare_expected(c, changed(c, 1, 9)).mismatch_features, (Features{scatter::kElementUntouched}));

  // Two components, one negative: (0, -2) is out[0][0] of a 2x2.
  const auto two =
      load_case(expecting_case(R"("op": "scatter_nd")", tensor("int32", "[2, 2]", "[[1, 1], [1, 1]]"),
                               tensor("int64", "[2, 2]", "[[0, -2], [1, 1]]"), tensor("int32", "[2]", "[5, 6]"),
                               tensor("int32", "[2, 2]", "[[5, 1], [1, 6]]")));
  auto wrong = two.expected->clone();
  wrong.data<std::int32_t>()[0] = 0;
  wrong.data<std::int32_t>()[3] = 0;
  EXPECT_EQ(compare_expected(two, wrong).mismatch_features, (Features{0u, scatter::kElementNegIndex}));
}

}  // namespace

namespace {

// 12288 float32 zeros, axis 0, add: out[5] = 1, out[5000] = 2 + 2 (a duplicate), out[9000] = 3.
// Three blocks of the comparison's 4096 elements, so that equal blocks take the bitwise path and
// a differing element sits among equal ones.
scatter::Case three_block_case() {
  constexpr int kElements = 12288;
  std::string zeros, want;
  for (int i = 0; i < kElements; ++i) {
    const char* sep = i ? ", " : "";
    zeros += std::string(sep) + "0";
    want += std::string(sep) + (i == 5 ? "1" : i == 5000 ? "4" : i == 9000 ? "3" : "0");
  }
  const auto shape = "[" + std::to_string(kElements) + "]";
  return load_case(expecting_case(R"("op": "scatter_elements", "reduction": "add")",
                                  tensor("float32", shape, "[" + zeros + "]"),
                                  tensor("int64", "[4]", "[5, 5000, 5000, 9000]"), tensor("float32", "[4]", "[1, 2, 2, 3]"),
                                  tensor("float32", shape, "[" + want + "]")));
}

}  // namespace

// Against a want that untouched elements are judged by (the reference, in a trial), blocks
// equal to want pass whole: the verdict and its counts must be the element loop's.
TEST(CompareBlocks, EqualBlocksPassWithTheirDuplicatesCounted) {
  const auto c = three_block_case();
  scatter::CompareOptions options;
  options.untouched_from_want = true;
  const auto same = compare_expected(c, c.expected->clone(), options);
  EXPECT_TRUE(same.passed);
  EXPECT_EQ(same.mismatches, 0);
  EXPECT_EQ(same.duplicate_elements, 1);  // out[5000]
  EXPECT_EQ(same.elements, 12288);
}

TEST(CompareBlocks, AnElementAmongEqualBlocksStillFails) {
  const auto c = three_block_case();
  scatter::CompareOptions options;
  options.untouched_from_want = true;
  const auto updated = compare_expected(c, changed(c, 9000, 7.0), options);
  EXPECT_FALSE(updated.passed);
  EXPECT_EQ(updated.mismatches, 1);
  EXPECT_EQ(updated.duplicate_elements, 1);
  const auto untouched = compare_expected(c, changed(c, 12287, -2.0), options);
  EXPECT_FALSE(untouched.passed);
  EXPECT_EQ(untouched.mismatches, 1);
  ASSERT_FALSE(untouched.worst.empty());
  EXPECT_EQ(untouched.worst.front().coord, (Coord{12287}));
  // Within the tolerance of its two updates, the duplicate passes by the allclose rule.
  auto close = c.expected->clone();
  close.data<float>()[5000] = std::nextafter(4.0f, 5.0f);
  EXPECT_TRUE(compare_expected(c, close, options).passed);
}

// ---- a large output, compared a part at a time on every core

// 2.5M float32 elements, each updated once (index i -> i), 1000 of them (every 2048th) twice:
// three parts of 2^20 elements. Three wrong elements, one in each part, and a duplicate that
// kept its other update (which `none` allows). The verdict is what one pass in order gives.
TEST(CompareLarge, PartsOnEveryCoreGiveTheVerdictOfOnePassInOrder) {
  constexpr std::int64_t n = 2'500'000, extra = 1000, stride = 2048;
  scatter::Case c;
  c.name = "large";
  c.attrs = {scatter::Op::scatter_elements, 0, scatter::Reduction::none, true};
  c.data = scatter::Tensor(scatter::DType::float32, {n});
  c.indices = scatter::Tensor(scatter::DType::int64, {n + extra});
  c.updates = scatter::Tensor(scatter::DType::float32, {n + extra});
  for (std::int64_t i = 0; i < n; ++i) {
    c.data.data<float>()[i] = -1.0f;
    c.indices.data<std::int64_t>()[i] = i;
    c.updates.data<float>()[i] = static_cast<float>(i % 1000);
  }
  for (std::int64_t j = 0; j < extra; ++j) {
    c.indices.data<std::int64_t>()[n + j] = j * stride;
    c.updates.data<float>()[n + j] = 5000.0f + static_cast<float>(j);  // the last writer
  }
  const auto want = scatter::reference_scatter(c);
  auto got = want.clone();
  got.data<float>()[5] += 1.0f;                 // part 0
  got.data<float>()[(1 << 20) + 1] += 3.0f;     // part 1, its second element
  got.data<float>()[2'499'999] += 2.0f;         // part 2, the last element
  got.data<float>()[3 * stride] = static_cast<float>(3 * stride % 1000);  // a duplicate kept its first update
  const auto r = scatter::compare_outputs(c, got, want, false);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatches, 3);
  EXPECT_EQ(r.exact_mismatches, 3);
  EXPECT_EQ(r.duplicate_elements, extra);
  EXPECT_EQ(r.accepted_duplicates, 1);
  // The largest difference seen is the accepted duplicate's: 6144 % 1000 kept, 5003 last written.
  EXPECT_EQ(r.max_error, 5003.0 - 144.0);
  EXPECT_EQ(r.max_error_coord, (Coord{3 * stride}));
  ASSERT_EQ(r.worst.size(), 3u);
  EXPECT_EQ(r.worst[0].coord, (Coord{(1 << 20) + 1}));
  EXPECT_EQ(r.worst[1].coord, (Coord{2'499'999}));
  EXPECT_EQ(r.worst[2].coord, (Coord{5}));
  EXPECT_TRUE(scatter::compare_outputs(c, want.clone(), want, false).passed);
}

// The comparison rules of the case-format spec ("Comparison"): exact bit for bit
// (any NaN equals any NaN), untouched elements equal to data, any-of-duplicates for
// `none`, allclose for float add/sub/mul/mean duplicates (the case's tolerance
// overriding the default), and the worst-first list of mismatches.

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
using scatter::testing::load_case;
using Coord = std::vector<std::int64_t>;

std::string tensor(const std::string& dtype, const std::string& shape, const std::string& values) {
  return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "values": )" + values + "}";
}

std::string make_case(const std::string& attrs, const std::string& data, const std::string& indices,
                      const std::string& updates, const std::string& expected, const std::string& extra = "") {
  return R"({"name": "t", )" + attrs + R"(, "inputs": {"data": )" + data + R"(, "indices": )" + indices +
         R"(, "updates": )" + updates + R"(}, "expected": )" + expected + extra + "}";
}

scatter::Comparison compare(const scatter::Case& c, const scatter::Tensor& got, const scatter::CompareOptions& options = {}) {
  return scatter::compare_outputs(c, got, *c.expected, true, options);
}

// data 2x3 zeros, axis 1: out[0][2] <- 3.5, out[1][1] <- -1.25; four elements untouched.
const std::string kExactCase =
    make_case(R"("op": "scatter_elements", "axis": 1)", tensor("float32", "[2, 3]", "[0, 0, 0, 0, 0, 0]"),
              tensor("int64", "[2, 1]", "[[2], [1]]"), tensor("float32", "[2, 1]", "[[3.5], [-1.25]]"),
              tensor("float32", "[2, 3]", "[[0, 0, 3.5], [0, -1.25, 0]]"));

TEST(CompareExact, EqualOutputPasses) {
  const auto c = load_case(kExactCase);
  const auto result = compare(c, c.expected->clone());
  EXPECT_TRUE(result.passed);
  EXPECT_TRUE(result.against_expected);
  EXPECT_EQ(result.elements, 6);
  EXPECT_EQ(result.mismatches, 0);
  EXPECT_EQ(result.max_error, 0.0);
  EXPECT_TRUE(result.worst.empty());
}

TEST(CompareExact, OneFlippedElementIsReportedWithItsUpdates) {
  const auto c = load_case(kExactCase);
  auto got = c.expected->clone();
  got.data<float>()[2] = 9.25f;  // output[0,2]
  const auto result = compare(c, got);
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
  const auto c = load_case(make_case(R"("op": "scatter_elements")", tensor("float32", "[2]", "[1, 1]"),
                                     tensor("int64", "[1]", "[1]"), tensor("float32", "[1]", "[-0.0]"),
                                     tensor("float32", "[2]", "[1, -0.0]")));
  auto got = c.expected->clone();
  got.data<float>()[1] = 0.0f;
  const auto result = compare(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
  EXPECT_EQ(result.worst[0].expected, "-0");
  EXPECT_EQ(result.worst[0].actual, "0");
}

TEST(CompareExact, AnyNanEqualsAnyNan) {
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "max")", tensor("float32", "[2]", "[1, 1]"),
                                     tensor("int64", "[2]", "[0, 1]"), tensor("float32", "[2]", R"(["nan", "nan"])"),
                                     tensor("float32", "[2]", R"(["nan", "nan"])")));
  auto got = c.expected->clone();
  got.data<float>()[0] = -std::numeric_limits<float>::quiet_NaN();       // other sign
  got.data<float>()[1] = std::bit_cast<float>(std::uint32_t{0x7fc01234});  // other payload
  EXPECT_TRUE(compare(c, got).passed);
  got.data<float>()[1] = 1.0f;  // but a number is not NaN
  const auto result = compare(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
  EXPECT_EQ(result.worst[0].expected, "nan");
  EXPECT_TRUE(std::isinf(result.worst[0].error));
}

TEST(CompareUntouched, ChangedUntouchedElementFailsAndNamesNoUpdate) {
  const auto c = load_case(kExactCase);
  auto got = c.expected->clone();
  got.data<float>()[3] = 1e-30f;  // output[1,0]: no update targets it
  const auto result = compare(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1, 0}));
  EXPECT_EQ(result.worst[0].hits, 0);
  EXPECT_TRUE(result.worst[0].updates.empty());
}

TEST(CompareUntouched, SignOfZeroCountsOnUntouchedElements) {
  const auto c = load_case(kExactCase);
  auto got = c.expected->clone();
  got.data<float>()[0] = -0.0f;  // data has +0.0 there
  EXPECT_FALSE(compare(c, got).passed);
}

TEST(CompareUntouched, MustEqualDataEvenWhenExpectedSaysOtherwise) {
  // A wrong `expected` (7 where no update goes) does not excuse a backend that agrees with it.
  const auto c = load_case(make_case(R"("op": "scatter_elements")", tensor("int32", "[3]", "[1, 2, 3]"),
                                     tensor("int64", "[1]", "[0]"), tensor("int32", "[1]", "[9]"),
                                     tensor("int32", "[3]", "[9, 7, 3]")));
  const auto result = compare(c, c.expected->clone());
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
  return make_case(R"("op": "scatter_elements")", tensor(dtype, "[3]", "[0, 0, 0]"), tensor("int64", "[3]", "[0, 0, 1]"),
                   tensor(dtype, "[3]", "[1, 2, 3]"), tensor(dtype, "[3]", "[2, 3, 0]"));
}

TEST(CompareNoneDuplicates, AnyOfTheDuplicatesPasses) {
  for (const auto* dtype : {"float32", "int32"}) {
    SCOPED_TRACE(dtype);
    const auto c = load_case(none_dup_case(dtype));
    auto got = c.expected->clone();
    const auto exact = compare(c, got);
    EXPECT_TRUE(exact.passed);
    EXPECT_EQ(exact.duplicate_elements, 1);
    EXPECT_EQ(exact.accepted_duplicates, 0);

    // The first duplicate's value, 1, instead of the last writer's 2.
    if (std::string(dtype) == "float32") got.data<float>()[0] = 1.0f;
    else got.data<std::int32_t>()[0] = 1;
    const auto other = compare(c, got);
    EXPECT_TRUE(other.passed);
    EXPECT_EQ(other.mismatches, 0);
    EXPECT_EQ(other.duplicate_elements, 1);
    EXPECT_EQ(other.accepted_duplicates, 1);
  }
}

TEST(CompareNoneDuplicates, AValueOfNoDuplicateFails) {
  const auto c = load_case(none_dup_case("float32"));
  auto got = c.expected->clone();
  got.data<float>()[0] = 3.0f;  // 3 is an update, but not one that targets out[0]
  const auto result = compare(c, got);
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
  auto got = c.expected->clone();
  got.data<float>()[1] = 1.0f;  // out[1] has one update (3); 1 is another element's update
  const auto result = compare(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].rule, Rule::exact);
}

// ---- float add duplicates: allclose

// out[0] = 0.5 + 0.1 + 0.2 + 0.3 (three updates), out[1] = 7 + 1 (one update).
std::string float_add_case(const std::string& extra = "") {
  return make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float32", "[3]", "[0.5, 7, 2]"),
                   tensor("int64", "[4]", "[0, 0, 0, 1]"), tensor("float32", "[4]", "[0.1, 0.2, 0.3, 1]"),
                   tensor("float32", "[3]", "[1.1, 8, 2]"), extra);
}

TEST(CompareFloatAdd, OneUlpOnADuplicatePassesByDefault) {
  const auto c = load_case(float_add_case());
  auto got = c.expected->clone();
  got.data<float>()[0] = std::nextafter(got.data<float>()[0], 2.0f);
  const auto result = compare(c, got);
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.duplicate_elements, 1);
  EXPECT_GT(result.max_error, 0.0);
  EXPECT_EQ(result.max_error_coord, (Coord{0}));
}

TEST(CompareFloatAdd, BeyondTheDefaultToleranceFails) {
  const auto c = load_case(float_add_case());
  auto got = c.expected->clone();
  got.data<float>()[0] += 1e-3f;
  const auto result = compare(c, got);
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
  auto got = c.expected->clone();
  got.data<float>()[1] = std::nextafter(8.0f, 9.0f);
  const auto result = compare(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{1}));
  EXPECT_EQ(result.worst[0].rule, Rule::exact);
}

TEST(CompareFloatAdd, CaseToleranceOverridesTheDefault) {
  const auto loose = load_case(float_add_case(R"(, "tolerance": {"atol": 0.01, "rtol": 0})"));
  auto got = loose.expected->clone();
  got.data<float>()[0] += 1e-3f;  // fails by default (above), within atol 0.01
  EXPECT_TRUE(compare(loose, got).passed);
  got.data<float>()[0] = loose.expected->data<float>()[0] + 0.02f;
  const auto beyond = compare(loose, got);
  EXPECT_FALSE(beyond.passed);
  ASSERT_EQ(beyond.worst.size(), 1u);
  EXPECT_NEAR(beyond.worst[0].allowed, 0.01, 1e-12);

  const auto strict = load_case(float_add_case(R"(, "tolerance": {"atol": 0, "rtol": 0})"));
  auto ulp = strict.expected->clone();
  ulp.data<float>()[0] = std::nextafter(ulp.data<float>()[0], 2.0f);  // passes by default (above)
  EXPECT_FALSE(compare(strict, ulp).passed);
}

TEST(CompareFloatAdd, RtolScalesWithTheExpectedValue) {
  // rtol 0.01 of |1.1| allows 0.011.
  const auto c = load_case(float_add_case(R"(, "tolerance": {"atol": 0, "rtol": 0.01})"));
  auto got = c.expected->clone();
  got.data<float>()[0] += 0.005f;
  EXPECT_TRUE(compare(c, got).passed);
  got.data<float>()[0] = c.expected->data<float>()[0] + 0.05f;
  EXPECT_FALSE(compare(c, got).passed);
}

TEST(CompareFloatMul, DuplicatesAreComparedWithATolerance) {
  // 1.5 * 1.1 * 1.3 with one ulp off passes; exactness is only for untouched and single hits.
  const auto c = load_case(make_case(R"("op": "scatter_nd", "reduction": "mul")", tensor("float64", "[1]", "[1.5]"),
                                     tensor("int64", "[2, 1]", "[[0], [0]]"), tensor("float64", "[2]", "[1.1, 1.3]"),
                                     tensor("float64", "[1]", "[2.145]")));
  auto got = c.expected->clone();
  got.data<double>()[0] = std::nextafter(got.data<double>()[0], 3.0);
  EXPECT_TRUE(compare(c, got).passed);
  got.data<double>()[0] = 2.2;
  EXPECT_FALSE(compare(c, got).passed);
}

TEST(CompareIntegerAdd, DuplicatesAreExact) {
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("int32", "[2]", "[100, 0]"),
                                     tensor("int64", "[3]", "[0, 0, 0]"), tensor("int32", "[3]", "[1, 2, 3]"),
                                     tensor("int32", "[2]", "[106, 0]")));
  auto got = c.expected->clone();
  got.data<std::int32_t>()[0] = 107;
  const auto result = compare(c, got);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].rule, Rule::exact);
  EXPECT_EQ(result.worst[0].expected, "106");
  EXPECT_EQ(result.worst[0].actual, "107");
  EXPECT_EQ(result.worst[0].error, 1.0);
}

TEST(CompareFloatMinMax, DuplicatesAreExact) {
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "max")", tensor("float32", "[1]", "[0]"),
                                     tensor("int64", "[2]", "[0, 0]"), tensor("float32", "[2]", "[0.1, 0.3]"),
                                     tensor("float32", "[1]", "[0.3]")));
  auto got = c.expected->clone();
  got.data<float>()[0] = std::nextafter(got.data<float>()[0], 1.0f);
  EXPECT_FALSE(compare(c, got).passed);
}

// ---- the tolerance hint: pasting it into the case makes the comparison pass

// out[0] = 1000 + 1000 + 1000, out[1] = 0.5 + 0.25 + 0.125 (two updates each), out[2] = 2 + 3.
std::string hint_case(const std::string& extra = "") {
  return make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float32", "[3]", "[1000, 0.5, 2]"),
                   tensor("int64", "[5]", "[0, 0, 1, 1, 2]"), tensor("float32", "[5]", "[1000, 1000, 0.25, 0.125, 3]"),
                   tensor("float32", "[3]", "[3000, 0.875, 5]"), extra);
}

// out[0] 4 ulps high (9.765625e-4: within its default 2*eps*(3000 + 3000) = 1.43e-3),
// out[1] = float32(0.8751), 1678 ulps = 1.000166e-4 high (its default allows 4.2e-7).
scatter::Tensor hint_output(const scatter::Case& c) {
  auto got = c.expected->clone();
  got.data<float>()[0] = 3000.0f + 4 * 0x1.0p-12f;
  got.data<float>()[1] = 0.8751f;
  return got;
}

// The `"tolerance": {...}` the report suggests, cut from its text.
std::string suggested_tolerance(const scatter::Comparison& result) {
  const auto text = scatter::detail::comparison_text(result, "");
  const auto begin = text.find(R"("tolerance": {)");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find('}', begin) + 1 - begin);
}

TEST(CompareHint, PastingTheHintIntoTheCasePasses) {
  const auto c = load_case(hint_case());
  const auto got = hint_output(c);
  const auto result = compare(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 1);  // out[1]; out[0] passes by its default
  EXPECT_EQ(result.exact_mismatches, 0);
  EXPECT_TRUE(result.tolerance_applies);
  // The tolerance replaces out[0]'s default too, so it must cover out[0]'s 9.765625e-4,
  // rounded up (9.77e-4 >= 9.765625e-4), with rtol 0.
  EXPECT_EQ(result.needed_atol, 0.000977);
  EXPECT_EQ(result.needed_rtol, 0.0);
  const auto tolerance = suggested_tolerance(result);
  EXPECT_EQ(tolerance, R"("tolerance": {"atol": 0.000977, "rtol": 0})");
  ASSERT_FALSE(tolerance.empty());
  const auto rerun = load_case(hint_case(", " + tolerance));
  const auto again = compare(rerun, got);
  EXPECT_TRUE(again.passed) << again.mismatches << " differ under " << again.rule;
  // And nothing smaller at the last digit passes: 0.000976 < 9.765625e-4.
  const auto tighter = load_case(hint_case(R"(, "tolerance": {"atol": 0.000976, "rtol": 0})"));
  EXPECT_FALSE(compare(tighter, got).passed);
}

TEST(CompareHint, KeepsTheCasesRtol) {
  // With rtol 1e-5 out[0] is allowed 0.03; out[1] is allowed 8.75e-6 and needs
  // 1.000166e-4 - 8.75e-6 = 9.1267e-5 more: atol 9.13e-5 with the same rtol.
  const auto c = load_case(hint_case(R"(, "tolerance": {"atol": 0, "rtol": 1e-5})"));
  const auto got = hint_output(c);
  const auto result = compare(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.needed_rtol, 1e-5);
  EXPECT_EQ(result.needed_atol, 9.13e-5);
  const auto tolerance = suggested_tolerance(result);
  EXPECT_EQ(tolerance, R"("tolerance": {"atol": 9.13e-05, "rtol": 1e-05})");
  EXPECT_TRUE(compare(load_case(hint_case(", " + tolerance)), got).passed);
}

TEST(CompareHint, NoneWhereEveryElementIsExact) {
  // max is compared exactly: a tolerance would change nothing, so none is suggested.
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "max")", tensor("float32", "[2]", "[0, 0]"),
                                     tensor("int64", "[2]", "[0, 0]"), tensor("float32", "[2]", "[1, 3]"),
                                     tensor("float32", "[2]", "[3, 0]")));
  auto got = c.expected->clone();
  got.data<float>()[0] = 4.0f;
  const auto result = compare(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_FALSE(result.tolerance_applies);
  EXPECT_TRUE(std::isinf(result.needed_atol));
  EXPECT_EQ(suggested_tolerance(result), "");
  EXPECT_NE(scatter::detail::comparison_text(result, "").find(
                "no tolerance applies: every element of this case is compared exactly"),
            std::string::npos);
}

TEST(CompareHint, ExactElementsAreNamedApart) {
  // out[2] (one update) differs: no tolerance passes the case; out[1] alone would need 1.01e-4.
  const auto c = load_case(hint_case());
  auto got = c.expected->clone();
  got.data<float>()[1] = 0.8751f;
  got.data<float>()[2] = 5.5f;
  const auto result = compare(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.exact_mismatches, 1);
  EXPECT_TRUE(std::isinf(result.needed_atol));
  EXPECT_EQ(result.allclose_atol, 0.000101);
  const auto text = scatter::detail::comparison_text(result, "");
  EXPECT_NE(text.find("no tolerance would pass: 1 differing element is compared exactly"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(the 1 differing allclose element would pass with "tolerance": {"atol": 0.000101, "rtol": 0})"),
            std::string::npos)
      << text;
}

TEST(CompareHint, NanDisagreementHasNoTolerance) {
  const auto c = load_case(hint_case());
  auto got = c.expected->clone();
  got.data<float>()[1] = std::numeric_limits<float>::quiet_NaN();
  const auto result = compare(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_TRUE(std::isinf(result.needed_atol));
  EXPECT_NE(scatter::detail::comparison_text(result, "").find("no tolerance would pass: a NaN or infinity disagrees"),
            std::string::npos);
}

TEST(CompareHint, RoundsUpToThreeDigits) {
  EXPECT_EQ(scatter::round_up_3_digits(9.6149), 9.62);
  EXPECT_EQ(scatter::round_up_3_digits(9.61), 9.61);
  EXPECT_EQ(scatter::round_up_3_digits(0.0001), 0.0001);
  EXPECT_EQ(scatter::round_up_3_digits(1.000166e-4), 0.000101);
  EXPECT_EQ(scatter::round_up_3_digits(9.995), 10.0);
  EXPECT_EQ(scatter::round_up_3_digits(999.5), 1000.0);
  EXPECT_EQ(scatter::round_up_3_digits(1e-300 * 1.0001), 1.01e-300);
  EXPECT_EQ(scatter::round_up_3_digits(0.0), 0.0);
  EXPECT_EQ(scatter::round_up_3_digits(-2.0), 0.0);
  EXPECT_TRUE(std::isinf(scatter::round_up_3_digits(std::numeric_limits<double>::infinity())));
}

// ---- the worst list

// Six single-target elements 1..6; the test perturbs five of them.
const std::string kSixCase =
    make_case(R"("op": "scatter_elements")", tensor("float32", "[6]", "[0, 0, 0, 0, 0, 0]"),
              tensor("int64", "[6]", "[0, 1, 2, 3, 4, 5]"), tensor("float32", "[6]", "[1, 2, 3, 4, 5, 6]"),
              tensor("float32", "[6]", "[1, 2, 3, 4, 5, 6]"));

scatter::Tensor perturbed(const scatter::Case& c) {
  auto got = c.expected->clone();
  const float errors[6] = {0.5f, 3, 1, 2, 0, 4};
  for (int i = 0; i < 6; ++i) got.data<float>()[i] += errors[i];
  return got;
}

TEST(CompareWorst, SortedWorstFirst) {
  const auto c = load_case(kSixCase);
  const auto result = compare(c, perturbed(c));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 5);
  EXPECT_EQ(result.max_error, 4.0);
  EXPECT_EQ(result.max_error_coord, (Coord{5}));
  ASSERT_EQ(result.worst.size(), 5u);  // the default max_reported is 5
  std::vector<Coord> coords;
  std::vector<double> errors;
  for (const auto& m : result.worst) {
    coords.push_back(m.coord);
    errors.push_back(m.error);
  }
  EXPECT_EQ(coords, (std::vector<Coord>{{5}, {1}, {3}, {2}, {0}}));
  EXPECT_EQ(errors, (std::vector<double>{4, 3, 2, 1, 0.5}));
}

TEST(CompareWorst, CappedByMaxReported) {
  const auto c = load_case(kSixCase);
  scatter::CompareOptions options;
  options.max_reported = 2;
  const auto result = compare(c, perturbed(c), options);
  EXPECT_EQ(result.mismatches, 5);  // all counted, two listed
  ASSERT_EQ(result.worst.size(), 2u);
  EXPECT_EQ(result.worst[0].coord, (Coord{5}));
  EXPECT_EQ(result.worst[1].coord, (Coord{1}));
  EXPECT_EQ(result.worst[1].expected, "2");
  EXPECT_EQ(result.worst[1].actual, "5");
}

TEST(CompareShape, WrongShapeOrDtypeFails) {
  const auto c = load_case(kSixCase);
  const scatter::Tensor wrong_shape(scatter::DType::float32, scatter::Shape{2, 3});
  const auto result = compare(c, wrong_shape);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 6);
  const scatter::Tensor wrong_dtype(scatter::DType::float64, scatter::Shape{6});
  EXPECT_FALSE(compare(c, wrong_dtype).passed);
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
  EXPECT_TRUE(compare(c, c.expected->clone()).mismatch_features.empty());
  const scatter::Tensor wrong_shape(scatter::DType::float32, scatter::Shape{6});
  const auto result = compare(c, wrong_shape);
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(result.mismatch_features.empty());
}

TEST(CompareFeatures, DuplicateOnIntegersHasNoValueFeatures) {
  // out[0] = 100 + 1 + 2 + 3; 107 is wrong. Integers get no nan/inf/zero features.
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("int32", "[2]", "[0, 0]"),
                                     tensor("int64", "[3]", "[0, 0, 0]"), tensor("int32", "[3]", "[1, 2, 3]"),
                                     tensor("int32", "[2]", "[6, 0]")));
  auto got = c.expected->clone();
  got.data<std::int32_t>()[0] = 7;
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementDup}));
}

TEST(CompareFeatures, DuplicatesFailingByTheirRuleCount) {
  // any-of-duplicates: out[0] takes 1 or 2 onto data 0 (a zero input); 3 fails.
  const auto none = load_case(none_dup_case("float32"));
  auto got = none.expected->clone();
  got.data<float>()[0] = 3.0f;
  EXPECT_EQ(compare(none, got).mismatch_features, (Features{scatter::kElementDup | scatter::kElementZeroInvolved}));
  // allclose: 0.5 + 0.1 + 0.2 + 0.3, off by 1e-3; no zero, NaN or infinity went in.
  const auto add = load_case(float_add_case());
  auto sum = add.expected->clone();
  sum.data<float>()[0] += 1e-3f;
  EXPECT_EQ(compare(add, sum).mismatch_features, (Features{scatter::kElementDup}));
}

TEST(CompareFeatures, UntouchedElementCountsItsDataValue) {
  // output[1,0]: no update, data 0 (a zero input) changed to 1e-30.
  const auto c = load_case(kExactCase);
  auto got = c.expected->clone();
  got.data<float>()[3] = 1e-30f;
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementUntouched | scatter::kElementZeroInvolved}));
}

TEST(CompareFeatures, DroppedNanUpdate) {
  // max: out[0] = max(1, NaN) = NaN; a backend that keeps 1 dropped the NaN update.
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "max")", tensor("float32", "[2]", "[1, 1]"),
                                     tensor("int64", "[2]", "[0, 1]"), tensor("float32", "[2]", R"(["nan", 2])"),
                                     tensor("float32", "[2]", R"(["nan", 2])")));
  auto got = c.expected->clone();
  got.data<float>()[0] = 1.0f;
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementNanInvolved | scatter::kElementNanMismatch}));
}

TEST(CompareFeatures, DataEntersOnlyWithUseInitVal) {
  // add onto data NaN: with use_init_val the result is NaN; without it, 2 (data unused).
  const auto with = load_case(make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float32", "[2]", R"(["nan", 5])"),
                                        tensor("int64", "[1]", "[0]"), tensor("float32", "[1]", "[2]"),
                                        tensor("float32", "[2]", R"(["nan", 5])")));
  auto got = with.expected->clone();
  got.data<float>()[0] = 2.0f;
  EXPECT_EQ(compare(with, got).mismatch_features, (Features{scatter::kElementNanInvolved | scatter::kElementNanMismatch}));

  const auto without = load_case(make_case(R"("op": "scatter_elements", "reduction": "add", "use_init_val": false)",
                                           tensor("float32", "[2]", R"(["nan", 5])"), tensor("int64", "[1]", "[0]"),
                                           tensor("float32", "[1]", "[2]"), tensor("float32", "[2]", "[2, 5]")));
  auto wrong = without.expected->clone();
  wrong.data<float>()[0] = 3.0f;
  EXPECT_EQ(compare(without, wrong).mismatch_features, (Features{0u}));
}

TEST(CompareFeatures, SignedZero) {
  // min(+0, -0) = -0 (IEEE 754-2019); +0 differs in sign only. Both inputs are zeros.
  const auto c = load_case(make_case(R"("op": "scatter_nd", "reduction": "min")", tensor("float32", "[2]", "[0, 3]"),
                                     tensor("int64", "[1, 1]", "[[0]]"), tensor("float32", "[1]", "[-0.0]"),
                                     tensor("float32", "[2]", "[-0.0, 3]")));
  auto got = c.expected->clone();
  got.data<float>()[0] = 0.0f;
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementSignedZero | scatter::kElementZeroInvolved}));
}

TEST(CompareFeatures, InfinityAmongTheInputs) {
  // out[1] = 2 + inf; a finite 5 is wrong, but not a NaN disagreement.
  const auto c = load_case(make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float32", "[2]", "[1, 2]"),
                                     tensor("int64", "[1]", "[1]"), tensor("float32", "[1]", R"(["inf"])"),
                                     tensor("float32", "[2]", R"([1, "inf"])")));
  auto got = c.expected->clone();
  got.data<float>()[1] = 5.0f;
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementInfInvolved}));
}

TEST(CompareFeatures, EveryDifferingElementNotOnlyTheReportedOnes) {
  // out[2] <- 4 through index -1, out[0] <- 5 through index 0; both wrong, one reported.
  const auto c = load_case(make_case(R"("op": "scatter_elements")", tensor("float32", "[3]", "[1, 1, 1]"),
                                     tensor("int64", "[2]", "[-1, 0]"), tensor("float32", "[2]", "[4, 5]"),
                                     tensor("float32", "[3]", "[5, 1, 4]")));
  auto got = c.expected->clone();
  got.data<float>()[0] = 6.0f;   // error 1
  got.data<float>()[2] = 40.0f;  // error 36: the one reported
  scatter::CompareOptions options;
  options.max_reported = 1;
  const auto result = compare(c, got, options);
  ASSERT_EQ(result.worst.size(), 1u);
  EXPECT_EQ(result.worst[0].coord, (Coord{2}));
  EXPECT_EQ(result.mismatch_features, (Features{0u, scatter::kElementNegIndex}));
}

TEST(CompareFeatures, NegativeIndexTupleInScatterNd) {
  // The tuple (-1) writes the row out[1]; out[1][1] is wrong.
  const auto c = load_case(make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 2]", "[[1, 1], [1, 1]]"),
                                     tensor("int64", "[1, 1]", "[[-1]]"), tensor("float32", "[1, 2]", "[[3, 4]]"),
                                     tensor("float32", "[2, 2]", "[[1, 1], [3, 4]]")));
  auto got = c.expected->clone();
  got.data<float>()[3] = 9.0f;
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementNegIndex}));
  got = c.expected->clone();
  got.data<float>()[1] = 9.0f;  // out[0][1]: untouched, data 1
  EXPECT_EQ(compare(c, got).mismatch_features, (Features{scatter::kElementUntouched}));

  // Two components, one negative: (0, -2) is out[0][0] of a 2x2.
  const auto two = load_case(make_case(R"("op": "scatter_nd")", tensor("int32", "[2, 2]", "[[1, 1], [1, 1]]"),
                                       tensor("int64", "[2, 2]", "[[0, -2], [1, 1]]"), tensor("int32", "[2]", "[5, 6]"),
                                       tensor("int32", "[2, 2]", "[[5, 1], [1, 6]]")));
  auto wrong = two.expected->clone();
  wrong.data<std::int32_t>()[0] = 0;
  wrong.data<std::int32_t>()[3] = 0;
  EXPECT_EQ(compare(two, wrong).mismatch_features, (Features{0u, scatter::kElementNegIndex}));
}

}  // namespace

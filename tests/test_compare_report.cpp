// What a comparison reports beyond pass or fail (shared/spec/case-format.md,
// "Comparison"): the tolerance that would pass a failing case (pasting it into the case
// makes the comparison pass), the worst-first list of mismatches, and a wrong shape.

#include <gtest/gtest.h>

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

using namespace scatter::testing;
using Coord = std::vector<std::int64_t>;

// ---- the tolerance hint: pasting it into the case makes the comparison pass

// out[0] = 1000 + 1000 + 1000, out[1] = 0.5 + 0.25 + 0.125 (two updates each), out[2] = 2 + 3.
std::string hint_case(const std::string& extra = "") {
  return expecting_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float32", "[3]", "[1000, 0.5, 2]"),
                        tensor("int64", "[5]", "[0, 0, 1, 1, 2]"),
                        tensor("float32", "[5]", "[1000, 1000, 0.25, 0.125, 3]"),
                        tensor("float32", "[3]", "[3000, 0.875, 5]"), extra);
}

// out[0] 4 ulps high (9.765625e-4: within its default 2*eps*(3000 + 3000) = 1.43e-3),
// out[1] 12 ulps = 7.152557e-7 high: past its default 2*eps*(0.875 + 0.875) = 4.17e-7, but
// within 4x of it, as one more rounding of an intermediate could make it (kOrderExplains).
constexpr float kOut1 = 0.875f + 12 * 0x1.0p-24f;
scatter::Tensor hint_output(const scatter::Case& c) {
  auto got = c.expected->clone();
  got.data<float>()[0] = 3000.0f + 4 * 0x1.0p-12f;
  got.data<float>()[1] = kOut1;
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
  const auto result = compare_expected(c, got);
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
  const auto again = compare_expected(rerun, got);
  EXPECT_TRUE(again.passed) << again.mismatches << " differ under " << again.rule;
  // And nothing smaller at the last digit passes: 0.000976 < 9.765625e-4.
  const auto tighter = load_case(hint_case(R"(, "tolerance": {"atol": 0.000976, "rtol": 0})"));
  EXPECT_FALSE(compare_expected(tighter, got).passed);
}

TEST(CompareHint, KeepsTheCasesRtol) {
  // With rtol 1e-7 out[0] is allowed 3e-4 and needs 9.765625e-4 - 3e-4 = 6.765625e-4 more;
  // out[1] is allowed 8.75e-8 and needs 6.28e-7 more: atol 6.77e-4 with the same rtol.
  const auto c = load_case(hint_case(R"(, "tolerance": {"atol": 0, "rtol": 1e-7})"));
  const auto got = hint_output(c);
  const auto result = compare_expected(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 2);
  EXPECT_EQ(result.needed_rtol, 1e-7);
  EXPECT_EQ(result.needed_atol, 6.77e-4);
  const auto tolerance = suggested_tolerance(result);
  EXPECT_EQ(tolerance, R"("tolerance": {"atol": 0.000677, "rtol": 1e-07})");
  EXPECT_TRUE(compare_expected(load_case(hint_case(", " + tolerance)), got).passed);
}

TEST(CompareHint, NoneForADifferenceNoOrderExplains) {
  // out[1] = 0.5 + 0.25, its 0.125 dropped: 0.125 off, 3e5 times what reordering two
  // updates could make. A tolerance would hide a bug, so none is offered.
  const auto c = load_case(hint_case());
  auto got = c.expected->clone();
  got.data<float>()[1] = 0.75f;
  const auto result = compare_expected(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_GT(result.order_excess, 1e5);
  EXPECT_EQ(suggested_tolerance(result), "");
  EXPECT_NE(scatter::detail::comparison_text(result, "").find("this looks like a bug, not rounding"),
            std::string::npos);
  // Within the bound's slack (hint_output's 1.7x), the hint is offered.
  EXPECT_LE(compare_expected(c, hint_output(c)).order_excess, scatter::kOrderExplains);
  EXPECT_GT(compare_expected(c, hint_output(c)).order_excess, 1.0);
}

TEST(CompareHint, NoneWhereEveryElementIsExact) {
  // max is compared exactly: a tolerance would change nothing, so none is suggested.
  const auto c = load_case(expecting_case(R"("op": "scatter_elements", "reduction": "max")",
                                          tensor("float32", "[2]", "[0, 0]"), tensor("int64", "[2]", "[0, 0]"),
                                          tensor("float32", "[2]", "[1, 3]"), tensor("float32", "[2]", "[3, 0]")));
  auto got = c.expected->clone();
  got.data<float>()[0] = 4.0f;
  const auto result = compare_expected(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_FALSE(result.tolerance_applies);
  EXPECT_TRUE(std::isinf(result.needed_atol));
  EXPECT_EQ(suggested_tolerance(result), "");
  EXPECT_NE(scatter::detail::comparison_text(result, "")
                .find("no tolerance applies: every element of this case is compared exactly"),
            std::string::npos);
}

TEST(CompareHint, ExactElementsAreNamedApart) {
  // out[2] (one update) differs: no tolerance passes the case; out[1] alone would need 7.16e-7.
  const auto c = load_case(hint_case());
  auto got = c.expected->clone();
  got.data<float>()[1] = kOut1;
  got.data<float>()[2] = 5.5f;
  const auto result = compare_expected(c, got);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.exact_mismatches, 1);
  EXPECT_TRUE(std::isinf(result.needed_atol));
  EXPECT_EQ(result.allclose_atol, 7.16e-7);
  const auto text = scatter::detail::comparison_text(result, "");
  EXPECT_NE(text.find("no tolerance would pass: 1 differing element is compared exactly"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(the 1 differing allclose element would pass with "tolerance": {"atol": 7.16e-07, "rtol": 0})"),
            std::string::npos)
      << text;
}

TEST(CompareHint, NanDisagreementHasNoTolerance) {
  const auto c = load_case(hint_case());
  auto got = c.expected->clone();
  got.data<float>()[1] = std::numeric_limits<float>::quiet_NaN();
  const auto result = compare_expected(c, got);
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
    expecting_case(R"("op": "scatter_elements")", tensor("float32", "[6]", "[0, 0, 0, 0, 0, 0]"),
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
  const auto result = compare_expected(c, perturbed(c));
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
  const auto result = compare_expected(c, perturbed(c), options);
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
  const auto result = compare_expected(c, wrong_shape);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatches, 6);
  const scatter::Tensor wrong_dtype(scatter::DType::float64, scatter::Shape{6});
  EXPECT_FALSE(compare_expected(c, wrong_dtype).passed);
}

}  // namespace

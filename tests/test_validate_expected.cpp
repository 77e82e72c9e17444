// Case validation of what a case expects: under `none` an element that several updates
// hit must hold one of them, and a tolerance is allowed only where an element can be
// compared with allclose. Each rejection is checked by code and exact message.

#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

namespace {

using scatter::ErrorCode;
using namespace scatter::testing;


// ---- expected under `none` with duplicate targets: one of the element's updates

// Three updates, 7, 8 and 9, write out[1] of int32 zeros (with `attrs`), expecting `expected`.
std::string three_onto_one(const std::string& attrs, const std::string& expected) {
  return expecting_case(attrs, tensor("int32", "[3]", "[0, 0, 0]"), tensor("int64", "[3]", "[1, 1, 1]"),
                        tensor("int32", "[3]", "[7, 8, 9]"), tensor("int32", "[3]", expected));
}

TEST(ValidateNoneExpected, ValueOfNoDuplicateIsRejected) {
  // 5 is none of 7, 8, 9, so no update order gives it.
  EXPECT_REJECTED(three_onto_one(kElements, "[0, 5, 0]"), ErrorCode::values,
                  "expected[1] = 5 is none of the values of the 3 updates that target it (7, 8, 9); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, AnyDuplicateIsAccepted) {
  for (const auto* value : {"7", "8", "9"}) {
    SCOPED_TRACE(value);
    EXPECT_FALSE(rejection(three_onto_one(kElements, std::string("[0, ") + value + ", 0]")).has_value());
  }
}

TEST(ValidateNoneExpected, SingleTargetIsLeftToTheExactComparison) {
  // out[0] has one update (4); its expected 6 is wrong, but the comparison is exact there
  // and fails any backend, so validation does not judge it.
  const auto json = expecting_case(kElements, tensor("int32", "[3]", "[0, 0, 0]"), tensor("int64", "[3]", "[0, 1, 1]"),
                                   tensor("int32", "[3]", "[4, 8, 9]"), tensor("int32", "[3]", "[6, 8, 0]"));
  EXPECT_FALSE(rejection(json).has_value());
}

TEST(ValidateNoneExpected, OtherReductionsAreNotChecked) {
  // max of 7, 8, 9 onto 0 is 9; a wrong 5 is the comparison's business (exact there).
  EXPECT_FALSE(rejection(three_onto_one(kElements + R"(, "reduction": "max")", "[0, 5, 0]")).has_value());
}

TEST(ValidateNoneExpected, ScatterNdSlicesPerElement) {
  // Both tuples write row 1: out[1,0] is 1 or 3, out[1,1] is 2 or 4, each on its own.
  const auto nd = [](const std::string& expected) {
    return expecting_case(R"("op": "scatter_nd")", tensor("float32", "[2, 2]", "[[0, 0], [0, 0]]"),
                          tensor("int64", "[2, 1]", "[[1], [-1]]"), tensor("float32", "[2, 2]", "[[1, 2], [3, 4]]"),
                          tensor("float32", "[2, 2]", expected));
  };
  EXPECT_FALSE(rejection(nd("[[0, 0], [1, 4]]")).has_value());
  EXPECT_REJECTED(nd("[[0, 0], [3, 5]]"), ErrorCode::values,
                  "expected[1,1] = 5 is none of the values of the 2 updates that target it (2, 4); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, ScatterUpdateRows) {
  const auto json = expecting_case(R"("op": "scatter_update")", tensor("int64", "[3, 2]", "[1, 2, 3, 4, 5, 6]"),
                                   tensor("int64", "[2]", "[2, 2]"), tensor("int64", "[2, 2]", "[[7, 8], [9, 10]]"),
                                   tensor("int64", "[3, 2]", "[[1, 2], [3, 4], [9, 6]]"));
  EXPECT_REJECTED(json, ErrorCode::values,
                  "expected[2,1] = 6 is none of the values of the 2 updates that target it (8, 10); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, ExactRuleNanAnyNanSignedZeroDiffers) {
  const auto nan_and_zero = [](const std::string& expected) {
    return expecting_case(kElements, tensor("float32", "[1]", "[1]"), tensor("int64", "[2]", "[0, 0]"),
                          tensor("float32", "[2]", R"(["nan", -0.0])"), tensor("float32", "[1]", expected));
  };
  for (const auto* ok : {R"(["nan"])", "[-0.0]"}) {
    SCOPED_TRACE(ok);
    EXPECT_FALSE(rejection(nan_and_zero(ok)).has_value());
  }
  EXPECT_REJECTED(nan_and_zero("[0.0]"), ErrorCode::values,
                  "expected[0] = 0 is none of the values of the 2 updates that target it (nan, -0); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, LongListOfDuplicatesIsCut) {
  const auto json = expecting_case(
      kElements, tensor("int32", "[2]", "[0, 0]"), tensor("int64", "[10]", "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"),
      tensor("int32", "[10]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"), tensor("int32", "[2]", "[0, 11]"));
  EXPECT_REJECTED(json, ErrorCode::values,
                  "expected[1] = 11 is none of the values of the 10 updates that target it (1, 2, 3, 4, 5, 6, 7, 8, "
                  "and 2 more); with reduction 'none' a duplicate target holds one of them");
}

// ---- tolerance: only where an element can be compared with allclose

const std::string kToleranceRule =
    "; a tolerance applies only to float add, sub, mul and mean, on elements that two or more updates hit";

// scatter_elements with `reduction` of two updates onto element 0 of `dtype` data [0, 0], with `tolerance`.
std::string two_onto_one(const std::string& reduction, const std::string& dtype, const std::string& updates,
                         const std::string& tolerance) {
  return make_case(kElements + R"(, "reduction": ")" + reduction + "\"", tensor(dtype, "[2]", "[0, 0]"),
                   tensor("int64", "[2]", "[0, 0]"), tensor(dtype, "[2]", updates), R"(, "tolerance": )" + tolerance);
}

TEST(ValidateTolerance, OnIntegerOrBoolData) {
  EXPECT_REJECTED(two_onto_one("add", "int32", "[1, 2]", R"({"atol": 1})"), ErrorCode::schema,
                  "tolerance: int32 outputs are compared exactly, bit for bit" + kToleranceRule);
  EXPECT_REJECTED(two_onto_one("add", "bool", "[1, 0]", R"({"rtol": 0.5})"), ErrorCode::schema,
                  "tolerance: bool outputs are compared exactly, bit for bit" + kToleranceRule);
}

TEST(ValidateTolerance, OnFloatNoneMinMax) {
  for (const std::string red : {"none", "min", "max"}) {
    SCOPED_TRACE(red);
    EXPECT_REJECTED(
        two_onto_one(red, "float32", "[1, 2]", R"({"atol": 1})"), ErrorCode::schema,
        "tolerance: float outputs of reduction '" + red + "' are compared exactly, bit for bit" + kToleranceRule);
  }
}

TEST(ValidateTolerance, OnFloatAddWithoutDuplicateTargets) {
  // These indices on axis 0 hit four distinct elements once each.
  const auto json =
      make_case(kElements + R"(, "reduction": "add")", tensor("float32", "[4, 2]", "[[1, 2], [3, 4], [5, 6], [7, 8]]"),
                tensor("int64", "[2, 2]", "[[0, 1], [3, 0]]"), tensor("float32", "[2, 2]", "[[10, 20], [30, 40]]"),
                R"(, "tolerance": {"atol": 0.5, "rtol": 0})");
  EXPECT_REJECTED(json, ErrorCode::schema,
                  "tolerance: no output element is hit by two or more updates, so every element is "
                  "compared exactly" +
                      kToleranceRule);
  const auto empty =
      make_case(R"("op": "scatter_nd", "reduction": "mul")", tensor("float64", "[2]", "[1, 2]"),
                tensor("int64", "[0, 1]", "[]"), tensor("float64", "[0]", "[]"), R"(, "tolerance": {"atol": 0.5})");
  EXPECT_REJECTED(empty, ErrorCode::schema, "tolerance: no update targets any element" + kToleranceRule);
}

TEST(ValidateTolerance, AcceptedWhereAnElementIsHitTwice) {
  for (const std::string red : {"add", "mul", "mean"}) {
    SCOPED_TRACE(red);
    const auto json = make_case(kElements + R"(, "reduction": ")" + red + "\"", tensor("float16", "[3]", "[1, 2, 3]"),
                                tensor("int64", "[3]", "[2, 0, 2]"), tensor("float16", "[3]", "[1, 2, 4]"),
                                R"(, "tolerance": {"atol": 0.5, "rtol": 0})");
    EXPECT_FALSE(rejection(json).has_value());
  }
  const auto sub = make_case(R"("op": "scatter_nd", "reduction": "sub")", tensor("float64", "[2]", "[1, 2]"),
                             tensor("int64", "[2, 1]", "[[1], [-1]]"), tensor("float64", "[2]", "[1, 2]"),
                             R"(, "tolerance": {"rtol": 0.5})");
  EXPECT_FALSE(rejection(sub).has_value());
}

}  // namespace

// `values` of a tensor (shared/spec/case-format.md, "A tensor"): nested, flat and
// scalar forms, float strings, exact integers, and every rejection with its message.
// Expected bit patterns are IEEE 754 encodings written out by hand (or from numpy).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scatter/load.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

using testing::elements;
using testing::load_case;

// A scatter_elements case whose data has this dtype, shape (JSON text) and values
// (JSON text); indices and updates are the smallest valid ones for that rank.
std::string data_case(const std::string& dtype, const std::string& shape, const std::string& values,
                      std::size_t rank = 1) {
  return testing::data_case("v", dtype, shape, R"("values": )" + values, rank);
}


// --- forms ---

TEST(Values, Nested) {
  const auto c = load_case(data_case("float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]", 2));
  EXPECT_EQ(c.data.shape(), (Shape{2, 3}));
  EXPECT_EQ(elements<float>(c.data), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Values, FlatIsRowMajor) {
  const auto c = load_case(data_case("int32", "[2, 3]", "[1, 2, 3, 4, 5, 6]", 2));
  EXPECT_EQ(elements<std::int32_t>(c.data), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Values, NestedRank3) {
  const auto c = load_case(data_case("int16", "[2, 2, 2]", "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]", 3));
  EXPECT_EQ(elements<std::int16_t>(c.data), (std::vector<std::int16_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// Only scatter_update takes a rank-0 tensor (its indices).
TEST(Values, BareScalarForShapeEmpty) {
  const auto c = load_case(R"({"name": "s", "op": "scatter_update", "inputs": {
      "data": {"dtype": "float32", "shape": [4, 3], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [], "values": 2},
      "updates": {"dtype": "float32", "shape": [3], "values": [7, 8, 9]}}})");
  EXPECT_EQ(c.indices.shape(), Shape{});
  EXPECT_EQ(c.indices.numel(), 1);
  EXPECT_EQ(elements<std::int64_t>(c.indices), (std::vector<std::int64_t>{2}));
}

TEST(Values, EmptyRank1) {
  const auto c = load_case(R"({"name": "e", "op": "scatter_elements", "inputs": {
      "data": {"dtype": "float32", "shape": [0], "values": []},
      "indices": {"dtype": "int64", "shape": [0], "values": []},
      "updates": {"dtype": "float32", "shape": [0], "values": []}}})");
  EXPECT_EQ(c.data.shape(), (Shape{0}));
  EXPECT_EQ(c.data.numel(), 0);
  EXPECT_EQ(c.indices.numel(), 0);
}

TEST(Values, EmptyRank2NestedAndFlat) {
  for (const char* values : {"[[], []]", "[]"}) {
    const auto c = load_case(std::string(R"({"name": "e", "op": "scatter_elements", "inputs": {
        "data": {"dtype": "int32", "shape": [2, 0], "values": )") + values + R"(},
        "indices": {"dtype": "int64", "shape": [2, 0], "values": )" + values + R"(},
        "updates": {"dtype": "int32", "shape": [2, 0], "values": )" + values + R"(}}})");
    EXPECT_EQ(c.data.shape(), (Shape{2, 0})) << values;
    EXPECT_EQ(c.data.numel(), 0) << values;
    EXPECT_EQ(c.updates.shape(), (Shape{2, 0})) << values;
  }
}

// --- floats ---

TEST(Values, FloatStrings) {
  const auto c = load_case(data_case("float32", "[4]", R"(["nan", "inf", "-inf", 1.5])"));
  const auto bits = elements<std::uint32_t>(c.data);
  EXPECT_TRUE(std::isnan(elements<float>(c.data)[0]));
  EXPECT_EQ(bits[1], 0x7F800000u);
  EXPECT_EQ(bits[2], 0xFF800000u);
  EXPECT_EQ(bits[3], 0x3FC00000u);
}

// "nan", "inf" and "-inf" in a 16-bit float type whose exponent bits are `exponent` (the rest of
// the magnitude its mantissa): a NaN, and the infinities' exact patterns.
void expect_special_strings(const std::string& dtype, std::uint16_t exponent) {
  const auto bits = elements<std::uint16_t>(load_case(data_case(dtype, "[3]", R"(["nan", "inf", "-inf"])")).data);
  const auto mantissa = static_cast<std::uint16_t>(0x7FFF & ~exponent);
  EXPECT_EQ(bits[0] & exponent, exponent) << dtype;
  EXPECT_NE(bits[0] & mantissa, 0) << dtype;
  EXPECT_EQ(bits[1], exponent) << dtype;
  EXPECT_EQ(bits[2], 0x8000 | exponent) << dtype;
}

TEST(Values, FloatStringsInHalfTypes) {
  expect_special_strings("float16", 0x7C00);
  expect_special_strings("bfloat16", 0x7F80);
}

TEST(Values, NegativeZeroKeepsItsSignBit) {
  EXPECT_EQ(elements<std::uint32_t>(load_case(data_case("float32", "[2]", "[-0.0, 0.0]")).data),
            (std::vector<std::uint32_t>{0x80000000u, 0}));
  EXPECT_EQ(elements<std::uint64_t>(load_case(data_case("float64", "[1]", "[-0.0]")).data),
            (std::vector<std::uint64_t>{0x8000000000000000ull}));
  EXPECT_EQ(elements<std::uint16_t>(load_case(data_case("float16", "[1]", "[-0.0]")).data),
            (std::vector<std::uint16_t>{0x8000}));
  EXPECT_EQ(elements<std::uint16_t>(load_case(data_case("bfloat16", "[1]", "[-0.0]")).data),
            (std::vector<std::uint16_t>{0x8000}));
}

TEST(Values, FloatsRoundToNearest) {
  // 0.1 -> float16 0x2E66 (numpy); 65519 rounds down to the largest finite 0x7BFF.
  EXPECT_EQ(elements<std::uint16_t>(load_case(data_case("float16", "[2]", "[0.1, 65519]")).data),
            (std::vector<std::uint16_t>{0x2E66, 0x7BFF}));
  // 0.1 -> float32 0x3DCCCCCD.
  EXPECT_EQ(elements<std::uint32_t>(load_case(data_case("float32", "[1]", "[0.1]")).data),
            (std::vector<std::uint32_t>{0x3DCCCCCDu}));
}

// --- integers ---

TEST(Values, Int64BeyondDoublePrecisionIsExact) {
  const auto c =
      load_case(data_case("int64", "[3]", "[9007199254740993, -9223372036854775808, 9223372036854775807]"));
  EXPECT_EQ(elements<std::int64_t>(c.data),
            (std::vector<std::int64_t>{9007199254740993LL, std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max()}));
}

TEST(Values, IntegralFloatAcceptedForInt32) {
  const auto c = load_case(data_case("int32", "[3]", "[3.0, -2.0, 0.0]"));
  EXPECT_EQ(elements<std::int32_t>(c.data), (std::vector<std::int32_t>{3, -2, 0}));
}

TEST(Values, IntegerRangesAtTheirEdges) {
  EXPECT_EQ(elements<std::uint8_t>(load_case(data_case("uint8", "[2]", "[0, 255]")).data),
            (std::vector<std::uint8_t>{0, 255}));
  EXPECT_EQ(elements<std::int8_t>(load_case(data_case("int8", "[2]", "[-128, 127]")).data),
            (std::vector<std::int8_t>{-128, 127}));
  EXPECT_EQ(elements<std::int16_t>(load_case(data_case("int16", "[2]", "[-32768, 32767]")).data),
            (std::vector<std::int16_t>{-32768, 32767}));
}

TEST(Values, BoolAcceptsTrueFalseZeroOne) {
  const auto c = load_case(data_case("bool", "[4]", "[true, false, 0, 1]"));
  EXPECT_EQ(elements<std::uint8_t>(c.data), (std::vector<std::uint8_t>{1, 0, 0, 1}));
}

// --- rejections ---

// Each bad value of the data, with its exact code and message.
class ValuesRejects : public ::testing::TestWithParam<testing::Rejection> {};

TEST_P(ValuesRejects, WithTheExactMessage) { EXPECT_REJECTED(GetParam().json, GetParam().code, GetParam().message); }

// A row of the table below: the data (dtype, shape, values, rank) and the message it is rejected with.
testing::Rejection bad_data(const std::string& name, const std::string& dtype, const std::string& shape,
                            const std::string& values, const std::string& message, std::size_t rank = 1) {
  return {name, data_case(dtype, shape, values, rank), ErrorCode::values, message};
}

INSTANTIATE_TEST_SUITE_P(
    Data, ValuesRejects,
    ::testing::ValuesIn(std::vector<testing::Rejection>{
        bad_data("Uint8Above", "uint8", "[2]", "[1, 300]",
                 "inputs.data.values[1] = 300 is out of range [0, 255] for dtype uint8"),
        bad_data("Uint8Negative", "uint8", "[1]", "[-1]",
                 "inputs.data.values[0] = -1 is out of range [0, 255] for dtype uint8"),
        bad_data("Int8Above", "int8", "[2, 1]", "[[0], [128]]",
                 "inputs.data.values[1,0] = 128 is out of range [-128, 127] for dtype int8", 2),
        bad_data("Int64Overflow", "int64", "[1]", "[9223372036854775808]",
                 "inputs.data.values[0] = 9223372036854775808 is beyond the int64 range"),
        bad_data("FractionForInteger", "int32", "[2]", "[1, 3.5]",
                 "inputs.data.values[1] = 3.5 is not an integer, as dtype int32 needs"),
        bad_data("NanForInteger", "int32", "[1]", R"(["nan"])",
                 "inputs.data.values[0] = nan is not an integer, as dtype int32 needs"),
        bad_data("NumberForBool", "bool", "[3]", "[true, 2, false]",
                 "inputs.data.values[1] = 2 is not a bool (true, false, 0 or 1)"),
        bad_data("BoolForInteger", "int32", "[1]", "[true]",
                 "inputs.data.values[0] = true is not a number of dtype int32"),
        bad_data("BoolForFloat", "float32", "[1]", "[false]",
                 "inputs.data.values[0] = false is not a number of dtype float32"),
        bad_data("Float16Overflow", "float16", "[2]", "[1, 70000]",
                 "inputs.data.values[1] = 70000 overflows dtype float16 (largest finite 65504)"),
        // 65520 is the tie between 65504 and 2^16: ties to even gives infinity.
        bad_data("Float16TieToInfinity", "float16", "[1]", "[65520]",
                 "inputs.data.values[0] = 65520 overflows dtype float16 (largest finite 65504)"),
        bad_data("StringNotANumber", "float32", "[2]", R"([1, "one"])",
                 R"(inputs.data.values[1] = "one" is not a number (strings may be "nan", "inf", "-inf"))"),
        bad_data("NullNotANumber", "float32", "[2]", R"([1, null])", "inputs.data.values[1] = null is not a number"),
        bad_data("FlatTooShort", "float32", "[4]", "[1, 2, 3]", "inputs.data.values: has 3 elements, shape [4] needs 4"),
        bad_data("FlatNeitherNestedNorWhole", "float32", "[2, 3]", "[1, 2, 3, 4, 5]",
                 "inputs.data.values: has 5 elements, shape[0] = 2 needs 2 (or a flat array of 6)", 2),
        bad_data("NestedRowTooShort", "float32", "[2, 3]", "[[1, 2, 3], [4, 5]]",
                 "inputs.data.values[1]: has 2 elements, shape[1] = 3 needs 3", 2),
        bad_data("NestedTooManyRows", "float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]",
                 "inputs.data.values: has 3 elements, shape[0] = 2 needs 2 (or a flat array of 6)", 2),
        bad_data("ScalarForArray", "float32", "[3]", "5",
                 "inputs.data.values = 5 is a single value, but shape [3] needs an array of 3 (a bare value is for "
                 "shape [])"),
    }),
    testing::rejection_name);

TEST(ValuesErrors, Float32Overflow) {
  const auto e = testing::rejection(data_case("float32", "[1]", "[1e39]"));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), ErrorCode::values);
}

TEST(ValuesErrors, ArrayForScalar) {
  EXPECT_REJECTED(R"({"name": "s", "op": "scatter_update", "inputs": {
      "data": {"dtype": "float32", "shape": [4, 3], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [], "values": [[2]]},
      "updates": {"dtype": "float32", "shape": [3], "values": [7, 8, 9]}}})",
                  ErrorCode::values, "inputs.indices.values: is an array but shape [] is a scalar: write one number");
}

TEST(ValuesErrors, EmptyShapeWithValues) {
  EXPECT_REJECTED(R"({"name": "e", "op": "scatter_elements", "inputs": {
      "data": {"dtype": "float32", "shape": [0], "values": [1]},
      "indices": {"dtype": "int64", "shape": [0], "values": []},
      "updates": {"dtype": "float32", "shape": [0], "values": []}}})",
                  ErrorCode::values, "inputs.data.values: has 1 elements, shape [0] needs 0");
}

TEST(ValuesErrors, NamesTheTensorAtFault) {
  EXPECT_REJECTED(R"({"name": "t", "op": "scatter_elements", "inputs": {
      "data": {"dtype": "uint8", "shape": [2], "values": [1, 2]},
      "indices": {"dtype": "int64", "shape": [1], "values": [0]},
      "updates": {"dtype": "uint8", "shape": [1], "values": [256]}}})",
                  ErrorCode::values, "inputs.updates.values[0] = 256 is out of range [0, 255] for dtype uint8");
  EXPECT_REJECTED(R"({"name": "t", "op": "scatter_elements", "inputs": {
      "data": {"dtype": "uint8", "shape": [2], "values": [1, 2]},
      "indices": {"dtype": "int64", "shape": [1], "values": [0]},
      "updates": {"dtype": "uint8", "shape": [1], "values": [3]}},
      "expected": {"dtype": "uint8", "shape": [2], "values": [3, 2.5]}})",
                  ErrorCode::values, "expected.values[1] = 2.5 is not an integer, as dtype uint8 needs");
}

}  // namespace
}  // namespace scatter

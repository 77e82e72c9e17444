// The CPU reference (the oracle) on small cases whose outputs are computed by hand
// from the spec's semantics, or copied from the OpenVINO ScatterElementsUpdate-12
// document (shared/seeds/002): every op x reduction with duplicate targets,
// use_init_val, integer mean rounding, wrap-around, float16 step rounding, bool
// logic, IEEE minimum/maximum, and the shape corner cases.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/case.hpp"
#include "scatter/load.hpp"
#include "test_util.hpp"

namespace {

using scatter::testing::load_case;

std::string tensor(const std::string& dtype, const std::string& shape, const std::string& values) {
  return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "values": )" + values + "}";
}

std::string make_case(const std::string& attrs, const std::string& data, const std::string& indices,
                      const std::string& updates) {
  return R"({"name": "t", )" + attrs + R"(, "inputs": {"data": )" + data + R"(, "indices": )" + indices +
         R"(, "updates": )" + updates + "}}";
}

// The reference output of a case, every element widened to double, row-major.
std::vector<double> run_ref(const std::string& json) {
  const auto c = load_case(json);
  const auto out = scatter::reference_scatter(c);
  EXPECT_EQ(out.shape(), c.data.shape());
  EXPECT_EQ(out.dtype(), c.data.dtype());
  std::vector<double> values;
  for (std::int64_t i = 0; i < out.numel(); ++i) values.push_back(scatter::element_as_double(out, i));
  return values;
}

using Values = std::vector<double>;

// ---- scatter_elements, every reduction, duplicates on out[1][0]
//
// data [[10, 20], [30, 40], [50, 60]], axis 0, indices [[1, 0], [1, 2]], updates [[35, 2], [3, 100]]:
//   out[1][0] <- 35, then 3;  out[0][1] <- 2;  out[2][1] <- 100.
std::string elements_dup_case(const std::string& dtype, const std::string& reduction, bool use_init_val) {
  return make_case(R"("op": "scatter_elements", "axis": 0, "reduction": ")" + reduction + R"(", "use_init_val": )" +
                       (use_init_val ? "true" : "false"),
                   tensor(dtype, "[3, 2]", "[[10, 20], [30, 40], [50, 60]]"), tensor("int64", "[2, 2]", "[[1, 0], [1, 2]]"),
                   tensor(dtype, "[2, 2]", "[[35, 2], [3, 100]]"));
}

struct Expectation {
  const char* reduction;
  Values with_init;
  Values without_init;
};

const std::vector<Expectation> kElementsExpectations{
    // none: the last writer (3) wins; use_init_val has no effect.
    {"none", {10, 2, 3, 40, 50, 100}, {10, 2, 3, 40, 50, 100}},
    // add: 30+35+3 = 68, 20+2 = 22, 60+100 = 160; from 0: 38, 2, 100.
    {"add", {10, 22, 68, 40, 50, 160}, {10, 2, 38, 40, 50, 100}},
    // mul: 30*35*3 = 3150, 20*2 = 40, 60*100 = 6000; from 1: 105, 2, 100.
    {"mul", {10, 40, 3150, 40, 50, 6000}, {10, 2, 105, 40, 50, 100}},
    // min: min(30, 35, 3) = 3, min(20, 2) = 2, min(60, 100) = 60; from +max: 3, 2, 100.
    {"min", {10, 2, 3, 40, 50, 60}, {10, 2, 3, 40, 50, 100}},
    // max: 35, 20, 100; from lowest: 35, 2, 100.
    {"max", {10, 20, 35, 40, 50, 100}, {10, 2, 35, 40, 50, 100}},
    // mean: 68/3 = 22.67 -> 22, 22/2 = 11, 160/2 = 80; without data: 38/2 = 19, 2, 100.
    {"mean", {10, 11, 22, 40, 50, 80}, {10, 2, 19, 40, 50, 100}},
};

TEST(RefElements, EveryReductionWithDuplicatesIntegers) {
  for (const auto* dtype : {"int32", "int64", "int16"}) {
    for (const auto& e : kElementsExpectations) {
      SCOPED_TRACE(std::string(dtype) + " " + e.reduction);
      EXPECT_EQ(run_ref(elements_dup_case(dtype, e.reduction, true)), e.with_init);
      EXPECT_EQ(run_ref(elements_dup_case(dtype, e.reduction, false)), e.without_init);
    }
  }
}

TEST(RefElements, EveryReductionWithDuplicatesFloats) {
  // The integer-valued sums are exact in every float type, except the float means.
  for (const auto* dtype : {"float32", "float64"}) {
    for (const auto& e : kElementsExpectations) {
      if (std::string(e.reduction) == "mean") continue;
      SCOPED_TRACE(std::string(dtype) + " " + e.reduction);
      EXPECT_EQ(run_ref(elements_dup_case(dtype, e.reduction, true)), e.with_init);
      EXPECT_EQ(run_ref(elements_dup_case(dtype, e.reduction, false)), e.without_init);
    }
  }
  // Float mean: 68/3 and 22/2 = 11, 80; without data 38/2 = 19.
  const auto mean = run_ref(elements_dup_case("float64", "mean", true));
  EXPECT_EQ(mean, (Values{10, 11, 68.0 / 3.0, 40, 50, 80}));
  EXPECT_EQ(run_ref(elements_dup_case("float64", "mean", false)), (Values{10, 2, 19, 40, 50, 100}));
}

TEST(RefElements, OpenVinoExample1SumWithNegativeIndices) {
  // shared/seeds/002, ScatterElementsUpdate-12 example 1: use_init_val true, sum.
  const auto json = make_case(R"("op": "ScatterElementsUpdate", "reduction": "sum", "use_init_val": true)",
                              tensor("float32", "[4]", "[2, 3, 4, 6]"), tensor("int64", "[6]", "[1, 0, 0, -2, -1, 2]"),
                              tensor("float32", "[6]", "[10, 20, 30, 40, 70, 60]"));
  EXPECT_EQ(run_ref(json), (Values{52, 13, 104, 76}));
}

TEST(RefElements, OpenVinoExample2SumWithoutInitVal) {
  // shared/seeds/002, example 2: use_init_val false, sum.
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "sum", "use_init_val": false)",
                              tensor("float32", "[4]", "[2, 3, 4, 6]"), tensor("int64", "[6]", "[1, 0, 0, 2, 3, 2]"),
                              tensor("float32", "[6]", "[10, 20, 30, 40, 70, 60]"));
  EXPECT_EQ(run_ref(json), (Values{50, 10, 100, 70}));
}

TEST(RefElements, NegativeAxisAndNegativeIndex) {
  // axis -1 = 1: out[0][idx[0][0] = -1 -> 2] = 5, out[1][0] = 6.
  const auto json = make_case(R"("op": "scatter_elements", "axis": -1)", tensor("int32", "[2, 3]", "[0, 0, 0, 0, 0, 0]"),
                              tensor("int32", "[2, 1]", "[[-1], [0]]"), tensor("int32", "[2, 1]", "[[5], [6]]"));
  EXPECT_EQ(run_ref(json), (Values{0, 0, 5, 6, 0, 0}));
}

TEST(RefElements, ThreeDimsOnAMiddleAxis) {
  // axis 1, indices 1x2x1: updates[0,0,0] -> out[0][1][0], updates[0,1,0] -> out[0][0][0].
  const auto json = make_case(R"("op": "scatter_elements", "axis": 1, "reduction": "max")",
                              tensor("int32", "[2, 2, 2]", "[0, 0, 0, 0, 0, 0, 0, 0]"),
                              tensor("int64", "[1, 2, 1]", "[[[1], [0]]]"), tensor("int32", "[1, 2, 1]", "[[[5], [6]]]"));
  EXPECT_EQ(run_ref(json), (Values{6, 0, 5, 0, 0, 0, 0, 0}));
}

TEST(RefElements, IndicesSmallerThanDataInNonAxisDims) {
  // data 3x3, axis 1, indices 2x1: only the first column of updates exists per row.
  const auto json = make_case(R"("op": "scatter_elements", "axis": 1)",
                              tensor("int32", "[3, 3]", "[1, 2, 3, 4, 5, 6, 7, 8, 9]"),
                              tensor("int64", "[2, 1]", "[[2], [1]]"), tensor("int32", "[2, 1]", "[[-1], [-2]]"));
  EXPECT_EQ(run_ref(json), (Values{1, 2, -1, 4, -2, 6, 7, 8, 9}));
}

// ---- use_init_val = false: identities

TEST(RefInitVal, FloatMinStartsFromPlusInfinity) {
  // min(+inf, +inf) = +inf: a finite identity (the largest float) would show.
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "min", "use_init_val": false)",
                              tensor("float32", "[3]", "[1, 2, 3]"), tensor("int64", "[2]", "[0, 1]"),
                              tensor("float32", "[2]", R"(["inf", 5])"));
  EXPECT_EQ(run_ref(json), (Values{INFINITY, 5, 3}));
}

TEST(RefInitVal, FloatMaxStartsFromMinusInfinity) {
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "max", "use_init_val": false)",
                              tensor("float32", "[3]", "[1, 2, 3]"), tensor("int64", "[2]", "[0, 1]"),
                              tensor("float32", "[2]", R"(["-inf", -5])"));
  EXPECT_EQ(run_ref(json), (Values{-INFINITY, -5, 3}));
}

TEST(RefInitVal, IntegerMinMaxStartFromTheLimits) {
  // int8 min from 127: min(127, 127) = 127 (data -100 ignored); max from -128.
  const auto min = make_case(R"("op": "scatter_elements", "reduction": "min", "use_init_val": false)",
                             tensor("int8", "[3]", "[-100, 100, 7]"), tensor("int64", "[2]", "[0, 1]"),
                             tensor("int8", "[2]", "[127, 60]"));
  EXPECT_EQ(run_ref(min), (Values{127, 60, 7}));
  const auto max = make_case(R"("op": "scatter_elements", "reduction": "max", "use_init_val": false)",
                             tensor("int8", "[3]", "[100, -100, 7]"), tensor("int64", "[2]", "[0, 1]"),
                             tensor("int8", "[2]", "[-128, -60]"));
  EXPECT_EQ(run_ref(max), (Values{-128, -60, 7}));
}

TEST(RefInitVal, FloatAddMulMeanFromIdentity) {
  for (const auto& [reduction, want] : std::vector<std::pair<std::string, double>>{{"add", 5}, {"mul", 6}, {"mean", 2.5}}) {
    SCOPED_TRACE(reduction);
    const auto json = make_case(R"("op": "scatter_elements", "use_init_val": false, "reduction": ")" + reduction + "\"",
                                tensor("float32", "[2]", "[100, 100]"), tensor("int64", "[2]", "[0, 0]"),
                                tensor("float32", "[2]", "[2, 3]"));
    EXPECT_EQ(run_ref(json), (Values{want, 100}));
  }
}

// ---- mean

TEST(RefMean, IntegerMeanRoundsTowardMinusInfinity) {
  // Without data: (-3 + -4) / 2 = -3.5 -> -4 (not -3); (3 + 4) / 2 = 3.5 -> 3.
  const auto without = make_case(R"("op": "scatter_elements", "reduction": "mean", "use_init_val": false)",
                                 tensor("int32", "[2]", "[0, 0]"), tensor("int64", "[4]", "[0, 0, 1, 1]"),
                                 tensor("int32", "[4]", "[-3, -4, 3, 4]"));
  EXPECT_EQ(run_ref(without), (Values{-4, 3}));
  // With data: (-1 - 3 - 3) / 3 = -2.33 -> -3 (not -2); (1 + 3 + 3) / 3 = 2.33 -> 2.
  const auto with = make_case(R"("op": "scatter_elements", "reduction": "mean", "use_init_val": true)",
                              tensor("int32", "[2]", "[-1, 1]"), tensor("int64", "[4]", "[0, 0, 1, 1]"),
                              tensor("int32", "[4]", "[-3, -3, 3, 3]"));
  EXPECT_EQ(run_ref(with), (Values{-3, 2}));
}

TEST(RefMean, FloatMeanWithAndWithoutInitVal) {
  const auto with = make_case(R"("op": "scatter_elements", "reduction": "mean", "use_init_val": true)",
                              tensor("float32", "[2]", "[1, 9]"), tensor("int64", "[2]", "[0, 0]"),
                              tensor("float32", "[2]", "[2, 4]"));
  const auto out = run_ref(with);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(static_cast<float>(out[0]), 7.0f / 3.0f);  // (1 + 2 + 4) / 3, rounded to float32
  EXPECT_EQ(out[1], 9);                                // untouched
  const auto without = make_case(R"("op": "scatter_elements", "reduction": "mean", "use_init_val": false)",
                                 tensor("float32", "[2]", "[1, 9]"), tensor("int64", "[2]", "[0, 0]"),
                                 tensor("float32", "[2]", "[2, 4]"));
  EXPECT_EQ(run_ref(without), (Values{3, 9}));
}

TEST(RefMean, SingleUpdateMeanWithInitVal) {
  // (data + u) / 2 with one update: (5 + 8) / 2 = 6.5 -> 6 for int8.
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "mean")", tensor("int8", "[2]", "[5, -5]"),
                              tensor("int64", "[2]", "[0, 1]"), tensor("int8", "[2]", "[8, -8]"));
  EXPECT_EQ(run_ref(json), (Values{6, -7}));
}

TEST(RefMean, IntegerMeanSumsInTheDataType) {
  // "Arithmetic happens in the data's own type ... integer overflow wraps": the int8
  // sum 100 + 100 + 100 wraps to 44, and 44 / 3 -> 14 (not the true mean 100).
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "mean")", tensor("int8", "[1]", "[100]"),
                              tensor("int64", "[2]", "[0, 0]"), tensor("int8", "[2]", "[100, 100]"));
  EXPECT_EQ(run_ref(json), (Values{14}));
}

// ---- integer wrap-around and float step rounding

TEST(RefArithmetic, Int8AddWraps) {
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("int8", "[2]", "[100, 0]"),
                              tensor("int64", "[1]", "[0]"), tensor("int8", "[1]", "[100]"));
  const auto c = load_case(json);
  const auto out = scatter::reference_scatter(c);
  EXPECT_EQ(out.data<std::int8_t>()[0], -56);  // 200 - 256
  EXPECT_EQ(out.data<std::int8_t>()[1], 0);
}

TEST(RefArithmetic, Int32AddWraps) {
  const auto json = make_case(R"("op": "scatter_nd", "reduction": "add")", tensor("int32", "[1]", "[2147483647]"),
                              tensor("int64", "[1, 1]", "[[0]]"), tensor("int32", "[1]", "[1]"));
  EXPECT_EQ(run_ref(json), (Values{-2147483648.0}));
}

TEST(RefArithmetic, Uint8MulWraps) {
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "mul")", tensor("uint8", "[1]", "[20]"),
                              tensor("int64", "[1]", "[0]"), tensor("uint8", "[1]", "[13]"));
  const auto c = load_case(json);
  EXPECT_EQ(scatter::reference_scatter(c).data<std::uint8_t>()[0], 4);  // 260 mod 256
}

TEST(RefArithmetic, Int16MulWraps) {
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "mul")", tensor("int16", "[1]", "[300]"),
                              tensor("int64", "[1]", "[0]"), tensor("int16", "[1]", "[300]"));
  const auto c = load_case(json);
  EXPECT_EQ(scatter::reference_scatter(c).data<std::int16_t>()[0], 24464);  // 90000 - 65536
}

TEST(RefArithmetic, Int8SubWrapsOnScatterNd) {
  const auto json = make_case(R"("op": "scatter_nd", "reduction": "sub")", tensor("int8", "[1]", "[-100]"),
                              tensor("int64", "[2, 1]", "[[0], [0]]"), tensor("int8", "[2]", "[100, 1]"));
  EXPECT_EQ(run_ref(json), (Values{55}));  // -100 - 100 = -200 -> 56; 56 - 1 = 55
}

TEST(RefArithmetic, Float16AddRoundsAfterEachStep) {
  // 2048 + 1 = 2049 is a tie between 2048 and 2050 -> 2048 (even); twice. Summing
  // the updates first (2048 + 2) would give 2050.
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("float16", "[1]", "[2048]"),
                              tensor("int64", "[2]", "[0, 0]"), tensor("float16", "[2]", "[1, 1]"));
  const auto c = load_case(json);
  const auto out = scatter::reference_scatter(c);
  EXPECT_EQ(scatter::element_as_double(out, 0), 2048.0);
  EXPECT_EQ(out.data<scatter::Float16>()[0].bits, 0x6800);  // 2048 in binary16
}

TEST(RefArithmetic, BFloat16AddRoundsAfterEachStep) {
  // bfloat16 has 8 significant bits: spacing 2 at 256; 256 + 1 ties to 256, twice.
  const auto json = make_case(R"("op": "scatter_nd", "reduction": "add")", tensor("bfloat16", "[1]", "[256]"),
                              tensor("int64", "[2, 1]", "[[0], [0]]"), tensor("bfloat16", "[2]", "[1, 1]"));
  EXPECT_EQ(run_ref(json), (Values{256}));
}

// ---- bool: add OR, sub XOR, mul AND, min AND, max OR

TEST(RefBool, LogicForEveryReduction) {
  // Pairs (data, update): (1,1), (1,0), (0,1), (0,0).
  const std::vector<std::pair<std::string, Values>> expectations{
      {"add", {1, 1, 1, 0}}, {"sub", {0, 1, 1, 0}}, {"mul", {1, 0, 0, 0}},
      {"min", {1, 0, 0, 0}}, {"max", {1, 1, 1, 0}}, {"none", {1, 0, 1, 0}},
  };
  for (const auto& [reduction, want] : expectations) {
    SCOPED_TRACE(reduction);
    const auto json = make_case(R"("op": "scatter_nd", "reduction": ")" + reduction + "\"",
                                tensor("bool", "[4]", "[true, true, false, false]"),
                                tensor("int64", "[4, 1]", "[[0], [1], [2], [3]]"),
                                tensor("bool", "[4]", "[true, false, true, false]"));
    EXPECT_EQ(run_ref(json), want);
  }
}

TEST(RefBool, DuplicatesFoldLogically) {
  // add (OR) of false with [false, true, false] is true; mul (AND) of true with [true, false, true] is false.
  const auto add = make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("bool", "[2]", "[false, false]"),
                             tensor("int64", "[3]", "[0, 0, 0]"), tensor("bool", "[3]", "[false, true, false]"));
  EXPECT_EQ(run_ref(add), (Values{1, 0}));
  const auto mul = make_case(R"("op": "scatter_elements", "reduction": "mul")", tensor("bool", "[2]", "[true, true]"),
                             tensor("int64", "[3]", "[0, 0, 0]"), tensor("bool", "[3]", "[true, false, true]"));
  EXPECT_EQ(run_ref(mul), (Values{0, 1}));
  // sub (XOR) three times true: true ^ true ^ true ^ true = false.
  const auto sub = make_case(R"("op": "scatter_nd", "reduction": "sub")", tensor("bool", "[1]", "[true]"),
                             tensor("int64", "[3, 1]", "[[0], [0], [0]]"), tensor("bool", "[3]", "[true, true, true]"));
  EXPECT_EQ(run_ref(sub), (Values{0}));
}

// ---- IEEE 754-2019 minimum / maximum

TEST(RefMinMax, NanInEitherOperandGivesNan) {
  for (const auto* reduction : {"min", "max"}) {
    SCOPED_TRACE(reduction);
    // out[0]: data NaN, update 5; out[1]: data 1, update NaN; out[2]: 2 vs 3; out[3] untouched NaN.
    const auto json = make_case(std::string(R"("op": "scatter_elements", "reduction": ")") + reduction + "\"",
                                tensor("float32", "[4]", R"(["nan", 1, 2, "nan"])"), tensor("int64", "[3]", "[0, 1, 2]"),
                                tensor("float32", "[3]", R"([5, "nan", 3])"));
    const auto out = run_ref(json);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_TRUE(std::isnan(out[0])) << out[0];
    EXPECT_TRUE(std::isnan(out[1])) << out[1];
    EXPECT_EQ(out[2], std::string(reduction) == "min" ? 2 : 3);
    EXPECT_TRUE(std::isnan(out[3])) << out[3];
  }
}

TEST(RefMinMax, NanSticksThroughLaterDuplicates) {
  // out[0]: NaN then 1 (fmin would forget the NaN); out[1]: 2 then NaN.
  for (const auto* reduction : {"min", "max"}) {
    SCOPED_TRACE(reduction);
    const auto json = make_case(std::string(R"("op": "scatter_nd", "reduction": ")") + reduction + "\"",
                                tensor("float64", "[2]", "[3, 4]"), tensor("int64", "[4, 1]", "[[0], [0], [1], [1]]"),
                                tensor("float64", "[4]", R"(["nan", 1, 2, "nan"])"));
    const auto out = run_ref(json);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(std::isnan(out[0])) << out[0];
    EXPECT_TRUE(std::isnan(out[1])) << out[1];
  }
}

TEST(RefMinMax, NegativeZeroIsBelowPositiveZero) {
  // data [+0, -0], updates [-0, +0]: min gives -0 both times, max +0 both times,
  // whichever operand came first.
  const auto data = tensor("float32", "[2]", "[0.0, -0.0]");
  const auto indices = tensor("int64", "[2]", "[0, 1]");
  const auto updates = tensor("float32", "[2]", "[-0.0, 0.0]");
  const auto min = run_ref(make_case(R"("op": "scatter_elements", "reduction": "min")", data, indices, updates));
  ASSERT_EQ(min.size(), 2u);
  EXPECT_EQ(min[0], 0.0);
  EXPECT_TRUE(std::signbit(min[0]));
  EXPECT_TRUE(std::signbit(min[1]));
  const auto max = run_ref(make_case(R"("op": "scatter_elements", "reduction": "max")", data, indices, updates));
  ASSERT_EQ(max.size(), 2u);
  EXPECT_EQ(max[0], 0.0);
  EXPECT_FALSE(std::signbit(max[0]));
  EXPECT_FALSE(std::signbit(max[1]));
}

TEST(RefMinMax, Float16NegativeZeroBits) {
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "min")", tensor("float16", "[1]", "[0.0]"),
                              tensor("int64", "[1]", "[0]"), tensor("float16", "[1]", "[-0.0]"));
  const auto c = load_case(json);
  EXPECT_EQ(scatter::reference_scatter(c).data<scatter::Float16>()[0].bits, 0x8000);
}

// ---- scatter_nd

TEST(RefNd, EveryReductionWithDuplicateTuples) {
  // data 2x2 of 6, indices [[1, 0], [0, 1], [1, 0]], updates [5, 9, 7]:
  //   out[1][0] <- 5, then 7;  out[0][1] <- 9.
  const std::vector<std::pair<std::string, Values>> expectations{
      {"none", {6, 9, 7, 6}},   {"add", {6, 15, 18, 6}}, {"sub", {6, -3, -6, 6}},
      {"mul", {6, 54, 210, 6}}, {"min", {6, 6, 5, 6}},   {"max", {6, 9, 7, 6}},
  };
  for (const auto* dtype : {"int32", "float32"}) {
    for (const auto& [reduction, want] : expectations) {
      SCOPED_TRACE(std::string(dtype) + " " + reduction);
      const auto json = make_case(R"("op": "scatter_nd", "reduction": ")" + reduction + "\"",
                                  tensor(dtype, "[2, 2]", "[[6, 6], [6, 6]]"),
                                  tensor("int64", "[3, 2]", "[[1, 0], [0, 1], [1, 0]]"), tensor(dtype, "[3]", "[5, 9, 7]"));
      EXPECT_EQ(run_ref(json), want);
    }
  }
}

TEST(RefNd, SliceUpdatesWithDuplicates) {
  // k = 1 < r = 2: each tuple picks a row; row 2 written twice.
  const auto base = [](const std::string& reduction) {
    return make_case(R"("op": "scatter_nd", "reduction": ")" + reduction + "\"", tensor("int32", "[3, 2]", "[0, 0, 0, 0, 0, 0]"),
                     tensor("int32", "[3, 1]", "[[2], [0], [2]]"), tensor("int32", "[3, 2]", "[[1, 2], [3, 4], [5, 6]]"));
  };
  EXPECT_EQ(run_ref(base("none")), (Values{3, 4, 0, 0, 5, 6}));
  EXPECT_EQ(run_ref(base("add")), (Values{3, 4, 0, 0, 6, 8}));
}

TEST(RefNd, TupleLengthZeroReplacesTheWholeTensor) {
  // k = 0: indices [2, 0], updates [2] + data.shape = [2, 2, 2]; each update is a whole tensor.
  const auto data = tensor("float32", "[2, 2]", "[[1, 2], [3, 4]]");
  const auto indices = tensor("int64", "[2, 0]", "[]");
  const auto updates = tensor("float32", "[2, 2, 2]", "[[[10, 20], [30, 40]], [[100, 200], [300, 400]]]");
  EXPECT_EQ(run_ref(make_case(R"("op": "scatter_nd")", data, indices, updates)), (Values{100, 200, 300, 400}));
  EXPECT_EQ(run_ref(make_case(R"("op": "scatter_nd", "reduction": "add")", data, indices, updates)),
            (Values{111, 222, 333, 444}));
}

TEST(RefNd, TupleLengthZeroWithOneDimIndices) {
  // indices shape [0]: q = 1, k = 0, one empty tuple; updates = [] + data.shape = [2].
  const auto json = make_case(R"("op": "scatter_nd", "reduction": "add")", tensor("int32", "[2]", "[1, 2]"),
                              tensor("int64", "[0]", "[]"), tensor("int32", "[2]", "[5, 6]"));
  EXPECT_EQ(run_ref(json), (Values{6, 8}));
}

TEST(RefNd, TupleLengthEqualToRankAndNegativeComponents) {
  // k = r = 3: single elements; [-1, 0, -2] = [1, 0, 1].
  const auto json = make_case(R"("op": "scatter_nd")", tensor("int16", "[2, 2, 2]", "[0, 0, 0, 0, 0, 0, 0, 0]"),
                              tensor("int64", "[2, 3]", "[[-1, 0, -2], [0, 1, 1]]"), tensor("int16", "[2]", "[7, 8]"));
  EXPECT_EQ(run_ref(json), (Values{0, 0, 0, 8, 7, 0, 0, 0}));
}

TEST(RefNd, IndicesOfHigherRank) {
  // indices 2x1x1 (q = 3, k = 1), updates [2, 1] + data.shape[1:] = [2, 1, 2].
  const auto json = make_case(R"("op": "scatter_nd")", tensor("int32", "[3, 2]", "[1, 1, 1, 1, 1, 1]"),
                              tensor("int32", "[2, 1, 1]", "[[[1]], [[2]]]"),
                              tensor("int32", "[2, 1, 2]", "[[[5, 6]], [[7, 8]]]"));
  EXPECT_EQ(run_ref(json), (Values{1, 1, 5, 6, 7, 8}));
}

// ---- scatter_update

TEST(RefUpdate, ZeroDimIndices) {
  // indices [] = 1: updates data.shape[:0] + [] + data.shape[1:] = [2] replace row 1.
  const auto json = make_case(R"("op": "scatter_update")", tensor("int32", "[3, 2]", "[0, 0, 0, 0, 0, 0]"),
                              tensor("int64", "[]", "1"), tensor("int32", "[2]", "[5, 6]"));
  EXPECT_EQ(run_ref(json), (Values{0, 0, 5, 6, 0, 0}));
}

TEST(RefUpdate, TwoDimIndicesOnAxisOne) {
  // updates[i][a][b] -> out[i][indices[a][b]], indices [[3, 0], [1, 2]].
  const auto json = make_case(R"("op": "scatter_update", "axis": 1)", tensor("int32", "[2, 4]", "[0, 0, 0, 0, 0, 0, 0, 0]"),
                              tensor("int32", "[2, 2]", "[[3, 0], [1, 2]]"),
                              tensor("int32", "[2, 2, 2]", "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"));
  EXPECT_EQ(run_ref(json), (Values{2, 3, 4, 1, 6, 7, 8, 5}));
}

TEST(RefUpdate, DuplicateIndicesLastWriterWins) {
  // indices [1, 3, 1]: row 1 gets [5, 6] then [9, 10].
  const auto json = make_case(R"("op": "ScatterUpdate", "axis": 0)", tensor("float32", "[4, 2]", "[0, 0, 0, 0, 0, 0, 0, 0]"),
                              tensor("int64", "[3]", "[1, 3, 1]"),
                              tensor("float32", "[3, 2]", "[[5, 6], [7, 8], [9, 10]]"));
  EXPECT_EQ(run_ref(json), (Values{0, 0, 9, 10, 0, 0, 7, 8}));
}

TEST(RefUpdate, LastAxisWithDuplicateIndices) {
  // axis -1 = 1, indices [2, 2]: column 2 gets updates[:, 0], then updates[:, 1].
  const auto json = make_case(R"("op": "scatter_update", "axis": -1)", tensor("int32", "[2, 3]", "[0, 0, 0, 0, 0, 0]"),
                              tensor("int64", "[2]", "[2, 2]"), tensor("int32", "[2, 2]", "[[1, 2], [3, 4]]"));
  EXPECT_EQ(run_ref(json), (Values{0, 0, 2, 0, 0, 4}));
}

TEST(RefUpdate, OpenVinoExample2) {
  // shared/seeds/001, ScatterUpdate-3 example 2 (axis 1, indices [0, 2]), output copied from the document.
  const auto json = make_case(R"("op": "scatter_update", "axis": 1)",
                              tensor("float32", "[3, 5]", "[[-1, 1, -1, 3, 4], [-1, 6, -1, 8, 9], [-1, 11, 1, 13, 14]]"),
                              tensor("int32", "[2]", "[0, 2]"), tensor("float32", "[3, 2]", "[[1, 1], [1, 1], [1, 2]]"));
  EXPECT_EQ(run_ref(json), (Values{1, 1, 1, 3, 4, 1, 6, 1, 8, 9, 1, 11, 2, 13, 14}));
}

// ---- empty updates

TEST(RefEmpty, EmptyUpdatesLeaveDataUnchangedBitForBit) {
  const auto data = tensor("float32", "[3]", R"([1.5, -0.0, "nan"])");
  const std::vector<std::string> cases{
      make_case(R"("op": "scatter_elements")", data, tensor("int64", "[0]", "[]"), tensor("float32", "[0]", "[]")),
      make_case(R"("op": "scatter_elements", "reduction": "mul", "use_init_val": false)", data,
                tensor("int64", "[0]", "[]"), tensor("float32", "[0]", "[]")),
      make_case(R"("op": "scatter_nd", "reduction": "add")", data, tensor("int64", "[0, 1]", "[]"),
                tensor("float32", "[0]", "[]")),
      make_case(R"("op": "scatter_update")", data, tensor("int64", "[0]", "[]"), tensor("float32", "[0]", "[]")),
  };
  for (const auto& json : cases) {
    SCOPED_TRACE(json);
    const auto c = load_case(json);
    const auto out = scatter::reference_scatter(c);
    ASSERT_EQ(out.nbytes(), c.data.nbytes());
    EXPECT_EQ(std::memcmp(out.bytes(), c.data.bytes(), out.nbytes()), 0);
  }
}

TEST(RefEmpty, EmptyDataGivesEmptyOutput) {
  const auto json = make_case(R"("op": "scatter_elements", "axis": 1)", tensor("float32", "[0, 3]", "[]"),
                              tensor("int64", "[0, 2]", "[]"), tensor("float32", "[0, 2]", "[]"));
  const auto c = load_case(json);
  const auto out = scatter::reference_scatter(c);
  EXPECT_EQ(out.numel(), 0);
  EXPECT_EQ(out.shape(), (scatter::Shape{0, 3}));
}

}  // namespace

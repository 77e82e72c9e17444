// Divergence models (scatter/model.hpp): each rule swapped on a case small enough to work
// out by hand. The expected values are the frameworks' outputs as their entries' reasons
// record them (lib/expectations/), and the IEEE 754 values those arithmetic steps give.

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>

#include "scatter/model.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

using testing::elements;
using testing::load_case;
using testing::make_case;
using testing::tensor;
using M = DivergenceModel;

// scatter_elements on data [a, b] with the updates at the given indices of axis 0.
Case elements_case(const std::string& reduction, const std::string& dtype, const std::string& data,
                   const std::string& indices, const std::string& updates, bool init = true) {
  const auto n = [](const std::string& list) { return "[" + std::to_string(std::count(list.begin(), list.end(), ',') + 1) + "]"; };
  return load_case(make_case(R"("op": "scatter_elements", "reduction": ")" + reduction + R"(", "use_init_val": )" +
                                 (init ? "true" : "false"),
                             tensor(dtype, n(data), "[" + data + "]"), tensor("int64", n(indices), "[" + indices + "]"),
                             tensor(dtype, n(updates), "[" + updates + "]")));
}

TEST(DivergenceModel, ComputeInWiderIntegersAndTruncatingMean) {
  // OpenVINO: int16 mean of 30000 and 10000 is 20000 (the spec's int16 sum wraps: -12768).
  const auto c = elements_case("mean", "int16", "0, 0", "0, 0", "30000, 10000", false);
  M model;
  model.compute_in[DType::int16] = DType::int32;
  EXPECT_EQ(elements<std::int16_t>(model_output(c, model)), (std::vector<std::int16_t>{20000, 0}));
  EXPECT_EQ(elements<std::int16_t>(model_output(c, M{})), (std::vector<std::int16_t>{-12768, 0}));
  // int64 mean of -7 and 0: floor -4, truncation -3.
  const auto negative = elements_case("mean", "int64", "0, 0", "0, 0", "-7, 0", false);
  model = {};
  model.integer_mean = M::IntegerMean::toward_zero;
  EXPECT_EQ(elements<std::int64_t>(model_output(negative, model)), (std::vector<std::int64_t>{-3, 0}));
  EXPECT_EQ(elements<std::int64_t>(model_output(negative, M{})), (std::vector<std::int64_t>{-4, 0}));
}

TEST(DivergenceModel, Float64ComputedInFloat32ChangesUntouchedElementsToo) {
  const auto c = elements_case("none", "float64", "0.1, 0.1", "0", "0.2");
  M model;
  model.compute_in[DType::float64] = DType::float32;
  EXPECT_EQ(elements<double>(model_output(c, model)),
            (std::vector<double>{static_cast<double>(0.2f), static_cast<double>(0.1f)}));
  // int64 in int32: 2^40 + 1 wraps to 1.
  const auto wide = elements_case("none", "int64", "0, 0", "0", "1099511627777");
  model = {};
  model.compute_in[DType::int64] = DType::int32;
  EXPECT_EQ(elements<std::int64_t>(model_output(wide, model)), (std::vector<std::int64_t>{1, 0}));
}

TEST(DivergenceModel, Bfloat16ComputedInFloat32AndTruncatedBack) {
  // 1 + 0.005859375 = 1.005859375: nearest bfloat16 1.0078125 (0x3F81), truncated 1.0 (0x3F80).
  const auto c = elements_case("add", "bfloat16", "1", "0", "0.005859375");
  M model;
  model.compute_in[DType::bfloat16] = DType::float32;
  model.round_back = M::Rounding::toward_zero;
  EXPECT_EQ(elements<std::uint16_t>(model_output(c, model)), (std::vector<std::uint16_t>{0x3F80}));
  EXPECT_EQ(elements<std::uint16_t>(model_output(c, M{})), (std::vector<std::uint16_t>{0x3F81}));
  // -2.109375 + -6.9375 = -9.046875: nearest -9.0625, truncated -9.0 (0xC110).
  const auto negative = elements_case("add", "bfloat16", "-2.109375", "0", "-6.9375");
  EXPECT_EQ(elements<std::uint16_t>(model_output(negative, model)), (std::vector<std::uint16_t>{0xC110}));
}

TEST(DivergenceModel, Float16AccumulatedInFloat32RoundsOnce) {
  // 2048 + 1 + 1: 2048 after every float16 step (2049 is a tie to even), 2050 rounded once.
  const auto c = elements_case("add", "float16", "2048", "0, 0", "1, 1");
  M model;
  model.compute_in[DType::float16] = DType::float32;
  EXPECT_EQ(elements<std::uint16_t>(model_output(c, model)), (std::vector<std::uint16_t>{0x6801}));  // 2050
  EXPECT_EQ(elements<std::uint16_t>(model_output(c, M{})), (std::vector<std::uint16_t>{0x6800}));   // 2048
}

TEST(DivergenceModel, MinMaxRules) {
  const auto nan_update = elements_case("max", "float32", "1", "0", R"("nan")");
  const auto nan_data = elements_case("max", "float32", R"("nan")", "0", "1");
  const auto zero_tie = elements_case("max", "float32", "-0.0", "0", "0.0");  // IEEE: +0
  const auto run = [](const Case& c, M::MinMax rule) {
    M model;
    model.min_max = rule;
    const float v = elements<float>(model_output(c, model)).front();
    return std::isnan(v) ? std::string("nan") : (std::signbit(v) ? "-" : "") + std::to_string(std::fabs(v));
  };
  // u > out ? u : out (OpenVINO, Python's max): a NaN update dropped, NaN data kept, the tie keeps -0.
  EXPECT_EQ(run(nan_update, M::MinMax::keep_existing_unless_better), "1.000000");
  EXPECT_EQ(run(nan_data, M::MinMax::keep_existing_unless_better), "nan");
  EXPECT_EQ(run(zero_tie, M::MinMax::keep_existing_unless_better), "-0.000000");
  // out > u ? out : u (onnxruntime, TVM): NaN data replaced, a NaN update taken, the tie takes +0.
  EXPECT_EQ(run(nan_update, M::MinMax::take_update_unless_worse), "nan");
  EXPECT_EQ(run(nan_data, M::MinMax::take_update_unless_worse), "1.000000");
  EXPECT_EQ(run(zero_tie, M::MinMax::take_update_unless_worse), "0.000000");
  // NaN propagates either way; the tie goes to the existing value (torch) or the update (NumPy).
  EXPECT_EQ(run(nan_data, M::MinMax::nan_propagates_ties_keep_existing), "nan");
  EXPECT_EQ(run(zero_tie, M::MinMax::nan_propagates_ties_keep_existing), "-0.000000");
  EXPECT_EQ(run(zero_tie, M::MinMax::nan_propagates_ties_take_update), "0.000000");
  EXPECT_EQ(run(zero_tie, M::MinMax::ieee), "0.000000");
}

TEST(DivergenceModel, MinMaxStartingFromTheLargestFiniteValues) {
  // OpenVINO with use_init_val false: min of a lone +inf is FLT_MAX, not +inf.
  const auto c = elements_case("min", "float32", "5, 5", "0", R"("inf")", false);
  M model;
  model.min_max_start = M::MinMaxStart::largest_finite;
  EXPECT_EQ(elements<float>(model_output(c, model)), (std::vector<float>{std::numeric_limits<float>::max(), 5}));
  EXPECT_EQ(elements<float>(model_output(c, M{})), (std::vector<float>{std::numeric_limits<float>::infinity(), 5}));
}

TEST(DivergenceModel, RunningPairwiseMean) {
  // TVM: mean(1; 2, 6) = ((1 + 2) / 2 + 6) / 2 = 3.75; the spec's (1 + 2 + 6) / 3 = 3.
  const auto c = elements_case("mean", "float32", "1", "0, 0", "2, 6");
  M model;
  model.mean = M::Mean::running_pairwise;
  EXPECT_EQ(elements<float>(model_output(c, model)), (std::vector<float>{3.75f}));
  EXPECT_EQ(elements<float>(model_output(c, M{})), (std::vector<float>{3.0f}));
}

TEST(DivergenceModel, SubnormalsFlushedInArithmeticOnly) {
  // JAX on CPU: 0 + 2^-149 = 0; a subnormal written by `none` is kept.
  const auto add = elements_case("add", "float32", "0", "0", "1.401298464324817e-45");
  M model;
  model.flush_subnormals = true;
  EXPECT_EQ(elements<float>(model_output(add, model)), (std::vector<float>{0.0f}));
  const auto none = elements_case("none", "float32", "0", "0", "1.401298464324817e-45");
  EXPECT_EQ(elements<float>(model_output(none, model)), (std::vector<float>{1.401298464324817e-45f}));
}

TEST(DivergenceModel, BoolComputedInInt32IsNotXor) {
  // OpenVINO ScatterND sub on bool: false - true - true = -2, nonzero: true (XOR: false).
  const auto c = load_case(make_case(R"("op": "scatter_nd", "reduction": "sub")", tensor("bool", "[1]", "[false]"),
                                     tensor("int64", "[2, 1]", "[[0], [0]]"), tensor("bool", "[2]", "[true, true]")));
  M model;
  model.compute_in[DType::boolean] = DType::int32;
  EXPECT_EQ(elements<std::uint8_t>(model_output(c, model)), (std::vector<std::uint8_t>{1}));
  EXPECT_EQ(elements<std::uint8_t>(model_output(c, M{})), (std::vector<std::uint8_t>{0}));
}

TEST(DivergenceModel, CombinedModelsTakeBothRulesAndRefuseAClash) {
  M narrow;
  narrow.compute_in[DType::float64] = DType::float32;
  M keep;
  keep.min_max = M::MinMax::keep_existing_unless_better;
  const auto both = combined(narrow, keep);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->rules_swapped(), 2);
  // float64 max(0.1, NaN) under both: 0.1 in float32, the NaN dropped.
  const auto c = elements_case("max", "float64", "0.1", "0", R"("nan")");
  EXPECT_EQ(elements<double>(model_output(c, *both)), (std::vector<double>{static_cast<double>(0.1f)}));
  M take;
  take.min_max = M::MinMax::take_update_unless_worse;
  EXPECT_FALSE(combined(keep, take).has_value());
}

}  // namespace
}  // namespace scatter

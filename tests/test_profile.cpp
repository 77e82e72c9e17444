// Spec profiles: each rule of each framework's specification, one case that breaks it
// and one that does not. Sources: ONNX Operators.md (ScatterElements-11/13/16/18,
// ScatterND-11/13/16/18: indices tensor(int64)), OpenVINO ScatterUpdate-3,
// ScatterElementsUpdate-12, ScatterNDUpdate-15; TensorRT IScatterLayer.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "scatter/profile.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

std::string nd_case(const std::string& reduction, const std::string& dtype, const std::string& index_dtype,
                    const std::string& index = "[[1], [2]]") {
  return fmt::format(R"({{"name": "p", "op": "scatter_nd", "reduction": "{}", "inputs": {{
      "data": {{"dtype": "{}", "shape": [4], "generate": {{"kind": "fill", "value": 1}}}},
      "indices": {{"dtype": "{}", "shape": [2, 1], "values": {}}},
      "updates": {{"dtype": "{}", "shape": [2], "generate": {{"kind": "fill", "value": 1}}}}}}}})",
                     reduction, dtype, index_dtype, index, dtype);
}

std::optional<std::string> violation(const std::string& profile, const std::string& json) {
  const auto entry = testing::load_one(json);
  if (!entry.decl) throw std::runtime_error("invalid test case");
  const auto c = materialize(*entry.decl);
  return profile_violation(profile, *entry.decl, &c);
}

TEST(Profile, NamesAreTheDocumentedOnes) {
  EXPECT_EQ(profile_names(), (std::vector<std::string>{"onnx:11", "onnx:13", "onnx:16", "onnx:18", "onnx:24",
                                                       "openvino:3", "openvino:12", "openvino:15", "tensorrt:10"}));
  EXPECT_FALSE(is_profile("onnx:12"));
}

// TensorScatter arrived in opset 24, with tensor(int64) write_indices; no other framework has it.
TEST(Profile, TensorScatterFromOnnxOpset24Only) {
  auto kv_write = [](const char* index_dtype) {
    return fmt::format(R"({{"name": "kv", "op": "tensor_scatter", "inputs": {{
      "data": {{"dtype": "float32", "shape": [2, 4, 3], "generate": {{"kind": "arange"}}}},
      "indices": {{"dtype": "{}", "shape": [2], "values": [1, 3]}},
      "updates": {{"dtype": "float32", "shape": [2, 1, 3], "generate": {{"kind": "fill", "value": 9}}}}}}}})",
                       index_dtype);
  };
  EXPECT_EQ(violation("onnx:24", kv_write("int64")), std::nullopt);
  EXPECT_EQ(violation("onnx:24", kv_write("int32")), "TensorScatter-24 takes int64 indices only");
  EXPECT_EQ(violation("onnx:18", kv_write("int64")), "onnx:18 has no tensor_scatter op");
  EXPECT_EQ(violation("openvino:15", kv_write("int64")), "openvino:15 has no tensor_scatter op");
}

TEST(Profile, OnnxReductionsArriveByOpset) {
  EXPECT_EQ(violation("onnx:13", nd_case("none", "float32", "int64")), std::nullopt);
  EXPECT_EQ(violation("onnx:13", nd_case("add", "float32", "int64")), "ScatterND allows reduction none (not add)");
  EXPECT_EQ(violation("onnx:16", nd_case("add", "float32", "int64")), std::nullopt);
  EXPECT_EQ(violation("onnx:16", nd_case("max", "float32", "int64")), "ScatterND allows reduction none, add, mul (not max)");
  EXPECT_EQ(violation("onnx:18", nd_case("max", "float32", "int64")), std::nullopt);
  EXPECT_EQ(violation("onnx:18", nd_case("sub", "float32", "int64")),
            "ScatterND allows reduction none, add, mul, min, max (not sub)");
}

TEST(Profile, OnnxScatterNdTakesInt64IndicesOnly) {
  EXPECT_EQ(violation("onnx:18", nd_case("none", "float32", "int32")), "ScatterND takes int64 indices only");
}

TEST(Profile, OnnxBfloat16FromOpset13) {
  EXPECT_EQ(violation("onnx:11", nd_case("none", "bfloat16", "int64")), "onnx:11 has no bfloat16 data");
  EXPECT_EQ(violation("onnx:13", nd_case("none", "bfloat16", "int64")), std::nullopt);
}

TEST(Profile, OnnxHasNoMeanNorUseInitValFalseNorScatterUpdate) {
  const auto mean = R"({"name": "m", "op": "scatter_elements", "reduction": "mean", "use_init_val": false, "inputs": {
      "data": {"dtype": "float32", "shape": [4], "generate": {"kind": "fill", "value": 1}},
      "indices": {"dtype": "int64", "shape": [2], "values": [1, 2]},
      "updates": {"dtype": "float32", "shape": [2], "generate": {"kind": "fill", "value": 1}}}})";
  EXPECT_EQ(violation("onnx:18", mean), "ScatterElements allows reduction none, add, mul, min, max (not mean)");
  EXPECT_EQ(violation("openvino:12", mean), std::nullopt);
  const auto update = R"({"name": "u", "op": "scatter_update", "inputs": {
      "data": {"dtype": "float32", "shape": [4], "generate": {"kind": "fill", "value": 1}},
      "indices": {"dtype": "int64", "shape": [1], "values": [1]},
      "updates": {"dtype": "float32", "shape": [1], "values": [2]}}})";
  EXPECT_EQ(violation("onnx:18", update), "onnx:18 has no scatter_update op (express it as scatter_nd)");
  EXPECT_EQ(violation("openvino:3", update), std::nullopt);
}

TEST(Profile, OpenVinoSubArrivesWithScatterNdUpdate15) {
  EXPECT_EQ(violation("openvino:12", nd_case("sub", "float32", "int32")),
            "ScatterNDUpdate-3 allows reduction none (not sub)");
  EXPECT_EQ(violation("openvino:15", nd_case("sub", "float32", "int32")), std::nullopt);
}

TEST(Profile, OpenVinoNegativeNdIndicesArriveWith15) {
  EXPECT_EQ(violation("openvino:3", nd_case("none", "float32", "int64", "[[-1], [2]]")),
            "ScatterNDUpdate-3 takes no negative indices (indices[0,0] = -1)");
  EXPECT_EQ(violation("openvino:15", nd_case("none", "float32", "int64", "[[-1], [2]]")), std::nullopt);
}

TEST(Profile, TensorRtHasNoReductionsBoolOrDuplicates) {
  EXPECT_EQ(violation("tensorrt:10", nd_case("add", "float32", "int32")),
            "IScatterLayer ND mode allows reduction none (not add)");
  EXPECT_EQ(violation("tensorrt:10", nd_case("none", "bool", "int32")), "tensorrt:10 has no bool data");
  EXPECT_EQ(violation("tensorrt:10", nd_case("none", "float32", "int32", "[[2], [2]]")),
            "IScatterLayer ND mode: duplicate writes are undefined (two updates target one element)");
  EXPECT_EQ(violation("tensorrt:10", nd_case("none", "float32", "int32")), std::nullopt);
}

}  // namespace
}  // namespace scatter

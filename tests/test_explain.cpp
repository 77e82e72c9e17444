// `explain` must tell the documents' own step-by-step stories: the expected lines
// below are the worked explanations of the TensorRT cookbook, ONNX and OpenVINO
// documents (with their typos corrected: the cookbook writes update[0,0,2,1] where
// the update is [0,0,1,1]).

#include <gtest/gtest.h>

#include <sstream>

#include "scatter/explain.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

std::string explain_file(const std::string& file, const std::string& case_name, std::int64_t limit = 1000) {
  LoadOptions options;
  options.max_bytes = 1ULL << 30;
  const auto loaded = load_paths({scatter::testing::cases_dir() + "/" + file}, options);
  for (const auto& entry : loaded.cases) {
    if (entry.name != case_name) continue;
    if (!entry.decl) throw std::runtime_error("invalid case " + case_name);
    std::ostringstream out;
    explain(materialize(*entry.decl), out, {limit, 1000});
    return out.str();
  }
  throw std::runtime_error("no case " + case_name + " in " + file);
}

TEST(Explain, TensorRtElementModeMatchesTheCookbook) {
  const auto text = explain_file("scatter_elements/doc_tensorrt_element.json", "doc_trt_element_mode");
  // index[0,0,0,1] = 1 => output[0,0,1,1] = update[0,0,0,1] = -1.
  EXPECT_NE(text.find("indices[0,0,0,1] = 1 -> output[0,0,1,1] = f(6, updates[0,0,0,1] = -1) = -1\n"), std::string::npos)
      << text;
  // index[0,0,1,0] = 1 => output[0,0,1,0] = update[0,0,1,0] = -5.
  EXPECT_NE(text.find("indices[0,0,1,0] = 1 -> output[0,0,1,0] = f(5, updates[0,0,1,0] = -5) = -5\n"), std::string::npos);
  // index[0,0,1,1] = 2 => output[0,0,2,1] = -6 (the cookbook's "update[0,0,2,1]" is a typo).
  EXPECT_NE(text.find("indices[0,0,1,1] = 2 -> output[0,0,2,1] = f(11, updates[0,0,1,1] = -6) = -6\n"), std::string::npos);
  // index[0,1,0,2] = 2 => output[0,1,2,2] = update[0,1,0,2] = -22.
  EXPECT_NE(text.find("indices[0,1,0,2] = 2 -> output[0,1,2,2] = f(32, updates[0,1,0,2] = -22) = -22\n"),
            std::string::npos);
  EXPECT_NE(text.find("60 update elements"), std::string::npos);
}

TEST(Explain, TensorRtNdModeMatchesTheCookbook) {
  const auto text = explain_file("scatter_nd/doc_tensorrt_nd.json", "doc_trt_nd_mode_ex1");
  // i=0, j=1: index[0,1] = [1,0,3,2] => output[1,0,3,2] = update[0,1] = -1.
  EXPECT_NE(text.find("indices[0,1] = [1,0,3,2] -> output[1,0,3,2] = f(77, updates[0,1] = -1) = -1\n"), std::string::npos)
      << text;
  // i=1, j=2: index[1,2] = [1,1,2,3] => output[1,1,2,3] = update[1,2] = -5.
  EXPECT_NE(text.find("indices[1,2] = [1,1,2,3] -> output[1,1,2,3] = f(93, updates[1,2] = -5) = -5\n"), std::string::npos);
}

TEST(Explain, TensorRtNdSlicesMatchTheCookbook) {
  const auto text = explain_file("scatter_nd/doc_tensorrt_nd.json", "doc_trt_nd_mode_ex2");
  // i=0: index2D[0] = [0,2,1] => output[0,2,1] = update2D[0] = [-0., -1., -2., -3., -4.]
  EXPECT_NE(text.find("indices[0] = [0,2,1] -> output[0,2,1,:] = f([45, 46, 47, 48, 49], updates[0,:] = "
                      "[-0, -1, -2, -3, -4]) = [-0, -1, -2, -3, -4]\n"),
            std::string::npos)
      << text;
  // i=5: index2D[5] = [1,1,2] => output[1,1,2] = update2D[5] = [-25., ..., -29.]
  EXPECT_NE(text.find("indices[5] = [1,1,2] -> output[1,1,2,:] = f([90, 91, 92, 93, 94], updates[5,:] = "
                      "[-25, -26, -27, -28, -29]) = [-25, -26, -27, -28, -29]\n"),
            std::string::npos);
}

TEST(Explain, OpenVinoSumWithNegativeIndicesShowsEachStep) {
  // data [2, 3, 4, 6], indices [1, 0, 0, -2, -1, 2], updates [10, 20, 30, 40, 70, 60] -> [52, 13, 104, 76]
  const auto text = explain_file("scatter_elements/doc_openvino_scatterelementsupdate12.json",
                                 "doc_ov_scatterelementsupdate12_ex1");
  EXPECT_NE(text.find("indices[1] = 0 -> output[0] = f(2, updates[1] = 20) = 22\n"), std::string::npos) << text;
  EXPECT_NE(text.find("indices[2] = 0 -> output[0] = f(22, updates[2] = 30) = 52\n"), std::string::npos);
  EXPECT_NE(text.find("indices[3] = -2 -> output[2] = f(4, updates[3] = 40) = 44\n"), std::string::npos);
  EXPECT_NE(text.find("output = [52, 13, 104, 76]\n"), std::string::npos);
}

TEST(Explain, MeanShowsTheDivision) {
  // (1 + 2 + 4) / 3 = 2.33.. floored for int32: 2; element 1 untouched.
  const auto c = testing::load_case(R"({"name": "m", "op": "scatter_elements", "reduction": "mean", "inputs": {
      "data": {"dtype": "int32", "shape": [2], "values": [1, 5]},
      "indices": {"dtype": "int64", "shape": [2], "values": [0, 0]},
      "updates": {"dtype": "int32", "shape": [2], "values": [2, 4]}}})");
  std::ostringstream out;
  explain(c, out);
  EXPECT_NE(out.str().find("mean: output[0] = 7 / 3 = 2\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("output = [2, 5]\n"), std::string::npos);
}

TEST(Explain, LargeCaseIsCutAtTheLimit) {
  const auto c = testing::load_case(R"({"name": "big", "op": "scatter_nd", "inputs": {
      "data": {"dtype": "float32", "shape": [5000], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [3000, 1], "generate": {"kind": "indices", "unique": true}},
      "updates": {"dtype": "float32", "shape": [3000], "generate": {"kind": "fill", "value": 1}}}})");
  std::ostringstream out;
  explain(c, out, {10, 1000});
  const auto text = out.str();
  EXPECT_NE(text.find("(the first 10 of 3000 are shown; --limit N for more)"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2 + 1 + 10 + 1);  // header, f, cut note, 10 lines, output
  EXPECT_NE(text.find("output: 5000 elements, not printed"), std::string::npos);
}

}  // namespace
}  // namespace scatter

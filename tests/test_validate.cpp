// Case validation: every error code of the case-format spec that a case's own fields
// can cause, triggered by a small case and checked by code and exact message (field and
// values named), plus the aliases and axis normalization. test_validate_expected.cpp
// checks `expected` and `tolerance`; test_validate_limits.cpp sizes, files and JSON.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/load.hpp"
#include "scatter/report.hpp"
#include "test_util.hpp"

namespace {

using scatter::ErrorCode;
using namespace scatter::testing;

// A valid scatter_elements case on data 4x2 (axis 0), to break one field at a time.
const std::string kData42 = tensor("float32", "[4, 2]", "[[1, 2], [3, 4], [5, 6], [7, 8]]");
const std::string kIdx22 = tensor("int64", "[2, 2]", "[[0, 1], [3, 0]]");
const std::string kUpd22 = tensor("float32", "[2, 2]", "[[10, 20], [30, 40]]");

std::string elements_case(const std::string& attrs) { return make_case(attrs, kData42, kIdx22, kUpd22); }
// The baseline with its data replaced.
std::string with_data(const std::string& data) { return make_case(kElements, data, kIdx22, kUpd22); }
// A case on data [1, 2, 3] (float32) with `updates` (one, 5, unless given) through `indices`.
std::string on_three(const std::string& attrs, const std::string& indices,
                     const std::string& updates = tensor("float32", "[1]", "[5]")) {
  return make_case(attrs, tensor("float32", "[3]", "[1, 2, 3]"), indices, updates);
}
// scatter_nd on data 2x3 with `indices` and the updates they need.
std::string nd_on_2x3(const std::string& indices, const std::string& updates) {
  return make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]"), indices, updates);
}

const std::string kNdIndex = tensor("int64", "[1, 1]", "[[2]]");
const std::string kUpdateIndex = tensor("int64", "[1]", "[2]");

// ---- the baseline is valid, so every rejection below is caused by its one change

TEST(ValidateBaseline, UnchangedCaseIsValid) { EXPECT_FALSE(rejection(elements_case(kElements)).has_value()); }

class ValidateRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(ValidateRejects, WithTheExactCodeAndMessage) {
  EXPECT_REJECTED(GetParam().json, GetParam().code, GetParam().message);
}

// Every rejection, by error code: the case, and the exact code and message it must get.
INSTANTIATE_TEST_SUITE_P(
    EveryCode, ValidateRejects,
    ::testing::ValuesIn(std::vector<Rejection>{
        // schema
        {"UnknownCaseKeySuggestsTheNearestKey", elements_case(kElements + R"(, "reductoin": "add")"), ErrorCode::schema,
         "unknown key 'reductoin' (did you mean 'reduction'?); allowed: format, name, description, source, tags, op, "
         "axis, reduction, use_init_val, mode, inputs, expected, expect_error, tolerance"},
        {"UnknownTensorKeyNamesTheTensor",
         with_data(R"({"dtype": "float32", "shpe": [4, 2], "values": [1, 2, 3, 4, 5, 6, 7, 8]})"), ErrorCode::schema,
         "inputs.data: unknown key 'shpe' (did you mean 'shape'?); allowed: dtype, shape, values, generate, file"},
        {"MissingInputNamesTheKey",
         R"({"name": "t", "op": "scatter_elements", "inputs": {"data": )" + kData42 + R"(, "indices": )" + kIdx22 +
             "}}",
         ErrorCode::schema, "inputs: missing key 'updates'"},
        {"MissingOp",
         R"({"name": "t", "inputs": {"data": )" + kData42 + R"(, "indices": )" + kIdx22 + R"(, "updates": )" + kUpd22 +
             "}}",
         ErrorCode::schema, "missing key 'op'"},
        {"BadName",
         R"({"name": "bad name!", )" + elements_case(kElements).substr(std::string(R"({"name": "t", )").size()),
         ErrorCode::schema, R"(name = "bad name!" must match [A-Za-z0-9_.-]+)"},
        {"ValuesAndGenerateTogether",
         with_data(
             R"({"dtype": "float32", "shape": [4, 2], "values": [1, 2, 3, 4, 5, 6, 7, 8], "generate": {"kind": "fill", "value": 0}})"),
         ErrorCode::schema, "inputs.data: needs exactly one of 'values', 'generate', 'file' (has 2)"},
        {"NoSourceAtAll", with_data(R"({"dtype": "float32", "shape": [4, 2]})"), ErrorCode::schema,
         "inputs.data: needs exactly one of 'values', 'generate', 'file' (has 0)"},
        {"UseInitValOnScatterNd",
         on_three(R"("op": "scatter_nd", "reduction": "add", "use_init_val": false)", kNdIndex), ErrorCode::schema,
         "use_init_val: applies to scatter_elements only, not scatter_nd"},
        {"AxisOnScatterNd", on_three(R"("op": "scatter_nd", "axis": 0)", kNdIndex), ErrorCode::schema,
         "axis: does not apply to scatter_nd (its tuples index the leading dimensions)"},
        {"AxisMustBeAnInteger", elements_case(kElements + R"(, "axis": "1")"), ErrorCode::schema,
         R"(axis: must be an integer, got "1")"},
        {"ExpectedAndExpectErrorTogether",
         make_case(R"("op": "scatter_elements", "expect_error": "index")", kData42, kIdx22, kUpd22,
                   R"(, "expected": )" + kData42),
         ErrorCode::schema, "expected: a case has either 'expected' or 'expect_error', not both"},
        // dtype
        {"UnknownDtype", with_data(tensor("float8", "[4, 2]", "[1, 2, 3, 4, 5, 6, 7, 8]")), ErrorCode::dtype,
         "inputs.data.dtype = 'float8' is not a dtype (float64, float32, float16, bfloat16, int64, int32, int16, "
         "int8, uint8, bool)"},
        {"FloatIndices", make_case(kElements, kData42, tensor("float32", "[2, 2]", "[[0, 1], [3, 0]]"), kUpd22),
         ErrorCode::dtype, "inputs.indices.dtype = float32; indices must be int32 or int64"},
        {"UpdatesDtypeDiffersFromData",
         make_case(kElements, kData42, kIdx22, tensor("float64", "[2, 2]", "[[10, 20], [30, 40]]")), ErrorCode::dtype,
         "inputs.updates.dtype = float64 differs from inputs.data.dtype = float32"},
        {"ExpectedDtypeDiffersFromData",
         make_case(kElements, kData42, kIdx22, kUpd22,
                   R"(, "expected": )" + tensor("int32", "[4, 2]", "[1, 2, 3, 4, 5, 6, 7, 8]")),
         ErrorCode::dtype, "expected.dtype = int32 differs from inputs.data.dtype = float32"},
        {"MeanOnBool",
         make_case(R"("op": "scatter_elements", "reduction": "mean")", tensor("bool", "[3]", "[true, false, true]"),
                   tensor("int32", "[1]", "[0]"), tensor("bool", "[1]", "[false]")),
         ErrorCode::dtype, "reduction: 'mean' is not defined for bool data"},
        // values
        {"OutOfRangeForDtypeNamesTheElement",
         make_case(kElements, tensor("uint8", "[3]", "[1, 300, 3]"), tensor("int32", "[1]", "[0]"),
                   tensor("uint8", "[1]", "[9]")),
         ErrorCode::values, "inputs.data.values[1] = 300 is out of range [0, 255] for dtype uint8"},
        {"TooFewValues",
         make_case(kElements, tensor("float32", "[4]", "[1, 2, 3]"), tensor("int32", "[1]", "[0]"),
                   tensor("float32", "[1]", "[9]")),
         ErrorCode::values, "inputs.data.values: has 3 elements, shape [4] needs 4"},
        {"FractionInIntegerTensor",
         make_case(kElements, tensor("int32", "[2, 2]", "[[1, 2], [3, 4.5]]"), tensor("int32", "[1, 1]", "[[0]]"),
                   tensor("int32", "[1, 1]", "[[9]]")),
         ErrorCode::values, "inputs.data.values[1,1] = 4.5 is not an integer, as dtype int32 needs"},
        {"StringThatIsNotANumber",
         make_case(kElements, kData42, kIdx22, tensor("float32", "[2, 2]", R"([[10, 20], [30, "forty"]])")),
         ErrorCode::values,
         R"(inputs.updates.values[1,1] = "forty" is not a number (strings may be "nan", "inf", "-inf"))"},
        // op
        {"UnknownOp", elements_case(R"("op": "scatter_everything")"), ErrorCode::op,
         "op = 'scatter_everything' is not an op (scatter_elements, scatter_nd, scatter_update, tensor_scatter or an alias)"},
        {"UnknownReduction", elements_case(kElements + R"(, "reduction": "avg")"), ErrorCode::op,
         "reduction = 'avg' is not a reduction (none, add, sub, mul, min, max, mean or an alias)"},
        {"SubOnScatterElements", elements_case(kElements + R"(, "reduction": "sub")"), ErrorCode::op,
         "reduction: 'sub' is not allowed for scatter_elements (allowed: none, add, mul, min, max, mean)"},
        {"MeanOnScatterNd", on_three(R"("op": "scatter_nd", "reduction": "mean")", kNdIndex), ErrorCode::op,
         "reduction: 'mean' is not allowed for scatter_nd (allowed: none, add, sub, mul, min, max)"},
        {"AddOnScatterUpdate", on_three(R"("op": "scatter_update", "reduction": "add")", kUpdateIndex), ErrorCode::op,
         "reduction: 'add' is not allowed for scatter_update (allowed: none)"},
        // axis
        {"AxisTooLarge", elements_case(kElements + R"(, "axis": 2)"), ErrorCode::axis,
         "axis = 2 is out of range [-2, 1] for rank(data) = 2"},
        {"AxisTooNegative", elements_case(kElements + R"(, "axis": -3)"), ErrorCode::axis,
         "axis = -3 is out of range [-2, 1] for rank(data) = 2"},
        {"ScatterUpdateAxisOutOfRange",
         on_three(R"("op": "scatter_update", "axis": 1)", kUpdateIndex), ErrorCode::axis,
         "axis = 1 is out of range [-1, 0] for rank(data) = 1"},
        // shape
        {"ElementsRankDiffers",
         make_case(kElements, kData42, tensor("int64", "[2]", "[0, 1]"), tensor("float32", "[2]", "[10, 20]")),
         ErrorCode::shape,
         "inputs.indices.shape = [2] has rank 1, but scatter_elements needs rank(data) = 2 (data.shape [4, 2])"},
        {"ElementsUpdatesDifferFromIndices",
         make_case(kElements, kData42, kIdx22, tensor("float32", "[2, 1]", "[[10], [30]]")), ErrorCode::shape,
         "inputs.updates.shape = [2, 1] differs from inputs.indices.shape = [2, 2]"},
        // axis 0: indices.shape[1] = 3 > data.shape[1] = 2 is not allowed.
        {"ElementsNonAxisDimLargerThanData",
         make_case(R"("op": "scatter_elements", "axis": 0)", kData42, tensor("int64", "[1, 3]", "[[0, 1, 2]]"),
                   tensor("float32", "[1, 3]", "[[1, 2, 3]]")),
         ErrorCode::shape,
         "inputs.indices.shape[1] = 3 exceeds data.shape[1] = 2 (only the axis dimension, 0, may exceed data)"},
        {"NegativeDim", with_data(tensor("float32", "[4, -2]", "[]")), ErrorCode::shape,
         "inputs.data.shape[1] = -2 is negative"},
        {"ScalarData",
         make_case(R"("op": "scatter_nd")", tensor("float32", "[]", "1"), tensor("int64", "[1, 0]", "[]"),
                   tensor("float32", "[1]", "[5]")),
         ErrorCode::shape, "inputs.data.shape = [] but scatter_nd needs data of rank >= 1"},
        {"NdIndicesRankZero",
         on_three(R"("op": "scatter_nd")", tensor("int64", "[]", "1"), tensor("float32", "[]", "5")),
         ErrorCode::shape, "inputs.indices.shape = [] but scatter_nd needs indices of rank >= 1"},
        {"NdTupleLongerThanRank",
         make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 2]", "[[1, 2], [3, 4]]"),
                   tensor("int64", "[1, 3]", "[[0, 1, 0]]"), tensor("float32", "[1]", "[5]")),
         ErrorCode::shape, "inputs.indices.shape[1] = 3 (the tuple length k) exceeds rank(data) = 2"},
        // k = 1: updates must be indices.shape[:-1] + data.shape[1:] = [2, 3].
        {"NdUpdatesShape",
         nd_on_2x3(tensor("int64", "[2, 1]", "[[0], [1]]"), tensor("float32", "[2]", "[5, 6]")),
         ErrorCode::shape,
         "inputs.updates.shape = [2] but scatter_nd needs indices.shape[:-1] + data.shape[1:] = [2, 3] (k = 1)"},
        // axis 1: updates must be data.shape[:1] + indices.shape + data.shape[2:] = [2, 1, 2].
        {"UpdateUpdatesShape",
         make_case(R"("op": "scatter_update", "axis": 1)",
                   tensor("float32", "[2, 3, 2]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"), kUpdateIndex,
                   tensor("float32", "[2, 2]", "[5, 6, 7, 8]")),
         ErrorCode::shape,
         "inputs.updates.shape = [2, 2] but scatter_update needs data.shape[:1] + indices.shape + data.shape[2:] = "
         "[2, 1, 2]"},
        {"ExpectedShapeDiffersFromData",
         make_case(kElements, kData42, kIdx22, kUpd22,
                   R"(, "expected": )" + tensor("float32", "[2, 4]", "[1, 2, 3, 4, 5, 6, 7, 8]")),
         ErrorCode::shape, "expected.shape = [2, 4] differs from inputs.data.shape = [4, 2]"},
        // index
        {"ElementsTooNegative",
         make_case(R"("op": "scatter_elements", "axis": 1)", kData42, tensor("int32", "[2, 2]", "[[0, -3], [1, 0]]"),
                   kUpd22),
         ErrorCode::index, "inputs.indices[0,1] = -3 is out of range [-2, 1] for data.shape[1] = 2"},
        {"UpdateNegativeIsAnError",
         on_three(R"("op": "scatter_update")", tensor("int64", "[2]", "[0, -1]"), tensor("float32", "[2]", "[5, 6]")),
         ErrorCode::index,
         "inputs.indices[1] = -1 is negative; scatter_update takes indices in [0, 2] for data.shape[0] = 3"},
        {"UpdateOutOfRange",
         on_three(R"("op": "scatter_update")", tensor("int64", "[2]", "[3, 0]"), tensor("float32", "[2]", "[5, 6]")),
         ErrorCode::index, "inputs.indices[0] = 3 is out of range [0, 2] for data.shape[0] = 3"},
        {"UpdateZeroDimIndexOutOfRange",
         make_case(R"("op": "scatter_update")", tensor("float32", "[3, 2]", "[1, 2, 3, 4, 5, 6]"),
                   tensor("int64", "[]", "5"), tensor("float32", "[2]", "[7, 8]")),
         ErrorCode::index, "inputs.indices = 5 is out of range [0, 2] for data.shape[0] = 3"},
        {"NdOutOfRange", nd_on_2x3(tensor("int64", "[2, 2]", "[[0, 1], [2, 0]]"), tensor("float32", "[2]", "[-1, -2]")),
         ErrorCode::index, "inputs.indices[1,0] = 2 is out of range [-2, 1] for data.shape[0] = 2"},
        // [0, 3] has flat offset 3 < 6, but component 1 must be in [-3, 2].
        {"NdComponentOutOfRangeAlthoughFlatOffsetIsInside",
         nd_on_2x3(tensor("int64", "[2, 2]", "[[0, 1], [0, 3]]"), tensor("float32", "[2]", "[-1, -2]")),
         ErrorCode::index, "inputs.indices[1,1] = 3 is out of range [-3, 2] for data.shape[1] = 3"},
        {"NdNegativeComponentTooNegative",
         nd_on_2x3(tensor("int32", "[1, 2]", "[[-1, -4]]"), tensor("float32", "[1]", "[-1]")), ErrorCode::index,
         "inputs.indices[0,1] = -4 is out of range [-3, 2] for data.shape[1] = 3"},
    }),
    scatter::testing::rejection_name);

TEST(ValidateShape, ElementsAxisDimMayExceedData) {
  // indices.shape[0] = 6 > data.shape[0] = 4 is fine along the axis.
  const auto json = make_case(R"("op": "scatter_elements", "axis": 0)", kData42,
                              tensor("int64", "[6, 1]", "[[0], [1], [2], [3], [0], [1]]"),
                              tensor("float32", "[6, 1]", "[[1], [2], [3], [4], [5], [6]]"));
  EXPECT_FALSE(rejection(json).has_value());
}

TEST(ValidateIndex, ElementsOutOfRangeLikeTheSpecExample) {
  const auto json = make_case(kElements, kData42, tensor("int64", "[2, 2]", "[[0, 1], [7, 0]]"), kUpd22);
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[1,0] = 7 is out of range [-4, 3] for data.shape[0] = 4");
  // The file and the case are named too, for the report.
  const auto error = rejection(json);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(scatter::describe(*error),
            "test.json: case 't': [index] inputs.indices[1,0] = 7 is out of range [-4, 3] for data.shape[0] = 4");
}

TEST(ValidateIndex, ElementsNegativeInRangeIsValid) {
  const auto json = make_case(R"("op": "scatter_elements", "axis": 1)", kData42,
                              tensor("int32", "[2, 2]", "[[0, -2], [1, -1]]"), kUpd22);
  EXPECT_FALSE(rejection(json).has_value());
}

// ---- aliases, normalization

TEST(ValidateAliases, OpAliasesAreCaseInsensitive) {
  using scatter::Op;
  const std::pair<const char*, Op> aliases[] = {
      {"ScatterElementsUpdate", Op::scatter_elements}, {"ScatterElements", Op::scatter_elements},
      {"Scatter", Op::scatter_elements},               {"SCATTERELEMENTSUPDATE", Op::scatter_elements},
      {"ScatterND", Op::scatter_nd},                   {"ScatterNDUpdate", Op::scatter_nd},
      {"scatterndupdate", Op::scatter_nd},             {"Scatter_ND", Op::scatter_nd},
      {"ScatterUpdate", Op::scatter_update},           {"scatter_update", Op::scatter_update}};
  for (const auto& [name, op] : aliases) EXPECT_EQ(scatter::parse_op(name), op) << name;
  for (const auto* name : {"ScatterNDElements", ""}) EXPECT_FALSE(scatter::parse_op(name).has_value()) << name;
}

// The spec makes only the op aliases case-insensitive; reductions are checked as written.
TEST(ValidateAliases, ReductionAliases) {
  using scatter::Reduction;
  const std::pair<const char*, Reduction> aliases[] = {{"sum", Reduction::add},
                                                       {"prod", Reduction::mul},
                                                       {"multiply", Reduction::mul},
                                                       {"add", Reduction::add},
                                                       {"none", Reduction::none}};
  for (const auto& [name, reduction] : aliases) EXPECT_EQ(scatter::parse_reduction(name), reduction) << name;
  for (const auto* name : {"product", ""}) EXPECT_FALSE(scatter::parse_reduction(name).has_value()) << name;
}

TEST(ValidateAliases, AliasesInACaseFile) {
  // Each case's attrs, and the op and reduction they load as.
  const struct {
    std::string json;
    scatter::Op op;
    scatter::Reduction reduction;
  } cases[] = {
      {elements_case(R"("op": "ScatterElementsUpdate", "reduction": "prod")"), scatter::Op::scatter_elements,
       scatter::Reduction::mul},
      {on_three(R"("op": "scatterNDupdate", "reduction": "sum")", kNdIndex), scatter::Op::scatter_nd,
       scatter::Reduction::add},
      {elements_case(R"("op": "SCATTER", "reduction": "multiply")"), scatter::Op::scatter_elements,
       scatter::Reduction::mul},
  };
  for (const auto& c : cases) {
    const auto entry = load_one(c.json);
    ASSERT_TRUE(entry.decl.has_value()) << c.json;
    EXPECT_EQ(entry.decl->attrs.op, c.op) << c.json;
    EXPECT_EQ(entry.decl->attrs.reduction, c.reduction) << c.json;
  }
}

TEST(ValidateAxis, NegativeAxisIsNormalized) {
  for (const auto& [axis, normalized] : {std::pair{"-1", 1}, std::pair{"-2", 0}}) {
    const auto entry = load_one(elements_case(kElements + R"(, "axis": )" + axis));
    ASSERT_TRUE(entry.decl.has_value()) << axis;
    EXPECT_EQ(entry.decl->attrs.axis, normalized) << axis;
  }
}

}  // namespace

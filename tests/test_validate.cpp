// Case validation: every error code of the case-format spec, triggered by a small
// case and checked by code and exact message (field and values named), plus the
// aliases, axis normalization and duplicate names across files.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "scatter/case.hpp"
#include "scatter/load.hpp"
#include "scatter/report.hpp"
#include "test_util.hpp"

namespace {

using scatter::ErrorCode;
using scatter::testing::load_one;
using scatter::testing::rejection;
namespace fs = std::filesystem;

std::string tensor(const std::string& dtype, const std::string& shape, const std::string& values) {
  return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "values": )" + values + "}";
}

// A case named "t": `attrs` are the case's keys before "inputs" (op, axis, ...).
std::string make_case(const std::string& attrs, const std::string& data, const std::string& indices,
                      const std::string& updates, const std::string& extra = "") {
  return R"({"name": "t", )" + attrs + R"(, "inputs": {"data": )" + data + R"(, "indices": )" + indices +
         R"(, "updates": )" + updates + "}" + extra + "}";
}

// A valid scatter_elements case on data 4x2 (axis 0), to break one field at a time.
const std::string kData42 = tensor("float32", "[4, 2]", "[[1, 2], [3, 4], [5, 6], [7, 8]]");
const std::string kIdx22 = tensor("int64", "[2, 2]", "[[0, 1], [3, 0]]");
const std::string kUpd22 = tensor("float32", "[2, 2]", "[[10, 20], [30, 40]]");

std::string elements_case(const std::string& attrs) { return make_case(attrs, kData42, kIdx22, kUpd22); }

// ---- the baseline is valid, so every rejection below is caused by its one change

TEST(ValidateBaseline, UnchangedCaseIsValid) {
  EXPECT_FALSE(rejection(elements_case(R"("op": "scatter_elements")")).has_value());
}

// ---- schema

TEST(ValidateSchema, UnknownCaseKeySuggestsTheNearestKey) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_elements", "reductoin": "add")"), ErrorCode::schema,
                  "unknown key 'reductoin' (did you mean 'reduction'?); allowed: format, name, description, source, "
                  "tags, op, axis, reduction, use_init_val, inputs, expected, expect_error, tolerance");
}

TEST(ValidateSchema, UnknownTensorKeyNamesTheTensor) {
  const auto data = R"({"dtype": "float32", "shpe": [4, 2], "values": [1, 2, 3, 4, 5, 6, 7, 8]})";
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, kIdx22, kUpd22), ErrorCode::schema,
                  "inputs.data: unknown key 'shpe' (did you mean 'shape'?); allowed: dtype, shape, values, generate, "
                  "file");
}

TEST(ValidateSchema, MissingInputNamesTheKey) {
  const auto json = R"({"name": "t", "op": "scatter_elements", "inputs": {"data": )" + kData42 +
                    R"(, "indices": )" + kIdx22 + "}}";
  EXPECT_REJECTED(json, ErrorCode::schema, "inputs: missing key 'updates'");
}

TEST(ValidateSchema, MissingOp) {
  const auto json = R"({"name": "t", "inputs": {"data": )" + kData42 + R"(, "indices": )" + kIdx22 +
                    R"(, "updates": )" + kUpd22 + "}}";
  EXPECT_REJECTED(json, ErrorCode::schema, "missing key 'op'");
}

TEST(ValidateSchema, BadName) {
  auto json = elements_case(R"("op": "scatter_elements")");
  json.replace(json.find(R"("t")"), 3, R"("bad name!")");
  EXPECT_REJECTED(json, ErrorCode::schema, R"(name = "bad name!" must match [A-Za-z0-9_.-]+)");
}

TEST(ValidateSchema, ValuesAndGenerateTogether) {
  const auto data =
      R"({"dtype": "float32", "shape": [4, 2], "values": [1, 2, 3, 4, 5, 6, 7, 8], "generate": {"kind": "fill", "value": 0}})";
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, kIdx22, kUpd22), ErrorCode::schema,
                  "inputs.data: needs exactly one of 'values', 'generate', 'file' (has 2)");
}

TEST(ValidateSchema, NoSourceAtAll) {
  const auto data = R"({"dtype": "float32", "shape": [4, 2]})";
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, kIdx22, kUpd22), ErrorCode::schema,
                  "inputs.data: needs exactly one of 'values', 'generate', 'file' (has 0)");
}

TEST(ValidateSchema, UseInitValOnScatterNd) {
  const auto json = make_case(R"("op": "scatter_nd", "reduction": "add", "use_init_val": false)",
                              tensor("float32", "[3]", "[1, 2, 3]"), tensor("int64", "[1, 1]", "[[2]]"),
                              tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::schema, "use_init_val: applies to scatter_elements only, not scatter_nd");
}

TEST(ValidateSchema, AxisOnScatterNd) {
  const auto json = make_case(R"("op": "scatter_nd", "axis": 0)", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[1, 1]", "[[2]]"), tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::schema,
                  "axis: does not apply to scatter_nd (its tuples index the leading dimensions)");
}

TEST(ValidateSchema, AxisMustBeAnInteger) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_elements", "axis": "1")"), ErrorCode::schema,
                  R"(axis: must be an integer, got "1")");
}

TEST(ValidateSchema, ExpectedAndExpectErrorTogether) {
  const auto json = make_case(R"("op": "scatter_elements", "expect_error": "index")", kData42, kIdx22, kUpd22,
                              R"(, "expected": )" + kData42);
  EXPECT_REJECTED(json, ErrorCode::schema, "expected: a case has either 'expected' or 'expect_error', not both");
}

// ---- dtype

TEST(ValidateDtype, UnknownDtype) {
  const auto data = tensor("float8", "[4, 2]", "[1, 2, 3, 4, 5, 6, 7, 8]");
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, kIdx22, kUpd22), ErrorCode::dtype,
                  "inputs.data.dtype = 'float8' is not a dtype (float64, float32, float16, bfloat16, int64, int32, "
                  "int16, int8, uint8, bool)");
}

TEST(ValidateDtype, FloatIndices) {
  const auto indices = tensor("float32", "[2, 2]", "[[0, 1], [3, 0]]");
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", kData42, indices, kUpd22), ErrorCode::dtype,
                  "inputs.indices.dtype = float32; indices must be int32 or int64");
}

TEST(ValidateDtype, UpdatesDtypeDiffersFromData) {
  const auto updates = tensor("float64", "[2, 2]", "[[10, 20], [30, 40]]");
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", kData42, kIdx22, updates), ErrorCode::dtype,
                  "inputs.updates.dtype = float64 differs from inputs.data.dtype = float32");
}

TEST(ValidateDtype, ExpectedDtypeDiffersFromData) {
  const auto json = make_case(R"("op": "scatter_elements")", kData42, kIdx22, kUpd22,
                              R"(, "expected": )" + tensor("int32", "[4, 2]", "[1, 2, 3, 4, 5, 6, 7, 8]"));
  EXPECT_REJECTED(json, ErrorCode::dtype, "expected.dtype = int32 differs from inputs.data.dtype = float32");
}

TEST(ValidateDtype, MeanOnBool) {
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "mean")",
                              tensor("bool", "[3]", "[true, false, true]"), tensor("int32", "[1]", "[0]"),
                              tensor("bool", "[1]", "[false]"));
  EXPECT_REJECTED(json, ErrorCode::dtype, "reduction: 'mean' is not defined for bool data");
}

// ---- values

TEST(ValidateValues, OutOfRangeForDtypeNamesTheElement) {
  const auto json = make_case(R"("op": "scatter_elements")", tensor("uint8", "[3]", "[1, 300, 3]"),
                              tensor("int32", "[1]", "[0]"), tensor("uint8", "[1]", "[9]"));
  EXPECT_REJECTED(json, ErrorCode::values, "inputs.data.values[1] = 300 is out of range [0, 255] for dtype uint8");
}

TEST(ValidateValues, TooFewValues) {
  const auto json = make_case(R"("op": "scatter_elements")", tensor("float32", "[4]", "[1, 2, 3]"),
                              tensor("int32", "[1]", "[0]"), tensor("float32", "[1]", "[9]"));
  EXPECT_REJECTED(json, ErrorCode::values, "inputs.data.values: has 3 elements, shape [4] needs 4");
}

TEST(ValidateValues, FractionInIntegerTensor) {
  const auto json = make_case(R"("op": "scatter_elements")", tensor("int32", "[2, 2]", "[[1, 2], [3, 4.5]]"),
                              tensor("int32", "[1, 1]", "[[0]]"), tensor("int32", "[1, 1]", "[[9]]"));
  EXPECT_REJECTED(json, ErrorCode::values, "inputs.data.values[1,1] = 4.5 is not an integer, as dtype int32 needs");
}

TEST(ValidateValues, StringThatIsNotANumber) {
  const auto json = make_case(R"("op": "scatter_elements")", kData42, kIdx22,
                              tensor("float32", "[2, 2]", R"([[10, 20], [30, "forty"]])"));
  EXPECT_REJECTED(json, ErrorCode::values,
                  R"(inputs.updates.values[1,1] = "forty" is not a number (strings may be "nan", "inf", "-inf"))");
}

// ---- op

TEST(ValidateOp, UnknownOp) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_everything")"), ErrorCode::op,
                  "op = 'scatter_everything' is not an op (scatter_elements, scatter_nd, scatter_update or an alias)");
}

TEST(ValidateOp, UnknownReduction) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_elements", "reduction": "avg")"), ErrorCode::op,
                  "reduction = 'avg' is not a reduction (none, add, sub, mul, min, max, mean or an alias)");
}

TEST(ValidateOp, SubOnScatterElements) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_elements", "reduction": "sub")"), ErrorCode::op,
                  "reduction: 'sub' is not allowed for scatter_elements (allowed: none, add, mul, min, max, mean)");
}

TEST(ValidateOp, MeanOnScatterNd) {
  const auto json = make_case(R"("op": "scatter_nd", "reduction": "mean")", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[1, 1]", "[[2]]"), tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::op,
                  "reduction: 'mean' is not allowed for scatter_nd (allowed: none, add, sub, mul, min, max)");
}

TEST(ValidateOp, AddOnScatterUpdate) {
  const auto json = make_case(R"("op": "scatter_update", "reduction": "add")", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[1]", "[2]"), tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::op, "reduction: 'add' is not allowed for scatter_update (allowed: none)");
}

// ---- axis

TEST(ValidateAxis, TooLarge) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_elements", "axis": 2)"), ErrorCode::axis,
                  "axis = 2 is out of range [-2, 1] for rank(data) = 2");
}

TEST(ValidateAxis, TooNegative) {
  EXPECT_REJECTED(elements_case(R"("op": "scatter_elements", "axis": -3)"), ErrorCode::axis,
                  "axis = -3 is out of range [-2, 1] for rank(data) = 2");
}

TEST(ValidateAxis, ScatterUpdateAxisOutOfRange) {
  const auto json = make_case(R"("op": "scatter_update", "axis": 1)", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[1]", "[2]"), tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::axis, "axis = 1 is out of range [-1, 0] for rank(data) = 1");
}

// ---- shape

TEST(ValidateShape, ElementsRankDiffers) {
  const auto json = make_case(R"("op": "scatter_elements")", kData42, tensor("int64", "[2]", "[0, 1]"),
                              tensor("float32", "[2]", "[10, 20]"));
  EXPECT_REJECTED(json, ErrorCode::shape,
                  "inputs.indices.shape = [2] has rank 1, but scatter_elements needs rank(data) = 2 (data.shape [4, 2])");
}

TEST(ValidateShape, ElementsUpdatesDifferFromIndices) {
  const auto json = make_case(R"("op": "scatter_elements")", kData42, kIdx22,
                              tensor("float32", "[2, 1]", "[[10], [30]]"));
  EXPECT_REJECTED(json, ErrorCode::shape, "inputs.updates.shape = [2, 1] differs from inputs.indices.shape = [2, 2]");
}

TEST(ValidateShape, ElementsNonAxisDimLargerThanData) {
  // axis 0: indices.shape[1] = 3 > data.shape[1] = 2 is not allowed.
  const auto json = make_case(R"("op": "scatter_elements", "axis": 0)", kData42,
                              tensor("int64", "[1, 3]", "[[0, 1, 2]]"), tensor("float32", "[1, 3]", "[[1, 2, 3]]"));
  EXPECT_REJECTED(json, ErrorCode::shape,
                  "inputs.indices.shape[1] = 3 exceeds data.shape[1] = 2 (only the axis dimension, 0, may exceed "
                  "data)");
}

TEST(ValidateShape, ElementsAxisDimMayExceedData) {
  // indices.shape[0] = 6 > data.shape[0] = 4 is fine along the axis.
  const auto json = make_case(R"("op": "scatter_elements", "axis": 0)", kData42,
                              tensor("int64", "[6, 1]", "[[0], [1], [2], [3], [0], [1]]"),
                              tensor("float32", "[6, 1]", "[[1], [2], [3], [4], [5], [6]]"));
  EXPECT_FALSE(rejection(json).has_value());
}

TEST(ValidateShape, NegativeDim) {
  const auto data = tensor("float32", "[4, -2]", "[]");
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, kIdx22, kUpd22), ErrorCode::shape,
                  "inputs.data.shape[1] = -2 is negative");
}

TEST(ValidateShape, ScalarData) {
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[]", "1"),
                              tensor("int64", "[1, 0]", "[]"), tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::shape, "inputs.data.shape = [] but scatter_nd needs data of rank >= 1");
}

TEST(ValidateShape, NdIndicesRankZero) {
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[]", "1"), tensor("float32", "[]", "5"));
  EXPECT_REJECTED(json, ErrorCode::shape, "inputs.indices.shape = [] but scatter_nd needs indices of rank >= 1");
}

TEST(ValidateShape, NdTupleLongerThanRank) {
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 2]", "[[1, 2], [3, 4]]"),
                              tensor("int64", "[1, 3]", "[[0, 1, 0]]"), tensor("float32", "[1]", "[5]"));
  EXPECT_REJECTED(json, ErrorCode::shape, "inputs.indices.shape[1] = 3 (the tuple length k) exceeds rank(data) = 2");
}

TEST(ValidateShape, NdUpdatesShape) {
  // k = 1: updates must be indices.shape[:-1] + data.shape[1:] = [2, 3].
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]"),
                              tensor("int64", "[2, 1]", "[[0], [1]]"), tensor("float32", "[2]", "[5, 6]"));
  EXPECT_REJECTED(json, ErrorCode::shape,
                  "inputs.updates.shape = [2] but scatter_nd needs indices.shape[:-1] + data.shape[1:] = [2, 3] (k = "
                  "1)");
}

TEST(ValidateShape, UpdateUpdatesShape) {
  // axis 1: updates must be data.shape[:1] + indices.shape + data.shape[2:] = [2, 1, 2].
  const auto json = make_case(R"("op": "scatter_update", "axis": 1)",
                              tensor("float32", "[2, 3, 2]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"),
                              tensor("int64", "[1]", "[2]"), tensor("float32", "[2, 2]", "[5, 6, 7, 8]"));
  EXPECT_REJECTED(json, ErrorCode::shape,
                  "inputs.updates.shape = [2, 2] but scatter_update needs data.shape[:1] + indices.shape + "
                  "data.shape[2:] = [2, 1, 2]");
}

TEST(ValidateShape, ExpectedShapeDiffersFromData) {
  const auto json = make_case(R"("op": "scatter_elements")", kData42, kIdx22, kUpd22,
                              R"(, "expected": )" + tensor("float32", "[2, 4]", "[1, 2, 3, 4, 5, 6, 7, 8]"));
  EXPECT_REJECTED(json, ErrorCode::shape, "expected.shape = [2, 4] differs from inputs.data.shape = [4, 2]");
}

// ---- index

TEST(ValidateIndex, ElementsOutOfRangeLikeTheSpecExample) {
  const auto json = make_case(R"("op": "scatter_elements")", kData42, tensor("int64", "[2, 2]", "[[0, 1], [7, 0]]"),
                              kUpd22);
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[1,0] = 7 is out of range [-4, 3] for data.shape[0] = 4");
  // The file and the case are named too, for the report.
  const auto error = rejection(json);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(scatter::describe(*error),
            "test.json: case 't': [index] inputs.indices[1,0] = 7 is out of range [-4, 3] for data.shape[0] = 4");
}

TEST(ValidateIndex, ElementsTooNegative) {
  const auto json = make_case(R"("op": "scatter_elements", "axis": 1)", kData42,
                              tensor("int32", "[2, 2]", "[[0, -3], [1, 0]]"), kUpd22);
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[0,1] = -3 is out of range [-2, 1] for data.shape[1] = 2");
}

TEST(ValidateIndex, ElementsNegativeInRangeIsValid) {
  const auto json = make_case(R"("op": "scatter_elements", "axis": 1)", kData42,
                              tensor("int32", "[2, 2]", "[[0, -2], [1, -1]]"), kUpd22);
  EXPECT_FALSE(rejection(json).has_value());
}

TEST(ValidateIndex, UpdateNegativeIsAnError) {
  const auto json = make_case(R"("op": "scatter_update")", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[2]", "[0, -1]"), tensor("float32", "[2]", "[5, 6]"));
  EXPECT_REJECTED(json, ErrorCode::index,
                  "inputs.indices[1] = -1 is negative; scatter_update takes indices in [0, 2] for data.shape[0] = 3");
}

TEST(ValidateIndex, UpdateOutOfRange) {
  const auto json = make_case(R"("op": "scatter_update")", tensor("float32", "[3]", "[1, 2, 3]"),
                              tensor("int64", "[2]", "[3, 0]"), tensor("float32", "[2]", "[5, 6]"));
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[0] = 3 is out of range [0, 2] for data.shape[0] = 3");
}

TEST(ValidateIndex, UpdateZeroDimIndexOutOfRange) {
  const auto json = make_case(R"("op": "scatter_update")", tensor("float32", "[3, 2]", "[1, 2, 3, 4, 5, 6]"),
                              tensor("int64", "[]", "5"), tensor("float32", "[2]", "[7, 8]"));
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices = 5 is out of range [0, 2] for data.shape[0] = 3");
}

TEST(ValidateIndex, NdOutOfRange) {
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]"),
                              tensor("int64", "[2, 2]", "[[0, 1], [2, 0]]"), tensor("float32", "[2]", "[-1, -2]"));
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[1,0] = 2 is out of range [-2, 1] for data.shape[0] = 2");
}

TEST(ValidateIndex, NdComponentOutOfRangeAlthoughFlatOffsetIsInside) {
  // [0, 3] has flat offset 3 < 6, but component 1 must be in [-3, 2].
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]"),
                              tensor("int64", "[2, 2]", "[[0, 1], [0, 3]]"), tensor("float32", "[2]", "[-1, -2]"));
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[1,1] = 3 is out of range [-3, 2] for data.shape[1] = 3");
}

TEST(ValidateIndex, NdNegativeComponentTooNegative) {
  const auto json = make_case(R"("op": "scatter_nd")", tensor("float32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]"),
                              tensor("int32", "[1, 2]", "[[-1, -4]]"), tensor("float32", "[1]", "[-1]"));
  EXPECT_REJECTED(json, ErrorCode::index, "inputs.indices[0,1] = -4 is out of range [-3, 2] for data.shape[1] = 3");
}

// ---- expected under `none` with duplicate targets: one of the element's updates

const std::string kToleranceRule =
    "; a tolerance applies only to float add, sub, mul and mean, on elements that two or more updates hit";

TEST(ValidateNoneExpected, ValueOfNoDuplicateIsRejected) {
  // Three updates write out[1]; 5 is none of 7, 8, 9, so no update order gives it.
  const auto json = make_case(R"("op": "scatter_elements")", tensor("int32", "[3]", "[0, 0, 0]"),
                              tensor("int64", "[3]", "[1, 1, 1]"), tensor("int32", "[3]", "[7, 8, 9]"),
                              R"(, "expected": )" + tensor("int32", "[3]", "[0, 5, 0]"));
  EXPECT_REJECTED(json, ErrorCode::values,
                  "expected[1] = 5 is none of the values of the 3 updates that target it (7, 8, 9); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, AnyDuplicateIsAccepted) {
  for (const auto* value : {"7", "8", "9"}) {
    SCOPED_TRACE(value);
    const auto json = make_case(R"("op": "scatter_elements")", tensor("int32", "[3]", "[0, 0, 0]"),
                                tensor("int64", "[3]", "[1, 1, 1]"), tensor("int32", "[3]", "[7, 8, 9]"),
                                R"(, "expected": )" + tensor("int32", "[3]", std::string("[0, ") + value + ", 0]"));
    EXPECT_FALSE(rejection(json).has_value());
  }
}

TEST(ValidateNoneExpected, SingleTargetIsLeftToTheExactComparison) {
  // out[0] has one update (4); its expected 6 is wrong, but the comparison is exact there
  // and fails any backend, so validation does not judge it.
  const auto json = make_case(R"("op": "scatter_elements")", tensor("int32", "[3]", "[0, 0, 0]"),
                              tensor("int64", "[3]", "[0, 1, 1]"), tensor("int32", "[3]", "[4, 8, 9]"),
                              R"(, "expected": )" + tensor("int32", "[3]", "[6, 8, 0]"));
  EXPECT_FALSE(rejection(json).has_value());
}

TEST(ValidateNoneExpected, OtherReductionsAreNotChecked) {
  // max of 7, 8, 9 onto 0 is 9; a wrong 5 is the comparison's business (exact there).
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "max")", tensor("int32", "[3]", "[0, 0, 0]"),
                              tensor("int64", "[3]", "[1, 1, 1]"), tensor("int32", "[3]", "[7, 8, 9]"),
                              R"(, "expected": )" + tensor("int32", "[3]", "[0, 5, 0]"));
  EXPECT_FALSE(rejection(json).has_value());
}

TEST(ValidateNoneExpected, ScatterNdSlicesPerElement) {
  // Both tuples write row 1: out[1,0] is 1 or 3, out[1,1] is 2 or 4, each on its own.
  const auto data = tensor("float32", "[2, 2]", "[[0, 0], [0, 0]]");
  const auto indices = tensor("int64", "[2, 1]", "[[1], [-1]]");
  const auto updates = tensor("float32", "[2, 2]", "[[1, 2], [3, 4]]");
  EXPECT_FALSE(rejection(make_case(R"("op": "scatter_nd")", data, indices, updates,
                                   R"(, "expected": )" + tensor("float32", "[2, 2]", "[[0, 0], [1, 4]]")))
                   .has_value());
  EXPECT_REJECTED(make_case(R"("op": "scatter_nd")", data, indices, updates,
                            R"(, "expected": )" + tensor("float32", "[2, 2]", "[[0, 0], [3, 5]]")),
                  ErrorCode::values,
                  "expected[1,1] = 5 is none of the values of the 2 updates that target it (2, 4); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, ScatterUpdateRows) {
  const auto json = make_case(R"("op": "scatter_update")", tensor("int64", "[3, 2]", "[1, 2, 3, 4, 5, 6]"),
                              tensor("int64", "[2]", "[2, 2]"), tensor("int64", "[2, 2]", "[[7, 8], [9, 10]]"),
                              R"(, "expected": )" + tensor("int64", "[3, 2]", "[[1, 2], [3, 4], [9, 6]]"));
  EXPECT_REJECTED(json, ErrorCode::values,
                  "expected[2,1] = 6 is none of the values of the 2 updates that target it (8, 10); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, ExactRuleNanAnyNanSignedZeroDiffers) {
  const auto data = tensor("float32", "[1]", "[1]");
  const auto indices = tensor("int64", "[2]", "[0, 0]");
  const auto updates = tensor("float32", "[2]", R"(["nan", -0.0])");
  for (const auto* ok : {R"(["nan"])", "[-0.0]"}) {
    SCOPED_TRACE(ok);
    EXPECT_FALSE(rejection(make_case(R"("op": "scatter_elements")", data, indices, updates,
                                     R"(, "expected": )" + tensor("float32", "[1]", ok)))
                     .has_value());
  }
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, indices, updates,
                            R"(, "expected": )" + tensor("float32", "[1]", "[0.0]")),
                  ErrorCode::values,
                  "expected[0] = 0 is none of the values of the 2 updates that target it (nan, -0); with reduction "
                  "'none' a duplicate target holds one of them");
}

TEST(ValidateNoneExpected, LongListOfDuplicatesIsCut) {
  const auto json = make_case(R"("op": "scatter_elements")", tensor("int32", "[2]", "[0, 0]"),
                              tensor("int64", "[10]", "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"),
                              tensor("int32", "[10]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"),
                              R"(, "expected": )" + tensor("int32", "[2]", "[0, 11]"));
  EXPECT_REJECTED(json, ErrorCode::values,
                  "expected[1] = 11 is none of the values of the 10 updates that target it (1, 2, 3, 4, 5, 6, 7, 8, "
                  "and 2 more); with reduction 'none' a duplicate target holds one of them");
}

// ---- tolerance: only where an element can be compared with allclose

TEST(ValidateTolerance, OnIntegerOrBoolData) {
  const auto ints = make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("int32", "[2]", "[0, 0]"),
                              tensor("int64", "[2]", "[0, 0]"), tensor("int32", "[2]", "[1, 2]"),
                              R"(, "tolerance": {"atol": 1})");
  EXPECT_REJECTED(ints, ErrorCode::schema,
                  "tolerance: int32 outputs are compared exactly, bit for bit" + kToleranceRule);
  const auto bools = make_case(R"("op": "scatter_elements", "reduction": "add")", tensor("bool", "[2]", "[0, 0]"),
                               tensor("int64", "[2]", "[0, 0]"), tensor("bool", "[2]", "[1, 0]"),
                               R"(, "tolerance": {"rtol": 0.5})");
  EXPECT_REJECTED(bools, ErrorCode::schema,
                  "tolerance: bool outputs are compared exactly, bit for bit" + kToleranceRule);
}

TEST(ValidateTolerance, OnFloatNoneMinMax) {
  for (const std::string red : {"none", "min", "max"}) {
    SCOPED_TRACE(red);
    const auto json = make_case(R"("op": "scatter_elements", "reduction": ")" + red + "\"",
                                tensor("float32", "[2]", "[0, 0]"), tensor("int64", "[2]", "[0, 0]"),
                                tensor("float32", "[2]", "[1, 2]"), R"(, "tolerance": {"atol": 1})");
    EXPECT_REJECTED(json, ErrorCode::schema,
                    "tolerance: float outputs of reduction '" + red +
                        "' are compared exactly, bit for bit" + kToleranceRule);
  }
}

TEST(ValidateTolerance, OnFloatAddWithoutDuplicateTargets) {
  // kIdx22 on axis 0 hits four distinct elements once each.
  const auto json = make_case(R"("op": "scatter_elements", "reduction": "add")", kData42, kIdx22, kUpd22,
                              R"(, "tolerance": {"atol": 0.5, "rtol": 0})");
  EXPECT_REJECTED(json, ErrorCode::schema,
                  "tolerance: no output element is hit by two or more updates, so every element is "
                  "compared exactly" + kToleranceRule);
  const auto empty = make_case(R"("op": "scatter_nd", "reduction": "mul")", tensor("float64", "[2]", "[1, 2]"),
                               tensor("int64", "[0, 1]", "[]"), tensor("float64", "[0]", "[]"),
                               R"(, "tolerance": {"atol": 0.5})");
  EXPECT_REJECTED(empty, ErrorCode::schema, "tolerance: no update targets any element" + kToleranceRule);
}

TEST(ValidateTolerance, AcceptedWhereAnElementIsHitTwice) {
  for (const std::string red : {"add", "mul", "mean"}) {
    SCOPED_TRACE(red);
    const auto json = make_case(R"("op": "scatter_elements", "reduction": ")" + red + "\"",
                                tensor("float16", "[3]", "[1, 2, 3]"), tensor("int64", "[3]", "[2, 0, 2]"),
                                tensor("float16", "[3]", "[1, 2, 4]"), R"(, "tolerance": {"atol": 0.5, "rtol": 0})");
    EXPECT_FALSE(rejection(json).has_value());
  }
  const auto sub = make_case(R"("op": "scatter_nd", "reduction": "sub")", tensor("float64", "[2]", "[1, 2]"),
                             tensor("int64", "[2, 1]", "[[1], [-1]]"), tensor("float64", "[2]", "[1, 2]"),
                             R"(, "tolerance": {"rtol": 0.5})");
  EXPECT_FALSE(rejection(sub).has_value());
}

// ---- too_large

TEST(ValidateTooLarge, MoreThanMaxBytes) {
  // data 4x2 float32 (32 bytes) three times, indices 2x2 int64 (32), updates 2x2 float32 (16): 144 bytes.
  const auto json = elements_case(R"("op": "scatter_elements")");
  EXPECT_FALSE(rejection(json, 144).has_value());
  const auto error = rejection(json, 100);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::too_large);
  EXPECT_EQ(error->message(),
            "the case needs 144 bytes of host memory (inputs, expected and outputs) but --max-bytes is 100 bytes");
}

TEST(ValidateTooLarge, GeneratedTensorOverMaxBytes) {
  const auto json = make_case(R"("op": "scatter_elements")",
                              R"({"dtype": "float32", "shape": [1048576], "generate": {"kind": "fill", "value": 0}})",
                              tensor("int64", "[1]", "[0]"), tensor("float32", "[1]", "[1]"));
  const auto error = rejection(json, 1 << 20);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::too_large);
  EXPECT_EQ(error->message(),
            "the case needs 12.0 MiB of host memory (inputs, expected and outputs) but --max-bytes is 1.0 MiB");
}

TEST(ValidateTooLarge, IndicesGeneratorScratchCounts) {
  // The tensors need 24576 bytes: data 1024 float32 three times (12288), indices 1024
  // int64 (8192), updates 1024 float32 (4096). Drawing 1024 unique indices needs more
  // than that again (the draws, the Fisher-Yates state): a limit that the tensors
  // alone fit must not let the generator allocate past it.
  const auto json = make_case(
      R"("op": "scatter_elements")", R"({"dtype": "float32", "shape": [1024], "generate": {"kind": "fill", "value": 0}})",
      R"({"dtype": "int64", "shape": [1024], "generate": {"kind": "indices", "unique": true}})",
      R"({"dtype": "float32", "shape": [1024], "generate": {"kind": "fill", "value": 1}})");
  const auto error = rejection(json, 24576);
  ASSERT_TRUE(error.has_value()) << "the generator's scratch memory was not counted";
  EXPECT_EQ(error->code(), ErrorCode::too_large);
  EXPECT_NE(error->message().find("to generate indices) but --max-bytes is 24576 bytes"), std::string::npos)
      << error->message();
  EXPECT_FALSE(rejection(json, 1 << 20).has_value());
}

TEST(ValidateTooLarge, ElementCountOverflowsInt64) {
  // 2^32 * 2^32 elements: the product does not fit in int64.
  const auto data = R"({"dtype": "float32", "shape": [4294967296, 4294967296], "generate": {"kind": "fill", "value": 0}})";
  const auto json = make_case(R"("op": "scatter_elements")", data, tensor("int64", "[1, 1]", "[[0]]"),
                              tensor("float32", "[1, 1]", "[[1]]"));
  EXPECT_REJECTED(json, ErrorCode::too_large,
                  "inputs.data.shape = [4294967296, 4294967296] of float32 has more bytes than any memory holds");
}

TEST(ValidateTooLarge, ByteCountOverflowsInt64) {
  // 2^62 elements fit in int64, 2^62 * 8 bytes do not.
  const auto data = R"({"dtype": "float64", "shape": [4611686018427387904], "generate": {"kind": "fill", "value": 0}})";
  const auto json = make_case(R"("op": "scatter_elements")", data, tensor("int64", "[1]", "[0]"),
                              tensor("float64", "[1]", "[1]"));
  EXPECT_REJECTED(json, ErrorCode::too_large,
                  "inputs.data.shape = [4611686018427387904] of float64 has more bytes than any memory holds");
}

TEST(ValidateTooLarge, ByteTotalMustNotWrapAround) {
  // data int8 of (2^64 + 2) / 3 elements: 6.1e18 bytes fit in int64, but the case needs
  // three copies of data (input, output, reference), 1.8e19 bytes, more than 2^64. A
  // total computed modulo 2^64 comes out as 2 + 8 + 1 = 11 bytes and slips under any limit.
  const auto data = R"({"dtype": "int8", "shape": [6148914691236517206], "generate": {"kind": "fill", "value": 0}})";
  const auto json = make_case(R"("op": "scatter_elements")", data, tensor("int64", "[1]", "[0]"),
                              tensor("int8", "[1]", "[1]"));
  const auto entry = load_one(json, 1 << 20);  // never materialized: that would ask for 6e18 bytes
  ASSERT_TRUE(entry.error.has_value()) << "the case was accepted at load";
  EXPECT_EQ(entry.error->code(), ErrorCode::too_large) << entry.error->message();
  EXPECT_FALSE(entry.decl.has_value());
}

// ---- io

TEST(ValidateIo, MissingNpyFile) {
  const auto data = R"({"dtype": "float32", "shape": [4, 2], "file": "/nonexistent_scatterctl_dir/data.npy"})";
  EXPECT_REJECTED(make_case(R"("op": "scatter_elements")", data, kIdx22, kUpd22), ErrorCode::io,
                  "inputs.data.file: cannot open '/nonexistent_scatterctl_dir/data.npy': No such file or directory");
}

TEST(ValidateIo, MissingPathGivenToLoadPaths) {
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  const auto result = scatter::load_paths({"/nonexistent_scatterctl_dir/cases.json"}, options);
  ASSERT_EQ(result.file_errors.size(), 1u);
  EXPECT_EQ(result.file_errors[0].code(), ErrorCode::io);
  EXPECT_EQ(result.file_errors[0].file(), "/nonexistent_scatterctl_dir/cases.json");
  EXPECT_EQ(result.file_errors[0].message(), "no such file or directory");
  EXPECT_TRUE(result.cases.empty());
}

TEST(ValidateTooLarge, FileWhoseParseCouldPassMaxBytesIsNotRead) {
  // 64 MiB + 3 bytes: "{}" and spaces. Parsed JSON can take 32 times its text, so
  // under --max-bytes 1 GiB (room for 32 MiB of text) the file is refused unread; under
  // 4 GiB it is read, and its one case lacks a name.
  const auto path = fs::temp_directory_path() / ("scatter_big_file_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path, std::ios::binary);
    out << "{}" << std::string((64u << 20) + 1, ' ');
  }
  scatter::LoadOptions options;
  options.max_bytes = 1ULL << 30;
  const auto refused = scatter::load_paths({path.string()}, options);
  ASSERT_EQ(refused.file_errors.size(), 1u);
  EXPECT_EQ(refused.file_errors[0].code(), ErrorCode::too_large);
  EXPECT_EQ(refused.file_errors[0].file(), path.string());
  EXPECT_EQ(refused.file_errors[0].message(),
            "the file has 64.0 MiB; parsing it may need 32 times that, more than --max-bytes = 1.00 GiB");
  EXPECT_TRUE(refused.cases.empty());
  options.max_bytes = 4ULL << 30;
  const auto read = scatter::load_paths({path.string()}, options);
  EXPECT_TRUE(read.file_errors.empty());
  ASSERT_EQ(read.cases.size(), 1u);
  ASSERT_TRUE(read.cases[0].error.has_value());
  EXPECT_EQ(read.cases[0].error->message(), "missing key 'name'");
  fs::remove(path);
}

// ---- json

TEST(ValidateJson, SyntaxErrorHasLineAndColumn) {
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  const std::string text = "{\"name\": \"t\",\n  \"op\": \"scatter_nd\",\n  \"inputs\": {,}\n}\n";
  const auto result = scatter::load_text(text, "broken.json", options);
  EXPECT_TRUE(result.cases.empty());
  ASSERT_EQ(result.file_errors.size(), 1u);
  const auto& error = result.file_errors[0];
  EXPECT_EQ(error.code(), ErrorCode::json);
  EXPECT_EQ(error.file(), "broken.json");
  EXPECT_EQ(error.message(),
            "parse error at line 3, column 14: syntax error while parsing object key - unexpected ','; expected "
            "string literal");
}

TEST(ValidateJson, TopLevelMustBeAnObject) {
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  const auto result = scatter::load_text("[1, 2]", "list.json", options);
  ASSERT_EQ(result.file_errors.size(), 1u);
  EXPECT_EQ(result.file_errors[0].code(), ErrorCode::schema);
  EXPECT_EQ(result.file_errors[0].message(),
            "the top level must be a case object or {\"cases\": [...]}, got array");
}

// ---- aliases, normalization, names

TEST(ValidateAliases, OpAliasesAreCaseInsensitive) {
  using scatter::Op;
  EXPECT_EQ(scatter::parse_op("ScatterElementsUpdate"), Op::scatter_elements);
  EXPECT_EQ(scatter::parse_op("ScatterElements"), Op::scatter_elements);
  EXPECT_EQ(scatter::parse_op("Scatter"), Op::scatter_elements);
  EXPECT_EQ(scatter::parse_op("SCATTERELEMENTSUPDATE"), Op::scatter_elements);
  EXPECT_EQ(scatter::parse_op("ScatterND"), Op::scatter_nd);
  EXPECT_EQ(scatter::parse_op("ScatterNDUpdate"), Op::scatter_nd);
  EXPECT_EQ(scatter::parse_op("scatterndupdate"), Op::scatter_nd);
  EXPECT_EQ(scatter::parse_op("Scatter_ND"), Op::scatter_nd);
  EXPECT_EQ(scatter::parse_op("ScatterUpdate"), Op::scatter_update);
  EXPECT_EQ(scatter::parse_op("scatter_update"), Op::scatter_update);
  EXPECT_FALSE(scatter::parse_op("ScatterNDElements").has_value());
  EXPECT_FALSE(scatter::parse_op("").has_value());
}

// The spec makes only the op aliases case-insensitive; reductions are checked as written.
TEST(ValidateAliases, ReductionAliases) {
  using scatter::Reduction;
  EXPECT_EQ(scatter::parse_reduction("sum"), Reduction::add);
  EXPECT_EQ(scatter::parse_reduction("prod"), Reduction::mul);
  EXPECT_EQ(scatter::parse_reduction("multiply"), Reduction::mul);
  EXPECT_EQ(scatter::parse_reduction("add"), Reduction::add);
  EXPECT_EQ(scatter::parse_reduction("none"), Reduction::none);
  EXPECT_FALSE(scatter::parse_reduction("product").has_value());
  EXPECT_FALSE(scatter::parse_reduction("").has_value());
}

TEST(ValidateAliases, AliasesInACaseFile) {
  const auto se = load_one(elements_case(R"("op": "ScatterElementsUpdate", "reduction": "prod")"));
  ASSERT_TRUE(se.decl.has_value());
  EXPECT_EQ(se.decl->attrs.op, scatter::Op::scatter_elements);
  EXPECT_EQ(se.decl->attrs.reduction, scatter::Reduction::mul);

  const auto nd = load_one(make_case(R"("op": "scatterNDupdate", "reduction": "sum")",
                                     tensor("float32", "[3]", "[1, 2, 3]"), tensor("int64", "[1, 1]", "[[2]]"),
                                     tensor("float32", "[1]", "[5]")));
  ASSERT_TRUE(nd.decl.has_value());
  EXPECT_EQ(nd.decl->attrs.op, scatter::Op::scatter_nd);
  EXPECT_EQ(nd.decl->attrs.reduction, scatter::Reduction::add);

  const auto plain = load_one(elements_case(R"("op": "SCATTER", "reduction": "multiply")"));
  ASSERT_TRUE(plain.decl.has_value());
  EXPECT_EQ(plain.decl->attrs.op, scatter::Op::scatter_elements);
  EXPECT_EQ(plain.decl->attrs.reduction, scatter::Reduction::mul);
}

TEST(ValidateAxis, NegativeAxisIsNormalized) {
  const auto entry = load_one(elements_case(R"("op": "scatter_elements", "axis": -1)"));
  ASSERT_TRUE(entry.decl.has_value());
  EXPECT_EQ(entry.decl->attrs.axis, 1);
  const auto first = load_one(elements_case(R"("op": "scatter_elements", "axis": -2)"));
  ASSERT_TRUE(first.decl.has_value());
  EXPECT_EQ(first.decl->attrs.axis, 0);
}

class ValidateFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/scatter_validate_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

TEST_F(ValidateFiles, DuplicateNameAcrossFilesRejectsTheSecond) {
  const auto one = make_case(R"("op": "scatter_elements")", kData42, kIdx22, kUpd22);
  write("a.json", one);
  write("b.json", one);
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  const auto result = scatter::load_paths({dir_.string()}, options);
  EXPECT_TRUE(result.file_errors.empty());
  ASSERT_EQ(result.cases.size(), 2u);
  EXPECT_EQ(result.cases[0].file, (dir_ / "a.json").string());
  EXPECT_FALSE(result.cases[0].error.has_value());
  EXPECT_TRUE(result.cases[0].decl.has_value());
  const auto& second = result.cases[1];
  EXPECT_EQ(second.file, (dir_ / "b.json").string());
  EXPECT_FALSE(second.decl.has_value());
  ASSERT_TRUE(second.error.has_value());
  EXPECT_EQ(second.error->code(), ErrorCode::schema);
  EXPECT_EQ(second.error->message(), R"(name = "t" is used by an earlier case in this run)");
  EXPECT_EQ(second.error->file(), (dir_ / "b.json").string());
  EXPECT_EQ(second.error->case_name(), "t");
}

TEST_F(ValidateFiles, DuplicateNameWithinOneFile) {
  const auto one = make_case(R"("op": "scatter_elements")", kData42, kIdx22, kUpd22);
  write("c.json", R"({"cases": [)" + one + ", " + one + "]}");
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  const auto result = scatter::load_paths({dir_.string()}, options);
  ASSERT_EQ(result.cases.size(), 2u);
  EXPECT_FALSE(result.cases[0].error.has_value());
  ASSERT_TRUE(result.cases[1].error.has_value());
  EXPECT_EQ(result.cases[1].error->code(), ErrorCode::schema);
}

TEST_F(ValidateFiles, DirectoryIsLoadedSortedAndOnlyJson) {
  write("b.json", make_case(R"("op": "scatter_elements")", kData42, kIdx22, kUpd22));
  auto other = make_case(R"("op": "scatter_elements")", kData42, kIdx22, kUpd22);
  other.replace(other.find(R"("t")"), 3, R"("a_case")");
  write("a.json", other);
  write("notes.txt", "not a case");
  scatter::LoadOptions options;
  options.max_bytes = 1 << 20;
  const auto result = scatter::load_paths({dir_.string()}, options);
  EXPECT_TRUE(result.file_errors.empty());
  ASSERT_EQ(result.cases.size(), 2u);
  EXPECT_EQ(result.cases[0].name, "a_case");
  EXPECT_EQ(result.cases[1].name, "t");
}

}  // namespace

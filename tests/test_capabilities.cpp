// Capabilities of external backends (docs/backends.md, "Capabilities"): the document,
// every schema error with its field path, the facts a case is matched on, and the rule
// an unsupported case breaks. Also materialize_unchecked(), which builds the cases with
// out-of-range indices that such backends must reject. Expected values are written by
// hand from the documents.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scatter/capabilities.hpp"
#include "scatter/load.hpp"
#include "test_util.hpp"

namespace {

using scatter::Capabilities;
using scatter::Case;
using scatter::CaseFeatures;
using scatter::DType;
using scatter::Error;
using scatter::ErrorCode;
using scatter::Op;
using scatter::Reduction;
using scatter::testing::make_case;
using scatter::testing::tensor;

const Capabilities::Entry& entry(const Capabilities& caps, Op op, Reduction r) {
  return caps.ops[static_cast<std::size_t>(op)][static_cast<std::size_t>(r)];
}

Capabilities parse(const std::string& text) { return scatter::parse_capabilities(text, "worker numpy"); }

// The schema error a document is refused with (a test failure if it was accepted).
Error refusal(const std::string& text, std::string_view origin = "worker numpy") {
  return scatter::testing::thrown([&] { scatter::parse_capabilities(text, origin); });
}

#define EXPECT_REFUSED(text, want_message)                     \
  do {                                                         \
    const auto scatter_error_ = refusal(text);                 \
    EXPECT_EQ(scatter_error_.code(), ErrorCode::schema);       \
    EXPECT_EQ(scatter_error_.message(), want_message);         \
  } while (0)


scatter::CaseDecl declare(const std::string& json) {
  scatter::LoadOptions options;
  options.max_bytes = 1ULL << 24;
  auto result = scatter::load_text(json, "t.json", options);
  if (result.cases.size() != 1 || !result.cases[0].decl) {
    throw std::runtime_error("the case does not load: " +
                             (result.cases.empty() || !result.cases[0].error ? std::string("no case")
                                                                              : result.cases[0].error->message()));
  }
  return *result.cases[0].decl;
}

// Indices out of range are allowed here: features_of must flag them, not trip on them.
Case build(const std::string& json) { return scatter::materialize_unchecked(declare(json)); }

// A case with generated data and updates of the given shapes.
Case generated(const std::string& attrs, const std::string& data_shape, const std::string& idx_shape,
               const std::string& idx, const std::string& upd_shape, const std::string& dtype = "float32",
               const std::string& idx_dtype = "int64") {
  const auto fill = [&](const std::string& shape) {
    return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "generate": {"kind": "fill", "value": 1}})";
  };
  return build(make_case(attrs, fill(data_shape), tensor(idx_dtype, idx_shape, idx), fill(upd_shape)));
}

// scatter_elements on float32 data of `data_shape`; updates have the indices' shape.
Case elements(const std::string& data_shape, const std::string& idx_shape, const std::string& idx,
              const std::string& attrs = R"("op": "scatter_elements")", const std::string& idx_dtype = "int64") {
  return generated(attrs, data_shape, idx_shape, idx, idx_shape, "float32", idx_dtype);
}

const std::string kDocsExample = R"({
  "ops": {
    "scatter_elements": {"none": "*", "add": ["float32", "float64", "int32", "int64"], "mul": "*"},
    "scatter_nd": {"none": "*", "add": "*"},
    "scatter_update": {"none": "*"}
  },
  "index_dtypes": ["int32", "int64"],
  "negative_indices": true,
  "empty_index_tuple": true,
  "max_rank": 64,
  "use_init_val_false": false,
  "checks_indices": true,
  "exclude": [
    {"op": "scatter_nd", "reduction": "mul", "dtype": ["float16", "bfloat16"], "reason": "no half-precision product"}
  ]
})";

// ---- parsing

// The document-level facts of `caps`, each as expected.
void expect_flags(const Capabilities& caps, const std::vector<DType>& index_dtypes, bool negative_indices,
                  bool empty_index_tuple, int max_rank, bool use_init_val_false, bool checks_indices) {
  EXPECT_EQ(caps.index_dtypes, index_dtypes);
  EXPECT_EQ(caps.negative_indices, negative_indices);
  EXPECT_EQ(caps.empty_index_tuple, empty_index_tuple);
  EXPECT_EQ(caps.max_rank, max_rank);
  EXPECT_EQ(caps.use_init_val_false, use_init_val_false);
  for (const auto op : scatter::kOps) EXPECT_EQ(caps.checks_indices[static_cast<std::size_t>(op)], checks_indices);
}

// The documented defaults of everything but "ops": what a document that omits them gets.
void expect_default_flags(const Capabilities& caps) {
  expect_flags(caps, {DType::int32, DType::int64}, true, true, 64, true, true);
  EXPECT_TRUE(caps.exclude.empty());
}

TEST(CapabilitiesParse, TheDocumentsExample) {
  const auto caps = parse(kDocsExample);
  EXPECT_TRUE(entry(caps, Op::scatter_elements, Reduction::none).supported);
  EXPECT_TRUE(entry(caps, Op::scatter_elements, Reduction::none).all_dtypes);
  const auto& add = entry(caps, Op::scatter_elements, Reduction::add);
  EXPECT_TRUE(add.supported);
  EXPECT_FALSE(add.all_dtypes);
  EXPECT_EQ(add.dtypes, (std::vector<DType>{DType::float32, DType::float64, DType::int32, DType::int64}));
  EXPECT_TRUE(entry(caps, Op::scatter_elements, Reduction::mul).all_dtypes);
  EXPECT_FALSE(entry(caps, Op::scatter_elements, Reduction::min).supported);
  EXPECT_FALSE(entry(caps, Op::scatter_elements, Reduction::mean).supported);
  EXPECT_TRUE(entry(caps, Op::scatter_nd, Reduction::none).all_dtypes);
  EXPECT_TRUE(entry(caps, Op::scatter_nd, Reduction::add).all_dtypes);
  EXPECT_FALSE(entry(caps, Op::scatter_nd, Reduction::mul).supported);
  EXPECT_TRUE(entry(caps, Op::scatter_update, Reduction::none).all_dtypes);
  expect_flags(caps, {DType::int32, DType::int64}, true, true, 64, false, true);
  ASSERT_EQ(caps.exclude.size(), 1u);
  const auto& ex = caps.exclude[0];
  EXPECT_EQ(ex.ops, std::vector<Op>{Op::scatter_nd});
  EXPECT_EQ(ex.reductions, std::vector<Reduction>{Reduction::mul});
  EXPECT_EQ(ex.dtypes, (std::vector<DType>{DType::float16, DType::bfloat16}));
  EXPECT_TRUE(ex.index_dtypes.empty());
  EXPECT_EQ(ex.feature, "");
  EXPECT_EQ(ex.reason, "no half-precision product");
}

TEST(CapabilitiesParse, EmptyDocumentDeclaresNoOpAndTheDefaults) {
  const auto caps = parse("{}");
  for (const auto& per_op : caps.ops) {
    for (const auto& e : per_op) EXPECT_FALSE(e.supported);
  }
  expect_default_flags(caps);
}

TEST(CapabilitiesParse, FlagsAndSingleNamesInAnExclusion) {
  const auto caps = parse(R"({"index_dtypes": ["int64"], "negative_indices": false, "empty_index_tuple": false,
    "max_rank": 8, "use_init_val_false": true, "checks_indices": false, "ops": {"scatter_nd": {"sub": []}},
    "exclude": [{"op": "scatter_elements", "index_dtype": "int32", "feature": "duplicates", "reason": "races"}]})");
  expect_flags(caps, {DType::int64}, false, false, 8, true, false);
  const auto& sub = entry(caps, Op::scatter_nd, Reduction::sub);
  EXPECT_TRUE(sub.supported);  // declared, for no dtype
  EXPECT_FALSE(sub.all_dtypes);
  EXPECT_TRUE(sub.dtypes.empty());
  ASSERT_EQ(caps.exclude.size(), 1u);
  EXPECT_EQ(caps.exclude[0].ops, std::vector<Op>{Op::scatter_elements});
  EXPECT_TRUE(caps.exclude[0].reductions.empty());
  EXPECT_TRUE(caps.exclude[0].dtypes.empty());
  EXPECT_EQ(caps.exclude[0].index_dtypes, std::vector<DType>{DType::int32});
  EXPECT_EQ(caps.exclude[0].feature, "duplicates");
  EXPECT_EQ(caps.exclude[0].reason, "races");
}

TEST(CapabilitiesErrors, UnknownDtypeNamesTheListItem) {
  EXPECT_REFUSED(R"({"ops": {"scatter_nd": {"add": ["float32", "int32", "float8"]}}})",
                 "worker numpy: capabilities.ops.scatter_nd.add[2]: 'float8' is not a dtype (float64, float32, "
                 "float16, bfloat16, int64, int32, int16, int8, uint8, bool)");
}

TEST(CapabilitiesErrors, OriginIsThePluginPathOrNothing) {
  EXPECT_EQ(refusal(R"({"max_rank": 0})", "plugin:/opt/lib/libmine.so").message(),
            "plugin:/opt/lib/libmine.so: capabilities.max_rank: must be an integer in [1, 64], got 0");
  EXPECT_EQ(refusal(R"({"max_rank": 0})", "").message(), "capabilities.max_rank: must be an integer in [1, 64], got 0");
}

TEST(CapabilitiesErrors, InvalidJsonAndNotAnObject) {
  const auto e = refusal(R"({"ops": )");
  EXPECT_EQ(e.code(), ErrorCode::schema);
  EXPECT_EQ(e.field(), "worker numpy: capabilities");
  EXPECT_EQ(e.message(), "worker numpy: capabilities: the document is not valid JSON (cut short?): its 8 bytes end inside "
                         "a value");
  EXPECT_REFUSED("[]", "worker numpy: capabilities: must be an object, got []");
}

TEST(CapabilitiesErrors, UnknownTopLevelKey) {
  EXPECT_REFUSED(R"({"max_rnak": 4})",
                 "worker numpy: capabilities: unknown key 'max_rnak' (did you mean 'max_rank'?); allowed: ops, index_dtypes, negative_indices, "
                 "empty_index_tuple, max_rank, use_init_val_false, checks_indices, exclude");
}

TEST(CapabilitiesErrors, OpsAndReductions) {
  EXPECT_REFUSED(R"({"ops": []})", "worker numpy: capabilities.ops: must be an object, got []");
  EXPECT_REFUSED(R"({"ops": {"scatter_foo": {}}})",
                 "worker numpy: capabilities.ops: 'scatter_foo' is not an op (scatter_elements, scatter_nd, scatter_update, tensor_scatter)");
  EXPECT_REFUSED(R"({"ops": {"ScatterND": {}}})",
                 "worker numpy: capabilities.ops: 'ScatterND' is an alias; capabilities use the canonical name 'scatter_nd'");
  EXPECT_REFUSED(R"({"ops": {"scatter_nd": "*"}})", R"(worker numpy: capabilities.ops.scatter_nd: must be an object, got "*")");
  EXPECT_REFUSED(R"({"ops": {"scatter_nd": {"avg": "*"}}})",
                 "worker numpy: capabilities.ops.scatter_nd: 'avg' is not a reduction (none, add, sub, mul, min, max, mean)");
  EXPECT_REFUSED(R"({"ops": {"scatter_elements": {"sum": "*"}}})",
                 "worker numpy: capabilities.ops.scatter_elements: 'sum' is an alias; capabilities use the canonical "
                 "name 'add'");
  EXPECT_REFUSED(R"({"ops": {"scatter_update": {"none": "*", "add": "*"}}})",
                 "worker numpy: capabilities.ops.scatter_update: 'add' is not allowed for scatter_update (allowed: none)");
  EXPECT_REFUSED(R"({"ops": {"scatter_nd": {"mean": "*"}}})",
                 "worker numpy: capabilities.ops.scatter_nd: 'mean' is not allowed for scatter_nd (allowed: none, add, "
                 "sub, mul, min, max)");
  EXPECT_REFUSED(R"({"ops": {"scatter_elements": {"sub": "*"}}})",
                 "worker numpy: capabilities.ops.scatter_elements: 'sub' is not allowed for scatter_elements (allowed: "
                 "none, add, mul, min, max, mean)");
}

TEST(CapabilitiesErrors, DtypeLists) {
  EXPECT_REFUSED(R"({"ops": {"scatter_nd": {"add": "all"}}})",
                 R"(worker numpy: capabilities.ops.scatter_nd.add: must be "*" or a list of dtype names, got "all")");
  EXPECT_REFUSED(R"({"ops": {"scatter_nd": {"add": ["float32", 1]}}})",
                 "worker numpy: capabilities.ops.scatter_nd.add[1]: must be a string, got number");
  EXPECT_REFUSED(R"({"index_dtypes": ["int64", "int16"]})",
                 "worker numpy: capabilities.index_dtypes[1]: 'int16' is not an index dtype (int32, int64)");
  EXPECT_REFUSED(R"({"index_dtypes": "int32"})",
                 R"(worker numpy: capabilities.index_dtypes: must be a list of names, got "int32")");
}

TEST(CapabilitiesErrors, FlagsAndMaxRank) {
  EXPECT_REFUSED(R"({"negative_indices": "yes"})",
                 R"(worker numpy: capabilities.negative_indices: must be true or false, got "yes")");
  EXPECT_REFUSED(R"({"empty_index_tuple": 1})", "worker numpy: capabilities.empty_index_tuple: must be true or false, got 1");
  EXPECT_REFUSED(R"({"use_init_val_false": null})",
                 "worker numpy: capabilities.use_init_val_false: must be true or false, got null");
  EXPECT_REFUSED(R"({"checks_indices": []})", "worker numpy: capabilities.checks_indices: must be true or false, got []");
  EXPECT_REFUSED(R"({"max_rank": 65})", "worker numpy: capabilities.max_rank: must be an integer in [1, 64], got 65");
  EXPECT_REFUSED(R"({"max_rank": 2.5})", "worker numpy: capabilities.max_rank: must be an integer in [1, 64], got 2.5");
}

TEST(CapabilitiesErrors, Exclusions) {
  EXPECT_REFUSED(R"({"exclude": {}})", "worker numpy: capabilities.exclude: must be a list, got {}");
  EXPECT_REFUSED(R"({"exclude": [3]})", "worker numpy: capabilities.exclude[0]: must be an object, got 3");
  EXPECT_REFUSED(R"({"exclude": [{"reason": "r"}, {"dtypes": "float16", "reason": "r"}]})",
                 "worker numpy: capabilities.exclude[1]: unknown key 'dtypes' (did you mean 'dtype'?); allowed: op, reduction, dtype, "
                 "index_dtype, feature, reason");
  EXPECT_REFUSED(R"({"exclude": [{"dtype": ["float16", "half"], "reason": "r"}]})",
                 "worker numpy: capabilities.exclude[0].dtype[1]: 'half' is not a dtype (float64, float32, float16, "
                 "bfloat16, int64, int32, int16, int8, uint8, bool)");
  EXPECT_REFUSED(R"({"exclude": [{"op": 1, "reason": "r"}]})",
                 "worker numpy: capabilities.exclude[0].op: must be a name or a list of names, got 1");
  EXPECT_REFUSED(R"({"exclude": [{"reduction": "avg", "reason": "r"}]})",
                 "worker numpy: capabilities.exclude[0].reduction: 'avg' is not a reduction (none, add, sub, mul, min, "
                 "max, mean)");
  EXPECT_REFUSED(R"({"exclude": [{"index_dtype": ["uint8"], "reason": "r"}]})",
                 "worker numpy: capabilities.exclude[0].index_dtype[0]: 'uint8' is not an index dtype (int32, int64)");
  EXPECT_REFUSED(R"({"exclude": [{"feature": "negative", "reason": "r"}]})",
                 "worker numpy: capabilities.exclude[0].feature: 'negative' is not a feature (negative_indices, "
                 "duplicates, empty_index_tuple, use_init_val_false)");
  EXPECT_REFUSED(R"({"exclude": [{"op": "scatter_nd"}]})", "worker numpy: capabilities.exclude[0]: missing key 'reason'");
  EXPECT_REFUSED(R"({"exclude": [{"reason": ""}]})", "worker numpy: capabilities.exclude[0].reason: must not be empty");
  EXPECT_REFUSED(R"({"exclude": [{"reason": 7}]})", "worker numpy: capabilities.exclude[0].reason: must be a string, got number");
}

// ---- everything()

TEST(CapabilitiesEverything, EveryPairOfTheSpecsTableAndTheDefaults) {
  const auto caps = Capabilities::everything();
  // The spec's table: scatter_elements all but sub, scatter_nd all but mean, scatter_update only none.
  //                      none   add    sub    mul    min    max    mean
  const bool want[3][7] = {{true, true, false, true, true, true, true},
                           {true, true, true, true, true, true, false},
                           {true, false, false, false, false, false, false}};
  for (std::size_t op = 0; op < 3; ++op) {
    for (std::size_t r = 0; r < 7; ++r) {
      EXPECT_EQ(caps.ops[op][r].supported, want[op][r]) << op << " " << r;
      EXPECT_EQ(caps.ops[op][r].all_dtypes, want[op][r]) << op << " " << r;
    }
  }
  expect_default_flags(caps);
}

TEST(CapabilitiesEverything, SupportsCasesOfEveryKind) {
  const auto caps = Capabilities::everything();
  const auto nd_k0 = generated(R"("op": "scatter_nd", "reduction": "sub")", "[2]", "[2, 0]", "[[], []]", "[2, 2]", "int8");
  const auto neg = elements("[4]", "[2]", "[-1, 3]", R"("op": "scatter_elements", "reduction": "mean", "use_init_val": false)",
                            "int32");
  const auto oor = elements("[4]", "[1]", "[4]");
  for (const Case* c : {&nd_k0, &neg, &oor}) EXPECT_EQ(unsupported_reason(caps, *c, features_of(*c)), std::nullopt);
}

// ---- features_of

void expect_features(const Case& c, bool negative, bool duplicates, bool empty_tuple, bool out_of_range) {
  const auto f = features_of(c);
  EXPECT_EQ(f.negative_indices, negative);
  EXPECT_EQ(f.duplicates, duplicates);
  EXPECT_EQ(f.empty_index_tuple, empty_tuple);
  EXPECT_EQ(f.out_of_range, out_of_range);
}

TEST(CapabilitiesFeatures, ElementsOneDimension) {
  expect_features(elements("[4]", "[2]", "[1, 3]"), false, false, false, false);
  expect_features(elements("[4]", "[2]", "[1, -3]"), true, true, false, false);  // -3 is 1
  expect_features(elements("[4]", "[2]", "[4, 0]"), false, false, false, true);
  expect_features(elements("[4]", "[2]", "[-5, 0]"), true, false, false, true);
  expect_features(elements("[4]", "[0]", "[]"), false, false, false, false);
}

TEST(CapabilitiesFeatures, FewIndicesIntoLargeData) {
  // Far more elements than indices: duplicates found in a bit per element of data.
  expect_features(elements("[100000]", "[3]", "[5000, 99999, 0]"), false, false, false, false);
  expect_features(elements("[100000]", "[3]", "[5000, 99999, -95000]"), true, true, false, false);
}

TEST(CapabilitiesFeatures, ElementsTargetsDependOnTheAxis) {
  // indices [[0, 1], [0, 1]] on data 2x3: axis 1 targets (0,0) (0,1) (1,0) (1,1);
  // axis 0 targets (0,0) (1,1) (0,0) (1,1).
  expect_features(elements("[2, 3]", "[2, 2]", "[[0, 1], [0, 1]]", R"("op": "scatter_elements", "axis": 1)"), false,
                  false, false, false);
  expect_features(elements("[2, 3]", "[2, 2]", "[[0, 1], [0, 1]]", R"("op": "scatter_elements", "axis": 0)"), false,
                  true, false, false);
}

TEST(CapabilitiesFeatures, ElementsOutOfRangeIsNoTarget) {
  // Row 0's index 2 is past its row; as a flat offset it would be element (1,0), which
  // row 1 targets: not a duplicate.
  expect_features(elements("[2, 2]", "[2, 1]", "[[2], [0]]", R"("op": "scatter_elements", "axis": 1)"), false, false,
                  false, true);
}

TEST(CapabilitiesFeatures, ScatterNd) {
  const auto nd = [](const std::string& ishape, const std::string& idx, const std::string& ushape) {
    return generated(R"("op": "scatter_nd")", "[3, 2]", ishape, idx, ushape);
  };
  expect_features(nd("[2, 1]", "[[0], [2]]", "[2, 2]"), false, false, false, false);
  expect_features(nd("[2, 1]", "[[0], [-3]]", "[2, 2]"), true, true, false, false);
  expect_features(nd("[2, 2]", "[[0, 1], [0, 1]]", "[2]"), false, true, false, false);
  expect_features(nd("[2, 2]", "[[0, 1], [1, 0]]", "[2]"), false, false, false, false);
  expect_features(nd("[1, 1]", "[[3]]", "[1, 2]"), false, false, false, true);
  // (0, 2) is out of range; as a flat offset it would be (1, 0), the other tuple.
  expect_features(nd("[2, 2]", "[[0, 2], [1, 0]]", "[2]"), false, false, false, true);
  expect_features(nd("[2, 2]", "[[-4, 0], [0, 0]]", "[2]"), true, false, false, true);
}

TEST(CapabilitiesFeatures, ScatterNdEmptyTuple) {
  // k = 0: every row updates all of data.
  expect_features(generated(R"("op": "scatter_nd")", "[3, 2]", "[2, 0]", "[[], []]", "[2, 3, 2]"), false, true, true,
                  false);
  expect_features(generated(R"("op": "scatter_nd")", "[3, 2]", "[1, 0]", "[[]]", "[1, 3, 2]"), false, false, true, false);
}

TEST(CapabilitiesFeatures, ScatterUpdate) {
  const auto upd = [](const std::string& attrs, const std::string& dshape, const std::string& ishape,
                      const std::string& idx, const std::string& ushape) {
    return generated(attrs, dshape, ishape, idx, ushape);
  };
  const std::string axis0 = R"("op": "scatter_update")";
  const std::string axis1 = R"("op": "scatter_update", "axis": 1)";
  expect_features(upd(axis0, "[3, 2]", "[2]", "[0, 2]", "[2, 2]"), false, false, false, false);
  expect_features(upd(axis0, "[3, 2]", "[2]", "[2, 2]", "[2, 2]"), false, true, false, false);
  expect_features(upd(axis0, "[3, 2]", "[2, 2]", "[[0, 1], [2, 1]]", "[2, 2, 2]"), false, true, false, false);
  // One index, repeated over the outer dimension: different elements.
  expect_features(upd(axis1, "[2, 3]", "[1]", "[1]", "[2, 1]"), false, false, false, false);
  // Negative indices are out of range for scatter_update (an `index` error of the spec).
  expect_features(upd(axis0, "[3, 2]", "[2]", "[-1, 2]", "[2, 2]"), true, false, false, true);
  expect_features(upd(axis0, "[3, 2]", "[1]", "[3]", "[1, 2]"), false, false, false, true);
  expect_features(upd(axis0, "[3, 2]", "[]", "1", "[2]"), false, false, false, false);
}

// ---- unsupported_reason

std::optional<std::string> reason(const std::string& caps_json, const Case& c) {
  return unsupported_reason(parse(caps_json), c, features_of(c));
}

const Case& plain_elements() {
  static const Case c = elements("[4]", "[2]", "[1, 3]");
  return c;
}

TEST(CapabilitiesReason, OpNotDeclared) {
  EXPECT_EQ(reason(R"({"ops": {"scatter_nd": {"none": "*"}}})", plain_elements()), "scatter_elements is not declared");
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"none": "*"}}})", plain_elements()), std::nullopt);
}

TEST(CapabilitiesReason, ReductionNotDeclared) {
  const auto add = elements("[4]", "[1]", "[0]", R"("op": "scatter_elements", "reduction": "add")");
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"none": "*", "mul": "*"}}})", add), "scatter_elements add is not declared");
}

TEST(CapabilitiesReason, DtypeNotDeclared) {
  const std::string caps = R"({"ops": {"scatter_nd": {"add": ["float32", "int32"], "sub": []}}})";
  const auto nd = [](const std::string& attrs, const std::string& dtype) {
    return generated(attrs, "[3]", "[1, 1]", "[[0]]", "[1]", dtype);
  };
  EXPECT_EQ(reason(caps, nd(R"("op": "scatter_nd", "reduction": "add")", "bfloat16")),
            "scatter_nd add on bfloat16 is not declared");
  EXPECT_EQ(reason(caps, nd(R"("op": "scatter_nd", "reduction": "add")", "int32")), std::nullopt);
  EXPECT_EQ(reason(caps, nd(R"("op": "scatter_nd", "reduction": "sub")", "float32")),
            "scatter_nd sub on float32 is not declared");
}

TEST(CapabilitiesReason, IndexDtype) {
  const std::string caps = R"({"ops": {"scatter_elements": {"none": "*"}}, "index_dtypes": ["int64"]})";
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[0]", R"("op": "scatter_elements")", "int32")),
            "int32 indices are not declared");
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[0]", R"("op": "scatter_elements")", "int64")), std::nullopt);
}

TEST(CapabilitiesReason, NegativeIndices) {
  const std::string caps = R"({"ops": {"scatter_elements": {"none": "*"}}, "negative_indices": false})";
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[-1]")), "negative indices are not declared");
  EXPECT_EQ(reason(caps, plain_elements()), std::nullopt);
}

TEST(CapabilitiesReason, EmptyIndexTuple) {
  const std::string caps = R"({"ops": {"scatter_nd": {"none": "*"}}, "empty_index_tuple": false})";
  EXPECT_EQ(reason(caps, generated(R"("op": "scatter_nd")", "[3]", "[1, 0]", "[[]]", "[1, 3]")),
            "scatter_nd with k = 0 (empty index tuples) is not declared");
  EXPECT_EQ(reason(caps, generated(R"("op": "scatter_nd")", "[3]", "[1, 1]", "[[0]]", "[1]")), std::nullopt);
}

TEST(CapabilitiesReason, RankCountsEveryTensor) {
  const std::string caps = R"({"ops": {"scatter_elements": {"none": "*"}, "scatter_update": {"none": "*"}}, "max_rank": 1})";
  EXPECT_EQ(reason(caps, elements("[2, 2]", "[1, 1]", "[[0]]")), "rank 2 is above the declared max_rank 1");
  // data and indices of rank 1, updates of rank 2.
  EXPECT_EQ(reason(caps, generated(R"("op": "scatter_update")", "[3]", "[2, 1]", "[[0], [1]]", "[2, 1]")),
            "rank 2 is above the declared max_rank 1");
  EXPECT_EQ(reason(caps, plain_elements()), std::nullopt);
}

TEST(CapabilitiesReason, UseInitValFalse) {
  const std::string caps = R"({"ops": {"scatter_elements": {"add": "*"}}, "use_init_val_false": false})";
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[0]", R"("op": "scatter_elements", "reduction": "add", "use_init_val": false)")),
            "use_init_val = false is not declared");
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[0]", R"("op": "scatter_elements", "reduction": "add")")), std::nullopt);
  // With `none`, use_init_val = false changes nothing (the spec starts reductions only from the
  // identity): such a case is not skipped.
  const std::string none_caps = R"({"ops": {"scatter_elements": {"none": "*"}}, "use_init_val_false": false})";
  EXPECT_EQ(reason(none_caps, elements("[4]", "[1]", "[0]", R"("op": "scatter_elements", "use_init_val": false)")),
            std::nullopt);
}

TEST(CapabilitiesReason, OutOfRangeOnlyWhereIndicesAreChecked) {
  const auto oor = elements("[4]", "[1]", "[9]");
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"none": "*"}}, "checks_indices": false})", oor),
            "does not check indices: out-of-range indices are undefined behaviour for it");
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"none": "*"}}, "checks_indices": false})", plain_elements()),
            std::nullopt);
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"none": "*"}}})", oor), std::nullopt);
  // Per op (OpenVINO's ScatterNDUpdate checks, its ScatterElementsUpdate does not); an op left out
  // checks, as by default.
  const std::string per_op =
      R"({"ops": {"scatter_elements": {"none": "*"}, "scatter_nd": {"none": "*"}}, "checks_indices": {"scatter_elements": false}})";
  EXPECT_EQ(reason(per_op, oor), "does not check indices: out-of-range indices are undefined behaviour for it");
  EXPECT_EQ(reason(per_op, generated(R"("op": "scatter_nd")", "[4]", "[1, 1]", "[[9]]", "[1]")), std::nullopt);
}

TEST(CapabilitiesReason, ExclusionNamesWhatMatched) {
  const auto nd_mul = [](const std::string& dtype) {
    return generated(R"("op": "scatter_nd", "reduction": "mul")", "[3]", "[1, 1]", "[[0]]", "[1]", dtype);
  };
  const std::string caps = R"({"ops": {"scatter_nd": {"mul": "*"}},
    "exclude": [{"op": "scatter_nd", "reduction": "mul", "dtype": ["float16", "bfloat16"], "reason": "no half product"}]})";
  EXPECT_EQ(reason(caps, nd_mul("float16")), "scatter_nd mul on float16: no half product");
  EXPECT_EQ(reason(caps, nd_mul("float32")), std::nullopt);
}

TEST(CapabilitiesReason, ExclusionByFeatureAndIndexDtype) {
  const std::string caps = R"({"ops": {"scatter_elements": {"none": "*", "add": "*"}}, "exclude": [
    {"feature": "duplicates", "reduction": "add", "reason": "atomics race"},
    {"op": "scatter_elements", "index_dtype": "int32", "reason": "int64 only"},
    {"feature": "negative_indices", "reason": "wraps around"},
    {"feature": "use_init_val_false", "reason": "ignores it"}]})";
  const std::string add = R"("op": "scatter_elements", "reduction": "add")";
  EXPECT_EQ(reason(caps, elements("[4]", "[2]", "[1, 1]", add)), "add with duplicates: atomics race");
  EXPECT_EQ(reason(caps, elements("[4]", "[2]", "[1, 2]", add)), std::nullopt);
  EXPECT_EQ(reason(caps, elements("[4]", "[2]", "[1, 1]")), std::nullopt);  // none: the first entry is for add
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[1]", R"("op": "scatter_elements")", "int32")),
            "scatter_elements with int32 indices: int64 only");
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[-1]")), "negative indices: wraps around");
  EXPECT_EQ(reason(caps, elements("[4]", "[1]", "[1]", R"("op": "scatter_elements", "reduction": "add", "use_init_val": false)")),
            "use_init_val = false: ignores it");
}

TEST(CapabilitiesReason, EmptyExclusionMatchesEverything) {
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"none": "*"}}, "exclude": [{"reason": "broken build"}]})",
                   plain_elements()),
            "excluded: broken build");
}

TEST(CapabilitiesReason, DeclarationsComeBeforeExclusions) {
  // Both the reduction and an exclusion rule the case out: the declaration is named.
  EXPECT_EQ(reason(R"({"ops": {"scatter_elements": {"add": "*"}}, "exclude": [{"reason": "r"}]})", plain_elements()),
            "scatter_elements none is not declared");
}

// ---- materialize_unchecked

const std::string kOutOfRangeCase =
    make_case(R"("op": "scatter_elements", "expect_error": "index")", tensor("float32", "[4]", "[1, 2, 3, 4]"),
              tensor("int32", "[2]", "[7, -1]"), tensor("float32", "[2]", "[10, 20]"));

TEST(MaterializeUnchecked, KeepsOutOfRangeIndicesAsWritten) {
  const auto decl = declare(kOutOfRangeCase);
  // materialize refuses index 7 on data.shape[0] = 4.
  EXPECT_EQ(scatter::testing::thrown([&] { scatter::materialize(decl); }).message(),
            "inputs.indices[0] = 7 is out of range [-4, 3] for data.shape[0] = 4");
  const auto c = scatter::materialize_unchecked(decl);
  EXPECT_EQ(c.file, "t.json");
  EXPECT_EQ(c.name, "t");
  ASSERT_EQ(c.indices.numel(), 2);
  EXPECT_EQ(c.indices.dtype(), DType::int32);
  EXPECT_EQ(scatter::index_at(c.indices, 0), 7);
  EXPECT_EQ(scatter::index_at(c.indices, 1), -1);
  ASSERT_EQ(c.data.numel(), 4);
  EXPECT_EQ(c.data.data<float>()[3], 4.0f);
  ASSERT_EQ(c.updates.numel(), 2);
  EXPECT_EQ(c.updates.data<float>()[1], 20.0f);
}

TEST(MaterializeUnchecked, StillChecksEverythingElse) {
  const auto bad_generator = make_case(R"("op": "scatter_elements")",
                                       R"({"dtype": "int32", "shape": [4], "generate": {"kind": "randint", "low": 5, "high": 5}})",
                                       tensor("int64", "[1]", "[9]"), tensor("int32", "[1]", "[1]"));
  // An empty randint range is still refused.
  const auto e = scatter::testing::thrown([&] { scatter::materialize_unchecked(declare(bad_generator)); });
  EXPECT_EQ(e.code(), ErrorCode::values);
  EXPECT_EQ(e.file(), "t.json");
  EXPECT_EQ(e.case_name(), "t");
  EXPECT_EQ(e.message(), "inputs.data.generate: randint needs high > low, got low = 5, high = 5");
}

}  // namespace

// The spec's generators (shared/spec/case-format.md, "Generators"), through cases
// loaded from JSON text. Every expected tensor was printed by the independent oracle
// tests/data/gen_expected.py (python3 tests/data/gen_expected.py) and pasted here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <cstdint>
#include <string>
#include <vector>

#include "scatter/load.hpp"
#include "test_util.hpp"

namespace scatter {
namespace {

using testing::elements;
using testing::load_case;

std::string shape_json(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A scatter_elements case whose data is {dtype, shape, source}; indices and updates
// are the smallest valid ones.
std::string data_case(const std::string& dtype, const Shape& shape, const std::string& source) {
  return testing::data_case("gen", dtype, shape_json(shape), source, shape.size());
}

// A case of `op` with data [data_shape] float32, generated indices, and updates of
// updates_shape; `attrs` adds e.g. "axis": 1.
std::string indices_case(const std::string& op, const std::string& attrs, const Shape& data_shape,
                         const std::string& index_dtype, const Shape& index_shape, const std::string& generator,
                         const Shape& updates_shape) {
  return R"({"name": "gen", "op": ")" + op + "\"" + (attrs.empty() ? "" : ", " + attrs) +
         R"(, "inputs": {"data": {"dtype": "float32", "shape": )" + shape_json(data_shape) +
         R"(, "generate": {"kind": "fill", "value": 0}}, "indices": {"dtype": ")" + index_dtype +
         R"(", "shape": )" + shape_json(index_shape) + R"(, "generate": )" + generator +
         R"(}, "updates": {"dtype": "float32", "shape": )" + shape_json(updates_shape) +
         R"(, "generate": {"kind": "fill", "value": 1}}}})";
}


std::vector<std::int64_t> index_values(const Tensor& t) {
  std::vector<std::int64_t> out;
  if (t.dtype() == DType::int32) {
    for (auto v : elements<std::int32_t>(t)) out.push_back(v);
  } else {
    out = elements<std::int64_t>(t);
  }
  return out;
}

// --- SplitMix64 ---

// From gen_expected.py's SplitMix64 (Python integers masked to 64 bits).
TEST(SplitMix64, FirstDrawsMatchTheSpec) {
  SplitMix64 zero(0);
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(zero.next(), 0x06C45D188009454FULL);
  SplitMix64 one(1);
  EXPECT_EQ(one.next(), 0x910A2DEC89025CC1ULL);
  EXPECT_EQ(one.next(), 0xBEEB8DA1658EEC67ULL);
  EXPECT_EQ(one.next(), 0xF893A2EEFB32555EULL);
  SplitMix64 max(0xFFFFFFFFFFFFFFFFULL);  // the state wraps on the first add
  EXPECT_EQ(max.next(), 0xE4D971771B652C20ULL);
  EXPECT_EQ(max.next(), 0xE99FF867DBF682C9ULL);
  EXPECT_EQ(max.next(), 0x382FF84CB27281E9ULL);
}

// --- arange ---

TEST(Arange, IntegerNegativeStep) {
  const auto c = load_case(data_case("int32", {5}, R"("generate": {"kind": "arange", "start": 3, "step": -2})"));
  EXPECT_EQ(c.data.dtype(), DType::int32);
  EXPECT_EQ(c.data.shape(), (Shape{5}));
  EXPECT_EQ(elements<std::int32_t>(c.data), (std::vector<std::int32_t>{3, 1, -1, -3, -5}));
}

TEST(Arange, DefaultsAreStartZeroStepOne) {
  const auto c = load_case(data_case("int64", {2, 3}, R"("generate": {"kind": "arange"})"));
  EXPECT_EQ(elements<std::int64_t>(c.data), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Arange, Float32StartAndStep) {
  const auto c = load_case(data_case("float32", {2, 3}, R"("generate": {"kind": "arange", "start": 0.5, "step": 0.25})"));
  EXPECT_EQ(elements<std::uint32_t>(c.data),
            (std::vector<std::uint32_t>{0x3F000000, 0x3F400000, 0x3F800000, 0x3FA00000, 0x3FC00000, 0x3FE00000}));
}

// start + i * step is computed in double, then rounded once to float32.
TEST(Arange, Float32RoundsTheDoubleOnce) {
  const auto c = load_case(data_case("float32", {4}, R"("generate": {"kind": "arange", "start": 1, "step": 0.1})"));
  EXPECT_EQ(elements<std::uint32_t>(c.data), (std::vector<std::uint32_t>{0x3F800000, 0x3F8CCCCD, 0x3F99999A, 0x3FA66666}));
}

TEST(Arange, Float16) {
  const auto c = load_case(data_case("float16", {4}, R"("generate": {"kind": "arange", "step": 0.1})"));
  EXPECT_EQ(elements<std::uint16_t>(c.data), (std::vector<std::uint16_t>{0x0000, 0x2E66, 0x3266, 0x34CD}));
}

TEST(Arange, Float64NegativeStep) {
  const auto c = load_case(data_case("float64", {3}, R"("generate": {"kind": "arange", "start": -1, "step": -0.5})"));
  EXPECT_EQ(elements<double>(c.data), (std::vector<double>{-1.0, -1.5, -2.0}));
}

// --- fill ---

TEST(Fill, NanString) {
  const auto c = load_case(data_case("float32", {2, 2}, R"("generate": {"kind": "fill", "value": "nan"})"));
  for (float v : elements<float>(c.data)) EXPECT_TRUE(std::isnan(v));
}

TEST(Fill, Bool) {
  const auto c = load_case(data_case("bool", {3}, R"("generate": {"kind": "fill", "value": true})"));
  EXPECT_EQ(elements<std::uint8_t>(c.data), (std::vector<std::uint8_t>{1, 1, 1}));
}

TEST(Fill, Int8Negative) {
  const auto c = load_case(data_case("int8", {2, 2}, R"("generate": {"kind": "fill", "value": -5})"));
  EXPECT_EQ(elements<std::int8_t>(c.data), (std::vector<std::int8_t>{-5, -5, -5, -5}));
}

TEST(Fill, Float16Rounds) {
  // 1/3 to float16 is 0x3555 (numpy).
  const auto c =
      load_case(data_case("float16", {2}, R"("generate": {"kind": "fill", "value": 0.3333333333333333})"));
  EXPECT_EQ(elements<std::uint16_t>(c.data), (std::vector<std::uint16_t>{0x3555, 0x3555}));
}

TEST(Fill, NegativeZeroKeepsItsSign) {
  const auto c = load_case(data_case("float32", {2}, R"("generate": {"kind": "fill", "value": -0.0})"));
  EXPECT_EQ(elements<std::uint32_t>(c.data), (std::vector<std::uint32_t>{0x80000000, 0x80000000}));
}

// --- uniform ---

TEST(Uniform, Float32) {
  const auto c = load_case(
      data_case("float32", {2, 3}, R"("generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 42})"));
  EXPECT_EQ(elements<std::uint32_t>(c.data),
            (std::vector<std::uint32_t>{0x3EF75CC9, 0xBF2E203A, 0xBEE2B663, 0xBE9F8C78, 0xBF6C874F, 0x3F3C8864}));
}

TEST(Uniform, Float16) {
  const auto c =
      load_case(data_case("float16", {5}, R"("generate": {"kind": "uniform", "low": 0, "high": 100, "seed": 7})"));
  EXPECT_EQ(elements<std::uint16_t>(c.data), (std::vector<std::uint16_t>{0x50DF, 0x3EB7, 0x55A1, 0x5349, 0x51A8}));
}

// Integers floor, so negative fractions go down (-8.3 -> -9), not toward zero.
TEST(Uniform, Int32Floors) {
  const auto c =
      load_case(data_case("int32", {8}, R"("generate": {"kind": "uniform", "low": -10, "high": 10, "seed": 3})"));
  EXPECT_EQ(elements<std::int32_t>(c.data), (std::vector<std::int32_t>{-8, 4, 2, -9, -6, 2, -8, 7}));
}

TEST(Uniform, SeedDefaultsToZero) {
  const auto a = load_case(data_case("int32", {4}, R"("generate": {"kind": "uniform", "low": 0, "high": 1000})"));
  // Same draws as the int8 out-of-range case below (seed 0): 883, 431, 26, 970.
  EXPECT_EQ(elements<std::int32_t>(a.data), (std::vector<std::int32_t>{883, 431, 26, 970}));
}

// --- randint ---

TEST(Randint, Int64) {
  const auto c =
      load_case(data_case("int64", {6}, R"("generate": {"kind": "randint", "low": -5, "high": 5, "seed": 9})"));
  EXPECT_EQ(elements<std::int64_t>(c.data), (std::vector<std::int64_t>{3, 1, 3, -1, -4, -5}));
}

TEST(Randint, Int8RowMajor) {
  const auto c = load_case(data_case("int8", {2, 4}, R"("generate": {"kind": "randint", "low": 0, "high": 3})"));
  EXPECT_EQ(elements<std::int8_t>(c.data), (std::vector<std::int8_t>{1, 0, 1, 1, 1, 0, 2, 2}));
}

TEST(Randint, WideRangeStaysExact) {
  const auto c = load_case(data_case(
      "int64", {3},
      R"("generate": {"kind": "randint", "low": -4611686018427387904, "high": 4611686018427387904, "seed": 5})"));
  EXPECT_EQ(elements<std::int64_t>(c.data),
            (std::vector<std::int64_t>{2522925141726970714, 42556930741712632, -318959595568774841}));
}

// --- indices ---

TEST(Indices, ElementsNotUnique) {
  const auto c = load_case(indices_case("scatter_elements", "", {4, 5}, "int64", {3, 2},
                                        R"({"kind": "indices", "seed": 1})", {3, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{1, 3, 2, 3, 1, 0}));
}

// Each line along axis 0 (a column here) is a fresh partial Fisher-Yates of [0, 4).
TEST(Indices, ElementsUniqueAxis0) {
  const auto c = load_case(indices_case("scatter_elements", "", {4, 5}, "int64", {3, 2},
                                        R"({"kind": "indices", "unique": true, "seed": 1})", {3, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{1, 3, 2, 1, 0, 2}));
}

TEST(Indices, ElementsUniqueAxis1Int32) {
  const auto c = load_case(indices_case("scatter_elements", R"("axis": 1)", {3, 6}, "int32", {2, 4},
                                        R"({"kind": "indices", "unique": true, "seed": 5})", {2, 4}));
  EXPECT_EQ(c.indices.dtype(), DType::int32);
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 5, 1, 0, 1, 2, 3, 0}));
}

// Lines along the last axis of a rank-3 tensor, in row-major order of (i0, i1).
TEST(Indices, ElementsUniqueRank3LastAxis) {
  const auto c = load_case(indices_case("scatter_elements", R"("axis": -1)", {2, 3, 4}, "int64", {2, 3, 3},
                                        R"({"kind": "indices", "unique": true, "seed": 11})", {2, 3, 3}));
  EXPECT_EQ(index_values(c.indices),
            (std::vector<std::int64_t>{1, 2, 3, 0, 3, 2, 0, 3, 2, 2, 0, 3, 3, 2, 0, 0, 2, 1}));
}

TEST(Indices, ElementsNegative) {
  const auto c = load_case(indices_case("scatter_elements", "", {4, 5}, "int64", {3, 2},
                                        R"({"kind": "indices", "negative": 0.5, "seed": 2})", {3, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 2, -1, 0, -3, -1}));
}

TEST(Indices, ElementsUniqueNegative) {
  const auto c = load_case(indices_case("scatter_elements", "", {4, 5}, "int64", {3, 2},
                                        R"({"kind": "indices", "unique": true, "negative": 0.5, "seed": 2})", {3, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 0, -1, 2, -3, -1}));
}

// Component j of a tuple draws from data.shape[j].
TEST(Indices, NdNotUnique) {
  const auto c = load_case(indices_case("scatter_nd", "", {3, 4, 2}, "int64", {5, 2},
                                        R"({"kind": "indices", "seed": 4})", {5, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{1, 0, 0, 2, 1, 1, 0, 2, 2, 1}));
}

TEST(Indices, NdUnique) {
  const auto c = load_case(indices_case("scatter_nd", "", {3, 4, 2}, "int64", {5, 2},
                                        R"({"kind": "indices", "unique": true, "seed": 4})", {5, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 2, 1, 3, 2, 1, 0, 3, 1, 1}));
}

TEST(Indices, NdUniqueNegative) {
  const auto c = load_case(indices_case("scatter_nd", "", {3, 4, 2}, "int64", {2, 3, 2},
                                        R"({"kind": "indices", "unique": true, "negative": 0.5, "seed": 8})",
                                        {2, 3, 2}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, -2, -3, -4, 1, 3, -3, -3, 1, 2, -1, -4}));
}

TEST(Indices, NdNegativeOneMakesEveryIndexNegative) {
  const auto c = load_case(indices_case("scatter_nd", "", {3, 4}, "int64", {4, 1},
                                        R"({"kind": "indices", "negative": 1.0})", {4, 4}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{-2, -3, -2, -2}));
}

TEST(Indices, NdLargestSeed) {
  const auto c = load_case(indices_case("scatter_nd", "", {10, 10}, "int64", {6, 2},
                                        R"({"kind": "indices", "seed": 18446744073709551615})", {6}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{6, 9, 1, 2, 6, 5, 5, 6, 0, 2, 9, 7}));
}

TEST(Indices, UpdateNotUnique) {
  const auto c = load_case(indices_case("scatter_update", "", {6, 3}, "int64", {2, 2},
                                        R"({"kind": "indices", "seed": 6})", {2, 2, 3}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 5, 0, 0}));
}

TEST(Indices, UpdateUnique) {
  const auto c = load_case(indices_case("scatter_update", "", {6, 3}, "int64", {2, 2},
                                        R"({"kind": "indices", "unique": true, "seed": 6})", {2, 2, 3}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 4, 1, 3}));
}

TEST(Indices, UpdateUniqueAxis1) {
  const auto c = load_case(indices_case("scatter_update", R"("axis": 1)", {2, 7}, "int32", {5},
                                        R"({"kind": "indices", "unique": true, "seed": 3})", {2, 5}));
  EXPECT_EQ(index_values(c.indices), (std::vector<std::int64_t>{2, 4, 6, 0, 1}));
}

// --- errors ---

TEST(GenerateErrors, RandintHighNotAboveLow) {
  EXPECT_REJECTED(data_case("int32", {3}, R"("generate": {"kind": "randint", "low": 5, "high": 5})"),
                  ErrorCode::values, "inputs.data.generate: randint needs high > low, got low = 5, high = 5");
  EXPECT_REJECTED(data_case("int32", {3}, R"("generate": {"kind": "randint", "low": 5, "high": -1})"),
                  ErrorCode::values, "inputs.data.generate: randint needs high > low, got low = 5, high = -1");
}

TEST(GenerateErrors, UniqueAsksForMoreThanExist) {
  EXPECT_REJECTED(indices_case("scatter_elements", "", {4, 5}, "int64", {5, 2},
                               R"({"kind": "indices", "unique": true})", {5, 2}),
                  ErrorCode::values,
                  "inputs.indices.generate: unique indices: 5 values asked from 4 along data.shape[0] = 4");
  EXPECT_REJECTED(indices_case("scatter_nd", "", {2, 2}, "int64", {5, 2},
                               R"({"kind": "indices", "unique": true})", {5}),
                  ErrorCode::values,
                  "inputs.indices.generate: unique indices: 5 values asked from 4 positions of data.shape[:2] = [2, 2]");
  EXPECT_REJECTED(indices_case("scatter_update", "", {3, 2}, "int64", {4},
                               R"({"kind": "indices", "unique": true})", {4, 2}),
                  ErrorCode::values,
                  "inputs.indices.generate: unique indices: 4 values asked from 3 along data.shape[0] = 3");
}

TEST(GenerateErrors, UniformOutOfInt8Range) {
  // Seed 0 over [0, 1000): the first draw floors to 883 (gen_expected.py).
  EXPECT_REJECTED(data_case("int8", {4}, R"("generate": {"kind": "uniform", "low": 0, "high": 1000})"),
                  ErrorCode::values, "inputs.data.generate: element 0 = 883 is out of range [-128, 127] for dtype int8");
}

TEST(GenerateErrors, ArangeOverflowsInt64) {
  EXPECT_REJECTED(
      data_case("int64", {3}, R"("generate": {"kind": "arange", "start": 9223372036854775806, "step": 1})"),
      ErrorCode::values, "inputs.data.generate: element 2 = 9223372036854775806 + 2 * 1 overflows int64");
}

TEST(GenerateErrors, ArangeLeavesInt8Range) {
  EXPECT_REJECTED(data_case("int8", {3}, R"("generate": {"kind": "arange", "start": 120, "step": 5})"),
                  ErrorCode::values, "inputs.data.generate: element 2 = 130 is out of range [-128, 127] for dtype int8");
}

TEST(GenerateErrors, ArangeOverflowsFloat16) {
  EXPECT_REJECTED(data_case("float16", {3}, R"("generate": {"kind": "arange", "start": 65000, "step": 1000})"),
                  ErrorCode::values, "inputs.data.generate: element 1 = 66000 overflows dtype float16 (largest finite 65504)");
}

TEST(GenerateErrors, NegativeNotForScatterUpdate) {
  EXPECT_REJECTED(indices_case("scatter_update", "", {6, 3}, "int64", {2},
                               R"({"kind": "indices", "negative": 0.5})", {2, 3}),
                  ErrorCode::values, "inputs.indices.generate.negative: scatter_update takes no negative indices");
}

// --- large tensors: the generators split them among threads ---
// From 2^21 elements a tensor is generated in chunks, one thread each; every element
// must still be the spec's draw at its own position. The expected values come from one
// sequential stream, as the spec states them.

constexpr std::int64_t kLarge = (std::int64_t{1} << 21) + 12345;

double unit_of(std::uint64_t draw) { return static_cast<double>(draw >> 11) * 0x1.0p-53; }

TEST(LargeGenerators, UniformIsOneStreamInRowMajorOrder) {
  const auto c = load_case(
      data_case("float32", {kLarge}, R"("generate": {"kind": "uniform", "low": -3, "high": 5, "seed": 11})"));
  SplitMix64 rng(11);
  const auto got = elements<float>(c.data);
  for (std::int64_t i = 0; i < kLarge; ++i) {
    const auto want = static_cast<float>(-3.0 + 8.0 * unit_of(rng.next()));
    ASSERT_EQ(got[static_cast<std::size_t>(i)], want) << "element " << i;
  }
}

TEST(LargeGenerators, RandintIsOneStreamInRowMajorOrder) {
  const auto c =
      load_case(data_case("int64", {kLarge}, R"("generate": {"kind": "randint", "low": -7, "high": 1000, "seed": 3})"));
  SplitMix64 rng(3);
  const auto got = elements<std::int64_t>(c.data);
  for (std::int64_t i = 0; i < kLarge; ++i) {
    ASSERT_EQ(got[static_cast<std::size_t>(i)], -7 + static_cast<std::int64_t>(rng.next() % 1007)) << "element " << i;
  }
}

// Not unique, then the negative pass: its draws follow the n index draws in the one stream.
TEST(LargeGenerators, IndicesAndTheirNegativePassAreOneStream) {
  const auto c = load_case(indices_case("scatter_elements", "", {5, kLarge}, "int64", {1, kLarge},
                                        R"({"kind": "indices", "negative": 0.5, "seed": 9})", {1, kLarge}));
  SplitMix64 rng(9);
  std::vector<std::int64_t> want(static_cast<std::size_t>(kLarge));
  for (auto& v : want) v = static_cast<std::int64_t>(rng.next() % 5);
  for (auto& v : want) {
    if (unit_of(rng.next()) < 0.5) v -= 5;
  }
  EXPECT_EQ(index_values(c.indices), want);
}

// Unique along axis 0: line L (a column) is a fresh partial Fisher-Yates of [0, 4) taking
// draws 4L to 4L + 3; threads split the lines.
TEST(LargeGenerators, UniqueLinesAreOneStream) {
  const std::int64_t columns = kLarge / 4 + 7;
  const auto c = load_case(indices_case("scatter_elements", "", {4, columns}, "int32", {4, columns},
                                        R"({"kind": "indices", "unique": true, "seed": 2})", {4, columns}));
  SplitMix64 rng(2);
  std::vector<std::int64_t> want(static_cast<std::size_t>(4 * columns));
  for (std::int64_t line = 0; line < columns; ++line) {
    std::int64_t a[4] = {0, 1, 2, 3};
    for (std::int64_t j = 0; j < 4; ++j) {
      const auto r = j + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(4 - j));
      std::swap(a[j], a[r]);
      want[static_cast<std::size_t>(j * columns + line)] = a[j];
    }
  }
  EXPECT_EQ(index_values(c.indices), want);
}

// An error names the first bad element in row-major order, whichever thread met it first:
// float16 overflows from the element whose value reaches 65520 (it rounds to infinity),
// and every element after it overflows too.
TEST(LargeGenerators, AnErrorNamesTheFirstBadElement) {
  std::int64_t first = 0;
  while (static_cast<double>(first) * 0.08 < 65520.0) ++first;
  ASSERT_LT(first, kLarge);
  try {
    load_case(data_case("float16", {kLarge}, R"("generate": {"kind": "arange", "start": 0, "step": 0.08})"));
    FAIL() << "no overflow error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("element " + std::to_string(first) + " = "), std::string::npos) << e.what();
  }
}

// --- skewed indices: zipf and balanced (real workloads' index distributions) ---

// How often each target is hit, from a generated indices tensor of a scatter_nd k = 1 or a 1-d case.
std::map<std::int64_t, std::int64_t> hits_of(const Tensor& indices) {
  std::map<std::int64_t, std::int64_t> hits;
  for (const auto v : index_values(indices)) ++hits[v];
  return hits;
}

// Zipf over a 128,256-token vocabulary, 8,192 tokens. The expected figures are analytic, not this
// code's: the hottest row's share is 1 / H(n, alpha) (H the generalized harmonic number: 0.0810
// for alpha 1.0, 0.133 for 1.1; the sampling error of 8,192 draws is about 0.003), and the
// distinct rows hit are sum over r of 1 - (1 - p_r)^8192 (46% and 33% of the tokens; computed in
// ../shared/reviews/field-research-2.md, section 1.3).
TEST(SkewedIndices, ZipfMatchesTheVocabularyStatistics) {
  for (const auto& [alpha, hottest_lo, hottest_hi, distinct_lo, distinct_hi] :
       {std::tuple{"1.0", 0.072, 0.090, 0.42, 0.50}, std::tuple{"1.1", 0.122, 0.145, 0.29, 0.37}}) {
    const auto c = load_case(indices_case("scatter_nd", "", {128256}, "int64", {8192, 1},
                                          std::string(R"({"kind": "indices", "distribution": "zipf", "alpha": )") +
                                              alpha + R"(, "seed": 7})",
                                          {8192}));
    const auto hits = hits_of(c.indices);
    std::int64_t hottest = 0;
    for (const auto& [target, n] : hits) hottest = std::max(hottest, n);
    const double share = static_cast<double>(hottest) / 8192.0;
    const double distinct = static_cast<double>(hits.size()) / 8192.0;
    EXPECT_GE(share, hottest_lo) << "alpha " << alpha;
    EXPECT_LE(share, hottest_hi) << "alpha " << alpha;
    EXPECT_GE(distinct, distinct_lo) << "alpha " << alpha;
    EXPECT_LE(distinct, distinct_hi) << "alpha " << alpha;
    // The hot rows are spread over the table: the three hottest are not neighbours.
    std::vector<std::pair<std::int64_t, std::int64_t>> by_count;
    for (const auto& [target, n] : hits) by_count.emplace_back(n, target);
    std::sort(by_count.rbegin(), by_count.rend());
    std::vector<std::int64_t> top{by_count[0].second, by_count[1].second, by_count[2].second};
    std::sort(top.begin(), top.end());
    EXPECT_GT(top[2] - top[0], 2) << "the three hottest rows are neighbours";
  }
}

TEST(SkewedIndices, ZipfIsOneDrawPerValueWhateverTheChunks) {
  // Past 2^21 values the draws split among threads; value i is draw i's, as in a short tensor.
  const std::string zipf = R"({"kind": "indices", "distribution": "zipf", "alpha": 1.2, "seed": 3})";
  const auto big = load_case(indices_case("scatter_update", "", {1000, 1}, "int64", {(1 << 21) + 3}, zipf,
                                          {(1 << 21) + 3, 1}));
  const auto small = load_case(indices_case("scatter_update", "", {1000, 1}, "int64", {1000}, zipf, {1000, 1}));
  const auto a = index_values(big.indices);
  const auto b = index_values(small.indices);
  EXPECT_EQ(std::vector<std::int64_t>(a.begin(), a.begin() + 1000), b);
  for (const auto v : a) ASSERT_TRUE(v >= 0 && v < 1000);
}

TEST(SkewedIndices, BalancedHitsEveryTargetEquallyOften) {
  // MoE combine: 2 x 100 token rows into 100 rows, each exactly twice.
  const auto moe = load_case(indices_case("scatter_nd", "", {100, 8}, "int32", {200, 1},
                                          R"({"kind": "indices", "distribution": "balanced", "seed": 1})", {200, 8}));
  const auto hits = hits_of(moe.indices);
  EXPECT_EQ(hits.size(), 100u);
  for (const auto& [target, n] : hits) EXPECT_EQ(n, 2) << "row " << target;
  // Not in order: a shuffle.
  const auto values = index_values(moe.indices);
  EXPECT_FALSE(std::is_sorted(values.begin(), values.end()));
  // 250 into 100: 2 or 3 each; along each line of a scatter_elements, every line alike.
  const auto uneven = load_case(indices_case("scatter_elements", R"("axis": 1)", {3, 100}, "int64", {3, 250},
                                             R"({"kind": "indices", "distribution": "balanced"})", {3, 250}));
  const auto all = index_values(uneven.indices);
  for (int line = 0; line < 3; ++line) {
    std::map<std::int64_t, std::int64_t> per_line;
    for (int j = 0; j < 250; ++j) ++per_line[all[line * 250 + j]];
    EXPECT_EQ(per_line.size(), 100u);
    for (const auto& [target, n] : per_line) EXPECT_TRUE(n == 2 || n == 3) << "line " << line << " target " << target;
  }
  // scatter_nd k = 2: positions of data.shape[:2], each hit once when there are as many tuples.
  const auto tuples = load_case(indices_case("scatter_nd", "", {3, 4}, "int64", {12, 2},
                                             R"({"kind": "indices", "distribution": "balanced"})", {12}));
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  const auto pairs = index_values(tuples.indices);
  for (int t = 0; t < 12; ++t) seen.emplace(pairs[2 * t], pairs[2 * t + 1]);
  EXPECT_EQ(seen.size(), 12u);
}

TEST(SkewedIndices, BroadcastRepeatsAnIndexAcrossTheOtherDimensions) {
  // PyG's aggregation: index [E, F] with index[e, f] = dst[e] (axis 0), power-law in-degrees.
  const auto gnn = load_case(indices_case(
      "scatter_elements", R"("reduction": "add", "axis": 0)", {50, 8}, "int64", {400, 8},
      R"({"kind": "indices", "distribution": "zipf", "alpha": 1.0, "broadcast": true, "seed": 2})", {400, 8}));
  const auto values = index_values(gnn.indices);
  std::set<std::int64_t> rows;
  for (int e = 0; e < 400; ++e) {
    for (int f = 1; f < 8; ++f) ASSERT_EQ(values[e * 8 + f], values[e * 8]) << "edge " << e;
    rows.insert(values[e * 8]);
  }
  EXPECT_GT(rows.size(), 10u);
  // Along axis 1 with unique: each row of the index is a permutation, the same in every row.
  const auto cols = load_case(indices_case("scatter_elements", R"("axis": 1)", {3, 5}, "int32", {3, 5},
                                           R"({"kind": "indices", "unique": true, "broadcast": true})", {3, 5}));
  const auto c = index_values(cols.indices);
  EXPECT_EQ(std::set<std::int64_t>(c.begin(), c.begin() + 5).size(), 5u);
  for (int r = 1; r < 3; ++r) EXPECT_TRUE(std::equal(c.begin(), c.begin() + 5, c.begin() + 5 * r));
  EXPECT_REJECTED(indices_case("scatter_nd", "", {10}, "int64", {4, 1}, R"({"kind": "indices", "broadcast": true})", {4}),
                  ErrorCode::values,
                  "inputs.indices.generate.broadcast: is for scatter_elements (an index the same along every dimension but "
                  "the axis), not scatter_nd");
}

TEST(SkewedIndices, SchemaErrorsNameTheField) {
  const auto with = [](const std::string& generator) {
    return indices_case("scatter_update", "", {10}, "int64", {4}, generator, {4});
  };
  EXPECT_REJECTED(with(R"({"kind": "indices", "distribution": "pareto"})"), ErrorCode::schema,
                  "inputs.indices.generate.distribution = 'pareto' is not a distribution (uniform, zipf, balanced)");
  EXPECT_REJECTED(with(R"({"kind": "indices", "alpha": 1.1})"), ErrorCode::schema,
                  "inputs.indices.generate.alpha: belongs to distribution 'zipf'");
  EXPECT_REJECTED(with(R"({"kind": "indices", "distribution": "zipf", "alpha": 0})"), ErrorCode::schema,
                  "inputs.indices.generate.alpha = 0 is not an exponent in (0, 10]");
  EXPECT_REJECTED(with(R"({"kind": "indices", "unique": true, "distribution": "balanced"})"), ErrorCode::schema,
                  "inputs.indices.generate.distribution = 'balanced' cannot be combined with unique: true (unique "
                  "targets have no frequencies)");
}

}  // namespace
}  // namespace scatter

// Loading under limits and from files: --max-bytes (counted without overflow, before
// anything is allocated, generator scratch included), files that cannot be read or
// parsed, and duplicate names and directory order across files.

#include <gtest/gtest.h>

#include <string>

#include "scatter/load.hpp"
#include "test_util.hpp"

namespace {

using scatter::ErrorCode;
using namespace scatter::testing;

// A valid scatter_elements case on float32 data 4x2.
const std::string kCase =
    make_case(kElements, tensor("float32", "[4, 2]", "[[1, 2], [3, 4], [5, 6], [7, 8]]"),
              tensor("int64", "[2, 2]", "[[0, 1], [3, 0]]"), tensor("float32", "[2, 2]", "[[10, 20], [30, 40]]"));

// A scatter_elements case with one update at index 0 onto data `data` (a generated
// tensor of `dtype`).
std::string one_update_onto(const std::string& data, const std::string& dtype, const std::string& index_shape = "[1]",
                            const std::string& index = "[0]", const std::string& update = "[1]") {
  return make_case(kElements, data, tensor("int64", index_shape, index), tensor(dtype, index_shape, update));
}

// ---- too_large

// Expects `json` to load but be too large under `max_bytes`, with exactly `message`.
void expect_too_large(const std::string& json, std::uint64_t max_bytes, const std::string& message) {
  const auto error = rejection(json, max_bytes);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::too_large);
  EXPECT_EQ(error->message(), message);
}

TEST(ValidateTooLarge, MoreThanMaxBytes) {
  // data 4x2 float32 (32 bytes) three times, indices 2x2 int64 (32), updates 2x2 float32 (16): 144 bytes.
  EXPECT_FALSE(rejection(kCase, 144).has_value());
  expect_too_large(
      kCase, 100,
      "the case needs 144 bytes of host memory (inputs, expected and outputs) but --max-bytes is 100 bytes");
}

TEST(ValidateTooLarge, GeneratedTensorOverMaxBytes) {
  const auto json = one_update_onto(
      R"({"dtype": "float32", "shape": [1048576], "generate": {"kind": "fill", "value": 0}})", "float32");
  expect_too_large(json, 1 << 20,
                   "the case needs 12.0 MiB of host memory (inputs, expected and outputs) but --max-bytes is 1.0 MiB");
}

TEST(ValidateTooLarge, IndicesGeneratorScratchCounts) {
  // The tensors need 24576 bytes: data 1024 float32 three times (12288), indices 1024
  // int64 (8192), updates 1024 float32 (4096). Drawing 1024 unique indices needs more
  // than that again (the draws, the Fisher-Yates state): a limit that the tensors
  // alone fit must not let the generator allocate past it.
  const auto json =
      make_case(kElements, R"({"dtype": "float32", "shape": [1024], "generate": {"kind": "fill", "value": 0}})",
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
  const auto data =
      R"({"dtype": "float32", "shape": [4294967296, 4294967296], "generate": {"kind": "fill", "value": 0}})";
  EXPECT_REJECTED(one_update_onto(data, "float32", "[1, 1]", "[[0]]", "[[1]]"), ErrorCode::too_large,
                  "inputs.data.shape = [4294967296, 4294967296] of float32 has more bytes than any memory holds");
}

TEST(ValidateTooLarge, OtherDimensionsOverflowBesideAZero) {
  // [0, 2^32, 2^32] has no elements, but its strides and the ScatterND slice [2^32, 2^32]
  // overflow: it passed validate and then aborted run, explain and dump (reliability probe 7).
  const auto huge = [](const std::string& dtype) {
    return R"({"dtype": ")" + dtype + R"(", "shape": [0, 4294967296, 4294967296], "values": []})";
  };
  EXPECT_REJECTED(make_case(R"("op": "scatter_nd")", huge("float32"), tensor("int64", "[0, 1]", "[]"), huge("float32")),
                  ErrorCode::too_large,
                  "inputs.data.shape = [0, 4294967296, 4294967296]: the product of its other dimensions overflows "
                  "int64 (its strides would), zero dimension or not");
  // The same product with room to spare passes.
  const auto fits = R"({"dtype": "float32", "shape": [0, 65536, 65536], "values": []})";
  EXPECT_FALSE(rejection(make_case(R"("op": "scatter_nd")", fits, tensor("int64", "[0, 1]", "[]"), fits)).has_value());
}

TEST(ValidateTooLarge, ByteCountOverflowsInt64) {
  // 2^62 elements fit in int64, 2^62 * 8 bytes do not.
  const auto data = R"({"dtype": "float64", "shape": [4611686018427387904], "generate": {"kind": "fill", "value": 0}})";
  EXPECT_REJECTED(one_update_onto(data, "float64"), ErrorCode::too_large,
                  "inputs.data.shape = [4611686018427387904] of float64 has more bytes than any memory holds");
}

TEST(ValidateTooLarge, ByteTotalMustNotWrapAround) {
  // data int8 of (2^64 + 2) / 3 elements: 6.1e18 bytes fit in int64, but the case needs
  // three copies of data (input, output, reference), 1.8e19 bytes, more than 2^64. A
  // total computed modulo 2^64 comes out as 2 + 8 + 1 = 11 bytes and slips under any limit.
  const auto data = R"({"dtype": "int8", "shape": [6148914691236517206], "generate": {"kind": "fill", "value": 0}})";
  const auto entry =
      load_one(one_update_onto(data, "int8"), 1 << 20);  // never materialized: that would ask for 6e18 bytes
  ASSERT_TRUE(entry.error.has_value()) << "the case was accepted at load";
  EXPECT_EQ(entry.error->code(), ErrorCode::too_large) << entry.error->message();
  EXPECT_FALSE(entry.decl.has_value());
}

// ---- io

TEST(ValidateIo, MissingNpyFile) {
  const auto data = R"({"dtype": "float32", "shape": [4, 2], "file": "/nonexistent_scatterctl_dir/data.npy"})";
  EXPECT_REJECTED(make_case(kElements, data, tensor("int64", "[2, 2]", "[[0, 1], [3, 0]]"),
                            tensor("float32", "[2, 2]", "[[10, 20], [30, 40]]")),
                  ErrorCode::io,
                  "inputs.data.file: cannot open '/nonexistent_scatterctl_dir/data.npy': No such file or directory");
}

// Expects `result` to hold no case and exactly one file error: `code` on `file` with `message`.
void expect_one_file_error(const scatter::LoadResult& result, ErrorCode code, const std::string& file,
                           const std::string& message) {
  EXPECT_TRUE(result.cases.empty());
  ASSERT_EQ(result.file_errors.size(), 1u);
  EXPECT_EQ(result.file_errors[0].code(), code);
  EXPECT_EQ(result.file_errors[0].file(), file);
  EXPECT_EQ(result.file_errors[0].message(), message);
}

TEST(ValidateIo, MissingPathGivenToLoadPaths) {
  expect_one_file_error(scatter::load_paths({"/nonexistent_scatterctl_dir/cases.json"}, load_options(1 << 20)),
                        ErrorCode::io, "/nonexistent_scatterctl_dir/cases.json", "no such file or directory");
}

using ValidateFiles = scatter::testing::TempDirTest;

TEST_F(ValidateFiles, FileWhoseParseCouldPassMaxBytesIsNotRead) {
  // 64 MiB + 3 bytes: "{}" and spaces. Parsed JSON can take 32 times its text, so
  // under --max-bytes 1 GiB (room for 32 MiB of text) the file is refused unread; under
  // 4 GiB it is read, and its one case lacks a name.
  const auto path = write("big.json", "{}" + std::string((64u << 20) + 1, ' '));
  expect_one_file_error(scatter::load_paths({path}, load_options(1ULL << 30)), ErrorCode::too_large, path,
                        "the file has 64.0 MiB; parsing it may need 32 times that, more than --max-bytes = 1.00 GiB");
  const auto read = scatter::load_paths({path}, load_options(4ULL << 30));
  EXPECT_TRUE(read.file_errors.empty());
  ASSERT_EQ(read.cases.size(), 1u);
  ASSERT_TRUE(read.cases[0].error.has_value());
  EXPECT_EQ(read.cases[0].error->message(), "missing key 'name'");
}

// ---- json

TEST(ValidateJson, SyntaxErrorHasLineAndColumn) {
  const std::string text = "{\"name\": \"t\",\n  \"op\": \"scatter_nd\",\n  \"inputs\": {,}\n}\n";
  expect_one_file_error(scatter::load_text(text, "broken.json", load_options(1 << 20)), ErrorCode::json, "broken.json",
                        "parse error at line 3, column 14: syntax error while parsing object key - unexpected ','; "
                        "expected string literal");
}

TEST(ValidateJson, TopLevelMustBeAnObject) {
  const auto result = scatter::load_text("[1, 2]", "list.json", load_options(1 << 20));
  ASSERT_EQ(result.file_errors.size(), 1u);
  EXPECT_EQ(result.file_errors[0].code(), ErrorCode::schema);
  EXPECT_EQ(result.file_errors[0].message(), "the top level must be a case object or {\"cases\": [...]}, got array");
}

// ---- names and order across files

TEST_F(ValidateFiles, DuplicateNameAcrossFilesRejectsTheSecond) {
  write("a.json", kCase);
  write("b.json", kCase);
  const auto result = scatter::load_paths({dir_.string()}, load_options(1 << 20));
  EXPECT_TRUE(result.file_errors.empty());
  ASSERT_EQ(result.cases.size(), 2u);
  EXPECT_EQ(result.cases[0].file, path("a.json"));
  EXPECT_FALSE(result.cases[0].error.has_value());
  EXPECT_TRUE(result.cases[0].decl.has_value());
  const auto& second = result.cases[1];
  EXPECT_EQ(second.file, path("b.json"));
  EXPECT_FALSE(second.decl.has_value());
  ASSERT_TRUE(second.error.has_value());
  EXPECT_EQ(second.error->code(), ErrorCode::schema);
  EXPECT_EQ(second.error->message(), R"(name = "t" is used by an earlier case in this run)");
  EXPECT_EQ(second.error->file(), path("b.json"));
  EXPECT_EQ(second.error->case_name(), "t");
}

TEST_F(ValidateFiles, DuplicateNameWithinOneFile) {
  write("c.json", R"({"cases": [)" + kCase + ", " + kCase + "]}");
  const auto result = scatter::load_paths({dir_.string()}, load_options(1 << 20));
  ASSERT_EQ(result.cases.size(), 2u);
  EXPECT_FALSE(result.cases[0].error.has_value());
  ASSERT_TRUE(result.cases[1].error.has_value());
  EXPECT_EQ(result.cases[1].error->code(), ErrorCode::schema);
}

TEST_F(ValidateFiles, DirectoryIsLoadedSortedAndOnlyJson) {
  write("b.json", kCase);
  write("a.json", scatter::testing::renamed(kCase, "a_case"));
  write("notes.txt", "not a case");
  const auto result = scatter::load_paths({dir_.string()}, load_options(1 << 20));
  EXPECT_TRUE(result.file_errors.empty());
  ASSERT_EQ(result.cases.size(), 2u);
  EXPECT_EQ(result.cases[0].name, "a_case");
  EXPECT_EQ(result.cases[1].name, "t");
}

}  // namespace

// Tensors from `file`: .npy written by write_npy and read back through a case, and
// files written by NumPy itself (tests/data/npy/, made by tests/data/make_npy.py),
// including the malformed ones each rejection code covers.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "scatter/load.hpp"

#include "test_util.hpp"

namespace scatter {
namespace {

namespace fs = std::filesystem;
using testing::elements;

const std::string kNpyDir = fs::path(SCATTER_TEST_DATA "/npy").lexically_normal().string();

std::string fixture(const std::string& name) { return kNpyDir + "/" + name; }


template <class T>
Tensor make_tensor(DType dtype, Shape shape, const std::vector<T>& values) {
  Tensor t(dtype, std::move(shape));
  EXPECT_EQ(static_cast<std::size_t>(t.numel()), values.size());
  EXPECT_EQ(sizeof(T), size_of(dtype));
  if (!values.empty()) std::memcpy(t.bytes(), values.data(), t.nbytes());
  return t;
}

// A scatter_elements case whose data is {dtype, shape, "file": file}; indices and
// updates are the smallest valid ones for a non-empty rank-1 or rank-2 data.
std::string data_from_file(const std::string& dtype, const std::string& shape, const std::string& file,
                           int rank = 1) {
  const std::string ones = rank == 1 ? "[1]" : "[1, 1]";
  return R"({"name": "npy", "op": "scatter_elements", "inputs": {"data": {"dtype": ")" + dtype + R"(", "shape": )" +
         shape + R"(, "file": ")" + file + R"("}, "indices": {"dtype": "int64", "shape": )" + ones +
         R"(, "values": [0]}, "updates": {"dtype": ")" + dtype + R"(", "shape": )" + ones +
         R"(, "generate": {"kind": "fill", "value": 0}}}})";
}

// A scatter_update case whose indices (int64, shape []) come from `file`.
std::string scalar_indices_from_file(const std::string& file) {
  return R"({"name": "npy0", "op": "scatter_update", "inputs": {
      "data": {"dtype": "float32", "shape": [4, 2], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [], "file": ")" + file + R"("},
      "updates": {"dtype": "float32", "shape": [2], "values": [1, 2]}}})";
}

// A scatter_elements case on empty [2, 0] tensors, data from `file`.
std::string empty_data_from_file(const std::string& file) {
  return R"({"name": "npy_empty", "op": "scatter_elements", "inputs": {
      "data": {"dtype": "float32", "shape": [2, 0], "file": ")" + file + R"("},
      "indices": {"dtype": "int64", "shape": [2, 0], "values": []},
      "updates": {"dtype": "float32", "shape": [2, 0], "values": []}}})";
}

// A fresh directory per test; relative `file` paths resolve against the case file in it.
class NpyRoundTrip : public testing::TempDirTest {
 protected:
  // Loads `json` as if it were <dir>/case.json and materializes it.
  Case load(const std::string& json) const {
    auto result = load_text(json, path("case.json"), testing::load_options(1ULL << 30));
    EXPECT_TRUE(result.file_errors.empty());
    if (result.cases.size() != 1 || !result.cases[0].decl) {
      ADD_FAILURE() << (result.cases.empty() || !result.cases[0].error ? "no case"
                                                                        : result.cases[0].error->message());
      return {};
    }
    return materialize(*result.cases[0].decl);
  }
};

TEST_F(NpyRoundTrip, Float32KeepsEveryBit) {
  const std::vector<std::uint32_t> bits{0x3FC00000, 0x80000000, 0x7F800000, 0x40500000, 0xC0E00000, 0x00000001};
  write_npy(make_tensor(DType::float32, {2, 3}, bits), path("x.npy"));
  const auto c = load(data_from_file("float32", "[2, 3]", "x.npy", 2));
  EXPECT_EQ(c.data.shape(), (Shape{2, 3}));
  EXPECT_EQ(elements<std::uint32_t>(c.data), bits);
}

TEST_F(NpyRoundTrip, Float16) {
  const std::vector<std::uint16_t> bits{0x3C00, 0x8000, 0x0001, 0x7BFF, 0xFC00};
  write_npy(make_tensor(DType::float16, {5}, bits), path("h.npy"));
  EXPECT_EQ(elements<std::uint16_t>(load(data_from_file("float16", "[5]", "h.npy")).data), bits);
}

TEST_F(NpyRoundTrip, BFloat16) {
  const std::vector<std::uint16_t> bits{0x3F80, 0x8000, 0x7F7F};
  write_npy(make_tensor(DType::bfloat16, {3}, bits), path("b.npy"));
  EXPECT_EQ(elements<std::uint16_t>(load(data_from_file("bfloat16", "[3]", "b.npy")).data), bits);
}

TEST_F(NpyRoundTrip, Int64Indices) {
  const std::vector<std::int64_t> idx{0, -1, 1, 0};
  write_npy(make_tensor(DType::int64, {2, 2}, idx), path("idx.npy"));
  const auto c = load(R"({"name": "i", "op": "scatter_elements", "inputs": {
      "data": {"dtype": "float32", "shape": [2, 2], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [2, 2], "file": "idx.npy"},
      "updates": {"dtype": "float32", "shape": [2, 2], "generate": {"kind": "fill", "value": 1}}}})");
  EXPECT_EQ(c.indices.dtype(), DType::int64);
  EXPECT_EQ(elements<std::int64_t>(c.indices), idx);
}

TEST_F(NpyRoundTrip, Int64BeyondDoublePrecision) {
  const std::vector<std::int64_t> v{9007199254740993LL, std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max()};
  write_npy(make_tensor(DType::int64, {3}, v), path("big.npy"));
  EXPECT_EQ(elements<std::int64_t>(load(data_from_file("int64", "[3]", "big.npy")).data), v);
}

TEST_F(NpyRoundTrip, Bool) {
  const std::vector<std::uint8_t> v{1, 0, 0, 1};
  write_npy(make_tensor(DType::boolean, {4}, v), path("m.npy"));
  EXPECT_EQ(elements<std::uint8_t>(load(data_from_file("bool", "[4]", "m.npy")).data), v);
}

TEST_F(NpyRoundTrip, ZeroDimensional) {
  write_npy(make_tensor(DType::int64, {}, std::vector<std::int64_t>{3}), path("s.npy"));
  const auto c = load(scalar_indices_from_file("s.npy"));
  EXPECT_EQ(c.indices.shape(), Shape{});
  EXPECT_EQ(elements<std::int64_t>(c.indices), (std::vector<std::int64_t>{3}));
}

TEST_F(NpyRoundTrip, Empty) {
  write_npy(Tensor(DType::float32, {2, 0}), path("e.npy"));
  const auto c = load(empty_data_from_file("e.npy"));
  EXPECT_EQ(c.data.shape(), (Shape{2, 0}));
  EXPECT_EQ(c.data.numel(), 0);
}

TEST_F(NpyRoundTrip, SubdirectoryResolvesAgainstTheCaseFile) {
  fs::create_directories(dir_ / "sub");
  write_npy(make_tensor(DType::float32, {1}, std::vector<float>{2.5f}), path("sub/one.npy"));
  EXPECT_EQ(elements<float>(load(data_from_file("float32", "[1]", "sub/one.npy")).data), (std::vector<float>{2.5f}));
}

// The header as the NPY format 1.0 defines it: magic, version, little-endian length,
// a dict literal padded with spaces so the data starts at a multiple of 64, then '\n'.
TEST_F(NpyRoundTrip, HeaderFollowsTheNpyFormat) {
  write_npy(make_tensor(DType::int32, {2, 3}, std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}), path("h.npy"));
  std::ifstream in(path("h.npy"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  ASSERT_EQ(bytes.size(), 10 + header_len + 24);
  const auto header = bytes.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<i4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  std::int32_t last = 0;
  std::memcpy(&last, bytes.data() + bytes.size() - 4, 4);
  EXPECT_EQ(last, 6);
}

TEST_F(NpyRoundTrip, OneDimensionalShapeIsATuple) {
  write_npy(make_tensor(DType::uint8, {4}, std::vector<std::uint8_t>{1, 2, 3, 4}), path("u.npy"));
  std::ifstream in(path("u.npy"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(bytes.find("'descr': '|u1'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (4,)"), std::string::npos);  // Python's one-tuple
}

// --- files written by NumPy ---

TEST(NpyFromNumpy, Float32RelativeToTheCaseFile) {
  LoadOptions options;
  options.max_bytes = 1ULL << 30;
  auto result = load_text(data_from_file("float32", "[2, 3]", "f32_2x3.npy", 2), kNpyDir + "/case.json", options);
  ASSERT_EQ(result.cases.size(), 1u);
  ASSERT_TRUE(result.cases[0].decl.has_value()) << result.cases[0].error->message();
  const auto c = materialize(*result.cases[0].decl);
  EXPECT_EQ(elements<float>(c.data), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(NpyFromNumpy, Int64) {
  const auto c = testing::load_case(data_from_file("int64", "[4]", fixture("i8_4.npy")));
  EXPECT_EQ(elements<std::int64_t>(c.data), (std::vector<std::int64_t>{-3, 0, 1LL << 40, -(1LL << 62)}));
}

TEST(NpyFromNumpy, Float16) {
  const auto c = testing::load_case(data_from_file("float16", "[3]", fixture("f16_3.npy")));
  EXPECT_EQ(elements<std::uint16_t>(c.data), (std::vector<std::uint16_t>{0x3C00, 0x8000, 0x0001}));
}

TEST(NpyFromNumpy, Bool) {
  const auto c = testing::load_case(data_from_file("bool", "[4]", fixture("bool_4.npy")));
  EXPECT_EQ(elements<std::uint8_t>(c.data), (std::vector<std::uint8_t>{1, 0, 0, 1}));
}

TEST(NpyFromNumpy, ZeroDimensional) {
  const auto c = testing::load_case(scalar_indices_from_file(fixture("i8_scalar.npy")));
  EXPECT_EQ(elements<std::int64_t>(c.indices), (std::vector<std::int64_t>{2}));
}

TEST(NpyFromNumpy, Empty) {
  const auto c = testing::load_case(empty_data_from_file(fixture("f32_2x0.npy")));
  EXPECT_EQ(c.data.shape(), (Shape{2, 0}));
}

// --- rejections ---

TEST(NpyErrors, FortranOrder) {
  EXPECT_REJECTED(data_from_file("float32", "[2, 2]", fixture("fortran_2x2.npy"), 2), ErrorCode::values,
                  "inputs.data.file: '" + fixture("fortran_2x2.npy") +
                      "' is in Fortran order; only C order is supported");
}

TEST(NpyErrors, BigEndian) {
  EXPECT_REJECTED(data_from_file("float32", "[3]", fixture("big_endian_f4.npy")), ErrorCode::values,
                  "inputs.data.file: '" + fixture("big_endian_f4.npy") +
                      "' is big-endian ('>f4'); only little-endian is supported");
}

TEST(NpyErrors, TruncatedData) {
  EXPECT_REJECTED(data_from_file("float32", "[2, 3]", fixture("truncated_data.npy"), 2), ErrorCode::values,
                  "inputs.data.file: '" + fixture("truncated_data.npy") +
                      "' has 20 data bytes, shape [2, 3] of float32 needs 24");
}

TEST(NpyErrors, TruncatedHeader) {
  EXPECT_REJECTED(data_from_file("float32", "[2, 3]", fixture("truncated_header.npy"), 2), ErrorCode::values,
                  "inputs.data.file: '" + fixture("truncated_header.npy") + "' is truncated inside its header");
}

TEST(NpyErrors, BadMagic) {
  EXPECT_REJECTED(data_from_file("float32", "[2, 3]", fixture("bad_magic.npy"), 2), ErrorCode::values,
                  "inputs.data.file: '" + fixture("bad_magic.npy") + "' is not a .npy file (wrong magic)");
}

TEST(NpyErrors, DtypeMismatch) {
  EXPECT_REJECTED(data_from_file("int32", "[2, 3]", fixture("f32_2x3.npy"), 2), ErrorCode::dtype,
                  "inputs.data.file: '" + fixture("f32_2x3.npy") +
                      "' holds '<f4' but the tensor is declared int32 ('<i4')");
  EXPECT_REJECTED(data_from_file("float64", "[4]", fixture("i8_4.npy")), ErrorCode::dtype,
                  "inputs.data.file: '" + fixture("i8_4.npy") +
                      "' holds '<i8' but the tensor is declared float64 ('<f8')");
}

TEST(NpyErrors, ShapeMismatch) {
  EXPECT_REJECTED(data_from_file("float32", "[3, 2]", fixture("f32_2x3.npy"), 2), ErrorCode::shape,
                  "inputs.data.file: '" + fixture("f32_2x3.npy") + "' has shape [2, 3] but the tensor is declared [3, 2]");
  EXPECT_REJECTED(data_from_file("float32", "[6]", fixture("f32_2x3.npy")), ErrorCode::shape,
                  "inputs.data.file: '" + fixture("f32_2x3.npy") + "' has shape [2, 3] but the tensor is declared [6]");
}

TEST(NpyErrors, MissingFile) {
  EXPECT_REJECTED(data_from_file("float32", "[3]", fixture("no_such_file.npy")), ErrorCode::io,
                  "inputs.data.file: cannot open '" + fixture("no_such_file.npy") + "': No such file or directory");
}

// Opening a FIFO blocks until a writer comes: the loader must refuse it unopened.
TEST(NpyErrors, FifoIsNotOpened) {
  const auto fifo = fs::temp_directory_path() / ("scatter_npy_fifo_" + std::to_string(::getpid()) + ".npy");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_REJECTED(data_from_file("float32", "[3]", fifo.string()), ErrorCode::io,
                  "inputs.data.file: cannot read '" + fifo.string() + "': not a regular file (a FIFO, socket or device)");
  fs::remove(fifo);
}

TEST(NpyErrors, Directory) {
  EXPECT_REJECTED(data_from_file("float32", "[3]", kNpyDir), ErrorCode::io,
                  "inputs.data.file: cannot read '" + kNpyDir + "': it is a directory");
}

}  // namespace
}  // namespace scatter

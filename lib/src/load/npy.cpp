// NumPy .npy files (format 1.0-3.0): little-endian, C order, the declared dtype and shape.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "detail.hpp"

namespace scatter {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string_view descr_of(DType dtype) {
  switch (dtype) {
    case DType::float64:
      return "<f8";
    case DType::float32:
      return "<f4";
    case DType::float16:
      return "<f2";
    case DType::bfloat16:
      return "<V2";  // NumPy has no bfloat16; ml_dtypes arrays save as raw 2-byte records
    case DType::int64:
      return "<i8";
    case DType::int32:
      return "<i4";
    case DType::int16:
      return "<i2";
    case DType::int8:
      return "|i1";
    case DType::uint8:
      return "|u1";
    case DType::boolean:
      return "|b1";
  }
  return "";
}

// Whether a header descr denotes dtype ('<' or '|' byte order for one-byte types).
bool descr_matches(std::string descr, DType dtype) {
  if (size_of(dtype) == 1 && !descr.empty() && descr[0] == '<') descr[0] = '|';
  if (dtype == DType::bfloat16 && descr == "|V2") return true;
  if (!descr.empty() && descr[0] == '=') descr[0] = size_of(dtype) == 1 ? '|' : '<';
  return descr == descr_of(dtype);
}

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::values, "file", fmt::format("'{}' {}", path, why));
}

}  // namespace

namespace detail {

Tensor read_npy(const std::string& path, DType dtype, const Shape& shape) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::io, "file", fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': {}", path, ec.message()));

  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 6) != 0) bad(path, "is not a .npy file (wrong magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint64_t header_len = 0;
  std::size_t prefix = 0;
  if (major == 1) {
    unsigned char len[2];
    in.read(reinterpret_cast<char*>(len), 2);
    header_len = len[0] | (len[1] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    unsigned char len[4];
    in.read(reinterpret_cast<char*>(len), 4);
    header_len = len[0] | (len[1] << 8) | (len[2] << 16) | (static_cast<std::uint64_t>(len[3]) << 24);
    prefix = 12;
  } else {
    bad(path, fmt::format("has unsupported .npy format version {}", major));
  }
  if (!in || prefix + header_len > file_size) bad(path, "is truncated inside its header");
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));

  std::smatch m;
  static const std::regex descr_re(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex order_re(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape_re(R"('shape'\s*:\s*\(([^)]*)\))");
  if (!std::regex_search(header, m, descr_re)) bad(path, "has no 'descr' in its header");
  const std::string descr = m[1];
  if (!std::regex_search(header, m, order_re)) bad(path, "has no 'fortran_order' in its header");
  if (m[1] == "True") bad(path, "is in Fortran order; only C order is supported");
  if (!std::regex_search(header, m, shape_re)) bad(path, "has no 'shape' in its header");
  Shape file_shape;
  const std::string dims = m[1];
  static const std::regex dim_re(R"(\s*(\d+)\s*,?)");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), dim_re); it != std::sregex_iterator(); ++it) {
    const auto text = (*it)[1].str();
    if (text.size() > 18) bad(path, fmt::format("has an absurd dimension {}", text));
    file_shape.push_back(std::stoll(text));
  }

  if (!descr.empty() && descr[0] == '>' && descr.size() > 2 && descr.substr(2) != "1") {
    bad(path, fmt::format("is big-endian ('{}'); only little-endian is supported", descr));
  }
  if (!descr_matches(descr, dtype)) {
    throw Error(ErrorCode::dtype, "file",
                fmt::format("'{}' holds '{}' but the tensor is declared {} ('{}')", path, descr, to_string(dtype),
                            descr_of(dtype)));
  }
  if (file_shape != shape) {
    throw Error(ErrorCode::shape, "file",
                fmt::format("'{}' has shape {} but the tensor is declared {}", path, format_shape(file_shape),
                            format_shape(shape)));
  }
  Tensor out(dtype, shape);
  if (file_size - prefix - header_len != out.nbytes()) {
    bad(path, fmt::format("has {} data bytes, shape {} of {} needs {}", file_size - prefix - header_len,
                          format_shape(shape), to_string(dtype), out.nbytes()));
  }
  in.read(reinterpret_cast<char*>(out.bytes()), static_cast<std::streamsize>(out.nbytes()));
  if (!in) throw Error(ErrorCode::io, "file", fmt::format("cannot read the data of '{}'", path));
  return out;
}

}  // namespace detail

void write_npy(const Tensor& tensor, const std::string& path) {
  // "(2, 3)", "(4,)", "()": Python's tuple syntax.
  std::string shape = fmt::format("{}", fmt::join(tensor.shape(), ", "));
  if (tensor.rank() == 1) shape += ",";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   descr_of(tensor.dtype()), shape);
  // Pad so that magic + length + header is a multiple of 64, ending in '\n'.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(tensor.bytes()), static_cast<std::streamsize>(tensor.nbytes()));
  if (!out) throw Error(ErrorCode::io, "", fmt::format("cannot write '{}'", path));
}

}  // namespace scatter

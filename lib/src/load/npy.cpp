// NumPy .npy files (format 1.0-3.0): little-endian, C order, the declared dtype and shape.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "detail.hpp"

namespace scatter {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string_view descr_of(DType dtype) { return info_of(dtype).npy; }

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

// Header text quoted in a message, cut short: a hostile header can be 4 GiB long.
std::string clip(std::string_view text) {
  return text.size() > 40 ? fmt::format("{}... ({} characters)", text.substr(0, 40), text.size()) : std::string(text);
}

// The value of 'key' in the header's Python dict literal: the text between `open` and
// `close` ('descr': '<f4'), or up to the next ',' or '}' when open is 0
// ('fortran_order': False). Hand-written rather than std::regex, whose matcher recurses
// once per character and overflows the stack on a long header.
std::optional<std::string> header_value(std::string_view header, std::string_view key, char open, char close) {
  const auto quoted = fmt::format("'{}'", key);
  auto pos = header.find(quoted);
  if (pos == std::string_view::npos) return std::nullopt;
  auto skip_space = [&] {
    while (pos < header.size() && std::isspace(static_cast<unsigned char>(header[pos]))) ++pos;
  };
  pos += quoted.size();
  skip_space();
  if (pos >= header.size() || header[pos] != ':') return std::nullopt;
  ++pos;
  skip_space();
  if (open == 0) {
    const auto end = header.find_first_of(",}", pos);
    if (end == std::string_view::npos) return std::nullopt;
    auto value = header.substr(pos, end - pos);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
    return std::string(value);
  }
  if (pos >= header.size() || header[pos] != open) return std::nullopt;
  const auto end = header.find(close, pos + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(header.substr(pos + 1, end - pos - 1));
}

// "3, 4" or "4," or "": Python's tuple of non-negative integers.
Shape parse_dims(const std::string& dims, const std::string& path) {
  Shape shape;
  std::size_t pos = 0;
  while (pos < dims.size()) {
    auto end = dims.find(',', pos);
    if (end == std::string::npos) end = dims.size();
    auto item = std::string_view(dims).substr(pos, end - pos);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    const bool last = end == dims.size();
    if (item.empty() && last && !shape.empty()) break;  // the trailing comma of "(4,)"
    if (item.empty() || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      bad(path, fmt::format("has a malformed shape ({}) in its header", clip(dims)));
    }
    if (item.size() > 18) bad(path, fmt::format("has an absurd dimension {}", clip(item)));
    if (shape.size() == kMaxRank) bad(path, fmt::format("has a shape of rank above {}", kMaxRank));
    shape.push_back(std::stoll(std::string(item)));
    pos = end + 1;
  }
  return shape;
}

// The dtype a header descr denotes, when it is one of the spec's.
std::optional<DType> dtype_of_descr(const std::string& descr) {
  for (const auto dtype : kDTypes) {
    if (descr_matches(descr, dtype)) return dtype;
  }
  return std::nullopt;
}

// Reads a .npy file; checks dtype and shape against the declaration when given one.
Tensor read_npy_file(const std::string& path, std::optional<DType> declared_dtype, const Shape* declared_shape) {
  // Before opening: opening a FIFO blocks until something writes to it, and a device
  // (/dev/zero) never ends. A missing file falls through to the open below.
  std::error_code status_ec;
  const auto status = std::filesystem::status(path, status_ec);
  if (std::filesystem::is_directory(status)) {
    throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': it is a directory", path));
  }
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw Error(ErrorCode::io, "file",
                fmt::format("cannot read '{}': not a regular file (a FIFO, socket or device)", path));
  }
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

  const auto descr = header_value(header, "descr", '\'', '\'');
  if (!descr) bad(path, "has no 'descr' in its header");
  const auto order = header_value(header, "fortran_order", 0, 0);
  if (!order || (*order != "True" && *order != "False")) bad(path, "has no 'fortran_order' in its header");
  if (*order == "True") bad(path, "is in Fortran order; only C order is supported");
  const auto dims = header_value(header, "shape", '(', ')');
  if (!dims) bad(path, "has no 'shape' in its header");
  const auto file_shape = parse_dims(*dims, path);

  if (descr->size() > 2 && (*descr)[0] == '>' && descr->substr(2) != "1") {
    bad(path, fmt::format("is big-endian ('{}'); only little-endian is supported", clip(*descr)));
  }
  if (!declared_dtype) {
    declared_dtype = dtype_of_descr(*descr);
    if (!declared_dtype) {
      throw Error(ErrorCode::dtype, "file", fmt::format("'{}' holds '{}', which is none of the spec's dtypes", path, clip(*descr)));
    }
  }
  const DType dtype = *declared_dtype;
  if (!descr_matches(*descr, dtype)) {
    throw Error(ErrorCode::dtype, "file",
                fmt::format("'{}' holds '{}' but the tensor is declared {} ('{}')", path, clip(*descr), to_string(dtype),
                            descr_of(dtype)));
  }
  const Shape& shape = declared_shape != nullptr ? *declared_shape : file_shape;
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

}  // namespace

namespace detail {

Tensor read_npy(const std::string& path, DType dtype, const Shape& shape) { return read_npy_file(path, dtype, &shape); }

}  // namespace detail

Tensor read_npy(const std::string& path) { return read_npy_file(path, std::nullopt, nullptr); }

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

// NumPy .npy files (format 1.0-3.0): little-endian, C order, the declared dtype and shape.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "scatter/files.hpp"

#include "detail.hpp"

namespace scatter {
namespace {

using detail::NpyTrust;

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

// An open file, closed on scope exit.
struct FileDescriptor {
  explicit FileDescriptor(int descriptor) : fd(descriptor) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
  int fd = -1;
};

// Opened without blocking (a FIFO would wait for a writer) and checked on the descriptor,
// not the name, so nothing can be swapped in between. A worker's file is also never read
// through a link and must be ours.
FileDescriptor open_for_reading(const std::string& path, NpyTrust trust, std::uint64_t& file_size) {
  const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (trust == NpyTrust::worker_file ? O_NOFOLLOW : 0);
  FileDescriptor file{::open(path.c_str(), flags)};
  if (file.fd < 0) {
    if (errno == ELOOP && trust == NpyTrust::worker_file) {
      throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': it is a symbolic link", path));
    }
    throw Error(ErrorCode::io, "file", fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': it is a directory", path));
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': not a regular file (a FIFO, socket or device)", path));
  }
  if (trust == NpyTrust::worker_file && st.st_uid != ::geteuid()) {
    throw Error(ErrorCode::io, "file", fmt::format("cannot read '{}': owned by user {}, not by this one", path, st.st_uid));
  }
  file_size = static_cast<std::uint64_t>(st.st_size);
  return file;
}

// Reads exactly `size` bytes at `offset`; false when the file ends first.
bool read_at(int fd, std::uint64_t offset, void* to, std::uint64_t size) {
  auto* bytes = static_cast<char*>(to);
  while (size > 0) {
    const auto n = ::pread(fd, bytes, std::min<std::uint64_t>(size, 1u << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::uint64_t>(n);
  }
  return true;
}

// Reads a .npy file; checks dtype and shape against the declaration when given one.
Tensor read_npy_file(const std::string& path, std::optional<DType> declared_dtype, const Shape* declared_shape,
                     NpyTrust trust) {
  std::uint64_t file_size = 0;
  const auto file = open_for_reading(path, trust, file_size);

  char magic[8] = {};
  if (!read_at(file.fd, 0, magic, 8) || std::memcmp(magic, kMagic, 6) != 0) bad(path, "is not a .npy file (wrong magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint64_t header_len = 0;
  std::size_t prefix = 0;
  unsigned char len[4] = {};
  bool read = false;
  if (major == 1) {
    read = read_at(file.fd, 8, len, 2);
    header_len = len[0] | (len[1] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    read = read_at(file.fd, 8, len, 4);
    header_len = len[0] | (len[1] << 8) | (len[2] << 16) | (static_cast<std::uint64_t>(len[3]) << 24);
    prefix = 12;
  } else {
    bad(path, fmt::format("has unsupported .npy format version {}", major));
  }
  if (!read || prefix + header_len > file_size) bad(path, "is truncated inside its header");
  std::string header(header_len, '\0');
  if (!read_at(file.fd, prefix, header.data(), header_len)) bad(path, "is truncated inside its header");

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
  if (!read_at(file.fd, prefix + header_len, out.bytes(), out.nbytes())) {
    throw Error(ErrorCode::io, "file", fmt::format("cannot read the data of '{}'", path));
  }
  return out;
}

// The .npy's bytes to `fd`; false (errno set) when they could not be written.
bool write_npy_to(const Tensor& tensor, int fd) {
  // "(2, 3)", "(4,)", "()": Python's tuple syntax.
  std::string shape = fmt::format("{}", fmt::join(tensor.shape(), ", "));
  if (tensor.rank() == 1) shape += ",";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   descr_of(tensor.dtype()), shape);
  // Pad so that magic + length + header is a multiple of 64, ending in '\n'.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string prefix(kMagic, 6);
  prefix += {1, 0, static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  prefix += header;
  return write_all(fd, prefix.data(), prefix.size()) && write_all(fd, tensor.bytes(), tensor.nbytes());
}

}  // namespace

namespace detail {

Tensor read_npy(const std::string& path, DType dtype, const Shape& shape, NpyTrust trust) {
  return read_npy_file(path, dtype, &shape, trust);
}

void write_new_npy(const Tensor& tensor, const std::string& path) {
  // A fresh file in a private folder (O_EXCL, no link followed), never one a user named.
  const FileDescriptor file{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
  if (file.fd < 0 || !write_npy_to(tensor, file.fd)) {
    throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  }
}

}  // namespace detail

Tensor read_npy(const std::string& path) { return read_npy_file(path, std::nullopt, nullptr, NpyTrust::user_file); }

void write_npy(const Tensor& tensor, const std::string& path) {
  write_file_atomically(path, [&](int fd) { return write_npy_to(tensor, fd); });
}

}  // namespace scatter

// Reports are written whole or not at all: a temporary file beside the target, then a
// rename, so a crashed or interrupted run never leaves a half-written report that a CI
// system could read as a pass.

#include "scatter/report.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "scatter/error.hpp"

namespace scatter {

void write_file_atomically(const std::string& path, const std::string& content) {
  const auto tmp = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error(ErrorCode::io, "", fmt::format("cannot replace '{}': {}", path, why));
  }
}

std::string read_file_text(const std::string& path) {
  // read(2), not a stream: a stream turns a failed read (EISDIR, EIO) into a short text, or
  // into an exception that libstdc++'s filebuf throws whatever the exception mask.
  const auto fail = [&] { return Error(ErrorCode::io, "", fmt::format("cannot read '{}': {}", path, std::strerror(errno))); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail();
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR) {
      const auto error = fail();
      ::close(fd);
      throw error;
    }
  }
  ::close(fd);
  return text;
}

}  // namespace scatter

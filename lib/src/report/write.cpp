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
#include <sys/stat.h>
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

bool replaceable_by_report(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  if (!S_ISREG(st.st_mode)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char bytes[512];
  const ssize_t got = ::read(fd, bytes, sizeof bytes);
  ::close(fd);
  const std::string_view head(bytes, got > 0 ? static_cast<std::size_t>(got) : 0);
  return head.find("\"tool\": \"scatterctl\"") != std::string::npos ||
         head.find("<testsuites name=\"scatterctl\"") != std::string::npos || head.rfind("## scatterctl", 0) == 0;
}

}  // namespace scatter

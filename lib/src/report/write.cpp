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
  // The temporary file is made afresh with a name nobody can have planted (mkstemp: O_EXCL), so
  // that a link left at a guessable PATH.tmp.PID is never written through.
  std::string tmp = fmt::format("{}.tmp.{}.XXXXXX", path, getpid());
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  ::fchmod(fd, 0644);
  std::size_t done = 0;
  while (done < content.size()) {
    const auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const auto why = std::strerror(errno);
      ::close(fd);
      std::remove(tmp.c_str());
      throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, why));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const auto why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, why));
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

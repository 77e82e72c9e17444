// Which files a report may replace (reports are written whole or not at all:
// write_file_atomically, files.hpp).

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

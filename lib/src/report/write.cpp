// Reports are written whole or not at all: a temporary file beside the target, then a
// rename, so a crashed or interrupted run never leaves a half-written report that a CI
// system could read as a pass.

#include "scatter/report.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
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
  // A directory opens, and its read fails (EISDIR) inside operator<<, which would only set failbit.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(ErrorCode::io, "", fmt::format("cannot read '{}': it is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::io, "", fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::io, "", fmt::format("cannot read '{}': a read error", path));
  return text.str();
}

}  // namespace scatter

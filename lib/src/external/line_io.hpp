#pragma once
// One JSON object a line over a file descriptor: the far side of a worker or a box (plugin-host,
// backend-host, box-host), reading requests and writing answers.

#include <unistd.h>

#include <cerrno>
#include <string>

#include <nlohmann/json.hpp>

namespace scatter::external {

// Lines from a file descriptor, the last one with or without its '\n'.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  bool next(std::string& line) {
    for (;;) {
      const auto newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        line.assign(buffer_, 0, newline);
        buffer_.erase(0, newline + 1);
        return true;
      }
      char chunk[1 << 16];
      const auto n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (buffer_.empty()) return false;
        line = std::move(buffer_);
        buffer_.clear();
        return true;
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

/// Writes `answer` and a newline; false when the reader is gone. Bytes that are not UTF-8 (a
/// plugin's message) are replaced rather than refused.
bool write_line(int fd, const nlohmann::json& answer);

}  // namespace scatter::external

#pragma once
// Text and writes that a signal handler may use: no allocation, no lock, errno kept to write(2).

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <initializer_list>

namespace scatter::detail {

/// The parts one after another into `to` (cut at `size` - 1, always terminated); the length.
inline std::size_t concat(char* to, std::size_t size, std::initializer_list<const char*> parts) noexcept {
  std::size_t n = 0;
  for (const char* part : parts) {
    for (const char* p = part; *p != '\0' && n + 1 < size; ++p) to[n++] = *p;
  }
  to[n] = '\0';
  return n;
}

/// All of `data` with write(2), retried on a short write and EINTR; false on failure.
inline bool write_all(int fd, const char* data, std::size_t size) noexcept {
  while (size > 0) {
    const auto n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace scatter::detail

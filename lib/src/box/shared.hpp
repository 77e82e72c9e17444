#pragma once
// The memory a case's tensors pass through to a box: memfd regions mapped by scatterctl and
// handed to the box by descriptor. The inputs' region is sealed once scatterctl has mapped it
// writable: the box can map it read-only and nothing else (no write(), no writable mapping, no
// reopen through /proc for writing), while scatterctl keeps writing each call's variation.

#include <cstddef>
#include <cstdint>
#include <string>

namespace scatter::box {

class SharedRegion {
 public:
  enum class Access { read_only_for_the_box, writable_by_the_box };
  /// `bytes` of zeros (at least one page), named `name` in /proc/PID/maps.
  SharedRegion(std::size_t bytes, Access access, const std::string& name);
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  std::byte* bytes() { return bytes_; }
  const std::byte* bytes() const { return bytes_; }
  std::size_t size() const { return size_; }
  /// The descriptor the box receives (sealed, for inputs).
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::byte* bytes_ = nullptr;
  std::size_t size_ = 0;
};

/// Where a case's tensors lie in the regions: offsets on 64-byte lines.
struct Layout {
  std::size_t data = 0, indices = 0, updates = 0, inputs_bytes = 0;
  std::size_t out = 0, out_bytes = 0;  ///< in the output region; a canary follows `out`
};
/// Bytes after the output that the box must leave as they were.
inline constexpr std::size_t kCanaryBytes = 64;
std::byte canary_byte(std::size_t i);

/// Sends `fds` with one byte over the socket `channel` (SCM_RIGHTS); false with errno set.
bool send_fds(int channel, const int* fds, int count);
/// Receives up to `count` descriptors sent by send_fds; the number received, or -1.
int receive_fds(int channel, int* fds, int count);

}  // namespace scatter::box

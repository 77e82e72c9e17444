// memfd regions and descriptor passing (shared.hpp).

#include "shared.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "scatter/error.hpp"

namespace scatter::box {

std::byte canary_byte(std::size_t i) { return static_cast<std::byte>(0xA5u ^ (i * 29u)); }

SharedRegion::SharedRegion(std::size_t bytes, Access access, const std::string& name) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  size_ = std::max(page, (bytes + page - 1) / page * page);
  fd_ = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  const auto fail = [&](const char* what) {
    const int err = errno;
    if (fd_ >= 0) ::close(fd_);
    throw Error(ErrorCode::io, "", fmt::format("cannot make the box's shared memory ({} of {} bytes): {}", what, size_,
                                               std::strerror(err)));
  };
  if (fd_ < 0) fail("memfd_create");
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) fail("ftruncate");
  void* at = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (at == MAP_FAILED) fail("mmap");
  bytes_ = static_cast<std::byte*>(at);
  // Sealed after this mapping: it stays writable, and no other can be made.
  if (access == Access::read_only_for_the_box &&
      ::fcntl(fd_, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    ::munmap(bytes_, size_);
    fail("sealing");
  }
}

SharedRegion::~SharedRegion() {
  if (bytes_ != nullptr) ::munmap(bytes_, size_);
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// One byte with room for up to four descriptors beside it: the message send_fds sends.
struct FdMessage {
  static constexpr int kMost = 4;
  char byte = 'F';
  iovec io{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMost)] = {};
  msghdr message{};
  FdMessage() {
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

}  // namespace

bool send_fds(int channel, const int* fds, int count) {
  if (count < 1 || count > FdMessage::kMost) return false;
  FdMessage m;
  const auto bytes = sizeof(int) * static_cast<std::size_t>(count);
  m.message.msg_controllen = CMSG_SPACE(bytes);
  cmsghdr* header = CMSG_FIRSTHDR(&m.message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(bytes);
  std::memcpy(CMSG_DATA(header), fds, bytes);
  for (;;) {
    const auto sent = ::sendmsg(channel, &m.message, MSG_NOSIGNAL);
    if (sent == 1) return true;
    if (sent < 0 && errno == EINTR) continue;
    return false;
  }
}

int receive_fds(int channel, int* fds, int count) {
  FdMessage m;
  ssize_t got = 0;
  while ((got = ::recvmsg(channel, &m.message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (got != 1) return -1;
  int received = 0;
  for (cmsghdr* header = CMSG_FIRSTHDR(&m.message); header != nullptr; header = CMSG_NXTHDR(&m.message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const auto n = static_cast<int>((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    for (int i = 0; i < n; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
      if (received < count) {
        fds[received++] = fd;
      } else {
        ::close(fd);
      }
    }
  }
  return received;
}

}  // namespace scatter::box

// Files that scatterctl reads but did not make, and files it writes whole (scatter/files.hpp).

#include "scatter/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/text_hash.hpp"
#include "scatter/error.hpp"

namespace scatter {
namespace {

FileIdentity identity_of(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return identity_of(st);
}

std::string read_file_text(const std::string& path, std::uint64_t max_bytes, FileIdentity* identity) {
  // read(2), not a stream: a stream turns a failed read (EISDIR, EIO) into a short text, or
  // into an exception that libstdc++'s filebuf throws whatever the exception mask.
  const auto fail = [&] { return Error(ErrorCode::io, "", fmt::format("cannot read '{}': {}", path, std::strerror(errno))); };
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; it is refused below instead.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw fail();
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const auto error = fail();
    ::close(fd);
    throw error;
  }
  const auto refuse = [&](ErrorCode code, std::string why) {
    ::close(fd);
    return Error(code, "", std::move(why));
  };
  if (S_ISDIR(st.st_mode)) throw refuse(ErrorCode::io, fmt::format("cannot read '{}': Is a directory", path));
  if (!S_ISREG(st.st_mode)) {
    throw refuse(ErrorCode::io, fmt::format("'{}' is not a regular file ({}): refused, since reading it could wait or "
                                            "go on for ever",
                                            path, S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                                                                       : S_ISSOCK(st.st_mode) ? "a socket" : "a device"));
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw refuse(ErrorCode::too_large, fmt::format("'{}' is {} bytes, more than the {} a report or journal may be", path,
                                                   st.st_size, max_bytes));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (identity) *identity = identity_of(st);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<std::size_t>(got));
      // A file that grows while it is read is held to the same limit.
      if (text.size() > max_bytes) {
        throw refuse(ErrorCode::too_large, fmt::format("'{}' grew past the {} bytes a report or journal may be", path,
                                                       max_bytes));
      }
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

// Reports and failure cases are written whole or not at all: a temporary file beside the target,
// then a rename, so a crashed or interrupted run never leaves a half-written report that a CI
// system could read as a pass.
namespace {

// The inputs' identities (device, inode): protect_inputs.
struct ProtectedInputs {
  std::mutex mutex;
  std::set<std::pair<std::uint64_t, std::uint64_t>> files;
};
ProtectedInputs& protected_inputs() {
  static ProtectedInputs inputs;
  return inputs;
}

}  // namespace

void protect_inputs(const std::vector<std::string>& paths) {
  auto& p = protected_inputs();
  const std::lock_guard lock(p.mutex);
  for (const auto& path : paths) {
    if (const auto id = identity_of(path)) p.files.emplace(id->device, id->inode);
  }
}

std::string unwritable_reason(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? "" : std::strerror(errno);
  {
    auto& p = protected_inputs();
    const std::lock_guard lock(p.mutex);
    if (p.files.count({static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}) != 0) {
      return "it is an input of this command (it would be written over)";
    }
  }
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link (scatterctl never writes through one)";
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "it is a device (\"-\" writes to stdout)";
  if (S_ISFIFO(st.st_mode)) return "it is a FIFO (\"-\" writes to stdout)";
  if (S_ISSOCK(st.st_mode)) return "it is a socket";
  return "";
}

void write_file_atomically(const std::string& path, const std::function<bool(int fd)>& fill) {
  if (path == "-") {
    if (!fill(STDOUT_FILENO)) throw Error(ErrorCode::io, "", fmt::format("cannot write to stdout: {}", std::strerror(errno)));
    return;
  }
  // Only a file may be replaced: a rename over a device, a FIFO or a link would replace the
  // node itself (as root, --json /dev/null would replace the system's).
  if (const auto why = unwritable_reason(path); !why.empty()) {
    throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, why));
  }
  // The temporary file is made afresh with a name nobody can have planted (mkstemp: O_EXCL), so
  // that a link left at a guessable PATH.tmp.PID is never written through.
  std::string tmp = fmt::format("{}.tmp.{}.XXXXXX", path, getpid());
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  ::fchmod(fd, 0644);
  const bool written = fill(fd);
  const int err = errno;
  if (::close(fd) != 0 || !written) {
    const auto why = std::strerror(written ? errno : err);
    std::remove(tmp.c_str());
    throw Error(ErrorCode::io, "", fmt::format("cannot write '{}': {}", path, why));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error(ErrorCode::io, "", fmt::format("cannot replace '{}': {}", path, why));
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&content](int fd) { return write_all(fd, content.data(), content.size()); });
}

bool write_all(int fd, const void* bytes, std::size_t size) {
  const auto* at = static_cast<const char*>(bytes);
  while (size > 0) {
    const auto n = ::write(fd, at, std::min<std::size_t>(size, std::size_t{1} << 30));  // one write is at most 2 GiB
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string safe_file_name(std::string_view text) {
  std::string name;
  for (const unsigned char ch : text.substr(0, 200)) {
    name += std::isalnum(ch) || std::strchr("._@+=,-", ch) != nullptr ? static_cast<char>(ch) : '_';
  }
  if (name.empty() || name[0] == '.') name = "_" + name;  // never ".", "..", or a hidden file
  // '~' is no character of a name left as it is: a changed name can never equal one unchanged.
  if (name != text) name += fmt::format("~{:08x}", detail::fnv1a(text) & 0xffffffffu);
  return name;
}

std::string case_folder(const std::string& parent, std::string_view name) {
  const auto folder = (std::filesystem::path(parent) / safe_file_name(name)).string();
  if (::mkdir(folder.c_str(), 0755) == 0) return folder;
  const int err = errno;
  struct stat st {};
  if (err == EEXIST && ::lstat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return folder;
  const auto why = err != EEXIST ? std::string(std::strerror(err))
                   : S_ISLNK(st.st_mode) ? std::string("it is a symbolic link (scatterctl never writes through one)")
                                         : std::string("something other than a folder is in its place");
  throw Error(ErrorCode::io, "", fmt::format("cannot make the folder '{}': {}", folder, why));
}

}  // namespace scatter

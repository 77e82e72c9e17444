#pragma once
/// Files that scatterctl reads but did not make: bounded, regular, and known by identity, so
/// that nothing is read for ever, and nothing removed or overwritten that was not the file read.

#include <cstdint>
#include <optional>
#include <string>

namespace scatter {

/// The largest report, journal or expectations file read (1 GiB): a run of a million results
/// writes a few hundred MB; past this, a file is not one of them.
inline constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{1} << 30;

/// Which file a path named when it was read (st_dev, st_ino): compared with the file found
/// there later, so that nothing is removed or overwritten that was not the file read.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = 0;            ///< and its contents as they were: rewritten in place, it differs
  std::int64_t modified_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};
/// The identity of the file at `path` now; nullopt when there is none.
std::optional<FileIdentity> identity_of(const std::string& path);

/// The whole of a regular file of at most `max_bytes`, and its identity in `identity` when
/// given. Throws Error(io) naming it when it cannot be opened or read (a directory), is not a
/// regular file (a FIFO, which could block for ever, or a device such as /dev/zero, which never
/// ends: refused at once), or is larger (Error(too_large)).
std::string read_file_text(const std::string& path, std::uint64_t max_bytes = kMaxInputFileBytes,
                           FileIdentity* identity = nullptr);

/// Writes `content` to `path` through a temporary file and a rename, so a reader never
/// sees a half-written file (a crash leaves the old file or none). Throws Error(io).
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace scatter

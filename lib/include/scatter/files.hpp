#pragma once
/// Files that scatterctl reads but did not make: bounded, regular, and known by identity, so
/// that nothing is read for ever, and nothing removed or overwritten that was not the file read.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

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

/// The one way out (docs/reliability.md, "One door out"): every file scatterctl writes for a user
/// goes through here. `content` to `path` through a fresh temporary file beside it and a rename, so
/// that a reader never sees a half-written file (a crash leaves the old file or none). Only an
/// absent path or a regular file is replaced: a link (never followed), a directory, a device, a
/// FIFO or a socket is refused, Error(io) naming why; "-" writes to stdout.
void write_file_atomically(const std::string& path, const std::string& content);
/// The same for bytes written by `fill(fd)` (false, with errno set, when it could not).
void write_file_atomically(const std::string& path, const std::function<bool(int fd)>& fill);
/// Why `path` cannot be written by write_file_atomically ("it is a FIFO ..."); "" when it can.
std::string unwritable_reason(const std::string& path);
/// The files this command reads (case files, the tensor files they name, expectations, kernels):
/// from now on write_file_atomically refuses to replace any of them, whatever path names it
/// (the one door out's guard at the moment of writing, as Outputs::check is before any work).
void protect_inputs(const std::vector<std::string>& paths);
/// Writes all of `bytes`; false (errno set) when it cannot.
bool write_all(int fd, const void* bytes, std::size_t size);
/// `text` as one file or folder name inside an output folder: never empty, ".", ".." or hidden,
/// no '/', bytes outside [A-Za-z0-9._@+=,-] as '_', at most 200 of them (a case named "..", or a
/// backend "plugin:/abs/x.so", cannot climb out of the folder or nest in it). A name changed on
/// the way ends in "~" (a character no unchanged name has) and 8 hex digits of `text`'s hash:
/// two texts never share a name ("a/b" and "a_b", or two names cut at 200 bytes, would).
std::string safe_file_name(std::string_view text);
/// The folder of one case's files inside an output folder (dump, --save-failures):
/// `parent`/safe_file_name(name), made if absent. Refused (Error io) where a link, a file or
/// another node holds its place: a folder link would take the writes out of `parent`.
std::string case_folder(const std::string& parent, std::string_view name);

}  // namespace scatter

#include "outputs.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "scatter/error.hpp"
#include "scatter/files.hpp"

namespace scatter::cli {
namespace {

namespace fs = std::filesystem;

// One file or folder, by path or (where both exist) by identity: a link or a "./x" is no other.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal()) return true;
  const auto x = identity_of(a), y = identity_of(b);
  return x && y && *x == *y;
}

// A probe file of a name nobody can have planted (mkstemp: O_EXCL), never a link followed.
bool can_write_into(const fs::path& folder) {
  auto probe = ((folder.empty() ? fs::path(".") : folder) / ".scatterctl-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return false;
  ::close(fd);
  std::error_code ec;
  fs::remove(probe, ec);
  return true;
}

void make_folder(const std::string& flag, const std::string& path, const fs::path& folder) {
  std::error_code ec;
  if (!folder.empty()) fs::create_directories(folder, ec);
  if (ec || (!folder.empty() && !fs::is_directory(folder, ec))) {
    throw Error(ErrorCode::io, flag,
                fmt::format("= '{}': cannot make the folder '{}': {}", path, folder.string(),
                            ec ? ec.message() : "a file of that name is in the way"));
  }
  if (!can_write_into(folder)) {
    throw Error(ErrorCode::io, flag, fmt::format("= '{}': the folder '{}' cannot be written", path, folder.string()));
  }
}

}  // namespace

Outputs& Outputs::reads(const std::vector<std::string>& paths) {
  inputs_.insert(inputs_.end(), paths.begin(), paths.end());
  return *this;
}

Outputs& Outputs::reads(const std::string& path) {
  if (!path.empty()) inputs_.push_back(path);
  return *this;
}

Outputs& Outputs::reads(const BackendFlags& flags) {
  reads(flags.python);
  return reads(files_of_backends(flags.backend));
}

Outputs& Outputs::reads(const ExpectationFlags& flags) {
  return reads(flags.none ? std::string() : flags.path.empty() ? std::string(SCATTER_BUNDLED_EXPECTATIONS) : flags.path);
}

Outputs& Outputs::file(const std::string& flag, const std::string& path) {
  if (!path.empty()) files_.emplace_back(flag, path);
  return *this;
}

Outputs& Outputs::folder(const std::string& flag, const std::string& path) {
  if (!path.empty()) folders_.emplace_back(flag, path);
  return *this;
}

void Outputs::check() const {
  const auto refuse_inputs = [&](const std::string& flag, const std::string& path) {
    for (const auto& input : inputs_) {
      if (same_file(path, input)) {
        throw Error(ErrorCode::schema, flag,
                    fmt::format("= '{}' is also an input of this command: refused, it would be written over", path));
      }
    }
  };
  std::vector<std::pair<std::string, std::string>> taken;  // the outputs checked so far
  const auto refuse_taken = [&](const std::string& flag, const std::string& path) {
    for (const auto& [other_flag, other] : taken) {
      if (same_file(path, other)) {
        throw Error(ErrorCode::schema, flag,
                    fmt::format("= '{}' is {}'s path too: refused, one output would be written over the other", path,
                                other_flag));
      }
    }
    taken.emplace_back(flag, path);
  };
  for (const auto& [flag, path] : folders_) {
    refuse_inputs(flag, path);
    refuse_taken(flag, path);
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
      throw Error(ErrorCode::io, flag, fmt::format("= '{}' is not a folder", path));
    }
    make_folder(flag, path, path);
  }
  for (const auto& [flag, path] : files_) {
    if (path == "-") continue;  // stdout: nothing on disk to clash with
    refuse_inputs(flag, path);
    refuse_taken(flag, path);
    if (const auto why = unwritable_reason(path); !why.empty()) {
      throw Error(ErrorCode::io, flag, fmt::format("= '{}': {}", path, why));
    }
    make_folder(flag, path, fs::path(path).parent_path());
  }
}

}  // namespace scatter::cli

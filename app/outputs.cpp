#include "outputs.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "scatter/error.hpp"
#include "scatter/files.hpp"
#include "scatter/load.hpp"

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

// Every input, a folder's JSON files beneath it included (what the loaders read of a folder of
// cases or expectations): a report written over one of those is written over an input as much
// as one over the folder's name. Bounded: a folder of more files than this is left at its name.
std::vector<std::string> with_folder_contents(const std::vector<std::string>& inputs) {
  constexpr std::size_t kMaxFilesInFolder = 100000;
  std::vector<std::string> all = inputs;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) continue;
    std::size_t seen = 0;
    for (fs::recursive_directory_iterator it(input, ec), end; !ec && it != end && seen < kMaxFilesInFolder;
         it.increment(ec), ++seen) {
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) all.push_back(it->path().string());
    }
  }
  return all;
}

}  // namespace

Outputs& Outputs::reads_cases(const std::vector<std::string>& paths) {
  reads(paths);
  LoadOptions options;
  options.max_bytes = default_max_bytes();
  const auto loaded = load_paths(paths, options);  // a file it cannot read names nothing; the command says why
  for (const auto& entry : loaded.cases) {
    if (!entry.decl) continue;
    const auto& d = *entry.decl;
    for (const auto* t : {&d.data, &d.indices, &d.updates, d.expected ? &*d.expected : nullptr}) {
      if (const auto* file = t ? std::get_if<std::string>(&t->source) : nullptr) inputs_.push_back(*file);
    }
  }
  return *this;
}

Outputs& Outputs::reads(const std::vector<std::string>& paths) {
  inputs_.insert(inputs_.end(), paths.begin(), paths.end());
  return *this;
}

Outputs& Outputs::reads(const std::string& path) {
  if (!path.empty()) inputs_.push_back(path);
  return *this;
}

Outputs& Outputs::reads(const BackendFlags& flags) {
  reads(python_interpreter(flags.python));  // python3 on PATH names no file here: never clashes
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
  const auto inputs = with_folder_contents(inputs_);
  protect_inputs(inputs);
  const auto refuse_inputs = [&](const std::string& flag, const std::string& path) {
    for (const auto& input : inputs) {
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

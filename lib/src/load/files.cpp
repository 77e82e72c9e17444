// Paths -> case files -> LoadResult: directory walks, file size limits, and the
// checks a text needs before the JSON parser sees it.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "json_fields.hpp"

namespace scatter {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Parsed JSON takes far more memory than its text: every value is a 16-byte node, and
// each array, object or string a heap block of its own ("[[],[],..." takes about 20
// bytes per 3 bytes of text). A file whose parse could pass --max-bytes is refused
// unread; files up to 64 MiB are always read, so that a small --max-bytes still judges
// the cases in them.
constexpr std::uint64_t kParseBytesPerTextByte = 32;
constexpr std::uint64_t kAlwaysReadBytes = 64ULL << 20;

void load_file(const std::string& file, const LoadOptions& options, LoadResult& out) {
  std::error_code size_ec;
  const auto size = fs::file_size(file, size_ec);  // fails for a FIFO: read it, as <(...) must be
  if (!size_ec && size > kAlwaysReadBytes && size > options.max_bytes / kParseBytesPerTextByte) {
    out.file_errors.push_back(
        Error(ErrorCode::too_large, "",
              fmt::format("the file has {}; parsing it may need {} times that, more than --max-bytes = {}",
                          binary_bytes(size), kParseBytesPerTextByte, binary_bytes(options.max_bytes)))
            .at(file, ""));
    return;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    out.file_errors.push_back(Error(ErrorCode::io, "", fmt::format("cannot read: {}", std::strerror(errno))).at(file, ""));
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    out.file_errors.push_back(Error(ErrorCode::io, "", "read error").at(file, ""));
    return;
  }
  auto loaded = load_text(text.str(), file, options);
  for (auto& e : loaded.file_errors) out.file_errors.push_back(std::move(e));
  for (auto& c : loaded.cases) out.cases.push_back(std::move(c));
}

// Every *.json below `root` into `files`. A directory that cannot be listed (no
// permission) is an io error of its own, never a silent gap, and the walk goes on.
// Symlinked directories are not followed, so a link loop cannot trap the walk.
template <class OnError>
void walk(const std::string& root, std::vector<std::string>& files, OnError&& io_error) {
  std::vector<fs::path> pending{root};
  while (!pending.empty()) {
    const auto dir = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    std::vector<fs::path> subdirs;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) subdirs.push_back(it->path());
      if (it->path().extension() == ".json") files.push_back(it->path().string());
    }
    if (ec) io_error(dir.string(), fmt::format("cannot list: {}", ec.message()));
    std::sort(subdirs.rbegin(), subdirs.rend());  // popped in sorted order: errors come out stable
    for (auto& d : subdirs) pending.push_back(std::move(d));
  }
}

}  // namespace

std::uint64_t default_max_bytes() {
  const auto pages = sysconf(_SC_PHYS_PAGES);
  const auto page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 4ULL << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2;
}

LoadResult load_text(const std::string& text, const std::string& file, const LoadOptions& options) {
  LoadResult out;
  // Refused before the parser builds anything: a value 100,000 levels deep would make every later
  // step (an error's printing, the value's destruction) recurse as deep.
  if (const auto where = detail::too_deep(text, detail::kCaseFileDepth)) {
    out.file_errors.push_back(Error(ErrorCode::json, "", *where).at(file, ""));
    return out;
  }
  json doc;
  // JSON leaves duplicate keys undefined and nlohmann keeps the last one silently: a case
  // would run with half of what its author wrote. Each open object's keys, to refuse them.
  std::vector<std::set<std::string>> open_objects;
  std::optional<std::string> duplicate;
  const json::parser_callback_t refuse_duplicates = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == json::parse_event_t::object_end) open_objects.pop_back();
    if (event == json::parse_event_t::key && !open_objects.back().insert(parsed.get<std::string>()).second &&
        !duplicate) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    doc = json::parse(text, refuse_duplicates);
  } catch (const json::exception& e) {  // parse errors, and numbers beyond double (1e400)
    std::string what = e.what();
    if (const auto pos = what.find("] "); what.rfind("[json.exception", 0) == 0 && pos != std::string::npos) {
      what = what.substr(pos + 2);
    }
    if (what.size() > 240) what = what.substr(0, 240) + "... (cut)";  // it may quote a 100,000-digit number
    out.file_errors.push_back(Error(ErrorCode::json, "", what).at(file, ""));
    return out;
  }
  if (duplicate) {
    out.file_errors.push_back(
        Error(ErrorCode::json, "", fmt::format("the key '{}' appears twice in one object; JSON leaves which one counts "
                                               "undefined, so neither is taken",
                                               printable_text(*duplicate)))
            .at(file, ""));
    return out;
  }
  detail::load_json(doc, file, options, out);
  return out;
}

LoadResult load_paths(const std::vector<std::string>& paths, const LoadOptions& options) {
  LoadResult out;
  auto io_error = [&out](const std::string& path, std::string why) {
    out.file_errors.push_back(Error(ErrorCode::io, "", std::move(why)).at(path, ""));
  };
  for (const auto& path : paths) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      io_error(path, ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file or directory");
      continue;
    }
    if (!fs::is_directory(status)) {
      load_file(path, options, out);
      continue;
    }
    if (fs::path(path).extension() == ".json") {
      io_error(path, "is a directory, not a case file");
      continue;
    }
    std::vector<std::string> files;
    walk(path, files, io_error);
    std::sort(files.begin(), files.end());
    // What a walk finds must be a regular file: a directory named x.json is a mistake,
    // a link loop cannot be opened, and a FIFO or a link to /dev/zero would never end.
    for (const auto& f : files) {
      const auto st = fs::status(f, ec);
      if (ec) {
        io_error(f, fmt::format("cannot read: {}", ec.message()));
      } else if (fs::is_directory(st)) {
        io_error(f, "is a directory, not a case file");
      } else if (!fs::is_regular_file(st)) {
        io_error(f, "is not a regular file (a FIFO, socket or device), not a case file");
      } else {
        load_file(f, options, out);
      }
    }
  }
  // Names are unique within one run: the second of a pair is a schema error.
  std::set<std::string> seen;
  for (auto& entry : out.cases) {
    if (entry.name.empty()) continue;
    if (!seen.insert(entry.name).second && !entry.error) {
      entry.error = Error(ErrorCode::schema, "name", fmt::format("= \"{}\" is used by an earlier case in this run", entry.name))
                        .at(entry.file, entry.name);
      entry.decl.reset();
    }
  }
  return out;
}

}  // namespace scatter

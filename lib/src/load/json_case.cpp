// Case files: JSON -> CaseEntry. Strict keys (a typo never silently changes a test),
// every field typed, then the semantic rules and the size limit before any tensor
// is materialized.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <cstring>
#include <unistd.h>

#include <fmt/format.h>

#include "detail.hpp"

namespace scatter {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const auto up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Unknown keys are errors; a near miss gets a suggestion.
void check_keys(const json& obj, std::initializer_list<std::string_view> allowed, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint;
    for (auto a : allowed) {  // a length apart by more than 2 is no near miss (and a 50 MB key costs nothing)
      if (key.size() <= a.size() + 2 && edit_distance(key, a) <= 2) hint = fmt::format(" (did you mean '{}'?)", a);
    }
    const auto shown = key.size() > 60 ? fmt::format("{}... ({} characters)", key.substr(0, 60), key.size()) : key;
    throw Error(ErrorCode::schema, where,
                fmt::format("unknown key '{}'{}; allowed: {}", shown, hint, fmt::join(allowed, ", ")));
  }
}

std::string join_field(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

const json& require(const json& obj, std::string_view key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw Error(ErrorCode::schema, where, fmt::format("missing key '{}'", key));
  return *it;
}

std::string get_string(const json& v, const std::string& field) {
  if (!v.is_string()) throw Error(ErrorCode::schema, field, fmt::format("must be a string, got {}", v.type_name()));
  return v.get<std::string>();
}

std::int64_t get_int(const json& v, const std::string& field) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX)) {
    throw Error(ErrorCode::schema, field, fmt::format("must be an integer, got {}", detail::excerpt(v)));
  }
  return v.get<std::int64_t>();
}

bool get_bool(const json& v, const std::string& field) {
  if (!v.is_boolean()) throw Error(ErrorCode::schema, field, fmt::format("must be true or false, got {}", detail::excerpt(v)));
  return v.get<bool>();
}

double get_number(const json& v, const std::string& field) {
  if (!v.is_number()) throw Error(ErrorCode::schema, field, fmt::format("must be a number, got {}", detail::excerpt(v)));
  return v.get<double>();
}

void check_format(const json& obj, const std::string& where) {
  if (const auto it = obj.find("format"); it != obj.end() && (!it->is_number_integer() || *it != 1)) {
    throw Error(ErrorCode::schema, join_field(where, "format"), fmt::format("= {}; only format 1 exists", detail::excerpt(*it)));
  }
}

Shape parse_shape(const json& v, const std::string& field) {
  if (!v.is_array()) throw Error(ErrorCode::schema, field, fmt::format("must be an array of integers, got {}", v.type_name()));
  if (v.size() > kMaxRank) {
    throw Error(ErrorCode::shape, field, fmt::format("has rank {}; the most supported is {}", v.size(), kMaxRank));
  }
  Shape shape;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto d = get_int(v[i], fmt::format("{}[{}]", field, i));
    if (d < 0) throw Error(ErrorCode::shape, fmt::format("{}[{}]", field, i), fmt::format("= {} is negative", d));
    shape.push_back(d);
  }
  return shape;
}

std::uint64_t parse_seed(const json& v, const std::string& field) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
    throw Error(ErrorCode::schema, field, fmt::format("must be an integer in [0, 2^64), got {}", detail::excerpt(v)));
  }
  return v.get<std::uint64_t>();
}

Generator parse_generator(const json& g, const std::string& field, bool for_indices) {
  if (!g.is_object()) throw Error(ErrorCode::schema, field, fmt::format("must be an object, got {}", g.type_name()));
  const auto kind = get_string(require(g, "kind", field), field + ".kind");
  Generator gen;
  auto scalar = [&](std::string_view key) {
    return detail::parse_scalar(g.at(std::string(key)), join_field(field, key));
  };
  if (kind == "arange") {
    check_keys(g, {"kind", "start", "step"}, field);
    gen.kind = Generator::Kind::arange;
    if (g.contains("start")) gen.start = scalar("start");
    if (g.contains("step")) gen.step = scalar("step");
  } else if (kind == "fill") {
    check_keys(g, {"kind", "value"}, field);
    gen.kind = Generator::Kind::fill;
    require(g, "value", field);
    gen.value = scalar("value");
  } else if (kind == "uniform" || kind == "randint") {
    check_keys(g, {"kind", "low", "high", "seed"}, field);
    gen.kind = kind == "uniform" ? Generator::Kind::uniform : Generator::Kind::randint;
    require(g, "low", field);
    require(g, "high", field);
    gen.low = scalar("low");
    gen.high = scalar("high");
    if (g.contains("seed")) gen.seed = parse_seed(g["seed"], field + ".seed");
  } else if (kind == "indices") {
    if (!for_indices) throw Error(ErrorCode::schema, field + ".kind", "'indices' generates inputs.indices only");
    check_keys(g, {"kind", "unique", "negative", "seed"}, field);
    gen.kind = Generator::Kind::indices;
    if (g.contains("unique")) gen.unique = get_bool(g["unique"], field + ".unique");
    if (g.contains("negative")) {
      gen.negative = get_number(g["negative"], field + ".negative");
      if (!(gen.negative >= 0.0 && gen.negative <= 1.0)) {
        throw Error(ErrorCode::schema, field + ".negative", fmt::format("= {} is not a probability in [0, 1]", gen.negative));
      }
    }
    if (g.contains("seed")) gen.seed = parse_seed(g["seed"], field + ".seed");
  } else {
    throw Error(ErrorCode::schema, field + ".kind",
                fmt::format("= '{}' is not a generator (arange, fill, uniform, randint, indices)", kind));
  }
  return gen;
}

// A tensor's declaration; `values` are parsed later, after the size check.
struct PendingTensor {
  TensorDecl decl;
  const json* values = nullptr;
};

PendingTensor parse_tensor(const json& t, const std::string& field, const fs::path& dir, bool for_indices) {
  if (!t.is_object()) throw Error(ErrorCode::schema, field, fmt::format("must be an object, got {}", t.type_name()));
  check_keys(t, {"dtype", "shape", "values", "generate", "file"}, field);
  PendingTensor p;
  const auto dtype_name = get_string(require(t, "dtype", field), field + ".dtype");
  const auto dtype = parse_dtype(dtype_name);
  if (!dtype) {
    throw Error(ErrorCode::dtype, field + ".dtype",
                fmt::format("= '{}' is not a dtype (float64, float32, float16, bfloat16, int64, int32, int16, int8, "
                            "uint8, bool)",
                            dtype_name));
  }
  p.decl.dtype = *dtype;
  p.decl.shape = parse_shape(require(t, "shape", field), field + ".shape");
  const int sources = int(t.contains("values")) + int(t.contains("generate")) + int(t.contains("file"));
  if (sources != 1) {
    throw Error(ErrorCode::schema, field,
                fmt::format("needs exactly one of 'values', 'generate', 'file' (has {})", sources));
  }
  const auto n = checked_numel(p.decl.shape);
  std::uint64_t bytes = 0;
  if (n < 0 || __builtin_mul_overflow(static_cast<std::uint64_t>(n), size_of(p.decl.dtype), &bytes) ||
      bytes > static_cast<std::uint64_t>(INT64_MAX)) {
    throw Error(ErrorCode::too_large, field + ".shape",
                fmt::format("= {} of {} has more bytes than any memory holds", format_shape(p.decl.shape), dtype_name));
  }
  if (t.contains("values")) {
    p.values = &t["values"];
  } else if (t.contains("generate")) {
    p.decl.source = parse_generator(t["generate"], field + ".generate", for_indices);
  } else {
    const auto path = fs::path(get_string(t["file"], field + ".file"));
    p.decl.source = (path.is_absolute() ? path : dir / path).lexically_normal().string();
  }
  return p;
}

std::string human_bytes(std::uint64_t b) {
  if (b >= (1ULL << 30)) return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1ULL << 30));
  if (b >= (1ULL << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1ULL << 20));
  return fmt::format("{} bytes", b);
}

void parse_case(const json& c, CaseEntry& entry, const fs::path& dir, const LoadOptions& options) {
  check_keys(c, {"format", "name", "description", "source", "tags", "op", "axis", "reduction", "use_init_val", "inputs",
                 "expected", "expect_error", "tolerance"},
             "");
  check_format(c, "");
  CaseDecl d;
  d.file = entry.file;
  d.name = entry.name;
  d.tags = entry.tags;
  if (c.contains("description")) d.description = get_string(c["description"], "description");
  if (c.contains("source")) d.source = get_string(c["source"], "source");
  const auto op_name = get_string(require(c, "op", ""), "op");
  const auto op = parse_op(op_name);
  if (!op) {
    throw Error(ErrorCode::op, "op",
                fmt::format("= '{}' is not an op (scatter_elements, scatter_nd, scatter_update or an alias)", op_name));
  }
  d.attrs.op = *op;
  if (c.contains("reduction")) {
    const auto name = get_string(c["reduction"], "reduction");
    const auto r = parse_reduction(name);
    if (!r) {
      throw Error(ErrorCode::op, "reduction",
                  fmt::format("= '{}' is not a reduction (none, add, sub, mul, min, max, mean or an alias)", name));
    }
    d.attrs.reduction = *r;
  }
  if (c.contains("axis")) d.attrs.axis = get_int(c["axis"], "axis");
  if (c.contains("use_init_val")) {
    d.attrs.use_init_val = get_bool(c["use_init_val"], "use_init_val");
    if (d.attrs.op != Op::scatter_elements) {
      throw Error(ErrorCode::schema, "use_init_val", fmt::format("applies to scatter_elements only, not {}", to_string(d.attrs.op)));
    }
  }
  if (c.contains("tolerance")) {
    const auto& t = c["tolerance"];
    if (!t.is_object()) throw Error(ErrorCode::schema, "tolerance", "must be an object {\"atol\": x, \"rtol\": y}");
    check_keys(t, {"atol", "rtol"}, "tolerance");
    Tolerance tol;
    if (t.contains("atol")) tol.atol = get_number(t["atol"], "tolerance.atol");
    if (t.contains("rtol")) tol.rtol = get_number(t["rtol"], "tolerance.rtol");
    if (!(tol.atol >= 0) || !(tol.rtol >= 0)) throw Error(ErrorCode::schema, "tolerance", "atol and rtol must be >= 0");
    d.tolerance = tol;
  }
  if (c.contains("expected") && c.contains("expect_error")) {
    throw Error(ErrorCode::schema, "expected", "a case has either 'expected' or 'expect_error', not both");
  }
  const auto& inputs = require(c, "inputs", "");
  if (!inputs.is_object()) throw Error(ErrorCode::schema, "inputs", fmt::format("must be an object, got {}", inputs.type_name()));
  check_keys(inputs, {"data", "indices", "updates"}, "inputs");
  auto data = parse_tensor(require(inputs, "data", "inputs"), "inputs.data", dir, false);
  auto indices = parse_tensor(require(inputs, "indices", "inputs"), "inputs.indices", dir, true);
  auto updates = parse_tensor(require(inputs, "updates", "inputs"), "inputs.updates", dir, false);
  std::optional<PendingTensor> expected;
  if (c.contains("expected")) expected = parse_tensor(c["expected"], "expected", dir, false);
  d.data = data.decl;
  d.indices = indices.decl;
  d.updates = updates.decl;
  if (expected) d.expected = expected->decl;

  detail::validate_decl(d, c.contains("axis"));

  const auto need = case_bytes(d);
  if (need > options.max_bytes) {
    const auto* gen = std::get_if<Generator>(&d.indices.source);
    const auto scratch = gen ? detail::indices_scratch_bytes(*gen, numel(d.indices.shape)) : 0;
    throw Error(ErrorCode::too_large, "",
                fmt::format("the case needs {} of host memory (inputs, expected and outputs{}) but --max-bytes is {}",
                            human_bytes(need), scratch ? fmt::format(", plus {} to generate indices", human_bytes(scratch)) : "",
                            human_bytes(options.max_bytes)));
  }
  auto literal = [](PendingTensor& p, TensorDecl& decl, const std::string& field) {
    if (!p.values) return;
    try {
      decl.source = detail::parse_values(*p.values, decl.dtype, decl.shape);
    } catch (Error& e) {
      e.within(field);
      throw;
    }
  };
  literal(data, d.data, "inputs.data");
  literal(indices, d.indices, "inputs.indices");
  literal(updates, d.updates, "inputs.updates");
  if (expected) literal(*expected, *d.expected, "expected");
  entry.decl = std::move(d);
}

// Name, tags and expect_error are read first and leniently, so that an invalid case
// can still be selected and its expected rejection recognized.
CaseEntry parse_entry(const json& c, const std::string& file, std::size_t index, bool in_list, const fs::path& dir,
                      const LoadOptions& options) {
  CaseEntry entry;
  entry.file = file;
  const auto label = in_list ? fmt::format("cases[{}]", index) : std::string("case");
  try {
    if (!c.is_object()) throw Error(ErrorCode::schema, "", fmt::format("a case must be a JSON object, got {}", c.type_name()));
    if (const auto it = c.find("expect_error"); it != c.end()) {
      ErrorCode code;
      if (!it->is_string() || !parse_error_code(it->get<std::string>(), code)) {
        throw Error(ErrorCode::schema, "expect_error", fmt::format("= {} is not an error code", detail::excerpt(*it)));
      }
      entry.expect_error = code;
    }
    if (const auto it = c.find("tags"); it != c.end()) {
      if (!it->is_array()) throw Error(ErrorCode::schema, "tags", "must be an array of strings");
      for (std::size_t i = 0; i < it->size(); ++i) entry.tags.push_back(get_string((*it)[i], fmt::format("tags[{}]", i)));
    }
    const auto name = get_string(require(c, "name", ""), "name");
    // Not std::regex: its matcher recurses once per character, and a long name overflowed the stack.
    const auto name_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-'; };
    if (name.empty() || !std::all_of(name.begin(), name.end(), name_char)) {
      throw Error(ErrorCode::schema, "name", fmt::format("= {} must match [A-Za-z0-9_.-]+", detail::excerpt(require(c, "name", ""))));
    }
    entry.name = name;
    parse_case(c, entry, dir, options);
  } catch (Error& e) {
    e.at(file, entry.name.empty() ? label : entry.name);
    entry.error = e;
  } catch (const json::exception& e) {  // a type this loader failed to check first
    entry.error = Error(ErrorCode::schema, "", e.what()).at(file, entry.name.empty() ? label : entry.name);
  }
  // A case without a usable name gets a stable one from its file and position, so that
  // --filter, --tag and --shard treat it like any other case.
  if (entry.name.empty()) {
    const auto stem = fs::path(file).stem().string();
    entry.name = in_list ? fmt::format("{}.cases[{}]", stem, index) : stem;
  }
  return entry;
}

void load_json(const json& doc, const std::string& file, const LoadOptions& options, LoadResult& out) {
  const auto dir = fs::path(file).parent_path();
  try {
    if (!doc.is_object()) {
      throw Error(ErrorCode::schema, "", fmt::format("the top level must be a case object or {{\"cases\": [...]}}, got {}",
                                                     doc.type_name()));
    }
    if (!doc.contains("cases")) {
      out.cases.push_back(parse_entry(doc, file, 0, false, dir, options));
      return;
    }
    check_keys(doc, {"format", "cases"}, "");
    check_format(doc, "");
    const auto& cases = doc["cases"];
    if (!cases.is_array()) throw Error(ErrorCode::schema, "cases", fmt::format("must be an array, got {}", cases.type_name()));
    for (std::size_t i = 0; i < cases.size(); ++i) out.cases.push_back(parse_entry(cases[i], file, i, true, dir, options));
  } catch (Error& e) {
    e.at(file, "");
    out.file_errors.push_back(e);
  }
}

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
                          human_bytes(size), kParseBytesPerTextByte, human_bytes(options.max_bytes)))
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

// The parser takes any depth, but printing a value in an error message recurses once
// per level: a hostile file (100000 nested arrays) must be refused before that.
// Case files need about 70 levels (rank 64 values inside a case list).
std::optional<std::string> too_deep(const std::string& text) {
  constexpr int kMaxDepth = 256;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  std::size_t line = 1;
  std::size_t column = 0;
  for (const char ch : text) {
    ++column;
    if (ch == '\n') {
      ++line;
      column = 0;
    }
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxDepth) {
        return fmt::format("nesting deeper than {} levels at line {}, column {}", kMaxDepth, line, column);
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return std::nullopt;
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
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse errors, and numbers beyond double (1e400)
    std::string what = e.what();
    if (const auto pos = what.find("] "); what.rfind("[json.exception", 0) == 0 && pos != std::string::npos) {
      what = what.substr(pos + 2);
    }
    out.file_errors.push_back(Error(ErrorCode::json, "", what).at(file, ""));
    return out;
  }
  if (const auto where = too_deep(text)) {
    out.file_errors.push_back(Error(ErrorCode::json, "", *where).at(file, ""));
    return out;
  }
  load_json(doc, file, options, out);
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

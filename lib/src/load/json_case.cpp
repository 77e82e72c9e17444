// Case files: JSON -> CaseEntry. Strict keys (a typo never silently changes a test),
// every field typed (json_fields.hpp), then the semantic rules and the size limit
// before any tensor is materialized. Files and directories are files.cpp's.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "json_fields.hpp"

namespace scatter {
namespace detail {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// "a, b, c": every value of a vocabulary (kOps, kReductions, kDTypes), for the messages that list them.
template <class Value, std::size_t N>
std::string names_of(const Value (&values)[N]) {
  std::vector<std::string_view> names;
  for (const auto v : values) names.push_back(to_string(v));
  return fmt::format("{}", fmt::join(names, ", "));
}

Generator parse_generator(const json& g, const std::string& field, bool for_indices) {
  if (!g.is_object()) throw Error(ErrorCode::schema, field, fmt::format("must be an object, got {}", g.type_name()));
  const auto kind = get_string(require(g, "kind", field), field + ".kind");
  Generator gen;
  auto scalar = [&](std::string_view key) {
    return parse_scalar(g.at(std::string(key)), join_field(field, key));
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
    check_keys(g, {"kind", "unique", "negative", "seed", "distribution", "alpha", "broadcast"}, field);
    gen.kind = Generator::Kind::indices;
    if (g.contains("unique")) gen.unique = get_bool(g["unique"], field + ".unique");
    if (g.contains("broadcast")) gen.broadcast = get_bool(g["broadcast"], field + ".broadcast");
    if (g.contains("distribution")) {
      const auto name = get_string(g["distribution"], field + ".distribution");
      if (name == "zipf") {
        gen.distribution = Generator::Distribution::zipf;
      } else if (name == "balanced") {
        gen.distribution = Generator::Distribution::balanced;
      } else if (name != "uniform") {
        throw Error(ErrorCode::schema, field + ".distribution",
                    fmt::format("= '{}' is not a distribution (uniform, zipf, balanced)", name));
      }
      if (gen.unique && gen.distribution != Generator::Distribution::uniform) {
        throw Error(ErrorCode::schema, field + ".distribution",
                    fmt::format("= '{}' cannot be combined with unique: true (unique targets have no frequencies)", name));
      }
    }
    if (g.contains("alpha")) {
      if (gen.distribution != Generator::Distribution::zipf) {
        throw Error(ErrorCode::schema, field + ".alpha", "belongs to distribution 'zipf'");
      }
      gen.alpha = get_number(g["alpha"], field + ".alpha");
      if (!(gen.alpha > 0.0 && gen.alpha <= 10.0)) {
        throw Error(ErrorCode::schema, field + ".alpha", fmt::format("= {} is not an exponent in (0, 10]", gen.alpha));
      }
    }
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
                fmt::format("= '{}' is not a dtype ({})", dtype_name, names_of(kDTypes)));
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
    const bool empty = std::find(p.decl.shape.begin(), p.decl.shape.end(), 0) != p.decl.shape.end();
    throw Error(ErrorCode::too_large, field + ".shape",
                empty ? fmt::format("= {}: the product of its other dimensions overflows int64 (its strides would), "
                                    "zero dimension or not",
                                    format_shape(p.decl.shape))
                      : fmt::format("= {} of {} has more bytes than any memory holds", format_shape(p.decl.shape),
                                    dtype_name));
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

// What tensor_scatter's absent write_indices mean: int64 zeros, one per batch row.
PendingTensor absent_write_indices(const TensorDecl& data) {
  PendingTensor p;
  p.decl.dtype = DType::int64;
  p.decl.shape = {data.shape.empty() ? 0 : data.shape[0]};
  Generator zeros;
  zeros.kind = Generator::Kind::fill;
  p.decl.source = zeros;
  return p;
}

void parse_case(const json& c, CaseEntry& entry, const fs::path& dir, const LoadOptions& options) {
  check_keys(c, {"format", "name", "description", "source", "tags", "op", "axis", "reduction", "use_init_val", "mode", "inputs",
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
                fmt::format("= '{}' is not an op ({} or an alias)", op_name, names_of(kOps)));
  }
  d.attrs.op = *op;
  if (c.contains("reduction")) {
    const auto name = get_string(c["reduction"], "reduction");
    const auto r = parse_reduction(name);
    if (!r) {
      throw Error(ErrorCode::op, "reduction",
                  fmt::format("= '{}' is not a reduction ({} or an alias)", name, names_of(kReductions)));
    }
    d.attrs.reduction = *r;
  }
  // ONNX TensorScatter's axis defaults to -2 (the sequence axis of [batch, heads, seq, dim]).
  if (d.attrs.op == Op::tensor_scatter) d.attrs.axis = -2;
  if (c.contains("axis")) d.attrs.axis = get_int(c["axis"], "axis");
  if (c.contains("mode")) {
    if (d.attrs.op != Op::tensor_scatter) {
      throw Error(ErrorCode::schema, "mode", fmt::format("applies to tensor_scatter only, not {}", to_string(d.attrs.op)));
    }
    const auto name = get_string(c["mode"], "mode");
    if (name == "circular") {
      d.attrs.mode = WriteMode::circular;
    } else if (name != "linear") {
      throw Error(ErrorCode::schema, "mode", fmt::format("= '{}' is not a mode (linear, circular)", name));
    }
  }
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
  // tensor_scatter's write_indices are optional, zeros when absent (the ONNX spec).
  auto indices = d.attrs.op == Op::tensor_scatter && !inputs.contains("indices")
                     ? absent_write_indices(data.decl)
                     : parse_tensor(require(inputs, "indices", "inputs"), "inputs.indices", dir, true);
  auto updates = parse_tensor(require(inputs, "updates", "inputs"), "inputs.updates", dir, false);
  std::optional<PendingTensor> expected;
  if (c.contains("expected")) expected = parse_tensor(c["expected"], "expected", dir, false);
  d.data = data.decl;
  d.indices = indices.decl;
  d.updates = updates.decl;
  if (expected) d.expected = expected->decl;

  validate_decl(d, c.contains("axis"));

  const auto need = case_bytes(d);
  if (need > options.max_bytes) {
    const auto* gen = std::get_if<Generator>(&d.indices.source);
    const auto scratch = gen ? indices_scratch_bytes(*gen, numel(d.indices.shape)) : 0;
    throw Error(ErrorCode::too_large, "",
                fmt::format("the case needs {} of host memory (inputs, expected and outputs{}) but --max-bytes is {}",
                            binary_bytes(need), scratch ? fmt::format(", plus {} to generate indices", binary_bytes(scratch)) : "",
                            binary_bytes(options.max_bytes)));
  }
  auto literal = [](PendingTensor& p, TensorDecl& decl, const std::string& field) {
    if (!p.values) return;
    try {
      decl.source = parse_values(*p.values, decl.dtype, decl.shape);
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
        throw Error(ErrorCode::schema, "expect_error", fmt::format("= {} is not an error code", excerpt(*it)));
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
      throw Error(ErrorCode::schema, "name", fmt::format("= {} must match [A-Za-z0-9_.-]+", excerpt(require(c, "name", ""))));
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

}  // namespace

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


}  // namespace detail
}  // namespace scatter

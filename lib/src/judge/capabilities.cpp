// What an external backend declares it supports: the document (docs/backends.md,
// "Capabilities"), the facts about a case it is matched against, and the rule a case
// breaks. Strict like the case loader: a typo in a declaration never silently widens
// or narrows what a backend is given.

#include "scatter/capabilities.hpp"

#include <algorithm>
#include <cassert>
#include <initializer_list>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "load/json_fields.hpp"
#include "core/targets.hpp"

namespace scatter {
namespace {

using nlohmann::json;
using detail::check_keys;
using detail::get_bool;
using detail::get_string;

constexpr std::array<std::string_view, 4> kFeatures{"negative_indices", "duplicates", "empty_index_tuple",
                                                    "use_init_val_false"};

template <class T, std::size_t N>
std::string names_of(const T (&values)[N]) {
  std::vector<std::string_view> names;
  for (const auto v : values) names.push_back(to_string(v));
  return fmt::format("{}", fmt::join(names, ", "));
}

const json& object(const json& v, const std::string& field) {
  if (!v.is_object()) throw Error(ErrorCode::schema, field, fmt::format("must be an object, got {}", detail::excerpt(v)));
  return v;
}

// Names are canonical: an alias ("sum", "ScatterND") is refused with the name to write,
// so one declaration cannot name one rule twice.
template <class T>
T canonical(std::optional<T> parsed, const std::string& name, std::string_view what, const std::string& choices,
            const std::string& field) {
  if (!parsed) throw Error(ErrorCode::schema, field, fmt::format("'{}' is not {} ({})", name, what, choices));
  if (to_string(*parsed) != name) {
    throw Error(ErrorCode::schema, field,
                fmt::format("'{}' is an alias; capabilities use the canonical name '{}'", name, to_string(*parsed)));
  }
  return *parsed;
}

Op op_named(const std::string& name, const std::string& field) {
  return canonical(parse_op(name), name, "an op", names_of(kOps), field);
}

Reduction reduction_named(const std::string& name, const std::string& field) {
  return canonical(parse_reduction(name), name, "a reduction", names_of(kReductions), field);
}

DType dtype_named(const std::string& name, const std::string& field) {
  return canonical(parse_dtype(name), name, "a dtype", names_of(kDTypes), field);
}

DType index_dtype_named(const std::string& name, const std::string& field) {
  const auto dtype = dtype_named(name, field);
  if (dtype != DType::int32 && dtype != DType::int64) {
    throw Error(ErrorCode::schema, field, fmt::format("'{}' is not an index dtype (int32, int64)", name));
  }
  return dtype;
}

// A name or a list of names (`exclude` keys, `index_dtypes`); `one` parses each.
template <class T, class Parse>
std::vector<T> name_list(const json& v, const std::string& field, bool single_allowed, Parse one) {
  std::vector<T> out;
  if (single_allowed && v.is_string()) {
    out.push_back(one(v.get<std::string>(), field));
    return out;
  }
  if (!v.is_array()) {
    throw Error(ErrorCode::schema, field,
                fmt::format("must be {}a list of names, got {}", single_allowed ? "a name or " : "", detail::excerpt(v)));
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto item = fmt::format("{}[{}]", field, i);
    out.push_back(one(get_string(v[i], item), item));
  }
  return out;
}

Capabilities::Entry parse_entry(const json& v, const std::string& field) {
  Capabilities::Entry entry;
  entry.supported = true;
  if (v.is_string() && v.get<std::string>() == "*") {
    entry.all_dtypes = true;
    return entry;
  }
  if (!v.is_array()) {
    throw Error(ErrorCode::schema, field, fmt::format("must be \"*\" or a list of dtype names, got {}", detail::excerpt(v)));
  }
  entry.dtypes = name_list<DType>(v, field, false, dtype_named);
  return entry;
}

void parse_ops(const json& v, const std::string& field, Capabilities& caps) {
  for (const auto& [op_name, reductions] : object(v, field).items()) {
    const auto op = op_named(op_name, field);
    const auto op_field = field + "." + op_name;
    for (const auto& [red_name, dtypes] : object(reductions, op_field).items()) {
      const auto reduction = reduction_named(red_name, op_field);
      if (!op_allows(op, reduction)) {
        throw Error(ErrorCode::schema, op_field,
                    fmt::format("'{}' is not allowed for {} (allowed: {})", red_name, op_name, allowed_reductions(op)));
      }
      caps.ops[static_cast<std::size_t>(op)][static_cast<std::size_t>(reduction)] =
          parse_entry(dtypes, op_field + "." + red_name);
    }
  }
}

CapabilityExclusion parse_exclusion(const json& v, const std::string& field) {
  check_keys(object(v, field), {"op", "reduction", "dtype", "index_dtype", "feature", "reason"}, field);
  CapabilityExclusion ex;
  if (const auto it = v.find("op"); it != v.end()) ex.ops = name_list<Op>(*it, field + ".op", true, op_named);
  if (const auto it = v.find("reduction"); it != v.end()) {
    ex.reductions = name_list<Reduction>(*it, field + ".reduction", true, reduction_named);
  }
  if (const auto it = v.find("dtype"); it != v.end()) ex.dtypes = name_list<DType>(*it, field + ".dtype", true, dtype_named);
  if (const auto it = v.find("index_dtype"); it != v.end()) {
    ex.index_dtypes = name_list<DType>(*it, field + ".index_dtype", true, index_dtype_named);
  }
  if (const auto it = v.find("feature"); it != v.end()) {
    ex.feature = get_string(*it, field + ".feature");
    if (std::find(kFeatures.begin(), kFeatures.end(), ex.feature) == kFeatures.end()) {
      throw Error(ErrorCode::schema, field + ".feature",
                  fmt::format("'{}' is not a feature ({})", ex.feature, fmt::join(kFeatures, ", ")));
    }
  }
  const auto it = v.find("reason");
  if (it == v.end()) throw Error(ErrorCode::schema, field, "missing key 'reason'");
  ex.reason = get_string(*it, field + ".reason");
  if (ex.reason.empty()) throw Error(ErrorCode::schema, field + ".reason", "must not be empty");
  return ex;
}

Capabilities parse_document(const json& doc) {
  const std::string root = "capabilities";
  check_keys(object(doc, root),
             {"ops", "index_dtypes", "negative_indices", "empty_index_tuple", "max_rank", "use_init_val_false",
              "checks_indices", "exclude"},
             root);
  Capabilities caps;
  if (const auto it = doc.find("ops"); it != doc.end()) parse_ops(*it, root + ".ops", caps);
  if (const auto it = doc.find("index_dtypes"); it != doc.end()) {
    caps.index_dtypes = name_list<DType>(*it, root + ".index_dtypes", false, index_dtype_named);
  }
  if (const auto it = doc.find("negative_indices"); it != doc.end()) {
    caps.negative_indices = get_bool(*it, root + ".negative_indices");
  }
  if (const auto it = doc.find("empty_index_tuple"); it != doc.end()) {
    caps.empty_index_tuple = get_bool(*it, root + ".empty_index_tuple");
  }
  if (const auto it = doc.find("max_rank"); it != doc.end()) {
    if (!it->is_number_integer() || *it < 1 || *it > static_cast<std::int64_t>(kMaxRank)) {
      throw Error(ErrorCode::schema, root + ".max_rank",
                  fmt::format("must be an integer in [1, {}], got {}", kMaxRank, detail::excerpt(*it)));
    }
    caps.max_rank = it->get<std::int64_t>();
  }
  if (const auto it = doc.find("use_init_val_false"); it != doc.end()) {
    caps.use_init_val_false = get_bool(*it, root + ".use_init_val_false");
  }
  // true or false for every op, or per op ({"scatter_nd": true, "scatter_elements": false}; an op
  // left out keeps the default, true).
  if (const auto it = doc.find("checks_indices"); it != doc.end()) {
    const auto field = root + ".checks_indices";
    if (it->is_object()) {
      for (const auto& [name, value] : it->items()) {
        const auto op = parse_op(name);
        if (!op) throw Error(ErrorCode::schema, field + "." + name, fmt::format("'{}' is not an op", name));
        caps.checks_indices[static_cast<std::size_t>(*op)] = get_bool(value, field + "." + name);
      }
    } else {
      caps.checks_indices.fill(get_bool(*it, field));
    }
  }
  if (const auto it = doc.find("exclude"); it != doc.end()) {
    if (!it->is_array()) {
      throw Error(ErrorCode::schema, root + ".exclude", fmt::format("must be a list, got {}", detail::excerpt(*it)));
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      caps.exclude.push_back(parse_exclusion((*it)[i], fmt::format("{}.exclude[{}]", root, i)));
    }
  }
  return caps;
}

// Whether a key in [0, universe) comes twice, as the keys stream in: a bit per key of the
// universe (data's elements or rows, or an axis: at most an eighth of data's bytes) where
// that is not much more than the keys would take, else the keys themselves, sorted at the
// end. O(keys) or O(keys log keys) either way. (A list of 2^28 keys beside a 1 GiB output,
// and its sort, were gigabytes; 3 keys into 2^34 elements need no 2 GiB bitmap.)
class RepeatFinder {
 public:
  RepeatFinder(std::int64_t universe, std::int64_t keys)
      : bitmap_(static_cast<std::uint64_t>(universe) <= 64 * static_cast<std::uint64_t>(keys) + 4096) {
    if (bitmap_) {
      seen_.resize(static_cast<std::size_t>(universe));
    } else {
      keys_.reserve(static_cast<std::size_t>(keys));
    }
  }
  void add(std::int64_t key) {
    if (!bitmap_) {
      keys_.push_back(key);
    } else if (seen_[static_cast<std::size_t>(key)]) {
      repeat_ = true;
    } else {
      seen_[static_cast<std::size_t>(key)] = true;
    }
  }
  bool found() {
    if (bitmap_) return repeat_;
    std::sort(keys_.begin(), keys_.end());
    return std::adjacent_find(keys_.begin(), keys_.end()) != keys_.end();
  }

 private:
  bool bitmap_;
  bool repeat_ = false;
  std::vector<bool> seen_;
  std::vector<std::int64_t> keys_;
};

constexpr std::int64_t kOutOfRange = -1;

// Two updates on one output element. `idx` holds normalized indices, kOutOfRange where
// the index is not valid; such updates have no target and are left out. The visitors of
// targets.hpp compute an offset for them too (a small, meaningless number), never used.
bool has_duplicates(const Case& c, const std::vector<std::int64_t>& idx) {
  const auto& dshape = c.data.shape();
  switch (c.attrs.op) {
    case Op::scatter_elements: {
      RepeatFinder elements(c.data.numel(), static_cast<std::int64_t>(idx.size()));
      detail::visit_scatter_elements(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t) {
        if (idx[static_cast<std::size_t>(u)] != kOutOfRange) elements.add(o);
      });
      return elements.found();
    }
    case Op::scatter_nd: {
      // One tuple, one slice of data.shape[k:]: equal tuples are the duplicates. With
      // k = 0 every row targets all of data.
      const auto k = c.indices.shape().back();
      const auto slice = numel(Shape(dshape.begin() + k, dshape.end()));
      if (slice == 0) return false;
      const auto& ishape = c.indices.shape();
      RepeatFinder rows(c.data.numel() / slice, numel(Shape(ishape.begin(), ishape.end() - 1)));  // a key per tuple
      detail::visit_scatter_nd(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t) {
        const auto m = u / slice;
        const auto first = idx.begin() + m * k;
        if (std::find(first, first + k, kOutOfRange) == first + k) rows.add(o / slice);
      });
      return rows.found();
    }
    case Op::tensor_scatter:
      return false;  // a sequence of at most the axis' extent, written from one position: distinct rows
    case Op::scatter_update:
      // Index i targets the slices data[..., i, ...] for every outer coordinate: equal
      // indices are the duplicates, provided those slices have elements.
      if (c.data.numel() == 0) return false;
      RepeatFinder positions(dshape[static_cast<std::size_t>(c.attrs.axis)], static_cast<std::int64_t>(idx.size()));
      for (const auto i : idx) {
        if (i != kOutOfRange) positions.add(i);
      }
      return positions.found();
  }
  return false;
}

template <class T>
bool matches(const std::vector<T>& allowed, T value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// use_init_val = false changes only reductions: with `none` the case is the same either way.
bool uses_init_val_false(const Case& c) { return !c.attrs.use_init_val && c.attrs.reduction != Reduction::none; }

bool has_feature(std::string_view feature, const Case& c, const CaseFeatures& f) {
  if (feature.empty()) return true;
  if (feature == "negative_indices") return f.negative_indices;
  if (feature == "duplicates") return f.duplicates;
  if (feature == "empty_index_tuple") return f.empty_index_tuple;
  return feature == "use_init_val_false" && uses_init_val_false(c);
}

// What an exclusion matched, in the case's words: "scatter_nd mul on float16 with
// duplicates", or just "negative indices".
std::string matched(const CapabilityExclusion& ex, const Case& c) {
  std::vector<std::string> parts;
  if (!ex.ops.empty()) parts.emplace_back(to_string(c.attrs.op));
  if (!ex.reductions.empty()) parts.emplace_back(to_string(c.attrs.reduction));
  if (!ex.dtypes.empty()) parts.push_back(fmt::format("on {}", to_string(c.data.dtype())));
  const auto with = parts.empty() ? "" : "with ";
  if (!ex.index_dtypes.empty()) parts.push_back(fmt::format("{}{} indices", with, to_string(c.indices.dtype())));
  if (!ex.feature.empty()) {
    std::string feature = ex.feature;
    if (feature == "use_init_val_false") {
      feature = "use_init_val = false";
    } else {
      std::replace(feature.begin(), feature.end(), '_', ' ');
    }
    parts.push_back((parts.empty() ? "" : "with ") + feature);
  }
  return parts.empty() ? "excluded" : fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace

CaseFeatures features_of(const Case& c) {
  return features_of(c, c.attrs.op == Op::tensor_scatter ? std::vector<std::int64_t>{} : detail::normalized_indices(c));
}

CaseFeatures features_of(const Case& c, const std::vector<std::int64_t>& normalized) {
  assert(c.attrs.op == Op::tensor_scatter || static_cast<std::int64_t>(normalized.size()) == c.indices.numel());
  CaseFeatures f;
  const auto& data = c.data.shape();
  if (c.attrs.op == Op::tensor_scatter) {  // write positions: never negative, nor past the end when linear
    const auto last = detail::last_write_position(c);
    for (std::int64_t b = 0; b < c.indices.numel(); ++b) {
      const auto v = index_at(c.indices, b);
      f.out_of_range |= v < 0 || v > last;
    }
    return f;
  }
  const bool nd = c.attrs.op == Op::scatter_nd;
  const auto k = nd ? c.indices.shape().back() : 1;
  f.empty_index_tuple = nd && k == 0;
  const auto n = c.indices.numel();
  // The spec's ranges: [-s, s-1], but [0, s-1] for scatter_update (whose negative indices
  // are an `index` error).
  const auto in_range = [&](std::int64_t i) {
    const auto v = index_at(c.indices, i);
    const auto s = data[static_cast<std::size_t>(nd ? i % k : c.attrs.axis)];
    return v >= (c.attrs.op == Op::scatter_update ? 0 : -s) && v < s;
  };
  for (std::int64_t i = 0; i < n; ++i) {
    if ((i & 0xFFFFF) == 0xFFFFF) poll_cancel();  // seconds on a large case
    f.negative_indices |= index_at(c.indices, i) < 0;
    f.out_of_range |= !in_range(i);
  }
  if (!f.out_of_range) {
    f.duplicates = has_duplicates(c, normalized);
    return f;
  }
  // An invalid case (expect_error, seldom large): its own copy, out-of-range indices marked.
  std::vector<std::int64_t> marked(normalized);
  for (std::int64_t i = 0; i < n; ++i) {
    if ((i & 0xFFFFF) == 0xFFFFF) poll_cancel();
    if (!in_range(i)) marked[static_cast<std::size_t>(i)] = kOutOfRange;
  }
  f.duplicates = has_duplicates(c, marked);
  return f;
}

Capabilities Capabilities::everything() {
  Capabilities caps;
  for (const auto op : kOps) {
    for (const auto r : kReductions) {
      auto& entry = caps.ops[static_cast<std::size_t>(op)][static_cast<std::size_t>(r)];
      entry.supported = op_allows(op, r);
      entry.all_dtypes = entry.supported;
    }
  }
  return caps;
}

// Errors name the backend first: "worker numpy: capabilities.max_rank: must be ...".
Capabilities parse_capabilities(std::string_view json_text, std::string_view origin) {
  const auto where = [&](const std::string& field) {
    return origin.empty() ? field : fmt::format("{}: {}", origin, field);
  };
  json doc;
  try {
    doc = detail::parse_bounded(json_text, "the document");
  } catch (const Error& e) {
    throw Error(ErrorCode::schema, where("capabilities"), e.detail());
  }
  try {
    return parse_document(doc);
  } catch (const Error& e) {
    throw Error(e.code(), where(e.field()), e.detail());
  }
}


std::optional<std::string> unsupported_reason(const Capabilities& caps, const Case& c, const CaseFeatures& f) {
  const auto op = c.attrs.op;
  const auto reduction = c.attrs.reduction;
  const auto dtype = c.data.dtype();
  const auto& per_op = caps.ops[static_cast<std::size_t>(op)];
  if (std::none_of(per_op.begin(), per_op.end(), [](const auto& e) { return e.supported; })) {
    return fmt::format("{} is not declared", to_string(op));
  }
  const auto& entry = per_op[static_cast<std::size_t>(reduction)];
  if (!entry.supported) return fmt::format("{} {} is not declared", to_string(op), to_string(reduction));
  if (!entry.covers(dtype)) {
    return fmt::format("{} {} on {} is not declared", to_string(op), to_string(reduction), to_string(dtype));
  }
  if (std::find(caps.index_dtypes.begin(), caps.index_dtypes.end(), c.indices.dtype()) == caps.index_dtypes.end()) {
    return fmt::format("{} indices are not declared", to_string(c.indices.dtype()));
  }
  if (f.negative_indices && !caps.negative_indices) return std::string("negative indices are not declared");
  if (f.empty_index_tuple && !caps.empty_index_tuple) {
    return std::string("scatter_nd with k = 0 (empty index tuples) is not declared");
  }
  const auto rank = std::max({c.data.rank(), c.indices.rank(), c.updates.rank()});
  if (rank > caps.max_rank) return fmt::format("rank {} is above the declared max_rank {}", rank, caps.max_rank);
  if (uses_init_val_false(c) && !caps.use_init_val_false) return std::string("use_init_val = false is not declared");
  if (f.out_of_range && !caps.checks_indices[static_cast<std::size_t>(op)]) {
    return std::string("does not check indices: out-of-range indices are undefined behaviour for it");
  }
  for (const auto& ex : caps.exclude) {
    if (matches(ex.ops, op) && matches(ex.reductions, reduction) && matches(ex.dtypes, dtype) &&
        matches(ex.index_dtypes, c.indices.dtype()) && has_feature(ex.feature, c, f)) {
      return fmt::format("{}: {}", matched(ex, c), ex.reason);
    }
  }
  return std::nullopt;
}

}  // namespace scatter

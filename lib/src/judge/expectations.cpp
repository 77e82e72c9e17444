// Expectations files (docs/backends.md, "Expectations"): reading them strictly, and
// matching a backend's outcome on a case against their entries.

#include "scatter/expectations.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "load/detail.hpp"
#include "scatter/files.hpp"
#include "scatter/case_facts.hpp"

namespace scatter {
namespace {

using json = nlohmann::json;

constexpr std::array<std::pair<Outcome, std::string_view>, 4> kOutcomes{{
    {Outcome::failed, "failed"},
    {Outcome::error, "error"},
    {Outcome::rejected, "rejected"},
    {Outcome::accepted, "accepted"},
}};

// Where an entry's problem is: the file, and the entry by id (or by index before the id
// is known), so that every message points at one field of one entry.
struct Where {
  std::string file;
  std::string entry;  // "expectations[3]" or "expectations[ort-minmax]"

  [[noreturn]] void fail(std::string_view key, const std::string& detail) const {
    const auto field = key.empty() ? entry : entry.empty() ? std::string(key) : fmt::format("{}.{}", entry, key);
    throw Error(ErrorCode::schema, field, detail).at(file, "");
  }
};

void check_keys(const json& obj, std::initializer_list<std::string_view> allowed, const Where& where,
                std::string_view parent) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto field = parent.empty() ? key : fmt::format("{}.{}", parent, key);
    where.fail(field, fmt::format("unknown key; allowed: {}", fmt::join(allowed, ", ")));
  }
}

std::string text_of(const json& v, const Where& where, std::string_view key) {
  if (!v.is_string()) where.fail(key, fmt::format("must be a string, got {}", v.type_name()));
  auto s = v.get<std::string>();
  if (s.empty()) where.fail(key, "must not be empty");
  return s;
}

bool flag_of(const json& v, const Where& where, std::string_view key) {
  if (!v.is_boolean()) where.fail(key, fmt::format("must be true or false, got {}", v.type_name()));
  return v.get<bool>();
}

enum class Form { name_or_list, condition_list, required_list };

// A non-empty list of strings, or for a name_or_list also one name ("op": "scatter_nd").
std::vector<std::string> names_of(const json& v, const Where& where, std::string_view key, Form form) {
  std::vector<std::string> out;
  if (form == Form::name_or_list && v.is_string()) {
    out.push_back(text_of(v, where, key));
    return out;
  }
  if (!v.is_array() || v.empty()) {
    where.fail(key, form == Form::name_or_list   ? "must be a name or a non-empty list of names (leave the key out to match any)"
                    : form == Form::condition_list ? "must be a non-empty list of strings (leave the key out to match any)"
                                                   : "must be a non-empty list of strings");
  }
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(text_of(v[i], where, fmt::format("{}[{}]", key, i)));
  return out;
}

template <class T, class Parse>
std::vector<T> parsed_names(const json& v, const Where& where, std::string_view key, std::string_view what,
                            Parse parse) {
  const auto names = names_of(v, where, key, Form::name_or_list);
  std::vector<T> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto value = parse(names[i]);
    if (!value) {
      const auto field = v.is_array() ? fmt::format("{}[{}]", key, i) : std::string(key);
      where.fail(field, fmt::format("'{}' is not {}", names[i], what));
    }
    out.push_back(*value);
  }
  return out;
}

std::optional<Outcome> parse_outcome(std::string_view name) {
  for (const auto& [o, n] : kOutcomes) {
    if (n == name) return o;
  }
  return std::nullopt;
}

// The numeric prefix of a version, dot by dot: "2.15.0+cpu" -> {2, 15, 0},
// "1.20.0rc1" -> {1, 20, 0}; empty when it does not start with a digit.
std::vector<std::uint64_t> version_numbers(std::string_view v) {
  std::vector<std::uint64_t> out;
  std::size_t i = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
    std::uint64_t n = 0;
    for (; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i) n = n * 10 + static_cast<std::uint64_t>(v[i] - '0');
    out.push_back(n);
    if (i + 1 < v.size() && v[i] == '.' && v[i + 1] >= '0' && v[i + 1] <= '9') ++i;
    else break;
  }
  return out;
}

// <0, 0, >0 as a is below, equal to or above b; missing components count as 0.
int compare_versions(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const auto x = i < a.size() ? a[i] : 0;
    const auto y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string version_of(const json& v, const Where& where, std::string_view key) {
  auto s = text_of(v, where, key);
  if (version_numbers(s).empty()) where.fail(key, fmt::format("'{}' does not start with a version number", s));
  return s;
}

template <class E>
E choice_of(const json& v, const Where& where, std::string_view key,
            std::initializer_list<std::pair<E, std::string_view>> names) {
  const auto text = text_of(v, where, key);
  for (const auto& [value, name] : names) {
    if (name == text) return value;
  }
  std::vector<std::string_view> allowed;
  for (const auto& [value, name] : names) allowed.push_back(name);
  where.fail(key, fmt::format("'{}' is none of {}", text, fmt::join(allowed, ", ")));
}

DivergenceModel model_of(const json& m, const Where& where) {
  using M = DivergenceModel;
  if (!m.is_object() || m.empty()) where.fail("model", "must be an object of the rules it swaps (docs/backends.md)");
  check_keys(m, {"compute_in", "convert_in", "round_back", "integer_mean", "mean", "min_max", "min_max_start", "subnormals"},
             where, "model");
  M model;
  if (m.contains("compute_in")) {
    const auto& c = m["compute_in"];
    if (!c.is_object() || c.empty()) where.fail("model.compute_in", "must map dtypes to the dtypes they are computed in");
    for (const auto& [from_name, to_value] : c.items()) {
      const auto key = fmt::format("model.compute_in.{}", from_name);
      const auto from = parse_dtype(from_name);
      const auto to = parse_dtype(text_of(to_value, where, key));
      if (!from) where.fail(key, fmt::format("'{}' is not a dtype", from_name));
      if (!to) where.fail(key, fmt::format("'{}' is not a dtype", to_value.get<std::string>()));
      const bool same_kind = is_float(*from) == is_float(*to) && (*to != DType::boolean || *from == DType::boolean);
      if (!same_kind) {
        where.fail(key, fmt::format("{} cannot be computed in {}: floats in floats, integers (or bool) in integers",
                                    from_name, to_value.get<std::string>()));
      }
      model.compute_in[*from] = *to;
    }
  }
  // Each rule: its key, where it goes, and its names (the spec's first).
  const auto choose = [&]<class E>(const char* key, E& rule, std::initializer_list<std::pair<E, std::string_view>> names) {
    if (m.contains(key)) rule = choice_of(m[key], where, fmt::format("model.{}", key), names);
  };
  choose("convert_in", model.convert_in, {{M::ConvertIn::ieee, "ieee"}, {M::ConvertIn::saturating, "saturating"}});
  choose("round_back", model.round_back,
         {{M::Rounding::nearest_even, "nearest_even"},
          {M::Rounding::toward_zero, "toward_zero"},
          {M::Rounding::nearest_if_odd, "nearest_if_odd"}});
  choose("integer_mean", model.integer_mean,
         {{M::IntegerMean::floor, "floor"}, {M::IntegerMean::toward_zero, "toward_zero"}});
  choose("mean", model.mean, {{M::Mean::sum_over_count, "sum_over_count"}, {M::Mean::running_pairwise, "running_pairwise"}});
  choose("min_max", model.min_max,
         {{M::MinMax::ieee, "ieee"},
          {M::MinMax::nan_ignored, "nan_ignored"},
          {M::MinMax::keep_existing_unless_better, "keep_existing_unless_better"},
          {M::MinMax::take_update_unless_worse, "take_update_unless_worse"},
          {M::MinMax::nan_propagates_ties_keep_existing, "nan_propagates_ties_keep_existing"},
          {M::MinMax::nan_propagates_ties_take_update, "nan_propagates_ties_take_update"}});
  choose("min_max_start", model.min_max_start,
         {{M::MinMaxStart::infinity, "infinity"}, {M::MinMaxStart::largest_finite, "largest_finite"}});
  choose("subnormals", model.flush_subnormals, {{false, "kept"}, {true, "flushed"}});
  if (model.rules_swapped() == 0) where.fail("model", "swaps none of the spec's rules");
  return model;
}

std::vector<Expectation::Reproduction> reproductions_of(const json& v, const Where& where) {
  if (!v.is_array() || v.empty()) where.fail("reproduced_by", "must be a non-empty list of {\"case\", \"output\"}");
  std::vector<Expectation::Reproduction> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto key = fmt::format("reproduced_by[{}]", i);
    if (!v[i].is_object()) where.fail(key, "must be an object with \"case\" and \"output\"");
    check_keys(v[i], {"case", "output"}, where, key);
    if (!v[i].contains("case") || !v[i].contains("output")) where.fail(key, "needs \"case\" and \"output\"");
    out.push_back({text_of(v[i]["case"], where, key + ".case"), v[i]["output"].dump()});
  }
  return out;
}

Expectation parse_entry(const json& e, std::size_t index, const std::string& file, const std::string& file_backend) {
  Where where{file, fmt::format("expectations[{}]", index)};
  if (!e.is_object()) where.fail("", fmt::format("must be an object, got {}", e.type_name()));
  if (!e.contains("id")) where.fail("id", "missing key");
  Expectation x;
  x.file = file;
  x.id = text_of(e["id"], where, "id");
  where.entry = fmt::format("expectations[{}]", x.id);
  check_keys(e,
             {"id", "backend", "versions", "cases", "op", "reduction", "dtype", "case", "outcome", "elements",
              "message_contains", "model", "reproduced_by", "flaky", "strict", "reason", "citation"},
             where, "");
  for (const auto* key : {"reason", "citation"}) {
    if (!e.contains(key)) where.fail(key, "missing key");
  }

  x.backend = e.contains("backend") ? text_of(e["backend"], where, "backend") : file_backend;
  if (x.backend.empty()) where.fail("backend", "missing key (and the file names no backend)");
  if (e.contains("versions")) {
    const auto& v = e["versions"];
    if (!v.is_object() || v.empty()) where.fail("versions", "must be an object with \"min\" and/or \"max\"");
    check_keys(v, {"min", "max"}, where, "versions");
    if (v.contains("min")) x.min_version = version_of(v["min"], where, "versions.min");
    if (v.contains("max")) x.max_version = version_of(v["max"], where, "versions.max");
    if (!x.min_version.empty() && !x.max_version.empty() &&
        compare_versions(version_numbers(x.min_version), version_numbers(x.max_version)) > 0) {
      where.fail("versions", fmt::format("min {} is above max {}", x.min_version, x.max_version));
    }
  }
  if (e.contains("cases")) x.cases = names_of(e["cases"], where, "cases", Form::condition_list);
  if (e.contains("op")) x.ops = parsed_names<Op>(e["op"], where, "op", "an op", parse_op);
  if (e.contains("reduction")) {
    x.reductions = parsed_names<Reduction>(e["reduction"], where, "reduction", "a reduction", parse_reduction);
  }
  if (e.contains("dtype")) x.dtypes = parsed_names<DType>(e["dtype"], where, "dtype", "a dtype", parse_dtype);
  if (e.contains("case")) {
    const auto& c = e["case"];
    if (!c.is_object() || c.empty()) where.fail("case", "must be an object of conditions");
    check_keys(c, {"use_init_val", "negative_indices", "duplicates"}, where, "case");
    if (c.contains("use_init_val")) x.use_init_val = flag_of(c["use_init_val"], where, "case.use_init_val");
    if (c.contains("negative_indices")) x.negative_indices = flag_of(c["negative_indices"], where, "case.negative_indices");
    if (c.contains("duplicates")) x.duplicates = flag_of(c["duplicates"], where, "case.duplicates");
  }
  if (e.contains("outcome")) {
    x.outcomes = parsed_names<Outcome>(e["outcome"], where, "outcome", "an outcome (failed, error, rejected, accepted)",
                                       parse_outcome);
  }
  const bool failed_only = x.outcomes.empty() || std::all_of(x.outcomes.begin(), x.outcomes.end(),
                                                             [](Outcome o) { return o == Outcome::failed; });
  const bool may_fail = x.outcomes.empty() || std::count(x.outcomes.begin(), x.outcomes.end(), Outcome::failed) > 0;
  if (e.contains("elements")) {
    const auto& alts = e["elements"];
    if (!failed_only) where.fail("elements", "applies to the outcome \"failed\" only");
    if (!alts.is_array() || alts.empty()) where.fail("elements", "must be a non-empty list of lists of element features");
    for (std::size_t i = 0; i < alts.size(); ++i) {
      const auto key = fmt::format("elements[{}]", i);
      std::uint32_t bits = 0;
      const auto names = names_of(alts[i], where, key, Form::required_list);
      for (std::size_t j = 0; j < names.size(); ++j) {
        const auto bit = parse_element_feature(names[j]);
        if (bit == 0) {
          where.fail(fmt::format("{}[{}]", key, j),
                     fmt::format("'{}' is not an element feature (dup, nan_involved, nan_mismatch, signed_zero, "
                                 "zero_involved, inf_involved, neg_index, untouched)",
                                 names[j]));
        }
        bits |= bit;
      }
      x.elements.push_back(bits);
    }
  }
  if (e.contains("message_contains")) {
    if (may_fail) where.fail("message_contains", "needs an \"outcome\" of error, rejected or accepted (a wrong output has no message)");
    x.message_contains = names_of(e["message_contains"], where, "message_contains", Form::condition_list);
  }
  if (e.contains("model")) {
    if (!may_fail) where.fail("model", "models a wrong output: needs the outcome \"failed\"");
    x.model = model_of(e["model"], where);
  }
  if (e.contains("reproduced_by")) x.reproduced_by = reproductions_of(e["reproduced_by"], where);
  if (e.contains("flaky")) x.flaky = flag_of(e["flaky"], where, "flaky");
  if (e.contains("strict")) x.strict = flag_of(e["strict"], where, "strict");
  x.reason = text_of(e["reason"], where, "reason");
  x.citation = names_of(e["citation"], where, "citation", Form::required_list);
  if (x.model && x.reproduced_by.empty()) {
    where.fail("reproduced_by", "missing: a model needs the minimal cases it reproduces, each with the output seen");
  }
  // A wrong output is covered only as a model says, or on the cases an entry names.
  if (may_fail && !x.model && x.cases.empty()) {
    where.fail("model", "missing: an entry that covers wrong outputs needs a model of what the backend computes, "
                        "or the cases it names (\"cases\")");
  }
  return x;
}

void load_file(const std::filesystem::path& path, Expectations& out) {
  const auto file = path.string();
  std::string text;
  try {
    text = read_file_text(file);  // a regular file, bounded: not a FIFO or /dev/zero
  } catch (const Error& e) {
    throw Error(e.code(), "", e.detail()).at(file, "");
  }
  json doc;
  try {
    doc = detail::parse_bounded(text, "the expectations file");
  } catch (const Error& e) {
    throw Error(e.code(), "", e.detail()).at(file, "");
  }
  const Where top{file, ""};
  if (!doc.is_object()) top.fail("", fmt::format("an expectations file is an object, got {}", doc.type_name()));
  check_keys(doc, {"backend", "about", "expectations"}, top, "");
  const auto backend = doc.contains("backend") ? text_of(doc["backend"], top, "backend") : std::string();
  if (doc.contains("about")) text_of(doc["about"], top, "about");
  if (!doc.contains("expectations")) top.fail("expectations", "missing key");
  const auto& entries = doc["expectations"];
  if (!entries.is_array()) top.fail("expectations", fmt::format("must be a list, got {}", entries.type_name()));
  for (std::size_t i = 0; i < entries.size(); ++i) out.entries.push_back(parse_entry(entries[i], i, file, backend));
}

bool in_range(const Expectation& x, std::string_view version) {
  if (x.min_version.empty() && x.max_version.empty()) return true;
  const auto v = version_numbers(version);
  if (v.empty()) return false;  // an unknown version is in no range
  if (!x.min_version.empty() && compare_versions(v, version_numbers(x.min_version)) < 0) return false;
  if (!x.max_version.empty() && compare_versions(v, version_numbers(x.max_version)) > 0) return false;
  return true;
}

template <class T>
bool listed(const std::vector<T>& allowed, const T& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// Backend, version and every condition on the case itself (not on what went wrong).
bool matches_case(const Expectation& x, std::string_view backend, std::string_view version, const Case& c,
                  const CaseFeatures& features) {
  if (x.backend != backend || !in_range(x, version)) return false;
  if (!x.cases.empty() && std::none_of(x.cases.begin(), x.cases.end(), [&](const std::string& glob) {
        return fnmatch(glob.c_str(), c.name.c_str(), 0) == 0;
      })) {
    return false;
  }
  if (!listed(x.ops, c.attrs.op) || !listed(x.reductions, c.attrs.reduction) || !listed(x.dtypes, c.data.dtype())) {
    return false;
  }
  if (x.use_init_val && *x.use_init_val != c.attrs.use_init_val) return false;
  if (x.negative_indices && *x.negative_indices != features.negative_indices) return false;
  if (x.duplicates && *x.duplicates != features.duplicates) return false;
  return true;
}

// Every differing element has all the features of one alternative. A failure without
// element features (a wrong shape or dtype) is covered by no element condition.
bool elements_match(const Expectation& x, const Comparison* comparison) {
  if (x.elements.empty()) return true;
  if (comparison == nullptr || comparison->mismatch_features.empty()) return false;
  return std::all_of(comparison->mismatch_features.begin(), comparison->mismatch_features.end(), [&](std::uint32_t f) {
    return std::any_of(x.elements.begin(), x.elements.end(), [&](std::uint32_t alt) { return (f & alt) == alt; });
  });
}

}  // namespace

std::string_view to_string(Outcome outcome) {
  for (const auto& [o, name] : kOutcomes) {
    if (o == outcome) return name;
  }
  return "?";
}

const Expectation* Expectations::covering(std::string_view backend, std::string_view version, const Case& c,
                                          const CaseFeatures& features, Outcome outcome,
                                          const Comparison* comparison, std::string_view message) const {
  for (const auto& x : entries) {
    if (!matches_case(x, backend, version, c, features) || !listed(x.outcomes, outcome)) continue;
    if (!x.elements.empty() && (outcome != Outcome::failed || !elements_match(x, comparison))) continue;
    if (!x.message_contains.empty() &&
        (outcome == Outcome::failed ||
         std::none_of(x.message_contains.begin(), x.message_contains.end(),
                      [&](const std::string& m) { return message.find(m) != std::string_view::npos; }))) {
      continue;
    }
    return &x;
  }
  return nullptr;
}

Expectations::Explanation Expectations::explaining(std::string_view backend, std::string_view version, const Case& c,
                                                   const CaseFeatures& features, const Comparison& comparison,
                                                   const Tensor& output, const CompareOptions& options) const {
  Explanation explanation;
  auto against_model = options;
  against_model.untouched_from_want = true;  // a model may change untouched elements too
  const auto explains = [&](const DivergenceModel& model) {
    return compare_outputs(c, output, model_output(c, model), false, against_model);
  };
  // Narrower first: fewer rules swapped, then more conditions named; an entry without a model
  // (it names its cases) after every model.
  const auto width = [](const Expectation& x) {
    const int conditions = !x.cases.empty() + !x.ops.empty() + !x.reductions.empty() + !x.dtypes.empty() +
                           x.use_init_val.has_value() + x.negative_indices.has_value() + x.duplicates.has_value() +
                           !x.elements.empty();
    return std::pair{x.model ? x.model->rules_swapped() : 1000, -conditions};
  };
  std::vector<const Expectation*> modelled;  // matched the case, not the output
  for (const auto& x : entries) {
    if (!matches_case(x, backend, version, c, features) || !listed(x.outcomes, Outcome::failed)) continue;
    if (!elements_match(x, &comparison)) continue;
    if (x.model) {
      const auto against = explains(*x.model);
      if (!against.passed) {
        modelled.push_back(&x);
        explanation.tried.push_back(
            against.worst.empty()
                ? fmt::format("[{}] {}: differs", x.id, x.model->describe())
                : fmt::format("[{}] {}: differs at {}: model {}, backend {}", x.id, x.model->describe(),
                              format_coord(against.worst.front().coord), against.worst.front().expected,
                              against.worst.front().actual));
        continue;
      }
    }
    if (!explanation.entry || width(x) < width(*explanation.entry)) explanation.entry = &x;
  }
  if (explanation.entry) return explanation;
  // Two divergences at once (float64 computed in float32 and a NaN update dropped): the pair
  // whose combined model explains the output, the narrowest first.
  int narrowest = 0;
  for (std::size_t i = 0; i < modelled.size(); ++i) {
    for (std::size_t j = i + 1; j < modelled.size(); ++j) {
      const auto both = combined(*modelled[i]->model, *modelled[j]->model);
      if (!both || (explanation.entry && both->rules_swapped() >= narrowest) || !explains(*both).passed) continue;
      explanation.entry = modelled[i];
      explanation.also = modelled[j];
      narrowest = both->rules_swapped();
    }
  }
  return explanation;
}

const Expectation* Expectations::expecting_failure(std::string_view backend, std::string_view version, const Case& c,
                                                   const CaseFeatures& features) const {
  for (const auto& x : entries) {
    if (x.flaky || !matches_case(x, backend, version, c, features)) continue;
    // Only an entry about named cases (or marked strict) says that a case must fail: a
    // broad entry (an op, a dtype) covers cases that the divergence need not reach.
    if (!x.cases.empty() || x.strict) return &x;
  }
  return nullptr;
}

std::vector<EntryCheck> check_expectations(const Expectations& expectations, const LoadResult& cases) {
  std::map<std::string, const CaseEntry*> by_name;
  for (const auto& entry : cases.cases) by_name.emplace(entry.name, &entry);
  std::vector<EntryCheck> checks;
  for (const auto& x : expectations.entries) {
    EntryCheck check{&x, x.model ? EntryCheck::Verdict::reproduced : EntryCheck::Verdict::unmodelled, {}};
    for (const auto& r : x.reproduced_by) {
      const auto problem = [&](const std::string& what) {
        check.problems.push_back(fmt::format("case '{}': {}", r.case_name, what));
      };
      const auto it = by_name.find(r.case_name);
      if (it == by_name.end() || !it->second->decl) {
        problem(it == by_name.end() ? "no such case among those loaded" : "the case is invalid");
        continue;
      }
      try {
        const auto c = materialize(*it->second->decl);
        const CaseFacts facts(c);
        const auto seen = detail::parse_values(detail::parse_bounded(r.output_json, "reproduced_by.output"), c.data.dtype(), c.data.shape());
        if (!matches_case(x, x.backend, x.min_version.empty() ? x.max_version : x.min_version, c, facts.features())) {
          problem("the entry's conditions (op, reduction, dtype, case) do not match it");
        }
        CompareOptions options;
        options.untouched_from_want = true;
        const auto modelled = x.model ? model_output(c, *x.model) : Tensor();
        if (x.model) {
          const auto cmp = compare_outputs(c, *seen, modelled, false, options);
          if (!cmp.passed) {
            const auto& m = cmp.worst.front();
            problem(fmt::format("the model gives {} at {}, the backend gave {}", m.expected, format_coord(m.coord), m.actual));
          }
        }
        if (compare_outputs(c, *seen, facts.want(), c.expected.has_value()).passed) {
          problem("the output seen is the spec's: the case does not show the divergence");
        }
      } catch (const Error& e) {
        problem(fmt::format("[{}] {}", to_string(e.code()), e.message()));
      } catch (const json::exception& e) {
        problem(e.what());
      }
    }
    if (!check.problems.empty()) check.verdict = EntryCheck::Verdict::failed;
    checks.push_back(std::move(check));
  }
  return checks;
}

Expectations load_expectations(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw Error(ErrorCode::io, "", "cannot read the expectations: no such file or directory").at(path, "");
  Expectations out;
  if (fs::is_directory(status)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (e.path().extension() == ".json" && e.is_regular_file()) files.push_back(e.path());
    }
    if (ec) throw Error(ErrorCode::io, "", fmt::format("cannot be listed: {}", ec.message())).at(path, "");
    std::sort(files.begin(), files.end());
    for (const auto& f : files) load_file(f, out);
  } else {
    load_file(path, out);
  }
  // An id names one entry: reports count xfails per id.
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& x : out.entries) {
    if (!seen.emplace(x.backend, x.id).second) {
      throw Error(ErrorCode::schema, fmt::format("expectations[{}].id", x.id),
                  fmt::format("duplicate id for backend {}", x.backend))
          .at(x.file, "");
    }
  }
  return out;
}

}  // namespace scatter

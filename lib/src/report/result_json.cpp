#include "result_json.hpp"

#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "text.hpp"

namespace scatter::detail {
namespace {

// JSON has no infinity or NaN: write them as strings, as case files do.
ordered_json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

[[noreturn]] void malformed(std::string_view field, const ordered_json& value) {
  throw Error(ErrorCode::json, std::string(field), fmt::format("= {} is not what a report holds here", preview(value)));
}

double number_from(const ordered_json& j, std::string_view field) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  malformed(field, j);
}

// The member `key` of `j` as T; a missing member is T's default (older reports lack some).
template <class T>
T member(const ordered_json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return T{};
  try {
    return it->template get<T>();
  } catch (const nlohmann::json::exception&) {
    malformed(key, *it);
  }
}

// An integer member within [low, high]; a missing one is 0. A number outside the range, or with a
// fraction, is malformed: get<int> would read 4294967299 as 3.
std::int64_t integer(const ordered_json& j, const char* key, std::int64_t low, std::int64_t high) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  const bool fits = (it->is_number_unsigned() && it->get<std::uint64_t>() <= static_cast<std::uint64_t>(high)) ||
                    (it->is_number_integer() && !it->is_number_unsigned());
  if (!fits || it->get<std::int64_t>() < low || it->get<std::int64_t>() > high) malformed(key, *it);
  return it->get<std::int64_t>();
}

// Seconds: a finite number, not negative.
double seconds_of(const ordered_json& j, const char* key) {
  const auto value = member<double>(j, key);
  if (!std::isfinite(value) || value < 0) malformed(key, j.at(key));
  return value;
}

Status status_from(const std::string& text) {
  for (auto s : {Status::passed, Status::failed, Status::error, Status::skipped, Status::xfail, Status::xpass}) {
    std::string name(to_string(s));
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name == text) return s;
  }
  malformed("status", text);
}

}  // namespace

ordered_json parse_json(const std::string& text, const std::string& what) {
  return detail::parse_bounded_ordered(text, what, detail::kMaxJsonDepth);
}

std::string status_text(const CaseResult& r) {
  if (r.invalid && r.status == Status::failed) return "error";
  std::string text(to_string(r.status));  // lower case: "FAILED" -> "failed"
  for (auto& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

ordered_json to_json(const Error& e) {
  return {{"code", to_string(e.code())}, {"file", e.file()},     {"case", e.case_name()},
          {"field", e.field()},          {"detail", e.detail()}, {"message", e.message()}};
}

Error error_from_json(const ordered_json& j) {
  ErrorCode code{};
  if (!parse_error_code(member<std::string>(j, "code"), code)) malformed("error.code", j.value("code", ordered_json()));
  // Reports before "detail" existed carry the message alone.
  const auto detail = j.contains("detail") ? member<std::string>(j, "detail") : member<std::string>(j, "message");
  return Error(code, j.contains("detail") ? member<std::string>(j, "field") : "", detail)
      .at(member<std::string>(j, "file"), member<std::string>(j, "case"));
}

ordered_json to_json(const Comparison& c) {
  ordered_json worst = ordered_json::array();
  for (const auto& m : c.worst) {
    worst.push_back({{"coord", m.coord},
                     {"offset", m.offset},
                     {"expected", m.expected},
                     {"actual", m.actual},
                     {"error", number(m.error)},
                     {"rule", to_string(m.rule)},
                     {"allowed", number(m.allowed)},
                     {"hits", m.hits},
                     {"updates", m.updates}});
  }
  return {{"passed", c.passed},
          {"against", c.against_expected ? "expected" : "ref"},
          {"rule", c.rule},
          {"elements", c.elements},
          {"mismatches", c.mismatches},
          {"exact_mismatches", c.exact_mismatches},
          {"duplicate_elements", c.duplicate_elements},
          {"accepted_duplicates", c.accepted_duplicates},
          {"max_error", number(c.max_error)},
          {"max_error_coord", c.max_error_coord},
          {"needed_atol", number(c.needed_atol)},
          {"needed_rtol", number(c.needed_rtol)},
          {"allclose_atol", number(c.allclose_atol)},
          {"order_excess", number(c.order_excess)},
          {"tolerance_applies", c.tolerance_applies},
          {"float_output", c.float_output},
          {"mismatch_features", c.mismatch_features},
          {"worst", worst}};
}

Comparison comparison_from_json(const ordered_json& j) {
  Comparison c;
  c.passed = member<bool>(j, "passed");
  c.against_expected = member<std::string>(j, "against") == "expected";
  c.rule = member<std::string>(j, "rule");
  c.elements = integer(j, "elements", 0, INT64_MAX);
  c.mismatches = integer(j, "mismatches", 0, INT64_MAX);
  c.exact_mismatches = integer(j, "exact_mismatches", 0, INT64_MAX);
  c.duplicate_elements = integer(j, "duplicate_elements", 0, INT64_MAX);
  c.accepted_duplicates = integer(j, "accepted_duplicates", 0, INT64_MAX);
  c.max_error = number_from(j.value("max_error", ordered_json(0)), "max_error");
  c.max_error_coord = member<std::vector<std::int64_t>>(j, "max_error_coord");
  c.needed_atol = number_from(j.value("needed_atol", ordered_json(0)), "needed_atol");
  c.needed_rtol = number_from(j.value("needed_rtol", ordered_json(0)), "needed_rtol");
  c.allclose_atol = number_from(j.value("allclose_atol", ordered_json(0)), "allclose_atol");
  c.order_excess = number_from(j.value("order_excess", ordered_json(0)), "order_excess");
  c.tolerance_applies = member<bool>(j, "tolerance_applies");
  c.float_output = member<bool>(j, "float_output");
  c.mismatch_features = member<std::vector<std::uint32_t>>(j, "mismatch_features");
  for (const auto& w : j.value("worst", ordered_json::array())) {
    Mismatch m;
    m.coord = member<std::vector<std::int64_t>>(w, "coord");
    m.offset = member<std::int64_t>(w, "offset");
    m.expected = member<std::string>(w, "expected");
    m.actual = member<std::string>(w, "actual");
    m.error = number_from(w.value("error", ordered_json(0)), "worst.error");
    const auto rule = member<std::string>(w, "rule");
    for (auto r : {Rule::exact, Rule::any_of_duplicates, Rule::allclose}) {
      if (to_string(r) == rule) m.rule = r;
    }
    m.allowed = number_from(w.value("allowed", ordered_json(0)), "worst.allowed");
    m.hits = member<std::int64_t>(w, "hits");
    m.updates = member<std::vector<std::vector<std::int64_t>>>(w, "updates");
    c.worst.push_back(std::move(m));
  }
  return c;
}

ordered_json to_json(const CaseResult& r) {
  ordered_json j{{"file", r.file},           {"case", r.name},          {"op", r.op},
                 {"reduction", r.reduction}, {"dtype", r.dtype},        {"backend", r.backend},
                 {"status", status_text(r)}, {"invalid", r.invalid},    {"strict", r.strict},
                 {"detail", r.detail},       {"expectation", r.expectation}, {"lowering", r.lowering},
                 {"version", r.version},     {"seconds", r.seconds}};
  if (!r.features.empty()) j["features"] = r.features;
  // A wrong output's cause (docs/diagnoses.md): a catalogue name, or null where none is known.
  if (detail::diagnosed(r)) j["cause"] = r.cause.empty() ? ordered_json(nullptr) : ordered_json(r.cause);
  if (r.error) j["error"] = to_json(*r.error);
  if (r.comparison) j["comparison"] = to_json(*r.comparison);
  return j;
}

CaseResult result_from_json(const ordered_json& j) {
  if (!j.is_object()) malformed("result", j);
  CaseResult r;
  r.file = member<std::string>(j, "file");
  r.name = member<std::string>(j, "case");
  r.op = member<std::string>(j, "op");
  r.reduction = member<std::string>(j, "reduction");
  r.dtype = member<std::string>(j, "dtype");
  r.backend = member<std::string>(j, "backend");
  r.invalid = member<bool>(j, "invalid");
  r.status = status_from(member<std::string>(j, "status"));
  if (r.status == Status::error && r.invalid) r.status = Status::failed;  // status_text's inverse
  r.strict = member<bool>(j, "strict");
  r.detail = member<std::string>(j, "detail");
  r.expectation = member<std::string>(j, "expectation");
  r.lowering = member<std::string>(j, "lowering");
  r.version = member<std::string>(j, "version");
  r.seconds = seconds_of(j, "seconds");
  r.features = member<std::vector<std::string>>(j, "features");
  if (j.contains("cause") && j["cause"].is_string()) r.cause = j["cause"].get<std::string>();
  if (j.contains("error")) r.error = error_from_json(j["error"]);
  if (j.contains("comparison")) r.comparison = comparison_from_json(j["comparison"]);
  return r;
}

ordered_json to_json(const RunContext& c) {
  ordered_json backends = ordered_json::array();
  for (const auto& b : c.backends) {
    backends.push_back({{"name", b.name}, {"available", b.available}, {"reason", b.reason}, {"device", b.device}});
    if (!b.spec.empty()) backends.back()["spec"] = b.spec;
  }
  ordered_json j = {{"tool", "scatterctl"},
                    {"version", c.version},
                    {"build_type", c.build_type},
                    {"cuda_compiled", c.cuda_compiled},
                    {"git_commit", c.git_commit},
                    {"date", c.date},
                    {"hostname", c.hostname},
                    {"command", c.command},
                    {"backends", backends}};
  if (const auto& s = c.selection) {
    j["selection"] = {{"shard", fmt::format("{}/{}", s->shard_index, s->shard_count)},
                      {"shard_index", s->shard_index},
                      {"shard_count", s->shard_count},
                      {"cases", s->whole},
                      {"fingerprint", s->fingerprint},
                      {"options", s->options}};
  }
  return j;
}

RunContext context_from_json(const ordered_json& j) {
  if (!j.is_object()) malformed("context", j);
  RunContext c;
  c.version = member<std::string>(j, "version");
  c.build_type = member<std::string>(j, "build_type");
  c.cuda_compiled = member<bool>(j, "cuda_compiled");
  c.git_commit = member<std::string>(j, "git_commit");
  c.date = member<std::string>(j, "date");
  c.hostname = member<std::string>(j, "hostname");
  c.command = member<std::string>(j, "command");
  for (const auto& b : j.value("backends", ordered_json::array())) {
    c.backends.push_back({member<std::string>(b, "name"), member<bool>(b, "available"), member<std::string>(b, "reason"),
                          member<std::string>(b, "device"), member<std::string>(b, "spec")});
  }
  if (const auto it = j.find("selection"); it != j.end()) {
    if (!it->is_object()) malformed("selection", *it);
    c.selection = SelectionRecord{static_cast<int>(integer(*it, "shard_index", 1, INT32_MAX)),
                                  static_cast<int>(integer(*it, "shard_count", 1, INT32_MAX)),
                                  static_cast<int>(integer(*it, "cases", 0, INT32_MAX)),
                                  member<std::string>(*it, "fingerprint"), member<std::string>(*it, "options")};
    const auto& s = *c.selection;
    if (s.shard_count < 1 || s.shard_index < 1 || s.shard_index > s.shard_count || s.whole < 0) {
      malformed("selection", *it);
    }
  }
  return c;
}

}  // namespace scatter::detail

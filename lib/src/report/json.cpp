// The JSON report: every result with its comparison, a context block, and a schema
// version, for dashboards and scripts.

#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "collect.hpp"

namespace scatter {
namespace {

using nlohmann::ordered_json;

// JSON has no infinity: write it as a string, as case files do.
ordered_json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

ordered_json error_json(const Error& e) {
  return {{"code", to_string(e.code())}, {"file", e.file()}, {"case", e.case_name()}, {"field", e.field()},
          {"message", e.message()}};
}

ordered_json comparison_json(const Comparison& c) {
  ordered_json worst = ordered_json::array();
  for (const auto& m : c.worst) {
    worst.push_back({{"coord", m.coord},
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
          {"duplicate_elements", c.duplicate_elements},
          {"accepted_duplicates", c.accepted_duplicates},
          {"max_error", number(c.max_error)},
          {"max_error_coord", c.max_error_coord},
          {"needed_atol", number(c.needed_atol)},
          {"worst", worst}};
}

// An invalid case is an error whatever its status: it never ran to a verdict.
std::string status_text(const CaseResult& r) {
  if (r.invalid && r.status == Status::failed) return "error";
  std::string text(to_string(r.status));  // lower case: "FAILED" -> "failed"
  for (auto& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

class JsonReporter final : public detail::CollectingReporter {
 public:
  using CollectingReporter::CollectingReporter;

 private:
  std::string render(const RunSummary& s) const override {
    ordered_json backends = ordered_json::array();
    for (const auto& b : context_.backends) {
      backends.push_back({{"name", b.name}, {"available", b.available}, {"reason", b.reason}, {"device", b.device}});
      if (!b.spec.empty()) backends.back()["spec"] = b.spec;
    }
    ordered_json doc;
    doc["schema_version"] = 1;
    doc["context"] = {{"tool", "scatterctl"},
                      {"version", context_.version},
                      {"build_type", context_.build_type},
                      {"cuda_compiled", context_.cuda_compiled},
                      {"git_commit", context_.git_commit},
                      {"date", context_.date},
                      {"hostname", context_.hostname},
                      {"command", context_.command},
                      {"backends", backends}};
    // failed is the closing line's (failures and errors together); failures and errors
    // split it as JUnit does: a failure ran and gave a wrong verdict, an error did not
    // run to a verdict (an unreadable file, an invalid case, a backend error or timeout).
    int failures = 0;
    int errors = static_cast<int>(file_errors_.size());
    for (const auto& r : results_) {
      const auto status = status_text(r);
      failures += status == "failed";
      errors += status == "error";
    }
    doc["summary"] = {{"passed", s.passed},       {"failed", s.failed},   {"skipped", s.skipped},
                      {"failures", failures},     {"errors", errors},
                      {"invalid", s.invalid},     {"selected", s.selected}, {"interrupted", s.interrupted},
                      {"xfail", s.xfailed},       {"xpass", s.xpassed},
                      {"skip_reasons", s.skip_reasons}, {"xfail_ids", s.xfail_ids},
                      {"exit_code", s.exit_code}, {"closing_line", closing_line(s)}};
    ordered_json file_errors = ordered_json::array();
    for (const auto& e : file_errors_) {
      auto j = error_json(e);
      j["status"] = "error";
      file_errors.push_back(std::move(j));
    }
    doc["file_errors"] = file_errors;
    ordered_json results = ordered_json::array();
    for (const auto& r : results_) {
      ordered_json j{{"file", r.file},       {"case", r.name},     {"op", r.op},
                     {"reduction", r.reduction}, {"dtype", r.dtype}, {"backend", r.backend},
                     {"status", status_text(r)},
                     {"invalid", r.invalid}, {"detail", r.detail}, {"expectation", r.expectation}, {"lowering", r.lowering}, {"version", r.version}, {"seconds", r.seconds}};
      if (r.error) j["error"] = error_json(*r.error);
      if (r.comparison) j["comparison"] = comparison_json(*r.comparison);
      results.push_back(std::move(j));
    }
    doc["results"] = results;
    // Every string is printable_text already (collect.hpp); replacing what is not valid
    // UTF-8 is a second guard, so that dump can never throw and lose the report.
    return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(const std::string& path, const RunContext& context) {
  return std::make_unique<JsonReporter>(path, context);
}

}  // namespace scatter

// The JSON report: every result with its comparison, a context block, and a schema
// version, for dashboards and scripts.

#include "collect.hpp"
#include "result_json.hpp"

namespace scatter {
namespace {

using nlohmann::ordered_json;

class JsonReporter final : public detail::CollectingReporter {
 public:
  using CollectingReporter::CollectingReporter;

 private:
  std::string render(const RunSummary& s) const override {
    ordered_json doc;
    doc["schema_version"] = kRunReportSchema;
    doc["context"] = detail::to_json(context_);
    // failed is the closing line's (failures and errors together); failures and errors
    // split it as JUnit does: a failure ran and gave a wrong verdict, an error did not
    // run to a verdict (an unreadable file, an invalid case, a backend error or timeout).
    int failures = 0;
    int errors = static_cast<int>(file_errors_.size());
    for (const auto& r : results_) {
      const auto status = detail::status_text(r);
      failures += status == "failed";
      errors += status == "error";
    }
    doc["summary"] = {{"passed", s.passed},       {"failed", s.failed},   {"skipped", s.skipped},
                      {"failures", failures},     {"errors", errors},
                      {"invalid", s.invalid},     {"selected", s.selected}, {"interrupted", s.interrupted},
                      {"stopped_early", s.stopped_early}, {"ended_early", s.ended_early},
                      {"xfail", s.xfailed},       {"xpass", s.xpassed},
                      {"skip_reasons", s.skip_reasons}, {"xfail_ids", s.xfail_ids},
                      {"exit_code", s.exit_code}, {"closing_line", closing_line(s)}};
    ordered_json file_errors = ordered_json::array();
    for (const auto& e : file_errors_) {
      auto j = detail::to_json(e);
      j["status"] = "error";
      file_errors.push_back(std::move(j));
    }
    doc["file_errors"] = file_errors;
    ordered_json results = ordered_json::array();
    for (const auto& r : results_) results.push_back(detail::to_json(r));
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

// fuzz --json: the failures of a fuzz run grouped by cause, each with its drawn and shrunk case.

#include <nlohmann/json.hpp>

#include "scatter/report.hpp"
#include "text.hpp"

namespace scatter {

std::string fuzz_json(const FuzzSummary& s, const FuzzOptions& options) {
  using json = nlohmann::ordered_json;
  const auto text_or_null = [](const std::string& text) { return text.empty() ? json(nullptr) : json(printable_text(text)); };
  json failures = json::array();
  for (const auto& f : s.failures) {
    failures.push_back({{"case", f.name},
                        {"backend", printable_text(f.backend)},
                        {"status", to_string(f.status)},
                        {"cause", text_or_null(f.cause)},
                        {"also", f.also},
                        {"cause_confirmed", text_or_null(f.confirmed)},
                        {"detail", printable_text(f.detail)},
                        {"case_file", printable_text(f.case_file)},
                        {"elements", f.elements},
                        {"minimal_file", text_or_null(f.minimal_file)},
                        {"minimal_elements", f.minimal_elements},
                        {"minimal_data_elements", f.minimal_data},
                        {"minimal_update_elements", f.minimal_updates},
                        {"shrink_seconds", f.shrink_seconds},
                        {"shrink_stopped", f.shrink_stopped},
                        {"minimal_output", text_or_null(f.minimal_output)},
                        {"minimal_want", text_or_null(f.minimal_want)}});
  }
  json causes = json::object();
  for (const auto& [cause, n] : s.causes) causes[cause] = n;
  json doc = {{"tool", "scatterctl fuzz"},
              {"seed", options.seed},
              {"first", options.first},
              {"iterations", options.iterations},
              {"summary",
               {{"cases", s.cases},
                {"runs", s.verdicts},
                {"failed", s.failed},
                {"xfail", s.xfailed},
                {"unsupported", s.skipped},
                {"interrupted", s.interrupted},
                {"causes", causes}}},
              {"failures", failures}};
  return doc.dump(2) + "\n";
}

}  // namespace scatter

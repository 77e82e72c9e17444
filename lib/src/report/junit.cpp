// JUnit XML as CI systems read it: testsuites/testsuite/testcase, classname = op,
// name = case@backend; <failure type="mismatch">, <error>, <skipped>.

#include <utility>

#include <fmt/format.h>

#include "collect.hpp"
#include "text.hpp"

namespace scatter {
namespace {

using detail::xml_escape;

class JunitReporter final : public detail::CollectingReporter {
 public:
  using CollectingReporter::CollectingReporter;

 private:
  std::string render(const RunSummary& s) const override {
    int failures = 0;
    int errors = static_cast<int>(file_errors_.size());
    int skipped = 0;
    double total = 0.0;
    for (const auto& r : results_) {
      failures += (r.status == Status::failed && !r.invalid) || (r.status == Status::xpass && r.strict);
      errors += r.status == Status::error || (r.status == Status::failed && r.invalid);
      skipped += r.status == Status::skipped;
      total += r.seconds;
    }
    // A run that stopped before its end is one error more: the cases it never reached are not a pass.
    const bool incomplete = s.interrupted || !s.ended_early.empty();
    errors += incomplete;
    const auto tests = static_cast<int>(results_.size() + file_errors_.size()) + incomplete;
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format("<testsuites name=\"scatterctl\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\">\n",
                       tests, failures, errors, skipped, total);
    out += fmt::format("  <testsuite name=\"scatterctl\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\" timestamp=\"{}\" hostname=\"{}\">\n",
                       tests, failures, errors, skipped, total, xml_escape(context_.date), xml_escape(context_.hostname));
    out += "    <properties>\n";
    auto property = [&](const std::string& name, const std::string& value) {
      out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name), xml_escape(value));
    };
    property("scatterctl.version", context_.version);
    if (!context_.git_commit.empty()) property("git.commit", context_.git_commit);
    property("build", context_.build_type);
    for (const auto& b : context_.backends) {
      property("backend." + b.name, b.available ? "available" : "unavailable: " + b.reason);
      if (b.available) property("device." + b.name, b.device);
    }
    property("closing_line", closing_line(s));
    if (s.interrupted) property("interrupted", "true");
    if (!s.ended_early.empty()) property("ended_early", s.ended_early);
    out += "    </properties>\n";
    if (incomplete) {
      const auto [name, how] = s.interrupted ? std::pair<std::string, std::string>{"interrupted", "was interrupted"}
                                             : std::pair<std::string, std::string>{"ended_early", "ended early: " + s.ended_early};
      out += fmt::format("    <testcase classname=\"run\" name=\"{}\" time=\"0\">\n", name);
      out += fmt::format("      <error message=\"the run {}: {} results for the {} selected cases are above; the rest "
                         "did not run\" type=\"{}\"/>\n",
                         xml_escape(how), results_.size(), s.selected, name);
      out += "    </testcase>\n";
    }
    for (const auto& e : file_errors_) {
      out += fmt::format("    <testcase classname=\"load\" name=\"{}\" file=\"{}\" time=\"0\">\n", xml_escape(e.file()),
                         xml_escape(e.file()));
      out += fmt::format("      <error message=\"{}\" type=\"{}\"/>\n", xml_escape(describe(e)), to_string(e.code()));
      out += "    </testcase>\n";
    }
    for (const auto& r : results_) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}@{}\" file=\"{}\" time=\"{:.6f}\">\n", xml_escape(r.op),
                         xml_escape(r.name), xml_escape(r.backend), xml_escape(r.file), r.seconds);
      // An invalid case never ran to a verdict: an error, not a failure.
      if (r.status == Status::error || (r.status == Status::failed && r.invalid)) {
        const auto code = r.error ? std::string(to_string(r.error->code())) : r.invalid ? "invalid" : "error";
        out += fmt::format("      <error message=\"{}\" type=\"{}\"/>\n", xml_escape(r.detail), xml_escape(code));
      } else if (r.status == Status::xpass && r.strict) {  // fails the run: a failure, not a pass
        out += fmt::format("      <failure message=\"{}\" type=\"xpass\"/>\n", xml_escape(r.detail));
      } else if (r.status == Status::failed) {
        const auto text = r.comparison ? detail::comparison_text(*r.comparison, "") : r.detail;
        out += fmt::format("      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n",
                           xml_escape(detail::worst_text(r)), xml_escape(text));
      } else if (r.status == Status::skipped) {
        out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(r.detail));
      } else if (r.status == Status::xfail || r.status == Status::xpass) {
        out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(r.detail));
      }
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n</testsuites>\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<Reporter> make_junit_reporter(const std::string& path, const RunContext& context) {
  return std::make_unique<JunitReporter>(path, context);
}

}  // namespace scatter

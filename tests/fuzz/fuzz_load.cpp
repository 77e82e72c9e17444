// libFuzzer: any bytes as a case file. load_text must turn every input into cases or
// errors; each valid declared case small enough to run is materialized, run on the
// reference, and compared (with its expected output, or with itself). Then the whole
// input goes through run_cases on the ref backend into the JSON, JUnit and Markdown
// reporters, as `scatterctl run FILE --backend ref --json --junit --markdown` would:
// each report must be written, be printable text (valid UTF-8, no control character
// but tab and newline: what XML 1.0 and JSON need), and the JSON must parse. The file
// is named after the input's first bytes, so names carry any bytes too.
// A crash, a sanitizer report, a hang or an exception other than scatter::Error is a bug.
// Relative `file` sources resolve against the working directory (scripts/fuzz.sh runs
// where npy/ holds the .npy files of cases/ and tests/bad_inputs/, so the seeds' files
// are read too).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scatter/backend.hpp"
#include "scatter/compare.hpp"
#include "scatter/load.hpp"
#include "scatter/report.hpp"
#include "scatter/run.hpp"

namespace {

constexpr std::uint64_t kMaxCaseBytes = 1 << 20;  // bigger cases cost time, not coverage

[[noreturn]] void bug(const std::string& what, const std::string& text) {
  std::fprintf(stderr, "fuzz_load: %s\n--- report (%zu bytes)\n%s\n---\n", what.c_str(), text.size(), text.c_str());
  std::abort();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bug("a report was not written: " + path, "");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A directory of this process's own for the reports, removed at exit.
const std::string& report_dir() {
  static const std::string dir = [] {
    std::string templ = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                        "/fuzz_load_reports.XXXXXX";
    if (!mkdtemp(templ.data())) bug("cannot make a directory for the reports", templ);
    static std::string removal;
    removal = templ;
    std::atexit([] {
      for (const char* f : {"/r.json", "/r.xml", "/r.md"}) std::remove((removal + f).c_str());
      rmdir(removal.c_str());
    });
    return templ;
  }();
  return dir;
}

// The input's first bytes as a file name: any byte but '/' and NUL (a path must stay a path).
std::string file_name(const std::string& text) {
  std::string name = "fuzz-";
  for (std::size_t i = 0; i < text.size() && i < 8; ++i) {
    const char c = text[i];
    name += c == '/' || c == '\0' ? '_' : c;
  }
  return name + ".json";
}

void run_and_report(const scatter::LoadResult& loaded) {
  static const auto all = [] {
    std::vector<std::unique_ptr<scatter::Backend>> v;
    v.push_back(scatter::make_ref_backend());
    return v;
  }();
  static const auto context = scatter::make_run_context(all, "scatterctl run fuzz.json --backend ref");
  scatter::BackendChoice backends;
  backends.run.push_back(all.front().get());
  const auto& dir = report_dir();
  const std::string json_path = dir + "/r.json", xml_path = dir + "/r.xml", md_path = dir + "/r.md";
  for (const auto& p : {json_path, xml_path, md_path}) std::remove(p.c_str());
  std::vector<std::unique_ptr<scatter::Reporter>> sinks;
  sinks.push_back(scatter::make_json_reporter(json_path, context));
  sinks.push_back(scatter::make_junit_reporter(xml_path, context));
  sinks.push_back(scatter::make_markdown_reporter(md_path, context));
  auto reporter = scatter::make_tee_reporter(std::move(sinks));
  (void)scatter::run_cases(loaded, scatter::Selection{}, backends, *reporter);  // throws nothing for bad input

  for (const auto& p : {json_path, xml_path, md_path}) {
    const auto report = read_all(p);
    if (report.empty()) bug("an empty report: " + p, report);
    if (scatter::printable_text(report) != report) bug("a report is not printable UTF-8: " + p, report);
  }
  const auto json_text = read_all(json_path);
  if (!nlohmann::json::accept(json_text)) bug("the JSON report does not parse", json_text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  scatter::LoadOptions options;
  options.max_bytes = 64 * kMaxCaseBytes;  // let the size check itself be fuzzed, then skip big cases below
  auto loaded = scatter::load_text(text, file_name(text), options);
  for (const auto& entry : loaded.cases) {
    if (!entry.decl || scatter::case_bytes(*entry.decl) >= kMaxCaseBytes) continue;
    try {
      const auto c = scatter::materialize(*entry.decl);
      const auto out = scatter::reference_scatter(c);
      const auto& want = c.expected ? *c.expected : out;
      (void)scatter::compare_outputs(c, out, want, c.expected.has_value());
    } catch (const scatter::Error&) {
      // A rejected case (values, index, io, ...): the usual outcome of random bytes.
    }
  }
  // The run skips nothing, so leave out the cases too big to run quickly (as above).
  std::erase_if(loaded.cases, [](const scatter::CaseEntry& entry) {
    return entry.decl && scatter::case_bytes(*entry.decl) >= kMaxCaseBytes;
  });
  run_and_report(loaded);
  return 0;
}

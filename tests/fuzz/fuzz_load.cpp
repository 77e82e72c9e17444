// libFuzzer: any bytes as a case file. load_text must turn every input into cases or
// errors; each valid declared case small enough to run is materialized, run on the
// reference, and compared (with its expected output, or with itself). A crash, a
// sanitizer report, a hang or an exception other than scatter::Error is a bug.
// Relative `file` sources resolve against the working directory (scripts/fuzz.sh runs
// where npy/ holds the .npy files of cases/ and tests/bad_inputs/, so the seeds' files
// are read too).

#include <cstddef>
#include <cstdint>
#include <string>

#include "scatter/backend.hpp"
#include "scatter/compare.hpp"
#include "scatter/load.hpp"

namespace {

constexpr std::uint64_t kMaxCaseBytes = 1 << 20;  // bigger cases cost time, not coverage

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  scatter::LoadOptions options;
  options.max_bytes = 64 * kMaxCaseBytes;  // let the size check itself be fuzzed, then skip big cases below
  const auto loaded = scatter::load_text(text, "fuzz.json", options);
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
  return 0;
}

// scatterctl fuzz: random valid cases on the backends against the reference; failures
// become case files.

#include <algorithm>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "outputs.hpp"
#include "commands.hpp"
#include "scatter/diagnose.hpp"
#include "scatter/explain.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct FuzzFlags {
  std::int64_t iterations = 1000;
  std::uint64_t seed = 1;
  std::string shard;
  BackendFlags backends;
  std::int64_t max_elements = 4096;
  std::string out_dir;
  bool in_place = false;
  bool deterministic = false;
  bool check_launches = false;
  ExpectationFlags expectations;
  double shrink_seconds = 5.0;
  double invalid_share = 0.0;
  bool no_shrink = false;
  std::string json_path;
};

// The failures grouped by cause, most first: each group's explanation, its smallest shrunk case
// and that case's explain trace (the bug, step by step).
void print_causes(const FuzzSummary& summary) {
  if (summary.failures.empty()) return;
  std::vector<std::pair<std::string, int>> groups(summary.causes.begin(), summary.causes.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> counts;
  for (const auto& [cause, n] : groups) counts.push_back(fmt::format("{} {}", n, cause));
  std::cout << fmt::format("fuzz: {} failures: {}\n", summary.failures.size(), fmt::join(counts, ", "));
  for (const auto& [cause, n] : groups) {
    // A failure's case as it was kept: shrunk where it could be.
    const auto size = [](const FuzzFailure& f) { return f.minimal_file.empty() ? f.elements : f.minimal_elements; };
    const FuzzFailure* smallest = nullptr;
    for (const auto& f : summary.failures) {
      if (fuzz_group(f) == cause && (!smallest || size(f) < size(*smallest))) smallest = &f;
    }
    const auto why = cause == "none known" ? "no catalogued bug computes these outputs (docs/diagnoses.md)"
                     : cause == "error"    ? "the backend raised, crashed or broke the protocol: no output to diagnose"
                                           : cause_explanation(cause);
    std::cout << fmt::format("\n{} ({}): {}\n", cause, n, why);
    if (!smallest) continue;
    const auto& file = smallest->minimal_file.empty() ? smallest->case_file : smallest->minimal_file;
    std::cout << fmt::format("  smallest: {} on {} ({} elements of data, indices and updates)\n", file,
                             smallest->backend, size(*smallest));
    if (!smallest->minimal_output.empty()) {
      std::cout << fmt::format("  it returned: {}\n  the spec's:  {}\n", smallest->minimal_output, smallest->minimal_want);
    }
    LoadOptions load_options;
    load_options.max_bytes = default_max_bytes();
    const auto loaded = load_paths({file}, load_options);
    // No trace for a case the spec refuses (--invalid-share): it would scatter outside the data.
    if (loaded.cases.size() == 1 && loaded.cases.front().decl && !loaded.cases.front().expect_error) {
      std::ostringstream trace;
      explain(materialize(*loaded.cases.front().decl), trace, {20, 64});
      std::istringstream lines(trace.str());
      for (std::string line; std::getline(lines, line);) std::cout << "    " << line << "\n";
    }
  }
  std::cout << "\n";
}

int fuzz(const FuzzFlags& o, const Invocation& invocation) {
  // A typo costs nothing: the report and the folder of failing cases are checked first.
  Outputs()
      .reads(o.backends)
      .reads(o.expectations)
      .folder("--out", o.out_dir.empty() ? "fuzz-failures" : o.out_dir)
      .file("--json", o.json_path)
      .check();
  const auto expectations = expectations_for(o.expectations);  // a bad file is refused before any worker starts
  const auto chosen = choose(o.backends, invocation.self_exe, true);
  if (!chosen) return kExitEnv;
  FuzzOptions options;
  options.seed = o.seed;
  options.iterations = o.iterations;
  std::string part;
  if (!o.shard.empty()) {
    // Part I of N runs the I-th of N consecutive runs of the stream's cases: the parts are
    // disjoint, cover [0, iterations) and name each case as the whole run would.
    Selection shard;
    parse_shard(o.shard, shard);
    // The first (K mod N) parts take one case more; no product that could overflow.
    const auto start_of = [&](std::int64_t part) {
      return o.iterations / shard.shard_count * part + std::min<std::int64_t>(part, o.iterations % shard.shard_count);
    };
    options.first = start_of(shard.shard_index - 1);
    options.iterations = start_of(shard.shard_index) - options.first;
    part = options.iterations == 0
               ? fmt::format(" (part {}/{} of {} holds none)", shard.shard_index, shard.shard_count, o.iterations)
               : fmt::format(" ({}..{} of {}, part {}/{})", options.first, options.first + options.iterations - 1,
                             o.iterations, shard.shard_index, shard.shard_count);
  }
  options.max_elements = o.max_elements;
  options.out_dir = o.out_dir.empty() ? "fuzz-failures" : o.out_dir;
  options.flags = {o.in_place, o.deterministic};
  options.flags.check_launches = o.check_launches;
  options.expectations = expectations ? &*expectations : nullptr;
  options.shrink_seconds = o.no_shrink ? 0.0 : o.shrink_seconds;
  options.invalid_share = o.invalid_share;
  std::vector<std::string> names;
  for (auto* b : chosen->choice.run) names.emplace_back(b->label());
  std::cout << fmt::format("fuzz: {} cases{}, seed {}, backends {}{}{}\n", options.iterations, part, o.seed,
                           fmt::join(names, ","), o.deterministic ? ", deterministic" : "",
                           o.in_place ? ", in place" : "");
  const auto summary =
      run_fuzz(options, chosen->choice.run, [](const std::string& line) { std::cout << line << std::endl; });
  print_causes(summary);
  for (const auto& [id, n] : summary.xfail_ids) std::cout << fmt::format("fuzz: xfail {} x{}\n", id, n);
  // How many cases each backend ran: one that declares little must not look fuzzed by the count.
  for (const auto* b : chosen->choice.run) {
    const auto it = summary.ran_on.find(std::string(b->label()));
    std::cout << fmt::format("fuzz: {} ran {} of {} cases\n", b->label(), it == summary.ran_on.end() ? 0 : it->second,
                             summary.cases);
  }
  std::cout << fmt::format("fuzz: {} cases, {} runs, {} failures, {} xfail, {} unsupported{}{}\n", summary.cases,
                           summary.verdicts, summary.failed, summary.xfailed, summary.skipped,
                           summary.failed ? " (case files under " + options.out_dir + ")" : "",
                           summary.interrupted ? ", interrupted" : "");
  if (!o.json_path.empty()) {
    try {
      write_file_atomically(o.json_path, fuzz_json(summary, options));
    } catch (const Error& e) {
      std::cerr << fmt::format("scatterctl: --json {}: {}\n", o.json_path, e.message());
      return kExitIo;
    }
  }
  // Nothing compared is no pass (as for run and bench): no case drawn (--iterations 0, an empty
  // part), or every case outside what the backends declare.
  const int decided = summary.decide_exit(summary.interrupted, false, summary.verdicts == 0);
  for (const auto& why : summary.unwritten) std::cerr << "scatterctl: a case file was not written: " << why << "\n";
  // A failing run keeps its 1; a passing one with a file missing is not a pass.
  const int exit_code = decided == kExitOk && !summary.unwritten.empty() ? static_cast<int>(kExitIo) : decided;
  if (exit_code == kExitNothing) {
    std::cerr << fmt::format("scatterctl: fuzz compared nothing: {}\n",
                             summary.cases == 0 ? "no case was drawn (--iterations 0, or an empty --shard part)"
                                                : "every case was unsupported by the backends asked for");
  }
  return exit_code;
}

}  // namespace

Command add_fuzz_command(CLI::App& app) {
  auto o = std::make_shared<FuzzFlags>();
  auto* cmd = app.add_subcommand("fuzz", "random valid cases on the backends, compared with ref; failures saved");
  cmd->add_option("--iterations", o->iterations, "cases to draw (default 1000)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o->seed, "the stream of cases (default 1); a case file names its seed");
  cmd->add_option("--shard", o->shard,
                  "I/N: run the I-th of N consecutive parts of the --iterations cases; auto[/N]: I and N from the CI's "
                  "parallel-job variables (docs/sharding.md)");
  add_backend(cmd, o->backends);
  cmd->add_option("--max-elements", o->max_elements, "elements per tensor at most (default 4096)")
      ->check(positive("a positive number"));
  cmd->add_option("--out", o->out_dir, "where failing cases are written (default fuzz-failures/)");
  cmd->add_flag("--in-place", o->in_place, "scatter into data's own buffer");
  cmd->add_flag("--deterministic", o->deterministic, "fixed reduction order: every output must match bit for bit");
  cmd->add_flag("--check-launches", o->check_launches,
                "cuda: wait for and check every kernel launch (slower; names the kernel of a device fault)");
  cmd->add_option("--shrink-seconds", o->shrink_seconds,
                  "shrink each failure to a minimal case for at most this long (default 5)")
      ->check(non_negative("zero or more seconds"));
  add_call_timeout(cmd, o->backends);
  cmd->add_flag("--no-shrink", o->no_shrink, "keep the drawn failing cases as they are");
  cmd->add_option("--invalid-share", o->invalid_share,
                  "this share (0 to 1) of the drawn cases gets one index out of range: each backend must refuse "
                  "it (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--json", o->json_path, "write the failures, grouped by cause, with their cases, to this file");
  add_external(cmd, o->backends);
  add_expectations(cmd, o->expectations);
  return {cmd, [o](const Invocation& invocation) { return fuzz(*o, invocation); }};
}

}  // namespace scatter::cli

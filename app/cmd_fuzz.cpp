// scatterctl fuzz: random valid cases on the backends against the reference; failures
// become case files.

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/fuzz.hpp"

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
};

int fuzz(const FuzzFlags& o, const Invocation& invocation) {
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
  std::vector<std::string> names;
  for (auto* b : chosen->choice.run) names.emplace_back(b->label());
  std::cout << fmt::format("fuzz: {} cases{}, seed {}, backends {}{}{}\n", options.iterations, part, o.seed,
                           fmt::join(names, ","), o.deterministic ? ", deterministic" : "",
                           o.in_place ? ", in place" : "");
  const auto summary =
      run_fuzz(options, chosen->choice.run, [](const std::string& line) { std::cout << line << std::endl; });
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
  // Nothing compared is no pass (as for run and bench): no case drawn (--iterations 0, an empty
  // part), or every case outside what the backends declare.
  const int exit_code = summary.decide_exit(summary.interrupted, false, summary.verdicts == 0);
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
  add_external(cmd, o->backends);
  add_expectations(cmd, o->expectations);
  return {cmd, [o](const Invocation& invocation) { return fuzz(*o, invocation); }};
}

}  // namespace scatter::cli

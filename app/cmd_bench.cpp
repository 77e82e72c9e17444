// scatterctl bench: time the selected backends on the built-in suite (or the given
// cases); report time, GB/s and % of the copy bandwidth measured in the same run.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "outputs.hpp"
#include "bench_list.hpp"
#include "commands.hpp"
#include "scatter/cancel.hpp"
#include "usage.hpp"
#include "scatter/counter.hpp"
#include "scatter/paired.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct BenchFlags {
  std::vector<std::string> paths;
  std::string mode = "all";
  std::string size = "small";
  BackendFlags backends;
  SelectionFlags selection;  // --filter, --shard and --max-bytes only
  std::string json;
  std::string markdown;
  bool hot = false;
  double max_seconds = 0.0;
  // The regression gate's settings are the defaults.
  int repetitions = 3;  // rounds over the suite
  int min_samples = 5;  // per benchmark and round
  bool no_verify = false;
  bool reference_ref = false;
  bool list = false;
  bool progress = false;  // a line a benchmark on stderr also when it is no terminal
  std::uint64_t seed = 1;
  std::string variation_seed;  // hex; "": the operating system's randomness
  std::string gate;            // BASE,NEW: the paired gate after the run
  double gate_budget = 120.0;  // seconds of further rounds for undecided benchmarks
  std::string threshold;  // --gate: "" is the counter's default (counter.hpp: default_threshold)
  std::string counter = "time";
  ExpectationFlags expectations;
};

Counter counter_of(const BenchFlags& o) { return o.counter == "instructions" ? Counter::instructions : Counter::time; }

BenchSize bench_size(const std::string& size) {
  return size == "medium" ? BenchSize::medium : size == "large" ? BenchSize::large : BenchSize::small;
}

// The built-in suite of --mode and --size, or the given cases; --filter on their names.
std::vector<BenchItem> bench_items(const BenchFlags& o) {
  std::vector<BenchItem> items;
  if (o.paths.empty()) {
    const BenchMode mode = bench_mode_named(o.mode).value_or(BenchMode::all);
    items = builtin_suite(mode, bench_size(o.size));
    // --filter and --shard pick among the suite's names; its benchmarks carry no tags.
    auto selection = o.selection.selection();
    selection.tags.clear();
    std::erase_if(items, [&](const BenchItem& i) {
      CaseEntry e;
      e.name = i.name;
      return !is_selected(e, selection);
    });
    return items;
  }
  const auto loaded = load(o.paths, o.selection.max_bytes);
  say_file_errors(loaded);
  const auto selection = o.selection.selection();
  for (const auto& entry : loaded.cases) {
    if (!entry.decl || entry.expect_error || !is_selected(entry, selection)) continue;
    items.push_back({entry.name, "case", *entry.decl, false, false});
  }
  return items;
}

BenchOptions bench_options(const BenchFlags& o, const Expectations* expectations) {
  BenchOptions options;
  options.expectations = expectations;
  options.cold = !o.hot;
  options.max_seconds = o.max_seconds > 0 ? o.max_seconds : bench_size(o.size) == BenchSize::small ? 0.25 : 2.0;
  options.repetitions = o.repetitions;
  options.min_samples = o.min_samples;
  options.verify = !o.no_verify;
  options.reference_from_cpu = !o.reference_ref;
  options.seed = o.seed;
  if (!o.variation_seed.empty()) {
    std::size_t used = 0;
    try {
      options.variation_seed = std::stoull(o.variation_seed, &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != o.variation_seed.size() || options.variation_seed == 0) {
      throw Error(ErrorCode::schema, "--variation-seed",
                  fmt::format("= '{}' is not a report's variation_seed (16 hexadecimal digits, not all zero)",
                              o.variation_seed.substr(0, 40)));
    }
  }
  options.counter = counter_of(o);
  // A count does not depend on the caches, and flushing them under valgrind costs seconds.
  if (options.counter == Counter::instructions) options.cold = false;
  if (const char* slow = std::getenv("SCATTERCTL_BENCH_SLOWDOWN"); slow && *slow) {
    options.slowdown = parse_slowdown(slow);  // test-only: a real slowdown, for measuring the gate
    for (const auto& slow : options.slowdown) {
      std::cerr << fmt::format("scatterctl: SCATTERCTL_BENCH_SLOWDOWN: {} on {} takes {}x as long\n", slow.glob,
                               slow.label.empty() ? "every backend" : slow.label, slow.factor);
    }
  }
  return options;
}

// The table on stdout, the reports, the warnings; exit 1 when a benchmark failed or errored.
int print_report(BenchReport& report, const BenchFlags& o) {
  report.context.mode = o.paths.empty() ? o.mode : "cases";
  report.context.size = o.size;
  // Date and host only: an empty backend list starts no framework worker.
  const auto when = make_run_context({}, "");
  report.context.date = when.date;
  report.context.host = when.hostname;
  std::cout << bench_table(report);
  if (!o.json.empty()) write_text(o.json, bench_json(report));
  if (!o.markdown.empty()) write_text(o.markdown, bench_markdown(report));
  if (report.context.load_end.busy()) {
    std::cerr << fmt::format("scatterctl: warning: the machine was busy (load {:.2f} at the end on {} CPUs): the "
                             "timings are noisy\n",
                             report.context.load_end.load1, report.context.load_end.cpus);
  }
  // The trial's statuses, counted as every command counts them (Tally): skipped and xfail rows
  // have no number but fail nothing; a strict XPASS fails.
  Tally tally;
  for (const auto& r : report.rows) tally.add(r.status, r.strict, r.backend, r.error);
  const bool nothing_measured = std::none_of(report.rows.begin(), report.rows.end(), [](const BenchRow& r) { return r.timed(); });
  const int exit_code = tally.decide_exit(false, false, nothing_measured);
  if (tally.failed > 0) {
    std::cerr << fmt::format("scatterctl: {} benchmark{} failed or errored (no timing)\n", tally.failed,
                             tally.failed == 1 ? "" : "s");
  } else if (exit_code == kExitNothing) {
    std::cerr << "scatterctl: nothing was measured: every benchmark was skipped on every backend (exit 4)\n";
  }
  return exit_code;
}

// --gate BASE,NEW: the two labels, each a backend of the run.
std::pair<std::string, std::string> gate_labels(const BenchFlags& o, const std::vector<Backend*>& run) {
  const auto labels = split_commas(o.gate);
  const auto known = [&](const std::string& label) {
    return std::any_of(run.begin(), run.end(), [&](const Backend* b) { return b->label() == label; });
  };
  if (labels.size() != 2 || labels[0] == labels[1]) {
    throw Error(ErrorCode::schema, "--gate", fmt::format("= '{}' is not BASE,NEW (two labels of --backend)", o.gate));
  }
  for (const auto& label : labels) {
    if (!known(label)) {
      throw Error(ErrorCode::schema, "--gate",
                  fmt::format("'{}' is not a backend of this run (--backend {}=SPEC names one)", label, label));
    }
  }
  return {labels[0], labels[1]};
}

// The paired gate over the run, then more rounds of the benchmarks still undecided
// (gate_until_decided). Prints its table; returns the gate's code.
int gate(BenchReport& report, const BenchFlags& o, const std::vector<BenchItem>& items,
         const std::vector<Backend*>& run, const BenchOptions& options) {
  const auto [base, next] = gate_labels(o, run);
  PairedOptions paired;  // without --threshold, the report's counter's default
  if (!o.threshold.empty()) paired.threshold = parse_percent(o.threshold, "--threshold");
  std::vector<Backend*> pair;
  for (auto* b : run) {
    if (b->label() == base || b->label() == next) pair.push_back(b);
  }
  const auto verdict = gate_until_decided(report, items, pair, base, next, options, paired, o.gate_budget,
                                          [](const std::string& step) { std::cerr << "scatterctl: --gate: " << step << "\n"; });
  std::cout << "\n" << paired_table(verdict);
  if (verdict.undecided > 0) {
    std::cerr << fmt::format("scatterctl: {} benchmark{} still undecided after {:.0f} s of further rounds (--gate-budget "
                             "{}): exit {}\n",
                             verdict.undecided, verdict.undecided == 1 ? "" : "s", verdict.gate_seconds, o.gate_budget,
                             static_cast<int>(kExitUndecided));
  }
  if (!o.markdown.empty()) write_text(o.markdown, bench_markdown(report) + "\n" + paired_markdown(verdict));
  return verdict.exit_code();
}

int bench(const BenchFlags& o, const Invocation& invocation) {
  // A listing too reads the cases and writes --json: the same door first.
  Outputs().reads_cases(o.paths).reads(o.backends).reads(o.expectations).file("--json", o.json).file("--markdown", o.markdown).check();
  // A listing runs nothing: no backend is made, no worker started.
  if (o.list) return list_bench(bench_items(o), {o.paths.empty() ? o.mode : "cases", o.size}, o.json);
  auto backend_flags = o.backends;
  backend_flags.count_instructions = counter_of(o) == Counter::instructions;
  backend_flags.timed = true;
  const auto chosen = choose(backend_flags, invocation.self_exe, true);
  if (!chosen) return kExitEnv;
  const auto items = bench_items(o);
  if (items.empty()) {
    std::cerr << "scatterctl: nothing selected\n";
    return kExitNothing;
  }
  const auto expectations = expectations_for(o.expectations);
  const auto options = bench_options(o, expectations ? &*expectations : nullptr);
  const auto load_start = machine_load();
  if (load_start.busy()) {
    std::cerr << fmt::format("scatterctl: warning: the machine is busy (load {:.2f} on {} CPUs): timings will be noisy\n",
                             load_start.load1, load_start.cpus);
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  int done = 0;
  const auto steps = items.size() * static_cast<std::size_t>(std::max(options.repetitions, 1));
  // An interrupt stops run_bench after the benchmark in hand; the report of those finished is
  // still written, so that a run ended by a time limit keeps its numbers.
  auto last = std::chrono::steady_clock::now();
  auto result = run_bench(items, chosen->choice.run, options, [&](const BenchProgress& step) {
    if (!step.took.empty()) {
      if (o.progress) std::cerr << fmt::format("      {}\n", step.took);
      return;
    }
    ++done;
    if (o.progress) {
      const auto now = std::chrono::steady_clock::now();
      std::cerr << fmt::format("[{}/{}] {} ({:.1f} s since the last start)\n", done, steps, step.name,
                               std::chrono::duration<double>(now - last).count());
      last = now;
    } else if (tty) {
      std::cerr << fmt::format("\r\033[K[{}/{}] {}", done, steps, step.name) << std::flush;
    }
  });
  if (tty && !o.progress) std::cerr << "\r\033[K" << std::flush;
  if (result.context.interrupted) {
    print_report(result, o);
    const auto measured =
        std::count_if(result.rows.begin(), result.rows.end(), [](const BenchRow& r) { return r.timed(); });
    std::cerr << fmt::format("scatterctl: interrupted: the report holds the {} row{} measured before it\n", measured,
                             measured == 1 ? "" : "s");
    return kExitInterrupted;
  }
  if (o.gate.empty()) return print_report(result, o);
  const int measured = print_report(result, o);
  const int gated = gate(result, o, items, chosen->choice.run, options);
  if (!o.json.empty()) write_text(o.json, bench_json(result));  // with the gate's further rounds
  if (result.context.interrupted) return kExitInterrupted;
  return measured != kExitOk ? measured : gated;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand("bench", "time the backends on a built-in suite (or the given cases)");
  cmd->add_option("paths", o->paths, "case files or directories (default: the built-in suite)");
  cmd->add_option("--mode", o->mode, "nd, elements, update, workload or all (default all)")
      ->check(one_of(bench_mode_names()));
  cmd->add_option("--size", o->size, "small, medium or large (default small)")
      ->check(one_of({"small", "medium", "large"}));
  add_backend(cmd, o->backends);
  cmd->add_option("--filter", o->selection.filters, "glob on benchmark names; a leading '-' excludes (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--shard", o->selection.shard,
                  "I/N: the I-th of N stable parts of the benchmarks (by name); auto[/N]: I and N from the CI's "
                  "parallel-job variables (docs/sharding.md)");
  cmd->add_option("--json", o->json, "write the report (Google Benchmark's JSON schema) to FILE");
  cmd->add_option("--markdown", o->markdown, "write a Markdown summary to FILE");
  cmd->add_flag("--hot", o->hot, "do not flush caches between samples");
  cmd->add_option("--max-seconds", o->max_seconds, "sampling time per benchmark (default 0.25 small, 2 otherwise)")
      ->check(positive("a positive number"));
  cmd->add_option("--max-bytes", o->selection.max_bytes, "reject cases needing more host memory");
  cmd->add_option("--repetitions", o->repetitions,
                  "rounds over the suite, each taking --min-samples or more per benchmark (default 3)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--min-samples", o->min_samples, "samples per benchmark and round at least (default 5)")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--no-verify", o->no_verify,
                "do not check each backend's output against the reference (for huge cases)");
  cmd->add_flag("--reference-ref", o->reference_ref,
                "make the reference with ref on one thread, not the cpu backend on every core (bit for bit the same; "
                "the default where no backend judged is the cpu backend)");
  cmd->add_flag("--list", o->list,
                "print the selected benchmarks (op, dtype, shapes, bytes) and run nothing; --json FILE (- for stdout) "
                "as JSON");
  cmd->add_flag("--progress", o->progress,
                "print a line as each benchmark starts, with the time since the last, also when stderr is no "
                "terminal (a log of a run cut short shows where its time went)");
  cmd->add_option("--seed", o->seed, "seed of the order of the backends within each round (default 1)");
  cmd->add_option("--variation-seed", o->variation_seed,
                  "replay the varied inputs of a report's run (its context.variation_seed); by default each run "
                  "draws them from the operating system's randomness, which no kernel can read beforehand");
  cmd->add_option("--gate", o->gate,
                  "BASE,NEW: after the run, the paired gate of NEW against BASE (two labels of --backend); "
                  "undecided benchmarks get more rounds within --gate-budget; exit 0 pass, 1 slower, 6 undecided");
  cmd->add_option("--gate-budget", o->gate_budget, "seconds of further rounds for undecided benchmarks (default 120)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_option("--threshold", o->threshold,
                  "--gate: the smallest change that counts, with its unit (default 5% of a time, 0.5% of an "
                  "instruction count)");
  cmd->add_option("--counter", o->counter,
                  "what a sample is: time (default), or instructions: the host backends (ref, cpu, plugin:, exe:) "
                  "under valgrind's callgrind, counting the timed call only, with simulated cache misses; exact, "
                  "so compare gates on it whatever the load (docs/benchmarks.md)")
      ->check(one_of({"time", "instructions"}));
  add_external(cmd, o->backends);
  add_expectations(cmd, o->expectations);
  return {cmd, [o](const Invocation& invocation) { return bench(*o, invocation); }};
}

}  // namespace scatter::cli

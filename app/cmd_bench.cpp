// scatterctl bench: time the selected backends on the built-in suite (or the given
// cases); report time, GB/s and % of the copy bandwidth measured in the same run.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "bench_list.hpp"
#include "commands.hpp"
#include "scatter/cancel.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct BenchFlags {
  std::vector<std::string> paths;
  std::string mode = "all";
  std::string size = "small";
  BackendFlags backends;
  SelectionFlags selection;  // --filter and --max-bytes only
  std::string json;
  std::string markdown;
  bool hot = false;
  double max_seconds = 0.0;
  // The regression gate's settings are the defaults.
  int repetitions = 3;  // rounds over the suite
  int min_samples = 5;  // per benchmark and round
  bool no_verify = false;
  bool list = false;
  ExpectationFlags expectations;
};

BenchSize bench_size(const std::string& size) {
  return size == "medium" ? BenchSize::medium : size == "large" ? BenchSize::large : BenchSize::small;
}

// The built-in suite of --mode and --size, or the given cases; --filter on their names.
std::vector<BenchItem> bench_items(const BenchFlags& o) {
  std::vector<BenchItem> items;
  if (o.paths.empty()) {
    const BenchMode mode = o.mode == "nd" ? BenchMode::nd : o.mode == "elements" ? BenchMode::elements
                           : o.mode == "update" ? BenchMode::update : BenchMode::all;
    items = builtin_suite(mode, bench_size(o.size));
    if (o.selection.filters.empty()) return items;
    const auto selection = o.selection.selection();
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
  // The trial's statuses, counted as `run` counts them: skipped and xfail rows have no
  // number but fail nothing; a strict XPASS fails.
  const auto failed = std::count_if(report.rows.begin(), report.rows.end(), [](const BenchRow& r) {
    return r.failed() || (r.status == Status::xpass && r.strict);
  });
  if (failed > 0) {
    std::cerr << fmt::format("scatterctl: {} benchmark{} failed or errored (no timing)\n", failed,
                             failed == 1 ? "" : "s");
  }
  return failed > 0 ? kExitFailed : kExitOk;
}

int bench(const BenchFlags& o, const Invocation& invocation) {
  // A listing runs nothing: no backend is made, no worker started.
  if (o.list) return list_bench(bench_items(o), {o.paths.empty() ? o.mode : "cases", o.size}, o.json);
  prepare_report_path(o.json, "--json");
  prepare_report_path(o.markdown, "--markdown");
  const auto chosen = choose(o.backends, invocation.self_exe, true);
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
  auto result = run_bench(items, chosen->choice.run, options, [&](const std::string& name) {
    if (interrupted()) throw Error(ErrorCode::interrupted, "", "interrupted");
    if (tty) std::cerr << fmt::format("\r\033[K[{}/{}] {}", ++done, steps, name) << std::flush;
  });
  if (tty) std::cerr << "\r\033[K" << std::flush;
  return print_report(result, o);
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand("bench", "time the backends on a built-in suite (or the given cases)");
  cmd->add_option("paths", o->paths, "case files or directories (default: the built-in suite)");
  cmd->add_option("--mode", o->mode, "nd, elements, update or all (default all)")
      ->check(CLI::IsMember({"nd", "elements", "update", "all"}));
  cmd->add_option("--size", o->size, "small, medium or large (default small)")
      ->check(CLI::IsMember({"small", "medium", "large"}));
  add_backend(cmd, o->backends);
  cmd->add_option("--filter", o->selection.filters, "glob on benchmark names; a leading '-' excludes (repeatable)")
      ->allow_extra_args(false);
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
  cmd->add_flag("--list", o->list,
                "print the selected benchmarks (op, dtype, shapes, bytes) and run nothing; --json FILE (- for stdout) "
                "as JSON");
  add_external(cmd, o->backends);
  add_expectations(cmd, o->expectations);
  return {cmd, [o](const Invocation& invocation) { return bench(*o, invocation); }};
}

}  // namespace scatter::cli

// scatterctl run: load cases, run them on the selected backends, compare, report.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "outputs.hpp"
#include "commands.hpp"
#include "scatter/journal.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct RunFlags {
  std::vector<std::string> paths;
  BackendFlags backends;
  SelectionFlags selection;
  TableFlags table;
  std::string junit;
  std::string json;
  std::string markdown;
  ReportPaths reports() const { return {json, junit, markdown}; }
  std::string save_failures;
  bool fail_fast = false;
  bool in_place = false;
  bool deterministic = false;
  bool check_launches = false;
  ExpectationFlags expectations;
};

// The table on stdout, and the report files asked for, with the backends this run uses,
// journalled so that a crash still leaves the reports (journal.hpp).
std::unique_ptr<Reporter> reporters_for(const RunFlags& o, const ChosenBackends& chosen, const Invocation& invocation,
                                        const SelectionRecord& selection) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  // On a terminal, as pytest does: progress, what failed and the closing line; a row per case
  // with -v, and always in the reports and when stdout is a file or a pipe.
  const bool terminal = isatty(STDOUT_FILENO) != 0 && std::getenv("CI") == nullptr;
  const bool quiet = o.table.quiet || (terminal && !o.table.verbose);
  reporters.push_back(make_table_reporter(std::cout, {use_color(o.table.color), quiet, o.table.verbose,
                                                      isatty(STDERR_FILENO) != 0 && std::getenv("CI") == nullptr}));
  if (o.reports().any()) {
    // The built-ins and the backends this run uses: no framework worker is started only to be listed.
    auto context = make_run_context({}, invocation.command_line);
    context.selection = selection;
    const auto& frameworks = framework_backend_names();
    const auto& run = chosen.choice.run;
    for (const auto& b : chosen.all) {
      const bool used = std::find(run.begin(), run.end(), b.get()) != run.end();
      if (!used && std::find(frameworks.begin(), frameworks.end(), b->name()) != frameworks.end()) continue;
      const auto a = b->availability();
      context.backends.push_back(
          {std::string(b->label()), a.available, a.reason, a.available ? b->device() : "", b->spec()});
    }
    for (auto& file : make_file_reporters(o.reports(), context)) reporters.push_back(std::move(file));
    for (const auto& stale : stale_journals(o.reports())) {
      std::cerr << fmt::format("scatterctl: '{}' is the journal of a run that never finished; `scatterctl merge "
                               "--recover {}` writes its reports\n",
                               stale, stale);
    }
    return make_journaling_reporter(make_tee_reporter(std::move(reporters)), o.reports(), context, invocation.self_exe);
  }
  return make_tee_reporter(std::move(reporters));
}

// What the run reads and writes (outputs.hpp).
Outputs outputs_of(const RunFlags& o) {
  Outputs outputs;
  outputs.reads_cases(o.paths).reads(o.backends).reads(o.expectations);
  outputs.file("--junit", o.junit).file("--json", o.json).file("--markdown", o.markdown);
  return outputs.folder("--save-failures", o.save_failures);
}

int run(const RunFlags& o, const Invocation& invocation) {
  outputs_of(o).check();
  const auto expectations = expectations_for(o.expectations);  // a bad file is refused before any worker starts
  const auto chosen = choose(o.backends, invocation.self_exe, false);
  if (!chosen) return kExitEnv;
  if (chosen->choice.run.empty() && !chosen->choice.not_running.empty()) {
    // `frameworks` where no worker starts: a run of nothing is not a pass.
    std::cerr << fmt::format("scatterctl: no backend of '--backend {}' can run (each says why above)\n",
                             o.backends.backend);
    return kExitEnv;
  }
  RunOptions options;
  options.expectations = expectations ? &*expectations : nullptr;
  options.strict = o.expectations.strict;
  options.selection = o.selection.selection();
  options.fail_fast = o.fail_fast;
  options.save_failures = o.save_failures;
  options.profile = o.selection.profile;
  options.max_bytes = o.selection.max_bytes;
  options.flags = {o.in_place, o.deterministic};
  options.flags.check_launches = o.check_launches;
  if (o.backends.timeout > 0) options.timeout = o.backends.timeout;
  const auto loaded = load(o.paths, o.selection.max_bytes);
  {  // every case file read, not just the paths named: a report over one would lose it
    std::vector<std::string> read;
    for (const auto& e : loaded.cases) {
      if (read.empty() || read.back() != e.file) read.push_back(e.file);
    }
    outputs_of(o).reads(read).check();
  }
  const auto reporter = reporters_for(o, *chosen, invocation, record_selection(loaded, options, chosen->choice));
  const auto summary = run_cases(loaded, options, chosen->choice, *reporter);
  const auto unwritten = reporter->write_errors();
  for (const auto& why : unwritten) std::cerr << "scatterctl: " << why << " (the other reports are written)\n";
  // A failing run keeps its code; a passing one whose report is missing is not a pass.
  return unwritten.empty() || summary.exit_code != kExitOk ? summary.exit_code : static_cast<int>(kExitIo);
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "run cases on backends, compare, report");
  add_case_paths(cmd, o->paths);
  add_backend(cmd, o->backends);
  add_selection(cmd, o->selection);
  add_table(cmd, o->table, "print only failures and the closing line (the default on a terminal)",
            "print a row per case and backend (the default when stdout is a file or a pipe) and every comparison's details");
  cmd->add_option("--junit", o->junit, "also write a JUnit XML report to FILE");
  cmd->add_option("--json", o->json, "also write a JSON report to FILE");
  cmd->add_option("--markdown", o->markdown, "also write a Markdown summary to FILE");
  cmd->add_option("--save-failures", o->save_failures, "write each failing case's tensors and a repro.json under DIR");
  cmd->add_flag("--fail-fast", o->fail_fast, "stop at the first failing case");
  cmd->add_flag("--in-place", o->in_place, "scatter into data's own buffer (no copy into a fresh output)");
  cmd->add_flag("--deterministic", o->deterministic,
                "the same bits every run: none keeps the last writer, float add, sub, mul and mean run in update "
                "order (bit-identical to ref up to 1024 updates an element)");
  cmd->add_flag("--check-launches", o->check_launches,
                "cuda: wait for and check every kernel launch (slower; names the kernel of a device fault)");
  cmd->add_option("--timeout", o->backends.timeout, "seconds per case; a case over it is an error and the run goes on")
      ->check(positive("a positive number of seconds"));
  add_external(cmd, o->backends);
  add_expectations(cmd, o->expectations);
  return {cmd, [o](const Invocation& invocation) { return run(*o, invocation); }};
}

}  // namespace scatter::cli

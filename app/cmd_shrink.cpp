// scatterctl shrink: a failing case made as small and plain as it can be while it fails the same
// way on the backend, written as a case file, with its cause and its explain trace.

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "outputs.hpp"
#include "commands.hpp"
#include "scatter/explain.hpp"
#include "scatter/files.hpp"
#include "scatter/report.hpp"
#include "scatter/shrink.hpp"

namespace scatter::cli {
namespace {

struct ShrinkFlags {
  std::vector<std::string> path;
  std::string case_name;
  BackendFlags backends;
  std::string out;
  double seconds = 30.0;
  std::int64_t max_calls = 2000;
  bool in_place = false;
  bool deterministic = false;
  ExpectationFlags expectations;
  std::string max_bytes;
};

std::string sizes(const Case& c) {
  return fmt::format("data {} ({} elements), {} update(s)", format_shape(c.data.shape()), c.data.numel(),
                     c.updates.numel());
}

int shrink(const ShrinkFlags& o, const Invocation& invocation) {
  const auto loaded = load(o.path, o.max_bytes);
  if (say_file_errors(loaded)) return kExitInvalid;
  const CaseEntry* entry = nullptr;
  for (const auto& e : loaded.cases) {
    if (!o.case_name.empty() && e.name != o.case_name) continue;
    if (entry) {
      std::cerr << fmt::format("scatterctl shrink: {} holds more than one case: name one with --case\n", o.path.front());
      return kExitUsage;
    }
    entry = &e;
  }
  if (!entry) {
    std::cerr << fmt::format("scatterctl shrink: no case named '{}' in {}\n", o.case_name, o.path.front());
    return kExitNothing;
  }
  const bool invalid_indices = entry->expect_error == ErrorCode::index;
  if (!entry->decl || (entry->expect_error && !invalid_indices)) {
    std::cerr << fmt::format("scatterctl shrink: {}\n",
                             entry->error ? describe(*entry->error)
                                          : "only valid cases and cases of expect_error \"index\" can be shrunk");
    return kExitInvalid;
  }
  // The default output is named for the case, as one file name here; never over an input.
  const auto out = o.out.empty() ? safe_file_name(entry->name) + ".min.json" : o.out;
  Outputs().reads_cases({o.path}).reads(o.backends).reads(o.expectations).file("--out", out).check();
  const auto expectations = expectations_for(o.expectations);
  const auto chosen = choose(o.backends, invocation.self_exe, false);
  if (!chosen) return kExitEnv;
  if (chosen->choice.run.size() != 1) {
    std::cerr << "scatterctl shrink: name one backend with --backend (the one the case fails on)\n";
    return kExitUsage;
  }
  Backend& backend = *chosen->choice.run.front();
  ShrinkOptions options;
  options.trial.flags = {o.in_place, o.deterministic};
  options.trial.expectations = expectations ? &*expectations : nullptr;
  options.max_seconds = o.seconds;
  options.max_calls = o.max_calls;
  options.invalid_indices = invalid_indices;
  const Case c = invalid_indices ? materialize_unchecked(*entry->decl) : materialize(*entry->decl);
  const auto r = shrink_case(c, entry->name, backend, options);
  if (!r.fails) {
    std::cout << fmt::format("shrink: '{}' does not fail on {} ({}{}): nothing to shrink\n", entry->name,
                             backend.label(), to_string(r.original.status),
                             r.original.detail.empty() ? "" : ": " + r.original.detail);
    return kExitNothing;
  }
  const auto& last = r.final_trial();
  std::cout << fmt::format("shrink: '{}' fails on {}: {}\n", entry->name, backend.label(), one_line(r.original));
  std::cout << fmt::format("shrink: {} -> {}, in {} backend calls ({} candidates refused by the loader), {:.2f} s\n",
                           sizes(c), sizes(*r.minimal), r.calls, r.rejected, r.seconds);
  std::cout << fmt::format("shrink: stopped: {}\n", r.stopped);
  if (r.interrupted) {
    // What was found is kept, but it was not run again: named for what it is.
    const auto kept = out + ".partial";
    Outputs().reads_cases({o.path}).reads(o.backends).file("--out", kept).check();
    write_text(kept, r.minimal_json);
    std::cout << fmt::format("shrink: interrupted: the smallest case so far (not run again) is in {}\n", kept);
    return kExitInterrupted;
  }
  if (!r.confirmed) {
    std::cout << fmt::format("shrink: the minimal case, run again from its file, does not fail the same way: {}\n"
                             "shrink: nothing written: no case file reproduces this failure (a one-off, or one that "
                             "only the case's `expected` made)\n",
                             one_line(last));
    return kExitFailed;
  }
  write_text(out, r.minimal_json);
  std::cout << fmt::format("shrink: the minimal case, run again from its file, fails the same way: {}\n", one_line(last));
  std::cout << (last.cause ? fmt::format("shrink: cause: {}: {}{}\n", last.cause->name, last.cause->explanation,
                                         last.cause->confirmed.empty() ? "" : " (confirmed: it " + last.cause->confirmed + ")")
                           : "shrink: cause: none known (no catalogued bug computes this output)\n");
  std::cout << fmt::format("shrink: wrote {}\n\n", out);
  // The spec's trace of a case it refuses would scatter outside the data: none is printed.
  if (invalid_indices) {
    std::cout << "(no trace: the spec refuses this case for its indices; the backend accepted it)\n";
  } else {
    explain(*r.minimal, std::cout, {40, 256});
  }
  return kExitOk;
}

}  // namespace

Command add_shrink_command(CLI::App& app) {
  auto o = std::make_shared<ShrinkFlags>();
  auto* cmd = app.add_subcommand("shrink", "make a failing case as small as it can be while it fails the same way");
  add_case_file(cmd, o->path);
  cmd->add_option("--case", o->case_name, "the case to shrink (needed when the file holds several)");
  add_backend(cmd, o->backends, "the one backend the case fails on");
  cmd->add_option("--out", o->out, "where the minimal case goes (default: CASE.min.json here)");
  cmd->add_option("--shrink-seconds", o->seconds, "stop searching after this long, keeping the smallest (default 30)")
      ->check(non_negative("zero or more seconds"));
  add_call_timeout(cmd, o->backends);
  cmd->add_option("--max-calls", o->max_calls, "backend calls at the most (default 2000)")->check(positive("a positive number"));
  cmd->add_flag("--in-place", o->in_place, "scatter into data's own buffer");
  cmd->add_flag("--deterministic", o->deterministic, "fixed reduction order: the output must match bit for bit");
  add_external(cmd, o->backends);
  add_expectations(cmd, o->expectations);
  cmd->add_option("--max-bytes", o->max_bytes, "reject cases needing more host memory");
  return {cmd, [o](const Invocation& invocation) { return shrink(*o, invocation); }};
}

}  // namespace scatter::cli

// scatterctl explain: for a small case, which update goes to which output element, step
// by step, and the result.

#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/explain.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct ExplainFlags {
  std::vector<std::string> path;
  std::string case_name;
  std::int64_t limit = 100;
  std::string max_bytes;
};

// Each case of the file (or the one named by --case) that loads, narrated.
int explain_cases(const ExplainFlags& o) {
  const auto loaded = load(o.path, o.max_bytes);
  if (say_file_errors(loaded)) return kExitInvalid;
  int explained = 0;
  for (const auto& entry : loaded.cases) {
    if (!o.case_name.empty() && entry.name != o.case_name) continue;
    if (explained++ > 0) std::cout << "\n";
    if (!entry.decl) {
      std::cout << fmt::format("{}: {}\n", entry.name.empty() ? "-" : entry.name,
                               entry.error ? describe(*entry.error) : "invalid");
      continue;
    }
    try {
      explain(materialize(*entry.decl), std::cout, {o.limit, 1000});
    } catch (const Error& e) {
      std::cout << describe(e) << "\n";
    }
  }
  if (explained == 0) {
    std::cerr << fmt::format("scatterctl: no case named '{}'\n", o.case_name);
    return kExitNothing;
  }
  return kExitOk;
}

}  // namespace

Command add_explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainFlags>();
  auto* cmd = app.add_subcommand("explain", "print which update goes where, step by step, and the result");
  add_case_file(cmd, o->path);
  cmd->add_option("--case", o->case_name, "the case to explain (default: every case of the file)");
  cmd->add_option("--limit", o->limit, "update lines printed at most (default 100)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-bytes", o->max_bytes, "reject cases needing more host memory");
  return {cmd, [o](const Invocation&) { return explain_cases(*o); }};
}

}  // namespace scatter::cli

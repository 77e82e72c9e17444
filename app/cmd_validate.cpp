// scatterctl validate: load and check cases only; no backend runs.

#include <iostream>

#include "commands.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct ValidateFlags {
  std::vector<std::string> paths;
  SelectionFlags selection;
  TableFlags table;
};

int validate(const ValidateFlags& o) {
  const auto selection = o.selection.selection();
  const auto loaded = load(o.paths, o.selection.max_bytes);
  auto reporter = make_table_reporter(std::cout, {use_color(o.table.color), o.table.quiet, o.table.verbose});
  return validate_cases(loaded, selection, *reporter, o.selection.profile).exit_code;
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateFlags>();
  auto* cmd = app.add_subcommand("validate", "load and check cases; no backend runs");
  cmd->add_option("paths", o->paths, "case files or directories")->required();
  add_selection(cmd, o->selection);
  add_table(cmd, o->table, "print only invalid cases and the closing line", "more detail");
  return {cmd, [o](const Invocation&) { return validate(*o); }};
}

}  // namespace scatter::cli

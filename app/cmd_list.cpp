// scatterctl list: the selected case names with op, reduction, dtype and shapes.

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/profile.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct ListFlags {
  std::vector<std::string> paths;
  SelectionFlags selection;
};

int list(const ListFlags& o) {
  const auto selection = o.selection.selection();
  const auto& profile = o.selection.profile;
  const auto loaded = load(o.paths, o.selection.max_bytes);
  for (const auto& e : loaded.file_errors) std::cout << "ERROR  " << describe(e) << "\n";
  int listed = 0;
  int invalid = 0;
  for (const auto& entry : loaded.cases) {
    if (!is_selected(entry, selection)) continue;
    ++listed;
    if (!entry.decl) {
      ++invalid;
      const auto what = entry.expect_error ? fmt::format("expects [{}]", to_string(*entry.expect_error)) : "invalid";
      std::cout << fmt::format("{:<40} {}: {}\n", entry.name.empty() ? "-" : entry.name, what,
                               entry.error ? describe(*entry.error) : "");
      continue;
    }
    const auto& d = *entry.decl;
    std::string in_profile;
    if (!profile.empty()) {
      const auto why = profile_violation(profile, d, nullptr);
      in_profile = why ? fmt::format(" [outside {}: {}]", profile, *why) : fmt::format(" [in {}]", profile);
    }
    std::cout << fmt::format("{:<40} {}{}{}\n", d.name, case_columns(d),
                             entry.expect_error ? fmt::format(" (expects [{}])", to_string(*entry.expect_error)) : "",
                             in_profile);
  }
  // A case that expects an error is invalid on purpose: not counted as invalid.
  const auto expected_invalid = std::count_if(loaded.cases.begin(), loaded.cases.end(), [&](const CaseEntry& e) {
    return is_selected(e, selection) && !e.decl && e.expect_error;
  });
  std::cout << fmt::format("scatterctl: {} cases selected, {} invalid, {} unreadable files\n", listed,
                           invalid - static_cast<int>(expected_invalid), loaded.file_errors.size());
  if (!loaded.file_errors.empty()) return kExitInvalid;
  return listed == 0 ? kExitNothing : kExitOk;
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto o = std::make_shared<ListFlags>();
  auto* cmd = app.add_subcommand("list", "print the selected cases with op, reduction, dtype and shapes");
  add_case_paths(cmd, o->paths);
  add_selection(cmd, o->selection);
  return {cmd, [o](const Invocation&) { return list(*o); }};
}

}  // namespace scatter::cli

// scatterctl expectations --check: every recorded divergence's model run on its own minimal
// cases, so that the catalogue cannot rot (scatter/expectations.hpp, check_expectations).

#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/diagnose.hpp"
#include "scatter/expectations.hpp"

namespace scatter::cli {
namespace {

struct ExpectationsFlags {
  ExpectationFlags expectations;
  std::vector<std::string> paths;
  bool check = false;
};

// The catalogue of known bugs on its minimal cases (cases/diagnoses/), where the paths hold them:
// the number of entries that failed.
int check_catalogue(const LoadResult& loaded) {
  const bool holds_them = std::any_of(loaded.cases.begin(), loaded.cases.end(),
                                      [](const CaseEntry& e) { return e.name.starts_with("diagnosis_"); });
  if (!holds_them) {
    std::cout << "diagnoses: not checked (the paths hold no case of cases/diagnoses/)\n";
    return 0;
  }
  int failed = 0;
  for (const auto& check : check_diagnoses(loaded)) {
    if (check.problems.empty()) {
      std::cout << fmt::format("ok          diagnosis {}: reproduces diagnosis_{}\n", check.entry->name, check.entry->name);
      continue;
    }
    ++failed;
    std::cout << fmt::format("FAILED      diagnosis {}\n", check.entry->name);
    for (const auto& p : check.problems) std::cout << "    " << p << "\n";
  }
  std::cout << fmt::format("diagnoses: {} reproduce their cases, {} failed\n", diagnoses().size() - failed, failed);
  return failed;
}

int expectations(const ExpectationsFlags& o) {
  if (!o.check) {
    std::cerr << "scatterctl: expectations needs --check (it runs each entry's model on its minimal cases)\n";
    return kExitUsage;
  }
  const auto entries = expectations_for(o.expectations);
  if (!entries || entries->entries.empty()) {
    std::cerr << "scatterctl: no expectations to check\n";
    return kExitNothing;
  }
  const auto loaded = load(o.paths, "");
  say_file_errors(loaded);
  int reproduced = 0, unmodelled = 0, failed = 0;
  for (const auto& check : check_expectations(*entries, loaded)) {
    const auto& x = *check.entry;
    switch (check.verdict) {
      case EntryCheck::Verdict::reproduced:
        ++reproduced;
        std::cout << fmt::format("ok          {} {}: {} reproduces {} case{}\n", x.backend, x.id, x.model->describe(),
                                 x.reproduced_by.size(), x.reproduced_by.size() == 1 ? "" : "s");
        break;
      case EntryCheck::Verdict::unmodelled:
        ++unmodelled;
        std::cout << fmt::format("unmodelled  {} {}: {}\n", x.backend, x.id,
                                 !x.message_contains.empty() ? fmt::format("matches the message '{}'", x.message_contains.front())
                                                             : fmt::format("names its cases ({})", fmt::join(x.cases, ", ")));
        break;
      case EntryCheck::Verdict::failed:
        ++failed;
        std::cout << fmt::format("FAILED      {} {} ({})\n", x.backend, x.id, x.file);
        for (const auto& p : check.problems) std::cout << "    " << p << "\n";
        break;
    }
  }
  std::cout << fmt::format("expectations: {} reproduced by their models, {} unmodelled, {} failed\n", reproduced,
                           unmodelled, failed);
  return check_catalogue(loaded) + failed > 0 ? kExitFailed : kExitOk;
}

}  // namespace

Command add_expectations_command(CLI::App& app) {
  auto o = std::make_shared<ExpectationsFlags>();
  auto* cmd = app.add_subcommand("expectations", "check the recorded divergences: each model on its minimal cases");
  cmd->add_option("paths", o->paths, "where the minimal cases are (default: the bundled cases/)");
  cmd->add_flag("--check", o->check, "run each entry's model on the cases it names in reproduced_by (required)");
  cmd->add_option("--expectations", o->expectations.path, "an expectations file or folder (default: the bundled ones)");
  return {cmd, [o](const Invocation&) { return expectations(*o); }};
}

}  // namespace scatter::cli

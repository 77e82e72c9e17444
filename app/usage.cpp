#include "usage.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "scatter/run.hpp"
#include "scatter/suggest.hpp"

namespace scatter::cli {
namespace {

// "; did you mean 'run'?" when a known word is close, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
  const std::vector<std::string_view> words(known.begin(), known.end());
  const auto best = closest(word, words, std::max<std::size_t>(2, word.size() / 3));
  return best ? fmt::format("; did you mean '{}'?", *best) : "";
}

// The commands a user sees (plugin-host has no group: it is hidden).
std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (auto* sub : app.get_subcommands({})) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

bool is_host_command(const std::string& word) {
  return std::find(kHostCommands.begin(), kHostCommands.end(), word) != kHostCommands.end();
}

// `scatterctl help [COMMAND]`, and a word that is no command, before CLI11 sees them.
std::optional<int> command_word(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string word = argv[1];
  const auto names = command_names(app);
  if (word == "help") {
    if (argc >= 3) {
      for (auto* sub : app.get_subcommands({})) {
        if (sub->get_name() == argv[2] && !sub->get_group().empty()) {
          std::cout << sub->help();
          return kExitOk;
        }
      }
      std::cerr << fmt::format("scatterctl: '{}' is not a command{}\n", argv[2], did_you_mean(argv[2], names));
      return kExitUsage;
    }
    std::cout << app.help();
    return kExitOk;
  }
  if (std::find(names.begin(), names.end(), word) == names.end() && !is_host_command(word)) {
    std::cerr << fmt::format("scatterctl: '{}' is not a command{} (scatterctl help lists them)\n", word,
                             did_you_mean(word, names));
    return kExitUsage;
  }
  return std::nullopt;
}

// Each unknown flag, one line, with the closest one of its command; false when there is none
// (the extras are something else, and CLI11's own message says what).
bool report_unknown_flags(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  for (auto* sub : app.get_subcommands({})) {
    if (!sub->parsed()) continue;
    for (const auto* opt : sub->get_options()) {
      for (const auto& lname : opt->get_lnames()) known.push_back("--" + lname);
    }
  }
  bool any = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) continue;
    const auto flag = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), flag) != known.end()) continue;
    const auto hint = did_you_mean(flag, known);
    std::cerr << fmt::format("scatterctl: '{}' is not a flag of this command{}\n", flag,
                             hint.empty() ? " (--help lists them)" : hint);
    any = true;
  }
  return any;
}

}  // namespace

CLI::Validator one_of(std::vector<std::string> names) {
  const auto list = fmt::format("{}", fmt::join(names, ", "));
  return CLI::Validator(
      [names, list](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        return fmt::format("'{}' is not one of {}{}", value, list, did_you_mean(value, names));
      },
      "one of " + list);
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  if (const auto rc = command_word(app, argc, argv)) return rc;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    if (!report_unknown_flags(app, argc, argv)) app.exit(e);  // one message per mistake
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace scatter::cli

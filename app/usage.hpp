#pragma once
// Usage: `scatterctl help [COMMAND]`, a word that is no command, CLI11's parse errors,
// each with the closest command or flag ("did you mean").

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace scatter::cli {

/// The hidden commands another scatterctl starts (the far sides of workers and boxes): never
/// listed, and their crashes are their parent's to report.
inline const std::vector<std::string> kHostCommands{"plugin-host", "backend-host", "box-host"};
bool is_host_command(const std::string& word);

/// A check that an option's value is one of `names`, its error naming them all and the
/// closest ("--mode: 'ndd' is not one of nd, elements, ...; did you mean 'nd'?").
CLI::Validator one_of(std::vector<std::string> names);

/// Parses the command line. Returns the exit code when there is nothing to run: help or
/// the version was printed (0), or a usage error was reported (2).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace scatter::cli

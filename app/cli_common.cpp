#include "cli_common.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scatter/plugin.hpp"
#include "scatter/profile.hpp"
#include "scatter/report.hpp"
#include "usage.hpp"

namespace scatter::cli {

std::string backend_help() {
  return fmt::format(
      "comma-separated: {}, all (the built-ins, default), {}, frameworks (every available one), plugin:PATH; "
      "LABEL=SPEC names an instance (rows case@LABEL), SPEC also exe:PATH:NAME (built-in NAME of another "
      "scatterctl) or FRAMEWORK@PYTHON",
      fmt::join(builtin_backend_names(), ", "), fmt::join(framework_backend_names(), ", "));
}

Selection SelectionFlags::selection() const {
  Selection s;
  s.filters = filters;
  s.tags = tags;
  s.include_large = include_large;
  if (!shard.empty()) parse_shard(shard, s);
  return s;
}

void add_case_file(CLI::App* cmd, std::vector<std::string>& path) {
  cmd->add_option("path", path, "a case file")->required()->expected(1);
}

void add_case_paths(CLI::App* cmd, std::vector<std::string>& paths) {
  cmd->add_option("paths", paths, "case files or directories (default: the bundled cases/)");
}

void add_selection(CLI::App* cmd, SelectionFlags& flags) {
  // One value per flag: `--filter 'g*' DIR` must leave DIR a path.
  cmd->add_option("--filter", flags.filters, "glob on case names; a leading '-' excludes (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--tag", flags.tags, "run cases with any of these tags (repeatable)")->allow_extra_args(false);
  cmd->add_option("--shard", flags.shard,
                  "I/N: run the I-th of N stable parts (by case name); auto[/N]: I and N from the CI's parallel-job "
                  "variables (docs/sharding.md)");
  cmd->add_flag("--include-large", flags.include_large, "also run cases tagged 'large'");
  cmd->add_option("--max-bytes", flags.max_bytes, "reject cases needing more host memory (default: half of RAM)");
  cmd->add_option("--profile", flags.profile, "a spec profile: " + fmt::format("{}", fmt::join(profile_names(), ", ")))
      ->check(one_of(profile_names()));
}

void add_backend(CLI::App* cmd, BackendFlags& flags, const std::string& help) {
  cmd->add_option("--backend", flags.backend, help);
  cmd->add_option("--threads", flags.threads, "threads of the cpu backend (default: one per core)")
      ->check(CLI::Range(1, 4096));
}

void add_external(CLI::App* cmd, BackendFlags& flags) {
  cmd->add_option("--python", flags.python,
                  "interpreter for framework workers (default: $SCATTERCTL_PYTHON, the project's .venv, python3)");
  auto* in_process = cmd->add_flag("--in-process", flags.in_process,
                "run plugin:PATH backends inside scatterctl (faster to start, easier to debug; a crash, exit() or hang "
                "of the plugin then ends the run, and bench trusts it to time itself: no clock of scatterctl's checks "
                "its times). By default each runs in a child process of its own");
  cmd->add_flag("--isolate", flags.isolate, "plugin:PATH backends in a child process: the default")
      ->excludes(in_process);
  cmd->add_flag("--trust-exe", flags.trust_exe,
                "exe:PATH:NAME backends are builds you vouch for: run over protocol 1, timed by their own clock, not "
                "in the box (for builds older than the box, which have no box-host; docs/backends.md)");
}

void add_expectations(CLI::App* cmd, ExpectationFlags& flags) {
  cmd->add_option("--expectations", flags.path,
                  "known divergences: a file or directory (default: the bundled lib/expectations/)");
  cmd->add_flag("--no-expectations", flags.none, "report every divergence as a failure");
  cmd->add_flag("--strict", flags.strict, "an XPASS (a recorded divergence that now passes) fails the run");
}

void add_table(CLI::App* cmd, TableFlags& flags, const std::string& quiet_help, const std::string& verbose_help) {
  cmd->add_option("--color", flags.color, "auto, always or never")->check(one_of({"auto", "always", "never"}));
  cmd->add_flag("-q,--quiet", flags.quiet, quiet_help);
  cmd->add_flag("-v,--verbose", flags.verbose, verbose_help);
}

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO);
}

namespace {

// A finite number that `fits`; nan and inf are no budget ("inf" would print 309 digits).
CLI::Validator number_check(const std::string& what, bool (*fits)(double), const std::string& name) {
  return CLI::Validator(
      [what, fits](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v) && fits(v)) return "";
        } catch (const std::exception&) {
        }
        return fmt::format("must be {}, got '{}'", what, text);
      },
      name);
}

}  // namespace

void add_call_timeout(CLI::App* cmd, BackendFlags& flags) {
  cmd->add_option("--timeout", flags.timeout,
                  "seconds per backend call: a call over it is an error, its worker restarted (default 300)")
      ->check(positive("a positive number of seconds"));
}

CLI::Validator positive(const std::string& what) {
  return number_check(what, [](double v) { return v > 0; }, "POSITIVE");
}

CLI::Validator non_negative(const std::string& what) {
  return number_check(what, [](double v) { return v >= 0; }, "NON-NEGATIVE");
}

// "5%": a percentage with its unit. A bare number is refused: "5" could mean 5% or 500%.
double parse_percent(const std::string& text, const std::string& flag) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used > 0 && used == text.size()) {
    throw Error(ErrorCode::schema, flag,
                fmt::format("= '{}' has no unit: write {}% for {} percent", text, text, text));
  }
  if (used == 0 || text.substr(used) != "%" || !(v >= 0) || v > 1e6) {
    throw Error(ErrorCode::schema, flag, fmt::format("= '{}' is not a percentage like 5%", text));
  }
  return v / 100.0;
}

std::uint64_t parse_bytes(const std::string& text) {
  if (text.empty()) return default_max_bytes();
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const auto suffix = text.substr(used);
  double scale = 1;
  if (suffix == "K" || suffix == "k") scale = 1024.0;
  else if (suffix == "M" || suffix == "m") scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g") scale = 1024.0 * 1024 * 1024;
  else if (!suffix.empty()) used = 0;
  if (used == 0 || value < 0) throw Error(ErrorCode::schema, "--max-bytes", fmt::format("= '{}' is not a size like 4G, 512M or 1000", text));
  return static_cast<std::uint64_t>(value * scale);
}

namespace {

// No path: the bundled cases/ (SCATTERCTL_CASES, ./cases, or the source tree's).
std::vector<std::string> case_paths(const std::vector<std::string>& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SCATTERCTL_CASES")) return {env};
  if (std::filesystem::is_directory("cases")) return {"cases"};
  return {SCATTER_BUNDLED_CASES};
}

}  // namespace

LoadResult load(const std::vector<std::string>& paths, const std::string& max_bytes) {
  LoadOptions lo;
  lo.max_bytes = parse_bytes(max_bytes);
  return load_paths(case_paths(paths), lo);
}

bool say_file_errors(const LoadResult& loaded) {
  for (const auto& e : loaded.file_errors) std::cerr << "scatterctl: " << describe(e) << "\n";
  return !loaded.file_errors.empty();
}

std::string case_columns(const CaseDecl& d) {
  return fmt::format("{:<17} {:<5} {:<8} data {} indices {} {} updates {}", to_string(d.attrs.op),
                     to_string(d.attrs.reduction), to_string(d.data.dtype), format_shape(d.data.shape),
                     to_string(d.indices.dtype), format_shape(d.indices.shape), format_shape(d.updates.shape));
}

std::vector<std::unique_ptr<Backend>> backends_for(const BackendFlags& flags, const std::string& self_exe) {
  BackendConfig config;
  config.python = flags.python;
  config.isolate = !flags.in_process;  // isolated unless asked otherwise: a plugin cannot end the run
  config.trust_exe = flags.trust_exe;
  config.self_exe = self_exe;
  config.user_backends = user_backend_specs(flags.backend);
  config.labelled = labelled_specs(flags.backend);
  if (flags.timeout > 0) config.request_timeout = flags.timeout;
  config.threads = flags.threads;
  config.count_instructions = flags.count_instructions;
  config.timed = flags.timed;
  return make_all_backends(config);
}

std::optional<ChosenBackends> choose(const BackendFlags& flags, const std::string& self_exe, bool say_skipped) {
  ChosenBackends chosen;
  chosen.all = backends_for(flags, self_exe);
  chosen.choice = choose_backends(flags.backend, chosen.all);
  for (const auto& [name, reason] : chosen.choice.unavailable_named) {
    std::cerr << fmt::format("scatterctl: backend '{}' is unavailable: {}\n", name, reason);
  }
  if (!chosen.choice.unavailable_named.empty()) return std::nullopt;
  // run's reporters say themselves why `all` left a backend out.
  if (say_skipped) {
    for (const auto& [backend, reason] : chosen.choice.skipped) {
      std::cerr << fmt::format("scatterctl: {} skipped: {}\n", backend->name(), reason);
    }
  }
  for (const auto& [name, reason] : chosen.choice.not_running) {
    std::cerr << fmt::format("scatterctl: {} not run: {}\n", name, reason);
  }
  return chosen;
}

std::optional<Expectations> expectations_for(const ExpectationFlags& flags) {
  if (flags.none) return std::nullopt;
  const std::string path = flags.path.empty() ? SCATTER_BUNDLED_EXPECTATIONS : flags.path;
  if (flags.path.empty() && !std::filesystem::exists(path)) return std::nullopt;
  try {
    return load_expectations(path);
  } catch (const Error& e) {
    // main prints the message alone: name the file here (the message names the entry and field).
    throw Error(e.code(), "", fmt::format("expectations: {}{}", e.file().empty() ? "" : e.file() + ": ", e.message()));
  }
}

void write_text(const std::string& path, const std::string& text) { write_file_atomically(path, text); }

}  // namespace scatter::cli

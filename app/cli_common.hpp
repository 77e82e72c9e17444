#pragma once
// What the commands of scatterctl share: flag groups and their registration, loading
// cases, choosing backends, the known divergences, report paths.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scatter/backend.hpp"
#include "scatter/expectations.hpp"
#include "scatter/load.hpp"
#include "scatter/run.hpp"

namespace scatter::cli {

/// Known once flags are parsed: this executable (the child of --isolate) and the command line.
struct Invocation {
  std::string self_exe;
  std::string command_line;
};

/// A registered subcommand and what runs it once it is the one parsed.
struct Command {
  CLI::App* cli = nullptr;
  std::function<int(const Invocation&)> run;
};

/// The one case file a command reads (explain, shrink).
void add_case_file(CLI::App* cmd, std::vector<std::string>& path);

/// The case files and folders a command reads, the bundled cases/ when none is given.
void add_case_paths(CLI::App* cmd, std::vector<std::string>& paths);

/// --filter, --tag, --shard, --include-large, --max-bytes, --profile.
struct SelectionFlags {
  std::vector<std::string> filters;
  std::vector<std::string> tags;
  std::string shard;
  bool include_large = false;
  std::string max_bytes;
  std::string profile;
  Selection selection() const;
};
void add_selection(CLI::App* cmd, SelectionFlags& flags);

/// --backend and how external backends are found (--python, --isolate).
struct BackendFlags {
  std::string backend = "all";
  std::string python;
  bool isolate = false;     ///< --isolate: the default, accepted for older command lines
  bool in_process = false;  ///< --in-process: plugins inside scatterctl
  bool trust_exe = false;   ///< --trust-exe: exe: builds time themselves over protocol 1
  double timeout = 0.0;  ///< run's --timeout: also the workers' request time-out
  int threads = 0;       ///< --threads of the cpu backend; 0: one per core
  bool count_instructions = false;  ///< bench --counter instructions: the counted backends
  bool timed = false;               ///< bench: the workers calibrate their timer's signals
};
std::string backend_help();
/// "5%": a percentage with its unit, as a fraction; throws Error(schema) naming `flag`.
double parse_percent(const std::string& text, const std::string& flag);
void add_backend(CLI::App* cmd, BackendFlags& flags, const std::string& help = backend_help());
void add_external(CLI::App* cmd, BackendFlags& flags);
/// --timeout of fuzz and shrink: seconds per backend call (a hung kernel costs that, not 300 s).
void add_call_timeout(CLI::App* cmd, BackendFlags& flags);

/// --expectations, --no-expectations, --strict.
struct ExpectationFlags {
  std::string path;
  bool none = false;
  bool strict = false;
};
void add_expectations(CLI::App* cmd, ExpectationFlags& flags);

/// --color, -q, -v of the commands that print a table of results.
struct TableFlags {
  std::string color = "auto";
  bool quiet = false;
  bool verbose = false;
};
void add_table(CLI::App* cmd, TableFlags& flags, const std::string& quiet_help, const std::string& verbose_help);
bool use_color(const std::string& mode);

/// A check whose message is a sentence ("must be a positive number of seconds, got '0'").
CLI::Validator positive(const std::string& what);
/// The same for zero or more.
CLI::Validator non_negative(const std::string& what);

/// "4G", "512M", "64K" or plain bytes; empty: the default (half of RAM).
std::uint64_t parse_bytes(const std::string& text);
/// Loads the given paths (none: the bundled cases/) under --max-bytes.
LoadResult load(const std::vector<std::string>& paths, const std::string& max_bytes);
/// Prints each unreadable file on stderr; true when there was one.
bool say_file_errors(const LoadResult& loaded);
/// `list`'s columns after the name: op, reduction, dtype, then data, indices and updates shapes.
std::string case_columns(const CaseDecl& decl);

/// Every backend, with the frameworks' interpreter and the plugins that --backend names.
std::vector<std::unique_ptr<Backend>> backends_for(const BackendFlags& flags, const std::string& self_exe);

/// The backends --backend chooses out of every backend (which `all` owns).
struct ChosenBackends {
  std::vector<std::unique_ptr<Backend>> all;
  BackendChoice choice;
};
/// Says why a backend named in --backend cannot run and returns nothing (the command
/// exits 5); else says which frameworks "frameworks" left out and, with `say_skipped`,
/// why `all` left a backend out.
std::optional<ChosenBackends> choose(const BackendFlags& flags, const std::string& self_exe, bool say_skipped);

/// The known divergences: --expectations PATH, else the bundled lib/expectations/.
std::optional<Expectations> expectations_for(const ExpectationFlags& flags);

/// Bench and compare reports, like run's, are whole or absent (temporary file, rename).
void write_text(const std::string& path, const std::string& text);

}  // namespace scatter::cli

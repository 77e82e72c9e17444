// scatterctl: CLI11 flags -> options; calls the library; errors -> exit codes.

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "scatter/backend.hpp"
#include "scatter/bench.hpp"
#include "scatter/cancel.hpp"
#include "scatter/expectations.hpp"
#include "scatter/explain.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "scatter/plugin.hpp"
#include "scatter/profile.hpp"
#include "scatter/report.hpp"
#include "scatter/run.hpp"
#include "scatter/version.hpp"

namespace {

using namespace scatter;

struct Options {
  std::vector<std::string> paths;
  std::string backend = "all";
  std::vector<std::string> filters;
  std::vector<std::string> tags;
  std::string shard;
  std::string max_bytes;
  std::string color = "auto";
  bool include_large = false;
  bool quiet = false;
  bool verbose = false;
  std::string junit;
  std::string json;
  std::string markdown;
  std::string save_failures;
  bool fail_fast = false;
  double timeout = 0.0;
  std::string case_name;
  std::int64_t limit = 100;
  std::string out_dir;
  std::string command_line;
  std::string mode = "all";
  std::string size = "small";
  bool hot = false;
  double max_seconds = 0.0;
  std::string threshold = "5%";
  std::string profile;
  bool allow_device_mismatch = false;
  bool in_place = false;
  bool deterministic = false;
  std::int64_t iterations = 1000;
  std::uint64_t seed = 1;
  std::int64_t max_elements = 4096;
  std::string python;
  bool isolate = false;
  std::string expectations;
  bool no_expectations = false;
  bool strict = false;
  std::string self_exe;
};

extern "C" void on_signal(int) { scatter::request_interrupt(); }

// SIGINT/SIGTERM stop the run between steps; reports are written for what finished.
void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// "4G", "512M", "64K" or plain bytes.
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

// No path: the bundled cases/ (SCATTERCTL_CASES, ./cases, or the source tree's).
std::vector<std::string> case_paths(const std::vector<std::string>& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SCATTERCTL_CASES")) return {env};
  if (std::filesystem::is_directory("cases")) return {"cases"};
  return {SCATTER_BUNDLED_CASES};
}

Selection selection_of(const Options& o) {
  Selection s;
  s.filters = o.filters;
  s.tags = o.tags;
  s.include_large = o.include_large;
  if (!o.shard.empty()) parse_shard(o.shard, s);
  return s;
}

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO);
}

// The edit distance of two words (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const auto above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "; did you mean 'run'?" when a known word is close, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& k : known) {
    const auto d = edit_distance(word, k);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (auto* sub : app.get_subcommands({})) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// A check whose message is a sentence ("must be a positive number of seconds, got '0'").
CLI::Validator positive(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && v > 0) return "";
        } catch (const std::exception&) {
        }
        return fmt::format("must be {}, got '{}'", what, text);
      },
      "POSITIVE");
}

// Report paths are checked, and their folders made, before any work: a typo costs nothing.
void prepare_report_path(const std::string& path, const std::string& flag) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  const auto parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) {
    throw Error(ErrorCode::io, flag,
                fmt::format("= '{}': cannot make its folder '{}': {}", path, parent.string(), ec.message()));
  }
  if (fs::is_directory(path, ec)) throw Error(ErrorCode::io, flag, fmt::format("= '{}' is a directory, not a file", path));
  const auto probe = (parent.empty() ? fs::path(".") : parent) / fmt::format(".scatterctl-probe-{}", ::getpid());
  std::ofstream out(probe);
  if (!out) throw Error(ErrorCode::io, flag, fmt::format("= '{}': its folder cannot be written", path));
  out.close();
  fs::remove(probe, ec);
}

constexpr const char* kBackendHelp =
    "comma-separated: ref, cuda, all (the built-ins, default), numpy, onnx, onnxruntime, openvino, tvm, torch, jax, "
    "frameworks (every available one), plugin:PATH";

// How external backends are found: --python for framework workers, --isolate for plugins.
void add_external(CLI::App* cmd, Options& o) {
  cmd->add_option("--python", o.python,
                  "interpreter for framework workers (default: $SCATTERCTL_PYTHON, the project's .venv, python3)");
  cmd->add_flag("--isolate", o.isolate, "run plugin:PATH backends in a child process (a crash cannot end the run)");
}

// This executable, for the child process of --isolate.
std::string self_path(const char* argv0) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : exe.string();
}

void add_selection(CLI::App* cmd, Options& o) {
  // One value per flag: `--filter 'g*' DIR` must leave DIR a path.
  cmd->add_option("--filter", o.filters, "glob on case names; a leading '-' excludes (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--tag", o.tags, "run cases with any of these tags (repeatable)")->allow_extra_args(false);
  cmd->add_option("--shard", o.shard, "I/N: run the I-th of N stable parts (by case name)");
  cmd->add_flag("--include-large", o.include_large, "also run cases tagged 'large'");
  cmd->add_option("--max-bytes", o.max_bytes, "reject cases needing more host memory (default: half of RAM)");
  cmd->add_option("--profile", o.profile, "a spec profile: " + fmt::format("{}", fmt::join(profile_names(), ", ")))
      ->check(CLI::IsMember(profile_names()));
}

LoadResult load(const Options& o) {
  LoadOptions lo;
  lo.max_bytes = parse_bytes(o.max_bytes);
  return load_paths(case_paths(o.paths), lo);
}

// Every backend, with the frameworks' interpreter and the plugins that --backend names.
std::vector<std::unique_ptr<Backend>> backends_for(const Options& o) {
  BackendConfig config;
  config.python = o.python;
  config.isolate = o.isolate;
  config.self_exe = o.self_exe;
  config.plugins = plugin_paths(o.backend);
  if (o.timeout > 0) config.request_timeout = o.timeout;
  return make_all_backends(config);
}

// The known divergences: --expectations PATH, else the bundled lib/expectations/.
std::optional<Expectations> expectations_for(const Options& o) {
  if (o.no_expectations) return std::nullopt;
  const std::string path = o.expectations.empty() ? SCATTER_BUNDLED_EXPECTATIONS : o.expectations;
  if (o.expectations.empty() && !std::filesystem::exists(path)) return std::nullopt;
  try {
    return load_expectations(path);
  } catch (const Error& e) {
    // main prints the message alone: name the file here (the message names the entry and field).
    throw Error(e.code(), "", fmt::format("expectations: {}{}", e.file().empty() ? "" : e.file() + ": ", e.message()));
  }
}

// Frameworks that "frameworks" left out, once each.
void say_not_running(const BackendChoice& choice) {
  for (const auto& [name, reason] : choice.not_running) {
    std::cerr << fmt::format("scatterctl: {} not run: {}\n", name, reason);
  }
}

// A backend named in --backend that cannot run: say why; the command exits 5.
bool refuse_unavailable(const BackendChoice& choice) {
  for (const auto& [name, reason] : choice.unavailable_named) {
    std::cerr << fmt::format("scatterctl: backend '{}' is unavailable: {}\n", name, reason);
  }
  return !choice.unavailable_named.empty();
}

// Why `all` left a backend out (bench and fuzz; run's reporters say it themselves).
void say_skipped(const BackendChoice& choice) {
  for (const auto& [backend, reason] : choice.skipped) {
    std::cerr << fmt::format("scatterctl: {} skipped: {}\n", backend->name(), reason);
  }
}

int cmd_run(const Options& o) {
  prepare_report_path(o.junit, "--junit");
  prepare_report_path(o.json, "--json");
  prepare_report_path(o.markdown, "--markdown");
  const auto expectations = expectations_for(o);  // a bad file is refused before any worker starts
  const auto all = backends_for(o);
  const auto choice = choose_backends(o.backend, all);
  if (refuse_unavailable(choice)) return kExitEnv;
  say_not_running(choice);
  RunOptions options;
  options.expectations = expectations ? &*expectations : nullptr;
  options.strict = o.strict;
  options.selection = selection_of(o);
  options.fail_fast = o.fail_fast;
  options.save_failures = o.save_failures;
  options.profile = o.profile;
  options.flags = {o.in_place, o.deterministic};
  if (o.timeout > 0) options.timeout = o.timeout;
  const auto loaded = load(o);

  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(make_table_reporter(
      std::cout, {use_color(o.color), o.quiet, o.verbose, isatty(STDERR_FILENO) != 0 && std::getenv("CI") == nullptr}));
  if (!o.junit.empty() || !o.json.empty() || !o.markdown.empty()) {
    // The built-ins and the backends this run uses: no framework worker is started only to be listed.
    auto context = make_run_context({}, o.command_line);
    const auto& frameworks = framework_backend_names();
    for (const auto& b : all) {
      const bool used = std::find(choice.run.begin(), choice.run.end(), b.get()) != choice.run.end();
      if (!used && std::find(frameworks.begin(), frameworks.end(), b->name()) != frameworks.end()) continue;
      const auto a = b->availability();
      context.backends.push_back({std::string(b->name()), a.available, a.reason, a.available ? b->device() : ""});
    }
    if (!o.json.empty()) reporters.push_back(make_json_reporter(o.json, context));
    if (!o.junit.empty()) reporters.push_back(make_junit_reporter(o.junit, context));
    if (!o.markdown.empty()) reporters.push_back(make_markdown_reporter(o.markdown, context));
  }
  auto reporter = make_tee_reporter(std::move(reporters));
  return run_cases(loaded, options, choice, *reporter).exit_code;
}

// Each case of the file (or the one named by --case) that loads, narrated.
int cmd_explain(const Options& o) {
  const auto loaded = load(o);
  for (const auto& e : loaded.file_errors) std::cerr << "scatterctl: " << describe(e) << "\n";
  if (!loaded.file_errors.empty()) return kExitInvalid;
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

// The materialized inputs and the reference output as .npy, for Python tools.
int cmd_dump(const Options& o) {
  const auto loaded = load(o);
  for (const auto& e : loaded.file_errors) std::cerr << "scatterctl: " << describe(e) << "\n";
  if (!loaded.file_errors.empty()) return kExitInvalid;
  int dumped = 0;
  int invalid = 0;
  for (const auto& entry : loaded.cases) {
    if (!o.case_name.empty() && entry.name != o.case_name) continue;
    if (!entry.decl) {
      ++invalid;
      std::cerr << "scatterctl: " << (entry.error ? describe(*entry.error) : entry.name + ": invalid") << "\n";
      continue;
    }
    try {
      const auto c = materialize(*entry.decl);
      const auto dir = std::filesystem::path(o.out_dir) / c.name;
      std::filesystem::create_directories(dir);
      write_npy(c.data, (dir / "data.npy").string());
      write_npy(c.indices, (dir / "indices.npy").string());
      write_npy(c.updates, (dir / "updates.npy").string());
      if (c.expected) write_npy(*c.expected, (dir / "expected.npy").string());
      write_npy(reference_scatter(c), (dir / "reference.npy").string());
      std::cout << dir.string() << "\n";
      ++dumped;
    } catch (const Error& e) {
      ++invalid;
      std::cerr << "scatterctl: " << describe(e) << "\n";
    } catch (const std::filesystem::filesystem_error& e) {
      std::cerr << "scatterctl: " << e.what() << "\n";
      return kExitInvalid;
    }
  }
  if (invalid > 0) return kExitInvalid;
  return dumped == 0 ? kExitNothing : kExitOk;
}

int cmd_validate(const Options& o) {
  const auto selection = selection_of(o);
  const auto loaded = load(o);
  auto reporter = make_table_reporter(std::cout, {use_color(o.color), o.quiet, o.verbose});
  return validate_cases(loaded, selection, *reporter, o.profile).exit_code;
}

int cmd_list(const Options& o) {
  const auto selection = selection_of(o);
  const auto loaded = load(o);
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
    if (!o.profile.empty()) {
      const auto why = profile_violation(o.profile, d, nullptr);
      in_profile = why ? fmt::format(" [outside {}: {}]", o.profile, *why) : fmt::format(" [in {}]", o.profile);
    }
    std::cout << fmt::format("{:<40} {:<17} {:<5} {:<8} data {} indices {} {} updates {}{}{}\n", d.name,
                             to_string(d.attrs.op), to_string(d.attrs.reduction), to_string(d.data.dtype),
                             format_shape(d.data.shape), to_string(d.indices.dtype), format_shape(d.indices.shape),
                             format_shape(d.updates.shape),
                             entry.expect_error ? fmt::format(" (expects [{}])", to_string(*entry.expect_error)) : "",
                             in_profile);
  }
  std::cout << fmt::format("scatterctl: {} cases selected, {} invalid, {} unreadable files\n", listed,
                           invalid - static_cast<int>(std::count_if(loaded.cases.begin(), loaded.cases.end(), [&](const CaseEntry& e) {
                             return is_selected(e, selection) && !e.decl && e.expect_error;
                           })),
                           loaded.file_errors.size());
  if (!loaded.file_errors.empty()) return kExitInvalid;
  return listed == 0 ? kExitNothing : kExitOk;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::io, "", fmt::format("cannot read '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Bench and compare reports, like run's, are whole or absent (temporary file, rename).
void write_text(const std::string& path, const std::string& text) { write_file_atomically(path, text); }

// bench and compare flags of the regression gate (defaults: the gate's settings).
struct GateFlags {
  int repetitions = 3;   // rounds over the suite
  int min_samples = 5;   // per benchmark and round
  bool no_verify = false;
  bool allow_missing = false;
};
GateFlags gate_flags;

int cmd_bench(const Options& o) {
  prepare_report_path(o.json, "--json");
  prepare_report_path(o.markdown, "--markdown");
  const auto all = backends_for(o);
  const auto choice = choose_backends(o.backend, all);
  if (refuse_unavailable(choice)) return kExitEnv;
  say_skipped(choice);
  say_not_running(choice);
  const BenchMode mode = o.mode == "nd" ? BenchMode::nd : o.mode == "elements" ? BenchMode::elements
                         : o.mode == "update" ? BenchMode::update : BenchMode::all;
  const BenchSize size = o.size == "medium" ? BenchSize::medium : o.size == "large" ? BenchSize::large : BenchSize::small;
  std::vector<BenchItem> items;
  if (o.paths.empty()) {
    items = builtin_suite(mode, size);
  } else {
    const auto loaded = load(o);
    for (const auto& e : loaded.file_errors) std::cerr << "scatterctl: " << describe(e) << "\n";
    const auto selection = selection_of(o);
    for (const auto& entry : loaded.cases) {
      if (!entry.decl || entry.expect_error || !is_selected(entry, selection)) continue;
      items.push_back({entry.name, "case", *entry.decl, false, false});
    }
  }
  if (!o.filters.empty() && o.paths.empty()) {
    Selection sel = selection_of(o);
    std::erase_if(items, [&](const BenchItem& i) {
      CaseEntry e;
      e.name = i.name;
      return !is_selected(e, sel);
    });
  }
  if (items.empty()) {
    std::cerr << "scatterctl: nothing selected\n";
    return kExitNothing;
  }
  const auto expectations = expectations_for(o);
  BenchOptions options;
  options.expectations = expectations ? &*expectations : nullptr;
  options.cold = !o.hot;
  options.max_seconds = o.max_seconds > 0 ? o.max_seconds : size == BenchSize::small ? 0.25 : 2.0;
  options.repetitions = gate_flags.repetitions;
  options.min_samples = gate_flags.min_samples;
  options.verify = !gate_flags.no_verify;
  if (const char* slow = std::getenv("SCATTERCTL_BENCH_SLOWDOWN"); slow && *slow) {
    options.slowdown = parse_slowdown(slow);  // test-only: a real slowdown, for measuring the gate
    for (const auto& [name, factor] : options.slowdown) {
      std::cerr << fmt::format("scatterctl: SCATTERCTL_BENCH_SLOWDOWN: {} runs its op {} times per sample\n", name,
                               factor);
    }
  }
  const auto load_start = machine_load();
  if (load_start.busy()) {
    std::cerr << fmt::format("scatterctl: warning: the machine is busy (load {:.2f} on {} CPUs): timings will be noisy\n",
                             load_start.load1, load_start.cpus);
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  int done = 0;
  const auto steps = items.size() * static_cast<std::size_t>(std::max(options.repetitions, 1));
  auto report = run_bench(items, choice.run, options, [&](const std::string& name) {
    if (interrupted()) throw Error(ErrorCode::interrupted, "", "interrupted");
    if (tty) std::cerr << fmt::format("\r\033[K[{}/{}] {}", ++done, steps, name) << std::flush;
  });
  if (tty) std::cerr << "\r\033[K" << std::flush;
  report.context.mode = o.paths.empty() ? o.mode : "cases";
  report.context.size = o.size;
  // Date and host only: an empty backend list starts no framework worker.
  const auto when = make_run_context({}, "");
  report.context.date = when.date;
  report.context.host = when.hostname;
  std::cout << bench_table(report);
  if (!o.json.empty()) write_text(o.json, bench_json(report));
  if (!o.markdown.empty()) write_text(o.markdown, bench_markdown(report));
  if (report.context.load_end.busy()) {
    std::cerr << fmt::format("scatterctl: warning: the machine was busy (load {:.2f} at the end on {} CPUs): the "
                             "timings are noisy\n",
                             report.context.load_end.load1, report.context.load_end.cpus);
  }
  const auto failed = std::count_if(report.rows.begin(), report.rows.end(),
                                    [](const BenchRow& r) { return r.failed && r.expectation.empty(); });
  if (failed > 0) {
    std::cerr << fmt::format("scatterctl: {} benchmark{} failed: the output differs from the reference (no timing)\n",
                             failed, failed == 1 ? "" : "s");
  }
  // Skipped (undeclared) and xfail (a known divergence) rows have no number but fail nothing.
  const bool any_error = std::any_of(report.rows.begin(), report.rows.end(), [](const BenchRow& r) {
    return !r.error.empty() && !r.skipped && r.expectation.empty();
  });
  return any_error ? kExitFailed : kExitOk;
}

// "5%": a percentage with its unit. A bare number is refused: "5" could mean 5% or 500%.
double parse_threshold(const std::string& text) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used > 0 && used == text.size()) {
    throw Error(ErrorCode::schema, "--threshold",
                fmt::format("= '{}' has no unit: write {}% for {} percent", text, text, text));
  }
  if (used == 0 || text.substr(used) != "%" || !(v >= 0) || v > 1e6) {
    throw Error(ErrorCode::schema, "--threshold", fmt::format("= '{}' is not a percentage like 5%", text));
  }
  return v / 100.0;
}

int cmd_compare(const Options& o) {
  CompareBenchOptions options;
  options.threshold = parse_threshold(o.threshold);
  options.allow_device_mismatch = o.allow_device_mismatch;
  options.allow_missing = gate_flags.allow_missing;
  const auto result = compare_bench(read_text(o.paths.at(0)), read_text(o.paths.at(1)), options);
  std::cout << compare_table(result);
  for (const auto& w : result.warnings) std::cerr << "scatterctl: warning: " << w << "\n";
  if (!o.markdown.empty()) write_text(o.markdown, compare_markdown(result));
  return result.failed ? kExitFailed : kExitOk;
}

// Random valid cases on the backends against the reference; failures become case files.
int cmd_fuzz(const Options& o) {
  const auto expectations = expectations_for(o);  // a bad file is refused before any worker starts
  const auto all = backends_for(o);
  const auto choice = choose_backends(o.backend, all);
  if (refuse_unavailable(choice)) return kExitEnv;
  say_skipped(choice);
  say_not_running(choice);
  FuzzOptions options;
  options.seed = o.seed;
  options.iterations = o.iterations;
  options.max_elements = o.max_elements;
  options.out_dir = o.out_dir.empty() ? "fuzz-failures" : o.out_dir;
  options.flags = {o.in_place, o.deterministic};
  options.expectations = expectations ? &*expectations : nullptr;
  std::vector<std::string> names;
  for (auto* b : choice.run) names.emplace_back(b->name());
  std::cout << fmt::format("fuzz: {} cases, seed {}, backends {}{}{}\n", o.iterations, o.seed, fmt::join(names, ","),
                           o.deterministic ? ", deterministic" : "", o.in_place ? ", in place" : "");
  const auto summary = run_fuzz(options, choice.run, [](const std::string& line) { std::cout << line << std::endl; });
  for (const auto& [id, n] : summary.xfail_ids) std::cout << fmt::format("fuzz: xfail {} x{}\n", id, n);
  std::cout << fmt::format("fuzz: {} cases, {} runs, {} failures, {} xfail, {} unsupported{}{}\n", summary.cases,
                           summary.runs, summary.failures, summary.xfailed, summary.skipped,
                           summary.failures ? " (case files under " + options.out_dir + ")" : "",
                           summary.interrupted ? ", interrupted" : "");
  if (summary.interrupted) return kExitInterrupted;
  return summary.failures ? kExitFailed : kExitOk;
}

int cmd_info(const Options& o) {
  std::cout << fmt::format("scatterctl {}\n", kVersion);
  std::cout << fmt::format("build: {}, CUDA compiled in: {}\n", kBuildType, kCudaCompiled ? "yes" : "no");
  std::cout << "backends:\n";
  for (const auto& b : backends_for(o)) {
    const auto a = b->availability();
    if (a.available) {
      const auto version = b->version();
      std::cout << fmt::format("  {:<12} available    {}device: {}\n", b->name(), version.empty() ? "" : version + ", ",
                               b->device());
    } else {
      std::cout << fmt::format("  {:<12} unavailable: {}\n", b->name(), a.reason);
    }
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scatterctl: conformance and benchmarks for scatter operators"};
  app.set_version_flag("--version", std::string(scatter::kVersion));
  app.require_subcommand(1);
  Options o;
  // From the start, so that Ctrl-C or SIGTERM while loading also ends in a clean exit 130.
  install_signal_handlers();

  auto* run = app.add_subcommand("run", "run cases on backends, compare, report");
  run->add_option("paths", o.paths, "case files or directories (default: the bundled cases/)");
  run->add_option("--backend", o.backend, kBackendHelp);
  add_selection(run, o);
  run->add_option("--color", o.color, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
  run->add_flag("-q,--quiet", o.quiet, "print only failures and the closing line");
  run->add_flag("-v,--verbose", o.verbose, "print every comparison's details");

  auto* validate = app.add_subcommand("validate", "load and check cases; no backend runs");
  validate->add_option("paths", o.paths, "case files or directories")->required();
  add_selection(validate, o);
  validate->add_option("--color", o.color, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
  validate->add_flag("-q,--quiet", o.quiet, "print only invalid cases and the closing line");
  validate->add_flag("-v,--verbose", o.verbose, "more detail");

  auto* list = app.add_subcommand("list", "print the selected cases with op, reduction, dtype and shapes");
  list->add_option("paths", o.paths, "case files or directories (default: the bundled cases/)");
  add_selection(list, o);

  run->add_option("--junit", o.junit, "also write a JUnit XML report to FILE");
  run->add_option("--json", o.json, "also write a JSON report to FILE");
  run->add_option("--markdown", o.markdown, "also write a Markdown summary to FILE");
  run->add_option("--save-failures", o.save_failures, "write each failing case's tensors and a repro.json under DIR");
  run->add_flag("--fail-fast", o.fail_fast, "stop at the first failing case");
  run->add_flag("--in-place", o.in_place, "scatter into data's own buffer (no copy into a fresh output)");
  run->add_flag("--deterministic", o.deterministic,
                "float add, sub, mul and mean in update order on every backend (bit-identical to ref)");
  run->add_option("--timeout", o.timeout, "seconds per case; a case over it is an error and the run goes on")
      ->check(positive("a positive number of seconds"));

  auto* explain_cmd = app.add_subcommand("explain", "print which update goes where, step by step, and the result");
  explain_cmd->add_option("path", o.paths, "a case file")->required()->expected(1);
  explain_cmd->add_option("--case", o.case_name, "the case to explain (default: every case of the file)");
  explain_cmd->add_option("--limit", o.limit, "update lines printed at most (default 100)")->check(CLI::NonNegativeNumber);
  explain_cmd->add_option("--max-bytes", o.max_bytes, "reject cases needing more host memory");

  auto* dump = app.add_subcommand("dump", "write a case's inputs and reference output as .npy files");
  dump->add_option("path", o.paths, "a case file or directory")->required();
  dump->add_option("--case", o.case_name, "only this case");
  dump->add_option("--out", o.out_dir, "output directory (one folder per case)")->required();
  dump->add_option("--max-bytes", o.max_bytes, "reject cases needing more host memory");

  auto* bench = app.add_subcommand("bench", "time the backends on a built-in suite (or the given cases)");
  bench->add_option("paths", o.paths, "case files or directories (default: the built-in suite)");
  bench->add_option("--mode", o.mode, "nd, elements, update or all (default all)")
      ->check(CLI::IsMember({"nd", "elements", "update", "all"}));
  bench->add_option("--size", o.size, "small, medium or large (default small)")
      ->check(CLI::IsMember({"small", "medium", "large"}));
  bench->add_option("--backend", o.backend, kBackendHelp);
  bench->add_option("--filter", o.filters, "glob on benchmark names; a leading '-' excludes (repeatable)")
      ->allow_extra_args(false);
  bench->add_option("--json", o.json, "write the report (Google Benchmark's JSON schema) to FILE");
  bench->add_option("--markdown", o.markdown, "write a Markdown summary to FILE");
  bench->add_flag("--hot", o.hot, "do not flush caches between samples");
  bench->add_option("--max-seconds", o.max_seconds, "sampling time per benchmark (default 0.25 small, 2 otherwise)")
      ->check(positive("a positive number"));
  bench->add_option("--max-bytes", o.max_bytes, "reject cases needing more host memory");
  bench->add_option("--repetitions", gate_flags.repetitions,
                    "rounds over the suite, each taking --min-samples or more per benchmark (default 3)")
      ->check(CLI::Range(1, 1000));
  bench->add_option("--min-samples", gate_flags.min_samples, "samples per benchmark and round at least (default 5)")
      ->check(CLI::Range(1, 100000));
  bench->add_flag("--no-verify", gate_flags.no_verify,
                  "do not check each backend's output against the reference (for huge cases)");

  auto* compare = app.add_subcommand("compare", "compare two bench reports; exit 1 on a regression");
  compare->add_option("reports", o.paths, "BASE.json NEW.json")->required()->expected(2);
  compare->add_option("--threshold", o.threshold, "smallest change that counts, with its unit (default 5%)");
  compare->add_option("--markdown", o.markdown, "write a Markdown summary to FILE");
  compare->add_flag("--allow-device-mismatch", o.allow_device_mismatch, "compare reports from different devices");
  compare->add_flag("--allow-missing", gate_flags.allow_missing,
                    "pass the gate when benchmarks of BASE are missing from NEW, or none is in both");

  auto* fuzz = app.add_subcommand("fuzz", "random valid cases on the backends, compared with ref; failures saved");
  fuzz->add_option("--iterations", o.iterations, "cases to draw (default 1000)")->check(CLI::NonNegativeNumber);
  fuzz->add_option("--seed", o.seed, "the stream of cases (default 1); a case file names its seed");
  fuzz->add_option("--backend", o.backend, kBackendHelp);
  fuzz->add_option("--max-elements", o.max_elements, "elements per tensor at most (default 4096)")
      ->check(positive("a positive number"));
  fuzz->add_option("--out", o.out_dir, "where failing cases are written (default fuzz-failures/)");
  fuzz->add_flag("--in-place", o.in_place, "scatter into data's own buffer");
  fuzz->add_flag("--deterministic", o.deterministic, "fixed reduction order: every output must match bit for bit");

  auto* info = app.add_subcommand("info", "version, build, backends and devices");
  info->add_option("--backend", o.backend, "also load these plugin:PATH backends");
  for (auto* cmd : {run, bench, fuzz, info}) add_external(cmd, o);
  for (auto* cmd : {run, fuzz, bench}) {
    cmd->add_option("--expectations", o.expectations, "known divergences: a file or directory (default: the bundled lib/expectations/)");
    cmd->add_flag("--no-expectations", o.no_expectations, "report every divergence as a failure");
    cmd->add_flag("--strict", o.strict, "an XPASS (a recorded divergence that now passes) fails the run");
  }
  // The child side of --isolate: serves one plugin over fds 3 and 4 (docs/backends.md).
  auto* plugin_host = app.add_subcommand("plugin-host", "")->group("");
  plugin_host->add_option("path", o.paths, "the plugin")->required()->expected(1);

  // `scatterctl help [COMMAND]`, and a word that is no command, before CLI11 sees them.
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string word = argv[1];
    const auto names = command_names(app);
    if (word == "help") {
      if (argc >= 3) {
        for (auto* sub : app.get_subcommands({})) {
          if (sub->get_name() == argv[2] && !sub->get_group().empty()) {
            std::cout << sub->help();
            return scatter::kExitOk;
          }
        }
        std::cerr << fmt::format("scatterctl: '{}' is not a command{}\n", argv[2], did_you_mean(argv[2], names));
        return scatter::kExitUsage;
      }
      std::cout << app.help();
      return scatter::kExitOk;
    }
    if (std::find(names.begin(), names.end(), word) == names.end() && word != "plugin-host") {
      std::cerr << fmt::format("scatterctl: '{}' is not a command{} (scatterctl help lists them)\n", word,
                               did_you_mean(word, names));
      return scatter::kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // An unknown flag: name the closest one of its command.
    app.exit(e);
    std::vector<std::string> known;
    for (auto* sub : app.get_subcommands({})) {
      if (!sub->parsed()) continue;
      for (const auto* opt : sub->get_options()) {
        for (const auto& lname : opt->get_lnames()) known.push_back("--" + lname);
      }
    }
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.rfind("--", 0) != 0) continue;
      const auto flag = arg.substr(0, arg.find('='));
      if (std::find(known.begin(), known.end(), flag) != known.end()) continue;
      const auto hint = did_you_mean(flag, known);
      if (!hint.empty()) std::cerr << fmt::format("scatterctl: '{}' is not a flag of this command{}\n", flag, hint);
    }
    return scatter::kExitUsage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return scatter::kExitUsage;
  }
  o.self_exe = self_path(argv[0]);
  try {
    for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
    auto dispatch = [&] {
      if (run->parsed()) return cmd_run(o);
      if (explain_cmd->parsed()) return cmd_explain(o);
      if (dump->parsed()) return cmd_dump(o);
      if (bench->parsed()) return cmd_bench(o);
      if (compare->parsed()) return cmd_compare(o);
      if (validate->parsed()) return cmd_validate(o);
      if (list->parsed()) return cmd_list(o);
      if (fuzz->parsed()) return cmd_fuzz(o);
      if (info->parsed()) return cmd_info(o);
      if (plugin_host->parsed()) return serve_plugin(o.paths.at(0), 3, 4);
      return static_cast<int>(scatter::kExitUsage);
    };
    const int rc = dispatch();
    // An interrupt while loading, validating or benchmarking still ends in 130.
    return scatter::interrupted() ? static_cast<int>(scatter::kExitInterrupted) : rc;
  } catch (const scatter::Error& e) {
    // Errors that reach here are in flags (--shard, --backend, --max-bytes, a report
    // path that cannot be written): usage errors. Or Ctrl-C while a worker was starting.
    std::cerr << "scatterctl: " << e.message() << "\n";
    if (e.code() == scatter::ErrorCode::interrupted || scatter::interrupted()) return scatter::kExitInterrupted;
    return scatter::kExitUsage;
  }
  return scatter::kExitUsage;
}

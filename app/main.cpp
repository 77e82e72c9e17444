// scatterctl: CLI11 flags -> options; calls the library; errors -> exit codes.
// Each command lives in its own cmd_<name>.cpp; this file registers and dispatches.

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "scatter/cancel.hpp"
#include "scatter/journal.hpp"
#include "scatter/run.hpp"
#include "scatter/version.hpp"
#include "usage.hpp"

namespace {

extern "C" void on_signal(int) { scatter::request_interrupt(); }

// Every signal whose default would end the run unannounced stops it between steps instead, and
// the reports are written for what finished (exit 130): scatter::stopping_signals(), SIGINT,
// SIGTERM, SIGHUP (a closed terminal, a CI runner's hang-up), SIGQUIT (Ctrl+backslash), timers,
// a kill by a neighbour, SIGXCPU (`ulimit -t`: the hard limit's SIGKILL follows).
// SIGPIPE is ignored: a reader that went away (`run | head`) ends the printing, not the run.
// SIGXFSZ is ignored: past `ulimit -f` a write fails with EFBIG and the report says so (exit 7).
void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (const int stop : scatter::stopping_signals()) {
    sigaction(stop, &action, nullptr);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

// A crash (ours, or an in-process plugin's) names the trial in flight and leaves the reports
// of what finished (journal.hpp), then ends by the same signal, so the shell still sees it.
extern "C" void on_fatal_signal(int signal_number) {
  const char* why = "killed by a fatal signal";
  switch (signal_number) {
    case SIGSEGV: why = "killed by signal 11 (SIGSEGV)"; break;
    case SIGABRT: why = "killed by signal 6 (SIGABRT)"; break;
    case SIGBUS: why = "killed by signal 7 (SIGBUS)"; break;
    case SIGFPE: why = "killed by signal 8 (SIGFPE)"; break;
    case SIGILL: why = "killed by signal 4 (SIGILL)"; break;
  }
  scatter::end_run_abruptly(why, scatter::EndKind::crashed);
  raise(signal_number);  // SA_RESETHAND: the default action, once this handler returns
}

// On a stack of its own, so that a stack overflow is reported too. A handler already there
// (a sanitizer's, which reports better) is left in place.
void install_fatal_signal_handlers() {
  static char alternate_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, nullptr);
  for (const int signal_number : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) {
    struct sigaction current {};
    sigaction(signal_number, nullptr, &current);
    if (current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    action.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, nullptr);
  }
}

// This executable, for the child process of --isolate.
std::string self_path(const char* argv0) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : exe.string();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scatter::cli;
  // Named, so that `scatterctl help` (printed before CLI11 parses argv) shows it in its usage.
  CLI::App app{"scatterctl: conformance and benchmarks for scatter operators", "scatterctl"};
  app.set_version_flag("--version", std::string(scatter::kVersion));
  app.require_subcommand(1);
  // From the start, so that Ctrl-C or SIGTERM while loading also ends in a clean exit 130.
  install_signal_handlers();

  // In the order `scatterctl help` lists them.
  const std::vector<Command> commands = {
      add_run_command(app),     add_validate_command(app), add_list_command(app),
      add_explain_command(app), add_dump_command(app),     add_bench_command(app),
      add_compare_command(app), add_fuzz_command(app),     add_shrink_command(app), add_info_command(app),
      add_merge_command(app),   add_expectations_command(app), add_import_command(app),
      add_plugin_host_command(app), add_backend_host_command(app),
      add_box_host_command(app)};
  if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
  // The hosts' parent reports their crashes as the case's error.
  const bool hosting = std::any_of(kHostCommands.begin(), kHostCommands.end(),
                                   [&](const std::string& name) { return app.got_subcommand(name); });
  if (!hosting) install_fatal_signal_handlers();

  Invocation invocation;
  invocation.self_exe = self_path(argv[0]);
  try {
    for (int i = 0; i < argc; ++i) invocation.command_line += (i ? " " : "") + std::string(argv[i]);
    for (const auto& command : commands) {
      if (!command.cli->parsed()) continue;
      const int rc = command.run(invocation);
      // An interrupt while loading, validating or benchmarking still ends in 130.
      return scatter::interrupted() ? static_cast<int>(scatter::kExitInterrupted) : rc;
    }
  } catch (const std::bad_alloc&) {
    // A command that runs out of memory on its input (a report or case far past this machine's
    // memory): said, not an abort.
    std::cerr << "scatterctl: out of memory: the input is larger than this machine can hold\n";
    return scatter::kExitInvalid;
  } catch (const scatter::Error& e) {
    // Errors that reach here are in flags (--shard, --backend, --max-bytes, a report
    // path that cannot be written): usage errors. Or Ctrl-C while a worker was starting.
    std::cerr << "scatterctl: " << e.message() << "\n";
    if (e.code() == scatter::ErrorCode::interrupted || scatter::interrupted()) return scatter::kExitInterrupted;
    return scatter::kExitUsage;
  }
  return scatter::kExitUsage;
}
